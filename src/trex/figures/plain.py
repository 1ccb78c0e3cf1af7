"""The report card's figures as plotly figure JSON, built without plotly's figure objects.

``trex report`` ships a few figures per engine as JSON; building them with plotly's objects
(validation of every property, a template copied per figure, ``to_json``) cost more than the rest
of the charts step. These builders write the same JSON as :func:`trex.html_report.figures.
figure_json` of the notebook figures (:mod:`~trex.figures.plotting`, :mod:`~trex.figures.overview`,
:mod:`~trex.figures.engine_timings`), key for key, from the same frames, labels and colours:
properties are in plotly's order (a new object's keys sorted, an update's keys after them),
arrays are coerced as plotly's validators coerce them and numeric arrays are plotly.js typed
arrays (``{"dtype", "bdata"}``, int64 narrowed as ``to_typed_array_spec`` does). Data strings
are escaped (:func:`trex.safety.plotly_text`) as :func:`trex.safety.escape_figure` escapes them.
``tests/test_report_figures.py`` checks both give the same JSON on every real engine.
"""

from __future__ import annotations

import base64
import math
from typing import Any

import numpy as np
import pandas as pd

from ..safety import FIGURE_DATA_KEYS, plotly_text
from ._common import GRID_COLOR, NVDA_GREEN, category_colors, label
from .plotting import (
    MAX_TEXT_BARS,
    MIN_TEXT_SIZE,
    OUTSIDE_LEGEND,
    category_text,
    donut_style,
    wrap_title,
)

Figure = dict[str, Any]
_SHORT_TYPES = {"int8": "i1", "uint8": "u1", "int16": "i2", "uint16": "u2", "int32": "i4",
                "uint32": "u4", "float32": "f4", "float64": "f8"}
_NARROW = {"int64": ("int8", "int16", "int32"), "uint64": ("uint8", "uint16", "uint32")}


# ------------------------------------------------------------------ values as plotly writes them
def scalar(value: Any) -> Any:
    """A value as plotly's JSON has it: numpy scalars as Python, NaN and infinities as None."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (list, tuple)):
        return [scalar(v) for v in value]
    return value


def typed(values: np.ndarray) -> Any:
    """A numpy array as plotly's JSON has it: numbers as a typed array (int64 narrowed to the
    smallest int type that holds them), anything else as a list."""
    array = np.asarray(values)
    if array.dtype.kind not in "iuf":
        return [scalar(v) for v in array.tolist()]
    if array.size == 0:
        return []
    name = str(array.dtype)
    if name in _NARROW:
        low, high = int(array.min()), int(array.max())
        for kind in _NARROW[name]:
            info = np.iinfo(kind)
            if info.min <= low and high <= info.max:
                array = array.astype(kind)
                break
        else:
            return array.tolist()
    short = _SHORT_TYPES.get(str(array.dtype))
    if short is None:
        return [scalar(v) for v in array.tolist()]
    return {"dtype": short, "bdata": base64.b64encode(np.ascontiguousarray(array)).decode("ascii")}


def data_array(values: Any) -> Any:
    """A data array property (``x``, ``values``, ...) as plotly coerces and writes it."""
    if isinstance(values, (np.ndarray, pd.Series, pd.Index)):
        return typed(np.asarray(values))
    return [scalar(v) for v in values]


def string_array(values: Any) -> Any:
    """A string property given an array (``text``): plotly makes numbers float64."""
    array = np.asarray(values)
    if array.dtype.kind in "iuf":
        return typed(array.astype("float64"))
    return typed(array)


def obj(**props: Any) -> dict[str, Any]:
    """A new plotly object: its set properties in sorted order (as plotly's constructors set them)."""
    return {key: props[key] for key in sorted(props) if props[key] is not None}


def trace(kind: str, **props: Any) -> dict[str, Any]:
    """A new trace of ``kind``, with its data strings escaped."""
    out = obj(**props)
    for key in FIGURE_DATA_KEYS:
        if key in out and isinstance(out[key], (str, list)):
            out[key] = plotly_text(out[key])
    out["type"] = kind
    return out


def title(text: str | None) -> dict[str, Any]:
    """An axis or legend title."""
    return {"text": text} if text is not None else {}


# ------------------------------------------------------------------ the report card's figures
def bars_by_category(df: pd.DataFrame, values_col: str, names_col: str) -> Figure:
    """:func:`~trex.figures.plotting.plotly_bar2` of horizontal bars coloured by their own name
    (``color=names_col``, trex's layer type colours, axis ticks shown, no title): one trace per
    category."""
    from ._common import layer_colormap

    names = [category_text(v) for v in df[names_col].tolist()]
    values = df[values_col]
    array = values.to_numpy()
    template = "%{text:.4f}" if pd.api.types.is_float_dtype(values) else "%{text}"
    vlab, nlab = plotly_text(label(values_col)), plotly_text(label(names_col))
    hover = f"{vlab}: %{{x:.4f}}<br>{nlab}: %{{y}}<extra></extra>"
    palette = category_colors(list(dict.fromkeys(names)), layer_colormap())
    keys = np.asarray(names, dtype=object)
    data = []
    for key in palette:
        rows = np.flatnonzero(keys == key)
        text = {"text": string_array(array[rows]), "texttemplate": template} \
            if len(df) <= MAX_TEXT_BARS else {}
        data.append(trace("bar", x=data_array(array[rows]), y=keys[rows].tolist(),
                          orientation="h", marker={"color": palette[key]}, name=key,
                          showlegend=True, hovertemplate=hover, **text))
    layout: dict[str, Any] = {
        "legend": dict(OUTSIDE_LEGEND), "plot_bgcolor": "rgba(0,0,0,0)",
        "xaxis": {"gridcolor": GRID_COLOR, "showticklabels": True,
                  "title": title(vlab)},
        "yaxis": {"showticklabels": True, "title": title(nlab)},
    }
    if len(data) > 1:
        layout["yaxis"].update(categoryorder="array", categoryarray=plotly_text(names))
        layout["legend"].update(title=title(plotly_text(label(names_col))), traceorder="normal")
        layout["barmode"] = "stack"
    return {"data": data, "layout": layout}


def histogram(df: pd.DataFrame, values_col: str, color: str, colormap: Any,
              xaxis_title: str | None = None, yaxis_title: str = "Layers") -> Figure:
    """:func:`~trex.figures.plotting.plotly_hist` stacked by the ``color`` category, no title."""
    nbins = max(1, min(len(df), 100))
    keys = [category_text(v) for v in df[color].tolist()]
    values = df[values_col].to_numpy()
    palette = category_colors(list(dict.fromkeys(keys)), colormap)
    key_array = np.asarray(keys, dtype=object)
    data = [trace("histogram", x=data_array(values[key_array == key]), name=key, nbinsx=nbins,
                  marker={"color": palette.get(key, NVDA_GREEN)}, showlegend=True)
            for key in palette]
    return {"data": data, "layout": {
        "legend": {"title": title(plotly_text(label(color)))}, "barmode": "stack", "bargap": 0.05,
        "xaxis": {"title": title(plotly_text(xaxis_title or label(values_col)))},
        "yaxis": {"title": title(plotly_text(yaxis_title))}}}


def _domains(n_cols: int) -> list[list[float]]:
    """The x domain of each column of a one-row grid (``make_subplots``' arithmetic)."""
    spacing = 0.2 / n_cols
    widths = [(1.0 - spacing * (n_cols - 1)) / n_cols] * n_cols
    starts = [sum(widths[:c]) + c * spacing for c in range(n_cols)]
    return [[start + 0.0, start + widths[c] - 0.0] for c, start in enumerate(starts)]


def donuts(charts: list[tuple[pd.DataFrame, str, str, str]], colormap: Any) -> Figure:
    """:func:`~trex.figures.plotting.plotly_pie2` of one row of up to three donuts, no title."""
    if not 1 <= len(charts) <= 3:
        raise ValueError("one row of one to three donuts")
    domains = _domains(len(charts))
    data, annotations = [], []
    for (df, chart_title, values, names), x in zip(charts, domains):
        labels, palette, text = donut_style(df, values, names, colormap)
        pie = trace("pie", labels=labels, values=data_array(df[values].to_numpy()),
                    name=chart_title, sort=False, hole=0.4, textposition="inside",
                    marker={"colors": [palette[k] for k in labels],
                            "line": {"color": NVDA_GREEN, "width": 1}}, **text)
        pie["domain"] = {"x": x, "y": [0.0, 1.0]}
        data.append(pie)
        subtitle = wrap_title(str(chart_title))
        if subtitle:
            annotations.append(obj(font={"size": 13}, showarrow=False, text=subtitle,
                                   x=sum(x) / 2.0, xanchor="center", xref="paper", y=1.0,
                                   yanchor="bottom", yref="paper"))
    layout: dict[str, Any] = {"annotations": annotations} if annotations else {}
    layout.update(uniformtext={"minsize": MIN_TEXT_SIZE, "mode": "hide"}, margin={"t": 60})
    return {"data": data, "layout": layout}


def precision_sunburst(df: pd.DataFrame) -> Figure:
    """:func:`~trex.figures.overview.precision_per_type_sunburst` (layer types and their
    precisions, sized by layer count)."""
    from ..graph.colors import key_color
    from ._common import precision_colormap
    from .overview import sector_text

    colors = precision_colormap()
    types = df["type"].fillna("None").astype(str)
    precisions = df["precision"].fillna("None").astype(str)
    counts = pd.DataFrame({"type": types, "precision": precisions}).value_counts(sort=False)
    type_counts = types.value_counts(sort=False)
    pairs = list(counts.index)
    type_names = list(type_counts.index)
    values = list(type_counts.to_numpy()) + list(counts.to_numpy())
    return {"data": [trace(
        "sunburst", ids=[f"type/{t}" for t in type_names] + [f"{t}/{p}" for t, p in pairs],
        labels=type_names + [p for _, p in pairs],
        parents=[""] * len(type_names) + [f"type/{t}" for t, _ in pairs],
        values=data_array(np.asarray(values, dtype="int64")), branchvalues="total",
        marker={"colors": ["white"] * len(type_names) + [key_color(p, colors) for _, p in pairs],
                "line": {"color": "#888", "width": 1}},
        leaf={"opacity": 1}, texttemplate=sector_text(values, len(df)),
        insidetextorientation="auto",
        customdata=[""] * len(type_names) + [f"{t}: " for t, _ in pairs],
        hovertemplate="%{customdata}%{label}, %{value} layers<extra></extra>")],
        "layout": {"uniformtext": {"minsize": MIN_TEXT_SIZE, "mode": "hide"}}}


def engine_timings(records: pd.DataFrame, max_markers: int) -> Figure:
    """:func:`~trex.figures.engine_timings.engine_timings_figure` of timing ``records``
    (:func:`~trex.figures.engine_timings.timing_source`) as the report draws it: SVG scatter
    traces (no WebGL), a line instead of more than ``max_markers`` markers."""
    from .engine_timings import PERCENTILE_COLORS, timing_percentiles

    def scatter(**props: Any) -> dict[str, Any]:
        out = trace("scatter", **props)
        if out.get("mode") == "markers" and array_length(out["x"]) > max_markers:
            out["mode"] = "lines"
            out["line"] = {"width": 1, "color": out.get("marker", {}).get("color")}
        return out

    warm = records["warmup"].to_numpy(dtype=bool)
    data = []
    if warm.any():
        part = records[warm]
        data.append(scatter(
            x=data_array(part["iteration"].to_numpy()),
            y=data_array(part["latency_ms"].to_numpy(dtype="float64")), mode="markers",
            name=f"Warm-up ({int(warm.sum())}, left out)", marker={"color": "#9e9e9e", "size": 3},
            hovertemplate="warm-up iteration %{x}<br>%{y:.4f} ms<extra></extra>"))
    timed = records[~warm]
    latency = timed["latency_ms"].to_numpy(dtype="float64")
    iterations = timed["iteration"].to_numpy()
    data.append(scatter(x=data_array(iterations), y=data_array(latency), mode="markers",
                        name="Latency", marker={"color": "#4064ec", "size": 4},
                        hovertemplate="iteration %{x}<br>%{y:.4f} ms<extra></extra>"))
    compute = timed["compute_ms"].to_numpy(dtype="float64")
    if np.isfinite(compute).any() and not np.allclose(compute, latency, equal_nan=True):
        data.append(scatter(x=data_array(iterations), y=data_array(compute), mode="markers",
                            name="GPU compute", marker={"color": "#02d2ba", "size": 3},
                            visible="legendonly"))
    if len(timed):
        ends = [scalar(iterations[0]), scalar(iterations[-1])]
        for p, value in timing_percentiles(timed).items():
            if value == value:
                data.append(scatter(x=ends, y=[scalar(value)] * 2, mode="lines", name=p,
                                    line={"color": PERCENTILE_COLORS[int(p[1:])], "dash": "dash",
                                          "width": 2},
                                    hovertemplate=f"{p}: {value:.4f} ms<extra></extra>"))
    return {"data": data, "layout": {
        "xaxis": {"gridcolor": GRID_COLOR, "title": title("Timing iteration")},
        "yaxis": {"gridcolor": GRID_COLOR, "title": title("Latency (ms)")},
        "plot_bgcolor": "rgba(0, 0, 0, 0)", "paper_bgcolor": "rgba(0, 0, 0, 0)"}}


def array_length(values: Any) -> int:
    """Length of a plotly data array: a list, or a typed array ``{"dtype": "f8", "bdata": ...}``."""
    if isinstance(values, list):
        return len(values)
    if isinstance(values, dict) and "bdata" in values:
        itemsize = int(str(values.get("dtype", "f8"))[1:] or 8)
        return len(base64.b64decode(values["bdata"])) // max(1, itemsize)
    return 0
