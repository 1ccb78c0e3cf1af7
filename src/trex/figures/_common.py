"""What the report views share: lazy plotly, colour tables, axis labels, plan-or-DataFrame input."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..graph import colors
from ..graph.colors import NVDA_GREEN, UNKNOWN_KEY_COLOR  # noqa: F401 - NVDA_GREEN re-exported
from ..model.plan import EnginePlan

if TYPE_CHECKING:
    import plotly.graph_objects as go

Source = EnginePlan | pd.DataFrame
Builder = Callable[..., "go.Figure"]  # called as builder(title=None) -> Figure

GRID_COLOR = "rgba(114, 179, 24, 0.3)"
# TREx's categorical palette (iwanthue).
DEFAULT_PALETTE = ("#a11350", "#008619", "#4064ec", "#ffb519", "#8f1a8e", "#b2b200", "#64b0ff",
                   "#e46d00", "#02d2ba", "#ef393d", "#f1b0f7", "#7e4401")

# Axis and legend titles for TREx's column names (TREx showed the raw names).
LABELS = {
    "latency.avg_time": "Latency (ms)",
    "latency.median_time": "Median latency (ms)",
    "latency.time": "Total latency over the profiling run (ms)",
    "latency.pct_time": "Latency (% of total)",
    "weights_size": "Weights (bytes)",
    "bias_size": "Bias (bytes)",
    "total_io_size_bytes": "Activations (bytes)",
    "total_footprint_bytes": "Weights + activations (bytes)",
    "count": "Layers",
    "Name": "Layer",
    "id": "Aligned layer",
    "type": "Layer type",
    "precision": "Precision",
    "output_precision": "Output precision",
    "tactic": "Tactic",
    "attr.macs": "MACs",
    "attr.M": "GEMM M",
    "attr.N": "GEMM N",
    "attr.K": "GEMM K",
    "attr.arithmetic_intensity": "Arithmetic intensity (MACs/byte)",
    "attr.compute_efficiency": "Compute efficiency (MACs/ms)",
    "attr.memory_efficiency": "Memory efficiency (bytes/ms)",
    "attr.kernel": "Kernel size",
    "attr.groups": "Groups",
    "attr.origin": "Origin",
    "attr.n_operations": "Operations per layer",
    "per_op_latency": "Latency per operation (% of total)",
}


def label(column: str | None) -> str | None:
    """A readable title for a column name (the name itself when unknown)."""
    return None if column is None else LABELS.get(column, column)


def plotly() -> Any:
    """``plotly.graph_objects``, imported on first use."""
    try:
        import plotly.graph_objects as go
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError("report figures need plotly: pip install 'trex-explorer[plot]'") from exc
    return go


def make_subplots(**kwargs: Any) -> go.Figure:
    """``plotly.subplots.make_subplots``, imported on first use."""
    plotly()
    from plotly.subplots import make_subplots as _make

    return _make(**kwargs)


def colormaps() -> tuple[defaultdict, defaultdict]:
    """(layer_colormap, precision_colormap): the graph package's colour tables."""
    return colors.layer_colormap, colors.precision_colormap


def layer_colormap() -> defaultdict:
    """Colour per layer type."""
    return colors.layer_colormap


def precision_colormap() -> defaultdict:
    """Colour per precision."""
    return colors.precision_colormap


def category_colors(keys: list[Any], colormap: dict | None = None) -> dict[Any, str]:
    """A colour for each key: trex's type and precision tables give every view's colour
    (:func:`trex.graph.colors.key_color`); another ``colormap`` gives its colour where it knows the
    key, else TREx's palette in turn."""
    out: dict[Any, str] = {}
    free = iter(DEFAULT_PALETTE * (len(keys) // len(DEFAULT_PALETTE) + 1))
    for key in keys:
        if isinstance(colormap, colors.ColorTable):  # trex's own tables: the shared rule
            out[key] = colors.key_color(key, colormap)
            continue
        known = colormap is not None and (key in colormap or not isinstance(colormap, defaultdict))
        out[key] = colormap.get(key, UNKNOWN_KEY_COLOR) if known else next(free)
    return out


def frame(source: Source) -> pd.DataFrame:
    """``plan.df`` for a plan, the DataFrame itself otherwise."""
    return source.df if isinstance(source, EnginePlan) else source


def trex_base_layout(fig: go.Figure, gridcolor: str | None = None) -> go.Figure:
    """TREx's look: transparent background, green grid."""
    gridcolor = gridcolor or GRID_COLOR
    fig.update_layout(xaxis={"gridcolor": gridcolor}, yaxis={"gridcolor": gridcolor},
                      plot_bgcolor="rgba(0, 0, 0, 0)", paper_bgcolor="rgba(0, 0, 0, 0)")
    return fig


def build_all(builders: dict[str, Builder]) -> dict[str, go.Figure]:
    """Call every builder with its key as the title."""
    return {title: build(title=title) for title, build in builders.items()}
