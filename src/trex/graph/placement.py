"""Node positions for interactive drawings (the HTML report's graph), by the same rule as ``trex draw``.

:func:`place_graph` asks :mod:`trex.graph.cost` which layout to use. With ``dot`` it sends Graphviz
a layout-only graph (boxes of trex's node sizes, no labels, the same hub buses and back-edges)
and reads the positions back from ``-Tjson0``, within the time budget; else, or when the budget
runs out, it uses the own layered layout. Either way the result is a :class:`Layout`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from .cost import DOT_BUDGET_SECONDS, DotCost, choose_layout, dot_cost
from .layout import LAYER_GAP, NODE_GAP, Layout, Point, layered_layout
from .render import GraphvizError, GraphvizTimeout, dot_executable, run_graphviz

POINTS_PER_INCH = 72.0


def place_graph(graph: Any, sizes: list[tuple[float, float]], method: str = "auto",
                timeout: float | None = None, cost: DotCost | None = None
                ) -> tuple[Layout, str, str]:
    """Lay out a :class:`~trex.graph.dot.DotGraph` with nodes of ``sizes``; return the layout,
    the method used (``dot`` or ``layered``) and a note (empty unless dot ran out of time).
    ``cost``: the graph's :func:`dot_cost`, when the caller has it already."""
    return start_placement(graph, sizes, method, timeout, cost, background=False)()


def start_placement(graph: Any, sizes: list[tuple[float, float]], method: str = "auto",
                    timeout: float | None = None, cost: DotCost | None = None,
                    background: bool = True) -> Callable[[], tuple[Layout, str, str]]:
    """:func:`place_graph` in two halves: Graphviz (when chosen) starts now and runs beside the
    caller's other work (its own process, in a thread that only waits); the returned function
    waits for it and gives what :func:`place_graph` gives. ``background`` False: Graphviz runs
    when the function is called."""
    structure = graph.structure
    chosen = choose_layout(cost or dot_cost(graph), "svg", method, dot_executable() is not None)
    if chosen != "dot":
        return lambda: (_layered(structure, sizes), "layered", "")
    budget = timeout or DOT_BUDGET_SECONDS
    source = layout_source(graph, sizes)
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["text"] = run_graphviz(source, "json0", timeout=budget,
                                           started=lambda proc: outcome.setdefault("proc", proc))
        except BaseException as exc:  # handed to the caller when it asks for the layout
            outcome["error"] = exc

    worker = threading.Thread(target=run, name="trex-graphviz", daemon=True)
    if background:
        worker.start()

    def finish() -> tuple[Layout, str, str]:
        if not background:
            run()
        else:
            try:
                worker.join()
            except BaseException:  # Ctrl-C while waiting: Graphviz goes too
                if "proc" in outcome:
                    outcome["proc"].kill()
                raise
        error = outcome.get("error")
        note = ""
        if error is None:
            return _dot_positions(structure, sizes, outcome["text"]), "dot", ""
        if isinstance(error, GraphvizTimeout):
            if method != "auto":
                raise error
            note = (f"Graphviz dot took more than {budget:g} s; the graph is laid out by "
                    "trex's own layout instead")
        elif isinstance(error, GraphvizError):
            if method != "auto":
                raise error
        else:
            raise error
        return _layered(structure, sizes), "layered", note

    return finish


def _layered(structure: Any, sizes: list[tuple[float, float]]) -> Layout:
    return layered_layout([w for w, _ in sizes], [h for _, h in sizes], structure.ends,
                          structure.buses, structure.back, structure.layering)


def layout_source(graph: Any, sizes: list[tuple[float, float]]) -> str:
    """A DOT graph of fixed-size boxes ``n<i>``, bus taps ``b<bus>_<k>`` and edges with ids:
    ``e<i>`` (a graph edge, or its branch off a bus) and ``c<bus>_<k>`` (a bus segment)."""
    structure = graph.structure
    lines = [f"digraph {{ graph [ranksep={LAYER_GAP / POINTS_PER_INCH:.3f} "
             f"nodesep={NODE_GAP / POINTS_PER_INCH:.3f}] "
             'node [shape=box fixedsize=true label=""]']
    for i, (w, h) in enumerate(sizes):
        lines.append(f"n{i} [width={w / POINTS_PER_INCH:.4f} height={h / POINTS_PER_INCH:.4f}]")
    ends = list(structure.ends)
    layers = structure.layers
    for b, bus in enumerate(structure.buses):
        outgoing = bus.direction != "in"
        by_layer: dict[int, list[int]] = {}
        for i in bus.edges:
            by_layer.setdefault(layers[ends[i][1] if outgoing else ends[i][0]], []).append(i)
        taps = [f"b{b}_{k}" for k in range(len(by_layer))]
        lines.extend(f"{tap} [shape=point width=0.05 height=0.05]" for tap in taps)
        for k, other_layer in enumerate(sorted(by_layer)):
            for i in by_layer[other_layer]:
                s, t = ends[i]
                lines.append(f"{taps[k]} -> n{t} [id=e{i}]" if outgoing
                             else f"n{s} -> {taps[k]} [id=e{i}]")
                ends[i] = (-1, -1)
        path = [f"n{bus.node}", *taps] if outgoing else [*taps, f"n{bus.node}"]
        lines.extend(f"{a} -> {z} [id=c{b}_{k}]" for k, (a, z) in enumerate(zip(path, path[1:])))
    back = set(structure.back)
    for i, (s, t) in enumerate(ends):
        if s >= 0 and s != t:
            extra = " constraint=false" if i in back else ""
            lines.append(f"n{s} -> n{t} [id=e{i}{extra}]")
    return "\n".join(lines) + "\n}\n"


def dot_layout(graph: Any, sizes: list[tuple[float, float]], timeout: float | None = None
               ) -> Layout:
    """Graphviz's positions for the graph as a :class:`Layout` (y down, in trex's units)."""
    text = run_graphviz(layout_source(graph, sizes), "json0", timeout=timeout)
    return _dot_positions(graph.structure, sizes, text)


def _dot_positions(structure: Any, sizes: list[tuple[float, float]], text: bytes) -> Layout:
    """The :class:`Layout` in Graphviz's ``json0`` output of :func:`layout_source`'s graph."""
    data = json.loads(text)
    _, _, width, height = (float(v) for v in data["bb"].split(","))
    n = len(sizes)
    x, y = [0.0] * n, [0.0] * n
    for obj in data.get("objects", []):
        name = obj.get("name", "")
        if name.startswith("n") and name[1:].isdigit():
            px, py = (float(v) for v in obj["pos"].split(","))
            x[int(name[1:])], y[int(name[1:])] = px, height - py
    splines: dict[str, list[Point]] = {}
    for edge in data.get("edges", []):
        if "id" in edge and "pos" in edge:
            splines[edge["id"]] = _polyline(edge["pos"], height)
    routes = [[] if s == t else splines.get(f"e{i}", [(x[s], y[s]), (x[t], y[t])])
              for i, (s, t) in enumerate(structure.ends)]
    buses = []
    for b in range(len(structure.buses)):
        points: list[Point] = []
        k = 0
        while f"c{b}_{k}" in splines:
            segment = splines[f"c{b}_{k}"]
            points.extend(segment[1:] if points else segment)
            k += 1
        buses.append(points)
    return Layout(x, y, width, height, routes, list(structure.layers), 0, buses)


def _polyline(pos: str, height: float) -> list[Point]:
    """A Graphviz spline (``[e,x,y] [s,x,y] p0 p1 p2 p3 ...``, cubic Bézier control points) as
    points along the curve (each segment's middle and end), ending at the arrow's tip."""
    start = end = None
    control: list[Point] = []
    for token in pos.split():
        parts = token.split(",")
        if parts[0] in ("e", "s"):
            point = (float(parts[1]), height - float(parts[2]))
            if parts[0] == "e":
                end = point
            else:
                start = point
        else:
            control.append((float(parts[0]), height - float(parts[1])))
    if not control:
        return []
    points = [start] if start else []
    points.append(control[0])
    for k in range(1, len(control) - 2, 3):
        p0, p1, p2, p3 = control[k - 1], control[k], control[k + 1], control[k + 2]
        mid = ((p0[0] + 3 * p1[0] + 3 * p2[0] + p3[0]) / 8,
               (p0[1] + 3 * p1[1] + 3 * p2[1] + p3[1]) / 8)
        points.extend([mid, p3])
    if end:
        points.append(end)
    return points
