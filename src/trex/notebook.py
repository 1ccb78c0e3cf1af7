"""TREx's notebook API: report cards, charts and tables shown in Jupyter, under TREx's names.

Each function is built on a view of :mod:`trex.report` that returns the figures or tables. In a
notebook, ``report_card_perf_overview(plan);`` shows a dropdown and its chart (every chart when
ipywidgets is missing) and ``plotly_bar2(...)`` shows its figure; in a script nothing is shown and
the same calls return the figures. Tables are interactive without a server: itables when it is
installed, else a self-contained HTML table that sorts, searches and filters.
"""

from __future__ import annotations

import html as _html
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from . import interactive
from .interactive import Chart, FigureGallery, FigureMenu, InteractiveDiagram, InteractiveDiagram_2
from .model.plan import EnginePlan
from .report import convolutions as _convs
from .report import engine_timings as _timings
from .report import graph, html_table, plotting
from .report import overview as _overview
from .report import pointwise as _pointwise
from .report import reformats as _reformats
from .report import tables as _tables
from .report.frames import clean_for_display, group_count

if TYPE_CHECKING:
    import plotly.graph_objects as go

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


def _shown(fig: Any, do_show: bool) -> Any:
    if do_show and interactive.in_notebook():
        interactive.show_figure(fig)
    return fig


def _menu(builders: Mapping[str, Callable[..., Any]], description: str = "Diagram:") -> FigureMenu:
    menu = FigureMenu(builders, description)
    if interactive.in_notebook():
        menu.show()
    return menu


# ----------------------------------------------------------------------------- page helpers
def section_header(title: str) -> Any:
    """A green banner with ``title`` (TREx's section header), as an HTML object."""
    style = "text-align:center;background:#76b900;padding:20px;color:#ffffff;font-size:2em;"
    return interactive.html(f'<div style="{style}">{_html.escape(title)}</div>')


def set_wide_display(width_pct: int = 90) -> None:
    """Let notebook cells use ``width_pct`` % of the window (wide tables and graphs)."""
    if interactive.in_notebook():
        interactive.show(interactive.html(
            f"<style>.container {{width:{int(width_pct)}% !important;}}</style>"))


# ----------------------------------------------------------------------------- tables
def display_df_html(df: pd.DataFrame, max_rows: int = html_table.MAX_ROWS, precision: int = 4,
                    **kwargs: Any) -> None:
    """Show ``df`` as trex's self-contained table (click to sort, search, per-column filters)."""
    interactive.show(interactive.html(html_table.html_table(df, max_rows, precision)))


def display_df_itables(df: pd.DataFrame, **kwargs: Any) -> None:
    """Show ``df`` with itables (offline DataTables: sort, search, paging)."""
    from itables import show as itables_show

    itables_show(df, **kwargs)


def display_df_plain(df: pd.DataFrame, **kwargs: Any) -> None:
    """Show ``df`` as Jupyter's static HTML table."""
    interactive.show(df)


def _default_backend(df: pd.DataFrame, **kwargs: Any) -> None:
    try:
        import itables  # noqa: F401
    except ImportError:
        display_df_html(df, **kwargs)
        return
    display_df_itables(df)


table_display_backend: Callable[..., Any] = _default_backend


def set_table_display_backend(tbl_display_fn: Callable[..., Any] | None) -> None:
    """Choose how :func:`display_df` shows tables (None: itables if installed, else trex's HTML table)."""
    global table_display_backend
    table_display_backend = tbl_display_fn or _default_backend


def display_df(df: pd.DataFrame, **kwargs: Any) -> None:
    """Show a table with the chosen backend (options it does not take are dropped)."""
    if isinstance(df, pd.Series):
        df = df.to_frame()
    try:
        table_display_backend(df, **kwargs)
    except TypeError:
        table_display_backend(df)


def display_filechooser(rootdir: str | os.PathLike = ".", pattern: str = "*.engine*") -> Any:
    """Show a chooser of the engines under ``rootdir``; ``.selected`` is the chosen engine's prefix."""
    try:
        from ipyfilechooser import FileChooser
    except ImportError:
        chooser: Any = EngineChooser(rootdir, pattern)
    else:
        chooser = FileChooser(os.fspath(rootdir))
        chooser.filter_pattern = pattern
        chooser.title = "Press Select to choose an engine file"
    if interactive.in_notebook():
        interactive.show(chooser.widget if isinstance(chooser, EngineChooser) else chooser)
    return chooser


class EngineChooser:
    """A dropdown of the engines under ``rootdir`` (ipyfilechooser's ``selected`` API).

    Each entry is an engine's prefix (``dir/model.onnx.engine``): what TREx's notebooks extend with
    ``.graph.json`` and what :meth:`EnginePlan.from_path` takes."""

    def __init__(self, rootdir: str | os.PathLike = ".", pattern: str = "*.engine*"):
        from pathlib import Path

        prefixes = set()
        for path in Path(rootdir).rglob(pattern):
            if path.is_file():
                name = str(path)
                cut = name.rfind(".engine")
                prefixes.add(name[:cut + len(".engine")] if cut >= 0 else name)
        self.files = sorted(prefixes)
        self.widget: Any = None
        self._value = self.files[0] if self.files else None
        if interactive.have_widgets():
            import ipywidgets as widgets

            self.widget = widgets.Dropdown(options=self.files, value=self._value,
                                           description="Engine:", layout={"width": "80%"})

    @property
    def selected(self) -> str | None:
        """The chosen engine's prefix."""
        return self.widget.value if self.widget is not None else self._value

    @property
    def selected_path(self) -> str | None:
        """The folder of the chosen engine."""
        return os.path.dirname(self.selected) if self.selected else None

    @property
    def selected_filename(self) -> str | None:
        """The file name of the chosen engine's prefix."""
        return os.path.basename(self.selected) if self.selected else None


# ----------------------------------------------------------------------------- plotting wrappers
def plotly_bar2(df: pd.DataFrame | Mapping[str, pd.DataFrame], title: str, values_col: str,
                names_col: str, *args: Any, do_show: bool = True, **kwargs: Any) -> go.Figure:
    """TREx's bar chart (:func:`trex.report.plotly_bar2`), shown in a notebook."""
    return _shown(plotting.plotly_bar2(df, title, values_col, names_col, *args, **kwargs), do_show)


def plotly_hist(df: pd.DataFrame, title: str, values_col: str, xaxis_title: str | None = None,
                color: str | None = None, colormap: dict | None = None, do_show: bool = True,
                **kwargs: Any) -> go.Figure:
    """TREx's histogram (:func:`trex.report.plotly_hist`), shown in a notebook."""
    fig = plotting.plotly_hist(df, title, values_col, xaxis_title, color, colormap, **kwargs)
    return _shown(fig, do_show)


def plotly_pie(df: pd.DataFrame, title: str, values: str, names: str, colormap: dict | None = None,
               do_show: bool = True) -> go.Figure:
    """TREx's pie (:func:`trex.report.plotly_pie`), shown in a notebook."""
    return _shown(plotting.plotly_pie(df, title, values, names, colormap), do_show)


def plotly_pie2(title: str, charts: Sequence[tuple], max_cols: int = 3, colormap: dict | None = None,
                do_show: bool = True) -> go.Figure:
    """TREx's grid of pies (:func:`trex.report.plotly_pie2`), shown in a notebook."""
    return _shown(plotting.plotly_pie2(title, charts, max_cols, colormap), do_show)


def stacked_tabular(bar_names: Sequence[str], df_list: Sequence[pd.DataFrame], names_col: str,
                    values_col: str, empty_symbol: Any = 0) -> pd.DataFrame:
    """Show (and return) the table behind :func:`stacked_bars`."""
    df = plotting.stacked_tabular_df(bar_names, df_list, names_col, values_col, empty_symbol)
    if interactive.in_notebook():
        display_df(df)
    return df


def stacked_bars(title: str, bar_names: Sequence[str], df_list: Sequence[pd.DataFrame],
                 names_col: str, values_col: str, empty_symbol: Any = 0,
                 colormap: dict | None = None, display_tbl: bool = True, fig: go.Figure | None = None,
                 xaxis_title: str | None = None, yaxis_title: str | None = None) -> go.Figure:
    """TREx's stacked bars, shown in a notebook with their table (unless added to ``fig``)."""
    new = fig is None
    fig = plotting.stacked_bars(title, bar_names, df_list, names_col, values_col, empty_symbol,
                                colormap, fig, xaxis_title, yaxis_title)
    _shown(fig, new)
    if display_tbl:
        stacked_tabular(bar_names, df_list, names_col, values_col, empty_symbol)
    return fig


def layer_latency_sunburst(df: pd.DataFrame | EnginePlan, title: str = "Layer latencies (ms)",
                           do_show: bool = True) -> go.Figure:
    """Layer types and layers, wedges sized by latency (TREx sized them by count), shown in a notebook."""
    return _shown(_overview.layer_latency_sunburst(df, title), do_show)


def plot_engine_timings(timing_json_file: str | os.PathLike | EnginePlan | pd.DataFrame,
                        do_show: bool = True, title: str = "Engine Timing Samples") -> go.Figure:
    """Latency per timed iteration with p50/p90/p95/p99 lines (a ``--exportTimes`` file or a plan)."""
    return _shown(_timings.engine_timings_figure(timing_json_file, title), do_show)


# ----------------------------------------------------------------------------- report cards
def report_card_perf_overview(plan: EnginePlan) -> FigureMenu:
    """Latency per layer and per type, precisions, distribution: a dropdown of diagrams."""
    return _menu(_overview.perf_overview_builders(plan))


def report_card_memory_footprint(plan: EnginePlan) -> FigureMenu:
    """Weights, activations and total footprint per layer and their distributions."""
    return _menu(_overview.memory_footprint_builders(plan))


def report_card_convolutions_overview(convs: pd.DataFrame | EnginePlan) -> FigureMenu:
    """Per-convolution latency coloured by precision, MACs, size, kernel, ... and efficiency bars."""
    return _menu(_convs.convolutions_overview_builders(convs))


def report_card_reformat_overview(plan: EnginePlan) -> FigureMenu:
    """Reformat layers by origin: count, latency, share of latency."""
    return _menu(_reformats.reformat_overview_builders(plan))


def report_card_gemm_MNK(plan: EnginePlan) -> FigureMenu:  # noqa: N802 - TREx's name
    """3-D scatters of the convolutions' implicit-GEMM M, N, K."""
    return _menu(_convs.gemm_MNK_builders(plan))


def report_card_gemm_MNK_scatter(plan: EnginePlan) -> FigureMenu:  # noqa: N802 - TREx's name
    """M, N or K of each convolution against its latency."""
    return _menu(_convs.gemm_MNK_scatter_builders(plan))


def report_card_perf_scatter(plan: EnginePlan) -> FigureMenu:
    """Efficiency, footprint and MACs scatters of the convolutions."""
    return _menu(_convs.perf_scatter_builders(plan))


def report_card_efficiency_vs_latency_3d(plan: EnginePlan, do_show: bool = True) -> go.Figure:
    """Compute vs memory efficiency vs arithmetic intensity of the convolutions, sized by latency."""
    return _shown(_convs.efficiency_vs_latency_3d(plan), do_show)


# TREx's names for the dropdown versions.
report_card_perf_overview_widget = report_card_perf_overview
report_card_memory_footprint_widget = report_card_memory_footprint
report_card_convolutions_overview_widget = report_card_convolutions_overview
report_card_reformat_overview_widget = report_card_reformat_overview


class TableView(InteractiveDiagram):
    """TREx's table view: a dropdown of All and each layer type, showing the caption and the table."""

    def __init__(self, plan: EnginePlan):
        self.plan = plan
        choices = {c: c for c in _tables.table_view_choices(plan)}
        super().__init__(self._draw, choices, "Dataframe", display=False)

    def table(self, choice: str = _tables.ALL) -> pd.DataFrame:
        """The table of one choice."""
        return _tables.table_view(self.plan, choice)

    def _draw(self, choice: str, _value: Any = None) -> None:
        if choice != _tables.ALL:
            caption = _tables.table_caption(self.plan, choice)
            interactive.show(interactive.html(f"<p>{_html.escape(caption)}</p>"))
        display_df(self.table(choice))


def report_card_table_view(plan: EnginePlan) -> TableView:
    """A dropdown of the plan's layers, all or of one type, as interactive tables."""
    view = TableView(plan)
    if interactive.in_notebook():
        view.show()
    return view


class PointwiseView(interactive.Displayable):
    """TREx's pointwise report in a notebook: the pies, the fused operations, latency per operation."""

    def __init__(self, report: _pointwise.PointwiseReport):
        self.report = report

    def _render(self) -> None:
        report = self.report
        if report.figure is None:
            interactive.show(interactive.html(f"<p>{_html.escape(report.message)}</p>"))
            return
        interactive.show(report.figure)
        display_df(report.operations)
        display_df(report.layers[["Name", "attr.n_operations", "latency.pct_time",
                                  "per_op_latency"]])


def report_card_pointwise_lint(plan: EnginePlan) -> PointwiseView:
    """Pointwise layers by number of fused operations: pies and the operations of each layer."""
    view = PointwiseView(_pointwise.pointwise_report(plan))
    if interactive.in_notebook():
        view.show()
    return view


# ----------------------------------------------------------------------------- plan graphs
def _show_svg(path: str) -> None:
    from IPython.display import SVG

    interactive.show(SVG(filename=path))


class PlanGraphView(InteractiveDiagram):
    """TREx's plan-graph dropdown: each preset renders ``<engine_name>.svg`` and shows it."""

    def __init__(self, plan: EnginePlan, engine_name: str | os.PathLike):
        self.plan, self.engine_name = plan, engine_name
        self.paths: dict[str, str] = {}
        choices = {c: c for c in graph.GRAPH_CHOICES}
        super().__init__(self._draw, choices, "Color formatting:", display=False)

    def render_file(self, choice: str) -> str:
        """Render one preset to its file and return the path."""
        self.paths[choice] = graph.draw_plan_graph(self.plan, self.engine_name, choice)
        return self.paths[choice]

    def _draw(self, choice: str, _value: Any = None) -> None:
        _show_svg(self.render_file(choice))


def report_card_draw_plan_graph(plan: EnginePlan, engine_name: str | os.PathLike) -> PlanGraphView:
    """Draw the plan graph to ``<engine_name>.svg`` with a dropdown of TREx's colour presets."""
    view = PlanGraphView(plan, engine_name)
    if interactive.in_notebook():
        view.show()
    return view


GRAPH_OPTIONS = {  # TREx's checkboxes: option -> (description, default)
    "display_regions": ("Regions: Render regions", False),
    "display_region_reuse": ("Regions: Render regions reuse", True),
    "display_forking_regions": ("Regions: Render forking regions", True),
    "display_region_names": ("Regions: Render names", False),
    "display_layer_names": ("Layers: Render names", False),
    "stack_layer_names": ("Layers: Stack names", True),
    "display_metadata": ("Layers: Prefer metadata over name", True),
    "expand_layer_details": ("Layers: Expand layer details", True),
    "display_latency": ("Layers: Render latency", True),
    "display_constants": ("Graph: Render constant inputs", False),
    "display_edge_name": ("Edges: Render names", False),
    "display_edge_details": ("Edges: Render details", True),
}


class PlanGraphOptions(interactive.Displayable):
    """TREx's extended graph widget: checkboxes of drawing options and a button that renders the SVG."""

    def __init__(self, plan: EnginePlan, engine_name: str | os.PathLike):
        self.plan, self.engine_name = plan, engine_name
        self.options = {k: default for k, (_, default) in GRAPH_OPTIONS.items()}
        self.options.update(color_by="Layer Type", layer_renderer="Configurable",
                            latency_type=graph.latency_types()[0])
        self.path: str | None = None
        self.widget: Any = None

    def render_file(self, **options: Any) -> str:
        """Render with the current options (updated by ``options``) and return the SVG's path."""
        self.options.update(options)
        opts = dict(self.options)
        color_by = opts.pop("color_by")
        renderer = graph.layer_renderers()[opts.pop("layer_renderer")]
        self.path = graph.render_plan_graph(self.plan, self.engine_name, color_by,
                                            layer_node_renderer=renderer, **opts)
        return self.path

    def export_onnx(self, path: str | os.PathLike = "trex_model.onnx") -> str:
        """Write the plan as an ONNX graph (open it in Netron); return the path."""
        from .graph import export_onnx

        return export_onnx(self.plan, path)

    def _render(self) -> None:
        if not interactive.have_widgets():
            _show_svg(self.render_file())
            return
        import ipywidgets as widgets

        boxes = {k: widgets.Checkbox(value=self.options[k], description=d)
                 for k, (d, _) in GRAPH_OPTIONS.items()}
        color = widgets.Dropdown(options=list(graph.COLOR_CHOICES), value=self.options["color_by"],
                                 description="Layers color")
        renderer = widgets.Dropdown(options=list(graph.layer_renderers()),
                                    value=self.options["layer_renderer"],
                                    description="Layer renderer")
        latency = widgets.Dropdown(options=graph.latency_types(), value=self.options["latency_type"],
                                   description="Latency metric")
        svg_button = widgets.Button(description="Render SVG Graph")
        onnx_button = widgets.Button(description="Export ONNX Graph")
        out = widgets.Output()

        def svg() -> None:
            options = {k: b.value for k, b in boxes.items()}
            _show_svg(self.render_file(color_by=color.value, layer_renderer=renderer.value,
                                       latency_type=latency.value, **options))

        def onnx() -> None:
            path = self.export_onnx()
            interactive.show(interactive.html(f"<p>Wrote {_html.escape(path)}: open it in Netron.</p>"))

        # Drawn into ``out`` by render_into, never ``with out:`` (which stalls headless runs).
        svg_button.on_click(lambda _: interactive.render_into(out, svg))
        onnx_button.on_click(lambda _: interactive.render_into(out, onnx))

        column = widgets.VBox
        self.widget = widgets.VBox([
            widgets.HBox([
                column([renderer, boxes["display_constants"]]),
                column([color, boxes["display_latency"], latency, boxes["expand_layer_details"],
                        boxes["display_layer_names"], boxes["stack_layer_names"],
                        boxes["display_metadata"]]),
                column([boxes[k] for k in ("display_regions", "display_region_reuse",
                                           "display_forking_regions", "display_region_names")]),
                column([boxes["display_edge_name"], boxes["display_edge_details"]]),
            ]),
            widgets.HBox([svg_button, onnx_button]),
            out,
        ])
        self.widget.svg_button, self.widget.onnx_button = svg_button, onnx_button
        interactive.show(self.widget)


def report_card_draw_plan_graph_extended(plan: EnginePlan, engine_name: str | os.PathLike
                                         ) -> PlanGraphOptions:
    """TREx's graph-rendering widget: every drawing option, a button to render the SVG."""
    view = PlanGraphOptions(plan, engine_name)
    if interactive.in_notebook():
        view.show()
    return view


# ----------------------------------------------------------------------------- comparing engines
def compare_engines_overview(plans: Sequence[EnginePlan], names: Sequence[str] | None = None
                             ) -> FigureGallery:
    """:func:`trex.compare.compare_engines_overview`'s figures (a dict), shown as a dropdown."""
    from .compare import compare_engines_overview as figures

    gallery = FigureGallery(figures(plans, names))
    if interactive.in_notebook():
        gallery.show()
    return gallery


class LayerLatencies(InteractiveDiagram):
    """TREx's layer-latency comparison: per choice (All, mismatches, a type) the merged table and bars."""

    def __init__(self, plan1: EnginePlan, plan2: EnginePlan, threshold: float,
                 exact_matching: bool):
        self.args = (plan1, plan2, threshold, exact_matching)
        types = dict.fromkeys([*plan1.df["type"].astype(str), *plan2.df["type"].astype(str)])
        choices = {c: c for c in ("All", "Precision Mismatch", "Tactic Mismatch", *types)}
        super().__init__(self._draw, choices, "Dataframe", display=False)

    def result(self, choice: str = "All") -> tuple[pd.DataFrame, go.Figure]:
        """The table and figure of one choice."""
        from .compare import compare_engines_layer_latencies as latencies

        return latencies(*self.args, choice=choice)

    def __iter__(self) -> Any:
        """Unpacks as the (table, figure) of ``All``, as trex.compare's function returns."""
        return iter(self.result("All"))

    def _draw(self, choice: str, _value: Any = None) -> None:
        df, fig = self.result(choice)
        plan1, plan2 = self.args[:2]
        interactive.show(interactive.html(
            f"<p>1: {_html.escape(plan1.name)}<br>2: {_html.escape(plan2.name)}<br>"
            "in-p / out-p: input / output precisions; speedup (2) = time (1) / time (2)</p>"))
        display_df(df)
        interactive.show(fig)


def compare_engines_layer_latencies(plan1: EnginePlan, plan2: EnginePlan, threshold: float = 0.03,
                                    exact_matching: bool = True, choice: str | None = None
                                    ) -> LayerLatencies | tuple[pd.DataFrame, go.Figure]:
    """Aligned layer latencies: a dropdown of subsets, or the (table, figure) of ``choice``."""
    view = LayerLatencies(plan1, plan2, threshold, exact_matching)
    if choice is not None:
        return view.result(choice)
    if interactive.in_notebook():
        view.show()
    return view


def compare_engines_layer_details(plan1: EnginePlan, plan2: EnginePlan, row: int | None = None,
                                  exact_matching: bool = True) -> pd.DataFrame | InteractiveDiagram:
    """Side-by-side details of aligned layer ``row``; without ``row``, a dropdown of the aligned layers."""
    from .compare import align_layers, aligned_merge_plans
    from .compare import compare_engines_layer_details as details

    if row is not None:
        return details(plan1, plan2, row, exact_matching)
    merged = aligned_merge_plans(plan1, plan2, align_layers(plan1, plan2, exact_matching))
    choices = {f"{i}: {t}": i for i, t in enumerate(merged["type"])}
    view = InteractiveDiagram(lambda _c, i: display_df(details(plan1, plan2, i, exact_matching)),
                              choices, "Choose Layer:", display=False)
    if interactive.in_notebook() and choices:
        view.show()
    return view
