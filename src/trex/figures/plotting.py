"""TREx's plotly wrappers (``plotly_bar2``, ``plotly_hist``, ``plotly_pie``, ``plotly_pie2``,
``stacked_bars``), returning figures; :mod:`trex.notebook` has the versions that show them.

Fixed against TREx: axis titles name the quantity and its unit, list-valued colour columns (kernel
sizes) are shown as ``3x3`` categories instead of crashing, and categorical colours get a legend.
Every text (titles, names, categories, hover text) is escaped with :func:`trex.safety.plotly_text`,
so a layer named ``<a href=...>`` shows literally instead of becoming a link.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..safety import escape_figure, plotly_text
from ._common import (
    GRID_COLOR,
    NVDA_GREEN,
    category_colors,
    label,
    make_subplots,
    plotly,
    trex_base_layout,
)
from .frames import stack_dataframes

if TYPE_CHECKING:
    import plotly.graph_objects as go

MAX_TEXT_BARS = 60  # above this many bars, values go to the hover text only
# Legends right of the plot area, never over the bars (TREx put them inside, over the longest bar).
OUTSIDE_LEGEND = {"x": 1.02, "xanchor": "left", "y": 1, "yanchor": "top"}
# Text on pie and sunburst sectors: hidden where it would be smaller than this (the hover keeps it).
MIN_TEXT_SIZE = 10


def category_text(value: Any) -> str:
    """A category label: ``3x3`` for a kernel ``[3, 3]``, ``None`` for a missing value."""
    if isinstance(value, (list, tuple)):
        return "x".join(str(v) for v in value)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "None"
    return str(value)


def is_numeric(values: pd.Series) -> bool:
    """True for numbers (not booleans): such a colour column gets a colour scale."""
    return pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)


def create_layout(title: str | None, size: tuple = (None, None), x_title: str | None = None,
                  y_title: str | None = None, orientation: str = "v",
                  show_axis_ticks: tuple[bool, bool] = (True, True)) -> go.Layout:
    """TREx's bar layout: centred title, grid along the values, titles swapped for horizontal bars."""
    go = plotly()
    if orientation == "h":
        x_title, y_title = y_title, x_title
    return go.Layout(
        title={"text": plotly_text(title), "x": 0.5, "xanchor": "center"},
        width=size[0], height=size[1],
        xaxis={"showticklabels": show_axis_ticks[0], "title": {"text": plotly_text(x_title)},
               "gridcolor": GRID_COLOR if orientation == "h" else None},
        yaxis={"showticklabels": show_axis_ticks[1], "title": {"text": plotly_text(y_title)},
               "gridcolor": GRID_COLOR if orientation == "v" else None},
        plot_bgcolor="rgba(0,0,0,0)",
        legend=dict(OUTSIDE_LEGEND),
    )


def _texttemplate(values: pd.Series) -> str:
    return "%{text:.4f}" if pd.api.types.is_float_dtype(values) else "%{text}"


def donut_style(df: pd.DataFrame, values: str, names: str, colormap: Any
                ) -> tuple[list[str], list[str], dict[str, str]]:
    """One donut's (labels, colours, text templates): shares with ``%``, other numbers as they
    are (4 decimals for floats); the notebook's and the report's donuts share it."""
    labels = [category_text(v) for v in df[names]]
    palette = category_colors(list(dict.fromkeys(labels)), colormap)
    if is_percent(values):
        return labels, palette, {"texttemplate": "%{value:.2f} %",
                                 "hovertemplate": "%{label}<br>%{value:.2f} %<extra></extra>"}
    return labels, palette, {"texttemplate": _texttemplate(df[values]).replace("text", "value"),
                             "hoverinfo": "label+percent+value"}


def plotly_bar2(df: pd.DataFrame | Mapping[str, pd.DataFrame], title: str, values_col: str,
                names_col: str, orientation: str = "v", color: str | None = None,
                size: tuple = (None, None), use_slider: bool = False, colormap: dict | None = None,
                show_axis_ticks: tuple[bool, bool] = (False, True), showlegend: bool = False,
                xaxis_title: str | None = None, yaxis_title: str | None = None) -> go.Figure:
    """Bars of ``df[values_col]`` named by ``df[names_col]``, coloured by ``color``.

    A dict of DataFrames gives one trace per entry; a categorical ``color`` one trace per category."""
    go = plotly()
    layout = create_layout(title, size, xaxis_title or label(names_col),
                           yaxis_title or label(values_col), orientation, show_axis_ticks)
    fig = go.Figure(layout=layout)
    frames = dict(df) if isinstance(df, Mapping) else {None: df}
    for name, part in frames.items():
        for trace in _bars(part, name, values_col, names_col, orientation, color, colormap,
                           showlegend or len(frames) > 1):
            fig.add_trace(trace)
    if not isinstance(df, Mapping) and len(fig.data) > 1:
        # One trace per colour category: keep the rows' order along the axis and stack, not group.
        order = plotly_text([category_text(v) for v in df[names_col].tolist()])
        axis = "xaxis" if orientation == "v" else "yaxis"
        fig.update_layout({axis: {"categoryorder": "array", "categoryarray": order},
                           "barmode": "stack", "legend_title_text": plotly_text(label(color)),
                           "legend_traceorder": "normal"})
    elif isinstance(df, Mapping):
        fig.update_layout(barmode="group")
    if use_slider:
        fig.update_xaxes(rangeslider_visible=True)
    return escape_figure(fig)


def _bars(df: pd.DataFrame, name: str | None, values_col: str, names_col: str, orientation: str,
          color: str | None, colormap: dict | None, showlegend: bool) -> list[Any]:
    go = plotly()
    names = [category_text(v) for v in df[names_col].tolist()]
    values = df[values_col]
    text_kw: dict[str, Any] = {}
    if len(df) <= MAX_TEXT_BARS:
        text_kw = {"text": values.to_numpy(), "texttemplate": _texttemplate(values)}
    vlab, nlab = plotly_text(label(values_col)), plotly_text(label(names_col))
    if orientation == "v":
        hover = f"{nlab}: %{{x}}<br>{vlab}: %{{y:.4f}}"
    else:
        hover = f"{vlab}: %{{x:.4f}}<br>{nlab}: %{{y}}"

    def bar(rows: np.ndarray | slice, trace_name: str | None, marker: dict[str, Any],
            legend: bool, extra: str = "") -> Any:
        n = np.asarray(names, dtype=object)[rows]
        v = values.to_numpy()[rows]
        xy = {"x": n, "y": v} if orientation == "v" else {"x": v, "y": n}
        kw = dict(text_kw)
        if kw:
            kw["text"] = kw["text"][rows]
        return go.Bar(**xy, orientation=orientation, marker=marker, name=trace_name,
                      showlegend=legend, hovertemplate=hover + extra + "<extra></extra>", **kw)

    if color is None:
        marker = {"color": NVDA_GREEN} if name is None else {}
        return [bar(slice(None), name, marker, showlegend)]
    colors = df[color]
    if is_numeric(colors):
        clab = plotly_text(label(color))
        marker = {"color": colors.to_numpy(), "colorscale": "Viridis",
                  "colorbar": {"title": {"text": clab}}}
        return [bar(slice(None), name, marker, showlegend, f"<br>{clab}: %{{marker.color}}")]
    keys = [category_text(v) for v in colors.tolist()]
    palette = category_colors(list(dict.fromkeys(keys)), colormap)
    if name is not None:  # one trace per DataFrame, bars coloured by category
        return [bar(slice(None), name, {"color": [palette[k] for k in keys]}, showlegend)]
    key_array = np.asarray(keys, dtype=object)
    return [bar(np.flatnonzero(key_array == key), key, {"color": palette[key]}, True)
            for key in palette]


def plotly_hist(df: pd.DataFrame, title: str, values_col: str, xaxis_title: str | None = None,
                color: str | None = None, colormap: dict | None = None,
                yaxis_title: str = "Layers", nbins: int | None = None) -> go.Figure:
    """Histogram of ``df[values_col]``, stacked by ``color`` category."""
    go = plotly()
    fig = go.Figure()
    nbins = nbins or max(1, min(len(df), 100))
    if color is None:
        groups = {None: df}
    else:
        keys = pd.Series([category_text(v) for v in df[color].tolist()], index=df.index)
        groups = {k: df[keys == k] for k in dict.fromkeys(keys)}
    palette = category_colors([k for k in groups if k is not None], colormap)
    for key, part in groups.items():
        fig.add_trace(go.Histogram(x=part[values_col].to_numpy(), name=key, nbinsx=nbins,
                                   marker_color=palette.get(key, NVDA_GREEN),
                                   showlegend=key is not None))
    fig.update_layout(title={"text": plotly_text(title), "x": 0.5}, barmode="stack", bargap=0.05,
                      template="simple_white", legend_title_text=plotly_text(label(color)),
                      xaxis_title=plotly_text(xaxis_title or label(values_col)),
                      yaxis_title=plotly_text(yaxis_title))
    return escape_figure(fig)


def plotly_pie(df: pd.DataFrame, title: str, values: str, names: str,
               colormap: dict | None = None) -> go.Figure:
    """Pie of ``df[values]`` per ``df[names]``."""
    go = plotly()
    labels = [category_text(v) for v in df[names]]
    palette = category_colors(list(dict.fromkeys(labels)), colormap)
    fig = go.Figure(go.Pie(labels=labels, values=df[values].to_numpy(), sort=False,
                           marker={"colors": [palette[k] for k in labels],
                                   "line": {"color": NVDA_GREEN, "width": 1}},
                           hoverinfo="label+percent+value", textinfo="value"))
    fig.update_layout(title={"text": plotly_text(title), "x": 0.5},
                      uniformtext={"minsize": MIN_TEXT_SIZE, "mode": "hide"})
    return escape_figure(fig)


def wrap_title(text: str, width: int = 18) -> str:
    """A title for plotly, escaped, on lines of about ``width`` characters (``<br>`` between them,
    broken after spaces, ``-``, ``_`` and ``/``): side-by-side subplot titles then never overlap."""
    words = re.findall(r"[^\s\-_/]*[\s\-_/]?", str(text))
    lines, line = [], ""
    for word in filter(None, words):
        if line and len(line) + len(word.rstrip()) > width:
            lines.append(line.rstrip())
            line = ""
        line += word
    if line.strip():
        lines.append(line.rstrip())
    return "<br>".join(plotly_text(part) for part in lines)


def is_percent(column: str) -> bool:
    """True for a column of percentages (``latency.pct_time``, ``*_pct``): its numbers get ``%``."""
    return column.endswith(("pct_time", "_pct")) or "%" in (label(column) or "")


def plotly_pie2(title: str, charts: Sequence[tuple[pd.DataFrame, str, str, str]], max_cols: int = 3,
                colormap: dict | None = None) -> go.Figure:
    """Several donuts in a grid; each chart is ``(df, title, values column, names column)``.

    Titles wrap (:func:`wrap_title`) so that two never overlap, and a column of percentages
    (:func:`is_percent`) shows its numbers with ``%``."""
    go = plotly()
    n_cols = max(1, min(max_cols, len(charts)))
    n_rows = max(1, math.ceil(len(charts) / n_cols))
    fig = make_subplots(rows=n_rows, cols=n_cols, specs=[[{"type": "domain"}] * n_cols] * n_rows,
                        subplot_titles=[wrap_title(str(c[1])) for c in charts])
    for i, (df, chart_title, values, names) in enumerate(charts):
        labels, palette, text = donut_style(df, values, names, colormap)
        fig.add_trace(go.Pie(labels=labels, values=df[values].to_numpy(), name=chart_title,
                             sort=False, hole=0.4, textposition="inside",
                             marker={"colors": [palette[k] for k in labels],
                                     "line": {"color": NVDA_GREEN, "width": 1}}, **text),
                      row=i // n_cols + 1, col=i % n_cols + 1)
    # two-line titles above the donuts: room for them under the figure's own title
    fig.update_annotations(font_size=13)
    fig.update_layout(title={"text": plotly_text(title), "x": 0.5},
                      uniformtext={"minsize": MIN_TEXT_SIZE, "mode": "hide"},
                      margin={"t": 60 if title is None else 90})
    return escape_figure(fig)


def stacked_tabular_df(bar_names: Sequence[str], df_list: Sequence[pd.DataFrame], names_col: str,
                       values_col: str, empty_symbol: Any = 0) -> pd.DataFrame:
    """The table behind :func:`stacked_bars`: one row per name, one column per bar."""
    stacked = stack_dataframes(df_list, names_col, values_col, empty_symbol)
    df = pd.DataFrame.from_dict(stacked, orient="index", columns=list(bar_names))
    df.insert(0, values_col, list(stacked))
    return df.reset_index(drop=True)


def stacked_bars(title: str, bar_names: Sequence[str], df_list: Sequence[pd.DataFrame],
                 names_col: str, values_col: str, empty_symbol: Any = 0,
                 colormap: dict | None = None, fig: go.Figure | None = None,
                 xaxis_title: str | None = None, yaxis_title: str | None = None) -> go.Figure:
    """One stacked bar per DataFrame of ``df_list``, one segment per ``names_col`` value."""
    go = plotly()
    stacked = stack_dataframes(df_list, names_col, values_col, empty_symbol)
    palette = category_colors(list(stacked), colormap)
    bars = [go.Bar(name=category_text(k), x=list(bar_names), y=v, marker_color=palette[k], text=v,
                   texttemplate="%{text:.4f}") for k, v in stacked.items()]
    if fig is None:
        fig = trex_base_layout(go.Figure())
    fig.add_traces(bars)
    fig.update_layout(title={"text": plotly_text(title), "x": 0.5}, barmode="stack", showlegend=True,
                      uniformtext_minsize=8, uniformtext_mode="hide",
                      yaxis_title=plotly_text(yaxis_title or label(values_col)),
                      xaxis_title=plotly_text(xaxis_title), legend_title_text=plotly_text(label(names_col)))
    return escape_figure(fig)
