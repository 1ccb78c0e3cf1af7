"""Colour tables: per precision, per layer type, per CUDA stream, per engine and a latency heat-map
scale; the colour of a key any view shows (:func:`key_color`), and the colour arithmetic that keeps
text readable and the tables distinct (WCAG contrast, CIE76 colour difference)."""

from __future__ import annotations

import re
import zlib
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

NVDA_GREEN = "#76b900"
UNKNOWN_KEY_COLOR = "gray"
# Keys that mean "not known": drawn in UNKNOWN_KEY_COLOR in every view.
UNKNOWN_KEYS = frozenset({"", "None", "Unknown", "nan"})

class ColorTable(defaultdict[Any, str]):
    """A colour table (TREx's defaultdict): a key it does not name reads as the default colour and
    is not added, so looking a colour up never changes what the table names."""

    def __missing__(self, key: Any) -> str:
        return self.default_factory() if self.default_factory else UNKNOWN_KEY_COLOR


# One colour per tensor/layer precision (TREx's five plus every other TensorRT data type). FP32 is
# a slightly deeper red than TREx's "red": white text on it reads at 4.6:1 (the report draws white;
# black on pure red read poorly) and black still reaches 4.5:1 (Graphviz draws black text).
# Families share a colour or a shade on purpose: INT4/UINT4; the integer index types are grays.
precision_colormap: ColorTable = ColorTable(lambda: UNKNOWN_KEY_COLOR, {
    "INT8": NVDA_GREEN,
    "FP32": "#E51C20",  # red
    "FP16": "orange",
    "INT32": "lightgray",
    "FP8": "deepskyblue",
    "TF32": "#FF6F61",  # salmon red: still FP32 storage
    "BF16": "#DAA520",  # goldenrod
    "INT4": "#2E8B57",  # sea green: the INT8 family
    "UINT4": "#2E8B57",
    "UINT8": "#9ACD32",  # yellow green
    "FP4": "#1E3A8A",  # dark blue: the FP8 family
    "E8M0": "#0606F9",  # blue: MX block scales (exponent only)
    "INT64": "darkgray",
    "UINT16": "#A9A9A9",
    "INT16": "#A9A9A9",
    "UINT32": "#C0C0C0",
    "UINT64": "#808080",
    "FP64": "darkred",
    "Bool": "plum",
})
# Precisions that share a colour or a near shade on purpose (tests allow these pairs).
PRECISION_FAMILIES = (frozenset({"INT4", "UINT4"}),
                      frozenset({"INT32", "INT64", "INT16", "UINT16", "UINT32", "UINT64"}))

# One colour per layer type (TREx's table, extended to the types of TensorRT 10 and 11). No two
# types are closer than CIE76 delta E 10, except the families below, which are one operation
# under two names.
layer_colormap: ColorTable = ColorTable(lambda: UNKNOWN_KEY_COLOR, {
    "Convolution": "#4682B4",  # SteelBlue
    "Deconvolution": "#7B68EE",  # MediumSlateBlue
    "ConvActPool": "#6495ED",  # CornflowerBlue
    "MatrixMultiply": "#1E90FF",  # DodgerBlue
    "gemm": "#1E90FF",  # Myelin's matrix multiply
    "Einsum": "#000080",  # Navy
    "Reformat": "#00FFFF",  # Cyan
    "Shuffle": "#BC8F8F",  # RosyBrown
    "Slice": "#FFA500",  # Orange
    "Concatenation": "#F4A460",  # SandyBrown
    "Gather": "#D2B48C",  # Tan
    "Scatter": "#A0522D",  # Sienna
    "Resize": "#CD853F",  # Peru
    "Padding": "#FFDEAD",  # NavajoWhite
    "Scale": "#8FBC8B",  # DarkSeaGreen
    "Quantize": "#6B8E23",  # OliveDrab
    "Dequantize": "#6B8E23",
    "Pooling": "#3CB371",  # MediumSeaGreen
    "PluginV2": "#C71585",  # MediumVioletRed
    "PluginV3": "#C71585",
    "PointWise": "#9ACD32",  # YellowGreen
    "ElementWise": "#FFD700",  # Gold
    "Activation": "#ADFF2F",  # GreenYellow
    "Unary": "#BDB76B",  # DarkKhaki
    "Cast": "#E0FFFF",  # LightCyan
    "Reduce": "#90EE90",  # LightGreen
    "Normalization": "#66CDAA",  # MediumAquamarine
    "SoftMax": "#DA70D6",  # Orchid
    "TopK": "#DDA0DD",  # Plum
    "Myelin": "#B39C4D",  # Satin Sheen Gold
    "DLA": "#8B008B",  # DarkMagenta: a subgraph on the Deep Learning Accelerator
    "DLACopy": "#FF69B4",  # HotPink: copies to and from the DLA's memory (where DLA time lands)
    "DLASync": "#FFE4E1",  # MistyRose
    "kgen": "#B39C4D",  # Myelin's generated kernels
    "shape_call": "#D3D3D3",  # LightGray
    "NonZero": "#F0E68C",  # Khaki
    "TrainStation": "#FFA07A",  # LightSalmon
    "Constant": "#F5F5DC",  # Beige
    "signal": "#FFFACD",  # LemonChiffon: the two halves of a cross-stream event
    "wait": "#FFFACD",
    # TensorRT 11.4's LayerType enum (trex.model.vocabulary) and Myelin's lower-case kinds; the
    # LLM-era layers first, so they got the most distinct colours
    "Attention": "#F90606",
    "AttentionInput": "#F90606",
    "AttentionOutput": "#F90606",
    "KVCacheUpdate": "#0606F9",
    "RotaryEmbedding": "#F906F9",
    "MoE": "#D9264A",
    "DistCollective": "#06F967",
    "DynamicQuantize": "#6B8E23",  # the Quantize family's OliveDrab
    "GridSample": "#7905C7",
    "NMS": "#1FAD2D",
    "LRN": "#6F2A5A",
    "Identity": "#2A6F5A",
    "Shape": "#FA7238",
    "ParametricReLU": "#950404",
    "TripLimit": "#06F906",  # the loop boundary layers
    "Recurrence": "#06F906",
    "Iterator": "#06F906",
    "LoopOutput": "#06F906",
    "Select": "#064FF9",
    "Assertion": "#95043E",
    "Fill": "#38FAC0",
    "memset": "#38FAC0",  # Myelin's fill
    "Condition": "#FA38D3",  # the if-conditional layers
    "ConditionalInput": "#FA38D3",
    "ConditionalOutput": "#FA38D3",
    "OneHot": "#38C0FA",
    "ReverseSequence": "#E7FA38",
    "Squeeze": "#C76B87",
    "Unsqueeze": "#C76B87",
    "Cumulative": "#906BC7",
    "correlation": "#2A616F",
    "cjmp": "#B652E0",
    "RaggedSoftMax": "#DA70D6",  # SoftMax's Orchid
    "maxpool": "#3CB371",  # Pooling's MediumSeaGreen
    "add": "#FFD700",  # ElementWise's Gold
    "Plugin": "#C71585",  # the plugin family's MediumVioletRed
    "custom_layer": "#C71585",
    "FullyConnected": "#1E90FF",  # the matrix multiply family's DodgerBlue
})
LAYER_FAMILIES = (frozenset({"MatrixMultiply", "gemm", "FullyConnected"}),
                  frozenset({"Myelin", "kgen"}),
                  frozenset({"PluginV2", "PluginV3", "Plugin", "custom_layer"}),
                  frozenset({"Quantize", "Dequantize", "DynamicQuantize"}),
                  frozenset({"signal", "wait"}),
                  frozenset({"Attention", "AttentionInput", "AttentionOutput"}),
                  frozenset({"TripLimit", "Recurrence", "Iterator", "LoopOutput"}),
                  frozenset({"Condition", "ConditionalInput", "ConditionalOutput"}),
                  frozenset({"Squeeze", "Unsqueeze"}), frozenset({"Fill", "memset"}),
                  frozenset({"SoftMax", "RaggedSoftMax"}), frozenset({"Pooling", "maxpool"}),
                  frozenset({"ElementWise", "add"}))

# Border colours of layers on auxiliary CUDA streams (StreamId 1, 2, ...); stream 0 keeps its own.
stream_palette = ("#a11350", "#4064ec", "#e46d00", "#8f1a8e", "#008619", "#ef393d", "#7e4401",
                  "#02d2ba")

# Latency heat map: light yellow (fast) to dark red (slowest), ColorBrewer YlOrRd.
latency_palette = ("#ffffcc", "#ffeda0", "#fed976", "#feb24c", "#fd8d3c", "#fc4e2a", "#e31a1c",
                   "#bd0026", "#800026")
NO_LATENCY_COLOR = "#E5E7E9"


# Colours for keys no table names (a layer type of a newer TensorRT): each key always gets the same
# one (a hash of its name), so a type has one colour in every figure and engine of a report.
extra_palette = ("#8c564b", "#e377c2", "#17becf", "#bcbd22", "#637939", "#aec7e8", "#843c39",
                 "#393b79", "#ff9896", "#c5b0d5")

# Engines in comparison figures: none of them a precision's colour (an engine named "fp32" is not
# drawn in FP16's orange).
engine_palette = ("#3b5ba9", "#8f1a8e", "#00838f", "#5f6b77", "#b5179e", "#6d4c41", "#7986cb",
                  "#004d40")


def key_color(key: object, colormap: dict[str | None, str] | dict[str, str]) -> str:
    """The colour of a type or precision ``key`` in every view: the table's, gray for a missing
    value, else a fixed colour of ``extra_palette`` chosen by the key's name."""
    if key is None:
        return UNKNOWN_KEY_COLOR
    name = str(key)
    if name in colormap:
        return colormap[name]
    if name in UNKNOWN_KEYS:
        return UNKNOWN_KEY_COLOR
    return extra_palette[zlib.crc32(name.encode("utf-8", "replace")) % len(extra_palette)]


def colors_for(keys: Iterable[str], colormap: dict[str | None, str] | dict[str, str]
               ) -> dict[str, str]:
    """A colour per key, as :func:`key_color` gives it."""
    return {key: key_color(key, colormap) for key in sorted(set(keys), key=str)}


def engine_color(index: int) -> str:
    """The colour of the ``index``-th engine of a comparison."""
    return engine_palette[index % len(engine_palette)]


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
    """Black or white text, whichever has the higher WCAG contrast ratio on ``fill`` (a hex or CSS
    colour name; black when the colour is not understood).

    Black and white cannot both fall below 4.5:1: the better of the two is at least 4.58:1."""
    if fill is None or rgb(fill) is None:
        return "black"
    return "black" if contrast_ratio(fill, "black") >= contrast_ratio(fill, "white") else "white"


# ------------------------------------------------------------------ colour arithmetic
# CSS named colours (CSS Color 4; Graphviz's X11 names agree except the grays' shades).
_CSS_NAMES = (
    "aliceblue:f0f8ff antiquewhite:faebd7 aqua:00ffff aquamarine:7fffd4 azure:f0ffff beige:f5f5dc "
    "bisque:ffe4c4 black:000000 blanchedalmond:ffebcd blue:0000ff blueviolet:8a2be2 brown:a52a2a "
    "burlywood:deb887 cadetblue:5f9ea0 chartreuse:7fff00 chocolate:d2691e coral:ff7f50 "
    "cornflowerblue:6495ed cornsilk:fff8dc crimson:dc143c cyan:00ffff darkblue:00008b "
    "darkcyan:008b8b darkgoldenrod:b8860b darkgray:a9a9a9 darkgreen:006400 darkgrey:a9a9a9 "
    "darkkhaki:bdb76b darkmagenta:8b008b darkolivegreen:556b2f darkorange:ff8c00 darkorchid:9932cc "
    "darkred:8b0000 darksalmon:e9967a darkseagreen:8fbc8f darkslateblue:483d8b darkslategray:2f4f4f "
    "darkslategrey:2f4f4f darkturquoise:00ced1 darkviolet:9400d3 deeppink:ff1493 deepskyblue:00bfff "
    "dimgray:696969 dimgrey:696969 dodgerblue:1e90ff firebrick:b22222 floralwhite:fffaf0 "
    "forestgreen:228b22 fuchsia:ff00ff gainsboro:dcdcdc ghostwhite:f8f8ff gold:ffd700 "
    "goldenrod:daa520 gray:808080 green:008000 greenyellow:adff2f grey:808080 honeydew:f0fff0 "
    "hotpink:ff69b4 indianred:cd5c5c indigo:4b0082 ivory:fffff0 khaki:f0e68c lavender:e6e6fa "
    "lavenderblush:fff0f5 lawngreen:7cfc00 lemonchiffon:fffacd lightblue:add8e6 lightcoral:f08080 "
    "lightcyan:e0ffff lightgoldenrodyellow:fafad2 lightgray:d3d3d3 lightgreen:90ee90 "
    "lightgrey:d3d3d3 lightpink:ffb6c1 lightsalmon:ffa07a lightseagreen:20b2aa lightskyblue:87cefa "
    "lightslategray:778899 lightslategrey:778899 lightsteelblue:b0c4de lightyellow:ffffe0 "
    "lime:00ff00 limegreen:32cd32 linen:faf0e6 magenta:ff00ff maroon:800000 mediumaquamarine:66cdaa "
    "mediumblue:0000cd mediumorchid:ba55d3 mediumpurple:9370db mediumseagreen:3cb371 "
    "mediumslateblue:7b68ee mediumspringgreen:00fa9a mediumturquoise:48d1cc mediumvioletred:c71585 "
    "midnightblue:191970 mintcream:f5fffa mistyrose:ffe4e1 moccasin:ffe4b5 navajowhite:ffdead "
    "navy:000080 oldlace:fdf5e6 olive:808000 olivedrab:6b8e23 orange:ffa500 orangered:ff4500 "
    "orchid:da70d6 palegoldenrod:eee8aa palegreen:98fb98 paleturquoise:afeeee palevioletred:db7093 "
    "papayawhip:ffefd5 peachpuff:ffdab9 peru:cd853f pink:ffc0cb plum:dda0dd powderblue:b0e0e6 "
    "purple:800080 rebeccapurple:663399 red:ff0000 rosybrown:bc8f8f royalblue:4169e1 "
    "saddlebrown:8b4513 salmon:fa8072 sandybrown:f4a460 seagreen:2e8b57 seashell:fff5ee "
    "sienna:a0522d silver:c0c0c0 skyblue:87ceeb slateblue:6a5acd slategray:708090 slategrey:708090 "
    "snow:fffafa springgreen:00ff7f steelblue:4682b4 tan:d2b48c teal:008080 thistle:d8bfd8 "
    "tomato:ff6347 turquoise:40e0d0 violet:ee82ee wheat:f5deb3 white:ffffff whitesmoke:f5f5f5 "
    "yellow:ffff00 yellowgreen:9acd32 "
)
CSS_COLORS: dict[str, str] = dict(item.split(":") for item in _CSS_NAMES.split())
_HEX = re.compile(r"#([0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")


def rgb(color: str | None) -> tuple[int, int, int] | None:
    """``(r, g, b)`` of a ``#rgb``/``#rrggbb`` colour (alpha ignored) or a CSS colour name, else None."""
    if not isinstance(color, str):
        return None
    text = color.strip()
    match = _HEX.fullmatch(text)
    if match is None:
        name = CSS_COLORS.get(text.lower())
        if name is None:
            return None
        digits = name
    else:
        digits = match.group(1)
        if len(digits) <= 4:
            digits = "".join(c * 2 for c in digits)
    return int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16)


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def relative_luminance(color: str) -> float:
    """WCAG 2 relative luminance of ``color`` (0 black .. 1 white)."""
    values = rgb(color)
    if values is None:
        raise ValueError(f"not a colour: {color!r}")
    r, g, b = (_linear(c) for c in values)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two colours (1 .. 21; 4.5 is the minimum for normal text)."""
    la, lb = relative_luminance(a), relative_luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def lab(color: str) -> tuple[float, float, float]:
    """CIE L*a*b* (D65 white) of ``color``."""
    values = rgb(color)
    if values is None:
        raise ValueError(f"not a colour: {color!r}")
    r, g, b = (_linear(c) for c in values)
    xyz = (0.4124 * r + 0.3576 * g + 0.1805 * b,
           0.2126 * r + 0.7152 * g + 0.0722 * b,
           0.0193 * r + 0.1192 * g + 0.9505 * b)
    white = (0.95047, 1.0, 1.08883)

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = (f(v / w) for v, w in zip(xyz, white))
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e(a: str, b: str) -> float:
    """CIE76 colour difference (about 2.3: just noticeable; below 10: easily confused side by side)."""
    return float(sum((x - y) ** 2 for x, y in zip(lab(a), lab(b))) ** 0.5)
