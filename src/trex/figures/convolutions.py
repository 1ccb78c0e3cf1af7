"""TREx's convolution diagrams: per-convolution bars, implicit-GEMM M/N/K scatters, efficiency views.

Each takes a plan or its Convolution rows; the ``attr.*`` columns are added when missing. The
kernel-size chart shows ``3x3``-style categories (TREx's crashed on list-valued kernels).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..safety import escape_figure, plotly_text
from ._common import Builder, Source, build_all, label, plotly, precision_colormap, trex_base_layout
from .layers import conv_layers
from .plotting import plotly_bar2

if TYPE_CHECKING:
    import plotly.graph_objects as go

SIZE_MAX = 18  # largest marker diameter (px), as TREx's size_max
SIZE_MIN = 4


def convolutions_overview_builders(source: Source) -> dict[str, Builder]:
    """TREx's per-convolution diagrams by title: latency coloured by precision, MACs, size, ..."""
    convs = conv_layers(source)
    bars = partial(plotly_bar2, convs, names_col="Name", xaxis_title="Convolution")
    latency = partial(bars, values_col="latency.pct_time")
    out: dict[str, Builder] = {}
    for what, column, colormap in (
            ("precision", "precision", precision_colormap()), ("FMAs", "attr.macs", None),
            ("data size", "total_footprint_bytes", None),
            ("arithmetic intensity", "attr.arithmetic_intensity", None),
            ("compute efficiency", "attr.compute_efficiency", None),
            ("group size", "attr.groups", None), ("kernel size", "attr.kernel", None)):
        title = f"Latency per convolution (color = {what})"
        out[title] = partial(latency, title=title, color=column, colormap=colormap)
    for title, values, color in (
            ("Data footprints", "total_footprint_bytes", "latency.pct_time"),
            ("Fused Multiply-Accumulate (FMAs)", "attr.macs", "latency.pct_time"),
            ("Arithmetic intensity (color = latency)", "attr.arithmetic_intensity",
             "attr.compute_efficiency"),
            ("Arithmetic intensity (color = footprint)", "attr.arithmetic_intensity",
             "attr.memory_efficiency"),
            ("Compute efficiency (color = latency)", "attr.compute_efficiency", "latency.pct_time"),
            ("Memory efficiency (color = latency)", "attr.memory_efficiency", "latency.pct_time")):
        out[title] = partial(bars, title=title, values_col=values, color=color)
    return out


def convolutions_overview_figures(source: Source) -> dict[str, go.Figure]:
    """Every figure of :func:`convolutions_overview_builders`, built."""
    return build_all(convolutions_overview_builders(source))


def _sizes(values: pd.Series) -> np.ndarray | float:
    v = pd.to_numeric(values, errors="coerce").to_numpy(dtype="float64")
    v = np.where(np.isfinite(v) & (v > 0), v, 0.0)
    top = v.max() if len(v) else 0.0
    if top <= 0:
        return float(SIZE_MIN + SIZE_MAX) / 2
    return SIZE_MIN + (SIZE_MAX - SIZE_MIN) * np.sqrt(v / top)  # area proportional to the value


def scatter(df: pd.DataFrame, x: str, y: str, z: str | None = None, color: str | None = None,
            size: str | None = None, title: str = "") -> go.Figure:
    """2-D (or 3-D with ``z``) scatter of layers: colour scale for ``color``, marker area for ``size``."""
    go = plotly()
    marker: dict[str, Any] = {"opacity": 0.7, "size": _sizes(df[size]) if size else 8}
    lx, ly, lz = (plotly_text(label(c)) for c in (x, y, z))
    hover = [f"{lx}: %{{x}}", f"{ly}: %{{y}}"]
    if z:
        hover.append(f"{lz}: %{{z}}")
    custom = [df["Name"].astype(str).to_numpy()] if "Name" in df.columns else [np.full(len(df), "")]
    if color:
        marker.update(color=pd.to_numeric(df[color], errors="coerce").to_numpy(),
                      colorscale="Viridis", showscale=True,
                      colorbar={"title": {"text": plotly_text(label(color))}})
        hover.append(f"{plotly_text(label(color))}: %{{marker.color}}")
    if size:
        custom.append(df[size].to_numpy())
        hover.append(f"{plotly_text(label(size))}: %{{customdata[1]}}")
    common = {"mode": "markers", "marker": marker, "customdata": np.stack(custom, axis=-1),
              "hovertemplate": "%{customdata[0]}<br>" + "<br>".join(hover) + "<extra></extra>",
              "name": title}
    if z:
        trace = go.Scatter3d(x=df[x], y=df[y], z=df[z], **common)
        fig = go.Figure(trace)
        fig.update_layout(scene={"xaxis_title": lx, "yaxis_title": ly, "zaxis_title": lz})
    else:
        fig = go.Figure(go.Scatter(x=df[x], y=df[y], **common))
        fig.update_layout(xaxis_title=lx, yaxis_title=ly)
    fig.update_layout(title={"text": plotly_text(title), "x": 0.5},
                      margin={"l": 0, "r": 0, "b": 0, "t": 50})
    return escape_figure(trex_base_layout(fig))


GEMM_MNK_CHOICES = {
    "MxNxK color=mean time; size=mean time": ("latency.avg_time", "latency.avg_time"),
    "MxNxK color=arithmetic intensity; size=mean time": ("attr.arithmetic_intensity",
                                                         "latency.avg_time"),
    "MxNxK color=compute efficiency; size=mean time": ("attr.compute_efficiency",
                                                       "latency.avg_time"),
    "MxNxK color=memory efficiency; size=mean time": ("attr.memory_efficiency",
                                                      "latency.avg_time"),
}

GEMM_MNK_SCATTER_CHOICES = {
    "M vs. Latency (color = footprint)": ("attr.M", "latency.avg_time", "total_footprint_bytes"),
    "N vs. Latency (color = footprint)": ("attr.N", "latency.avg_time", "total_footprint_bytes"),
    "K vs. Latency (color = footprint)": ("attr.K", "latency.avg_time", "total_footprint_bytes"),
}

PERF_SCATTER_CHOICES = {
    "Compute-efficiency vs. FMAs (size = footprint)": (
        "attr.compute_efficiency", "attr.macs", "latency.avg_time", "total_footprint_bytes"),
    "Memory-efficiency vs. footprint (size = FMAs)": (
        "attr.memory_efficiency", "total_footprint_bytes", "latency.avg_time", "attr.macs"),
    "Compute-efficiency vs. memory-efficiency (size = AI)": (
        "attr.compute_efficiency", "attr.memory_efficiency", "latency.avg_time",
        "attr.arithmetic_intensity"),
    "Memory footprint vs FMAs (size = AI)": (
        "total_footprint_bytes", "attr.macs", "latency.avg_time", "attr.arithmetic_intensity"),
    "Arithmetic-intensity vs. compute-efficiency (size = memory-efficiency)": (
        "attr.arithmetic_intensity", "attr.compute_efficiency", "latency.avg_time",
        "attr.memory_efficiency"),
    "Arithmetic-intensity vs. memory-efficiency (size = compute-efficiency)": (
        "attr.arithmetic_intensity", "attr.memory_efficiency", "latency.avg_time",
        "attr.compute_efficiency"),
}


def gemm_MNK_builders(source: Source) -> dict[str, Builder]:
    """3-D scatters of the convolutions' implicit-GEMM M, N, K (TREx's ``report_card_gemm_MNK``)."""
    convs = conv_layers(source)
    return {title: partial(scatter, convs, "attr.M", "attr.N", "attr.K", color, size,
                           title=f"Implicit GEMM {title}")
            for title, (color, size) in GEMM_MNK_CHOICES.items()}


def gemm_MNK_scatter_builders(source: Source) -> dict[str, Builder]:
    """M, N or K against latency, coloured by footprint (TREx's ``report_card_gemm_MNK_scatter``)."""
    convs = conv_layers(source)
    return {title: partial(scatter, convs, x, y, None, color, None, title=title)
            for title, (x, y, color) in GEMM_MNK_SCATTER_CHOICES.items()}


def perf_scatter_builders(source: Source) -> dict[str, Builder]:
    """Efficiency and footprint scatters of the convolutions (TREx's ``report_card_perf_scatter``)."""
    convs = conv_layers(source)
    return {title: partial(scatter, convs, x, y, None, color, size, title=title)
            for title, (x, y, color, size) in PERF_SCATTER_CHOICES.items()}


def efficiency_vs_latency_3d(source: Source,
                             title: str = "Compute-efficiency vs Memory-efficiency vs Latency"
                             ) -> go.Figure:
    """3-D scatter: compute vs memory efficiency vs arithmetic intensity, sized by latency."""
    return scatter(conv_layers(source), "attr.compute_efficiency", "attr.memory_efficiency",
                   "attr.arithmetic_intensity", "total_footprint_bytes", "latency.avg_time",
                   title=title)


def gemm_MNK_figures(source: Source) -> dict[str, go.Figure]:
    """Every figure of :func:`gemm_MNK_builders`, built."""
    return build_all(gemm_MNK_builders(source))


def gemm_MNK_scatter_figures(source: Source) -> dict[str, go.Figure]:
    """Every figure of :func:`gemm_MNK_scatter_builders`, built."""
    return build_all(gemm_MNK_scatter_builders(source))


def perf_scatter_figures(source: Source) -> dict[str, go.Figure]:
    """Every figure of :func:`perf_scatter_builders`, built."""
    return build_all(perf_scatter_builders(source))
