"""ONNX operators compared across two exports of one network whose node names differ.

An FP16 export and its Q/DQ (INT8, FP8) export name their nodes differently (``Conv_5`` against
``Conv_34``: Q/DQ nodes renumber them; prefixes change). Each engine's ONNX operators are the
nodes its layers list (``Metadata``, else the fused layer names: :mod:`trex.onnx_map`); they are
paired in passes, strongest evidence first:

1. **name**: the same node name and op type in both, unless the aligned layers say otherwise.
2. **layer**: inside each pair of aligned layers (:mod:`.align`: weights, shapes, neighbours),
   the layers' operators of each type in their order (an order-preserving diff on op types).
3. **order**: what is left, in graph order between paired operators, by op type.

A pair's ``confidence`` adds up its support: the layer pair's confidence (high 2, medium 1),
1 if the op type occurs once among the candidates on each side (no choice by order), and, with
the ONNX files, 1 for equal weight shapes and 1 for paired neighbours (through Q/DQ nodes). 3 or
more is ``high``, 2 ``medium``, less ``low``; a contradiction (a ``low`` layer pair, weight
shapes or neighbours that differ) is ``low``. The same name counts 3 in aligned layers, 2
otherwise, and pairs nothing when the aligned layers offer either node another counterpart of its
type (an export that reuses the name for another node).

An operator's time is its share of the layers it maps to (:func:`trex.onnx_map.onnx_mapping`'s
``dominant`` split: a fused layer's time goes to its Conv/Gemm/MatMul, the fused Add/ReLU get
0 ms and are labelled by their layer); unpaired operators have no delta or speedup (NaN, "–").
"""

from __future__ import annotations

import bisect
import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from ..formats.onnx_model import NETWORK_INPUT, OnnxGraph, read_onnx_graph
from ..model.plan import EnginePlan
from .align import _match_details, _merged, get_plans_names
from .sequence import diff, interned, lis

__all__ = ["ONNX_MATCH_KINDS", "compare_onnx_op_types", "compare_onnx_ops", "onnx_graphs"]

ONNX_MATCH_KINDS = ("name", "layer", "order")
_LAYER_POINTS = {"high": 2, "medium": 1}
_NO_KIND = frozenset({"Unknown"})
OnnxSource = str | OnnxGraph | None


@dataclass
class _Ops:
    """One engine's ONNX operators in graph order (first layer, then position in the layer)."""

    names: list[str] = field(default_factory=list)
    ops: list[str] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)
    layer_ms: list[float] = field(default_factory=list)
    layers: list[list[str]] = field(default_factory=list)
    rows: list[list[int]] = field(default_factory=list)  # the df rows of each operator's layers
    by_layer: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    tensorrt_ms: float = math.nan  # layers TensorRT added (reformats): no ONNX operator
    tensorrt_layers: int = 0


def _sums(codes: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Per code, the sum of its values; NaN where none is a number (untimed layers only)."""
    timed = ~np.isnan(values)
    total = np.bincount(codes[timed], weights=values[timed], minlength=n)
    return np.where(np.bincount(codes[timed], minlength=n) > 0, total, np.nan)


def _engine_ops(plan: EnginePlan, graph: OnnxGraph | None) -> _Ops:
    from ..onnx_map import TENSORRT, onnx_mapping

    mapping = onnx_mapping(plan, op_types=graph.op_types if graph is not None else None)
    nodes = mapping["onnx_node"].to_numpy(dtype=object)
    rows = mapping["layer_index"].to_numpy(dtype="int64")
    ms = mapping["latency_ms"].to_numpy(dtype="float64")
    layer_ms = mapping["layer_latency_ms"].to_numpy(dtype="float64")
    out = _Ops()
    ours = nodes != TENSORRT
    out.tensorrt_layers = int((~ours).sum())
    if out.tensorrt_layers:
        out.tensorrt_ms = float(_sums(np.zeros(int((~ours).sum()), dtype="int64"), ms[~ours],
                                      1)[0])
    codes, uniques = pd.factorize(nodes[ours])  # operators in order of first appearance
    keep = np.flatnonzero(ours)
    # a node listed twice in one layer counts once
    _, first = np.unique(codes.astype("int64") * (len(plan.layers) + 1) + rows[keep],
                         return_index=True)
    first.sort()
    codes, keep = codes[first], keep[first]
    n = len(uniques)
    out.names = [str(u) for u in uniques]
    ops = mapping["onnx_op"].to_numpy(dtype=object)
    _, at = np.unique(codes, return_index=True)  # each operator's first row (codes are 0..n-1)
    out.ops = [str(op) for op in ops[keep[at]]]
    out.ms = _sums(codes, ms[keep], n).tolist()
    out.layer_ms = _sums(codes, layer_ms[keep], n).tolist()
    out.layers = [[] for _ in range(n)]
    out.rows = [[] for _ in range(n)]
    layer_names = mapping["layer"].to_numpy(dtype=object)
    for k, i in zip(codes.tolist(), keep.tolist()):
        row = int(rows[i])
        out.layers[k].append(layer_names[i])
        out.rows[k].append(row)
        out.by_layer[row].append(k)
    if graph is not None and out.names and not any(n in graph.op_types for n in out.names):
        raise InputError(graph.path, f"none of the {len(out.names):,} ONNX nodes of engine "
                                     f"{plan.name!r} is in this model (another network?)")
    return out


def onnx_graphs(paths: Sequence[OnnxSource] | None, count: int) -> list[OnnxGraph | None]:
    """One ONNX graph (or None) per engine from paths, graphs or None; ``InputError`` when the
    number differs from the engines' or a file is not an ONNX model."""
    if paths is None:
        return [None] * count
    if len(paths) != count:
        raise InputError(None, f"--onnx needs one ONNX file per engine ({count}; an empty entry "
                               f"skips one), got {len(paths)}")
    return [p if isinstance(p, OnnxGraph) or p is None else read_onnx_graph(p) if p else None
            for p in paths]


def _holds(ops: _Ops, row: int, op: str) -> bool:
    """Does layer ``row`` hold an operator of type ``op``?"""
    return any(ops.ops[k] == op for k in ops.by_layer.get(row, ()))


class _Pairing:
    """The passes pairing the operators of A and B, then each pair's evidence."""

    def __init__(self, a: _Ops, b: _Ops, graphs: tuple[OnnxGraph | None, OnnxGraph | None]):
        self.a, self.b, self.graphs = a, b, graphs
        self.matched: dict[int, int] = {}
        self.taken: set[int] = set()
        self.kind: dict[int, str] = {}
        self.support: dict[int, list[str]] = {}
        self.points: dict[int, int] = {}
        self.contra: dict[int, list[str]] = defaultdict(list)

    def key(self, ops: _Ops, k: int) -> str | None:
        """What pairs an operator: its op type (none for an Unknown one)."""
        return None if ops.ops[k] in _NO_KIND else ops.ops[k]

    def record(self, pairs: list[tuple[int, int]], kind: str, base: int, facts: list[str],
               ka: list[int], kb: list[int]) -> list[int]:
        """Keep the pairs of free operators; their support; the operators of A paired."""
        added = []
        count_a = Counter(self.a.ops[k] for k in ka)
        count_b = Counter(self.b.ops[k] for k in kb)
        for x, y in pairs:
            if x in self.matched or y in self.taken:
                continue
            self.matched[x] = y
            self.taken.add(y)
            self.kind[x] = kind
            unique = count_a[self.a.ops[x]] == 1 and count_b[self.b.ops[y]] == 1
            self.support[x] = [*facts, "unique type" if unique else "type, by order"]
            self.points[x] = base + unique
            added.append(x)
        return added

    def run(self, layer_pairs: dict[int, tuple[int, str]], layer_conf: dict[int, str]) -> None:
        a, b = self.a, self.b
        where_b = {name: k for k, name in enumerate(b.names)}
        paired_b = {j: i for i, (j, _) in layer_pairs.items()}
        for x, name in enumerate(a.names):  # 1. the same name and op type, unless vetoed
            y = where_b.get(name)
            if y is None or a.ops[x] != b.ops[y] or y in self.taken:
                continue
            op, rows_a, rows_b = a.ops[x], set(a.rows[x]), set(b.rows[y])
            # The layer pairing offers another counterpart of this type: a reused name.
            if any(layer_pairs[i][0] not in rows_b and _holds(b, layer_pairs[i][0], op)
                   for i in rows_a if i in layer_pairs) or any(
                    paired_b[j] not in rows_a and _holds(a, paired_b[j], op)
                    for j in rows_b if j in paired_b):
                continue
            aligned = any(layer_pairs[i][0] in rows_b for i in rows_a if i in layer_pairs)
            self.matched[x] = y
            self.taken.add(y)
            self.kind[x] = "name"
            self.support[x] = ["same name", "aligned layers"] if aligned else ["same name"]
            self.points[x] = 3 if aligned else 2
        for i in sorted(layer_pairs):  # 2. inside aligned layers
            j = layer_pairs[i][0]
            ka = [k for k in a.by_layer.get(i, []) if k not in self.matched]
            kb = [k for k in b.by_layer.get(j, []) if k not in self.taken]
            if not ka or not kb:
                continue
            conf = layer_conf[i]
            ia, ib, weight = interned([self.key(a, k) for k in ka], [self.key(b, k) for k in kb])
            pairs = [(ka[x], kb[y]) for x, y in diff(ia, ib, weight)]
            added = self.record(pairs, "layer", _LAYER_POINTS.get(conf, 0),
                                [f"{conf} layer pair"] if conf != "low" else [], ka, kb)
            if conf == "low":
                for x in added:
                    self.contra[x].append("low layer pair")
        self._ordered()
        if all(self.graphs):
            self._graph_evidence()

    def _ordered(self) -> None:
        """3. What is left, between paired operators in graph order, by op type."""
        skeleton = lis(sorted(self.matched.items()))
        cut_a = [x for x, _ in skeleton]
        cut_b = [y for _, y in skeleton]
        seg_a: dict[int, list[int]] = defaultdict(list)
        seg_b: dict[int, list[int]] = defaultdict(list)
        for x in range(len(self.a.names)):
            if x not in self.matched:
                seg_a[bisect.bisect_left(cut_a, x)].append(x)
        for y in range(len(self.b.names)):
            if y not in self.taken:
                seg_b[bisect.bisect_left(cut_b, y)].append(y)
        for seg in sorted(seg_a.keys() & seg_b.keys()):
            ka, kb = seg_a[seg], seg_b[seg]
            ia, ib, weight = interned([self.key(self.a, k) for k in ka],
                                      [self.key(self.b, k) for k in kb])
            pairs = [(ka[x], kb[y]) for x, y in diff(ia, ib, weight)]
            self.record(pairs, "order", 0, ["graph order"], ka, kb)

    def _graph_evidence(self) -> None:
        """With both ONNX files: equal weight shapes and paired neighbours support a pair,
        different ones contradict it."""
        ga, gb = self.graphs
        assert ga is not None and gb is not None
        by_name = {self.a.names[x]: self.b.names[y] for x, y in self.matched.items()}
        by_name[NETWORK_INPUT] = NETWORK_INPUT
        succ_a, succ_b = ga.successors(), gb.successors()
        taken_names = {self.b.names[y] for y in self.taken}
        for x, y in self.matched.items():
            na, nb = self.a.names[x], self.b.names[y]
            wa, wb = ga.weight_shapes.get(na), gb.weight_shapes.get(nb)
            if wa is not None and wb is not None:
                if wa == wb:
                    self.support[x].append("weight shape")
                    self.points[x] += 1
                else:
                    self.contra[x].append("weight shapes differ")
            around_a = [*ga.predecessors.get(na, ()), *succ_a.get(na, ())]
            around_b = set(gb.predecessors.get(nb, ())) | set(succ_b.get(nb, ()))
            mapped = {by_name[n] for n in around_a if n in by_name}
            seen = {n for n in around_b if n == NETWORK_INPUT or n in taken_names}
            if mapped and seen:
                if mapped & seen:
                    self.support[x].append("neighbours")
                    self.points[x] += 1
                else:
                    self.contra[x].append("neighbours differ")

    def confidence(self, x: int) -> str:
        """high (3+ points), medium (2), low (less, or any contradiction)."""
        if self.contra.get(x):
            return "low"
        points = self.points[x]
        return "high" if points >= 3 else "medium" if points == 2 else "low"

    def evidence(self, x: int) -> str:
        """The pair's support, then its contradictions, as words."""
        return ", ".join([*self.support[x], *self.contra.get(x, [])])


def _layer_text(layers: list[str]) -> str:
    return " | ".join(layers)


def _layer_pairs(plans: Sequence[EnginePlan], names: list[str], exact_matching: bool,
                 alignment: pd.DataFrame | None) -> tuple[dict[int, tuple[int, str]],
                                                          dict[int, str]]:
    """The first and last engines' layer pairs and their confidence: from an
    :func:`~trex.compare.align.align_plans` frame of two engines (computed once for every view),
    else aligned here."""
    first, last = names[0], names[-1]
    if alignment is not None and len(plans) == 2 and f"{last} confidence" in alignment:
        both = alignment[first].notna() & alignment[last].notna()
        rows_a = alignment.loc[both, first].astype("int64").tolist()
        rows_b = alignment.loc[both, last].astype("int64").tolist()
        sure = alignment.loc[both, f"{last} confidence"].tolist()
        return ({i: (j, "") for i, j in zip(rows_a, rows_b)}, dict(zip(rows_a, sure)))
    pairs, evidence = _match_details(plans[0], plans[-1], exact_matching)
    return pairs, {i: e.confidence() for i, e in evidence.items()}


def compare_onnx_ops(plans: Sequence[EnginePlan], names: Sequence[str] | None = None,
                     onnx: Sequence[OnnxSource] | None = None, exact_matching: bool = True,
                     alignment: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per ONNX operator of the first or the last engine, in graph order: ``op`` (its
    type), ``match`` (name, layer, order; only-in-A/only-in-B), ``confidence``, per engine the
    node, its ms (its share of its layers' time) and its layers, ``delta ms`` (last - first) and
    ``speedup`` (first / last) of a pair (NaN otherwise) and ``evidence``. ``onnx``: one ONNX
    file (or :class:`~trex.formats.onnx_model.OnnxGraph`, or None) per engine, for op types,
    weight shapes and neighbours. ``attrs["tensorrt_ms"]``: each side's time in layers TensorRT
    added (no ONNX operator). ``alignment``: the engines' :func:`~trex.compare.align.align_plans`
    frame, if already computed."""
    if len(plans) < 2:
        raise ValueError("comparing ONNX operators needs two engines")
    names = list(names) if names is not None else get_plans_names(plans)
    graphs = onnx_graphs(onnx, len(plans))
    first, last = names[0], names[-1]
    a, b = _engine_ops(plans[0], graphs[0]), _engine_ops(plans[-1], graphs[-1])
    pairing = _Pairing(a, b, (graphs[0], graphs[-1]))
    pairing.run(*_layer_pairs(plans, names, exact_matching, alignment))
    kinds = {x: (y, pairing.kind[x]) for x, y in pairing.matched.items()}
    rows = _merged(kinds, len(a.names), len(b.names))
    nan = math.nan
    data: dict[str, list[Any]] = defaultdict(list)
    for x, y, kind in rows:
        data["op"].append(a.ops[x] if x is not None else b.ops[y] if y is not None else "")
        data["match"].append(kind.replace("only-in-A", f"only-in-{first}")
                             .replace("only-in-B", f"only-in-{last}"))
        data["confidence"].append(pairing.confidence(x) if x is not None and y is not None else "")
        for side, ops, k in ((first, a, x), (last, b, y)):
            data[f"{side} node"].append(ops.names[k] if k is not None else "")
            data[f"{side} ms"].append(ops.ms[k] if k is not None else nan)
        ms_a = a.ms[x] if x is not None and y is not None else nan
        ms_b = b.ms[y] if x is not None and y is not None else nan
        data["delta ms"].append(ms_b - ms_a)
        data["speedup"].append(ms_a / ms_b if ms_b and not math.isnan(ms_b) else nan)
        for side, ops, k in ((first, a, x), (last, b, y)):
            data[f"{side} layer ms"].append(ops.layer_ms[k] if k is not None else nan)
            data[f"{side} layer"].append(_layer_text(ops.layers[k]) if k is not None else "")
        data["evidence"].append(pairing.evidence(x) if x is not None and y is not None else "")
    columns = ["op", "match", "confidence", f"{first} node", f"{first} ms", f"{last} node",
               f"{last} ms", "delta ms", "speedup", f"{first} layer ms", f"{last} layer ms",
               f"{first} layer", f"{last} layer", "evidence"]
    out = pd.DataFrame({c: data[c] for c in columns}, columns=columns)
    for c in (f"{first} ms", f"{last} ms", "delta ms", "speedup", f"{first} layer ms",
              f"{last} layer ms"):
        out[c] = out[c].astype("float64")
    out.attrs["engines"] = (first, last)
    out.attrs["tensorrt_ms"] = (a.tensorrt_ms, b.tensorrt_ms)
    out.attrs["tensorrt_layers"] = (a.tensorrt_layers, b.tensorrt_layers)
    out.attrs["onnx_files"] = [g.path if g is not None else None for g in (graphs[0], graphs[-1])]
    return out


def compare_onnx_op_types(plans: Sequence[EnginePlan], names: Sequence[str] | None = None,
                          onnx: Sequence[OnnxSource] | None = None, exact_matching: bool = True,
                          ops: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per ONNX op type (of the first and last engine): operators in each, paired ones, summed
    ms in each and ``speedup`` (first / last); ``(TensorRT)`` holds the layers TensorRT added
    (reformats; its ``ops`` count those layers).
    ``ops``: :func:`compare_onnx_ops`' frame, if already computed."""
    if ops is None:
        ops = compare_onnx_ops(plans, names, onnx, exact_matching)
    from ..onnx_map import TENSORRT

    first, last = ops.attrs["engines"]
    has_a, has_b = ops[f"{first} node"] != "", ops[f"{last} node"] != ""
    keys = list(dict.fromkeys(ops["op"].tolist()))
    grouped = {
        f"{first} ops": ops[has_a].groupby("op").size(),
        f"{last} ops": ops[has_b].groupby("op").size(),
        "pairs": ops[has_a & has_b].groupby("op").size(),
    }
    out = pd.DataFrame({"op": keys})
    for col, series in grouped.items():
        out[col] = series.reindex(keys).fillna(0).to_numpy(dtype="int64")
    for side, has in ((first, has_a), (last, has_b)):
        out[f"{side} ms"] = ops[has].groupby("op")[f"{side} ms"].sum(min_count=1) \
            .reindex(keys).to_numpy(dtype="float64")
    t_a, t_b = ops.attrs["tensorrt_ms"]
    n_a, n_b = ops.attrs.get("tensorrt_layers", (0, 0))
    if n_a or n_b:
        out.loc[len(out)] = [TENSORRT, n_a, n_b, 0, t_a, t_b]
    ms_b = out[f"{last} ms"].to_numpy(dtype="float64")
    with np.errstate(divide="ignore", invalid="ignore"):
        out["speedup"] = np.where(ms_b > 0, out[f"{first} ms"].to_numpy(dtype="float64") / ms_b,
                                  np.nan)
    return out.sort_values([f"{first} ms", f"{last} ms"], ascending=False, na_position="last",
                           kind="stable", ignore_index=True)
