"""The engine graph of a report: trex's DotGraph nodes and edges, placed as ``trex draw`` places them.

Nodes keep the label rows, sizes and colours of ``trex draw`` (type, precision and latency fills
from :mod:`trex.graph.formatters`); the page draws only what is in view, so the payload holds
positions, not SVG. Colours pass :func:`trex.graph.svg.svg_color`'s whitelist.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..graph import DotGraph
from ..graph.colors import UNKNOWN_KEY_COLOR, key_color, latency_color, precision_colormap, text_color
from ..graph.cost import structure_cost
from ..graph.formatters import (
    layer_type_color,
    plan_latencies,
    region_precision_formatter,
    type_color,
)
from ..graph.placement import start_placement
from ..graph.render import dot_executable
from ..graph.scene import stream_border
from ..graph.svg import fit_row, node_size, svg_color
from ..graph.table_scene import table_scene
from ..model.layer import Layer
from ..model.plan import EnginePlan
from ..model.protocol import PlanLike
from ..model.tensors import Activation
from ..perf import beside, gc_paused
from .columns import Interner

KINDS = ("layer", "region", "constant", "sync")


class _Palette:
    """Distinct colours, referenced by index (a 10,000-node graph uses a few dozen)."""

    def __init__(self) -> None:
        self.colors: list[str] = []
        self.index: dict[str, int] = {}
        self.memo: dict[tuple[Any, str], int] = {}

    def __call__(self, color: Any, default: str) -> int:
        key = (color, default)
        found = self.memo.get(key)
        if found is None:
            value = svg_color(color, default)
            found = self.index.get(value)
            if found is None:
                found = self.index[value] = len(self.colors)
                self.colors.append(value)
            self.memo[key] = found
        return found


def _fill_formatter(layer: Layer) -> dict[str, str]:
    """``layer_type_formatter`` without the tooltip (the page shows the layer's details instead)."""
    return {"shape": "Mrecord", "style": "filled", "fillcolor": layer_type_color(layer),
            "color": "lightgray", "fontname": "Helvetica"}


def _no_label(*_args: Any, **_kwargs: Any) -> str:
    """The page draws the label rows itself: no DOT label is needed."""
    return ""


def _pen(value: Any) -> float:
    try:
        return max(0.5, min(6.0, float(value)))
    except (TypeError, ValueError):
        return 1.0


def _routes(layout: Any, sizes: list[tuple[float, float]], ends: list[tuple[int, int]]
            ) -> tuple[list[list[float]], list[int]]:
    """Edge routes as flat point lists without the two end points where they are the default
    ports (bottom centre of the source, top centre of the target), and the edges whose route is
    written whole (other ports, self loops)."""
    x, y = layout.x, layout.y
    routes, full = [], []
    for j, (route, (s, t)) in enumerate(zip(layout.routes, ends)):
        if (len(route) >= 2 and abs(route[0][0] - x[s]) < 0.05 and abs(route[-1][0] - x[t]) < 0.05
                and abs(route[0][1] - (y[s] + sizes[s][1] / 2)) < 0.05
                and abs(route[-1][1] - (y[t] - sizes[t][1] / 2)) < 0.05):
            route = route[1:-1]
        else:
            full.append(j)
        routes.append([round(v, 1) for point in route for v in point])
    return routes, full


def _legend(counts: Counter[tuple[str, int]]) -> list[list[Any]]:
    """``[label, palette index, layers]`` per fill the layers are drawn with, most layers first."""
    return [[label, color, n] for (label, color), n in
            sorted(counts.items(), key=lambda item: (-item[1], item[0][0]))]


@dataclass
class _Drawn:
    """What the payload reads of a drawing, per node and per edge (from either builder)."""

    graph: Any  # has ``structure`` (for the layout)
    kinds: list[str]
    rows: list[list[Any]]  # label rows
    df_rows: list[int]  # the node's row of plan.df, -1 for others
    types: list[Any]  # the layer type of a "layer" node (filled by type), else None
    precisions: list[Any]
    fills: list[Any]  # fill colour (a layer's type colour; a region's when filled, else white)
    strokes: list[Any]
    pens: list[Any]
    names: list[str]
    tensors: list[Activation | None]
    edge_colors: list[Any]
    edge_dashed: list[bool]
    dropped_edges: int
    labelled: list[bool]


def _from_scene(plan: PlanLike) -> _Drawn:
    """The drawing as :class:`~trex.graph.dot.DotGraph` makes it (any plan-like object)."""
    graph = DotGraph(plan, _fill_formatter, layer_node_renderer=_no_label,
                     display_edge_details=False)
    rows_of = {id(layer): i for i, layer in enumerate(plan.layers)}
    drawn = _Drawn(graph, [], [], [], [], [], [], [], [], [], [], [], [], graph.dropped_edges,
                   [bool(edge.label) for edge in graph.edges])
    for node in graph.nodes:
        attrs = node.attrs
        layer = node.layer
        drawn.kinds.append(node.kind)
        drawn.rows.append(node.rows)
        drawn.df_rows.append(rows_of.get(id(layer), -1) if layer is not None else -1)
        is_layer = layer is not None and node.kind == "layer"
        drawn.types.append(layer.type if is_layer else None)
        drawn.precisions.append(layer.precision if is_layer else None)
        filled = is_layer or "filled" in str(attrs.get("style", ""))
        drawn.fills.append(attrs.get("fillcolor") if filled else "white")
        drawn.strokes.append(attrs.get("color"))
        drawn.pens.append(attrs.get("penwidth", 1))
        drawn.names.append(str(node.name))
        drawn.tensors.append(node.tensor)
    for edge in graph.edges:
        drawn.edge_colors.append(edge.attrs.get("color"))
        drawn.edge_dashed.append(edge.attrs.get("style") == "dashed")
    return drawn


def _from_table(plan: EnginePlan) -> _Drawn:
    """The same drawing read from the plan's columns (:mod:`trex.graph.table_scene`)."""
    scene = table_scene(plan)
    table = plan.table
    types, streams, precisions = table.types, table.streams, table.precisions
    df_index = {row: i for i, row in enumerate(plan.rows)}
    n = len(scene.kinds)
    drawn = _Drawn(scene, scene.kinds, scene.rows, [-1] * n, [None] * n, [None] * n, [None] * n,
                   [None] * n, [None] * n, scene.names, scene.tensors, scene.edge_colors,
                   scene.edge_dashed, scene.dropped_edges, [False] * len(scene.ends))
    colors: dict[Any, str] = {}  # a layer type -> its fill
    for i, (kind, row) in enumerate(zip(scene.kinds, scene.table_rows)):
        if row < 0:  # a region
            tensor = scene.tensors[i]
            assert tensor is not None
            attrs = region_precision_formatter(tensor, scene.users[i])
            drawn.fills[i] = "gray" if scene.users[i] else "white"
            drawn.strokes[i] = attrs.get("color")
            drawn.pens[i] = attrs.get("penwidth", 1)
            continue
        layer_type = types[row]
        fill = colors.get(layer_type)
        if fill is None:
            fill = colors[layer_type] = type_color(layer_type)
        drawn.fills[i] = fill
        drawn.df_rows[i] = df_index.get(row, -1)
        if kind == "layer":
            drawn.types[i] = layer_type
            drawn.precisions[i] = precisions[row]
        border = stream_border(streams[row]) if streams[row] > 0 else {}
        drawn.strokes[i] = border.get("color", "lightgray")
        drawn.pens[i] = border.get("penwidth", 1)
    return drawn


def graph_payload(plan: PlanLike, layout_method: str = "auto") -> dict[str, Any]:
    """Nodes (centre, size, kind, df row, label rows, fills), edges (ends, route, colour, dash),
    hub buses; placed as ``trex draw --layout`` would (:func:`trex.graph.placement.place_graph`).

    Label rows are indices into ``nodes["text"]`` (each distinct row text once); routes leave
    out their default end points (see :func:`_routes`). A whole plan is read from its columns
    (no Layer objects made); other plan-like objects through DotGraph."""
    return _start(plan, layout_method, background=False)()


# From this many layers, a report's drawing is made whole in a forked copy of the process
# (trex.perf.beside), beside the summary, linters and roofline: 10,800 layers, 0.2 s of a
# 1.4 s report; below, only Graphviz runs beside, as the copy costs more than it saves.
BESIDE_LAYERS = 2_000


def start_graph_payload(plan: PlanLike, layout_method: str = "auto"
                        ) -> Callable[[], dict[str, Any]]:
    """:func:`graph_payload` in two halves: the drawing is made (and Graphviz, when it lays the
    graph out, starts) now, beside the caller's next steps; the returned function waits for it
    and gives the payload."""
    if isinstance(plan, EnginePlan) and len(plan.rows) >= BESIDE_LAYERS:
        return beside(lambda: graph_payload(plan, layout_method))
    return _start(plan, layout_method, background=True)


def _start(plan: PlanLike, layout_method: str, background: bool) -> Callable[[], dict[str, Any]]:
    with gc_paused():  # many small lists and tuples, none of them in a cycle
        if isinstance(plan, EnginePlan) and not getattr(plan, "highlighted", None):
            drawn = _from_table(plan)
        else:
            drawn = _from_scene(plan)
        sizes = [node_size(rows) for rows in drawn.rows]
        cost = structure_cost(drawn.graph.structure, drawn.labelled)
        placing = start_placement(drawn.graph, sizes, layout_method, cost=cost,
                                  background=background)

    def finish() -> dict[str, Any]:
        with gc_paused():
            layout, method, note = placing()
            if method == "layered" and not note and layout_method == "auto" and dot_executable():
                note = (f"Graphviz dot would be slow on this graph ({cost.describe()}); "
                        "it is laid out by trex's own layout")
            return _payload(plan, drawn, sizes, layout, method, note)

    return finish


def _payload(plan: PlanLike, drawn: _Drawn, sizes: list[tuple[float, float]], layout: Any,
             method: str, note: str) -> dict[str, Any]:
    """The payload of a drawing laid out."""
    structure = drawn.graph.structure
    ends = structure.ends

    latencies = plan_latencies(plan)
    slowest = max((v for v in latencies.values() if v == v), default=0.0)
    palette = _Palette()
    texts = Interner()
    text_at: dict[Any, int] = {}  # a row's text -> its index in texts (rows repeat: fit once)
    rows_col = []
    for rows in drawn.rows:
        indices = []
        for text, _ in rows:
            found = text_at.get(text)
            if found is None:
                found = text_at[text] = texts(fit_row(str(text)))
            indices.append(found)
        rows_col.append(indices)
    kind_of = {kind: k for k, kind in enumerate(KINDS)}
    kind_col = [kind_of.get(kind, 0) for kind in drawn.kinds]
    is_layer = [kind == "layer" for kind in drawn.kinds]
    names = drawn.names
    colors = [latency_color(latencies.get(name), slowest) if layer else None
              for name, layer in zip(names, is_layer)]
    # Palette indices in the order the colours are met: per node its type, precision and
    # latency fills (or its own fill), then its stroke.
    fill_type, fill_precision, fill_latency, stroke = [], [], [], []
    type_fills: dict[Any, int] = {}
    precision_fills: dict[Any, int] = {}
    latency_fills: dict[str, int] = {}
    own_fills: dict[Any, int] = {}
    strokes: dict[Any, int] = {}
    for layer, fill, precision, color, line in zip(is_layer, drawn.fills, drawn.precisions,
                                                   colors, drawn.strokes):
        if layer:
            found = type_fills.get(fill)
            if found is None:
                found = type_fills[fill] = palette(fill, UNKNOWN_KEY_COLOR)
            fill_type.append(found)
            found = precision_fills.get(precision)
            if found is None:
                found = precision_fills[precision] = palette(
                    key_color(precision, precision_colormap), "gray")
            fill_precision.append(found)
            found = latency_fills.get(color)
            if found is None:
                found = latency_fills[color] = palette(color, "gray")
            fill_latency.append(found)
        else:
            found = own_fills.get(fill)
            if found is None:
                found = own_fills[fill] = palette(fill, "white")
            fill_type.append(found)
            fill_precision.append(found)
            fill_latency.append(found)
        found = strokes.get(line)
        if found is None:
            found = strokes[line] = palette(line, "black")
        stroke.append(found)
    pens: dict[Any, float] = {}
    for value in drawn.pens:
        if value not in pens:
            pens[value] = _pen(value)
    pen = [pens[value] for value in drawn.pens]
    layer_at = [i for i, layer in enumerate(is_layer) if layer]
    legend_type = Counter((str(drawn.types[i]), fill_type[i]) for i in layer_at)
    legend_precision = Counter((str(drawn.precisions[i] or "None"), fill_precision[i])
                               for i in layer_at)
    row_col = list(drawn.df_rows)
    name_col = [None if row >= 0 else name for row, name in zip(row_col, names)]

    edge_color = [palette(color, "black") for color in drawn.edge_colors]
    edge_dash = [1 if dashed else 0 for dashed in drawn.edge_dashed]
    routes, full = _routes(layout, sizes, ends)

    buses = structure.buses
    bus_payload = {
        "node": [bus.node for bus in buses],
        "color": [edge_color[bus.edges[0]] for bus in buses],
        "edges": [len(bus.edges) for bus in buses],
        "route": [[round(v, 1) for point in route for v in point] for route in layout.buses],
    }
    tensors = {}
    for i, t in enumerate(drawn.tensors):
        if t is not None:
            tensors[str(i)] = [t.name, list(t.shape), t.format, int(t.size_bytes), t.precision]
    return {
        "width": round(layout.width, 1),
        "height": round(layout.height, 1),
        "palette": palette.colors,
        "ink": [text_color(c) for c in palette.colors],
        "nodes": {
            "x": np.round(layout.x, 1).tolist(),
            "y": np.round(layout.y, 1).tolist(),
            "w": np.round([w for w, _ in sizes], 1).tolist(),
            "h": np.round([h for _, h in sizes], 1).tolist(),
            "kind": kind_col,
            "row": row_col,
            "rows": rows_col,
            "text": texts.values,
            "name": name_col,
            "fill": {"type": fill_type, "precision": fill_precision, "latency": fill_latency},
            "stroke": stroke,
            "pen": pen,
            "tensor": tensors,
        },
        "edges": {
            "src": [s for s, _ in ends],
            "dst": [d for _, d in ends],
            "color": edge_color,
            "dash": edge_dash,
            "route": routes,
            "full": full,
        },
        "buses": bus_payload,
        "legend": {"type": _legend(legend_type), "precision": _legend(legend_precision)},
        "dropped_edges": drawn.dropped_edges,
        "layout": method,
        "layout_note": note,
    }
