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
