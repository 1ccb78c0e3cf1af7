"""TREx's Reformat overview: count and latency of Reformat layers by origin (why TensorRT added them)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from ._common import Builder, Source, build_all
from .frames import group_count, group_sum_attr
from .layers import reformat_layers
from .plotting import plotly_bar2

if TYPE_CHECKING:
    import plotly.graph_objects as go


def reformat_overview_builders(source: Source) -> dict[str, Builder]:
    """Bars by ``attr.origin``: Reformat count, latency (ms) and latency (%)."""
    reformats = reformat_layers(source)
    bars = partial(plotly_bar2, names_col="attr.origin", color="attr.origin", orientation="h",
                   show_axis_ticks=(True, True))
    return {
        "Reformat - Count by origin": partial(bars, group_count(reformats, "attr.origin"),
                                              title="Reformat - Count by origin", values_col="count"),
        "Reformat - Latency by origin": partial(
            bars, group_sum_attr(reformats, "attr.origin", "latency.avg_time"),
            title="Reformat - Latency by origin", values_col="latency.avg_time"),
        "Reformat - Percent latency by origin": partial(
            bars, group_sum_attr(reformats, "attr.origin", "latency.pct_time"),
            title="Reformat - Percent latency by origin", values_col="latency.pct_time"),
    }


def reformat_overview_figures(source: Source) -> dict[str, go.Figure]:
    """Every figure of :func:`reformat_overview_builders`, built."""
    return build_all(reformat_overview_builders(source))
