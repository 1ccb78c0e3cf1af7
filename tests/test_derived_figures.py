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
