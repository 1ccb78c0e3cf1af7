"""Per-iteration timings (``--exportTimes``): percentiles, jitter, host-bound runs, transfers, drift.

Works on 8.x+ records (``h2dMs``/``computeMs``/``d2hMs``) and 7.x records (``inMs``/``outMs``/
``endToEndMs``). Percentiles use trtexec's rule (the value below which ``p`` % of the sorted
iterations lie), so p50/p99 match its performance summary on the same run.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from .model.plan import EnginePlan

PERCENTILES = (50, 90, 95, 99)
METRICS = ("latency", "enqueue", "h2d", "compute", "d2h", "end_to_end")
ENQUEUE_BOUND_RATIO = 0.8  # trtexec: enqueue median > 0.8 x compute median
UNSTABLE_CV_PCT = 1.0  # trtexec: coefficient of variation of GPU compute above 1 %
WARMUP_PCT = 5.0
DRIFT_PCT = 2.0


def _records(source: EnginePlan | pd.DataFrame) -> pd.DataFrame:
    return source.timings if isinstance(source, EnginePlan) else source


def _col(df: pd.DataFrame, *names: str) -> np.ndarray | None:
    for name in names:
        if name in df.columns:
            return df[name].to_numpy(dtype="float64")
    return None


def _span(df: pd.DataFrame, start: tuple[str, ...], end: tuple[str, ...]) -> np.ndarray | None:
    a, b = _col(df, *start), _col(df, *end)
    return None if a is None or b is None else b - a


_COLUMNS = ["iteration", "start_ms", "enqueue_ms", "h2d_ms", "compute_ms", "d2h_ms", "latency_ms",
            "end_to_end_ms", "compute_start_ms", "compute_end_ms"]


def timing_records(source: EnginePlan | pd.DataFrame) -> pd.DataFrame:
    """One row per iteration in ms: enqueue, h2d, compute, d2h, latency, end_to_end, start/end times."""
    df = _records(source)
    columns = _COLUMNS
    if df is not None and list(df.columns) == columns:
        return df  # already normalised
    if df is None or df.empty:
        return pd.DataFrame(columns=columns)
    n = len(df)
    nan = np.full(n, math.nan)
    h2d = _col(df, "h2dMs", "inMs")
    d2h = _col(df, "d2hMs", "outMs")
    compute = _col(df, "computeMs")
    if h2d is None:
        h2d = _span(df, ("startH2dMs", "startInMs"), ("endH2dMs", "endInMs"))
    if d2h is None:
        d2h = _span(df, ("startD2hMs", "startOutMs"), ("endD2hMs", "endOutMs"))
    if compute is None:
        compute = _span(df, ("startComputeMs",), ("endComputeMs",))
    latency = _col(df, "latencyMs")
    if latency is None:
        latency = _span(df, ("startH2dMs", "startInMs"), ("endD2hMs", "endOutMs"))
    enqueue = _span(df, ("startEnqMs",), ("endEnqMs",))
    start = _col(df, "startH2dMs", "startInMs", "startEnqMs", "startComputeMs")
    return pd.DataFrame({
        "iteration": np.arange(n),
        "start_ms": nan if start is None else start,
        "enqueue_ms": nan if enqueue is None else enqueue,
        "h2d_ms": nan if h2d is None else h2d,
        "compute_ms": nan if compute is None else compute,
        "d2h_ms": nan if d2h is None else d2h,
        "latency_ms": nan if latency is None else latency,
        "end_to_end_ms": _col(df, "endToEndMs") if "endToEndMs" in df.columns else nan,
        "compute_start_ms": _col(df, "startComputeMs") if "startComputeMs" in df.columns else nan,
        "compute_end_ms": _col(df, "endComputeMs") if "endComputeMs" in df.columns else nan,
    }, columns=columns)


def trtexec_percentile(values: np.ndarray, pct: float) -> float:
    """trtexec's percentile: sorted[max(n - 1 - int((1 - pct/100) * n), 0)]."""
    values = np.sort(values[~np.isnan(values)])
    n = len(values)
    if not n:
        return math.nan
    return float(values[max(n - 1 - int((1 - pct / 100) * n), 0)])


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
    """Count, mean, min, median, p50/p90/p95/p99, max, std, CV % and jitter per metric (ms).

    ``jitter_ms`` is the mean absolute change between consecutive iterations."""
    records = timing_records(source)
    rows = []
    for metric in METRICS:
        stats = _stats(records[f"{metric}_ms"].to_numpy(dtype="float64")) if len(records) else {}
        if stats:
            rows.append({"metric": metric, **stats})
    columns = ["metric", "count", "mean", "min", "median", *(f"p{p}" for p in PERCENTILES), "max",
               "std", "cv_pct", "jitter_ms", "p99_minus_p50"]
    return pd.DataFrame(rows, columns=columns)


def warmup_drift(source: EnginePlan | pd.DataFrame, metric: str = "latency") -> dict[str, Any]:
    """Warm-up (first iterations slower than the median) and drift (last decile vs first decile)."""
    values = timing_records(source)[f"{metric}_ms"].to_numpy(dtype="float64")
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
        "warmup": warmup_pct > WARMUP_PCT,
        "settled_after": int(settled[0]) if len(settled) else None,
        "decile_medians_ms": deciles,
        "drift_pct": drift_pct,
        "drift": abs(drift_pct) > DRIFT_PCT,
    }


def _median_gpu_compute(plan: EnginePlan) -> tuple[float | None, str]:
    records = timing_records(plan)
    if len(records) and records["compute_ms"].notna().any():
        return float(records["compute_ms"].median()), "median computeMs of --exportTimes"
    value = plan.performance_summary.get("GPU Compute Time")
    if isinstance(value, list) and len(value) >= 4:
        try:
            return float(value[3]), "median GPU Compute Time of the performance summary"
        except (TypeError, ValueError):
            pass
    return None, "no timings and no performance summary"


def layer_sum_gap(plan: EnginePlan) -> dict[str, Any]:
    """The sum of per-layer average times against the measured GPU compute time, and why they differ."""
    lat = plan.df["latency.avg_time"].to_numpy(dtype="float64") if len(plan.df) else np.zeros(0)
    timed = int(np.sum(lat > 0))
    layer_sum = float(np.nansum(lat))
    measured, source = _median_gpu_compute(plan)
    out: dict[str, Any] = {"sum_of_layers_ms": layer_sum, "measured_ms": measured,
                           "measured_source": source, "layers": len(lat), "timed_layers": timed,
                           "streams": plan.stream_count, "explanation": []}
    if measured is None or layer_sum <= 0 or measured <= 0:
        out["explanation"].append("cannot compare: " + (source if measured is None else
                                                        "no per-layer profile"))
        return out
    gap = layer_sum - measured
    out.update(gap_ms=gap, gap_pct=100.0 * gap / measured)
    options = plan.inference_options
    graphs = str(options.get("CUDA Graph", "")).lower() == "enabled"
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
    if str(options.get("Separate profiling", "")).lower() == "enabled":
        why.append("the profile comes from a separate run (--separateProfileRun), so clocks and "
                   "caches may differ from the timed run")
    return out


def timing_analysis(source: EnginePlan | pd.DataFrame) -> dict[str, Any]:
    """Percentiles, host-bound and transfer flags (trtexec's thresholds), warm-up, drift, layer gap.

    ``flags`` lists what looks wrong; ``layer_gap`` (:func:`layer_sum_gap`) needs a plan."""
    records = timing_records(source)
    out: dict[str, Any] = {"available": bool(len(records)), "iterations": int(len(records))}
    if isinstance(source, EnginePlan):
        out["layer_gap"] = layer_sum_gap(source)
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
    out["enqueue_to_compute"] = enqueue["median"] / c_med if enqueue and c_med else math.nan
    out["host_bound"] = bool(enqueue) and enqueue["median"] > ENQUEUE_BOUND_RATIO * c_med
    out["h2d_bound"] = stats.get("h2d", {}).get("median", 0.0) >= c_med > 0 and h2d > 0
    out["d2h_bound"] = stats.get("d2h", {}).get("median", 0.0) >= c_med > 0 and d2h > 0
    out["unstable"] = compute.get("cv_pct", 0.0) > UNSTABLE_CV_PCT
    span = _span_ms(records)
    if span:
        out["throughput_qps"] = 1000.0 * len(records) / span
        busy = float(np.nansum(records["compute_ms"]))
        out["gpu_utilization_pct"] = 100.0 * busy / span
    if out["host_bound"]:
        flags.append(f"host-bound: median enqueue {enqueue['median']:.4f} ms > 0.8 x median GPU "
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
        flags.append(f"warm-up: first {drift['first_iterations']} iterations {drift['warmup_pct']:.1f} % "
                     "slower than the median")
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
