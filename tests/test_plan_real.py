"""EnginePlan on every real engine: TREx's reference figures where TREx is right, ours where not.

Reference figures: ../shared/engines/README.md ("Reference figures computed by TREx 0.2.1").
"""

from __future__ import annotations

import math
import warnings

import pandas as pd
import pytest

import trex
from helpers import trex_activations, trex_weights
from trex import EnginePlan, summary_dict

warnings.simplefilter("ignore", trex.TrexWarning)

# folder: (layers, sum avg ms, TREx weights, TREx activations, types, precisions)
REFERENCE = {
    "a100-resnet18-fp16": (25, 1.0168, 23_357_824, 441_870_336,
                           {"Convolution": 21, "Reformat": 2, "Pooling": 2}, {"FP16": 24, "FP32": 1}),
    "a100-resnet18-fp32": (24, 2.1238, 46_715_648, 876_934_144,
                           {"Convolution": 21, "Pooling": 2, "Reformat": 1}, {"FP32": 24}),
    "a100-resnet18-qat": (35, 1.0957, 11_678_912, 589_493_248,
                          {"Convolution": 21, "Reformat": 12, "Pooling": 2},
                          {"INT8": 21, "FP16": 11, "FP32": 3}),
    "a100-resnet18-qat-residual": (25, 0.7311, 11_669_504, 190_559_232,
                                   {"Convolution": 20, "Reformat": 3, "ConvActPool": 1, "Pooling": 1},
                                   {"INT8": 22, "FP32": 3}),
    "a100-resnet18-qat-residual-qgap": (23, 0.6728, 11_669_504, 179_188_736,
                                        {"Convolution": 20, "Reformat": 1, "ConvActPool": 1,
                                         "Pooling": 1}, {"INT8": 22, "FP32": 1}),
    "trex-mobilenet-qat": (72, 0.4704, 3_469_760, 16_629_344,
                           {"Convolution": 53, "Reformat": 18, "Pooling": 1},
                           {"INT8": 53, "FP16": 15, "FP32": 4}),
    "trex-mobilenet-v2-residuals-qat": (57, 0.3559, 3_469_760, 14_863_776,
                                        {"Convolution": 53, "Reformat": 3, "Pooling": 1},
                                        {"INT8": 53, "FP16": 3, "FP32": 1}),
    "trt8.6-resnet50-int8": (57, 0.4527, 25_493_504, 27_562_720,
                             {"Convolution": 53, "Reformat": 1, "ConvActPool": 1, "Pooling": 1,
                              "SoftMax": 1}, {"INT8": 55, "FP32": 2}),
}

# Our corrected figures: weights include bias (and ConvActPool's ConvWeights/ConvBias);
# activations pad vectorised formats (NC/4HW4, NC/32HW32, NHWC8 ...) to their channel multiple.
CORRECTED = {
    "a100-resnet18-fp16": (23_369_424, 448_292_864),
    "a100-resnet18-fp32": (46_738_848, 876_934_144),
    "a100-resnet18-qat": (11_702_112, 592_704_512),
    "a100-resnet18-qat-residual": (11_702_112, 190_559_232),
    "a100-resnet18-qat-residual-qgap": (11_702_112, 179_188_736),
    "trex-mobilenet-qat": (3_541_984, 17_808_480),
    "trex-mobilenet-v2-residuals-qat": (3_541_984, 15_817_120),
    "trt8.6-resnet50-int8": (25_613_152, 27_562_720),
}


def load(engines, folder, **kwargs) -> EnginePlan:
    return EnginePlan.from_path(engines / folder, **kwargs)


def bias_and_conv_weights(plan: EnginePlan) -> int:
    return sum(layer.weights_size for layer in plan.layers) - trex_weights(plan)


@pytest.mark.parametrize("folder", sorted(REFERENCE))
def test_reference_figures(engines, folder):
    layers, sum_avg, weights, acts, types, precisions = REFERENCE[folder]
    plan = load(engines, folder)
    assert len(plan.df) == layers
    assert plan.total_runtime == pytest.approx(sum_avg, abs=5e-5)
    assert dict(plan.df["type"].value_counts()) == types
    assert dict(plan.df["precision"].value_counts()) == precisions
    # TREx's formulas reproduce its published figures from our model...
    assert trex_weights(plan) == weights
    assert trex_activations(plan) == acts
    # ...and our figures differ exactly by what TREx left out.
    our_weights, our_acts = CORRECTED[folder]
    assert plan.total_weights_size == our_weights
    assert plan.total_act_size == our_acts
    bias = int(plan.df["bias_size"].sum())
    conv_act_pool = sum(layer.weights_only_size for layer in plan.layers
                        if "ConvWeights" in layer.raw_dict)
    assert our_weights == weights + bias + conv_act_pool
    padded = [t for layer in plan.layers for t in (*layer.inputs, *layer.outputs)
              if t.tensor_format.vector > 1 and t.shape[1] % t.tensor_format.vector]
    assert (our_acts > acts) == bool(padded)


def test_mobilenet_padding_explains_activation_difference(engines):
    plan = load(engines, "trex-mobilenet-qat")
    first = plan.layers[0]
    # QuantizeLinear_2 writes 1x3x224x224 INT8 in "Four wide channel vectorized" format:
    # 3 channels are stored as 4, so 200,704 bytes, not TREx's 150,528.
    out = first.outputs[0]
    assert out.format == "Int8 NC/4HW4"
    assert out.size_bytes == 4 * 224 * 224
    assert math.prod(out.shape) == 150_528


def test_mobilenet_summary_dict_matches_trex(engines):
    plan = load(engines, "trex-mobilenet-qat")
    d = summary_dict(plan)
    assert d["Inputs"] == "input1: [1, 3, 224, 224]xFP32 NCHW"
    assert d["Outputs"] == "1179: [1, 1000]xFP32 NCHW"
    assert d["Average time"] == "0.470 ms"
    assert d["Layers"] == "72"
    # TREx: Weights 3.3 MB, Activations 15.9 MB; ours add bias (3.4 MB) and padding (17.0 MB).
    assert d["Weights"] == "3.4 MB"
    assert d["Activations"] == "17.0 MB"
    assert plan.performance_summary["Throughput"] == pytest.approx(2829.15)
    assert plan.device_properties["Selected Device"] == "NVIDIA TITAN RTX"
    assert plan.builder_cfg["Precision"] == "FP32+FP16+INT8"
    assert plan.profile_count == 6610


def test_trex_columns_and_walkthrough_snippets(engines):
    plan = load(engines, "trex-mobilenet-qat")
    df = plan.df
    for col in ("Name", "type", "subtype", "tactic", "Inputs", "Outputs", "precision",
                "output_precision", "total_io_size_bytes", "weights_size", "total_footprint_bytes",
                "latency.time", "latency.avg_time", "latency.median_time", "latency.pct_time",
                "Kernel", "Stride", "Groups", "OutMaps", "Weights.Count", "Weights.Type"):
        assert col in df.columns, col
    top3 = df.nlargest(3, "latency.pct_time")
    assert top3["Name"].iloc[0] == "features.15.conv.2.weight + QuantizeLinear_722 + Conv_726 + Add_728"
    by_type = df.groupby(["type"]).sum()[["latency.avg_time"]]
    assert by_type.loc["Convolution", "latency.avg_time"] == pytest.approx(0.38332, abs=1e-4)
    assert by_type["latency.avg_time"].sum() == pytest.approx(plan.total_runtime)
    # The first convolution by hand: input 3 channels padded to 4 (Int8 x4), output 32 channels
    # (Int8 x32), 864 Int8 weights and 32 Float biases.
    conv = df.iloc[1]
    assert conv["total_io_size_bytes"] == 4 * 224 * 224 + 32 * 112 * 112
    assert conv["weights_size"] == 864 + 32 * 4
    assert conv["total_footprint_bytes"] == 603_104
    convs = plan.get_layers_by_type("Convolution")
    assert len(convs) == 53
    assert plan.find(df["Name"].iloc[1]).type == "Convolution"
    assert plan.find("no such layer") is None
    assert len(plan.all_layers) == len(plan.layers) + len(plan.constants)


def test_profile_joined_by_name_not_position(engines, tmp_path):
    """TREx joins rows by position when counts match; a reordered profile must not move times."""
    src = engines / "trex-mobilenet-qat"
    graph = src / "mobilenet.qat.onnx.engine.graph.json"
    profile = pd.read_json(src / "mobilenet.qat.onnx.engine.profile.json")
    rows = profile.iloc[1:].sample(frac=1.0, random_state=3)  # shuffled layer rows
    shuffled = tmp_path / "shuffled.profile.json"
    shuffled.write_text("[" + ",".join([profile.iloc[:1][["count"]].to_json(orient="records")[1:-1]]
                        + [r.dropna().to_json() for _, r in rows.iterrows()]) + "]")
    plan = EnginePlan(graph, shuffled)
    original = EnginePlan(graph, src / "mobilenet.qat.onnx.engine.profile.json")
    assert plan.df.set_index("Name")["latency.avg_time"].equals(
        original.df.set_index("Name")["latency.avg_time"])


def test_profile_from_other_engine_is_reported(engines):
    graph = engines / "trex-mobilenet-qat" / "mobilenet.qat.onnx.engine.graph.json"
    other = engines / "trex-mobilenet-v2-residuals-qat" / \
        "mobilenet_v2_residuals.qat.onnx.engine.profile.json"
    plan = EnginePlan(graph, other)
    assert any("profile rows name no layer" in w for w in plan.warnings)
    assert any("have no profile row" in w for w in plan.warnings)
    assert plan.df["latency.avg_time"].isna().sum() > 0


def test_alexnet_trt10_myelin_layers(engines):
    plan = load(engines, "trt10.4-alexnet-fp16")
    types = dict(plan.df["type"].value_counts())
    assert types == {"Convolution": 5, "Pooling": 3, "gemm": 3, "Reformat": 1, "kgen": 1,
                     "shape_call": 1}
    # TREx 0.2.1 drops the shape_call layer (13 layers, 0.5221 ms); it is a real Myelin launch
    # with its own profile row (0.00205 ms), so we keep it: 14 layers, 0.5242 ms.
    assert len(plan.df) == 14
    assert plan.total_runtime == pytest.approx(0.52417, abs=5e-5)
    without = plan.df[plan.df["type"] != "shape_call"]
    assert len(without) == 13
    assert without["latency.avg_time"].sum() == pytest.approx(0.5221, abs=5e-5)
    kgen = plan.df[plan.df["type"] == "kgen"].iloc[0]
    assert kgen["Metadata"] == ["/Flatten"]
    assert kgen["precision"] == "FP16"
    # TREx: conv weights only, and the GEMMs' constant inputs (B, bias, scales: 117,262,312 B)
    # as activations; here they are weights (see test_derived_figures for the count from the JSON)
    assert trex_weights(plan) == 4_937_088
    assert plan.total_weights_size == 4_939_392 + 117_262_312
    assert trex_activations(plan) == 120_530_360
    assert plan.total_act_size == 120_731_064 - 117_262_312
    assert plan.device.sms == 30 and plan.device.global_memory_bytes == 5937 * 2**20


def test_trt10_16_mnist_newest_format(engines):
    plan = EnginePlan(engines / "trt10.16-mnist-fp32" / "model-trained-exportLayerInfo.log")
    assert len(plan.df) == 9
    assert dict(plan.df["type"].value_counts()) == {"kgen": 4, "Convolution": 2, "Pooling": 2,
                                                    "gemm": 1}
    assert dict(plan.df["precision"].value_counts()) == {"FP32": 8, "INT32": 1}
    assert trex_weights(plan) == 208_000 and plan.total_weights_size == 208_000 + 384
    assert plan.total_act_size == 387_876
    # No profile: latency is unknown, not zero (TREx said 0).
    assert not plan.has_profile and math.isnan(plan.total_runtime)
    assert plan.df["latency.avg_time"].isna().all()
    first = plan.df.iloc[0]
    assert first["Metadata"] == ["node_conv2d", "node_relu"]
    assert first["HasDynamicFilter"] == 0 and first["ConvXAsActInputIdx"] == -1
    inputs, outputs = plan.get_bindings()
    assert [t.name for t in inputs] == ["x"]
    assert {t.name for t in outputs} == {"y", "z"}
    z = next(t for t in outputs if t.name == "z")
    assert z.precision == "INT64" and z.size_bytes == 8


def test_multiprofile_oneline_dump(engines):
    log = engines / "trt10.16-multiprofile-oneline" / "log-main.py.log"
    p0 = EnginePlan(log)
    p1 = EnginePlan(log, profile_id=1)
    assert p0.profiles == [0, 1]
    # 14 layers per profile in the dump; the NoOp is folded away as in TREx.
    assert len(p0.df) == len(p1.df) == 13
    assert all("[profile" not in n for n in p0.df["Name"])
    # Myelin layers of profile 1 have no suffix in their names, yet belong to profile 1.
    assert "__myl_MaxrSubExpSum_myl13_4" in set(p1.df["Name"])
    assert "__myl_MaxrSubExpSum_myl6_4" in set(p0.df["Name"])
    conv = p1.df[p1.df["type"] == "Convolution"].iloc[0]
    assert conv["Name"] == "node_conv2d + node_relu [profile 1]"
    assert conv["Metadata"] == ["node_conv2d", "node_relu"]
    assert conv["Weights.Type"] == "Half" and conv["Weights.Count"] == 800
    # Dynamic -1 batch: sizes count it as 1, never negative.
    assert (p0.df["total_io_size_bytes"] >= 0).all()
    assert any("dynamic (-1)" in w for w in p0.warnings)
    inputs, _ = p1.get_bindings()
    assert [t.name for t in inputs] == ["x [profile 1]"]
    with pytest.raises(trex.InputError, match="profile 12"):
        EnginePlan(log, profile_id=12)


def test_resnet50_trt86_stream_metadata_convactpool(engines):
    plan = load(engines, "trt8.6-resnet50-int8")
    cap = plan.df[plan.df["type"] == "ConvActPool"].iloc[0]
    assert cap["Metadata"] == ["/backbone/conv1/Conv", "/backbone/relu/Relu",
                               "/backbone/maxpool/MaxPool"]
    assert cap["weights_size"] == 9408 + 64 * 4  # INT8 ConvWeights + FP32 ConvBias
    assert plan.df["StreamId"].eq(0).all()
    assert plan.performance_summary  # from the .profile.metadata.json


def test_names_only_detr(engines):
    plan = load(engines, "trt10-detr-int8-names-only")
    assert not plan.detailed
    assert len(plan.df) == 840
    assert plan.profile_count == 641
    assert (plan.df["latency.avg_time"] == 0).sum() == 340
    assert any("--profilingVerbosity=detailed" in w for w in plan.warnings)
    assert plan.df["Name"].iloc[0] == "/model/model/Transpose_1_output_0"
    assert (plan.df["type"] == "Reformat").sum() == sum(
        n.startswith("Reformatting CopyNode") for n in plan.df["Name"])


@pytest.mark.parametrize("folder,file,count", [
    ("trt8.4-mnist-names-only", "modelInformation.log", 12),
    ("trt8.5-names-only-single", "infer_layer_info.log", 1),
    ("trt8.2-levit-fp32-names-only", "detailed_report.txt", 435),
])
def test_names_only_files(engines, folder, file, count):
    plan = EnginePlan(engines / folder / file)
    assert len(plan.df) == count
    assert not plan.detailed
    assert not plan.has_profile and math.isnan(plan.total_runtime)
    assert trex.summary_dict(plan)["Average time"] == "–"


def test_mnist_unnamed_layer_name(engines):
    plan = EnginePlan(engines / "trt8.4-mnist-names-only" / "modelInformation.log")
    assert plan.df["Name"].iloc[-1] == "(Unnamed Layer* 32) [Shuffle]"
    assert plan.bindings == ["tensor-0", "tensor-15"]


def test_levit_names_only_with_log_profile(engines):
    plan = load(engines, "trt8.2-levit-fp32-names-only")
    assert len(plan.df) == 435
    assert plan.profile_count == 209
    first = plan.df.iloc[0]
    assert first["Name"] == "onnx::MatMul_1172 + (Unnamed Layer* 23) [Shuffle]"
    assert first["latency.time"] == pytest.approx(0.64)
    assert math.isnan(first["latency.median_time"])  # the 8.2 table has no median column
    assert plan.performance_summary["Throughput"] == pytest.approx(105.134)


def test_torchtrt_layer_list_and_trace(engines):
    plan = load(engines, "torchtrt-alexnet-fp16")
    assert len(plan.df) == 13
    assert dict(plan.df["type"].value_counts()) == {"Convolution": 8, "Pooling": 3, "Reformat": 2}
    assert trex_weights(plan) == 122_180_992
    assert trex_activations(plan) == 3_268_048
    # TREx cannot read the Chrome trace; we aggregate its complete events (µs) into ms.
    assert plan.total_runtime == pytest.approx(10.679, abs=1e-3)
    assert plan.df["latency.pct_time"].sum() == pytest.approx(100.0, abs=1.0)


def test_trt7_concatenated_runs(engines):
    folder = engines / "trt7-googlenet-int8-concatenated"
    plans = [EnginePlan.from_path(folder, profile_run=i) for i in range(7)]
    assert [p.profile_count for p in plans] == [1520, 708, 426, 239, 129, 68, 36]
    assert plans[0].profile_runs == 7
    assert all(len(p.timings) > 0 for p in plans)
    t = plans[0].timings
    for key in ("startInMs", "endInMs", "startOutMs", "endOutMs", "inMs", "outMs", "endToEndMs",
                "latencyMs", "computeMs"):
        assert key in t.columns
    assert "medianMs" not in t.columns
    assert math.isnan(plans[0].df["latency.median_time"].iloc[0])
    with pytest.raises(trex.InputError, match="7 runs"):
        EnginePlan.from_path(folder, profile_run=9)


def test_timings_keep_every_field(engines):
    plan = load(engines, "trex-mobilenet-qat")
    assert list(plan.timings.columns) == [
        "startEnqMs", "endEnqMs", "startH2dMs", "endH2dMs", "startComputeMs", "endComputeMs",
        "startD2hMs", "endD2hMs", "h2dMs", "computeMs", "d2hMs", "latencyMs"]
    assert plan.timings["latencyMs"].iloc[0] == pytest.approx(0.484512)


def test_trex_positional_arguments(engines):
    d = engines / "a100-resnet18-qat"
    prefix = d / "resnet-qat.onnx.engine"
    plan = EnginePlan(f"{prefix}.graph.json", f"{prefix}.profile.json",
                      f"{prefix}.profile.metadata.json", f"{prefix}.build.metadata.json",
                      "qat", None)
    assert plan.name == "qat"
    assert len(plan.df) == 35
    assert plan.builder_cfg
    assert plan.timings.empty  # TREx's constructor takes no timing file
    by_prefix = EnginePlan.from_path(prefix)
    by_file = EnginePlan.from_path(f"{prefix}.profile.json")
    assert len(by_prefix.timings) == len(by_file.timings) > 0
    assert by_prefix.device.name == "NVIDIA A100 80GB PCIe" or by_prefix.device_properties


def test_chained_noops_keep_output_binding(engines):
    """fp32 ResNet18 writes its output through two NoOps: folding follows the chain."""
    plan = load(engines, "a100-resnet18-fp32")
    inputs, outputs = plan.get_bindings()
    assert [t.name for t in inputs] == ["input.1"]
    assert [t.name for t in outputs] == ["191"]
    assert outputs[0].shape == [32, 1000]


def test_plan_without_bindings_loads(engines, tmp_path):
    import json
    src = engines / "trex-mobilenet-qat" / "mobilenet.qat.onnx.engine.graph.json"
    data = json.loads(src.read_text())
    del data["Bindings"]
    path = tmp_path / "nobind.json"
    path.write_text(json.dumps(data))
    plan = EnginePlan(path)
    inputs, outputs = plan.get_bindings()
    assert [t.name for t in inputs] == ["input1"]
    assert [t.name for t in outputs] == ["1179"]


def test_every_file_loads_or_fails_clearly(engines):
    """Each folder loads through from_path; the build-log-only folder through the log's
    'Engine Layer Information' list (issue 7: logs as plan inputs)."""
    for folder in sorted(p for p in engines.iterdir() if p.is_dir()):
        plan = EnginePlan.from_path(folder)
        assert len(plan.df) > 0, folder.name
