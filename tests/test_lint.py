"""Linters on real engines: TREx's reference counts, TREx's bugs fixed, the new linters, `trex lint`.

Reference figures: ../shared/engines/README.md (ConvLinter 17/14/6, ReformatLinter 17 rows on
trex-mobilenet-qat). TREx kept one finding per layer; we keep all 41, and TREx's 37 rows follow
from them by keeping the last finding of each layer. Tensor Core use comes from trex.kernels (the
one classifier every linter uses), not from TREx's ``imma|hmma|xmma|i88|884`` pattern.
"""

from __future__ import annotations

import json
import re
import warnings

import pandas as pd
import pytest

import trex
from helpers import DLA_ROWS, write_dla_profile
from trex.cli import main
from trex.kernels import classify_tactic
from trex.lint import (
    LINTERS,
    SEVERITIES,
    ConvLinter,
    QDQLinter,
    ReformatLinter,
    SliceLinter,
    lint,
    lint_report,
)
from trex.lint.base import FINDING_COLUMNS
from trex.lint.gemm import is_gemm_layer

warnings.simplefilter("ignore", trex.TrexWarning)

ALL_ENGINES = ["a100-resnet18-fp16", "a100-resnet18-fp32", "a100-resnet18-qat",
               "a100-resnet18-qat-residual", "a100-resnet18-qat-residual-qgap", "torchtrt-alexnet-fp16",
               "trex-mobilenet-qat", "trex-mobilenet-v2-residuals-qat", "trt10-detr-int8-names-only",
               "trt10.16-mnist-fp32", "trt10.16-multiprofile-oneline", "trt10.4-alexnet-fp16",
               "trt7-googlenet-int8-concatenated", "trt8.2-levit-fp32-names-only",
               "trt8.4-mnist-names-only", "trt8.5-names-only-single", "trt8.6-resnet50-int8"]
A100 = ["a100-resnet18-fp32", "a100-resnet18-fp16", "a100-resnet18-qat", "a100-resnet18-qat-residual",
        "a100-resnet18-qat-residual-qgap"]


def _by(df: pd.DataFrame, linter: str) -> pd.DataFrame:
    return df[df["linter"] == linter]


# ---------------------------------------------------------------- TREx's linters
def test_conv_linter_keeps_every_finding_and_reproduces_trex_rows(plan):
    df = ConvLinter(plan("trex-mobilenet-qat")).lint()
    counts = df["hazard"].value_counts().to_dict()
    assert counts == {"Convolution is not accelerated.": 18,
                      "Quantized Convolution has float outputs.": 17,
                      "Convolution channels are not optimally aligned.": 6}
    assert len(df) == 41 and df["layer"].nunique() == 37
    # TREx's dict kept the last hazard of each layer (tc, then mixed precision, then alignment).
    trex_rows = df.drop_duplicates("layer", keep="last")["hazard"].value_counts().to_dict()
    assert trex_rows == {"Convolution is not accelerated.": 17,
                         "Quantized Convolution has float outputs.": 14,
                         "Convolution channels are not optimally aligned.": 6}


def test_conv_linter_details(plan):
    df = ConvLinter(plan("trex-mobilenet-qat")).lint()
    first = df[df["layer"].str.startswith("features.0.0.weight")]
    assert set(first["hazard"]) == {"Convolution is not accelerated.",
                                    "Convolution channels are not optimally aligned."}
    tc = first[first["hazard"] == "Convolution is not accelerated."].iloc[0]
    assert tc["evidence"]["input_channels"] == 3
    assert "small number of input channels" in tc["mitigation"]
    assert tc["tactic"] == "volta_int8x4_icudnn_int8x4_128x32_relu_xregs_medium_c32_nn_v1"
    depthwise = df[df["evidence"].map(lambda e: e.get("groups") == 960)]
    assert len(depthwise) == 3 and depthwise["mitigation"].str.contains("Depthwise").all()
    # The classifier's output is a [1, 1000] binding: its K comes from OutMaps (1000 % 16 = 8).
    classifier = df[df["layer"].str.startswith("classifier.1.weight")]
    aligned = classifier[classifier["hazard"].str.contains("aligned")].iloc[0]
    assert aligned["evidence"]["output_channels"] == 1000
    assert aligned["evidence"]["output_remainder"] == 8
    mixed = df[df["hazard"] == "Quantized Convolution has float outputs."]
    assert mixed["type conversion"].value_counts().to_dict() == {"INT8 -> FP16": 13, "INT8 -> FP32": 4}
    assert (mixed["evidence"].map(lambda e: e["output_bytes_if_int8"] < e["output_bytes"])).all()
    # TREx's separate checks remain callable.
    linter = ConvLinter(plan("trex-mobilenet-qat"))
    assert (len(linter.tc_lint()), len(linter.mixed_precision_lint()), len(linter.alignment_lint())) \
        == (18, 17, 6)


NOT_ACCELERATED = "Convolution is not accelerated."
# Tokens that name a Tensor Core instruction in a kernel name (checked independently of trex.kernels).
MMA_TOKENS = re.compile(r"tensor\d+x\d+x\d+|warpgroupsize|h884|h1688|h16816|i8816|i16832|s1688|"
                        r"s16816|hmma|imma")


def test_trex_reference_17_not_accelerated_rows_are_real(plan):
    """TREx's 17 "not accelerated" rows on trex-mobilenet-qat stay 17, and each one is right: the
    17 depthwise convolutions run TensorRT's CudaDepthwiseConvolution (no kernel name, groups =
    channels: CUDA cores). The 18th finding (TREx's dict kept that layer's alignment row instead)
    is the first convolution, 3 input channels, on cuDNN's DP4A kernel ``int8x4_icudnn``. The
    classifier's SIMT kernel (sm70 ``..._simt_...``, TREx's ``xmma`` passed it) is a GEMM: the
    gemm-tensor-cores linter reports it, once."""
    p = plan("trex-mobilenet-qat")
    df = ConvLinter(p).lint()
    tc = df[df["hazard"] == NOT_ACCELERATED]
    assert len(tc) == 18
    layers = {layer.name: layer for layer in p.layers}
    kinds = [(layers[name].subtype, layers[name].raw_dict.get("Groups"),
              layers[name].inputs[0].shape[1]) for name in tc["layer"]]
    depthwise = [k for k in kinds if k[0] == "CudaDepthwiseConvolution"]
    assert len(depthwise) == 17 and all(groups == channels for _, groups, channels in depthwise)
    dp4a = tc[tc["tactic"].str.contains("int8x4_icudnn")]
    assert dp4a["layer"].str.startswith("features.0.0.weight").tolist() == [True]
    assert dp4a.iloc[0]["evidence"]["kernel"] == "int8x4_icudnn (no MMA shape: DP4A on CUDA cores)"
    classifier = next(layer for layer in p.layers if layer.name.startswith("classifier.1.weight"))
    assert is_gemm_layer(classifier) and "simt" in classifier.raw_dict["TacticName"]
    assert classifier.name not in set(tc["layer"])
    assert lint(p, ["gemm-tensor-cores"])["layer"].tolist() == [classifier.name]


@pytest.mark.parametrize("name", ALL_ENGINES + ["trt8.6-mobilenetv2-int8-build"])
def test_no_conv_warning_on_a_tensor_core_tactic(plan, name):
    """Across every real engine, "not accelerated" only where the kernel runs on CUDA cores."""
    p = plan(name)
    findings = ConvLinter(p).lint()
    warned = set(findings.loc[findings["hazard"] == NOT_ACCELERATED, "layer"]) if len(findings) \
        else set()
    for layer in p.layers:
        if layer.type != "Convolution":
            continue
        tactic = layer.raw_dict.get("TacticName") or ""
        if MMA_TOKENS.search(tactic):
            assert classify_tactic(tactic).tensor_cores is True
            assert layer.name not in warned, (name, layer.name, tactic)
        if layer.name in warned:
            assert not MMA_TOKENS.search(tactic)
            assert classify_tactic(tactic, layer.subtype).tensor_cores is False


def test_tensor_core_warnings_per_engine(plan):
    """TREx's pattern gave 7 false warnings on a100-resnet18-fp16 (``ampere_h16816cudnn_*``, cuDNN
    HMMA m16n8k16 kernels); 0 now. A kernel name that says nothing is an info, not a warning."""
    def counts(name):
        df = ConvLinter(plan(name)).lint()
        return df["hazard"].value_counts().to_dict() if len(df) else {}

    assert NOT_ACCELERATED not in counts("a100-resnet18-fp16")
    trex_false = [layer for layer in plan("a100-resnet18-fp16").layers
                  if layer.type == "Convolution" and layer.precision != "FP32"
                  and not re.search(r"imma|hmma|xmma|i88|884", layer.raw_dict.get("TacticName", ""))]
    assert len(trex_false) == 7
    # the INT8 first layer of a100-resnet18-qat really runs DP4A (ampere_fp32_icudnn_int8x4)
    assert counts("a100-resnet18-qat")[NOT_ACCELERATED] == 1
    # two FusedConvActConvolution layers (TensorRT's own runner, no kernel name): unknown
    residuals = counts("trex-mobilenet-v2-residuals-qat")
    assert residuals[NOT_ACCELERATED] == 18
    assert residuals["Convolution's Tensor Core use is unknown."] == 2
    # read from a build log: kernel names of silently reused timings come from the same tactic id
    build = ConvLinter(plan("trt8.6-mobilenetv2-int8-build")).lint()
    tc = build[build["hazard"] == NOT_ACCELERATED]
    assert len(tc) == 17 and tc["tactic"].str.contains("depthwise").all()
    assert "Depthwise" in tc.iloc[0]["mitigation"]
    assert not build["hazard"].str.contains("unknown").any()


def test_reformat_linter_rows_and_int8_mitigation_fires(plan):
    df = ReformatLinter(plan("trex-mobilenet-qat")).lint()
    assert len(df) == 17  # TREx: 17 rows (the 18th reformat only changes layout)
    assert df["type conversion"].value_counts().to_dict() == {"FP16 -> INT8": 13, "FP32 -> INT8": 4}
    # TREx compared "Int8" with "INT8": its INT8 mitigation never appeared. It does now; the
    # quantize of the network input (FP32 binding) is needed, so it is info and says why.
    assert (df["mitigation"].iloc[1:] == "Consider adding quantization around float operations.").all()
    assert df.iloc[0]["layer"] == "QuantizeLinear_2" and df.iloc[0]["severity"] == "info"
    assert df.iloc[0]["mitigation"].startswith("Needed: it converts the engine's input")
    assert (df["severity"].iloc[1:] == "warning").all()
    assert set(df["origin"]) == {"QDQ"}
    assert df.iloc[0]["shape conversion"] == "[1, 3, 224, 224] -> [1, 3, 224, 224]"
    float_only = ReformatLinter(plan("a100-resnet18-fp16")).lint()
    assert float_only["type conversion"].tolist() == ["FP32 -> FP16", "FP16 -> FP32"]
    # both convert the engine's FP32 input and output bindings: needed, so info
    assert (float_only["severity"] == "info").all()
    assert float_only["mitigation"].str.contains("--inputIOFormats/--outputIOFormats").all()


def test_qdq_linter_finds_standalone_quantize_layers(plan):
    df = QDQLinter(plan("trex-mobilenet-qat")).lint()
    assert len(df) == 17 and set(df["hazard"]) == {"Unfused Quantize layer."}
    assert df["severity"].value_counts().to_dict() == {"warning": 16, "info": 1}
    assert df[df["severity"] == "info"]["layer"].tolist() == ["QuantizeLinear_2"]  # the network input
    residual = QDQLinter(plan("a100-resnet18-qat-residual")).lint()
    assert residual["hazard"].tolist() == ["Unfused Quantize layer.", "Unfused Dequantize layer.",
                                           "Unfused Quantize layer."]
    assert residual.iloc[1]["layer"] == "DequantizeLinear_291"
    counts = [len(QDQLinter(plan(name)).lint()) for name in A100[2:]]
    assert counts == [10, 3, 1]


def test_slice_linter_flags_only_converting_slices(engines, tmp_path):
    """Two layers of a real engine turned into Slice layers: the reformat converting FP32 to INT8
    is flagged with its conversion, the pooling that keeps FP32 is not."""
    graph = json.loads((engines / "a100-resnet18-qat/resnet-qat.onnx.engine.graph.json").read_text())
    for index in (0, 2):  # QuantizeLinear_2 (FP32 -> Int8) and MaxPool_12 (FP32 -> FP32)
        graph["Layers"][index].update(LayerType="Slice", ParameterType="Slice")
    path = tmp_path / "sliced.graph.json"
    path.write_text(json.dumps(graph))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sliced = trex.EnginePlan(path)
    findings = SliceLinter(sliced).lint()
    assert findings["layer"].tolist() == ["QuantizeLinear_2"]
    assert findings.iloc[0]["type conversion"] == "FP32 -> INT8"
    assert findings.iloc[0]["hazard"] == "Slice layer is converting operand data type."


# ---------------------------------------------------------------- new linters
def test_reformat_share_falls_across_the_a100_walkthrough(plan):
    rows = [_by(lint(plan(name), ["reformat-share"]), "reformat-share").iloc[0] for name in A100]
    pct = [row["evidence"]["reformat_pct"] for row in rows]
    assert pct == [2.12, 8.66, 25.42, 15.83, 14.16]
    assert pct[2] > pct[3] > pct[4]  # qat -> qat-residual -> qat-residual-qgap
    assert [row["evidence"]["reformats"] for row in rows] == [1, 2, 12, 3, 1]
    # The reformats converting the engine's own I/O (reading an input binding or writing an
    # output binding, from the raw layer JSON) are needed with FP32 bindings: the severity
    # follows the share of the others (5 % warning, 20 % error).
    inner = []
    for name, row in zip(A100, rows):
        p = plan(name)
        raw = json.loads(open(p.graph_file).read())
        io = set(raw["Bindings"])
        df = p.df[p.df["type"] == "Reformat"]
        io_ms = sum(ms for ins, outs, ms in zip(df["Inputs"], df["Outputs"], df["latency.avg_time"])
                    if ins[0]["Name"] in io or any(t["Name"] in io for t in outs))
        assert row["evidence"]["io_reformat_pct"] == pytest.approx(100 * io_ms / p.total_runtime,
                                                                   abs=0.01)
        inner.append(row["evidence"]["reformat_pct"] - row["evidence"]["io_reformat_pct"])
    expected = ["error" if x >= 20 else "warning" if x >= 5 else "info" for x in inner]
    assert [row["severity"] for row in rows] == expected == ["info", "info", "warning", "info",
                                                              "info"]


def test_reformat_chain(plan):
    df = lint(plan("a100-resnet18-qat"), ["reformat-share"])
    chain = df[df["hazard"] == "2 reformats in a row."].iloc[0]
    assert chain["chain"] == "Reformatting CopyNode for Output Tensor 0 to MaxPool_12 -> QuantizeLinear_15"
    assert chain["type conversion"] == "FP32 -> FP16 -> INT8"
    assert chain["evidence"]["latency_ms"] == 0.0645


def test_precision_islands(plan):
    df = lint(plan("a100-resnet18-qat"), ["precision-islands"])
    assert df["island"].tolist() == ["MaxPool_12", "GlobalAveragePool_246"]
    assert df["precision"].tolist() == ["FP32", "FP16"]
    assert df.iloc[0]["evidence"] == {"layers": 1, "latency_ms": 0.0952, "latency_pct": 8.69}
    assert lint(plan("trex-mobilenet-qat"), ["precision-islands"])["island"].tolist() == \
        ["GlobalAveragePool_843"]
    assert lint(plan("a100-resnet18-qat-residual-qgap"), ["precision-islands"]).empty
    # The FP32 softmax at the output of resnet50-int8 is at the boundary, not an island.
    assert lint(plan("trt8.6-resnet50-int8"), ["precision-islands"]).empty
    assert lint(plan("a100-resnet18-fp32"), ["precision-islands"]).empty


def test_gemm_without_tensor_cores(plan):
    df = lint(plan("trt10.4-alexnet-fp16"), ["gemm-tensor-cores"])
    assert len(df) == 3
    first = df.iloc[0]
    assert first["layer"] == "/classifier/classifier_1/Gemm_myl9_2"
    assert {k: first["evidence"][k] for k in ("M", "N", "K", "latency_pct")} == \
        {"M": 1, "N": 4096, "K": 9216, "latency_pct": 45.71}
    assert "M = 1" in first["mitigation"]
    # FC layers run as 1x1 convolutions with SIMT kernels (ONNX Gemm found from the name).
    for name, layer in (("trex-mobilenet-qat", "classifier.1.weight"),
                        ("trt8.6-resnet50-int8", "/backbone/fc/Gemm")):
        rows = lint(plan(name), ["gemm-tensor-cores"])
        assert len(rows) == 1 and rows.iloc[0]["layer"].startswith(layer)
        assert "simt" in rows.iloc[0]["tactic"]
    assert lint(plan("a100-resnet18-qat"), ["gemm-tensor-cores"]).empty  # tensor16x8x32 kernel


def test_gemm_alignment(plan):
    df = lint(plan("trt10.16-multiprofile-oneline"), ["gemm-alignment"])
    assert df["layer"].tolist() == ["node_linear_1_2_myl6_3"]
    assert df.iloc[0]["evidence"] == {"M": 1, "N": 10, "K": 1024, "alignment": 8}
    assert "N 10 -> 16" in df.iloc[0]["mitigation"]
    assert lint(plan("trt10.4-alexnet-fp16"), ["gemm-alignment"]).empty


def test_hotspots_and_tiny_kernels(plan):
    hot = lint(plan("trt10.4-alexnet-fp16"), ["hotspots"])
    assert hot["evidence"].map(lambda e: e["latency_pct"]).tolist() == [45.71, 20.91]
    assert hot["severity"].tolist() == ["warning", "info"]
    tiny = lint(plan("trex-mobilenet-qat"), ["tiny-kernels"]).iloc[0]
    assert tiny["evidence"]["tiny_layers"] == 29 and tiny["evidence"]["timed_layers"] == 72
    assert tiny["severity"] == "info" and "CUDA graphs" in tiny["mitigation"]
    detr = lint(plan("trt10-detr-int8-names-only"), ["tiny-kernels"]).iloc[0]["evidence"]
    assert (detr["tiny_layers"], detr["timed_layers"], detr["untimed_layers"]) == (271, 500, 340)


def test_myelin_share_and_foreign_nodes(plan):
    alexnet = lint(plan("trt10.4-alexnet-fp16"), ["myelin"]).iloc[0]
    assert alexnet["evidence"] == {"myelin_layers": 5, "kgen_layers": 1, "layers": 14,
                                   "latency_ms": 0.386, "latency_pct": 73.64}
    detr = lint(plan("trt10-detr-int8-names-only"), ["myelin"])
    regions = detr[detr["layer"].str.startswith("{ForeignNode[")]
    assert len(regions) == 30 and (regions["severity"] == "warning").all()
    first = regions.iloc[0]
    assert first["first_node"] == "/model/model/encoder/layers.0/self_attn_layer_norm/LayerNormalization"
    assert first["kernel_layers"] == "__myl_MoveMeanSubMulMeanAddSqrtDivMulMulAdd_myl98_0"
    assert first["evidence"]["reformat_ms"] > first["evidence"]["kernel_ms"]


def test_dynamic_shapes(plan):
    row = lint(plan("trt10.16-multiprofile-oneline"), ["dynamic-shapes"]).iloc[0]
    assert row["evidence"] == {"shape_calls": 1, "dynamic_tensor_uses": 28, "optimization_profiles": 2}
    row = lint(plan("trt10.4-alexnet-fp16"), ["dynamic-shapes"]).iloc[0]
    assert row["layer"] == "dummy_shape_call__mye622_0_myl9_0"
    assert row["evidence"]["shape_call_pct"] == 0.39
    assert lint(plan("trex-mobilenet-qat"), ["dynamic-shapes"]).empty


# ---------------------------------------------------------------- every engine, every linter
@pytest.mark.parametrize("name", ALL_ENGINES)
def test_every_linter_on_every_engine(plan, name):
    p = plan(name)
    before = p.df.copy()
    report = lint_report(p)
    df = report.df
    assert list(df.columns[:len(FINDING_COLUMNS)]) == FINDING_COLUMNS
    assert df["severity"].isin(SEVERITIES).all()
    assert df["evidence"].map(lambda e: isinstance(e, dict) and bool(e)).all()
    assert (df["hazard"].str.len() > 0).all() and (df["help"].str.len() > 0).all()
    assert set(df["linter"]) <= set(LINTERS)
    pd.testing.assert_frame_equal(p.df, before)  # views never mutate plan.df
    assert not [note for note in report.notes if "failed" in note]
    if not p.detailed:
        needs = {n for n, cls in LINTERS.items() if cls.needs_details}
        assert not set(df["linter"]) & needs
        assert all("detailed" in note for note in report.notes if note.split(":")[0] in needs)


def test_names_only_plans_say_why(plan):
    report = lint_report(plan("trt10-detr-int8-names-only"), ["conv", "reformat-share"])
    assert report.counts() == {"reformat-share": 1}
    assert report.notes == ["conv: needs detailed layer information (build with "
                            "--profilingVerbosity=detailed); no findings"]
    no_profile = lint_report(plan("trt8.4-mnist-names-only"), ["hotspots"])
    assert not no_profile.findings and "per-layer profile" in no_profile.notes[0]
    zero_profile = lint_report(plan("trt10.16-multiprofile-oneline"), ["reformat-share"])
    assert zero_profile.notes == ["reformat-share: no per-layer profile; the reformat share is not "
                                  "computed"]


def test_unknown_linter():
    with pytest.raises(ValueError, match="unknown linter"):
        lint_report(None, ["nope"])


# ---------------------------------------------------------------- CLI
def test_cli_lint_table_and_fail_on(engines, capsys):
    path = str(engines / "trex-mobilenet-qat")
    assert main(["lint", path]) == 0
    out = capsys.readouterr().out
    # 79 findings before: the 17 Q/DQ reformats are one finding each with the qdq linter's (the
    # same layer, the same cause), and what cannot be acted on is info: 17 depthwise convs (no
    # Tensor Core kernel exists), the classifier's float logits (the FP32 output binding) and its
    # M = 1 GEMV
    assert "62 findings (0 error, 35 warning, 27 info)" in out
    assert "Convolution is not accelerated." in out
    assert main(["lint", path, "--fail-on", "warning"]) == 1
    assert main(["lint", path, "--fail-on", "error"]) == 0
    # a100-resnet18-qat: reformats other than the input's quantize take 19.8 % (a warning)
    assert main(["lint", str(engines / "a100-resnet18-qat"), "--fail-on", "warning", "-l",
                 "reformat-share"]) == 1
    assert main(["lint", str(engines / "a100-resnet18-qat"), "--fail-on", "error", "-l",
                 "reformat-share"]) == 0
    capsys.readouterr()


def test_cli_lint_json_and_notes(engines, capsys):
    assert main(["lint", str(engines / "trt10-detr-int8-names-only"), "--format", "json",
                 "--min-severity", "warning"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data[0]["engine"] == "detr-layer-info"
    assert data[0]["counts"] == {"reformat-share": 1, "tiny-kernels": 1, "myelin": 31}
    assert {f["severity"] for f in data[0]["findings"]} == {"warning"}
    assert any(n.startswith("conv: needs detailed") for n in data[0]["notes"])


def test_reformat_linter_says_which_reformats_it_skips(engines, capsys):
    """`trex lint -l reformat` lists 17 of trex-mobilenet-qat's 18 Reformat layers (TREx's 17):
    the one left out keeps FP16 and only changes the layout; a note says which and why, so the
    count reads beside the report's "Reformat (18)" filter (issue 25)."""
    path = str(engines / "trex-mobilenet-qat")
    plan = trex.EnginePlan.from_path(path)
    reformats = int((plan.df["type"] == "Reformat").sum())
    assert main(["lint", path, "-l", "reformat"]) == 0
    out = capsys.readouterr().out
    assert "17 findings" in out and reformats == 18
    note = next(line for line in out.splitlines() if line.startswith("note: reformat: "))
    assert note.startswith("note: reformat: 1 of 18 Reformat layers not listed: they do not change "
                           "the data type (a layout change only)")
    skipped = "Reformatting CopyNode for Input Tensor 0 to GlobalAveragePool_843"
    assert f"({skipped} (FP16 NC/32HW32 -> FP16 NC/2HW2))" in note
    assert "reformat-share counts every Reformat layer" in note
    # an engine whose reformats all convert: no note
    qgap = lint_report(trex.EnginePlan.from_path(engines / "a100-resnet18-qat-residual-qgap"),
                       ["reformat"])
    assert len(qgap.findings) == 1 and qgap.notes == []


def test_cli_lint_bad_input(tmp_path, capsys):
    bad = tmp_path / "x.graph.json"
    bad.write_text("{not json")
    assert main(["lint", str(bad)]) == 2
    assert "error" in capsys.readouterr().err


def test_dla_time_is_a_dla_region_not_a_slow_copy(tmp_path):
    """A DLA engine's time lands on its 'from nvm' copy: an info finding about the DLA region,
    not a hot-spot warning (names as trtexec prints them for DLA builds; no real DLA export is in
    the shared files)."""
    path = write_dla_profile(tmp_path / "dla.profile.json", DLA_ROWS[:4])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dla = trex.EnginePlan(path)
    found = lint(dla, ["hotspots"])
    assert found["layer"].tolist() == ["head_3 from nvm"]
    assert found.iloc[0]["severity"] == "info"
    assert found.iloc[0]["hazard"].startswith("DLA region: 98.8 % of the latency ran on the DLA")
