"""``from trex import *`` gives every name TREx's notebooks use; ``import trex`` stays light."""

from __future__ import annotations

import functools
import subprocess
import sys

import pytest

import trex

# Every name the cells of TREx's engine_report_card.ipynb and compare_engines.ipynb use after
# `from trex import *` (and its notebook/report_card/compare_engines star imports).
REPORT_CARD_NAMES = [
    "EnginePlan", "set_wide_display", "report_card_draw_plan_graph_extended",
    "layer_latency_sunburst", "report_card_table_view", "plot_engine_timings",
    "report_card_perf_overview", "report_card_perf_overview_widget",
    "report_card_memory_footprint", "report_card_memory_footprint_widget",
    "report_card_convolutions_overview", "report_card_convolutions_overview_widget", "partial",
    "plotting", "group_count", "display_df", "report_card_gemm_MNK", "report_card_gemm_MNK_scatter",
    "report_card_efficiency_vs_latency_3d", "report_card_perf_scatter", "ConvLinter",
    "report_card_reformat_overview", "ReformatLinter", "SliceLinter", "QDQLinter",
    "report_card_pointwise_lint", "ExcelSummary", "clean_for_display", "report_card_draw_plan_graph",
    "section_header", "set_table_display_backend", "display_filechooser", "plotly_bar2",
    "plotly_hist", "plotly_pie", "plotly_pie2", "stacked_bars", "group_sum_attr",
    "group_mean_attr", "InteractiveDiagram", "InteractiveDiagram_2",
]
COMPARE_NAMES = [
    "compare_engines_overview", "compare_engines_summaries_tbl", "compare_engines_layer_latencies",
    "compare_engines_layer_details", "get_plans_names", "match_layers", "aligned_merge_plans",
    "aligned_layers", "graphing",
]


def _python(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=120).stdout.strip()


def test_star_import_provides_every_notebook_name():
    names = REPORT_CARD_NAMES + COMPARE_NAMES
    out = _python("from trex import *\nimport functools\n"
                  f"names = {names!r}\n"
                  "missing = [n for n in names if n not in globals()]\n"
                  "print(missing, partial is functools.partial, plotting.plotly_bar2.__module__,"
                  " graphing.to_dot.__module__, colors.layer_colormap['Convolution'])")
    assert out == "[] True trex.jupyter.cards trex.graph.dot #4682B4"


def test_every_name_in_all_resolves():
    for name in trex.__all__:
        assert getattr(trex, name) is not None, name
    assert set(trex.__all__) <= set(dir(trex))


def test_trex_notebook_import_sequence_keeps_the_widget_versions():
    """TREx's notebooks star-import trex, trex.notebook, trex.report_card, trex.compare_engines."""
    out = _python("from trex import *\nfrom trex.notebook import *\nfrom trex.report_card import *\n"
                  "from trex.compare_engines import *\nimport inspect\n"
                  "print(compare_engines_layer_details.__module__, "
                  "inspect.signature(compare_engines_layer_details).parameters['row'].default, "
                  "compare_engines_overview.__module__, report_card_perf_overview.__module__, "
                  "match_layers.__module__)")
    # TREx's notebook versions (they show their widgets), not the plain ones of trex.compare.
    assert out == ("trex.jupyter.compare None trex.jupyter.compare trex.jupyter.cards "
                   "trex.compare.align")


def test_star_import_loads_no_heavy_package_until_used():
    out = _python("import sys\nfrom trex import *\n"
                  "print(sorted(m for m in ('plotly', 'IPython', 'ipywidgets', 'xlsxwriter', 'openpyxl',"
                  " 'dtale', 'graphviz') if m in sys.modules))")
    assert out == "[]"


def test_plain_import_is_fast_and_light():
    out = _python("import sys, time\nt = time.perf_counter()\nimport trex\n"
                  "print(round(time.perf_counter() - t, 3), "
                  "[m for m in ('plotly', 'IPython', 'trex.jupyter', 'trex.figures', 'trex.graph')"
                  " if m in sys.modules])")
    seconds, modules = out.split(" ", 1)
    assert modules == "[]" and float(seconds) < 5


def test_lazy_attributes_and_module_aliases():
    from trex import misc, notebook

    assert trex.plotly_bar2 is notebook.plotly_bar2
    assert trex.group_count is misc.group_count
    assert trex.df_preprocessing.group_count is misc.group_count
    assert trex.plotting.plotly_bar2 is notebook.plotly_bar2
    assert trex.partial is functools.partial
    assert trex.figures.perf_overview_figures and trex.lint.ConvLinter is trex.ConvLinter
    assert trex.create_activations({"Inputs": [], "Outputs": []}) == ([], [])
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        _ = trex.not_a_name
