"""Consistency checks on a loaded plan; each returns warning texts instead of raising."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from operator import attrgetter

import numpy as np
import pandas as pd

from ..formats.records import ProfileRecord, ProfileRun
from ..formats.units import PLAUSIBLE_MS
from .control_flow import is_back_edge
from .table import LayerTable
from .tensors import Activation

SAMPLES = 3


def sample(names: list[str]) -> str:
    """A short, quoted sample of names for a warning."""
    shown = ", ".join(repr(n[:80]) for n in names[:SAMPLES])
    return shown + (", ..." if len(names) > SAMPLES else "")


def check_columns(table: LayerTable, rows: list[int],
                  known_shapes: dict[str, tuple[int, ...]] | None = None) -> list[str]:
    """Tensors written by several layers in conflict, and cycles in the layer graph, of a plan's
    rows.

    Several writers of one tensor are normal when TensorRT concatenates in place: each writes a
    disjoint slice of the output (:func:`disjoint_slices`); only other cases are reported.
    ``known_shapes`` gives the full shape of tensors no layer reads (TensorRT 11's I/O tensors).
    """
    known_shapes = known_shapes or {}
    warnings: list[str] = []
    place = np.full(len(table), -1, dtype=np.int64)  # row -> its place k among rows
    place[np.asarray(rows, dtype=np.int64)] = np.arange(len(rows))
    outs, ins = table.row_uses(rows, True), table.row_uses(rows, False)
    out_name, out_k = table.use_name[outs], place[table.use_row[outs]]
    # The last writer of each tensor (its producer), -1 when no row writes it; a tensor written
    # once (nearly all) is placed directly, those written more often are looked at apart.
    producer = np.full(len(table.tensor_names), -1, dtype=np.int64)
    producer[out_name] = out_k
    repeated = np.flatnonzero(np.bincount(out_name, minlength=len(producer))[out_name] > 1)
    multiple = np.zeros(0, dtype=np.int64)
    if len(repeated):
        name_r, k_r = out_name[repeated], out_k[repeated]
        last, at = np.unique(name_r[::-1], return_index=True)
        producer[last] = k_r[::-1][at]
        # Tensors more than one row writes (not one row twice).
        stride = len(rows) + 1
        pairs = np.unique(name_r * stride + k_r) // stride
        named, counts = np.unique(pairs, return_counts=True)
        multiple = named[counts > 1]
    if len(multiple):
        several = set(multiple.tolist())
        last_write: dict[int, int] = {}  # tensor -> its last write: the order they are said in
        written_by: dict[int, set[int]] = {}  # tensor -> the places of the rows writing it
        for j, (n, k) in enumerate(zip(name_r.tolist(), k_r.tolist())):
            if n in several:
                last_write[n] = j
                written_by.setdefault(n, set()).add(k)
        read_by: dict[int, set[int]] = {n: set() for n in several}
        reads = ins[np.isin(table.use_name[ins], multiple)]
        for n, k in zip(table.use_name[reads].tolist(), place[table.use_row[reads]].tolist()):
            read_by[n].add(k)
        conflicts = []
        for tensor in sorted(last_write, key=last_write.__getitem__):
            writers = [table.outputs(rows[k]) for k in sorted(written_by[tensor])]
            readers = [table.inputs(rows[k]) for k in sorted(read_by[tensor])]
            name = table.tensor_names[tensor]
            if not disjoint_slices(name, writers, readers, known_shapes.get(name)):
                conflicts.append(name)
        if conflicts:
            warnings.append(f"{len(conflicts)} tensors are written by more than one layer, and "
                            f"not as disjoint slices of an in-place concatenation: "
                            f"{sample(conflicts)}")
    in_k, source = place[table.use_row[ins]], producer[table.use_name[ins]]
    later = np.flatnonzero(source >= in_k)  # reads of what the row itself or a later row writes
    types = [table.types[i] for i in rows] if len(later) else []
    if any(not is_back_edge(types[k], s, k)
           for k, s in zip(in_k[later].tolist(), source[later].tolist())):
        names = table.tensor_names
        inputs: list[list[str]] = [[] for _ in rows]
        for k, n in zip(in_k.tolist(), table.use_name[ins].tolist()):
            inputs[k].append(names[n])
        producers = {names[n]: int(producer[n]) for n in np.flatnonzero(producer >= 0).tolist()}
        cyclic = _layers_in_cycles([table.names[i] for i in rows], types, inputs, producers)
        if cyclic:
            warnings.append(f"the layer graph has a cycle through {len(cyclic)} layers: "
                            f"{sample(cyclic)}")
    return warnings


def disjoint_slices(tensor: str, writers: list[list[Activation]], readers: list[list[Activation]],
                    full: tuple[int, ...] | None = None) -> bool:
    """True when the writers of ``tensor`` (their output lists) each write one slice of it along
    a single axis.

    Each writer's view of the tensor has the same rank and agrees with the others on every axis
    but one; along that axis the slices add up to the full tensor as its readers (their input
    lists) or ``full`` see it. With no full shape known, slices of different sizes are accepted,
    identical views are not (they may as well be two writers of the same memory).
    """
    views = [_shape_of(tensor, w) for w in writers]
    shapes = [s for s in views if s is not None]
    if len(shapes) != len(views) or len({len(s) for s in shapes}) != 1:
        return False
    if full is None:
        full = next((s for r in readers if (s := _shape_of(tensor, r)) is not None), None)
    rank = len(shapes[0])
    for axis in range(rank):
        rest = {s[:axis] + s[axis + 1:] for s in shapes}
        if len(rest) != 1:
            continue
        if full is None:
            if len({s[axis] for s in shapes}) > 1:
                return True
        elif len(full) == rank and full[:axis] + full[axis + 1:] in rest and \
                sum(s[axis] for s in shapes) == full[axis]:
            return True
    return False


def _shape_of(tensor: str, tensors: list[Activation]) -> tuple[int, ...] | None:
    for t in tensors:
        if t.name == tensor:
            return tuple(t.shape)
    return None


def _layers_in_cycles(names: list[str], types: list[str], inputs: list[list[str]],
                      producers: dict[str, int]) -> list[str]:
    """Layers on a cycle (``inputs``: each layer's input tensor names): Kahn's algorithm, then
    drop what only hangs below a cycle (linear).

    A loop's back-edge (into its Recurrence layer) is expected and left out."""
    n = len(names)
    successors: list[set[int]] = [set() for _ in range(n)]
    indegree = [0] * n
    for index, ins in enumerate(inputs):
        for tensor in set(ins):
            src = producers.get(tensor)
            if src is not None and is_back_edge(types[index], src, index):
                continue
            if src is not None and src != index and index not in successors[src]:
                successors[src].add(index)
                indegree[index] += 1
    ready = [i for i, d in enumerate(indegree) if d == 0]
    freed = 0
    while ready:
        node = ready.pop()
        freed += 1
        for nxt in successors[node]:
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                ready.append(nxt)
    if freed == n:
        return []
    # Left over: layers on a cycle and layers downstream of one; peel off the downstream ones.
    remaining = {i for i, d in enumerate(indegree) if d > 0}
    outdegree = {i: len(successors[i] & remaining) for i in remaining}
    predecessors: dict[int, list[int]] = {i: [] for i in remaining}
    for node in remaining:
        for nxt in successors[node] & remaining:
            predecessors[nxt].append(node)
    leaves = [i for i, d in outdegree.items() if d == 0]
    while leaves:
        node = leaves.pop()
        remaining.discard(node)
        for prev in predecessors[node]:
            outdegree[prev] -= 1
            if outdegree[prev] == 0:
                leaves.append(prev)
    return [names[i] for i in sorted(remaining)]


def check_profile_join(unmatched_rows: list[str], unprofiled: list[str], total_rows: int,
                       total_layers: int) -> list[str]:
    """Profile rows naming no layer and layers without a profile row."""
    warnings = []
    if unmatched_rows:
        warnings.append(
            f"{len(unmatched_rows)} of {total_rows} profile rows name no layer of the graph "
            f"(profile from another build or verbosity?): {sample(unmatched_rows)}")
    if unprofiled:
        warnings.append(
            f"{len(unprofiled)} of {total_layers} layers have no profile row; their latency is "
            f"NaN: {sample(unprofiled)}")
    return warnings


def check_percentages(percentages: list[float | None]) -> list[str]:
    """The profile's Time % column should add up to about 100."""
    shares = np.array([math.nan if p is None else p for p in percentages], dtype=np.float64)
    values = shares[~np.isnan(shares)].tolist()
    if not values:
        return []
    total = sum(values)
    if abs(total - 100.0) > 1.0:
        return [f"profile percentages add up to {total:.1f}%, not 100%"]
    return []


def check_latency_sum(layer_sum_ms: float, measured_ms: float | None, streams: int,
                      untimed: int = 0) -> tuple[list[str], list[str]]:
    """Compare the sum of per-layer averages with the measured end-to-end GPU time: (notes,
    warnings). Per-layer profiling's synchronisation (the sum above the measure) and streams that
    overlap are known conditions, said once as notes; so is a sum well below the measure when
    every layer is timed (the GPU idles between short kernels: launch gaps, as in an LLM's decode
    step); with ``untimed`` layers (a partial profile) it is a warning."""
    if not measured_ms or not layer_sum_ms or math.isnan(layer_sum_ms):
        return [], []
    ratio = layer_sum_ms / measured_ms
    if streams > 1:
        return [f"layers run on {streams} streams and overlap: their summed time "
                f"({layer_sum_ms:.4f} ms) is not a latency (measured {measured_ms:.4f} ms)"], []
    message = (f"sum of layer times {layer_sum_ms:.4f} ms is {ratio:.2f}x the measured GPU "
               f"compute time {measured_ms:.4f} ms")
    if ratio > 1.25:
        return [f"{message} (per-layer profiling adds synchronisation between layers)"], []
    if ratio < 0.8 and not untimed:
        return [f"{message} (the GPU is idle between kernels: launch gaps and synchronisation "
                "the per-layer times do not count; usual for steps of many short kernels such "
                "as an LLM's decode)"], []
    if ratio < 0.8:
        return [], [f"{message} (some layers were not profiled or the profile is partial)"]
    return [], []


def plausible_profile(run: ProfileRun, warn: Callable[[str], None]) -> ProfileRun:
    """The run with every time that is not plausible (NaN, infinite, negative or beyond
    :data:`PLAUSIBLE_MS`) made missing (NaN), and one warning naming the file, layers and fields."""
    limit = PLAUSIBLE_MS
    records = run.records
    def column(field: str) -> np.ndarray:  # None (not exported) as 0.0, which passes
        values = list(map(attrgetter(field), records))
        if None in values:
            values = [0.0 if v is None else v for v in values]
        return np.asarray(values, dtype=np.float64)

    times = np.stack([column("time_ms"), column("avg_ms"), column("median_ms")], axis=1)
    shares = column("percentage")
    if ((times >= 0) & (times <= limit)).all() and ((shares >= 0) & (shares <= 100)).all():
        return run  # the usual case: nothing to fix
    bad: list[str] = []

    def ok(value: float | None, what: str, name: str) -> float | None:
        if value is None or (math.isfinite(value) and 0 <= value <= PLAUSIBLE_MS):
            return value
        if not math.isnan(value):
            bad.append(f"{name!r} {what}={value:g}")
        return math.nan

    checked = []
    for r in records:
        time_ms = ok(r.time_ms, "timeMs", r.name)
        avg_ms = ok(r.avg_ms, "averageMs", r.name)
        median = ok(r.median_ms, "medianMs", r.name)
        pct = r.percentage
        if pct is not None and not (math.isfinite(pct) and -1e-6 <= pct <= 100 + 1e-6):
            bad.append(f"{r.name!r} percentage={pct:g}")
            pct = math.nan
        checked.append(ProfileRecord(r.name, math.nan if time_ms is None else time_ms,
                                     math.nan if avg_ms is None else avg_ms, median, pct))
    if bad:
        warn(f"{run.source}: {len(bad)} profile values are not plausible (negative, infinite or "
             f"beyond {PLAUSIBLE_MS:g} ms) and count as missing: {', '.join(bad[:SAMPLES])}"
             + (", ..." if len(bad) > SAMPLES else ""))
    return ProfileRun(checked, run.count, run.source)


def plausible_times(frame: pd.DataFrame, source: str) -> list[str]:
    """Make per-iteration times that are not plausible missing (in place); say where they were."""
    bad: list[str] = []
    for column in frame.columns:
        values = frame[column].to_numpy(dtype="float64", copy=False)
        wrong = ~np.isfinite(values) | (np.abs(values) > PLAUSIBLE_MS)
        if wrong.any():
            first = int(np.flatnonzero(wrong)[0])
            bad.append(f"{column} (first in record {first}: {values[first]:g}, "
                       f"{int(wrong.sum())} in all)")
            frame.loc[wrong, column] = math.nan
    if not bad:
        return []
    return [f"{source}: per-iteration times that are not plausible (infinite or beyond "
            f"{PLAUSIBLE_MS:g} ms) count as missing: {'; '.join(bad[:SAMPLES])}"]


def duplicated_names(names: list[str]) -> list[str]:
    """Layer names that occur more than once."""
    if len(set(names)) == len(names):
        return []  # the usual case, without counting
    return [name for name, n in Counter(names).items() if n > 1]
