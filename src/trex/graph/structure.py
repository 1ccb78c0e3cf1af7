"""A drawing's structure, computed once in linear time: edge ends, layers, back-edges and hubs.

Both layouts and the layout choice read it. A *hub* is a node whose one tensor feeds many layers
spread over the graph (an attention mask, position ids, a rotary table), or a node that many far
layers feed: its edges are drawn as one bus with a short branch per layer (see
:mod:`trex.graph.layout`), which keeps the picture readable and Graphviz fast.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .layout import Bus, topological_layers

HUB_MIN_EDGES = 8  # a hub has at least this many edges of one tensor (fan-out) or into it (fan-in)
HUB_MIN_LAYERS = 3  # ... reaching at least this many layers of the drawing (a bus needs length)


@dataclass
class GraphStructure:
    """Node indices, edge ends, longest-path layers, loop back-edges and hub buses of a drawing."""

    index: dict[str, int]
    ends: list[tuple[int, int]]
    layers: list[int]
    forward: list[bool]
    back: list[int]
    buses: list[Bus]

    @property
    def layering(self) -> tuple[list[int], list[bool]]:
        return self.layers, self.forward

    def bus_of_edge(self) -> dict[int, int]:
        """Edge index -> index of the bus it is drawn on."""
        return {i: b for b, bus in enumerate(self.buses) for i in bus.edges}


def find_buses(ends: list[tuple[int, int]], keys: list[Any], layers: list[int],
               forward: list[bool]) -> list[Bus]:
    """Hubs among forward edges with a key (the tensor; None: never bundled), fan-out first."""
    m = len(ends)
    ends_at = np.asarray(ends, dtype=np.int64).reshape(m, 2)
    keyed = np.asarray([key is not None for key in keys], dtype=bool)[:m] & \
        np.asarray(forward, dtype=bool)[:m]
    n = int(ends_at.max()) + 1 if m else 0
    # only nodes with enough keyed edges can be hubs: the other edges are not grouped
    busy = np.bincount(ends_at[keyed, 0], minlength=n) >= HUB_MIN_EDGES
    out_groups: dict[tuple[int, Any], list[int]] = {}
    for i in np.flatnonzero(keyed & busy[ends_at[:, 0]]).tolist():
        out_groups.setdefault((ends[i][0], keys[i]), []).append(i)
    buses: list[Bus] = []
    bundled: set[int] = set()
    for (node, _), members in out_groups.items():
        if _is_hub(members, [layers[ends[i][1]] for i in members]):
            buses.append(Bus(node, members, "out"))
            bundled.update(members)
    candidates = keyed.copy()
    candidates[list(bundled)] = False
    busy = np.bincount(ends_at[candidates, 1], minlength=n) >= HUB_MIN_EDGES
    in_groups: dict[int, list[int]] = {}
    for i in np.flatnonzero(candidates & busy[ends_at[:, 1]]).tolist():
        in_groups.setdefault(ends[i][1], []).append(i)
    for node, members in in_groups.items():
        if _is_hub(members, [layers[ends[i][0]] for i in members]):
            buses.append(Bus(node, members, "in"))
    return buses


def _is_hub(members: list[int], other_layers: list[int]) -> bool:
    return len(members) >= HUB_MIN_EDGES and len(set(other_layers)) >= HUB_MIN_LAYERS


def structure_of(graph: Any, bundle_hubs: bool = True) -> GraphStructure:
    """The structure of a :class:`~trex.graph.dot.DotGraph` (its ``nodes`` and ``edges``)."""
    index = {node.id: i for i, node in enumerate(graph.nodes)}
    ends = [(index[e.src], index[e.dst]) for e in graph.edges]
    back = [i for i, e in enumerate(graph.edges) if getattr(e, "back", False)]
    keys = [e.tensor.name if e.kind == "data" and e.tensor is not None and not e.back else None
            for e in graph.edges] if bundle_hubs else []
    return structure_of_edges(len(index), ends, back, keys, bundle_hubs, index)


def structure_of_edges(n: int, ends: list[tuple[int, int]], back: list[int], keys: list[Any],
                       bundle_hubs: bool = True, index: dict[str, int] | None = None
                       ) -> GraphStructure:
    """The structure of ``n`` nodes and edges ``ends`` (``back``: a loop's back-edges; ``keys``:
    each edge's tensor name, None for edges never bundled); ``index``: node id -> node."""
    layers, forward = topological_layers(n, ends, back)
    buses = find_buses(ends, keys, layers, forward) if bundle_hubs else []
    return GraphStructure(index if index is not None else {}, ends, layers, forward, back, buses)
