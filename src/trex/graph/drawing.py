"""Drawing a plan to a file, choosing the renderer by size and format.

Graphviz ``dot`` lays out small graphs best but is superlinear, and each edge label costs it about
as much as a node. Measured on a 2-core machine (replicated real engines, no edge labels):
1,300 nodes 0.55 s, 2,500 nodes 1.6 s, 3,800 nodes 5.3 s; 2,500 nodes with edge labels 13.6 s.
So ``dot`` is used while nodes + labelled edges <= ``DOT_MAX_NODES`` (under about 1 s), and
larger graphs are laid out by trex's own layered layout and written as SVG directly.
"""

from __future__ import annotations

import contextlib
import gc
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..model.layer import Layer
from ..safety import safe_filename
from .dot import DotGraph, GraphvizError, dot_executable, render_source
from .formatters import layer_latency_formatter, layer_precision_formatter, layer_type_formatter

DOT_MAX_NODES = 1500
FORMATS = ("svg", "png", "dot")
METHODS = ("auto", "dot", "layered")
COLOR_BY = ("type", "precision", "latency")


@dataclass
class DrawResult:
    """What :func:`draw_plan` wrote and how."""

    path: str
    method: str  # "dot" (Graphviz layout), "layered" (trex's layout) or "source" (DOT text)
    nodes: int
    edges: int
    seconds: float


def formatter_for(plan: Any, color_by: str = "type",
                  latency_type: str = "avg_time") -> Callable[[Layer], dict[str, str]]:
    """The node formatter for ``color_by``: ``type``, ``precision`` or ``latency``."""
    if color_by == "type":
        return layer_type_formatter
    if color_by == "precision":
        return layer_precision_formatter
    if color_by == "latency":
        return layer_latency_formatter(plan, latency_type)
    raise ValueError(f"color_by must be one of {', '.join(COLOR_BY)}, not {color_by!r}")


def dot_cost(graph: DotGraph) -> int:
    """What a graph costs Graphviz ``dot``: its nodes plus its labelled edges."""
    return len(graph.nodes) + sum(1 for edge in graph.edges if edge.label)


def choose_method(cost: int, output_format: str, method: str = "auto") -> str:
    """``dot`` or ``layered`` for a graph of :func:`dot_cost` ``cost`` (module docstring)."""
    if output_format == "dot":
        return "source"
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    if method != "auto":
        return method
    if output_format == "png":
        return "dot"
    if cost <= DOT_MAX_NODES and dot_executable():
        return "dot"
    return "layered"


def default_output(plan: Any, output_format: str) -> str:
    """``<engine name>.<format>`` in the current directory (the name reduced to a file name)."""
    base = safe_filename(getattr(plan, "name", "") or "engine")
    return f"{base}.{output_format}"


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: its passes over a big plan's millions of objects
    double the drawing time, and drawing creates no reference cycles."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def draw_plan(plan: Any, output: str | os.PathLike | None = None, output_format: str = "svg",
              color_by: str = "type", method: str = "auto", latency_type: str = "avg_time",
              timeout: float | None = None, **options: Any) -> DrawResult:
    """Draw ``plan`` (an EnginePlan or a beam/query SubPlan) to a file; options as in to_dot."""
    if output_format not in FORMATS:
        raise ValueError(f"output_format must be one of {', '.join(FORMATS)}")
    start = time.perf_counter()
    formatter = formatter_for(plan, color_by, latency_type)
    path = os.fspath(output) if output is not None else default_output(plan, output_format)
    with gc_paused():
        graph = DotGraph(plan, formatter, latency_type=latency_type, **options)
        chosen = choose_method(dot_cost(graph), output_format, method)
        if chosen == "layered":
            if output_format != "svg":
                raise GraphvizError("trex's own layout writes SVG only; use -of svg (or a beam "
                                    "or query) for graphs this large")
            from .svg import graph_to_svg

            path = os.path.abspath(path)
            with open(path, "w", encoding="utf-8") as f:
                f.write(graph_to_svg(graph, str(getattr(plan, "name", ""))))
        else:
            source = graph.source
    if chosen != "layered":
        path = render_source(source, path, output_format, timeout=timeout)
    return DrawResult(path, chosen, len(graph.nodes), len(graph.edges),
                      time.perf_counter() - start)
