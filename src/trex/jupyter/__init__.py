"""Jupyter: TREx's notebook functions (report cards, charts, tables, graphs, comparisons).

Each function is built on a view of :mod:`trex.figures` that returns the figures or tables. In a
notebook, ``report_card_perf_overview(plan);`` shows a dropdown and its chart (every chart when
ipywidgets is missing) and ``plotly_bar2(...)`` shows its figure; in a script nothing is shown and
the same calls return the figures. :mod:`.widgets` holds the display primitives and dropdowns,
:mod:`.display` tables and page helpers, :mod:`.cards` the report cards, :mod:`.graphs` the plan
graphs and :mod:`.compare` the comparison views. ``trex.notebook`` is TREx's name for this package.
"""

from ..figures.frames import clean_for_display, group_count
from .cards import (  # noqa: F401
    layer_latency_sunburst,
    plot_engine_timings,
    plotly_bar2,
    plotly_hist,
    plotly_pie,
    plotly_pie2,
    report_card_convolutions_overview,
    report_card_convolutions_overview_widget,
    report_card_efficiency_vs_latency_3d,
    report_card_gemm_MNK,
    report_card_gemm_MNK_scatter,
    report_card_memory_footprint,
    report_card_memory_footprint_widget,
    report_card_perf_overview,
    report_card_perf_overview_widget,
    report_card_perf_scatter,
    report_card_pointwise_lint,
    report_card_reformat_overview,
    report_card_reformat_overview_widget,
    report_card_table_view,
    stacked_bars,
    stacked_tabular,
)
from .compare import (  # noqa: F401
    compare_engines_layer_details,
    compare_engines_layer_latencies,
    compare_engines_overview,
)
from .display import (  # noqa: F401
    display_df,
    display_df_html,
    display_df_itables,
    display_df_plain,
    display_filechooser,
    section_header,
    set_table_display_backend,
    set_wide_display,
)
from .graphs import (  # noqa: F401
    report_card_draw_plan_graph,
    report_card_draw_plan_graph_extended,
)
from .widgets import Chart, FigureGallery, FigureMenu, InteractiveDiagram, InteractiveDiagram_2

__all__ = [
    "Chart",
    "FigureGallery",
    "FigureMenu",
    "InteractiveDiagram",
    "InteractiveDiagram_2",
    "clean_for_display",
    "compare_engines_layer_details",
    "compare_engines_layer_latencies",
    "compare_engines_overview",
    "display_df",
    "display_df_html",
    "display_df_itables",
    "display_df_plain",
    "display_filechooser",
    "group_count",
    "layer_latency_sunburst",
    "plot_engine_timings",
    "plotly_bar2",
    "plotly_hist",
    "plotly_pie",
    "plotly_pie2",
    "report_card_convolutions_overview",
    "report_card_convolutions_overview_widget",
    "report_card_draw_plan_graph",
    "report_card_draw_plan_graph_extended",
    "report_card_efficiency_vs_latency_3d",
    "report_card_gemm_MNK",
    "report_card_gemm_MNK_scatter",
    "report_card_memory_footprint",
    "report_card_memory_footprint_widget",
    "report_card_perf_overview",
    "report_card_perf_overview_widget",
    "report_card_perf_scatter",
    "report_card_pointwise_lint",
    "report_card_reformat_overview",
    "report_card_reformat_overview_widget",
    "report_card_table_view",
    "section_header",
    "set_table_display_backend",
    "set_wide_display",
    "stacked_bars",
    "stacked_tabular",
]
