"""Plotly figures comparing engines (TREx's compare_engines diagrams). Needs ``trex[plot]``.

Functions return figures (a notebook shows one by leaving it last in a cell); nothing is shown
or printed here, and plotly is imported only when a figure is built. Engine names (from ``--names``
or folder names), layer names and types are escaped with :func:`trex.safety.plotly_text`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..graph.colors import colors_for, engine_color, layer_colormap, precision_colormap
from ..model.facts import engine_facts
from ..model.plan import EnginePlan
from ..safety import escape_figure, plotly_text
from .align import align_layers, get_plans_names
from .views import aligned_layers, aligned_merge_plans, compare_layers

if TYPE_CHECKING:
    import plotly.graph_objects as go

def _plotly() -> tuple[Any, Any]:
    try:
        import plotly.graph_objects as go
        from plotly.subplots import make_subplots
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError("figures need plotly: pip install 'trex-explorer[plot]'") from exc
    return go, make_subplots


def _sums(plan: EnginePlan, column: str, value: str | None, scale: float = 1.0) -> pd.Series:
    """Per ``column`` value: summed ``value`` column (or the count when None), in first-seen order."""
    df = plan.df
    keys = df[column].fillna("None").astype(str)
    if value is None:
        return keys.value_counts(sort=False)
    return (df[value] / scale).groupby(keys, sort=False).sum()


def _stacked(title: str, names: list[str], series: list[pd.Series], colors: dict[str, str],
             yaxis: str, fig: Any = None) -> Any:
    go, _ = _plotly()
    fig = fig if fig is not None else go.Figure()
    keys = list(dict.fromkeys(k for s in series for k in s.index))
    for key in keys:
        fig.add_trace(go.Bar(name=key, x=names, y=[float(s.get(key, 0.0)) for s in series],
                             marker_color=colors.get(key)))
    fig.update_layout(barmode="stack", title=plotly_text(title), xaxis_title="Engine",
                      yaxis_title=plotly_text(yaxis), legend_title_text="")
    return escape_figure(fig)


def _side_by_side(title: str, names: list[str], series: list[pd.Series], xaxis: str) -> Any:
    go, _ = _plotly()
    fig = go.Figure()
    for k, (name, s) in enumerate(zip(names, series)):
        fig.add_trace(go.Bar(name=name, x=s.to_numpy(), y=list(s.index), orientation="h",
                             marker_color=engine_color(k)))
    fig.update_layout(barmode="group", title=plotly_text(title), xaxis_title=plotly_text(xaxis),
                      legend_title_text="Engine")
    return escape_figure(fig)


def _pies(title: str, names: list[str], series: list[pd.Series], colors: dict[str, str]) -> Any:
    go, make_subplots = _plotly()
    fig = make_subplots(rows=1, cols=len(names), specs=[[{"type": "domain"}] * len(names)],
                        subplot_titles=[plotly_text(str(n)) for n in names])
    for i, s in enumerate(series, start=1):
        fig.add_trace(go.Pie(labels=list(s.index), values=s.to_numpy(), name=names[i - 1],
                             marker_colors=[colors.get(k) for k in s.index], sort=False),
                      row=1, col=i)
    fig.update_layout(title=plotly_text(title))
    return escape_figure(fig)


def compare_engines_overview(plans: Sequence[EnginePlan], names: Sequence[str] | None = None
                             ) -> dict[str, go.Figure]:
    """TREx's overview diagrams as ``{title: figure}``: latency by type (also per batch item),
    layer counts, precisions, throughput and aligned-layer latencies."""
    go, make_subplots = _plotly()
    names = list(names) if names is not None else get_plans_names(plans)
    facts = [engine_facts(p) for p in plans]
    types = colors_for({t for p in plans for t in p.df["type"].astype(str)}, layer_colormap)
    precisions = colors_for({str(t) for p in plans for t in p.df["precision"].fillna("None")},
                            precision_colormap)
    by_type = [_sums(p, "type", "latency.avg_time") for p in plans]
    figs: dict[str, go.Figure] = {}

    throughput = [f.throughput_qps for f in facts]
    have_throughput = all(t is not None and t > 0 for t in throughput)
    title = "Stacked latencies by layer type"
    if have_throughput:
        fig = make_subplots(specs=[[{"secondary_y": True}]])
        _stacked(title, names, by_type, types, "Latency (ms)", fig)
        fig.add_trace(go.Scatter(x=names, y=throughput, name="Throughput (IPS)",
                                 marker={"size": 12, "color": "#FFBF00"}), secondary_y=True)
        fig.add_trace(go.Scatter(x=names, y=[f.latency_median_ms for f in facts],
                                 name="Real latency (median)",
                                 marker={"size": 12, "color": "#DE3163"}), secondary_y=False)
        fig.update_yaxes(title_text="Throughput (inferences / sec)", secondary_y=True)
        # the right-hand axis holds throughput: the legend goes below the plot, not over that axis
        fig.update_layout(legend={"orientation": "h", "x": 0, "xanchor": "left", "y": -0.2,
                                  "yanchor": "top"})
        figs[title] = escape_figure(fig)
    else:
        figs[title] = _stacked(title, names, by_type, types, "Latency (ms)")
    title = "Stacked latencies by layer type (BS normalized)"
    per_item = [_sums(p, "type", "latency.avg_time", f.batch_size or 1)
                for p, f in zip(plans, facts)]
    figs[title] = _stacked(title, names, per_item, types, "Latency per batch item (ms)")
    figs["Layer count comparison"] = _side_by_side(
        "Layer count comparison", names, [_sums(p, "type", None) for p in plans], "Layers")
    figs["Layer-type latency comparison"] = _side_by_side(
        "Layer-type latency comparison", names, by_type, "Latency (ms)")
    figs["Layer latency by precision"] = _stacked(
        "Layer latency by precision", names,
        [_sums(p, "precision", "latency.avg_time") for p in plans], precisions, "Latency (ms)")
    figs["Precision counts"] = _pies("Precision counts", names,
                                     [_sums(p, "precision", None) for p in plans], precisions)
    figs["Output precision counts"] = _pies(
        "Output precision counts", names, [_sums(p, "output_precision", None) for p in plans],
        precisions)
    figs["Precision latency"] = _pies(
        "Precision latency", names,
        [_sums(p, "precision", "latency.pct_time") for p in plans], precisions)
    if have_throughput:
        fig = go.Figure(go.Bar(x=throughput, y=names, orientation="h",
                               marker_color=[engine_color(k) for k in range(len(names))]))
        fig.update_layout(title="Throughput", xaxis_title="Throughput (inferences / sec)",
                          yaxis_title="Engine")
        figs["Throughput"] = escape_figure(fig)
    figs["Aligned layer latencies"] = aligned_latencies_figure(plans, names)
    return figs


def aligned_latencies_figure(plans: Sequence[EnginePlan], names: Sequence[str] | None = None,
                             exact_matching: bool = True) -> go.Figure:
    """Grouped bars of each aligned layer's latency in every engine (x: the aligned row)."""
    go, _ = _plotly()
    names = list(names) if names is not None else get_plans_names(plans)
    df = compare_layers(plans, names, exact_matching)
    fig = go.Figure()
    for k, name in enumerate(names):
        fig.add_trace(go.Bar(name=name, x=list(range(len(df))), y=df[f"{name} ms"].fillna(0.0),
                             marker_color=engine_color(k),
                             customdata=df[[f"{name} name", "type", "match"]].to_numpy(),
                             hovertemplate="%{customdata[0]}<br>%{customdata[1]} (%{customdata[2]})"
                                           "<br>%{y:.4f} ms<extra></extra>"))
    fig.update_layout(barmode="group", title="Aligned layer latencies",
                      xaxis_title="Aligned layer", yaxis_title="Latency (ms)")
    return escape_figure(fig)


def compare_engines_layer_latencies(plan1: EnginePlan, plan2: EnginePlan, threshold: float = 0.03,
                                    exact_matching: bool = True, choice: str = "All"
                                    ) -> tuple[pd.DataFrame, go.Figure]:
    """TREx's layer-latency comparison: merged table (``verdict`` faster/slower/same within
    ``threshold``) and bars; ``choice``: All, Precision Mismatch, Tactic Mismatch or a type."""
    go, _ = _plotly()
    alignment = align_layers(plan1, plan2, exact_matching)
    df = aligned_merge_plans(plan1, plan2, alignment)
    if choice == "Precision Mismatch":
        df = df[(df["in-p (1)"] != df["in-p (2)"]) | (df["out-p (1)"] != df["out-p (2)"])]
    elif choice == "Tactic Mismatch":
        df = df[df["tactic (1)"] != df["tactic (2)"]]
    elif choice != "All":
        df = df[df["type"] == choice]
    speedup = df["speedup (2)"]
    df = df.assign(verdict=[("" if s != s else "faster" if s > 1 + threshold
                             else "slower" if s < 1 - threshold else "same") for s in speedup])
    df1, df2 = aligned_layers(plan1, plan2, alignment,
                              None if choice in ("All", "Precision Mismatch", "Tactic Mismatch")
                              else choice)
    n1, n2 = df.columns[12], df.columns[13]
    fig = go.Figure()
    for k, (name, tbl) in enumerate(((n1, df1), (n2, df2))):
        fig.add_trace(go.Bar(name=name, x=tbl["id"], y=tbl["latency.avg_time"],
                             marker_color=engine_color(k),
                             customdata=tbl[["name", "type"]].to_numpy(),
                             hovertemplate="%{customdata[0]}<br>%{customdata[1]}<br>%{y:.4f} ms"
                                           "<extra></extra>"))
    fig.update_layout(barmode="group",
                      title=f"Layer Latency Comparison (Layer Type={plotly_text(str(choice))})",
                      xaxis_title="Aligned layer", yaxis_title="Latency (ms)")
    return df.reset_index(drop=True), escape_figure(fig)
