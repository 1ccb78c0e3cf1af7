"""The performance and memory-footprint overviews of TREx's report card, and the latency sunburst.

``*_builders(plan)`` return ``{title: builder}`` (each ``builder(title=None)`` makes one figure, so a
dropdown builds only what is chosen); ``*_figures(plan)`` build them all.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..graph.colors import key_color
from ..model.latency import group_latency
from ..safety import escape_figure, plotly_text
from ._common import Builder, Source, build_all, frame, label, layer_colormap, plotly, precision_colormap
from .frames import group_count, group_sum_attr, hashable
from .plotting import MIN_TEXT_SIZE, plotly_bar2, plotly_hist, plotly_pie2

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from ..model.plan import EnginePlan


MIN_LABEL_SHARE = 0.02  # sunburst sectors narrower than this share of the circle show no text


def sector_text(values: list[float] | np.ndarray, total: float) -> list[str]:
    """Per sunburst sector: its label where the sector is at least ``MIN_LABEL_SHARE`` of the
    circle, else nothing (a tiny sector's text was unreadable; the hover still names it)."""
    total = float(total)
    return ["%{label}" if total > 0 and float(v) / total >= MIN_LABEL_SHARE else ""
            for v in values]


def _sunburst_text_layout(fig: go.Figure) -> None:
    # text that would need a smaller font than MIN_TEXT_SIZE is hidden rather than shrunk
    fig.update_layout(uniformtext={"minsize": MIN_TEXT_SIZE, "mode": "hide"})


def latency_by_type(df: pd.DataFrame) -> pd.DataFrame:
    """``latency.avg_time`` and ``latency.pct_time`` per layer type under TREx's column names:
    the model's grouping (:func:`~trex.model.latency.group_latency`, NaN where no layer of a type
    is timed), so the report card and every table agree."""
    keys = df["type"].fillna("None").astype(str).tolist() if len(df) else []
    grouped = group_latency({"type": keys}, df["latency.avg_time"].to_numpy(dtype="float64")
                            if len(df) else np.zeros(0))
    return grouped.rename(columns={"latency_ms": "latency.avg_time",
                                   "latency_pct": "latency.pct_time"})[
        ["type", "latency.pct_time", "latency.avg_time"]]


def perf_overview_builders(plan: EnginePlan) -> dict[str, Builder]:
    """TREx's performance diagrams, by title: latency per layer and per type, precisions, distribution."""
    df = plan.df
    layer_colors, precision_colors = layer_colormap(), precision_colormap()
    by_type = latency_by_type(df)
    per_layer = partial(plotly_bar2, df, names_col="Name", xaxis_title="Layer")
    per_type = partial(plotly_bar2, names_col="type", color="type", colormap=layer_colors,
                       orientation="h", show_axis_ticks=(True, True))
    precision_charts = [
        (group_count(df, "precision"), "Layer count by precision", "count", "precision"),
        (group_sum_attr(df, "precision", "latency.pct_time"), "% latency by precision",
         "latency.pct_time", "precision"),
    ]
    return {
        "Latency per layer (%)": partial(per_layer, title="Latency per layer (%)",
                                         values_col="latency.pct_time", color="type",
                                         colormap=layer_colors),
        "Latency per layer (ms)": partial(per_layer, title="Latency per layer (ms)",
                                          values_col="latency.avg_time", color="type",
                                          colormap=layer_colors),
        "Layer latency distribution": partial(plotly_hist, df, title="Layer latency distribution",
                                              values_col="latency.avg_time", color="type",
                                              colormap=layer_colors),
        "Precision per layer": partial(per_layer, title="Precision per layer",
                                       values_col="latency.avg_time", color="precision",
                                       colormap=precision_colors),
        "Output precision per layer": partial(per_layer, title="Output precision per layer",
                                              values_col="latency.avg_time",
                                              color="output_precision",
                                              colormap=precision_colors),
        "Count per layer type": partial(per_type, group_count(df, "type"),
                                        title="Count per layer type", values_col="count"),
        "Latency per layer type (ms)": partial(per_type, by_type, title="Latency per layer type (ms)",
                                               values_col="latency.avg_time"),
        "Latency per layer type (%)": partial(per_type, by_type, title="Latency per layer type (%)",
                                              values_col="latency.pct_time"),
        "Precision per layer type": partial(precision_per_type_sunburst, plan,
                                            title="Precision per layer type"),
        "Precision rollup": partial(plotly_pie2, title="Precision rollup", charts=precision_charts,
                                    colormap=precision_colors),
    }


def perf_overview_figures(plan: EnginePlan) -> dict[str, go.Figure]:
    """Every figure of :func:`perf_overview_builders`, built."""
    return build_all(perf_overview_builders(plan))


def memory_footprint_builders(plan: EnginePlan) -> dict[str, Builder]:
    """TREx's memory diagrams by title: weights, activations, total footprint per layer and their spread."""
    df = plan.df
    colors = layer_colormap()
    bars = partial(plotly_bar2, df, names_col="Name", color="type", colormap=colors,
                   show_axis_ticks=(False, True), xaxis_title="Layer")
    hist = partial(plotly_hist, df, color="type", colormap=colors)
    out: dict[str, Builder] = {}
    for what, column in (("Weights", "weights_size"), ("Activation", "total_io_size_bytes"),
                         ("Total", "total_footprint_bytes")):
        title = f"{what} footprint per layer"
        out[title] = partial(bars, title=title, values_col=column)
    for what, column in (("Weights", "weights_size"), ("Activations", "total_io_size_bytes"),
                         ("Total", "total_footprint_bytes")):
        title = f"{what} footprint distribution per layer"
        out[title] = partial(hist, title=title, values_col=column, xaxis_title=label(column))
    return out


def memory_footprint_figures(plan: EnginePlan) -> dict[str, go.Figure]:
    """Every figure of :func:`memory_footprint_builders`, built."""
    return build_all(memory_footprint_builders(plan))


def layer_latency_sunburst(source: Source, title: str = "Layer latencies (ms)",
                           value_col: str = "latency.avg_time") -> go.Figure:
    """Sunburst of layer types and their layers, each wedge sized by its latency.

    TREx sized the wedges by layer count (and its leaves were latency values); here a type's wedge
    is its summed latency and the centre is the engine's total."""
    go = plotly()
    df = frame(source)
    colors = layer_colormap()
    types = hashable(df["type"]).fillna("None").astype(str).to_numpy()
    values = df[value_col].fillna(0.0).clip(lower=0.0).to_numpy(dtype="float64")
    names = df["Name"].astype(str).to_numpy()
    type_order = list(dict.fromkeys(types))
    type_sum = {t: float(values[types == t].sum()) for t in type_order}
    total = float(values.sum())
    root = "All layers"
    ids = [root] + [f"type/{t}" for t in type_order] + [f"layer/{i}" for i in range(len(df))]
    labels = [root] + type_order + list(names)
    parents = [""] + [root] * len(type_order) + [f"type/{t}" for t in types]
    sizes = [total] + [type_sum[t] for t in type_order] + list(values)
    fill = (["white"] + [key_color(t, colors) for t in type_order]
            + [key_color(t, colors) for t in types])
    unit = "%" if value_col == "latency.pct_time" else " ms"
    fig = go.Figure(go.Sunburst(ids=ids, labels=labels, parents=parents, values=sizes,
                                branchvalues="total", marker={"colors": fill},
                                leaf={"opacity": 1}, texttemplate=sector_text(sizes, total),
                                insidetextorientation="auto",
                                hovertemplate=f"%{{label}}<br>%{{value:.4f}}{unit}"
                                              "<br>%{percentRoot:.1%} of the total<extra></extra>"))
    fig.update_layout(title={"text": plotly_text(title), "x": 0.5},
                      margin={"t": 50, "l": 0, "r": 0, "b": 0})
    _sunburst_text_layout(fig)
    return escape_figure(fig)


def precision_per_type_sunburst(plan: Source, title: str = "Precision per layer type") -> go.Figure:
    """Sunburst of layer types and their precisions, sized by layer count (TREx's diagram)."""
    go = plotly()
    df = frame(plan)
    colors = precision_colormap()
    types = df["type"].fillna("None").astype(str)
    precisions = df["precision"].fillna("None").astype(str)
    counts = pd.DataFrame({"type": types, "precision": precisions}).value_counts(sort=False)
    type_counts = types.value_counts(sort=False)
    ids = [f"type/{t}" for t in type_counts.index] + [f"{t}/{p}" for t, p in counts.index]
    labels = list(type_counts.index) + [p for _, p in counts.index]
    parents = [""] * len(type_counts) + [f"type/{t}" for t, _ in counts.index]
    values = list(type_counts.to_numpy()) + list(counts.to_numpy())
    fill = ["white"] * len(type_counts) + [key_color(p, colors) for _, p in counts.index]
    fig = go.Figure(go.Sunburst(ids=ids, labels=labels, parents=parents,
                                values=np.asarray(values, dtype="int64"), branchvalues="total",
                                marker={"colors": fill, "line": {"color": "#888", "width": 1}},
                                leaf={"opacity": 1}, texttemplate=sector_text(values, len(df)),
                                insidetextorientation="auto",
                                customdata=[""] * len(type_counts) + [f"{t}: " for t, _ in
                                                                      counts.index],
                                hovertemplate="%{customdata}%{label}, %{value} layers"
                                              "<extra></extra>"))
    name = getattr(plan, "name", "")
    text = plotly_text(title)
    if name:
        text = f"{text}<br>({plotly_text(str(name))})"
    fig.update_layout(title={"text": text, "x": 0.5})
    _sunburst_text_layout(fig)
    return escape_figure(fig)
