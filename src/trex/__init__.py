"""trex: explore TensorRT engine plans and their profiling data (successor of NVIDIA's TREx).

``import trex`` loads only the core (pandas and numpy); views with heavier dependencies are
imported on first use. ``from trex import *`` gives every name of TREx's notebooks (report card,
plotting, linters, graphs, engine comparison, ``partial``), each imported from its module then.
"""

from __future__ import annotations

import importlib
from typing import Any

from . import errors
from .errors import InputError, TrexError, TrexNote, TrexWarning
from .model import Activation, EnginePlan, Layer, summary_dict

__version__ = "0.3.0"
errors.show_plainly()  # trex's warnings and notes as one line each, in notebooks too

__all__ = [
    "Activation",
    "EnginePlan",
    "InputError",
    "Layer",
    "TrexError",
    "TrexNote",
    "TrexWarning",
    "summary_dict",
    "__version__",
]

# name -> "module" (the name is an attribute of it) or "module:attribute".
_LAZY: dict[str, str] = {
    "partial": "functools",  # TREx's star import brought it, and its notebooks use it
    # report card, plotting wrappers and tables, shown in notebooks (TREx's report_card/notebook)
    **dict.fromkeys([
        "report_card_perf_overview", "report_card_perf_overview_widget",
        "report_card_memory_footprint", "report_card_memory_footprint_widget",
        "report_card_convolutions_overview", "report_card_convolutions_overview_widget",
        "report_card_reformat_overview", "report_card_reformat_overview_widget",
        "report_card_table_view", "report_card_pointwise_lint", "report_card_gemm_MNK",
        "report_card_gemm_MNK_scatter", "report_card_efficiency_vs_latency_3d",
        "report_card_perf_scatter", "report_card_draw_plan_graph",
        "report_card_draw_plan_graph_extended", "layer_latency_sunburst", "plot_engine_timings",
        "plotly_bar2", "plotly_hist", "plotly_pie", "plotly_pie2", "stacked_bars",
        "stacked_tabular", "section_header", "set_wide_display", "display_df",
        "display_df_html", "display_df_itables", "display_df_plain", "set_table_display_backend",
        "display_filechooser", "FigureMenu", "compare_engines_overview",
        "compare_engines_layer_latencies", "compare_engines_layer_details",
    ], "trex.jupyter"),
    **dict.fromkeys(["InteractiveDiagram", "InteractiveDiagram_2"], "trex.jupyter.widgets"),
    # DataFrame helpers (TREx's misc and df_preprocessing)
    **dict.fromkeys([
        "group_count", "group_sum_attr", "group_mean_attr", "shape_to_str", "stack_dicts",
        "stack_dataframes", "create_activations", "clean_io", "clean_df", "clean_for_display",
        "change_col_order", "drop_columns", "filter_by_layer",
    ], "trex.misc"),  # (TREx's module names: aliases of trex.report.frames/layers)
    # engine comparison (TREx's compare_engines; the notebook versions above show their widgets)
    **dict.fromkeys([
        "get_plans_names", "match_layers", "aligned_merge_plans", "aligned_layers",
        "compare_engines_summaries_tbl", "align_layers", "align_plans", "compare_layers",
        "compare_by_type", "compare_by_precision", "summary_table", "layer_regressions",
        "check_regression", "aligned_latencies_figure",
    ], "trex.compare"),
    # linters
    **dict.fromkeys([
        "ConvLinter", "ReformatLinter", "SliceLinter", "QDQLinter", "lint_report",
    ], "trex.lint"),
    # graphs (TREx's graphing)
    **dict.fromkeys([
        "to_dot", "render_dot", "DotGraph", "PlanGraph", "OnnxGraph", "layer_type_formatter",
        "layer_precision_formatter", "layer_node_renderers", "latency_types", "draw_plan",
    ], "trex.graph"),
    **dict.fromkeys(["layer_colormap", "precision_colormap"], "trex.graph.colors"),
    "ExcelSummary": "trex.excel",
}

# TREx's module names, which its star import also brought (``plotting.plotly_bar2(...)``).
_MODULES = {
    "plotting": "trex.plotting",
    "graphing": "trex.graph",
    "colors": "trex.colors",
    "notebook": "trex.notebook",
    "interactive": "trex.interactive",
    "misc": "trex.misc",
    "df_preprocessing": "trex.df_preprocessing",
    "report_card": "trex.report_card",
    "excel_summary": "trex.excel_summary",
}

# Subpackages reachable as attributes without importing them first (not star-imported).
_SUBMODULES = {"compare", "compare_engines", "compute", "graph", "lint", "onnx_map", "report",
               "routes", "summary", "timings"}

__all__ += [*_LAZY, *_MODULES]

def __getattr__(name: str) -> Any:
    """Import a lazily provided name (or module) on first use."""
    if name in _MODULES:
        value = importlib.import_module(_MODULES[name])
    elif name in _LAZY:
        module, _, attr = _LAZY[name].partition(":")
        value = getattr(importlib.import_module(module), attr or name)
    elif name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value

def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | set(_MODULES) | _SUBMODULES)
