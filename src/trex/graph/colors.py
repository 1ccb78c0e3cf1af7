"""Colour tables: per precision, per layer type, per CUDA stream and a latency heat-map scale."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

NVDA_GREEN = "#76b900"
UNKNOWN_KEY_COLOR = "gray"

# One colour per tensor/layer precision (TREx's five plus every other TensorRT data type).
precision_colormap: defaultdict[str | None, str] = defaultdict(lambda: UNKNOWN_KEY_COLOR, {
    "INT8": NVDA_GREEN,
    "FP32": "red",
    "FP16": "orange",
    "INT32": "lightgray",
    "FP8": "deepskyblue",
    "TF32": "#FF6F61",  # salmon red: still FP32 storage
    "BF16": "#DAA520",  # goldenrod
    "INT4": "#2E8B57",  # sea green: the INT8 family
    "UINT4": "#2E8B57",
    "UINT8": "#9ACD32",  # yellow green
    "FP4": "#1E3A8A",  # dark blue: the FP8 family
    "INT64": "darkgray",
    "UINT16": "#A9A9A9",
    "INT16": "#A9A9A9",
    "UINT32": "#C0C0C0",
    "UINT64": "#808080",
    "FP64": "darkred",
    "Bool": "plum",
})

# One colour per layer type (TREx's table, extended to the types of TensorRT 10 and 11).
layer_colormap: defaultdict[str, str] = defaultdict(lambda: UNKNOWN_KEY_COLOR, {
    "Convolution": "#4682B4",  # SteelBlue
    "Deconvolution": "#7B68EE",  # MediumSlateBlue
    "ConvActPool": "#6495ED",  # CornflowerBlue
    "MatrixMultiply": "#1E90FF",  # DodgerBlue
    "gemm": "#1E90FF",
    "Einsum": "#1E90FF",
    "Reformat": "#00FFFF",  # Cyan
    "Shuffle": "#BC8F8F",  # RosyBrown
    "Slice": "#FFA500",  # Orange
    "Concatenation": "#F4A460",  # SandyBrown
    "Gather": "#D2B48C",  # Tan
    "Scatter": "#D2B48C",
    "Resize": "#DEB887",  # BurlyWood
    "Padding": "#FFDEAD",  # NavajoWhite
    "Scale": "#8FBC8B",  # DarkSeaGreen
    "Quantize": "#6B8E23",  # OliveDrab
    "Dequantize": "#6B8E23",
    "Pooling": "#3CB371",  # MediumSeaGreen
    "PluginV2": "#C71585",  # MediumVioletRed
    "PluginV3": "#C71585",
    "PointWise": "#9ACD32",  # YellowGreen
    "ElementWise": "#9ACD32",
    "Activation": "#9ACD32",
    "Unary": "#9ACD32",
    "Cast": "#E0FFFF",  # LightCyan
    "Reduce": "#90EE90",  # LightGreen
    "Normalization": "#66CDAA",  # MediumAquamarine
    "SoftMax": "#DA70D6",  # Orchid
    "TopK": "#DDA0DD",  # Plum
    "Myelin": "#B39C4D",  # Satin Sheen Gold
    "DLA": "#8B008B",  # DarkMagenta: a subgraph on the Deep Learning Accelerator
    "DLACopy": "#DDA0DD",  # Plum: copies to and from the DLA's memory (where DLA time lands)
    "DLASync": "#F5F5DC",  # Beige
    "kgen": "#B39C4D",
    "shape_call": "#D3D3D3",  # LightGray
    "NonZero": "#98FB98",  # PaleGreen
    "TrainStation": "#FFA07A",  # LightSalmon
    "Constant": "#F5F5DC",  # Beige
    "signal": "#FFFACD",  # LemonChiffon
    "wait": "#FFFACD",
})

# Border colours of layers on auxiliary CUDA streams (StreamId 1, 2, ...); stream 0 keeps its own.
stream_palette = ("#a11350", "#4064ec", "#e46d00", "#8f1a8e", "#008619", "#ef393d", "#7e4401",
                  "#02d2ba")

# Latency heat map: light yellow (fast) to dark red (slowest), ColorBrewer YlOrRd.
latency_palette = ("#ffffcc", "#ffeda0", "#fed976", "#feb24c", "#fd8d3c", "#fc4e2a", "#e31a1c",
                   "#bd0026", "#800026")
NO_LATENCY_COLOR = "#E5E7E9"


# Colours for keys no table names (an unusual layer type), handed out in sorted order.
extra_palette = ("#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f", "#aec7e8", "#ffbb78",
                 "#98df8a", "#ff9896", "#c5b0d5")


def colors_for(keys: Iterable[str], colormap: dict[str | None, str] | dict[str, str]
               ) -> dict[str, str]:
    """A colour per key: the table's colour when it has one, else one of ``extra_palette``."""
    out: dict[str, str] = {}
    extra = 0
    for key in sorted(set(keys)):
        if key in colormap:
            out[key] = colormap[key]
        else:
            out[key] = extra_palette[extra % len(extra_palette)]
            extra += 1
    return out


def stream_color(stream_id: int) -> str | None:
    """Border colour for a layer on CUDA stream ``stream_id`` (None for the main stream)."""
    if not stream_id or stream_id < 0:
        return None
    return stream_palette[(stream_id - 1) % len(stream_palette)]


def latency_color(latency: float | None, max_latency: float) -> str:
    """Heat-map fill for ``latency`` relative to the slowest layer (square-root scale)."""
    if latency is None or not latency > 0 or not max_latency > 0:
        return NO_LATENCY_COLOR
    fraction = min(1.0, (latency / max_latency) ** 0.5)
    return latency_palette[min(len(latency_palette) - 1, int(fraction * len(latency_palette)))]


def text_color(fill: str | None) -> str:
    """Black or white text, whichever reads better on ``fill``."""
    return "white" if fill in _DARK_FILLS else "black"


_DARK_FILLS = {"#800026", "#bd0026", "#e31a1c", "#1E3A8A", "darkred", "#4682B4", "#7B68EE",
               "#C71585", "#6B8E23", "#2E8B57"}
