"""Timings on real --exportTimes files: trtexec's percentiles, flags, warm-up, the layer-sum gap."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import trex
from trex.iteration_stats import (
    latency_percentiles,
    layer_sum_gap,
    timing_analysis,
    timing_records,
    trtexec_percentile,
    warmup_drift,
)

warnings.simplefilter("ignore", trex.TrexWarning)


@pytest.mark.parametrize("name", ["trt8.6-resnet50-int8", "trt10.4-alexnet-fp16"])
def test_percentiles_match_trtexec_summary(plan, name):
    """Same run, same rule: min, max, median and p90/p95/p99 equal trtexec's performance summary."""
    p = plan(name)
    summary = p.performance_summary["GPU Compute Time"]  # min, max, mean, median, p90, p95, p99
    row = latency_percentiles(p).set_index("metric").loc["compute"]
    assert [row["min"], row["max"], row["median"], row["p90"], row["p95"], row["p99"]] == \
        pytest.approx([summary[0], summary[1], summary[3], summary[4], summary[5], summary[6]], abs=5e-6)
    assert row["mean"] == pytest.approx(summary[2], abs=5e-5)


def test_resnet50_unstable_not_host_bound(plan):
    a = timing_analysis(plan("trt8.6-resnet50-int8"))
    assert a["iterations"] == 10220
    assert a["latency"]["p50"] == 0.275391 and a["latency"]["p99"] == 0.624634
    assert a["latency"]["cv_pct"] == pytest.approx(22.82, abs=0.01)
    assert a["unstable"] and not a["host_bound"] and not a["h2d_bound"]
    # the enqueue median of trtexec's summary (the exported stamps are rounded to 0.01 ms here)
    assert a["enqueue_to_compute"] == pytest.approx(0.00512695 / 0.275391)
    assert a["throughput_qps"] == pytest.approx(3406.14, abs=0.01)  # trtexec: 3406.14 qps
    assert a["gpu_utilization_pct"] == pytest.approx(99.55, abs=0.01)
    assert a["flags"] == ["GPU compute time unstable: coefficient of variation 22.82 % "
                          "(lock clocks, --useSpinWait)"]


def test_trt7_records_transfers_and_warmup(plan, engines):
    p = plan("trt7-googlenet-int8-concatenated")
    records = timing_records(p)
    assert len(records) == 1520 and records["end_to_end_ms"].notna().all()
    # no log or metadata: trtexec's default warm-up of 200 ms, said so
    assert p.warmup.ms == 200.0 and "default" in p.warmup.source
    text = (engines / "trt7-googlenet-int8-concatenated" / "times_googlenet_None_int8_10.json").read_text()
    first_run = json.JSONDecoder().raw_decode(text.lstrip())[0]
    timed = [r for i, r in enumerate(first_run)
             if i >= next(j for j, q in enumerate(first_run) if q["startComputeMs"] >= 200)]
    assert p.warmup.iterations == len(first_run) - len(timed) == int(records["warmup"].sum()) == 80
    stats = latency_percentiles(p).set_index("metric")
    assert list(stats.index) == ["latency", "enqueue", "h2d", "compute", "d2h", "end_to_end"]
    assert stats.loc["compute", "count"] == len(timed) == 1440
    assert stats.loc["compute", "max"] == max(r["computeMs"] for r in timed)
    a = timing_analysis(p)
    latency = sum(r["latencyMs"] for r in timed)
    assert a["h2d_pct"] == pytest.approx(100 * sum(r["inMs"] for r in timed) / latency)
    assert a["d2h_pct"] == pytest.approx(100 * sum(r["outMs"] for r in timed) / latency)
    assert a["warmup_iterations"] == 80
    # trtexec's throughput rule on the timed records (no summary to compare with here)
    span = timed[-1]["endOutMs"] - timed[0]["startInMs"]
    assert a["throughput_qps"] == pytest.approx(1000 * len(timed) / span)
    assert p.measured.throughput_qps == a["throughput_qps"]
    assert p.measured.gpu_compute_median_ms == float(np.median([r["computeMs"] for r in timed]))
    assert "1440 timed iterations" in p.measured.source and "80 warm-up" in p.measured.source


def test_warmup_is_not_a_slow_start(plan, engines):
    """trtexec's warm-up (455 records of mobilenet start before 200 ms) is left out, so the slow
    first iterations it holds are not reported as a slow start of the timed run."""
    p = plan("trex-mobilenet-qat")
    raw = json.loads((engines / "trex-mobilenet-qat" / "mobilenet.qat.onnx.engine.timing.json").read_text())
    assert p.warmup.iterations == sum(r["startComputeMs"] < 200 for r in raw) == 455
    w = warmup_drift(p)
    assert w["iterations"] == len(raw) - 455 and not w["warmup"]
    # every record included, the warm-up shows as a slow start: that is what was wrong
    everything = warmup_drift(timing_records(p.timings, warmup_ms=0))
    assert everything["warmup"] and everything["iterations"] == len(raw)
    a = timing_analysis(plan("a100-resnet18-qat-residual-qgap"))
    assert a["flags"] == [] and a["latency"]["p99"] == 0.501709
    assert a["h2d_pct"] == 0.0  # --noDataTransfers


def test_host_bound_rule():
    """trtexec's rule: enqueue median above 0.8 x GPU compute median (a hand-made CPU-bound run,
    timed after a 200 ms warm-up as trtexec 8.6+ exports it)."""
    n = 100
    start = 200.0 + np.arange(n) * 1.0
    df = pd.DataFrame({"startEnqMs": start, "endEnqMs": start + 0.9, "startH2dMs": start + 0.9,
                       "endH2dMs": start + 0.9, "startComputeMs": start + 0.9,
                       "endComputeMs": start + 1.0, "startD2hMs": start + 1.0, "endD2hMs": start + 1.0,
                       "h2dMs": 0.0, "computeMs": 0.1, "d2hMs": 0.0, "latencyMs": 0.1})
    records = timing_records(df)
    assert records["enqueue_ms"].median() == pytest.approx(0.9) and not records["warmup"].any()
    assert trtexec_percentile(records["compute_ms"].to_numpy(), 99) == pytest.approx(0.1)
    a = timing_analysis(df)
    assert a["host_bound"] and a["enqueue_to_compute"] == pytest.approx(9.0)
    assert a["flags"][0].startswith("host-bound: median enqueue 0.9000 ms > 0.8 x median GPU compute")
    assert a["gpu_utilization_pct"] == pytest.approx(10.0, abs=0.2) and "layer_gap" not in a
    # the same run exported with its warm-up in front (times from 0): those 100 are left out
    early = df.copy()
    for key in [c for c in df.columns if c.startswith(("start", "end"))]:
        early[key] = df[key] - 200.0
    both = timing_records(pd.concat([early, df], ignore_index=True))
    assert both["warmup"].sum() == 100 and not both["warmup"].iloc[100:].any()


def test_layer_sum_gap(plan):
    p = plan("trex-mobilenet-qat")
    gap = layer_sum_gap(p)
    assert gap["sum_of_layers_ms"] == pytest.approx(0.4704, abs=1e-4)
    # one measured GPU compute time: trtexec's summary (median 0.351196), its source named
    assert gap["measured_ms"] == p.performance_summary["GPU Compute Time"][3] == 0.351196
    assert gap["measured_source"] == p.measured.source and "performance summary" in gap["measured_source"]
    assert gap["gap_ms"] == pytest.approx(0.4704 - 0.351196, abs=1e-4)
    assert any("CUDA graphs" in line for line in gap["explanation"])
    assert any("separate run" in line for line in gap["explanation"])
    negative = layer_sum_gap(plan("trt7-googlenet-int8-concatenated"))
    assert negative["gap_ms"] < 0 and "above the sum of the layers" in negative["explanation"][0]
    levit = layer_sum_gap(plan("trt8.2-levit-fp32-names-only"))  # no timings: the log's summary
    assert levit["measured_ms"] == 6.89099 and "performance summary" in levit["measured_source"]


def test_no_timings(plan):
    p = plan("trt10-detr-int8-names-only")
    a = timing_analysis(p)
    assert a["available"] is False and a["flags"] == []
    assert a["layer_gap"]["explanation"] == ["cannot compare: no timings and no performance summary"]
    assert latency_percentiles(p).empty and timing_records(p).empty
    assert warmup_drift(p) == {"iterations": 0}


_SUMMARY_STATS = {"Latency": "latency", "GPU Compute Time": "compute", "H2D Latency": "h2d",
                  "D2H Latency": "d2h"}


def test_statistics_reproduce_trtexec_summary_on_every_engine(engines):
    """Every shared engine with both --exportTimes and trtexec's performance summary: the
    statistics of the timed iterations equal what trtexec printed (min, max, median and its
    percentiles to the printed digits, throughput and host walltime; the mean and the total GPU
    time within 1e-4, as trtexec accumulates them itself). Enqueue Time is left out: the
    exported enqueue stamps are rounded to 6 significant digits."""
    checked = []
    for folder in sorted(p for p in engines.iterdir() if p.is_dir()):
        try:
            p = trex.EnginePlan.from_path(folder)
        except trex.TrexError:
            continue
        summary = p.performance_summary
        if not len(p.timings) or "GPU Compute Time" not in summary:
            continue
        checked.append(folder.name)
        stats = latency_percentiles(p).set_index("metric")
        for key, metric in _SUMMARY_STATS.items():
            printed = summary[key]  # [min, max, mean, median, p99] or [..., p90, p95, p99]
            row = stats.loc[metric]
            percentiles = [row["p99"]] if len(printed) == 5 else [row["p90"], row["p95"], row["p99"]]
            ours = [row["min"], row["max"], row["median"], *percentiles]
            assert ours == pytest.approx([printed[0], printed[1], printed[3], *printed[4:]],
                                         rel=1e-5, abs=1e-9), (folder.name, key)
            assert row["mean"] == pytest.approx(printed[2], rel=1e-4, abs=1e-9), (folder.name, key)
        a = timing_analysis(p)
        records = timing_records(p)
        timed = records[~records["warmup"]]
        assert 1000 * len(timed) / (timed["end_ms"].iloc[-1] - timed["start_ms"].iloc[0]) == \
            pytest.approx(summary["Throughput"], rel=1e-5), folder.name
        assert timed["compute_ms"].sum() / 1000 == pytest.approx(
            summary["Total GPU Compute Time"], rel=1e-4), folder.name
        assert (timed["end_ms"].iloc[-1] - timed["start_ms"].iloc[0]) / 1000 == pytest.approx(
            summary["Total Host Walltime"], rel=1e-5), folder.name
        # one measured GPU compute figure everywhere: the analysis, the gap and the model's fact
        assert a["layer_gap"]["measured_ms"] == p.measured.gpu_compute_median_ms == printed_median(
            summary)
        assert a["iterations"] == len(timed) and a["warmup_iterations"] == p.warmup.iterations
    assert {"a100-resnet18-qat", "trex-mobilenet-qat", "trt10.4-alexnet-fp16",
            "trt8.6-resnet50-int8"} <= set(checked)


def printed_median(summary: dict) -> float:
    """The median GPU compute time trtexec printed."""
    return summary["GPU Compute Time"][3]
