"""TREx's report cards and plotly wrappers in a notebook: dropdowns of the figures of
:mod:`trex.figures`, shown when run in Jupyter and returned everywhere.
"""

from __future__ import annotations

import html as _html
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..figures import convolutions as _convs
from ..figures import engine_timings as _timings
from ..figures import overview as _overview
from ..figures import plotting
from ..figures import pointwise as _pointwise
from ..figures import reformats as _reformats
from ..figures import tables as _tables
from ..model.plan import EnginePlan
from . import widgets as interactive
from .display import display_df
from .widgets import FigureMenu, InteractiveDiagram

if TYPE_CHECKING:
    import plotly.graph_objects as go


def _shown(fig: Any, do_show: bool) -> Any:
    if do_show and interactive.in_notebook():
        interactive.show_figure(fig)
    return fig


def _menu(builders: Mapping[str, Callable[..., Any]], description: str = "Diagram:") -> FigureMenu:
    menu = FigureMenu(builders, description)
    if interactive.in_notebook():
        menu.show()
    return menu


def plotly_bar2(df: pd.DataFrame | Mapping[str, pd.DataFrame], title: str, values_col: str,
                names_col: str, *args: Any, do_show: bool = True, **kwargs: Any) -> go.Figure:
    """TREx's bar chart (:func:`trex.figures.plotly_bar2`), shown in a notebook."""
    return _shown(plotting.plotly_bar2(df, title, values_col, names_col, *args, **kwargs), do_show)


def plotly_hist(df: pd.DataFrame, title: str, values_col: str, xaxis_title: str | None = None,
                color: str | None = None, colormap: dict | None = None, do_show: bool = True,
                **kwargs: Any) -> go.Figure:
    """TREx's histogram (:func:`trex.figures.plotly_hist`), shown in a notebook."""
    fig = plotting.plotly_hist(df, title, values_col, xaxis_title, color, colormap, **kwargs)
    return _shown(fig, do_show)


def plotly_pie(df: pd.DataFrame, title: str, values: str, names: str, colormap: dict | None = None,
               do_show: bool = True) -> go.Figure:
    """TREx's pie (:func:`trex.figures.plotly_pie`), shown in a notebook."""
    return _shown(plotting.plotly_pie(df, title, values, names, colormap), do_show)


def plotly_pie2(title: str, charts: Sequence[tuple], max_cols: int = 3, colormap: dict | None = None,
                do_show: bool = True) -> go.Figure:
    """TREx's grid of pies (:func:`trex.figures.plotly_pie2`), shown in a notebook."""
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
