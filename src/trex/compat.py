"""TREx's public surface, declared once: its module names and what ``from trex import *`` gave.

``trex/__init__`` provides the star-import names and TREx's module names from these tables, each
TREx-named module (``trex.report_card``, ``trex.compare_engines``, ...) is an alias made by
:func:`alias_module`, and ``tests/test_docs.py`` checks that the "Coming from TREx" page places
every name declared here. Adding a TREx name is one line here (plus its row on that page).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
from collections.abc import Callable
from typing import Any

_JUPYTER = "trex.jupyter"
_REPORT_CARDS = (
    "report_card_perf_overview", "report_card_perf_overview_widget",
    "report_card_memory_footprint", "report_card_memory_footprint_widget",
    "report_card_convolutions_overview", "report_card_convolutions_overview_widget",
    "report_card_reformat_overview", "report_card_reformat_overview_widget",
    "report_card_table_view", "report_card_pointwise_lint", "report_card_gemm_MNK",
    "report_card_gemm_MNK_scatter", "report_card_efficiency_vs_latency_3d",
    "report_card_perf_scatter", "report_card_draw_plan_graph",
    "report_card_draw_plan_graph_extended", "layer_latency_sunburst", "plot_engine_timings",
)
# TREx's notebook versions of the comparison views (they show their dropdowns in Jupyter).
_COMPARE_WIDGETS = ("compare_engines_overview", "compare_engines_layer_latencies",
                    "compare_engines_layer_details")

# What ``from trex import *`` gives beyond the core (TREx's __init__ star-imported its modules):
# name -> "module" (the name is an attribute of it) or "module:attribute".
STAR_NAMES: dict[str, str] = {
    "partial": "functools",  # TREx's star import brought it, and its notebooks use it
    # report cards, plotting wrappers and tables, shown in notebooks (TREx's report_card/notebook)
    **dict.fromkeys([
        *_REPORT_CARDS, *_COMPARE_WIDGETS,
        "plotly_bar2", "plotly_hist", "plotly_pie", "plotly_pie2", "stacked_bars",
        "stacked_tabular", "section_header", "set_wide_display", "display_df",
        "display_df_html", "display_df_itables", "display_df_plain", "set_table_display_backend",
        "display_filechooser", "FigureMenu",
    ], _JUPYTER),
    **dict.fromkeys(["InteractiveDiagram", "InteractiveDiagram_2"], "trex.jupyter.widgets"),
    # DataFrame helpers (TREx's misc and df_preprocessing)
    **dict.fromkeys([
        "group_count", "group_sum_attr", "group_mean_attr", "shape_to_str", "stack_dicts",
        "stack_dataframes", "create_activations", "clean_io", "clean_df", "clean_for_display",
        "change_col_order", "drop_columns", "filter_by_layer",
    ], "trex.misc"),
    # engine comparison (TREx's compare_engines; the notebook versions above show their widgets)
    **dict.fromkeys([
        "get_plans_names", "match_layers", "aligned_merge_plans", "aligned_layers",
        "compare_engines_summaries_tbl", "align_layers", "align_plans", "compare_layers",
        "compare_by_type", "compare_by_precision", "summary_table", "layer_regressions",
        "check_regression", "aligned_latencies_figure",
    ], "trex.compare"),
    **dict.fromkeys(["ConvLinter", "ReformatLinter", "SliceLinter", "QDQLinter", "lint_report"],
                    "trex.lint"),
    # graphs (TREx's graphing)
    **dict.fromkeys([
        "to_dot", "render_dot", "DotGraph", "PlanGraph", "OnnxGraph", "layer_type_formatter",
        "layer_precision_formatter", "layer_node_renderers", "latency_types", "draw_plan",
    ], "trex.graph"),
    **dict.fromkeys(["layer_colormap", "precision_colormap"], "trex.graph.colors"),
    "ExcelSummary": "trex.excel",
}

# TREx's module names: each is a trex module (its public names, ``__all__``), or the names TREx's
# module held, from wherever trex keeps them ("module" or "module:attribute" as above; "*": every
# public name of a module, the other keys overriding).
MODULES: dict[str, str | dict[str, str]] = {
    "engine_plan": {"EnginePlan": "trex.model.plan", "summary_dict": "trex.model.facts"},
    "layer": {"Layer": "trex.model.layer", "fold_no_ops": "trex.model.layer",
              "Activation": "trex.model.tensors"},
    "activations": {"Activation": "trex.model.tensors"},
    "misc": {"*": "trex.figures.frames", "LAYER_ATTRIBUTES": "trex.figures.layers",
             "filter_by_layer": "trex.figures.layers"},
    "df_preprocessing": "trex.misc",
    "graphing": "trex.graph",
    "colors": "trex.graph.colors",
    "plotting": {
        **dict.fromkeys(["plotly_bar2", "plotly_hist", "plotly_pie", "plotly_pie2",
                         "stacked_bars", "stacked_tabular"], "trex.jupyter.cards"),
        **dict.fromkeys(["layer_colormap", "precision_colormap"], "trex.graph.colors"),
        **dict.fromkeys(["DEFAULT_PALETTE", "GRID_COLOR", "NVDA_GREEN", "UNKNOWN_KEY_COLOR",
                         "trex_base_layout"], "trex.figures._common"),
        "default_pallete": "trex.figures._common:DEFAULT_PALETTE",  # TREx's spelling
        **dict.fromkeys(["create_layout", "stacked_tabular_df"], "trex.figures.plotting"),
    },
    "notebook": _JUPYTER,
    "interactive": "trex.jupyter.widgets",
    "report_card": dict.fromkeys(_REPORT_CARDS, _JUPYTER),
    "compare_engines": {"*": "trex.compare", **dict.fromkeys(_COMPARE_WIDGETS, _JUPYTER)},
    "excel_summary": "trex.excel",
}
# The TREx modules ``from trex import *`` also gave as names (``plotting.plotly_bar2(...)``).
STAR_MODULES = ("plotting", "graphing", "colors", "notebook", "interactive", "misc",
                "df_preprocessing", "report_card", "excel_summary")


def names_of(trex_module: str) -> dict[str, str]:
    """The names of one of TREx's modules, each with where trex keeps it."""
    spec = MODULES[trex_module]
    if isinstance(spec, str):
        spec = {"*": spec}
    out: dict[str, str] = {}
    if "*" in spec:
        base = spec["*"]
        module = importlib.import_module(base)
        public = getattr(module, "__all__", None)
        if public is None:  # what a star import of it gives: the names without an underscore
            public = [name for name in vars(module) if not name.startswith("_")]
        out.update(dict.fromkeys(public, base))
    out.update({name: where for name, where in spec.items() if name != "*"})
    return out


def resolve(name: str, where: str) -> Any:
    """The object ``name`` at ``where`` ("module" or "module:attribute")."""
    module, _, attribute = where.partition(":")
    return getattr(importlib.import_module(module), attribute or name)


def alias_module(trex_module: str
                 ) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """(``__all__``, ``__getattr__``, ``__dir__``) of the module named as TREx's ``trex_module``:
    its names, each imported from where trex keeps it on first use."""
    names = names_of(trex_module)

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module 'trex.{trex_module}' has no attribute {name!r}")
        return resolve(name, names[name])

    def __dir__() -> list[str]:
        return sorted(names)

    return sorted(names), __getattr__, __dir__


# trex's own modules that were renamed so that names say what they are: the old import names stay
# (``import trex.figures.frames`` gives the very module ``trex.figures.frames``).
RENAMED = {"trex.report": "trex.figures", "trex.timings": "trex.iteration_stats"}  # rename: keep


class RenamedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module name of :data:`RENAMED` and hands over the renamed module itself."""

    @staticmethod
    def _target(fullname: str) -> str | None:
        for old, new in RENAMED.items():
            if fullname == old or fullname.startswith(old + "."):
                return new + fullname[len(old):]
        return None

    def find_spec(self, fullname: str, path: Any = None, target: Any = None
                  ) -> importlib.machinery.ModuleSpec | None:
        if self._target(fullname) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None  # a placeholder; exec_module puts the renamed module in its place

    def exec_module(self, module: Any) -> None:
        import sys

        target = self._target(module.__name__)
        assert target is not None
        # the import system returns what sys.modules holds under the name after this call
        sys.modules[module.__name__] = importlib.import_module(target)


def keep_renamed_modules() -> None:
    """Make the old names of :data:`RENAMED` importable (once per process)."""
    import sys

    if not any(isinstance(finder, RenamedModules) for finder in sys.meta_path):
        sys.meta_path.insert(0, RenamedModules())  # before the path finder, which would load twice
