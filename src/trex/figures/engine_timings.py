"""Engine latency over the iterations of ``--exportTimes``, with percentile lines.

TREx plotted bare samples; here p50/p90/p95/p99 (trtexec's percentile rule, :mod:`trex.iteration_stats`)
are drawn as lines over the timed iterations, the warm-up iterations trtexec leaves out are drawn
apart (grey, labelled), and GPU compute time is shown when it differs from the latency.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..formats.export_times import read_timings
from ..iteration_stats import PERCENTILES, timing_records, trtexec_percentile
from ..model.plan import EnginePlan
from ..safety import escape_figure, plotly_text
from ._common import plotly, trex_base_layout

if TYPE_CHECKING:
    import plotly.graph_objects as go

PERCENTILE_COLORS = {50: "#76b900", 90: "#ffb519", 95: "#e46d00", 99: "#a11350"}


def timing_source(source: EnginePlan | pd.DataFrame | str | os.PathLike, run: int = 0
                  ) -> pd.DataFrame:
    """Per-iteration records (:func:`trex.iteration_stats.timing_records`) from a plan, a DataFrame
    or a file."""
    if isinstance(source, (str, os.PathLike)):
        runs = read_timings(source).runs
        source = pd.DataFrame.from_records(runs[run]) if runs else pd.DataFrame()
    return timing_records(source)


def timing_percentiles(source: EnginePlan | pd.DataFrame | str | os.PathLike,
                       metric: str = "latency") -> dict[str, float]:
    """``{"p50": ..., "p90": ..., "p95": ..., "p99": ...}`` of ``metric`` (ms) over the timed
    iterations."""
    records = timing_source(source)
    values = records.loc[~records["warmup"].to_numpy(dtype=bool), f"{metric}_ms"].to_numpy(
        dtype="float64")
    return {f"p{p}": trtexec_percentile(values, p) for p in PERCENTILES}


def engine_timings_figure(source: EnginePlan | pd.DataFrame | str | os.PathLike,
                          title: str = "Engine Timing Samples") -> go.Figure:
    """Latency of every timed iteration, with horizontal p50/p90/p95/p99 lines (traces named ``p50``...);
    the warm-up iterations, left out of every statistic, are a grey trace of their own."""
    go = plotly()
    every = timing_source(source)
    warm = every["warmup"].to_numpy(dtype=bool)
    if warm.any():
        fig_warm = every[warm]
        warm_trace = go.Scattergl(
            x=fig_warm["iteration"].to_numpy(), y=fig_warm["latency_ms"].to_numpy(dtype="float64"),
            mode="markers", name=f"Warm-up ({int(warm.sum())}, left out)",
            marker={"size": 3, "color": "#9e9e9e"},
            hovertemplate="warm-up iteration %{x}<br>%{y:.4f} ms<extra></extra>")
    records = every[~warm]
    fig = go.Figure()
    latency = records["latency_ms"].to_numpy(dtype="float64")
    iterations = records["iteration"].to_numpy()
    if warm.any():
        fig.add_trace(warm_trace)
    fig.add_trace(go.Scattergl(x=iterations, y=latency, mode="markers", name="Latency",
                               marker={"size": 4, "color": "#4064ec"},
                               hovertemplate="iteration %{x}<br>%{y:.4f} ms<extra></extra>"))
    compute = records["compute_ms"].to_numpy(dtype="float64")
    if np.isfinite(compute).any() and not np.allclose(compute, latency, equal_nan=True):
        fig.add_trace(go.Scattergl(x=iterations, y=compute, mode="markers", name="GPU compute",
                                   marker={"size": 3, "color": "#02d2ba"}, visible="legendonly"))
    if len(records):
        ends = [iterations[0], iterations[-1]]
        for p, value in timing_percentiles(records).items():
            if value == value:
                # WebGL too: drawn over the samples (plotly puts GL traces above SVG ones)
                fig.add_trace(go.Scattergl(x=ends, y=[value, value], mode="lines", name=p,
                                         line={"dash": "dash", "width": 2,
                                               "color": PERCENTILE_COLORS[int(p[1:])]},
                                         hovertemplate=f"{p}: {value:.4f} ms<extra></extra>"))
    trex_base_layout(fig)
    fig.update_layout(title={"text": plotly_text(title), "x": 0.5}, xaxis_title="Timing iteration",
                      yaxis_title="Latency (ms)")
    return escape_figure(fig)
