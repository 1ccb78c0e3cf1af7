"""Which layout draws a graph: Graphviz ``dot`` where it is fast, trex's own layered layout elsewhere.

``dot`` places every edge that spans several ranks as a chain of virtual nodes and reorders each
rank many times to remove crossings, so its time grows with the long edges crossing each rank,
not with the node count alone. Measured with graphviz 2.43 on this 2-core machine (CPU seconds
of ``dot -Tsvg``, ``bench/dot_cost.py``; V and E as drawn, virtual = sum of (layers spanned - 1)
over edges, crossing = the most long edges passing one layer, from trex's longest-path layers):

    graph                                V     E   virtual  crossing  auto      dot s
    transformer 10 blocks, mask bus     122   150     160       2     dot        0.02
    transformer 50 blocks, mask bus     602   750     840       2     dot        0.16
    transformer 75 blocks, mask bus     902  1125    1265       2     dot        0.45
    transformer 100 blocks, mask bus   1202  1500    1690       2     own        0.99
    transformer 130 blocks, mask bus   1562  1950    2200       2     own        1.97
    transformer 50 blocks, 3 buses      704   950    1820       4     dot        0.59
    transformer 100 blocks, 3 buses    1404  1900    3670       4     own        3.75
    transformer 15 blocks, no bus       167   210    1260      15     dot        0.14
    transformer 20 blocks, no bus       222   280    2230      20     own        1.10
    transformer 25 blocks, no bus       277   350    3475      25     own        7.74
    transformer 30 blocks, no bus       332   420    4995      30     own       62.25
    mobilenet-qat x8                    658   737     240       1     dot        0.13
    mobilenet-qat x16                  1314  1473     480       1     dot        0.41
    mobilenet-qat x20                  1642  1841     600       1     dot        0.70
    mobilenet-qat x8, edge labels       658   737     240       1     dot        0.28
    500 parallel heads (fan-out/in)     503  1001       0       0     dot        0.11

Wide fan-outs are cheap while their edges are short; long edges crossing many ranks are not (the
issue saw 50 blocks 0.3 s, 100 blocks 27 s, 200 blocks > 10 min before hubs were drawn as buses).
So ``dot`` is chosen when nodes + labelled edges + virtual nodes / 2 <= ``DOT_MAX_COST`` (about a
second) and at most ``DOT_MAX_CROSSING`` long edges pass any layer. It runs under a time budget;
when the budget is exceeded the own layout draws instead. A hub's edges are drawn as a bus
(:mod:`trex.graph.structure`), so a mask feeding every block costs one short chain.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..safety import MAX_TIMEOUT_SECONDS

DOT_MAX_COST = 2000
DOT_MAX_CROSSING = 16
DOT_BUDGET_SECONDS = 20.0  # auto layout: dot's time before the own layout takes over
METHODS = ("auto", "dot", "layered")  # "layered": trex's own layout
METHOD_ALIASES = {"own": "layered"}


@dataclass(frozen=True)
class DotCost:
    """What a drawing costs Graphviz ``dot`` (the graph as drawn: hub edges on their buses)."""

    nodes: int
    edges: int
    labelled_edges: int
    virtual: int  # virtual nodes: sum over edges of (layers spanned - 1)
    crossing: int  # the most long edges passing one layer
    max_fan_out: int
    max_fan_in: int

    @property
    def total(self) -> int:
        """Nodes, labelled edges (each costs about a node) and half the virtual nodes."""
        return self.nodes + self.labelled_edges + self.virtual // 2

    @property
    def dot_is_fast(self) -> bool:
        """True when ``dot`` lays this graph out in about a second (module docstring)."""
        return self.total <= DOT_MAX_COST and self.crossing <= DOT_MAX_CROSSING

    def describe(self) -> str:
        """One line for notes: the figures the choice was made on."""
        return (f"{self.nodes} nodes, {self.edges} edges, {self.virtual} virtual nodes, "
                f"{self.crossing} long edges across one layer")


def dot_cost(graph: Any) -> DotCost:
    """The :class:`DotCost` of a :class:`~trex.graph.dot.DotGraph`, in linear time."""
    # A scene's own structure (cached) honours its bundle_hubs; other graphs are not bundled.
    structure = graph.structure if hasattr(graph, "bundle_hubs") else _unbundled(graph)
    return structure_cost(structure, [bool(edge.label) for edge in graph.edges])


def structure_cost(structure: Any, labelled_edges: list[bool]) -> DotCost:
    """The :class:`DotCost` of a drawing's :class:`~trex.graph.structure.GraphStructure`;
    ``labelled_edges``: per edge, whether it has a label."""
    layers = structure.layers
    nlayers = (max(layers) + 2) if layers else 1
    spans: list[tuple[int, int]] = []  # the (upper, lower) layers of every drawn edge
    bussed = structure.bus_of_edge()
    taps = 0
    for bus in structure.buses:
        outgoing = bus.direction != "in"
        hub = layers[bus.node]
        others = sorted({layers[structure.ends[i][1] if outgoing else structure.ends[i][0]]
                         for i in bus.edges})
        tap_layers = [o - 1 for o in others] if outgoing else [o + 1 for o in others]
        taps += len(tap_layers)
        chain = [hub, *tap_layers] if outgoing else [*tap_layers, hub]
        spans.extend(zip(chain, chain[1:]))
        spans.extend((t, t + 1) if outgoing else (t - 1, t) for t in tap_layers)
    n, m = len(layers), len(structure.ends)
    ends = np.asarray(structure.ends, dtype=np.int64).reshape(m, 2)
    real = ends[:, 0] != ends[:, 1]
    labelled = int(np.count_nonzero(np.asarray(labelled_edges, dtype=bool)[:m] & real))
    drawn = real.copy()
    drawn[list(bussed)] = False
    src, dst = ends[drawn, 0], ends[drawn, 1]
    fan_out, fan_in = np.bincount(src, minlength=n), np.bincount(dst, minlength=n)
    layer_of = np.asarray(layers, dtype=np.int64)
    above, below = layer_of[src], layer_of[dst]
    bus_spans = np.asarray(spans, dtype=np.int64).reshape(len(spans), 2)
    upper = np.concatenate((bus_spans[:, 0], np.minimum(above, below)))
    lower = np.concatenate((bus_spans[:, 1], np.maximum(above, below)))
    long = lower - upper > 1
    virtual = int((lower[long] - upper[long] - 1).sum())
    delta = np.bincount(upper[long] + 1, minlength=nlayers + 1) - \
        np.bincount(lower[long], minlength=nlayers + 1)
    crossing = max(0, int(np.cumsum(delta).max())) if len(delta) else 0
    drawn_edges = len(structure.ends) + taps
    return DotCost(len(layers) + taps, drawn_edges, labelled, virtual, crossing,
                   int(fan_out.max()) if n else 0, int(fan_in.max()) if n else 0)


def _unbundled(graph: Any) -> Any:
    from .structure import structure_of

    return structure_of(graph, bundle_hubs=False)


def choose_layout(cost: DotCost | int, output_format: str = "svg", method: str = "auto",
                  dot_available: bool = True) -> str:
    """``dot``, ``layered`` (the own layout) or ``source`` (DOT text) for a drawing of ``cost``.

    ``auto`` picks ``dot`` when :attr:`DotCost.dot_is_fast` (an int: a node count, the rule
    before edges were counted) and Graphviz is installed, and always for PNG (the own layout
    writes SVG only). ``own`` is another name for ``layered``."""
    if output_format == "dot":
        return "source"
    method = METHOD_ALIASES.get(method, method)
    if method not in METHODS:
        raise ValueError(f"layout must be one of auto, dot, own, not {method!r}")
    if method != "auto":
        return method
    if output_format == "png":
        return "dot"
    fast = cost.dot_is_fast if isinstance(cost, DotCost) else cost <= DOT_MAX_COST
    return "dot" if fast and dot_available else "layered"


def check_timeout(value: Any, name: str = "timeout") -> float | None:
    """A time budget in seconds: a positive finite number, or None for no limit."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number of seconds, not {value!r}") from None
    if not math.isfinite(seconds) or seconds <= 0 or seconds > MAX_TIMEOUT_SECONDS:
        raise ValueError(f"{name} must be a positive number of seconds up to "
                         f"{MAX_TIMEOUT_SECONDS:,}, not {value!r}")
    return seconds
