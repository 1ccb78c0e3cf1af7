"""The legend of a drawing: what its node colours mean, drawn outside the graph.

``trex draw --color-by type|precision|latency`` (and :func:`trex.graph.draw_plan`) colours layers by
type, precision or latency, as the HTML report's graph does; the legend names each colour with the
number of layers drawn in it (or, for latency, the heat-map scale from 0 to the slowest layer).
Graphviz draws it as the graph's label, under the nodes (SVG and PNG); trex's own layout draws it
below the drawing. The entries come from the fills the nodes were given, so the legend cannot say
something the drawing does not show. Every label is escaped: type names come from the input.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .colors import NO_LATENCY_COLOR, latency_palette
from .escape import ELLIPSIS, html_text, shorten, xml_text
from .svg import CHAR_WIDTH, svg_color

MAX_ENTRIES = 40  # a hostile plan with thousands of types: the rest are counted
MAX_LABEL_CHARS = 40
PER_ROW = 4  # entries per legend row
SWATCH = 12.0
ROW = 18.0
GAP = 16.0
TITLES = {"type": "Layer type", "precision": "Precision (of the first input)",
          "latency": "Latency (square-root scale)"}


@dataclass
class Legend:
    """A drawing's legend: a title, ``(label, colour)`` entries, and for latency a colour scale
    from ``scale_low`` to ``scale_high``."""

    title: str
    entries: list[tuple[str, str]] = field(default_factory=list)
    scale: list[str] = field(default_factory=list)
    scale_low: str = ""
    scale_high: str = ""


def legend_for(graph: Any, color_by: str, slowest_ms: float | None = None) -> Legend:
    """The legend of a :class:`~trex.graph.scene.GraphScene` coloured by ``color_by``: for
    ``type`` and ``precision``, each key with the layers drawn in its fill (most first); for
    ``latency``, the heat-map scale up to ``slowest_ms``."""
    layers = [node for node in graph.nodes if node.layer is not None]
    legend = Legend(TITLES.get(color_by, color_by))
    if color_by == "latency":
        legend.scale = [svg_color(c) for c in latency_palette]
        legend.scale_low = "0 ms"
        legend.scale_high = f"{slowest_ms:.4g} ms" if slowest_ms else "slowest"
        unprofiled = sum(1 for node in layers
                         if str(node.attrs.get("fillcolor", "")).lower() == NO_LATENCY_COLOR.lower())
        if unprofiled:
            legend.entries.append((f"no latency ({unprofiled})", svg_color(NO_LATENCY_COLOR)))
        return legend
    counts: Counter[tuple[str, str]] = Counter()
    # a names-only export gives no precision: "unknown", as the report says
    none = "None" if getattr(graph.plan, "detailed", True) else "unknown"
    for node in layers:
        layer = node.layer
        key = layer.type if color_by == "type" else (layer.precision or none)
        counts[(str(key), svg_color(node.attrs.get("fillcolor"), "gray"))] += 1
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0][0]))
    for (key, color), n in ordered[:MAX_ENTRIES]:
        legend.entries.append((f"{shorten(key, MAX_LABEL_CHARS)} ({n})", color))
    if len(ordered) > MAX_ENTRIES:
        rest = sum(n for _, n in ordered[MAX_ENTRIES:])
        legend.entries.append((f"{ELLIPSIS} {len(ordered) - MAX_ENTRIES} more ({rest})", "white"))
    return legend


# ------------------------------------------------------------------ Graphviz (the graph's label)
def legend_html(legend: Legend) -> str:
    """The legend as a DOT HTML-like table (the text between ``label=<`` and ``>``), escaped."""
    cells = [f'<TR><TD COLSPAN="{2 * PER_ROW}" ALIGN="LEFT"><B>{html_text(legend.title)}</B></TD></TR>']
    if legend.scale:
        swatches = "".join(f'<TD BGCOLOR="{html_text(c)}" WIDTH="22" HEIGHT="{int(SWATCH)}" '
                           'FIXEDSIZE="TRUE"></TD>' for c in legend.scale)
        cells.append(f'<TR><TD ALIGN="RIGHT">{html_text(legend.scale_low)}</TD>{swatches}'
                     f'<TD ALIGN="LEFT">{html_text(legend.scale_high)}</TD></TR>')
    for start in range(0, len(legend.entries), PER_ROW):
        row = "".join(f'<TD BGCOLOR="{html_text(color)}" WIDTH="{int(SWATCH)}" HEIGHT="{int(SWATCH)}" '
                      f'FIXEDSIZE="TRUE"></TD><TD ALIGN="LEFT">{html_text(label)}</TD>'
                      for label, color in legend.entries[start:start + PER_ROW])
        cells.append(f"<TR>{row}</TR>")
    return ('<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="3" CELLPADDING="1">'
            + "".join(cells) + "</TABLE>")


def legend_graph_line(legend: Legend) -> str:
    """The DOT statement that draws the legend under the graph, left-aligned."""
    return (f"\tgraph [label=<{legend_html(legend)}> labelloc=b labeljust=l "
            'fontname="Helvetica" fontsize=12]\n')


# ------------------------------------------------------------------ trex's own SVG
def legend_size(legend: Legend) -> tuple[float, float]:
    """Width and height (px) of :func:`legend_svg`'s drawing."""
    rows = 1 + (1 if legend.scale else 0) + -(-len(legend.entries) // PER_ROW)
    widths = [_column_width(legend, c) for c in range(PER_ROW)]
    scale = (len(legend.scale) * 22 + CHAR_WIDTH * (len(legend.scale_low) + len(legend.scale_high))
             + 2 * GAP) if legend.scale else 0.0
    title = CHAR_WIDTH * 1.1 * len(legend.title)
    return max(sum(widths), scale, title) + 2 * GAP, rows * ROW + GAP


def _column_width(legend: Legend, column: int) -> float:
    labels = [label for k, (label, _) in enumerate(legend.entries) if k % PER_ROW == column]
    return (SWATCH + 6 + CHAR_WIDTH * max(len(label) for label in labels) + GAP) if labels else 0.0


def legend_svg(legend: Legend, left: float, top: float) -> str:
    """The legend as an SVG group (``id="legend"``) with its top-left corner at (left, top)."""
    out = [f'<g id="legend" class="legend"><title>Legend: {xml_text(legend.title)}</title>']
    x0, y = left + GAP, top + ROW - 5
    out.append(f'<text x="{x0:.1f}" y="{y:.1f}" font-weight="bold">{xml_text(legend.title)}</text>')
    if legend.scale:
        y += ROW
        x = x0
        out.append(f'<text x="{x:.1f}" y="{y:.1f}">{xml_text(legend.scale_low)}</text>')
        x += CHAR_WIDTH * len(legend.scale_low) + 6
        for color in legend.scale:
            out.append(f'<rect x="{x:.1f}" y="{y - SWATCH + 2:.1f}" width="22" height="{SWATCH:g}" '
                       f'fill="{svg_color(color)}"/>')
            x += 22
        out.append(f'<text x="{x + 6:.1f}" y="{y:.1f}">{xml_text(legend.scale_high)}</text>')
    widths = [_column_width(legend, c) for c in range(PER_ROW)]
    for k, (label, color) in enumerate(legend.entries):
        column = k % PER_ROW
        if column == 0:
            y += ROW
        x = x0 + sum(widths[:column])
        out.append(f'<rect x="{x:.1f}" y="{y - SWATCH + 2:.1f}" width="{SWATCH:g}" '
                   f'height="{SWATCH:g}" fill="{svg_color(color, "white")}" stroke="#888"/>'
                   f'<text x="{x + SWATCH + 5:.1f}" y="{y:.1f}">{xml_text(label)}</text>')
    out.append("</g>\n")
    return "".join(out)
