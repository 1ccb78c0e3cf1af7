"""How an engine was timed and what trtexec measured end to end, each figure with its source.

trtexec's performance summary leaves out the warm-up: every iteration before the first whose GPU
compute starts at or after ``--warmUp`` ms (default 200; the log prints ``Duration: 3s (+ 200ms
warm up)``), times counted from the trace's time base (0 in ``--exportTimes``). The exported
timings hold the warm-up too on TensorRT 8.4 and earlier and start after it from 8.6 on, so the
rule is applied to the absolute start times, never counted from the first record. The measured
figures (GPU compute median, latency median, throughput) are trtexec's summary where the inputs
have it, else the same statistics of the timed iterations: one value, one named source.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..formats.units import PLAUSIBLE_MS, finite

DEFAULT_WARMUP_MS = 200.0  # trtexec's --warmUp default
_WARMUP = re.compile(r"\(\s*\+\s*(?P<ms>\d+(?:\.\d+)?)\s*ms\s+warm\s*-?\s*up\s*\)", re.IGNORECASE)
_WARMUP_OPTION = re.compile(r"^\s*(?P<ms>\d+(?:\.\d+)?)\s*(?:ms)?\s*$")


@dataclass(frozen=True)
class WarmUp:
    """The warm-up trtexec left out of its statistics and how many exported iterations fall in it."""

    ms: float
    source: str  # where the period comes from ("Duration: 3s (+ 200ms warm up)" in a file, ...)
    iterations: int = 0  # leading records of --exportTimes inside the warm-up (left out)


def warmup_period(inference_options: dict[str, Any], source: str = "") -> tuple[float, str]:
    """The warm-up in ms and where it comes from: the logged ``Duration``/``Warmup``, else trtexec's
    default of 200 ms."""
    duration = str(inference_options.get("Duration", ""))
    match = _WARMUP.search(duration)
    if match:
        where = f" in {source}" if source else ""
        return float(match["ms"]), f"Duration: {duration.strip()}{where}"
    for key in ("Warmup", "Warm up", "Warmup time"):
        value = _WARMUP_OPTION.match(str(inference_options.get(key, "")))
        if value:
            return float(value["ms"]), f"{key}: {inference_options[key]}" + (
                f" in {source}" if source else "")
    return DEFAULT_WARMUP_MS, "trtexec's default (--warmUp=200): the inputs do not say"


def warmup_iterations(records: pd.DataFrame, warmup_ms: float) -> int:
    """How many leading records start their GPU compute before ``warmup_ms`` (trtexec's rule: the
    first record at or past the warm-up and every later one are timed)."""
    if records is None or not len(records):
        return 0
    for key in ("startComputeMs", "compute_start_ms", "startH2dMs", "startInMs"):
        if key in records.columns:
            start = records[key].to_numpy(dtype="float64")
            timed = np.flatnonzero(start >= warmup_ms)
            return int(timed[0]) if len(timed) else len(start)
    return 0


def plan_warmup(timings: pd.DataFrame, inference_options: dict[str, Any], source: str = ""
                ) -> WarmUp:
    """The plan's warm-up: its period and the exported iterations it covers."""
    ms, where = warmup_period(inference_options, source)
    return WarmUp(ms, where, warmup_iterations(timings, ms))


def measured_profile(inference_options: dict[str, Any]) -> int | None:
    """The optimisation profile trtexec ran (``Optimization Profile Index``, TensorRT 10+), or
    None when the options do not say."""
    value = str(inference_options.get("Optimization Profile Index", "")).strip()
    return int(value) if value.isdigit() and len(value) < 10 else None


@dataclass(frozen=True)
class Measured:
    """End-to-end figures trtexec measured; None where the inputs do not give them.

    ``source`` names where they come from: trtexec's performance summary (in a metadata file or a
    log), or the timed iterations of ``--exportTimes`` when there is no summary."""

    latency_median_ms: float | None = None
    gpu_compute_median_ms: float | None = None
    throughput_qps: float | None = None
    source: str = ""
    enqueue_median_ms: float | None = None
    origin: str = "summary"  # "summary" (trtexec printed them) or "timings" (the timed iterations)

    @classmethod
    def from_summary(cls, summary: dict[str, Any], source: str = "") -> Measured:
        """Read TREx's ``performance_summary`` shapes: stat lists [min, max, mean, median, ...]."""
        return cls(_median(summary, "Latency"), _median(summary, "GPU Compute Time"),
                   _number(summary.get("Throughput")), source, _median(summary, "Enqueue Time"))

    @property
    def available(self) -> bool:
        """True if at least one of the measured figures is known."""
        return any(v is not None for v in (self.latency_median_ms, self.gpu_compute_median_ms,
                                           self.throughput_qps))


def _number(value: Any) -> float | None:
    """A finite, plausible figure (a number, not a string), else None."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    number = finite(value)
    return number if number is not None and abs(number) <= PLAUSIBLE_MS else None


def _median(summary: dict[str, Any], key: str) -> float | None:
    named = summary.get("percentiles")
    if isinstance(named, dict) and isinstance(named.get(key), dict):
        found = _number(named[key].get("median"))
        if found is not None:
            return found
    value = summary.get(key)
    if isinstance(value, list) and len(value) >= 4:
        return _number(value[3])
    return None


def measured_figures(summary: dict[str, Any], summary_source: str, records: pd.DataFrame,
                     timings_source: str = "") -> Measured:
    """trtexec's summary where there is one, else the medians and the throughput of the timed
    iterations of ``records`` (:func:`iteration_records`), as trtexec computes them."""
    from_summary = Measured.from_summary(summary, f"trtexec's performance summary in "
                                                  f"{summary_source}" if summary_source else
                                         "trtexec's performance summary")
    if from_summary.available or records is None or not len(records):
        return from_summary
    warm = records["warmup"].to_numpy(dtype=bool)
    timed = records[~warm]
    if not len(timed):
        return from_summary
    left_out = f", the {int(warm.sum())} warm-up iterations left out" if warm.any() else ""
    where = f" of {timings_source}" if timings_source else ""
    return Measured(_nanmedian(timed["latency_ms"]), _nanmedian(timed["compute_ms"]),
                    throughput_qps(timed), f"the {len(timed)} timed iterations{where}{left_out}",
                    _nanmedian(timed["enqueue_ms"]), "timings")


def _nanmedian(values: pd.Series) -> float | None:
    array = values.to_numpy(dtype="float64")
    if not len(array) or np.isnan(array).all():
        return None
    return float(np.nanmedian(array))


def throughput_qps(timed: pd.DataFrame) -> float | None:
    """trtexec's throughput: timed iterations per second from the first one's H2D start to the
    last one's D2H end (queries: one per inference with explicit batch)."""
    if not len(timed):
        return None
    span = float(timed["end_ms"].iloc[-1] - timed["start_ms"].iloc[0])
    return 1000.0 * len(timed) / span if span > 0 and math.isfinite(span) else None


def trtexec_percentile(values: np.ndarray, pct: float) -> float:
    """trtexec's percentile: sorted[max(n - 1 - int((1 - pct/100) * n), 0)]."""
    values = np.sort(values[~np.isnan(values)])
    n = len(values)
    if not n:
        return math.nan
    return float(values[max(n - 1 - int((1 - pct / 100) * n), 0)])


# ------------------------------------------------------------------ per-iteration records
ITERATION_COLUMNS = ["iteration", "start_ms", "end_ms", "enqueue_ms", "h2d_ms", "compute_ms",
                     "d2h_ms", "latency_ms", "end_to_end_ms", "compute_start_ms", "compute_end_ms",
                     "warmup"]


def _col(df: pd.DataFrame, *names: str) -> np.ndarray | None:
    for name in names:
        if name in df.columns:
            return df[name].to_numpy(dtype="float64")
    return None


def _span(df: pd.DataFrame, start: tuple[str, ...], end: tuple[str, ...]) -> np.ndarray | None:
    a, b = _col(df, *start), _col(df, *end)
    return None if a is None or b is None else b - a


def iteration_records(df: pd.DataFrame | None, warmup: int = 0) -> pd.DataFrame:
    """``--exportTimes`` records (8.x+ or 7.x keys) as one row per iteration in ms: start (H2D)
    and end (D2H), enqueue, h2d, compute, d2h, latency, end_to_end, GPU start/end, and ``warmup``
    (True for the first ``warmup`` records, which trtexec's statistics leave out)."""
    columns = ITERATION_COLUMNS
    if df is None or df.empty:
        empty: pd.DataFrame = pd.DataFrame(columns=columns)
        return empty
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
    end = _col(df, "endD2hMs", "endOutMs", "endComputeMs")
    records: pd.DataFrame = pd.DataFrame({
        "iteration": np.arange(n),
        "start_ms": nan if start is None else start,
        "end_ms": nan if end is None else end,
        "enqueue_ms": nan if enqueue is None else enqueue,
        "h2d_ms": nan if h2d is None else h2d,
        "compute_ms": nan if compute is None else compute,
        "d2h_ms": nan if d2h is None else d2h,
        "latency_ms": nan if latency is None else latency,
        "end_to_end_ms": _col(df, "endToEndMs") if "endToEndMs" in df.columns else nan,
        "compute_start_ms": _col(df, "startComputeMs") if "startComputeMs" in df.columns else nan,
        "compute_end_ms": _col(df, "endComputeMs") if "endComputeMs" in df.columns else nan,
        "warmup": np.arange(n) < warmup,
    }, columns=columns)
    return records


# ------------------------------------------------------------------ profiling conditions
# trtexec's "Inference Options" and "Reporting Options" lines that change what times mean.
PROFILING_OPTIONS = {"CUDA Graph": "cuda_graph", "Data transfers": "data_transfers",
                     "Spin-wait": "spin_wait", "Separate profiling": "separate_profile_run",
                     "Profile": "profiler"}


def logged_conditions(*sections: dict[str, Any]) -> dict[str, bool]:
    """The profiling conditions a trtexec log states (``CUDA Graph: Enabled``, ``Profile:
    Disabled`` ...), from its Inference and Reporting Options."""
    out = {}
    for section in sections:
        for key, ours in PROFILING_OPTIONS.items():
            text = str(section.get(key, "")).strip().lower()
            if text in ("enabled", "disabled"):
                out[ours] = text == "enabled"
    return out


def describe_conditions(state: dict[str, Any]) -> str:
    """What the times of a run under these conditions are, in words; nothing is claimed that the
    inputs do not say (a run with ``Profile: Disabled`` had no per-layer profiler)."""
    graph, separate, copies, profiler = (state.get(k) for k in (
        "cuda_graph", "separate_profile_run", "data_transfers", "profiler"))
    text = ("CUDA graph launches" if graph is True else "stream launches" if graph is False
            else "launches not recorded")
    if profiler is False:
        text += ", no per-layer profiler in this run"
    elif separate is True:
        text += ", per-layer times from a separate profiling run"
    elif separate is False and profiler is True:
        text += ", per-layer times from the timed run (layer timing adds to the latency)"
    elif separate is False:
        text += ", no separate profiling run"
    if copies is not None:
        text += "; host-device copies " + ("included" if copies else "excluded")
    return text


def profiling_conditions(recorded: dict[str, Any], inference_options: dict[str, Any],
                         reporting_options: dict[str, Any]) -> dict[str, Any]:
    """How the engine was timed: what ``trex process`` recorded (``trex_profiling``), else what
    the log's options say; empty when the inputs do not say."""
    if recorded:
        state = dict(recorded)
        state["per_layer_times"] = describe_conditions(state)
        return state
    state = dict(logged_conditions(inference_options, reporting_options))
    if state:
        state["source"] = "trtexec log"
        state["per_layer_times"] = describe_conditions(state)
    return state
