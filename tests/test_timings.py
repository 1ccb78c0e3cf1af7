"""Timings on real --exportTimes files: trtexec's percentiles, flags, warm-up, the layer-sum gap."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import trex
from trex.timings import (
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
    assert a["enqueue_to_compute"] == pytest.approx(0.005 / 0.275391)
    assert a["throughput_qps"] == pytest.approx(3406.14, abs=0.01)  # trtexec: 3406.14 qps
    assert a["gpu_utilization_pct"] == pytest.approx(99.55, abs=0.01)
    assert a["flags"] == ["GPU compute time unstable: coefficient of variation 22.82 % "
                          "(lock clocks, --useSpinWait)"]


def test_trt7_records_transfers_and_warmup(plan):
    p = plan("trt7-googlenet-int8-concatenated")
    records = timing_records(p)
    assert len(records) == 1520 and records["end_to_end_ms"].notna().all()
    stats = latency_percentiles(p).set_index("metric")
    assert list(stats.index) == ["latency", "enqueue", "h2d", "compute", "d2h", "end_to_end"]
    a = timing_analysis(p)
    assert a["h2d_pct"] == pytest.approx(2.103, abs=0.001)
    assert a["d2h_pct"] == pytest.approx(1.204, abs=0.001)
    w = a["warmup"]
    assert w["warmup"] and w["first_iterations"] == 15
    assert w["warmup_pct"] == pytest.approx(74.1, abs=0.1) and w["settled_after"] == 26
    assert w["drift"] and w["drift_pct"] == pytest.approx(-2.42, abs=0.01)


def test_mobilenet_warmup_and_stable_a100(plan):
    w = warmup_drift(plan("trex-mobilenet-qat"))
    assert w["warmup"] and w["first_iterations"] == 89 and w["settled_after"] == 288
    a = timing_analysis(plan("a100-resnet18-qat-residual-qgap"))
    assert a["flags"] == [] and a["latency"]["p99"] == 0.501709
    assert a["h2d_pct"] == 0.0  # --noDataTransfers


def test_host_bound_rule():
    """trtexec's rule: enqueue median above 0.8 x GPU compute median (a hand-made CPU-bound run)."""
    n = 100
    start = np.arange(n) * 1.0
    df = pd.DataFrame({"startEnqMs": start, "endEnqMs": start + 0.9, "startH2dMs": start + 0.9,
                       "endH2dMs": start + 0.9, "startComputeMs": start + 0.9,
                       "endComputeMs": start + 1.0, "startD2hMs": start + 1.0, "endD2hMs": start + 1.0,
                       "h2dMs": 0.0, "computeMs": 0.1, "d2hMs": 0.0, "latencyMs": 0.1})
    records = timing_records(df)
    assert records["enqueue_ms"].median() == pytest.approx(0.9)
    assert trtexec_percentile(records["compute_ms"].to_numpy(), 99) == pytest.approx(0.1)
    a = timing_analysis(df)
    assert a["host_bound"] and a["enqueue_to_compute"] == pytest.approx(9.0)
    assert a["flags"][0].startswith("host-bound: median enqueue 0.9000 ms > 0.8 x median GPU compute")
    assert a["gpu_utilization_pct"] == pytest.approx(10.0, abs=0.2) and "layer_gap" not in a


def test_layer_sum_gap(plan):
    gap = layer_sum_gap(plan("trex-mobilenet-qat"))
    assert gap["sum_of_layers_ms"] == pytest.approx(0.4704, abs=1e-4)
    assert gap["measured_ms"] == 0.351318
    assert gap["gap_ms"] == pytest.approx(0.1191, abs=1e-4)
    assert gap["overhead_per_layer_us"] == pytest.approx(1.654, abs=0.001)
    assert any("CUDA graphs" in line for line in gap["explanation"])
    assert any("separate run" in line for line in gap["explanation"])
    negative = layer_sum_gap(plan("trt7-googlenet-int8-concatenated"))
    assert negative["gap_ms"] == pytest.approx(-0.0103, abs=1e-4)
    assert "above the sum of the layers" in negative["explanation"][0]
    levit = layer_sum_gap(plan("trt8.2-levit-fp32-names-only"))  # no timings: the log's summary
    assert levit["measured_ms"] == 6.89099 and "performance summary" in levit["measured_source"]


def test_no_timings(plan):
    p = plan("trt10-detr-int8-names-only")
    a = timing_analysis(p)
    assert a["available"] is False and a["flags"] == []
    assert a["layer_gap"]["explanation"] == ["cannot compare: no timings and no performance summary"]
    assert latency_percentiles(p).empty and timing_records(p).empty
    assert warmup_drift(p) == {"iterations": 0}
