"""Chrome/Perfetto trace export: per-iteration timings and per-layer averages in execution order.

The result is the Trace Event JSON that ui.perfetto.dev and chrome://tracing open: one process for
the iterations of ``--exportTimes`` (enqueue, H2D, compute and D2H tracks plus a latency counter;
the iterations inside trtexec's warm-up are named ``warm-up iteration N``, category ``warmup``)
and one for the engine's layers, each drawn for its average time on its CUDA stream, starting when
its inputs are ready and its stream is free.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .errors import InputError
from .jsonable import json_value
from .model.measurement import DEFAULT_WARMUP_MS, warmup_iterations
from .model.plan import EnginePlan
from .safety import atomic_write

__all__ = ["bare_timings", "chrome_trace", "layer_schedule", "load_timeline_source",
           "write_chrome_trace", "write_trace"]

ITERATIONS_PID = 1
LAYERS_PID = 2
# (track name, start keys, end keys): 8.x+ keys first, then 7.x.
_TRACKS = (
    ("Host: enqueue", ("startEnqMs",), ("endEnqMs",)),
    ("H2D copies", ("startH2dMs", "startInMs"), ("endH2dMs", "endInMs")),
    ("GPU compute", ("startComputeMs",), ("endComputeMs",)),
    ("D2H copies", ("startD2hMs", "startOutMs"), ("endD2hMs", "endOutMs")),
)


def bare_timings(path: str | os.PathLike, run: int | None = None) -> pd.DataFrame | None:
    """The timing records of run ``run`` of a bare ``--exportTimes`` file (one with no layer
    information beside it), or None when ``path`` is an engine's."""
    from .formats import readers, roles

    if not (Path(path).is_file()
            and roles.of_kind(readers.detect_kind(path)) == roles.role("timings")):
        return None
    from .formats.discovery import find_engine_files

    try:
        find_engine_files(path)
        return None
    except InputError:  # a timing file with no layer information beside it
        from .formats.records import Timings

        timings = readers.InputCache().read_as(path, Timings)
        index = 0 if run is None else run
        if not -len(timings.runs) <= index < len(timings.runs):
            raise InputError(path, f"has {len(timings.runs)} runs; run {run} is out of range"
                             ) from None
        return pd.DataFrame.from_records(timings.runs[index])


def load_timeline_source(path: str | os.PathLike, profile_id: int | None = None,
                         run: int | None = None) -> EnginePlan | pd.DataFrame:
    """An EnginePlan for an engine's files, or the timing records of a bare ``--exportTimes`` file."""
    timings = bare_timings(path, run)
    if timings is not None:
        return timings
    return EnginePlan.from_path(path, profile_id=profile_id, profile_run=run)


def chrome_trace(source: EnginePlan | pd.DataFrame | str | os.PathLike, *, iterations: bool = True,
                 layers: bool = True, max_iterations: int | None = None,
                 latency: str = "avg_time") -> dict[str, Any]:
    """The Trace Event JSON object (``traceEvents``) of a plan, a timings DataFrame or a path."""
    if isinstance(source, (str, os.PathLike)):
        source = load_timeline_source(source)
    plan = source if isinstance(source, EnginePlan) else None
    timings = plan.timings if plan is not None else source
    warm = plan.warmup.iterations if plan is not None else \
        warmup_iterations(timings, DEFAULT_WARMUP_MS)
    events: list[dict[str, Any]] = []
    name = plan.name if plan is not None else "engine"
    counts = {"iterations": 0, "layers": 0, "warmup_iterations": 0}
    if iterations and timings is not None and len(timings):
        counts["iterations"] = _iteration_events(events, timings, max_iterations, warm)
        counts["warmup_iterations"] = min(warm, counts["iterations"])
    if layers and plan is not None:
        counts["layers"] = _layer_events(events, plan, latency)
    if not events:
        what = "per-iteration timings (--exportTimes)" if iterations else ""
        if layers:
            what += (" or " if what else "") + "a per-layer profile (--exportProfile)"
        raise InputError(getattr(plan, "graph_file", None), f"nothing to draw: no {what}")
    # otherData first, "generator" first in it: the file's first bytes say trex wrote it, so
    # that reading the folder it lands in never takes it for a profile (formats.registry).
    return {
        "otherData": {"generator": "trex", "engine": name, **counts,
                      "layer_latency": f"latency.{latency}" if counts["layers"] else None},
        "traceEvents": events,
        "displayTimeUnit": "ms",
    }


def write_chrome_trace(source: EnginePlan | pd.DataFrame | str | os.PathLike,
                       output: str | os.PathLike, **options: Any) -> Path:
    """Write :func:`chrome_trace` to ``output`` (JSON) and return its absolute path."""
    return write_trace(chrome_trace(source, **options), output)


def write_trace(trace: dict[str, Any], output: str | os.PathLike) -> Path:
    """Write a trace object as strict, compact JSON (a non-finite number becomes null) through a
    temporary file renamed into place, so a failure never leaves a truncated trace; return the
    file's absolute path."""
    path = Path(output).absolute()
    text = json.dumps(json_value(trace), separators=(",", ":"), allow_nan=False)
    with atomic_write(path, what="the trace") as f:
        f.write(text)
    return path


def _meta(pid: int, tid: int | None, kind: str, value: Any) -> dict[str, Any]:
    event: dict[str, Any] = {"ph": "M", "pid": pid, "name": kind, "args": {}}
    if tid is not None:
        event["tid"] = tid
    event["args"] = {"name": value} if kind.endswith("_name") else {"sort_index": value}
    return event


def _column(df: pd.DataFrame, keys: tuple[str, ...]) -> np.ndarray | None:
    for key in keys:
        if key in df.columns:
            return pd.to_numeric(df[key], errors="coerce").to_numpy(dtype="float64")
    return None


def _iteration_events(events: list[dict[str, Any]], df: pd.DataFrame,
                      max_iterations: int | None, warmup: int = 0) -> int:
    if max_iterations is not None:
        df = df.iloc[:max(0, max_iterations)]
    n = len(df)
    spans = [(name, _column(df, s), _column(df, e)) for name, s, e in _TRACKS]
    starts = [s for _, s, _ in spans if s is not None]
    if not starts or n == 0:
        return 0
    t0 = _origin(np.vstack(starts))
    latency = _column(df, ("latencyMs",))
    compute = _column(df, ("computeMs",))
    events.append(_meta(ITERATIONS_PID, None, "process_name", "Iterations (trtexec --exportTimes)"))
    events.append(_meta(ITERATIONS_PID, None, "process_sort_index", 0))
    for tid, (title, start, end) in enumerate(spans, 1):
        if start is None or end is None:
            continue
        events.append(_meta(ITERATIONS_PID, tid, "thread_name", title))
        events.append(_meta(ITERATIONS_PID, tid, "thread_sort_index", tid))
        for i in range(n):
            s, e = float(start[i]), float(end[i])
            if not (math.isfinite(s) and math.isfinite(e)) or e <= s:
                continue  # zero-length copies (--noDataTransfers) draw nothing
            ts, dur = (s - t0) * 1000.0, (e - s) * 1000.0
            if not (math.isfinite(ts) and math.isfinite(dur)):
                continue  # absurd times (1e308 ms) cannot be placed on a time line
            args: dict[str, Any] = {"iteration": i, "duration_ms": round(e - s, 6)}
            if tid == 3 and latency is not None and math.isfinite(latency[i]):
                args["latency_ms"] = float(latency[i])
            warm = i < warmup  # trtexec's warm-up: left out of its statistics
            if warm:
                args["warmup"] = True
            events.append({"ph": "X", "pid": ITERATIONS_PID, "tid": tid,
                           "name": f"warm-up iteration {i}" if warm else f"iteration {i}",
                           "cat": "warmup" if warm else "iteration", "ts": ts, "dur": dur,
                           "args": args})
    counter = latency if latency is not None else compute
    gpu_start = spans[2][1] if spans[2][1] is not None else starts[0]
    if counter is not None:
        for i in range(n):
            ts = (float(gpu_start[i]) - t0) * 1000.0
            if math.isfinite(counter[i]) and math.isfinite(ts):
                events.append({"ph": "C", "pid": ITERATIONS_PID, "name": "latency (ms)",
                               "ts": ts, "args": {"ms": float(counter[i])}})
    return n


PLAUSIBLE_SPAN_MS = 1e9  # ~11.6 days: time stamps further from the run's median are absurd


def _origin(starts: np.ndarray) -> float:
    """The trace's time zero: the earliest start, ignoring absurd stamps (a corrupt -1e308 would
    push every event beyond the float range)."""
    values = starts[np.isfinite(starts)]
    if not len(values):
        return 0.0
    median = float(np.median(values))
    with np.errstate(over="ignore", invalid="ignore"):
        return float(values[np.abs(values - median) <= PLAUSIBLE_SPAN_MS].min())


def layer_schedule(plan: EnginePlan, latency: str = "avg_time") -> pd.DataFrame:
    """Each profiled layer's start and end (ms) in one average iteration, and its stream.

    A layer starts when the layers producing its inputs have ended and its stream is free; a
    ``wait`` layer also waits for every stream. Layers without tensors run one after another.
    """
    column = f"latency.{latency}"
    if column not in plan.df.columns:
        raise InputError(plan.graph_file, f"no {column} column (latency types: avg_time, "
                                          "median_time, time)")
    times = dict(zip(plan.df["Name"], pd.to_numeric(plan.df[column], errors="coerce")))
    produced_at: dict[str, float] = {}
    stream_free: dict[int, float] = {}
    rows = []
    order = 0
    for layer in plan.all_layers:
        if layer.type == "Constant":
            continue
        stream = layer.stream
        ready = stream_free.get(stream, 0.0)
        if layer.type == "wait":
            ready = max([ready, *stream_free.values()])
        for tensor in layer.inputs:
            ready = max(ready, produced_at.get(tensor.name, 0.0))
        if not layer.inputs and not layer.outputs and stream_free:
            ready = max(ready, max(stream_free.values()))  # names-only: keep the order
        duration = times.get(layer.name, 0.0)
        duration = float(duration) if duration is not None and math.isfinite(duration) else 0.0
        end = ready + max(duration, 0.0)
        stream_free[stream] = end
        for tensor in layer.outputs:
            produced_at[tensor.name] = end
        rows.append({"order": order, "layer": layer.name, "type": layer.type, "stream": stream,
                     "start_ms": ready, "end_ms": end, "latency_ms": duration,
                     "precision": layer.precision,
                     "tactic": layer.tactic_name or layer.tactic_value})
        order += 1
    return pd.DataFrame(rows, columns=["order", "layer", "type", "stream", "start_ms", "end_ms",
                                       "latency_ms", "precision", "tactic"])


def _present(value: Any) -> bool:
    """A value worth showing: not None, not NaN (pandas 3 stores a missing string as NaN), not ''."""
    return value is not None and not (isinstance(value, float) and math.isnan(value)) and value != ""


def _layer_events(events: list[dict[str, Any]], plan: EnginePlan, latency: str) -> int:
    schedule = layer_schedule(plan, latency)
    if schedule.empty or not (schedule["latency_ms"] > 0).any():
        return 0
    events.append(_meta(LAYERS_PID, None, "process_name",
                        f"{plan.name}: layers (average latency, execution order)"))
    events.append(_meta(LAYERS_PID, None, "process_sort_index", 1))
    for stream in sorted(schedule["stream"].unique()):
        title = "stream 0 (main)" if stream == 0 else f"stream {stream} (auxiliary)"
        events.append(_meta(LAYERS_PID, int(stream) + 1, "thread_name", title))
        events.append(_meta(LAYERS_PID, int(stream) + 1, "thread_sort_index", int(stream)))
    for row in schedule.itertuples(index=False):
        ts, dur = float(row.start_ms) * 1000.0, float(row.latency_ms) * 1000.0
        if not (math.isfinite(ts) and math.isfinite(dur)):
            continue  # after an absurd latency (1e308 ms) nothing can be placed
        args = {"order": row.order, "type": row.type, "latency_ms": row.latency_ms}
        if _present(row.precision):
            args["precision"] = str(row.precision)
        if _present(row.tactic):
            args["tactic"] = str(row.tactic)
        events.append({"ph": "X", "pid": LAYERS_PID, "tid": int(row.stream) + 1,
                       "name": str(row.layer), "cat": str(row.type or "layer"),
                       "ts": ts, "dur": dur, "args": args})
    return len(schedule)
