"""TREx's pointwise report: how well PointWise layers fused (operations per layer and their latency)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from ._common import Source
from .frames import group_count, group_sum_attr
from .layers import pointwise_layers
from .plotting import plotly_pie2

if TYPE_CHECKING:
    import plotly.graph_objects as go

NO_POINTWISE = "The engine plan does not contain pointwise layers."


@dataclass
class PointwiseReport:
    """The pie charts, the per-layer table and what to say when there is nothing to show."""

    layers: pd.DataFrame
    by_operations: pd.DataFrame = field(default_factory=pd.DataFrame)
    figure: Any = None  # go.Figure, or None without pointwise layers
    message: str = ""

    @property
    def operations(self) -> pd.DataFrame:
        """The operations of every layer fusing two or more (one row per layer)."""
        fused = self.layers[self.layers["attr.n_operations"] >= 2]
        return pd.DataFrame({"Name": fused["Name"].to_numpy(),
                             "operations": ["\n".join(map(str, ops))
                                            for ops in fused["attr.operations"]]})


def pointwise_report(source: Source, title: str = "Pointwise Statistics") -> PointwiseReport:
    """Pointwise layers by number of operations: count, latency, latency per operation."""
    pws = pointwise_layers(source)
    if pws.empty:
        return PointwiseReport(pws, message=NO_POINTWISE)
    pws["per_op_latency"] = pws["latency.pct_time"] / pws["attr.n_operations"].clip(lower=1)
    counts = group_count(pws, "attr.n_operations")
    latency = group_sum_attr(pws, "attr.n_operations", "latency.pct_time")
    by_ops = latency.merge(counts, on="attr.n_operations")
    by_ops["per_op_latency"] = by_ops["latency.pct_time"] / (
        by_ops["count"] * by_ops["attr.n_operations"].clip(lower=1))
    charts = [(counts, "Pointwise layers by number of operations", "count", "attr.n_operations"),
              (latency, "Latency by number of operations (%)", "latency.pct_time",
               "attr.n_operations"),
              (by_ops, "Per op latency by number of operations", "per_op_latency",
               "attr.n_operations")]
    return PointwiseReport(pws, by_ops, plotly_pie2(title, charts))


def pointwise_figure(source: Source, title: str = "Pointwise Statistics") -> go.Figure | None:
    """The pointwise pies, or None when the plan has no pointwise layer."""
    return pointwise_report(source, title).figure
