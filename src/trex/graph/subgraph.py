"""Subgraphs of big engines: ``beam`` (a neighbourhood) and ``query`` (a layer query's matches).

Both work on the plan model (layers and their tensors) and return a :class:`SubPlan`, which every
drawing function accepts like a whole plan; tensors cut by the selection become its inputs and
outputs, and the centre or the matches are highlighted.
"""

from __future__ import annotations

import difflib
import re
from collections import deque

from ..errors import TrexError
from ..model.layer import Layer
from ..model.layer_graph import LayerGraph
from ..model.protocol import PlanLike
from ..model.query import QueryError, select_layers
from .regions import binding_checker


class GraphQueryError(TrexError, LookupError):
    """A beam centre or query that does not name anything in the plan."""


class SubPlan(LayerGraph):
    """A selection of a plan's layers that draws like a plan (the same graph structure)."""

    def __init__(self, plan: PlanLike, names: set[str], highlighted: set[str], title: str):
        self.parent = plan
        self.name = title
        self.detailed = getattr(plan, "detailed", True)
        self.highlighted = set(highlighted)
        constant_of = {c.outputs[0].name: c.name for c in plan.constants if c.outputs}
        selected = set(names)
        for layer in plan.all_layers:  # the Constants feeding the selection come with it
            if layer.name in names:
                selected.update(constant_of[t.name] for t in layer.inputs if t.name in constant_of)
        chosen = [layer for layer in plan.all_layers if layer.name in selected]
        self._set_layers(chosen, _boundary(plan, chosen, set(constant_of)))
        df = plan.df
        self.df = df[df["Name"].isin({layer.name for layer in self.layers})] if len(df) else df

    def __len__(self) -> int:
        return len(self.layers)

    def __repr__(self) -> str:
        return f"SubPlan({self.name!r}, layers={len(self.layers)})"


def _boundary(plan: PlanLike, layers: list[Layer], constants: set[str]) -> list[str]:
    """The plan's bindings inside the selection plus every tensor the selection cuts."""
    inside = {layer.name for layer in layers}
    produced_inside = {t.name for layer in layers for t in layer.outputs}
    consumed_outside: set[str] = set()
    for layer in plan.all_layers:
        if layer.name not in inside:
            consumed_outside.update(t.name for t in layer.inputs)
    is_binding = binding_checker(plan)
    result: dict[str, None] = {}
    for layer in layers:
        for t in layer.inputs:
            if is_binding(t.name) or (t.name not in produced_inside and t.name not in constants):
                result[t.name] = None
        for t in layer.outputs:
            if is_binding(t.name) or t.name in consumed_outside:
                result[t.name] = None
    return list(result)


def _adjacency(plan: PlanLike) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Successors and predecessors of each layer through tensors (execution order if none)."""
    layers = plan.all_layers
    succ: dict[str, list[str]] = {layer.name: [] for layer in layers}
    pred: dict[str, list[str]] = {layer.name: [] for layer in layers}
    if not getattr(plan, "detailed", True) or not any(layer.inputs or layer.outputs
                                                       for layer in layers):
        for a, b in zip(layers, layers[1:]):
            succ[a.name].append(b.name)
            pred[b.name].append(a.name)
        return succ, pred
    writers: dict[str, list[str]] = {}
    for layer in layers:
        for t in layer.outputs:
            writers.setdefault(t.name, []).append(layer.name)
    for layer in layers:
        for t in layer.inputs:
            for w in writers.get(t.name, ()):
                if w != layer.name:
                    succ[w].append(layer.name)
                    pred[layer.name].append(w)
    return succ, pred


def _reach(start: str, adj: dict[str, list[str]], radius: int) -> set[str]:
    seen = {start}
    frontier = deque([(start, 0)])
    while frontier:
        name, dist = frontier.popleft()
        if dist == radius:
            continue
        for nxt in adj.get(name, ()):
            if nxt not in seen:
                seen.add(nxt)
                frontier.append((nxt, dist + 1))
    return seen


def resolve_layer(plan: PlanLike, layer: str | int | Layer) -> str:
    """A layer name from a name, a unique name fragment, a ``plan.df`` index or a Layer."""
    if isinstance(layer, Layer):
        return layer.name
    names = [x.name for x in plan.all_layers]
    if isinstance(layer, int):
        df_names = plan.df["Name"].tolist()
        if not -len(df_names) <= layer < len(df_names):
            raise GraphQueryError(f"layer index {layer} is out of range (0..{len(df_names) - 1})")
        return df_names[layer]
    if layer in set(names):
        return layer
    # One of the fused parts of a name ("a + b"), or one of its ONNX metadata names.
    parts = [x.name for x in plan.all_layers
             if layer in (p.strip() for p in x.name.split("+"))
             or layer in x.onnx_nodes]
    if len(parts) == 1:
        return parts[0]
    partial = parts or [n for n in names if layer in n]
    if len(partial) == 1:
        return partial[0]
    if partial:
        sample = ", ".join(repr(n) for n in partial[:3])
        raise GraphQueryError(f"{len(partial)} layers contain {layer!r} (e.g. {sample}); "
                              "give the full name")
    close = difflib.get_close_matches(layer, names, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(repr(n) for n in close)}?" if close else ""
    raise GraphQueryError(f"no layer named {layer!r}{hint}")


def beam(plan: PlanLike, layer: str | int | Layer, radius: int = 1) -> SubPlan:
    """The layers within ``radius`` hops downstream or upstream of ``layer``, centre highlighted."""
    if radius < 0:
        raise GraphQueryError(f"beam radius must be >= 0, not {radius}")
    center = resolve_layer(plan, layer)
    succ, pred = _adjacency(plan)
    names = _reach(center, succ, radius) | _reach(center, pred, radius)
    return SubPlan(plan, names, {center}, f"{plan.name} beam {center} r={radius}")


def query(plan: PlanLike, pattern: str | re.Pattern, radius: int = 1) -> SubPlan:
    """Layers that match the query ``pattern`` (:mod:`trex.model.query`: ``type:Reformat``,
    ``precision:FP32``, ``name:~regex`` and plain words, all of which must match; a compiled
    regex is searched like a plain word), highlighted, plus their neighbours within ``radius``
    hops (TREx's ``--query`` uses 1)."""
    try:
        matches = {layer.name for layer in select_layers(plan.all_layers, pattern)}
    except QueryError as exc:
        raise GraphQueryError(str(exc)) from None
    names = set(matches)
    if radius > 0 and matches:
        succ, pred = _adjacency(plan)
        for name in matches:
            names |= _reach(name, succ, radius) | _reach(name, pred, radius)
    text = pattern.pattern if isinstance(pattern, re.Pattern) else pattern
    return SubPlan(plan, names, matches, f"{plan.name} query {text}")
