"""TREx-compatible DOT graphs of an engine plan: ``to_dot``, ``DotGraph`` and ``render_dot``.

The DOT source is written directly (one pass over layers, regions and edges, no DataFrame lookups
per layer) with every identifier, label and attribute escaped; ``to_dot`` wraps it in a
``graphviz.Digraph`` so TREx code keeps working.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..model.layer import Layer
from ..model.protocol import PlanLike
from .escape import (
    DOT_STRING_BUDGET,
    ELLIPSIS,
    HtmlLabel,
    RecordLabel,
    dot_quote,
    esc_string,
    fit_escaped,
    record_text,
    shorten,
)
from .formatters import (
    Row,
    html_table,
)
from .legend import legend_graph_line
from .render import GRAPHVIZ_HINT as GRAPHVIZ_HINT  # re-exported: their home before render.py
from .render import GraphvizError
from .render import dot_executable as dot_executable
from .render import render_dot as render_dot
from .render import render_source as render_source
from .scene import GraphScene
from .structure import GraphStructure

_ATTR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class DotGraph(GraphScene):
    """A plan as a drawable graph (TREx's DotGraph, every TREx option): ``nodes``, ``edges``
    (:class:`~trex.graph.scene.GraphScene`), ``source`` and ``dot``."""

    def body(self) -> list[str]:
        """The DOT statements (graphviz.Digraph ``body`` lines); a hub's edges share one bus."""
        lines = [f"\tgraph [{_attr_list(self.graph_attr)}]\n"] if self.graph_attr else []
        for node in self.nodes:
            label = _label(node.label, str(node.attrs.get("shape", "")))
            if len(label) > DOT_STRING_BUDGET:  # Graphviz's limit: the rows, shortened
                label = _label(html_table(fit_rows(node.rows)))
            attrs = node.attrs
            tooltip = str(attrs.get("tooltip") or "")
            if node.layer is not None and tooltip and not tooltip.startswith(node.name):
                # the label wraps or cuts a long name: the tooltip starts with it whole (up to
                # half of Graphviz's string limit, so that the attributes follow)
                name = shorten(node.name, DOT_STRING_BUDGET // 2)
                attrs = {**attrs, "tooltip": f"{name}\n{tooltip}"}
            lines.append(f"\t{dot_quote(node.id)} [{label} {_attr_list(attrs)}]\n")
        structure = self.structure if self.bundle_hubs else None
        taps = self._bus_lines(structure, lines) if structure and structure.buses else {}
        for i, edge in enumerate(self.edges):
            src, dst, arrow = taps.get(i, (edge.src, edge.dst, True))
            lines.append(_edge_line(src, dst, edge.label, edge.attrs, arrow))
        if self.legend is not None:  # the graph's label: Graphviz draws it under the nodes
            lines.append(legend_graph_line(self.legend))
        return lines

    def _bus_lines(self, structure: GraphStructure, lines: list[str]
                   ) -> dict[int, tuple[str, str, bool]]:
        """Write each bus (point nodes chained beside the graph, one per layer its edges reach);
        return the new ends of the bussed edges (tap -> consumer, or producer -> tap)."""
        if self._bus_ids is None:
            self._bus_ids = []
        ends, layers = structure.ends, structure.layers
        taps: dict[int, tuple[str, str, bool]] = {}
        for b, bus in enumerate(structure.buses):
            outgoing = bus.direction != "in"
            hub = self.nodes[bus.node]
            by_layer: dict[int, list[int]] = {}
            for i in bus.edges:
                by_layer.setdefault(layers[ends[i][1] if outgoing else ends[i][0]], []).append(i)
            if len(self._bus_ids) <= b:
                self._bus_ids.append([self._ids.allocate(f"{hub.name} (bus {k + 1})")
                                      for k in range(len(by_layer))])
            color = str(self.edges[bus.edges[0]].attrs.get("color", "black"))
            point = {"shape": "point", "width": "0.06", "color": color,
                     "tooltip": f"{hub.name}: {len(bus.edges)} edges"}
            wire = {"color": color, "penwidth": "2.5", "arrowhead": "none"}
            chain = []
            for k, other_layer in enumerate(sorted(by_layer)):
                tap = self._bus_ids[b][k]
                lines.append(f"\t{dot_quote(tap)} [label=\"\" {_attr_list(point)}]\n")
                chain.append(tap)
                for i in by_layer[other_layer]:
                    edge = self.edges[i]
                    taps[i] = (tap, edge.dst, True) if outgoing else (edge.src, tap, False)
            path = [hub.id, *chain] if outgoing else [*chain, hub.id]
            for a, z in zip(path, path[1:]):
                attrs = wire if (outgoing or z != hub.id) else {**wire, "arrowhead": "normal"}
                lines.append(_edge_line(a, z, "", attrs))
        return taps

    @property
    def source(self) -> str:
        """The DOT source text."""
        return "digraph {\n" + "".join(self.body()) + "}\n"

    @property
    def dot(self) -> Any:
        """The graph as a ``graphviz.Digraph`` (needs the ``graphviz`` Python package)."""
        if self._dot is None:
            try:
                import graphviz
            except ImportError as exc:  # pragma: no cover - depends on the environment
                raise GraphvizError("to_dot needs the graphviz Python package: "
                                    "pip install 'trex-explorer[graph]' (or pip install graphviz)"
                                    ) from exc
            self._dot = graphviz.Digraph(body=self.body())
        return self._dot



_TOOLTIPS = frozenset({"tooltip", "edgetooltip", "headtooltip", "labeltooltip", "tailtooltip"})


def _tooltip_string(text: str) -> str:
    # Graphviz (2.43) substitutes escapes in tooltips twice: a literal backslash needs 4.
    return esc_string(text).replace("\\\\", "\\\\\\\\")


def _quoted(text: object) -> str:
    """A DOT double-quoted string, shortened to fit Graphviz's string limit."""
    return f'"{fit_escaped(str(text), esc_string)}"'


def _attr_list(attrs: dict[str, Any]) -> str:
    parts = []
    for key, value in attrs.items():
        if value is None or not _ATTR_NAME.match(str(key)) or key == "label":
            continue
        if key in _TOOLTIPS:
            parts.append(f'{key}="{fit_escaped(str(value), _tooltip_string)}"')
        else:
            parts.append(f"{key}={_quoted(value)}")
    return " ".join(parts)


def _edge_line(src: str, dst: str, label: str, attrs: dict[str, Any], arrow: bool = True) -> str:
    text = f"label={_quoted(label)} " if label else ""
    if not arrow:
        attrs = {**attrs, "arrowhead": "none"}
    return f"\t{dot_quote(src)} -> {dot_quote(dst)} [{text}{_attr_list(attrs)}]\n"


def fit_rows(rows: list[Row], budget: int = DOT_STRING_BUDGET) -> list[Row]:
    """Label rows shortened (and, if very many, cut with a count) so that the label fits."""
    for row_chars, max_rows in ((200, 400), (80, 150), (40, 60)):
        fitted = [(shorten(str(text), row_chars), color) for text, color in rows[:max_rows]]
        if len(rows) > max_rows:
            fitted.append((f"{ELLIPSIS} {len(rows) - max_rows} more rows", None))
        if len(_label(html_table(fitted))) <= budget:
            return fitted
    return fitted


def _label(label: str, shape: str = "") -> str:
    if isinstance(label, HtmlLabel):
        return f"label=<{label}>"
    if isinstance(label, RecordLabel):
        return f'label="{label}"'
    text = str(label)
    if len(text) > DOT_STRING_BUDGET:
        return f"label={_quoted(text)}"  # too long: the caller falls back to the shortened rows
    if text.startswith("<") and text.endswith(">") and _balanced(text):
        # A custom TREx-style renderer returning an HTML label: the caller's markup, as in TREx.
        return f"label={text}"
    if shape.lower() in ("record", "mrecord"):
        # Graphviz parses plain labels of record shapes as record fields: escape | { } < >.
        return 'label="' + "\\n".join(record_text(line) for line in text.split("\n")) + '"'
    return f"label={dot_quote(text)}"


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += (ch == "<") - (ch == ">")
        if depth < 0:
            return False
    return depth == 0


def to_dot(plan: PlanLike, layer_node_formatter: Callable[[Layer], dict[str, str]],
           **kwargs: Any) -> Any:
    """Convert a plan to a ``graphviz.Digraph`` (TREx's ``to_dot``; options as in DotGraph)."""
    return DotGraph(plan, layer_node_formatter, **kwargs).dot
