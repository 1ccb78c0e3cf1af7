"""Derived figures checked against what TensorRT itself printed (issue 20).

Each test compares a figure trex derives with an independent truth: the trtexec log's own lines,
the raw profile or layer JSON read here without trex, or a computation made here from the raw file.
"""

from __future__ import annotations

import json
import math
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
    from trex.timings import layer_sum_gap

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
    from trex.compute.model import gemm_cost
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
