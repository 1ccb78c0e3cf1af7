"""Per-iteration timings (``--exportTimes``): percentiles, jitter, host-bound runs, transfers, drift.

Works on 8.x+ records (``h2dMs``/``computeMs``/``d2hMs``) and 7.x records (``inMs``/``outMs``/
``endToEndMs``). Every statistic uses the timed iterations only: the records inside trtexec's
warm-up (:mod:`trex.model.measurement`) are marked ``warmup`` and left out, as trtexec's performance
summary leaves them out. Percentiles use trtexec's rule (the value below which ``p`` % of the
sorted iterations lie), so min, max, median and p90/p95/p99 equal its summary on the same run.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from .model.facts import engine_facts
from .model.measurement import (
    DEFAULT_WARMUP_MS,
    ITERATION_COLUMNS,
    iteration_records,
    throughput_qps,
    trtexec_percentile,
    warmup_iterations,
)
from .model.plan import EnginePlan

PERCENTILES = (50, 90, 95, 99)
METRICS = ("latency", "enqueue", "h2d", "compute", "d2h", "end_to_end")
ENQUEUE_BOUND_RATIO = 0.8  # trtexec: enqueue median > 0.8 x compute median
UNSTABLE_CV_PCT = 1.0  # trtexec: coefficient of variation of GPU compute above 1 %
SLOW_START_PCT = 5.0
DRIFT_PCT = 2.0


def timing_records(source: EnginePlan | pd.DataFrame, warmup_ms: float | None = None) -> pd.DataFrame:
    """One row per iteration in ms (:func:`~trex.model.measurement.iteration_records`): enqueue,
    h2d, compute, d2h, latency, end_to_end, start/end times and ``warmup`` (True for the records
    trtexec's statistics leave out). A plan knows its warm-up; for bare records it is
    ``warmup_ms`` (default: trtexec's 200 ms)."""
    if isinstance(source, EnginePlan):
        return iteration_records(source.timings, source.warmup.iterations)
    if source is not None and list(source.columns) == ITERATION_COLUMNS:
        return source  # already normalised
    warm = warmup_iterations(source, DEFAULT_WARMUP_MS if warmup_ms is None else warmup_ms)
    return iteration_records(source, warm)


def timed_records(source: EnginePlan | pd.DataFrame) -> pd.DataFrame:
    """The rows of :func:`timing_records` that trtexec times (the warm-up left out)."""
    records = timing_records(source)
    return records[~records["warmup"].to_numpy(dtype=bool)] if len(records) else records


def _stats(values: np.ndarray) -> dict[str, float]:
    values = values[~np.isnan(values)]
    if not len(values):
        return {}
    mean = float(values.mean())
    std = float(values.std())
    out = {"count": int(len(values)), "mean": mean, "min": float(values.min()),
           "median": float(np.median(values))}
    for p in PERCENTILES:
        out[f"p{p}"] = trtexec_percentile(values, p)
    out.update(max=float(values.max()), std=std, cv_pct=100.0 * std / mean if mean else math.nan,
               jitter_ms=float(np.abs(np.diff(values)).mean()) if len(values) > 1 else 0.0)
    out["p99_minus_p50"] = out["p99"] - out["p50"]
    return out


def latency_percentiles(source: EnginePlan | pd.DataFrame) -> pd.DataFrame:
    """Count, mean, min, median, p50/p90/p95/p99, max, std, CV % and jitter per metric (ms), over
    the timed iterations (the warm-up left out, as in trtexec's summary).

    ``jitter_ms`` is the mean absolute change between consecutive iterations."""
    records = timed_records(source)
    rows = []
    for metric in METRICS:
        stats = _stats(records[f"{metric}_ms"].to_numpy(dtype="float64")) if len(records) else {}
        if stats:
            rows.append({"metric": metric, **stats})
    columns = ["metric", "count", "mean", "min", "median", *(f"p{p}" for p in PERCENTILES), "max",
               "std", "cv_pct", "jitter_ms", "p99_minus_p50"]
    return pd.DataFrame(rows, columns=columns)


def warmup_drift(source: EnginePlan | pd.DataFrame, metric: str = "latency") -> dict[str, Any]:
    """A slow start (the first timed iterations slower than the median) and drift (last decile vs
    first decile), over the timed iterations; ``warmup`` keeps its name for the slow start."""
    values = timed_records(source)[f"{metric}_ms"].to_numpy(dtype="float64")
    values = values[~np.isnan(values)]
    if len(values) < 20:
        return {"iterations": int(len(values))}
    median = float(np.median(values))
    head = values[: max(10, len(values) // 100)]
    deciles = [float(np.median(chunk)) for chunk in np.array_split(values, 10)]
    warmup_pct = 100.0 * (float(head.mean()) - median) / median
    drift_pct = 100.0 * (deciles[-1] - deciles[0]) / median
    settled = np.flatnonzero(np.abs(values - median) <= 0.05 * median)
    return {
        "iterations": int(len(values)),
        "median_ms": median,
        "first_iterations": int(len(head)),
        "first_iterations_mean_ms": float(head.mean()),
        "warmup_pct": warmup_pct,
        "warmup": warmup_pct > SLOW_START_PCT,
        "settled_after": int(settled[0]) if len(settled) else None,
        "decile_medians_ms": deciles,
        "drift_pct": drift_pct,
        "drift": abs(drift_pct) > DRIFT_PCT,
    }


def layer_sum_gap(plan: EnginePlan) -> dict[str, Any]:
    """The sum of per-layer average times against the measured GPU compute time, and why they differ."""
    lat = np.asarray(plan.latency.avg, dtype="float64")
    timed = int(np.sum(lat > 0))
    layer_sum = float(np.nansum(lat))
    measured = plan.measured.gpu_compute_median_ms
    source = plan.measured.source if measured is not None else \
        "no timings and no performance summary"
    out: dict[str, Any] = {"sum_of_layers_ms": layer_sum, "measured_ms": measured,
                           "measured_source": source, "layers": len(lat), "timed_layers": timed,
                           "streams": plan.stream_count, "explanation": []}
    if measured is None or layer_sum <= 0 or measured <= 0:
        out["explanation"].append("cannot compare: " + (source if measured is None else
                                                        "no per-layer profile"))
        return out
    gap = layer_sum - measured
    out.update(gap_ms=gap, gap_pct=100.0 * gap / measured)
    conditions = engine_facts(plan).profiling
    graphs = conditions.get("cuda_graph") is True
    why = out["explanation"]
    if gap > 0:
        out["overhead_per_layer_us"] = 1000.0 * gap / max(timed, 1)
        why.append(f"the per-layer profile is {gap:.4f} ms ({out['gap_pct']:.1f} %) above the measured "
                   f"GPU compute time: profiling times each of the {timed} layers with its own CUDA "
                   f"events and launches, about {out['overhead_per_layer_us']:.2f} us of overhead per "
                   "layer that an uninstrumented run does not pay")
        if graphs:
            why.append("the measured run used CUDA graphs, which remove the launch gaps between "
                       "kernels; the profiled run cannot")
        if plan.stream_count > 1:
            why.append(f"layers on {plan.stream_count} streams overlap in the measured run but their "
                       "profiled times add up")
    else:
        why.append(f"the measured GPU compute time is {-gap:.4f} ms above the sum of the layers: time "
                   "between kernels (launches, synchronisation) and work not attributed to any "
                   "profiled layer")
        untimed = len(lat) - timed
        if untimed:
            why.append(f"{untimed} layers have no (or zero) profile time")
    if conditions.get("separate_profile_run") is True and conditions.get("profiler") is not False:
        why.append("the profile comes from a separate run (--separateProfileRun), so clocks and "
                   "caches may differ from the timed run")
    return out


def timing_analysis(source: EnginePlan | pd.DataFrame) -> dict[str, Any]:
    """Percentiles, host-bound and transfer flags (trtexec's thresholds), slow start, drift and the
    layer gap, over the timed iterations; ``warmup_iterations`` counts the records left out.

    ``flags`` lists what looks wrong; ``layer_gap`` (:func:`layer_sum_gap`) needs a plan."""
    every = timing_records(source)
    records = every[~every["warmup"].to_numpy(dtype=bool)] if len(every) else every
    out: dict[str, Any] = {"available": bool(len(records)), "iterations": int(len(records)),
                           "warmup_iterations": int(len(every) - len(records))}
    if isinstance(source, EnginePlan):
        out["layer_gap"] = layer_sum_gap(source)
        out["warmup_ms"] = source.warmup.ms
        out["warmup_source"] = source.warmup.source
    if not len(records):
        out["flags"] = []
        return out
    stats = {row["metric"]: {k: v for k, v in row.items() if k != "metric"}
             for row in latency_percentiles(records).to_dict("records")}
    out["stats"] = stats
    latency = stats.get("latency", {})
    out["latency"] = {k: latency.get(k) for k in ("p50", "p90", "p95", "p99", "mean", "min", "max",
                                                  "std", "cv_pct", "jitter_ms", "p99_minus_p50")}
    compute = stats.get("compute", {})
    enqueue = stats.get("enqueue", {})
    flags = []
    total_latency = float(np.nansum(records["latency_ms"]))
    h2d = float(np.nansum(records["h2d_ms"]))
    d2h = float(np.nansum(records["d2h_ms"]))
    out["h2d_pct"] = 100.0 * h2d / total_latency if total_latency else math.nan
    out["d2h_pct"] = 100.0 * d2h / total_latency if total_latency else math.nan
    c_med = compute.get("median", math.nan)
    # trtexec's summary has the enqueue median at full precision; the exported start/end stamps
    # are rounded (6 significant digits), so the records' own enqueue times are a fallback.
    measured = source.measured if isinstance(source, EnginePlan) else None
    e_med = measured.enqueue_median_ms if measured is not None and \
        measured.enqueue_median_ms is not None else enqueue.get("median", math.nan)
    out["enqueue_to_compute"] = e_med / c_med if enqueue and c_med else math.nan
    out["host_bound"] = bool(enqueue) and e_med > ENQUEUE_BOUND_RATIO * c_med
    out["h2d_bound"] = stats.get("h2d", {}).get("median", 0.0) >= c_med > 0 and h2d > 0
    out["d2h_bound"] = stats.get("d2h", {}).get("median", 0.0) >= c_med > 0 and d2h > 0
    out["unstable"] = compute.get("cv_pct", 0.0) > UNSTABLE_CV_PCT
    out["throughput_qps"] = measured.throughput_qps if measured is not None and \
        measured.throughput_qps is not None else throughput_qps(records)
    span = _span_ms(records)
    if span:
        busy = float(np.nansum(records["compute_ms"]))
        out["gpu_utilization_pct"] = 100.0 * busy / span
    if out["host_bound"]:
        flags.append(f"host-bound: median enqueue {e_med:.4f} ms > 0.8 x median GPU "
                     f"compute {c_med:.4f} ms (try CUDA graphs)")
    if out["h2d_bound"]:
        flags.append("bound by host-to-device transfers (median H2D >= median compute)")
    if out["d2h_bound"]:
        flags.append("bound by device-to-host transfers (median D2H >= median compute)")
    if out["unstable"]:
        flags.append(f"GPU compute time unstable: coefficient of variation {compute['cv_pct']:.2f} % "
                     "(lock clocks, --useSpinWait)")
    drift = warmup_drift(records)
    out["warmup"] = drift
    if drift.get("warmup"):
        flags.append(f"slow start: the first {drift['first_iterations']} timed iterations are "
                     f"{drift['warmup_pct']:.1f} % slower than the median (after trtexec's "
                     "warm-up)")
    if drift.get("drift"):
        flags.append(f"drift: latency moved {drift['drift_pct']:+.1f} % from the first to the last "
                     "decile of iterations (clocks, temperature, contention)")
    out["flags"] = flags
    return out


def _span_ms(records: pd.DataFrame) -> float | None:
    start = records["compute_start_ms"].to_numpy(dtype="float64")
    end = records["compute_end_ms"].to_numpy(dtype="float64")
    if np.isnan(start).all() or np.isnan(end).all():
        return None
    span = float(np.nanmax(end) - np.nanmin(start))
    return span if span > 0 else None
