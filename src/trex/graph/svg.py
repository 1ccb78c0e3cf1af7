"""SVG writer for large graphs: trex's own layered layout, no Graphviz needed.

Nodes look like the DOT drawing (same colours, rows and highlight); every name and tooltip is
XML-escaped, and colours are checked against a whitelist pattern before use.
"""

from __future__ import annotations

import re
from typing import Any

from .colors import text_color
from .escape import shorten, xml_multiline, xml_text
from .formatters import MAX_ROW_CHARS
from .layout import Layout, layered_layout

FONT_SIZE = 12
CHAR_WIDTH = 6.6  # average advance of 12 px Helvetica
BOLD_CHAR_WIDTH = 7.3
ROW_HEIGHT = 18.0
PAD_X = 8.0
MIN_WIDTH = 48.0


def fit_row(text: str) -> str:
    """A label row as drawings show it: at most MAX_ROW_CHARS characters."""
    return shorten(text, MAX_ROW_CHARS)


_COLOR = re.compile(r"#[0-9A-Fa-f]{3,8}|[A-Za-z]{3,30}")


def svg_color(value: Any, default: str = "gray") -> str:
    """A safe SVG colour from a Graphviz colour (first of a ``a:b`` list), else ``default``."""
    if not value:
        return default
    first = str(value).split(":", 1)[0].split(";", 1)[0].strip()
    return first if _COLOR.fullmatch(first) else default


def node_size(rows: list[tuple[str, Any]]) -> tuple[float, float]:
    """Width and height of a node box showing ``rows``."""
    if not rows:
        return MIN_WIDTH, ROW_HEIGHT
    # by len(fit_row(text)), without making the shortened text; the first row is bold
    n = len(rows)
    key = (len(rows[0][0]), max([len(text) for text, _ in rows[1:]]) if n > 1 else -1, n)
    size = _SIZES.get(key)
    if size is None:
        widest = min(key[0], MAX_ROW_CHARS) * BOLD_CHAR_WIDTH
        if n > 1:
            widest = max(widest, min(key[1], MAX_ROW_CHARS) * CHAR_WIDTH)
        size = (max(MIN_WIDTH, widest + 2 * PAD_X), n * ROW_HEIGHT)
        if len(_SIZES) < 65536:
            _SIZES[key] = size
    return size


_SIZES: dict[tuple[int, int, int], tuple[float, float]] = {}  # node sizes by their rows' lengths


def _fmt(v: float) -> str:
    return f"{v:.1f}"


def layout_graph(graph: Any, sizes: list[tuple[float, float]] | None = None) -> Layout:
    """The layered layout of a :class:`~trex.graph.dot.DotGraph` (its hubs on buses, its loops'
    back-edges up the side), nodes sized by :func:`node_size` unless ``sizes`` are given."""
    if sizes is None:
        sizes = [node_size(node.rows) for node in graph.nodes]
    structure = graph.structure
    return layered_layout([w for w, _ in sizes], [h for _, h in sizes], structure.ends,
                          structure.buses, structure.back, structure.layering)


def graph_to_svg(graph: Any, title: str = "", layout: Layout | None = None) -> str:
    """Lay out a :class:`~trex.graph.dot.DotGraph` with the layered layout and return SVG text."""
    nodes = graph.nodes
    index = {node.id: i for i, node in enumerate(nodes)}
    sizes = [node_size(node.rows) for node in nodes]
    if layout is None:
        layout = layout_graph(graph, sizes)

    out: list[str] = []
    w, h = layout.width, layout.height
    legend = getattr(graph, "legend", None)
    if legend is not None:  # under the drawing, never over a node
        from .legend import legend_size

        legend_w, legend_h = legend_size(legend)
        drawing_h = h
        w, h = max(w, legend_w), h + legend_h
    out.append('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n')
    out.append(f'<svg xmlns="http://www.w3.org/2000/svg" width="{_fmt(w)}" height="{_fmt(h)}" '
               f'viewBox="0 0 {_fmt(w)} {_fmt(h)}">\n')
    out.append(f"<title>{xml_text(title)}</title>\n")
    out.append("<style>text{font-family:Helvetica,Arial,sans-serif;font-size:12px}"
               ".e{fill:none;stroke-width:1.4}.s{stroke:#bbb;stroke-width:1}"
               ".bus{fill:none;stroke-width:3;stroke-opacity:.6;stroke-linejoin:round}</style>\n")

    markers: dict[str, str] = {}
    edge_colors = []
    for edge in graph.edges:
        color = svg_color(edge.attrs.get("color"), "black")
        edge_colors.append(color)
        if color not in markers:
            markers[color] = f"m{len(markers)}"
    out.append("<defs>")
    for color, mid in markers.items():
        out.append(f'<marker id="{mid}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
                   f'markerHeight="7" orient="auto"><path d="M0,0L10,5L0,10z" fill="{color}"/>'
                   "</marker>")
    out.append("</defs>\n")
    out.append(_buses_svg(graph, layout, edge_colors))
    out.append("<g class=\"edges\">\n")
    for edge, route, color in zip(graph.edges, layout.routes, edge_colors):
        if len(route) < 2:
            continue
        d = [_route_d(route)]
        dash = ' stroke-dasharray="5,4"' if edge.attrs.get("style") == "dashed" else ""
        tip = f"{nodes[index[edge.src]].name} \u2192 {nodes[index[edge.dst]].name}"
        if edge.label:
            tip += "\n" + edge.label
        out.append(f'<path class="e" d="{"".join(d)}" stroke="{color}"{dash} '
                   f'marker-end="url(#{markers[color]})"><title>{xml_multiline(tip)}</title>'
                   "</path>\n")
    out.append("</g>\n<g class=\"nodes\">\n")
    for i, node in enumerate(nodes):
        out.append(_node_svg(i, node, layout.x[i], layout.y[i], sizes[i]))
    out.append("</g>\n")
    if legend is not None:
        from .legend import legend_svg

        out.append(legend_svg(legend, 0.0, drawing_h))
    out.append("</svg>\n")
    return "".join(out)


def _route_d(route: list[tuple[float, float]]) -> str:
    d = [f"M{_fmt(route[0][0])},{_fmt(route[0][1])}"]
    for (x0, y0), (x1, y1) in zip(route, route[1:]):
        my = (y0 + y1) / 2
        d.append(f"C{_fmt(x0)},{_fmt(my)} {_fmt(x1)},{_fmt(my)} {_fmt(x1)},{_fmt(y1)}")
    return "".join(d)


def _buses_svg(graph: Any, layout: Layout, edge_colors: list[str]) -> str:
    """One thick, translucent line per hub bus (its edges branch off it with their arrows)."""
    buses = graph.structure.buses if layout.buses else []
    parts = []
    for bus, route in zip(buses, layout.buses):
        if len(route) < 2:
            continue
        hub = graph.nodes[bus.node]
        ends = "consumers" if bus.direction != "in" else "producers"
        tip = f"{hub.name}\nbus: {len(bus.edges)} edges to its {ends}"
        parts.append(f'<path class="bus" d="{_route_d(route)}" stroke="{edge_colors[bus.edges[0]]}">'
                     f"<title>{xml_multiline(tip)}</title></path>\n")
    return f'<g class="buses">\n{"".join(parts)}</g>\n' if parts else ""


def _node_svg(i: int, node: Any, cx: float, cy: float, size: tuple[float, float]) -> str:
    attrs = node.attrs
    width, height = size
    left, top = cx - width / 2, cy - height / 2
    style = str(attrs.get("style", ""))
    filled = "filled" in style
    fill = svg_color(attrs.get("fillcolor"), "white") if filled else "white"
    stroke = svg_color(attrs.get("color"), "black")
    try:
        pen = max(0.5, min(12.0, float(attrs.get("penwidth", 1))))
    except (TypeError, ValueError):
        pen = 1.0
    dash = ' stroke-dasharray="6,4"' if "dashed" in style else ""
    rx = 8 if str(attrs.get("shape", "")).lower() == "mrecord" else 0
    tooltip = str(attrs.get("tooltip") or "")
    title = f"{node.name}\n{tooltip}" if tooltip and tooltip != node.name else node.name
    parts = [f'<g class="node {node.kind}" id="node{i}"><title>{xml_multiline(title)}</title>'
             f'<rect x="{_fmt(left)}" y="{_fmt(top)}" width="{_fmt(width)}" '
             f'height="{_fmt(height)}" rx="{rx}" fill="{fill}" stroke="{stroke}" '
             f'stroke-width="{_fmt(pen)}"{dash}/>']
    ink = text_color(fill)
    separators = []
    for r, (text, bg) in enumerate(node.rows):
        row_top = top + r * ROW_HEIGHT
        if bg:
            parts.append(f'<rect x="{_fmt(left + 1)}" y="{_fmt(row_top + 1)}" '
                         f'width="{_fmt(width - 2)}" height="{_fmt(ROW_HEIGHT - 2)}" '
                         f'fill="{svg_color(bg, "white")}"/>')
        if r and node.kind != "region":
            separators.append(f"M{_fmt(left)},{_fmt(row_top)}H{_fmt(left + width)}")
        bold = ' font-weight="bold"' if r == 0 and node.kind != "region" else ""
        color = "black" if bg else ink
        parts.append(f'<text x="{_fmt(cx)}" y="{_fmt(row_top + ROW_HEIGHT / 2 + 4)}" '
                     f'text-anchor="middle" fill="{color}"{bold}>{xml_text(fit_row(text))}</text>')
    if separators:
        parts.append(f'<path class="s" d="{"".join(separators)}"/>')
    parts.append("</g>\n")
    return "".join(parts)

