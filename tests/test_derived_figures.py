"""Derived figures checked against what TensorRT itself printed (issue 20).

Each test compares a figure trex derives with an independent truth: the trtexec log's own lines,
the raw profile or layer JSON read here without trex, or a computation made here from the raw file.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import warnings

import numpy as np
import pytest

import trex
from trex.cli import main
from trex.model.facts import engine_facts
from trex.summary import latency_by_precision, latency_by_type, slowest_layers, tactic_summary

warnings.simplefilter("ignore", trex.TrexWarning)


def _load(path, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return trex.EnginePlan.from_path(path, **kwargs)


# ------------------------------------------------------------------ how the engine was timed
def test_profile_disabled_is_never_described_as_profiled(engines, tmp_path):
    """The 10.16 profiling log says ``Profile: Enabled`` and ``Separate profiling: Disabled``:
    per-layer times from the timed run. The same log saying ``Profile: Disabled`` had no profiler."""
    folder = engines / "trt10.16-mnist-fp32"
    plan = _load(folder)
    conditions = engine_facts(plan).profiling
    log = (folder / "result-05.log").read_text()
    assert "[I] Profile: Enabled" in log and "[I] Separate profiling: Disabled" in log
    assert conditions["profiler"] is True and conditions["separate_profile_run"] is False
    assert "per-layer times from the timed run" in conditions["per_layer_times"]

    copy = tmp_path / "mnist"
    shutil.copytree(folder, copy)
    (copy / "result-05.log").write_text(log.replace("[I] Profile: Enabled", "[I] Profile: Disabled"))
    mutated = engine_facts(_load(copy)).profiling
    assert mutated["profiler"] is False
    assert "no per-layer profiler in this run" in mutated["per_layer_times"]
    assert "timed run" not in mutated["per_layer_times"]

    # TREx's metadata JSON of the A100 engines: "Separate profiling": "Enabled", no Profile line
    meta = json.loads((engines / "a100-resnet18-qat" /
                       "resnet-qat.onnx.engine.profile.metadata.json").read_text())
    assert meta["inference_options"]["Separate profiling"] == "Enabled"
    a100 = engine_facts(_load(engines / "a100-resnet18-qat")).profiling
    assert "profiler" not in a100
    assert "per-layer times from a separate profiling run" in a100["per_layer_times"]


def test_layer_gap_reads_the_conditions_of_the_run(engines):
    """The gap explanation names a separate profiling run only when the run had one."""
    from trex.iteration_stats import layer_sum_gap

    a100 = layer_sum_gap(_load(engines / "a100-resnet18-qat"))
    assert any("separate run" in line for line in a100["explanation"])
    assert any("CUDA graphs" in line for line in a100["explanation"])


# ------------------------------------------------------------------ unknown is not 0
def test_aggregates_of_untimed_layers_are_unknown(engines, capsys):
    """trt10.16-mnist: the profile (from another build) times 2 of the 9 layers, both pooling.
    Every other group has no time: null in JSON, "–" in tables, never 0 ms."""
    plan = _load(engines / "trt10.16-mnist-fp32")
    timed = plan.df["latency.avg_time"].notna()
    assert timed.sum() == 2 and set(plan.df.loc[timed, "type"]) == {"Pooling"}
    by_type = latency_by_type(plan).set_index("type")
    for kind in ("kgen", "Convolution", "gemm"):
        assert math.isnan(by_type.loc[kind, "latency_ms"]) and by_type.loc[kind, "timed"] == 0
    assert by_type.loc["Pooling", "timed"] == 2
    assert by_type.loc["Pooling", "latency_ms"] == pytest.approx(
        plan.df.loc[timed, "latency.avg_time"].sum())
    assert latency_by_precision(plan).set_index("precision").loc["INT32", "timed"] == 0
    tactics = tactic_summary(plan)
    assert tactics["latency_ms"].isna().sum() == 7 and (tactics["timed"] == 0).sum() == 7
    assert list(slowest_layers(plan)["Name"]) == list(plan.df.loc[timed, "Name"])

    assert main(["summary", str(engines / "trt10.16-mnist-fp32"), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)[0]
    rows = {r["type"]: r for r in data["by_type"]}
    assert rows["kgen"]["latency_ms"] is None and rows["kgen"]["timed"] == 0
    assert rows["Convolution"]["latency_ms"] is None and rows["gemm"]["latency_ms"] is None
    assert len(data["slowest"]) == 2
    assert main(["summary", str(engines / "trt10.16-mnist-fp32")]) == 0
    text = capsys.readouterr().out
    assert "(sum of layer averages; 2 of 9 layers timed)" in text

    unprofiled = _load(engines / "trt10.16-mnist-fp32" / "model-trained-exportLayerInfo.log")
    assert slowest_layers(unprofiled).empty
    assert latency_by_type(unprofiled)["latency_ms"].isna().all()


# ------------------------------------------------------------------ one definition of a share
def test_pct_time_is_the_share_of_the_summed_layer_latency(engines):
    """``latency.pct_time`` = 100 x avg / sum(avg) of the plan's layers; where every profile row
    with a time is a layer of the plan (rows of folded NoOps have none) this equals the profile
    JSON's own ``percentage`` (read here raw)."""
    checked = 0
    for folder in sorted(p for p in engines.iterdir() if p.is_dir()):
        try:
            plan = _load(folder)
        except trex.TrexError:
            continue
        if not plan.has_profile:
            continue
        avg = plan.df["latency.avg_time"].to_numpy()
        share = 100 * avg / np.nansum(avg)
        assert np.allclose(plan.df["latency.pct_time"], share, equal_nan=True), folder.name
        by_type = latency_by_type(plan)
        assert by_type["latency_pct"].sum() == pytest.approx(100.0), folder.name
        profile = plan.sources["profile"]
        if not profile.endswith(".json") or plan.profile_runs != 1:
            continue
        rows = [r for r in json.loads(open(profile).read()) if "name" in r]
        percentage = {r["name"]: r["percentage"] for r in rows if "percentage" in r}
        layers = set(plan.df["Name"])
        if not layers <= set(percentage) or any(
                r.get("averageMs", 1) > 0 for r in rows if r["name"] not in layers):
            continue
        for name, pct in zip(plan.df["Name"], plan.df["latency.pct_time"]):
            assert pct == pytest.approx(percentage[name], abs=1e-4), (folder.name, name)
        checked += 1
    assert checked >= 8


# ------------------------------------------------------------------ shapes after NoOp folding
def _flatten_behind_noop(engines, tmp_path):
    """trt10.4-alexnet with its first classifier GEMM reading the flattened [1, 9216] tensor
    through a NoOp reshape of the [1, 9216, 1, 1] tensor the Myelin kernel writes (the layout of
    a TensorRT 10 classifier behind a pooled tensor)."""
    folder = engines / "trt10.4-alexnet-fp16"
    graph = json.loads((folder / "alexnet_fp16.graph.json").read_text())
    layers = graph["Layers"]
    kgen = next(la for la in layers if la["Name"].startswith("__myl_Res"))
    gemm = next(la for la in layers if la["Name"].startswith("/classifier/classifier_1/Gemm"))
    flat = kgen["Outputs"][0]
    assert flat["Dimensions"] == [1, 9216] and gemm["Inputs"][0]["Name"] == flat["Name"]
    pooled = dict(flat, Name="pooled", Dimensions=[1, 9216, 1, 1])
    kgen["Outputs"] = [pooled]
    noop = {"Name": "reshape_before_gemm", "LayerType": "NoOp", "Inputs": [pooled],
            "Outputs": [flat]}
    layers.insert(layers.index(gemm), noop)
    out = tmp_path / "alexnet"
    shutil.copytree(folder, out)
    (out / "alexnet_fp16.graph.json").write_text(json.dumps(graph))
    return out, gemm


def test_folded_noop_keeps_the_shape_the_layer_reads(engines, tmp_path):
    from trex.compute.costs import gemm_cost
    from trex.lint import lint

    folder, raw_gemm = _flatten_behind_noop(engines, tmp_path)
    plan = _load(folder)
    gemm = plan.find(raw_gemm["Name"])
    # the edge is rewired to the producer's tensor; the shape is the one the GEMM reads
    assert gemm.inputs[0].name == "pooled" and gemm.inputs[0].shape == [1, 9216]
    row = plan.df.set_index("Name").loc[raw_gemm["Name"]]
    assert row["Inputs"][0]["Dimensions"] == raw_gemm["Inputs"][0]["Dimensions"] == [1, 9216]
    assert plan.producers["pooled"][0].name.startswith("__myl_Res")
    # K = 9216 (B is [9216, 4096] in the export), not 1 from the pooled tensor's last dimension
    b = raw_gemm["Inputs"][1]["Dimensions"]
    cost = gemm_cost(gemm)
    assert (cost.m, cost.n, cost.k) == (1, b[1], b[0]) == (1, 4096, 9216)
    assert cost.macs == 4096 * 9216
    findings = lint(plan)
    assert not ((findings["layer"] == raw_gemm["Name"])
                & findings["hazard"].str.contains("not aligned")).any()


def test_folded_reshape_before_softmax_in_a_real_export(engines):
    """trt8.6-resnet50: the Softmax reads [1, 1000] behind ``reshape_after_/backbone/fc/Gemm``."""
    raw = json.loads((engines / "trt8.6-resnet50-int8" / "resnet50-int8.engine.graph.json").read_text())
    softmax = next(la for la in raw["Layers"] if la["Name"] == "/softmax/Softmax")
    plan = _load(engines / "trt8.6-resnet50-int8")
    layer = plan.find("/softmax/Softmax")
    assert layer.inputs[0].shape == softmax["Inputs"][0]["Dimensions"] == [1, 1000]
    assert layer.inputs[0].name == "/backbone/fc/Gemm_out_tensor"  # the GEMM's own output
    assert plan.producers[layer.inputs[0].name][0].name == "/backbone/fc/Gemm"


# ------------------------------------------------------------------ weights of Myelin regions
def test_myelin_gemm_constants_are_weights(engines):
    """trt10.4-alexnet: the three FC GEMMs read their weights (``__mye…dconst``), bias and scales
    as input tensors that no layer writes. Counted here from the raw layer JSON."""
    raw = json.loads((engines / "trt10.4-alexnet-fp16" / "alexnet_fp16.graph.json").read_text())
    written = {t["Name"] for la in raw["Layers"] for t in la.get("Outputs", [])}
    sizes = {"Half": 2, "Float": 4}
    constants = {}
    for la in raw["Layers"]:
        for t in la.get("Inputs", []):
            if t["Name"] not in written and t["Name"] not in raw["Bindings"]:
                constants[(la["Name"], t["Name"])] = math.prod(t["Dimensions"]) * sizes[
                    t["Format/Datatype"]]
    assert len(constants) == 12
    dconst = sum(v for (layer, name), v in constants.items() if name.endswith("dconst"))
    assert dconst == 2 * (9216 * 4096 + 4096 * 4096 + 4096 * 1000)
    attributes = 0  # conv Weights and Bias attributes, as before
    for la in raw["Layers"]:
        for key in ("Weights", "Bias"):
            if isinstance(la.get(key), dict):
                attributes += la[key]["Count"] * sizes[la[key]["Type"]]
    plan = _load(engines / "trt10.4-alexnet-fp16")
    assert plan.total_weights_size == attributes + sum(constants.values()) == 122_201_704
    gemms = plan.df[plan.df["subtype"] == "gemm"].set_index("Name")
    for name in gemms.index:
        assert gemms.loc[name, "weights_size"] == sum(
            v for (layer, _), v in constants.items() if layer == name)
    # not activations: the GEMMs' I/O is their activation input and output only
    first = plan.find("/classifier/classifier_1/Gemm_myl9_2")
    assert first.inputs_size_bytes == 9216 * 2 and first.activation_inputs == first.inputs[:1]
    assert gemms.loc[first.name, "total_io_size_bytes"] == 9216 * 2 + 4096 * 2
    facts = engine_facts(plan)
    assert facts.weights_bytes == 122_201_704 and facts.weights_not_exported == []


def test_weights_a_myelin_gemm_does_not_export_are_said_missing(engines, capsys):
    """trt10.16-mnist: the first Linear runs as a Myelin gemm that reads only its activation
    ([1, 3136]): its [3136, 1024] weights are not in the export, so no total pretends to be whole."""
    plan = _load(engines / "trt10.16-mnist-fp32")
    gemm = plan.find("node_linear_myl4_0")
    assert gemm.subtype == "gemm" and len(gemm.inputs) == 1 and gemm.weights_size == 0
    facts = engine_facts(plan)
    assert facts.weights_not_exported == ["node_linear_myl4_0"]
    assert trex.summary_dict(plan)["Weights"].endswith("+ not exported (1 layer)")
    assert main(["summary", str(engines / "trt10.16-mnist-fp32")]) == 0
    assert "+ not exported in 1 Myelin layer(s): node_linear_myl4_0" in capsys.readouterr().out


# ------------------------------------------------------------------ engine outputs
def test_outputs_are_what_the_log_binds(engines, tmp_path):
    """A build log's layer list where the last region also writes a tensor nothing reads (as
    TopK's unused values): the log's ``Marking ... as output`` lines name the engine's outputs."""
    text = (engines / "trt10.16-mnist-fp32" / "result-02.log").read_text()
    last = "-> y (Float[-1,10]), z (Int64[-1])"
    assert text.count(last) == 1
    marked = [line.split("as output: ")[1] for line in text.splitlines() if " as output: " in line]
    assert marked == ["y", "z"]
    log = tmp_path / "build.log"
    log.write_text(text.replace(last, last + ", topk_values (Float[-1,10])"))
    plan = _load(log)
    _, outputs = plan.get_bindings()
    assert [t.name for t in outputs] == marked
    assert [t.name for t in plan.get_bindings()[0]] == ["x"]  # "Adding network input: x ..."
    assert engine_facts(plan).outputs == [repr(t) for t in outputs]
    # without the log's I/O lines the graph's loose ends are all there is (and said so)
    bare = tmp_path / "bare.log"
    bare.write_text("\n".join(line for line in log.read_text().splitlines()
                              if " as output: " not in line and "network input" not in line))
    guessed = _load(bare)
    assert "topk_values" in [t.name for t in guessed.get_bindings()[1]]
    assert any("inferred" in w for w in guessed.warnings)


# ------------------------------------------------------------------ verdicts one can act on
def test_fully_optimised_engine_has_no_warning_it_cannot_act_on(engines, capsys):
    """NVIDIA's qat-residual-qgap: what is left is the network input's quantize (a reformat of the
    FP32 input binding) and the FP32 logits of the final FC (the FP32 output binding)."""
    from trex.lint import lint

    plan = _load(engines / "a100-resnet18-qat-residual-qgap")
    raw = json.loads(open(plan.graph_file).read())
    inputs, outputs = raw["Bindings"][:1], raw["Bindings"][1:]
    df = lint(plan)
    assert not (df["severity"] != "info").any(), df[df["severity"] != "info"][["linter", "layer"]]
    quantize = df[df["layer"] == "QuantizeLinear_2"]
    layer = plan.find("QuantizeLinear_2")
    assert layer.inputs[0].name in inputs  # it reads the engine's input
    # one finding for one layer and one cause: qdq's, naming reformat as well
    assert list(quantize["linter"]) == ["qdq", "hotspots"]
    assert quantize.iloc[0]["also"] == "reformat"
    logits = df[(df["linter"] == "conv") & (df["hazard"] == "Quantized Convolution has float outputs.")]
    assert len(logits) == 1 and logits.iloc[0]["mitigation"].startswith("Expected")
    assert plan.find(logits.iloc[0]["layer"]).outputs[0].name in outputs
    assert main(["lint", str(engines / "a100-resnet18-qat-residual-qgap"), "--fail-on",
                 "warning"]) == 0
    capsys.readouterr()


def test_gemv_and_depthwise_are_info_with_their_reason(engines):
    from trex.lint import lint

    alexnet = lint(_load(engines / "trt10.4-alexnet-fp16"), ["gemm-tensor-cores"])
    raw = json.loads((engines / "trt10.4-alexnet-fp16" / "alexnet_fp16.graph.json").read_text())
    gemms = [la for la in raw["Layers"] if la["LayerType"] == "gemm"]
    assert all(la["Inputs"][0]["Dimensions"][0] == 1 for la in gemms)  # M = 1: batch 1, GEMV
    assert all("gemv" in la["TacticName"] for la in gemms)
    assert len(alexnet) == 3 and set(alexnet["severity"]) == {"info"}
    assert alexnet["mitigation"].str.startswith("By design for M = 1").all()
    mobilenet = lint(_load(engines / "trex-mobilenet-qat"), ["conv"])
    raw = json.loads((engines / "trex-mobilenet-qat" / "mobilenet.qat.onnx.engine.graph.json").read_text())
    depthwise = {la["Name"] for la in raw["Layers"] if la.get("Groups", 1) > 1
                 and la.get("Groups") == la["Inputs"][0]["Dimensions"][1]}
    not_accelerated = mobilenet[mobilenet["hazard"] == "Convolution is not accelerated."]
    dw = not_accelerated[not_accelerated["layer"].isin(depthwise)]
    assert len(dw) == 17 and set(dw["severity"]) == {"info"}
    assert set(not_accelerated[~not_accelerated["layer"].isin(depthwise)]["severity"]) == {"warning"}


# ------------------------------------------------------------------ TREx's type
def test_type_is_parametertype_else_layertype(engines, tmp_path):
    """TREx: ``type`` is the ParameterType, else the LayerType. A MyelinReformat (no
    ParameterType in TensorRT 10 exports) keeps its name; the reformat linters still see it."""
    from trex.lint import ReformatLinter

    folder = engines / "trt10.4-alexnet-fp16"
    graph = json.loads((folder / "alexnet_fp16.graph.json").read_text())
    first = graph["Layers"][0]
    assert first["LayerType"] == "Reformat" and first["ParameterType"] == "Reformat"
    first["LayerType"] = "MyelinReformat"
    del first["ParameterType"]
    copy = tmp_path / "alexnet"
    shutil.copytree(folder, copy)
    (copy / "alexnet_fp16.graph.json").write_text(json.dumps(graph))
    plan = _load(copy)
    types = dict(zip(plan.df["Name"], plan.df["type"]))
    for la in graph["Layers"]:
        if la["LayerType"] in ("NoOp", "Constant"):
            continue
        assert types[la["Name"]] == la.get("ParameterType", la["LayerType"])
    assert types[first["Name"]] == "MyelinReformat"
    assert plan.find(first["Name"]).is_reformat
    findings = ReformatLinter(plan).lint()  # FP16 -> FP16, layout only: not a conversion
    assert first["Name"] not in set(findings["layer"])
    share = trex.lint.lint(plan, ["reformat-share"])
    assert share.iloc[0]["evidence"]["reformats"] == 1


def test_build_log_layers_get_the_type_the_json_gives(engines):
    """A build log prints ``Layer(CaskConvolution)``: the type is the JSON's ParameterType."""
    plan = _load(engines / "trt8.6-mobilenetv2-int8-build")
    assert set(plan.df["subtype"]) >= {"CaskConvolution", "Reformat"}
    kinds = dict(zip(plan.df["subtype"], plan.df["type"]))
    assert kinds["CaskConvolution"] == "Convolution" and kinds["Reformat"] == "Reformat"


# ------------------------------------------------------------------ math precision and roofline
def test_math_precision_from_the_kernel_names(engines, capsys):
    """a100-resnet18-fp32: 20 of the 21 FP32 convolutions run TF32 Tensor Core kernels (their
    TacticName says ``tf32`` and an MMA shape ``tensor16x8x8``), the first one cuDNN's FFMA."""
    raw = json.loads((engines / "a100-resnet18-fp32" / "resnet.onnx.engine.graph.json").read_text())
    convs = [la for la in raw["Layers"] if la.get("ParameterType") == "Convolution"]
    tf32 = {la["Name"] for la in convs if "tf32" in la["TacticName"] and "tensor16x8x8" in la["TacticName"]}
    assert len(convs) == 21 and len(tf32) == 20
    plan = _load(engines / "a100-resnet18-fp32")
    math_of = dict(zip(plan.df["Name"], plan.df["math_precision"]))
    assert {name for name in math_of if math_of[name] == "TF32 HMMA"} == tf32
    (ffma,) = [la for la in convs if la["Name"] not in tf32]
    assert "scudnn" in ffma["TacticName"] and math_of[ffma["Name"]] == "FP32 FFMA"
    assert (plan.df["precision"][plan.df["type"] == "Convolution"] == "FP32").all()
    from trex.summary import latency_by_math_precision
    by_math = latency_by_math_precision(plan).set_index("math_precision")
    assert by_math.loc["TF32 HMMA", "count"] == 20
    assert by_math.loc["TF32 HMMA", "latency_ms"] == pytest.approx(
        plan.df.loc[plan.df["Name"].isin(tf32), "latency.avg_time"].sum())
    assert engine_facts(plan).math_precision_counts["TF32 HMMA"] == 20
    assert main(["summary", str(engines / "a100-resnet18-fp32")]) == 0
    out = capsys.readouterr().out
    assert "TF32 HMMA 20" in out and "Latency by math precision" in out
    findings = trex.lint.lint(plan, ["math-precision"])
    assert findings.iloc[0]["hazard"] == ("20 of 21 FP32 convolutions and GEMMs run TF32 Tensor "
                                          "Core math.") and findings.iloc[0]["severity"] == "info"
    from trex.compare import summary_table
    table = summary_table([plan, _load(engines / "a100-resnet18-fp16")], ["fp32", "fp16"])
    row = table.set_index("attribute").loc["math precision mix (layers)"]
    assert "TF32 HMMA 20" in row["fp32"] and "FP16 HMMA 21" in row["fp16"]


def test_roofline_uses_the_roof_of_the_math_and_what_a_strided_conv_reads(engines):
    from trex.compute import roofline
    from trex.html_report.payload import roofline_payload

    plan = _load(engines / "a100-resnet18-fp32")
    device = plan.device  # 108 SMs x 1.41 GHz; A100: 2048 FP16 Tensor Core FLOP/clock/SM, TF32 half
    tf32_peak = round(device.sms * device.compute_clock_ghz * 2048 / 1000 / 2, 1)
    df = roofline(plan).set_index("Name")
    convs = df[df["math"] == "TF32 HMMA"]
    assert len(convs) == 20 and (convs["roof"] == "TF32").all()
    assert (convs["peak_tflops"] == tf32_peak).all() and tf32_peak == 155.9
    assert (convs["achieved_tflops"] > 19.5).sum() >= 15  # above FP32's 19.5: TF32, not FP32
    timed = df[df["pct_of_roofline"].notna()]
    assert ((timed["pct_of_roofline"] <= 100.5) | timed["roof_note"].notna()).all()
    # the report draws one roof per kind of math its points run
    payload = roofline_payload(plan)
    assert payload["peaks_tflops"] == {"FP32": 19.5, "TF32": tf32_peak}
    # a 1x1 stride-2 convolution reads a quarter of its input (every other row and column)
    layer = plan.find("Conv_16 + Add_17 + Relu_18")
    assert layer.raw_dict["Kernel"] == [1, 1] and layer.raw_dict["Stride"] == [2, 2]
    x, residual = layer.inputs
    assert x.shape == [32, 64, 56, 56] and layer.outputs[0].shape == [32, 128, 28, 28]
    assert df.loc[layer.name, "bytes_in"] == x.size_bytes // 4 + residual.size_bytes
    # every shared engine: no point above its roof without its reason
    for folder in sorted(p for p in engines.iterdir() if p.is_dir()):
        try:
            other = _load(folder)
        except trex.TrexError:
            continue
        if other.detailed and other.has_profile:
            r = roofline(other)
            bad = r[(r["pct_of_roofline"] > 100.5) & r["roof_note"].isna()]
            assert bad.empty, (folder.name, list(bad["Name"]))


# ------------------------------------------------------------------ known conditions said once
def test_layer_sum_gap_is_one_note_per_engine_not_a_warning(engines, capsys):
    """Per-layer profiling's overhead is a known condition: one ``note:`` per engine with the
    figures TensorRT printed (the profile's averages, trtexec's median GPU compute time)."""
    folder = engines / "trt8.6-resnet50-int8"
    plan = _load(folder)
    rows = json.loads((folder / "resnet50-int8.engine.profile.json").read_text())[1:]
    names = set(plan.df["Name"])
    layer_sum = sum(r["averageMs"] for r in rows if r["name"] in names)
    summary = json.loads((folder / "resnet50-int8.engine.profile.metadata.json").read_text())
    median = summary["performance_summary"]["GPU Compute Time"][3]  # min, max, mean, median, ...
    assert plan.notes == [
        f"sum of layer times {layer_sum:.4f} ms is {layer_sum / median:.2f}x the measured GPU "
        f"compute time {median:.4f} ms (per-layer profiling adds synchronisation between layers)"]
    assert not any("layer times" in w for w in plan.warnings)

    assert main(["summary", str(folder)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert [line for line in err if "layer times" in line] == \
        [f"note: resnet50-int8.engine: {plan.notes[0]}"]
    assert main(["summary", str(folder), "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert f"- note: sum of layer times {layer_sum:.4f} ms is {layer_sum / median:.2f}x" in out


def test_trex_warnings_show_as_one_line_without_source():
    """In a notebook a note is one line (no file, line number or source line of trex's code);
    other packages' warnings keep Python's format."""
    assert warnings.formatwarning("gap", trex.TrexNote, "/x/plan.py", 9) == "note: gap\n"
    assert warnings.formatwarning("odd", trex.TrexWarning, "/x/plan.py", 9) == "warning: odd\n"
    assert "/x/plan.py:9" in warnings.formatwarning("other", UserWarning, "/x/plan.py", 9)


# ------------------------------------------------------------------ tensor bytes and footprint
_VECTOR_WIDTH = {"Two": 2, "Four": 4, "Eight": 8, "Sixteen": 16, "Thirty-two": 32}
_ELEMENT_BYTES = {"FP32": 4, "Float": 4, "FP16": 2, "Half": 2, "BF16": 2, "Int8": 1, "FP8": 1,
                  "Int32": 4, "Int64": 8, "Bool": 1, "UInt8": 1}


def _tensor_bytes(tensor):
    """Bytes of one exported tensor, by TensorRT's format descriptions: a vectorised format pads
    the channel axis (the third from last) to its vector width; a dynamic (-1) dimension counts
    as 1."""
    text = tensor["Format/Datatype"]
    dims = [max(int(d), 1) for d in tensor["Dimensions"]]
    element = next(b for word, b in _ELEMENT_BYTES.items() if re.search(rf"\b{word}\b", text))
    wide = re.match(r"(\w+(?:-\w+)?) wide channel vectorized", text)
    modulo = re.search(r"channel % (\d+) == 0", text)
    width = _VECTOR_WIDTH[wide.group(1)] if wide else int(modulo.group(1)) if modulo else 1
    if width > 1 and len(dims) >= 3:
        dims[-3] = -(-dims[-3] // width) * width
    return math.prod(dims) * element


def _footprint_and_io(layers, names, bindings):
    """(activation footprint, per-layer input and output bytes) of the layers named ``names``,
    from the exported dicts: NoOps folded (a consumer reads the NoOp's input tensor; a NoOp that
    writes a binding renames its producer's output), weights (inputs only a Constant writes, or
    none) left out."""
    noops = [la for la in layers if la.get("LayerType") == "NoOp" and la["Inputs"]
             and la["Outputs"]]
    forward = {la["Outputs"][0]["Name"]: la["Inputs"][0]["Name"] for la in noops}
    renamed = {}  # a producer's tensor -> (the binding a NoOp writes, its bytes)
    for la in noops:
        out = la["Outputs"][0]
        if out["Name"] in bindings:
            source = la["Inputs"][0]["Name"]
            while source in forward:
                source = forward[source]
            renamed[source] = (out["Name"], _tensor_bytes(out))

    def read(name):
        for _ in range(len(forward)):
            if name not in forward:
                break
            name = forward[name]
        return name

    def written_as(tensor):
        return renamed.get(tensor["Name"], (tensor["Name"], _tensor_bytes(tensor)))

    written = {written_as(t)[0] for la in layers if la.get("LayerType") not in ("Constant", "NoOp")
               for t in la["Outputs"]}
    largest, io = {}, []
    for la in (la for la in layers if la["Name"] in names):
        views = [(read(t["Name"]), _tensor_bytes(t), True) for t in la["Inputs"]] + \
                [(*written_as(t), False) for t in la["Outputs"]]
        total = 0
        for name, size, is_input in views:
            if is_input and name not in written and name not in bindings:
                continue  # a constant: weights
            total += size
            largest[name] = max(largest.get(name, 0), size)
        io.append(total)
    return sum(largest.values()), io


def test_activation_footprint_and_tensor_bytes_from_the_raw_layer_json(engines):
    """Each layer's tensor bytes and the activation footprint (each tensor once, at its largest
    view) recomputed here from the exported layer JSON alone, on every detailed engine."""
    checked = []
    for folder in sorted(p for p in engines.iterdir() if p.is_dir()):
        graphs = sorted(folder.glob("*.graph.json"))
        if not graphs:
            continue
        doc = json.loads(graphs[0].read_text())
        layers = doc["Layers"] if isinstance(doc, dict) else doc
        if not isinstance(layers[0], dict):  # names only: no tensors
            continue
        plan = _load(folder)
        footprint, io = _footprint_and_io(layers, set(plan.df["Name"]), set(plan.bindings))
        assert plan.total_activation_footprint == footprint, folder.name
        assert plan.df["total_io_size_bytes"].tolist() == io, folder.name
        assert engine_facts(plan).activation_footprint_bytes == footprint, folder.name
        checked.append(folder.name)
    assert len(checked) >= 9 and "trt8.6-resnet50-int8" in checked and \
        "a100-resnet18-qat" in checked
