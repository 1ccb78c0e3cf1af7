"""The generated TensorRT 11-form LLM decoder (tests/llm_engines.py) as trex loads it.

Every expectation is computed here from the written JSON files, not from the generator's model,
so the test checks both that the files say what TensorRT 11's form says and that trex reads them.
"""

from __future__ import annotations

import json
import warnings
from collections import Counter
from pathlib import Path

import pytest

import trex
from llm_engines import STEM, write_decoder
from trex.cli import main

# TensorRT's Datatype spelling -> trex's precision and bits per element
PRECISION = {"Half": ("FP16", 16), "BFloat16": ("BF16", 16), "Float": ("FP32", 32),
             "FP8": ("FP8", 8), "FP4": ("FP4", 4), "Int4": ("INT4", 4), "E8M0": ("E8M0", 8),
             "Int32": ("INT32", 32), "Int64": ("INT64", 64)}


@pytest.fixture(scope="module")
def decoders(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("llm")
    return {v: write_decoder(root / v, variant=v) for v in ("fused", "decomposed")}


def _load(folder: Path, profile: int = 0) -> trex.EnginePlan:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", trex.TrexWarning)  # profile 1 against profile 0's timings
        return trex.EnginePlan.from_path(folder, profile_id=profile)


def _written(folder: Path, profile: int) -> tuple[list[dict], dict[str, dict]]:
    graph = json.loads((folder / f"{STEM}.graph.json").read_text())
    suffix = f" [profile {profile}]"
    layers = [la for la in graph["Layers"]
              if (la["Name"].endswith(suffix) if profile else "[profile " not in la["Name"])]
    rows = json.loads((folder / f"{STEM}.profile.json").read_text())
    return layers, {r["name"]: r for r in rows[1:]}


@pytest.mark.parametrize("variant", ["fused", "decomposed"])
@pytest.mark.parametrize("profile", [0, 1])
def test_plan_equals_what_was_written(decoders, variant, profile):
    folder = decoders[variant]
    layers, rows = _written(folder, profile)
    plan = _load(folder, profile)
    assert plan.profiles == [0, 1]
    df = plan.df
    assert list(df["Name"]) == [la["Name"] for la in layers]
    assert list(df["type"]) == [la.get("ParameterType") or la["LayerType"] for la in layers]
    assert list(df["precision"]) == [PRECISION[la["Inputs"][0]["Datatype"]][0] for la in layers]
    assert list(df["latency.avg_time"]) == pytest.approx([rows[la["Name"]]["averageMs"]
                                                          for la in layers])
    assert list(df["latency.time"]) == pytest.approx([rows[la["Name"]]["timeMs"]
                                                      for la in layers])
    for layer, written in zip(plan.layers, layers):
        for side, tensors in ((layer.inputs, written["Inputs"]), (layer.outputs,
                                                                  written["Outputs"])):
            assert [t.name for t in side] == [t["Name"] for t in tensors]
            assert [list(t.shape) for t in side] == [t["Dimensions"] for t in tensors]
            assert [t.precision for t in side] == [PRECISION[t["Datatype"]][0] for t in tensors]


@pytest.mark.parametrize("variant", ["fused", "decomposed"])
def test_layer_kinds_of_each_variant(decoders, variant):
    kinds = Counter(_load(decoders[variant], 1).df["type"])
    assert kinds["DistCollective"] == 4 and kinds["MoE"] == 1 and kinds["DynamicQuantize"] == 2
    assert kinds["kgen"] >= 10 and kinds["gemm"] == 8 and kinds["Gather"] == 1
    if variant == "fused":
        assert (kinds["Attention"], kinds["KVCacheUpdate"], kinds["RotaryEmbedding"]) == (2, 4, 4)
        assert not kinds["SoftMax"] and not kinds["MatrixMultiply"]
    else:
        assert not kinds["Attention"] and not kinds["KVCacheUpdate"]
        assert not kinds["RotaryEmbedding"]
        assert (kinds["MatrixMultiply"], kinds["SoftMax"], kinds["Slice"]) == (4, 2, 8)


def test_quantised_tensors_and_myelin_metadata(decoders):
    layers, _ = _written(decoders["fused"], 0)
    dtypes = Counter(t["Datatype"] for la in layers for t in (*la["Inputs"], *la["Outputs"]))
    assert {"FP8", "FP4", "Int4", "E8M0", "BFloat16", "Float"} <= set(dtypes)
    plan = _load(decoders["fused"])
    seen = {t.precision for la in plan.layers for t in (*la.inputs, *la.outputs)}
    assert {"FP8", "FP4", "INT4", "E8M0", "BF16"} <= seen
    kgen = [la for la in layers if la["LayerType"] == "kgen"]
    assert all("ParameterType" not in la and "TacticValue" not in la for la in kgen)
    assert all("\x1f" in la["Metadata"] for la in kgen if la["Metadata"].count("[ONNX") > 1)
    assert all(not t.get("Format") and "Location" not in t for la in kgen for t in la["Inputs"])


def test_decode_is_memory_bound(decoders):
    """Decode's layers (collectives aside: NVLink) take their bytes at ~2.5 TB/s plus a launch."""
    layers, rows = _written(decoders["fused"], 1)
    gemms = [la for la in layers if la["LayerType"] == "gemm"]
    for la in gemms:
        moved = sum(_bytes(t) for t in (*la["Inputs"], *la["Outputs"]))
        avg_s = rows[la["Name"]]["averageMs"] / 1e3
        assert moved / 2.5e12 <= avg_s <= moved / 2.5e12 + 3e-6
    lm_head = next(la for la in gemms if "lm_head" in la["Name"])
    assert rows[lm_head["Name"]]["averageMs"] == pytest.approx(0.055, rel=0.05)  # 131 MB


def _bytes(t: dict) -> float:
    count = 1
    for d in t["Dimensions"]:
        count *= d
    return count * PRECISION[t["Datatype"]][1] / 8


def test_prefill_slower_than_decode_and_percentages(decoders):
    for folder in decoders.values():
        prefill, decode = (_load(folder, p).df["latency.avg_time"].sum() for p in (0, 1))
        assert prefill > 2 * decode
        rows = json.loads((folder / f"{STEM}.profile.json").read_text())
        assert sum(r["percentage"] for r in rows[1:]) == pytest.approx(100)


@pytest.mark.parametrize("variant", ["fused", "decomposed"])
def test_summary_and_report_run(decoders, variant, tmp_path, capsys):
    folder = decoders[variant]
    assert main(["summary", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "NVIDIA H100" in out and "Profiles" in out
    assert main(["report", str(folder), "-o", str(tmp_path / "r.html")]) == 0
    assert (tmp_path / "r.html").stat().st_size > 10_000
    plans = trex.EnginePlan.each_profile(folder)
    assert [len(p.df) for p in plans] == [len(_written(folder, p)[0]) for p in (0, 1)]


# ------------------------------------------------------------------ vocabulary (issue 23, step 2)
def test_every_trt11_layer_type_has_a_family_and_a_colour():
    from trex.graph.colors import LAYER_FAMILIES, layer_colormap
    from trex.model.vocabulary import MYELIN_KINDS, OTHER, TRT_LAYER_TYPES, family, json_spelling, known_types

    assert len(TRT_LAYER_TYPES) == 57 and len(set(TRT_LAYER_TYPES)) == 57
    assert {"KV_CACHE_UPDATE", "ROTARY_EMBEDDING", "ATTENTION_INPUT", "ATTENTION_OUTPUT",
            "DYNAMIC_QUANTIZE", "DIST_COLLECTIVE", "MOE"} <= set(TRT_LAYER_TYPES)
    spelled = {e: json_spelling(e) for e in TRT_LAYER_TYPES}
    assert (spelled["KV_CACHE_UPDATE"], spelled["MOE"], spelled["SOFTMAX"],
            spelled["GRID_SAMPLE"]) == ("KVCacheUpdate", "MoE", "SoftMax", "GridSample")
    for name in known_types():
        assert family(name) != OTHER, name
        assert name in layer_colormap, name
    assert set(MYELIN_KINDS) <= set(known_types())
    assert family("Attention") == "attention" and family("kgen") == "myelin"
    assert family("SomethingNew") == OTHER
    # one colour per family of names for one operation; the LLM layers each their own
    assert any({"Attention", "AttentionInput", "AttentionOutput"} == f for f in LAYER_FAMILIES)
    llm = ["Attention", "KVCacheUpdate", "RotaryEmbedding", "MoE", "DistCollective"]
    assert len({layer_colormap[t] for t in llm}) == len(llm)


def test_unknown_types_stay_counted_drawn_and_coloured(tmp_path):
    from trex.graph.colors import extra_palette, key_color, layer_colormap

    folder = write_decoder(tmp_path / "d", variant="fused")
    path = folder / f"{STEM}.graph.json"
    doc = json.loads(path.read_text())
    for layer in doc["Layers"]:
        if layer.get("ParameterType") == "MoE":
            layer["ParameterType"] = layer["LayerType"] = "SparseMoEV2"
    path.write_text(json.dumps(doc))
    plan = _load(folder)
    assert Counter(plan.df["type"])["SparseMoEV2"] == 1
    assert key_color("SparseMoEV2", layer_colormap) in extra_palette
    from trex.graph import to_dot
    from trex.graph.formatters import layer_type_formatter

    source = to_dot(plan, layer_type_formatter).source
    assert "SparseMoEV2" in source and key_color("SparseMoEV2", layer_colormap) in source


def _layer(plan: trex.EnginePlan, kind: str, nth: int = 0):
    return [la for la in plan.layers if la.type == kind][nth]


def test_cost_models_of_the_llm_layers(decoders):
    from trex.compute.costs import layer_cost

    for profile, (seq, kv) in enumerate(((2048, 2048), (1, 2048))):
        plan = _load(decoders["fused"], profile)
        attention = layer_cost(_layer(plan, "Attention"))
        assert attention.model == "attention"
        assert attention.flops == 4 * 1 * 16 * seq * kv * 128
        assert attention.bytes_kv == 2 * 4 * kv * 128 * 2  # K and V, BF16
        update = layer_cost(_layer(plan, "KVCacheUpdate"))
        assert update.model == "kv-cache" and update.bytes_out == 4 * seq * 128 * 2
        assert update.bytes_in == 4 * seq * 128 * 2 + 4  # the update and the write index
        rope = layer_cost(_layer(plan, "RotaryEmbedding"))
        assert rope.model == "pointwise" and rope.flops == 3 * 16 * seq * 128
        moe = layer_cost(_layer(plan, "MoE"))
        assert moe.model == "moe" and moe.flops == 2 * seq * 2 * 3 * 2048 * 1408
        weights = 3 * 8 * 2048 * 1408 // 2 + 3 * 8 * 2048 // 128 * 1408 * 2  # INT4 + BF16 scales
        active = min(8, seq * 2)
        assert moe.bytes_weights == weights * active // 8
        reduce = layer_cost(_layer(plan, "DistCollective"))
        assert reduce.model == "collective" and reduce.bytes_link == seq * 2048 * 2  # 2(n-1)/n, n=2


def test_quantised_formats_sizes_precisions_and_kernels(decoders):
    from trex.kernels import classify_tactic

    plan = _load(decoders["fused"])
    quant = _layer(plan, "DynamicQuantize")
    data, scales = quant.outputs
    assert (data.precision, data.size_bytes) == ("FP4", 2048 * 2048 // 2)  # 4 bits
    assert (scales.precision, scales.size_bytes) == ("FP8", 2048 * 2048 // 16)  # E4M3 per 16
    mx = _layer(plan, "DynamicQuantize", 1).outputs[1]
    assert (mx.precision, mx.size_bytes) == ("E8M0", 2048 * 2048 // 32)
    experts = [t for t in _layer(plan, "MoE").inputs if t.precision == "INT4"]
    assert len(experts) == 3 and experts[0].size_bytes == 8 * 2048 * 1408 // 2
    schemes = Counter(classify_tactic(la.tactic_name).quantization for la in plan.layers)
    assert schemes["NVFP4"] == 1 and schemes["MXFP8"] == 1 and schemes["FP4"] == 1  # + quantizers
    assert schemes["FP8"] == 3  # the FFN GEMMs and the MXFP8 quantizer
    assert schemes["INT4 weight-only"] == 1
    gemm = classify_tactic(_layer(plan, "gemm", 0).tactic_name)  # block 0's QKV projection
    assert (gemm.precision, gemm.tensor_cores, gemm.quantization) == ("FP4", True, "NVFP4")
    assert classify_tactic(_layer(plan, "Attention").tactic_name).operation == "attention"
    mix = Counter(plan.df["precision"])
    assert mix["FP8"] >= 2 and mix["FP4"] == 1


# ------------------------------------------------------------------ details view, inside ForeignNodes
def test_details_view_names_family_costs_and_myelin_region(decoders):
    from trex.html_report.payload import report_payload

    plan = _load(decoders["fused"], 1)
    _, details = report_payload([plan])
    compact = details[0].__json__()
    assert compact["kinds"]["Attention"]["family"] == "attention"
    assert "4·B·H·Sq·Skv·D" in compact["kinds"]["Attention"]["about"]
    assert compact["kinds"]["kgen"]["family"] == "myelin"
    names = [la.name for la in plan.layers]
    attention = dict(compact["facts"][str(names.index(_layer(plan, "Attention").name))])
    assert attention["KV bytes read"] == f"{2 * 4 * 2048 * 128 * 2:,} B"
    update = dict(compact["facts"][str(names.index(_layer(plan, "KVCacheUpdate").name))])
    assert update["Bytes written into the cache"] == f"{4 * 1 * 128 * 2:,} B"
    reduce = dict(compact["facts"][str(names.index(_layer(plan, "DistCollective").name))])
    assert reduce["Collective"] == "ALL_REDUCE"
    norm = dict(compact["facts"][str(names.index(_layer(plan, "kgen").name))])
    assert norm["Myelin region"].startswith("myl0: 1 kernel, ")
    assert "Pow" in norm["Region's ONNX operators"] and "ReduceMean" in norm[
        "Region's ONNX operators"]


def test_inside_foreign_nodes_ops_counted_and_time_labelled(decoders):
    import re

    from trex.onnx_map import latency_by_onnx_op, myelin_regions, onnx_op_type

    folder = decoders["fused"]
    layers, rows = _written(folder, 1)
    plan = _load(folder, 1)
    # from the written JSON: Myelin kernels (no ParameterType), grouped by their region number
    expected: dict[str, list[dict]] = {}
    for la in layers:
        if "ParameterType" not in la:
            region = re.search(r"_(myl\d+)_\d+ \[profile 1\]$", la["Name"]).group(1)
            expected.setdefault(region, []).append(la)
    regions = myelin_regions(plan)
    assert [r.label for r in regions] == list(expected)
    for region in regions:
        written = expected[region.label]
        nodes = [n[len("[ONNX Layer: "):-1] for la in written for n in la["Metadata"].split("\x1f")]
        assert region.nodes == list(dict.fromkeys(nodes))
        assert sum(region.ops.values()) == len(region.nodes)
        assert region.latency_ms == pytest.approx(sum(rows[la["Name"]]["averageMs"]
                                                      for la in written))
    ops = latency_by_onnx_op(plan).set_index("onnx_op")
    inside = Counter(onnx_op_type(n) for r in regions for n in r.nodes)
    for op, count in inside.items():
        assert ops.loc[op, "myelin_nodes"] == count
    assert ops.loc["Pow", "myelin_ms"] == pytest.approx(ops.loc["Pow", "latency_ms"])
    assert ops.loc["Attention", "myelin_nodes"] == 0  # a dedicated layer, outside any region
    assert sum(r.latency_ms for r in regions) == pytest.approx(
        sum(rows[la["Name"]]["averageMs"] for la in layers if "ParameterType" not in la))


def test_details_pane_shows_family_costs_and_region(decoders, tmp_path):
    """The page draws them: the attention row's family, what it does and the KV bytes; a Myelin
    kernel's region and its ONNX operators."""
    from test_report_browser import Report, chromium_path

    pytest.importorskip("playwright")
    if chromium_path() is None:
        pytest.skip("chromium not installed")
    from playwright.sync_api import sync_playwright

    from test_report_browser import CHROMIUM_ARGS

    plan = _load(decoders["fused"], 1)
    out = tmp_path / "llm.html"
    assert main(["report", str(decoders["fused"]), "--profile-id", "1", "-o", str(out)]) in (0, 1)
    names = list(plan.df["Name"])
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            report = Report(browser, out)
            report.tab("layers")
            for layer, wanted in ((_layer(plan, "Attention"), ("attention family",
                                                               "KV bytes read", "4·B·H·Sq·Skv·D")),
                                  (_layer(plan, "kgen"), ("myelin family", "Myelin region",
                                                          "ReduceMean"))):
                row = names.index(layer.name)
                report.js("r => window.trexReport.select(r, 'details', {focus: true})", row)
                report.wait("n => document.getElementById('details-name') && document."
                            "getElementById('details-name').textContent === n", layer.name)
                text = report.page.text_content("#details")
                for word in wanted:
                    assert word in text, (word, layer.name)
            assert not report.errors
        finally:
            browser.close()
