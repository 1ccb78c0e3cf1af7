"""Node formatters (colours) and renderers (labels), with TREx's names and signatures.

A *formatter* maps a Layer to DOT node attributes; a *renderer* maps a Layer and its latency to a
label. Attribute values are plain text: the DOT writer escapes them, so real newlines (not ``\\n``)
separate tooltip lines. The built-in renderers escape every string they take from the layer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..model.layer import Layer
from ..model.protocol import PlanLike
from ..model.tensors import Activation
from .colors import (
    UNKNOWN_KEY_COLOR,
    key_color,
    latency_color,
    layer_colormap,
    precision_colormap,
    text_color,
)
from .escape import ELLIPSIS, HtmlLabel, RecordLabel, clean, html_text, record_text

# A label row: (text, background colour or None). The first row (the type) is bold.
Row = tuple[str, "str | None"]

# Drawn labels stay readable: a row is at most MAX_ROW_CHARS characters; a longer name part (a
# DLA engine's fused names) wraps onto at most MAX_ROW_LINES lines, its middle cut; at most
# MAX_NAME_ROWS name parts are listed. The full name is the node's tooltip.
MAX_ROW_CHARS = 56
MAX_ROW_LINES = 3
MAX_NAME_ROWS = 12
# Where a name breaks: after white space and the separators of layer and tensor names.
_BREAK_AFTER = re.compile(r"(?<=[\s/_.,:;+\-\])}])")

latency_types = ("avg_time", "median_time", "time")  # the first is the default
_TOOLTIP_SKIP = frozenset({"InputRegions", "OutputRegions", "Inputs", "Outputs", "ParameterType",
                           "LayerName"})
MAX_TOOLTIP_VALUE = 300
HONEYDEW = "#F0FFF0"


def layer_tooltip(layer: Layer) -> str:
    """The layer's attributes, one ``key:value`` per line (values shortened to 300 characters)."""
    lines = []
    for key, value in sorted(layer.exported_fields().items()):
        if key in _TOOLTIP_SKIP:
            continue
        text = clean(value)
        if len(text) > MAX_TOOLTIP_VALUE:
            text = text[:MAX_TOOLTIP_VALUE] + "..."
        lines.append(f"{clean(key)}:{text}")
    return "\n".join(lines)


def tensor_tooltip(tensor: Activation) -> str:
    """Shape and format of a tensor, on two lines."""
    return f"{tensor.shape}\n{tensor.format}"


def metadata_text(layer: Layer) -> str | None:
    """The layer's ONNX metadata as one string (names joined by `` + ``), or None."""
    return metadata_of(layer.onnx_nodes)


def metadata_of(onnx_nodes: list[str]) -> str | None:
    """ONNX node names as one string (joined by `` + ``), or None."""
    return " + ".join(n for n in onnx_nodes if n) or None


def name_or_metadata(layer: Layer, prefer_metadata: bool = True) -> str:
    """The layer's metadata when preferred and present, else its name."""
    meta = metadata_text(layer) if prefer_metadata else None
    return meta if meta is not None else layer.name


def format_latency(latency: float) -> str:
    """Latency in ms with four significant digits."""
    return f"{latency:.4g} ms"


def reformat_is_qdq(layer: Layer) -> bool:
    """True for Reformat layers that implement a Q/DQ pair (their label's last row says ``QDQ``)."""
    return layer.type == "Reformat" and layer.origin == "QDQ"


def layer_type_color(layer: Layer) -> str:
    """Fill colour by layer type: the type's colour, as every chart and table colours it.

    TREx filled Q/DQ reformats with Quantize's colour, so that one Reformat bar of a chart stood
    for nodes of two colours; every Reformat is drawn in Reformat's colour here, and a Q/DQ one
    says so in its label (the ``QDQ`` row)."""
    return type_color(layer.type)


def type_color(layer_type: Any) -> str:
    """:func:`layer_type_color` of a layer type."""
    key = layer_type if isinstance(layer_type, str) else str(layer_type)  # a corrupt file: a list
    return key_color(key, layer_colormap)


def layer_type_formatter(layer: Layer) -> dict[str, str]:
    """Format DOT nodes by layer type."""
    fill = layer_type_color(layer)
    return {"shape": "Mrecord", "style": "filled", "tooltip": layer_tooltip(layer),
            "fillcolor": fill, "fontcolor": text_color(fill), "color": "lightgray",
            "fontname": "Helvetica"}


def layer_precision_formatter(layer: Layer) -> dict[str, str]:
    """Format DOT nodes by layer precision (of the first input)."""
    key = layer.precision if isinstance(layer.precision, str) else str(layer.precision)
    fill = key_color(key, precision_colormap)
    return {"shape": "Mrecord", "style": "filled", "tooltip": layer_tooltip(layer),
            "fillcolor": fill, "fontcolor": text_color(fill), "color": "lightgray",
            "fontname": "Helvetica"}


class LatencyHeatmapFormatter:
    """Format DOT nodes as a latency heat map: light yellow (fast) to dark red (slowest layer)."""

    def __init__(self, latencies: dict[str, float]):
        self.latencies = latencies
        self.max_latency = max((v for v in latencies.values() if v == v), default=0.0)

    def __call__(self, layer: Layer) -> dict[str, str]:
        latency = self.latencies.get(layer.name)
        tooltip = layer_tooltip(layer)
        if latency:
            tooltip = f"latency:{format_latency(latency)}\n{tooltip}"
        fill = latency_color(latency, self.max_latency)
        return {"shape": "Mrecord", "style": "filled", "tooltip": tooltip, "fillcolor": fill,
                "fontcolor": text_color(fill), "color": "lightgray", "fontname": "Helvetica"}


def plan_latencies(plan: PlanLike, latency_type: str = "avg_time") -> dict[str, float]:
    """Layer name to latency (ms) from ``plan.df`` in one vectorised pass; NaN becomes 0. A whole
    plan's columns are read without making its DataFrame (``EnginePlan.column``)."""
    if latency_type not in latency_types:
        latency_type = latency_types[0]
    column = f"latency.{latency_type}"
    from ..model.plan import EnginePlan

    if isinstance(plan, EnginePlan):
        latency = np.asarray(plan.column(column), dtype="float64")
        return dict(zip(plan.column("Name"), np.where(np.isnan(latency), 0.0, latency).tolist()))
    df = getattr(plan, "df", None)
    if df is None or column not in df.columns or "Name" not in df.columns:
        return {}
    values = df[column].fillna(0.0).astype(float).tolist()
    return dict(zip(df["Name"].tolist(), values))


def layer_latency_formatter(plan: PlanLike, latency_type: str = "avg_time") -> LatencyHeatmapFormatter:
    """A latency heat-map formatter for ``plan`` (latencies read once from ``plan.df``)."""
    return LatencyHeatmapFormatter(plan_latencies(plan, latency_type))


def region_precision_formatter(tensor: Activation, is_user: bool) -> dict[str, str]:
    """Format region (memory) nodes by the precision of their tensor."""
    color = precision_colormap.get(tensor.precision, UNKNOWN_KEY_COLOR)
    return {"style": "filled" if is_user else "dashed", "tooltip": tensor.name, "penwidth": "3",
            "color": color, "fontname": "Helvetica"}


def layer_node_highlighter(node_id: str, highlighted_layers_ids: Sequence[str] | None) -> dict:
    """A thick yellow halo around highlighted nodes."""
    if highlighted_layers_ids and node_id in highlighted_layers_ids:
        return {"penwidth": "6", "color": "yellow"}
    return {}


# ----------------------------------------------------------------------------- label rows
def _pack(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken after separators where it can."""
    lines: list[str] = []
    line = ""
    for token in _BREAK_AFTER.split(text):
        while len(token) > width:  # a run without separators: cut it hard
            if line:
                lines.append(line)
                line = ""
            lines.append(token[:width])
            token = token[width:]
        if len(line) + len(token) > width:
            lines.append(line)
            line = ""
        line += token
    if line:
        lines.append(line)
    return [kept.strip() or kept for kept in lines]


def wrap_row(text: str, width: int = MAX_ROW_CHARS, lines: int = MAX_ROW_LINES) -> list[str]:
    """A label row as at most ``lines`` lines of at most ``width`` characters: wrapped after
    separators; when it needs more, the first lines and ``…`` with the end of the text (where
    fused names differ) are kept. The full text belongs in the tooltip."""
    if len(text) <= width:
        return [text]
    fits = len(text) <= width * lines
    packed = _pack(text if fits else text[:width * lines], width)
    if fits and len(packed) <= lines:
        return packed
    tail = text[-(width - 1):]
    cut = _BREAK_AFTER.search(tail)
    if cut is not None and cut.start() < len(tail) // 2:
        tail = tail[cut.start():]  # start the end at a separator
    return [*packed[:lines - 1], ELLIPSIS + tail.lstrip()]


def _expression_rows(ops: Any) -> list[Row]:
    if not isinstance(ops, (list, tuple)):
        return []
    prefix = "const auto"
    return [(str(op)[len(prefix):] if str(op).startswith(prefix) else str(op), HONEYDEW)
            for op in ops]


def layer_rows(layer: Layer, latency: float | None, display_layer_names: bool = True,
               expand_layer_details: bool = False, stack_layer_names: bool = True,
               prefer_metadata: bool = True, bounded: bool = False) -> list[Row]:
    """The rows of the configurable label: type, latency, name parts, details (unescaped).

    ``bounded`` (drawings): each name part wraps within MAX_ROW_CHARS (:func:`wrap_row`) and at
    most MAX_NAME_ROWS parts are listed, so that no fused name makes the drawing huge."""
    rows = head_rows(layer.type, layer.name, layer.onnx_nodes, layer.origin, latency,
                     display_layer_names, stack_layer_names, prefer_metadata, bounded)
    if expand_layer_details:
        raw = layer.attributes
        if layer.type == "PointWise" and raw.get("ParameterSubType") == "PointWiseExpression":
            rows.extend(_expression_rows(raw.get("Operations")))
        if layer.type in ("Convolution", "Deconvolution"):
            if len(layer.inputs) == 2:
                rows.append(("Conv(input0) + input1", "lightblue"))
            act = raw.get("Activation")
            if act and act != "NONE":
                ops = (_expression_rows(raw.get("PointWiseExpressionOperations"))
                       if act == "GENERIC" and raw.get("ParameterSubType") == "PointWiseExpression"
                       else [])
                rows.extend(ops or [(str(act), "lightblue")])
    if layer.stream > 0:
        rows.append(stream_row(layer.stream))
    return rows


def head_rows(layer_type: str, name: str, onnx_nodes: list[str], origin: str | None,
              latency: float | None, display_layer_names: bool = True,
              stack_layer_names: bool = True, prefer_metadata: bool = True,
              bounded: bool = False) -> list[Row]:
    """The label rows :func:`layer_rows` starts with (type, latency, name parts, a Reformat's
    origin), from a layer's values: drawings made from the plan's columns share them."""
    rows: list[Row] = [(layer_type, None)]
    if latency:
        rows.append((format_latency(latency), None))
    if display_layer_names:
        meta = metadata_of(onnx_nodes) if prefer_metadata else None
        text = meta if meta is not None else name
        parts = [part.strip() or part for part in (text.split("+") if stack_layer_names else [text])]
        if not bounded:
            rows.extend((part, None) for part in parts)
        else:
            if len(parts) > MAX_NAME_ROWS:
                parts = [*parts[:MAX_NAME_ROWS - 1],
                         f"{ELLIPSIS} {len(parts) - MAX_NAME_ROWS + 1} more fused names"]
            for part in parts:
                if len(part) <= MAX_ROW_CHARS:  # wrap_row's first case, without the call
                    rows.append((part, None))
                else:
                    rows.extend((line, None) for line in wrap_row(part))
    if layer_type == "Reformat" and origin:
        rows.append((origin, None))
    return rows


def stream_row(stream: int) -> Row:
    """The label row of a layer on an auxiliary CUDA stream."""
    return (f"stream {stream}", None)


def html_table(rows: Sequence[Row]) -> HtmlLabel:
    """An HTML-like table label, every cell escaped; the first row bold."""
    cells = []
    for i, (text, color) in enumerate(rows):
        body = html_text(text)
        if i == 0:
            body = f"<B>{body}</B>"
        bg = ""
        if color:  # a cell of its own colour: its own readable text colour
            bg = f' BGCOLOR="{html_text(color)}"'
            body = f'<FONT COLOR="{text_color(color)}">{body}</FONT>'
        cells.append(f"<TR><TD{bg}>{body}</TD></TR>")
    return HtmlLabel('<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="4" '
                     f'COLOR="transparent">{"".join(cells)}</TABLE>')


def layer_node_configurable_renderer(layer: Layer, latency: float | None,
                                     display_layer_names: bool = True,
                                     expand_layer_details: bool = False,
                                     stack_layer_names: bool = True,
                                     prefer_matadata: bool = True, **_: Any) -> HtmlLabel:
    """TREx's default label: an HTML table of type, latency, (stacked) name and details."""
    return html_table(layer_rows(layer, latency, display_layer_names, expand_layer_details,
                                 stack_layer_names, prefer_matadata))


def layer_node_renderer_simple(layer: Layer, latency: float | None,
                               display_layer_names: bool = True, **_: Any) -> str:
    """Name and type on two lines (plain text, escaped by the DOT writer)."""
    return f"{clean(layer.name)}\n{layer.type}" if display_layer_names else str(layer.type)


def layer_node_renderer_keras(layer: Layer, latency: float | None,
                              display_layer_names: bool = True, prefer_matadata: bool = True,
                              **_: Any) -> RecordLabel:
    """Keras-style record label: name and type, then input and output shapes."""
    def shapes(tensors: list[Activation]) -> str:
        return record_text("".join(str(t.shape) for t in tensors))

    head = record_text(name_or_metadata(layer, prefer_matadata)) + "\\n" if display_layer_names else ""
    head += record_text(layer.type)
    return RecordLabel(f"{head}|{{input:|output:}}|{{{shapes(layer.inputs)}|"
                       f"{shapes(layer.outputs)}}}")


layer_node_formatters: dict[str, Callable[[Layer], dict[str, str]]] = {
    "layer_type": layer_type_formatter,
    "layer_precision_formatter": layer_precision_formatter,
}

layer_node_renderers: dict[str, Callable[..., str]] = {
    "Minimal": layer_node_renderer_simple,
    "Keras": layer_node_renderer_keras,
    "Configurable": layer_node_configurable_renderer,
}

__all__ = [
    "UNKNOWN_KEY_COLOR",
    "LatencyHeatmapFormatter",
    "MAX_ROW_CHARS",
    "html_table",
    "latency_types",
    "layer_latency_formatter",
    "layer_node_configurable_renderer",
    "layer_node_formatters",
    "layer_node_highlighter",
    "layer_node_renderer_keras",
    "layer_node_renderer_simple",
    "layer_node_renderers",
    "layer_precision_formatter",
    "layer_rows",
    "layer_tooltip",
    "layer_type_formatter",
    "plan_latencies",
    "region_precision_formatter",
    "wrap_row",
]
