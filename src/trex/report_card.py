"""Alias of the report cards of :mod:`trex.jupyter` under TREx's module name ``report_card``."""

from .jupyter import (  # noqa: F401
    layer_latency_sunburst,
    plot_engine_timings,
    report_card_convolutions_overview,
    report_card_convolutions_overview_widget,
    report_card_draw_plan_graph,
    report_card_draw_plan_graph_extended,
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
)
