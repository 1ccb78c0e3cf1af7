"""Drawing a plan to a file, choosing the layout by the graph's shape and the format.

Graphviz ``dot`` lays out small graphs best but is superlinear, worst on long edges crossing many
ranks; :mod:`trex.graph.cost` predicts its time from the graph and picks ``dot`` only where it is
fast. ``dot`` then runs under a time budget: when the budget is exceeded, trex's own layered layout
draws instead (SVG) and the result says so in a one-line ``note``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..model.layer import Layer
from ..model.protocol import PlanLike
from ..outputs import atomic_write
from ..outputs import default_name as _default_name
from ..perf import gc_paused
from .cost import (
    DOT_BUDGET_SECONDS,
    DOT_MAX_COST,
    METHOD_ALIASES,
    METHODS,
    DotCost,
    check_timeout,
    choose_layout,
)
from .cost import dot_cost as graph_cost
from .dot import DotGraph, GraphvizError, dot_executable, render_source
from .formatters import layer_latency_formatter, layer_precision_formatter, layer_type_formatter
from .legend import legend_for
from .render import GraphvizTimeout

DOT_MAX_NODES = DOT_MAX_COST  # the name of the threshold before edges were counted
DOT_FORCED_TIMEOUT = 600.0  # --layout dot without --timeout
FORMATS = ("svg", "png", "dot")
COLOR_BY = ("type", "precision", "latency")


@dataclass
class DrawResult:
    """What :func:`draw_plan` wrote and how."""

    path: str
    method: str  # "dot" (Graphviz layout), "layered" (trex's layout) or "source" (DOT text)
    nodes: int
    edges: int
    seconds: float
    note: str = ""  # set when dot ran out of its time budget and the own layout drew instead


def formatter_for(plan: PlanLike, color_by: str = "type",
                  latency_type: str = "avg_time") -> Callable[[Layer], dict[str, str]]:
    """The node formatter for ``color_by``: ``type``, ``precision`` or ``latency``."""
    if color_by == "type":
        return layer_type_formatter
    if color_by == "precision":
        return layer_precision_formatter
    if color_by == "latency":
        return layer_latency_formatter(plan, latency_type)
    raise ValueError(f"color_by must be one of {', '.join(COLOR_BY)}, not {color_by!r}")


def dot_cost(graph: DotGraph) -> DotCost:
    """What a graph costs Graphviz ``dot`` (:class:`trex.graph.cost.DotCost`)."""
    return graph_cost(graph)


def choose_method(cost: DotCost | int, output_format: str, method: str = "auto") -> str:
    """``dot``, ``layered`` or ``source`` for a graph of :func:`dot_cost` ``cost``."""
    if output_format == "dot":
        return "source"
    if METHOD_ALIASES.get(method, method) not in METHODS:
        raise ValueError(f"method must be one of auto, dot, own, not {method!r}")
    return choose_layout(cost, output_format, method, dot_executable() is not None)


def default_output(plan: PlanLike, output_format: str) -> str:
    """``<folder>.<engine name>.<format>`` in the current directory (the engine's folder and
    name reduced to a file name, :func:`trex.outputs.default_name`): unique per engine."""
    return _default_name(plan, f".{output_format}")


def draw_plan(plan: PlanLike, output: str | os.PathLike | None = None, output_format: str = "svg",
              color_by: str = "type", method: str = "auto", latency_type: str = "avg_time",
              timeout: float | None = None, legend: bool = True, **options: Any) -> DrawResult:
    """Draw ``plan`` (an EnginePlan or a beam/query SubPlan) to a file; options as in to_dot.

    ``method``: ``auto`` (by :mod:`trex.graph.cost`), ``dot`` or ``layered`` (alias ``own``).
    ``timeout``: seconds allowed to Graphviz (default: ``DOT_BUDGET_SECONDS`` for ``auto``, after
    which the own layout draws an SVG instead; ``DOT_FORCED_TIMEOUT`` for ``dot``).
    ``legend``: say what the ``color_by`` colours mean, under the graph (:mod:`trex.graph.legend`)."""
    if output_format not in FORMATS:
        raise ValueError(f"output_format must be one of {', '.join(FORMATS)}")
    timeout = check_timeout(timeout)
    start = time.perf_counter()
    formatter = formatter_for(plan, color_by, latency_type)
    path = os.fspath(output) if output else default_output(plan, output_format)
    note = ""
    with gc_paused():
        graph = DotGraph(plan, formatter, latency_type=latency_type, **options)
        if legend:
            graph.legend = legend_for(graph, color_by, getattr(formatter, "max_latency", None))
        auto = METHOD_ALIASES.get(method, method) == "auto"
        cost = dot_cost(graph) if auto and output_format == "svg" else len(graph.nodes)
        chosen = choose_method(cost, output_format, method)
        source = graph.source if chosen != "layered" else ""
    if chosen != "layered":
        budget = timeout or (DOT_BUDGET_SECONDS if auto else DOT_FORCED_TIMEOUT)
        try:
            path = render_source(source, path, output_format, timeout=budget)
        except GraphvizTimeout:
            if not auto or output_format != "svg":
                raise
            shape = cost.describe() if isinstance(cost, DotCost) else f"{cost} nodes"
            note = (f"Graphviz dot took more than {budget:g} s ({shape}); "
                    "drawn with trex's own layout instead")
            chosen = "layered"
    if chosen == "layered":
        if output_format != "svg":
            raise GraphvizError("trex's own layout writes SVG only; use -of svg (or a beam "
                                "or query) for graphs this large")
        from .svg import graph_to_svg

        path = os.path.abspath(path)
        with gc_paused():
            text = graph_to_svg(graph, str(getattr(plan, "name", "")))
        with atomic_write(path, what="the drawing") as f:
            f.write(text)
    return DrawResult(path, chosen, len(graph.nodes), len(graph.edges),
                      time.perf_counter() - start, note)
