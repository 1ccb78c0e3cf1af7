"""Report-card views: functions that return plotly figures or DataFrames, never show or print.

Needs ``trex[plot]`` (plotly, imported when a figure is built). :mod:`trex.notebook` shows these
in Jupyter with TREx's names; :class:`trex.excel.ExcelSummary` writes them to Excel.
"""

from __future__ import annotations

from ._common import LABELS, build_all, label, layer_colormap, precision_colormap, trex_base_layout
from .convolutions import (
    convolutions_overview_builders,
    convolutions_overview_figures,
    efficiency_vs_latency_3d,
    gemm_MNK_builders,
    gemm_MNK_figures,
    gemm_MNK_scatter_builders,
    gemm_MNK_scatter_figures,
    perf_scatter_builders,
    perf_scatter_figures,
    scatter,
)
from .drawings import GRAPH_CHOICES, draw_plan_graph, render_plan_graph
from .engine_timings import engine_timings_figure, timing_percentiles, timing_source
from .layers import conv_layers, pointwise_layers, reformat_layers
from .overview import (
    latency_by_type,
    layer_latency_sunburst,
    memory_footprint_builders,
    memory_footprint_figures,
    perf_overview_builders,
    perf_overview_figures,
    precision_per_type_sunburst,
)
from .plotting import (
    create_layout,
    plotly_bar2,
    plotly_hist,
    plotly_pie,
    plotly_pie2,
    stacked_bars,
    stacked_tabular_df,
)
from .pointwise import PointwiseReport, pointwise_figure, pointwise_report
from .reformats import reformat_overview_builders, reformat_overview_figures
from .tables import table_caption, table_view, table_view_choices

__all__ = [
    "GRAPH_CHOICES",
    "LABELS",
    "PointwiseReport",
    "build_all",
    "conv_layers",
    "convolutions_overview_builders",
    "convolutions_overview_figures",
    "create_layout",
    "draw_plan_graph",
    "efficiency_vs_latency_3d",
    "engine_timings_figure",
    "gemm_MNK_builders",
    "gemm_MNK_figures",
    "gemm_MNK_scatter_builders",
    "gemm_MNK_scatter_figures",
    "label",
    "latency_by_type",
    "layer_colormap",
    "layer_latency_sunburst",
    "memory_footprint_builders",
    "memory_footprint_figures",
    "perf_overview_builders",
    "perf_overview_figures",
    "perf_scatter_builders",
    "perf_scatter_figures",
    "plotly_bar2",
    "plotly_hist",
    "plotly_pie",
    "plotly_pie2",
    "pointwise_figure",
    "pointwise_layers",
    "pointwise_report",
    "precision_colormap",
    "precision_per_type_sunburst",
    "reformat_layers",
    "reformat_overview_builders",
    "reformat_overview_figures",
    "render_plan_graph",
    "scatter",
    "stacked_bars",
    "stacked_tabular_df",
    "table_caption",
    "table_view",
    "table_view_choices",
    "timing_percentiles",
    "timing_source",
    "trex_base_layout",
]
