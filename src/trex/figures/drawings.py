"""Plan-graph drawings of TREx's report card, through :mod:`trex.graph` (imported on first use).

``draw_plan_graph`` renders one of TREx's five presets to ``<engine_name>.svg`` and returns its
path. The layout is chosen as ``trex draw --layout auto`` chooses it (:mod:`trex.graph.cost`):
Graphviz ``dot`` where it is fast, within a time budget, else trex's own layout (with a warning
when the budget ran out); without Graphviz an SVG is still written with trex's own layout.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

from ..model.plan import EnginePlan

# TREx's presets: node colours, regions drawn, layer details expanded, layer names shown.
GRAPH_CHOICES: dict[str, dict[str, Any]] = {
    "Color nodes by type": {"color_by": "type", "display_regions": False,
                            "expand_layer_details": False},
    "Color nodes by type (detailed)": {"color_by": "type", "display_regions": True,
                                       "expand_layer_details": True},
    "Color nodes by precision": {"color_by": "precision", "display_regions": False,
                                 "expand_layer_details": False},
    "Color nodes by precision (detailed)": {"color_by": "precision", "display_regions": True,
                                            "expand_layer_details": True},
    "Minimalistic": {"color_by": "type", "display_regions": False, "expand_layer_details": True,
                     "display_layer_names": False},
}
COLOR_CHOICES = {"Layer Type": "type", "Layer Precision": "precision"}


def render_plan_graph(plan: EnginePlan, engine_name: str | os.PathLike, color_by: str = "type",
                      output_format: str = "svg", layout: str = "auto", **options: Any) -> str:
    """Draw ``plan`` (options as in TREx's ``to_dot``) to ``<engine_name>.<format>``; return the
    path. ``layout``: ``auto``, ``dot`` or ``own``, as ``trex draw --layout``."""
    from .. import graph as graphing
    from ..errors import TrexWarning

    color_by = COLOR_CHOICES.get(color_by, color_by)
    name = os.fspath(engine_name)
    try:
        result = graphing.draw_plan(plan, f"{name}.{output_format}", output_format,
                                    color_by=color_by, method=layout, **options)
    except graphing.GraphvizError:
        if output_format != "svg" or layout != "auto":
            raise
        # Graphviz failed: lay the graph out with trex's own SVG writer.
        result = graphing.draw_plan(plan, f"{name}.svg", "svg", color_by=color_by, method="layered",
                                    **options)
    if result.note:
        warnings.warn(result.note, TrexWarning, stacklevel=2)
    return result.path


def draw_plan_graph(plan: EnginePlan, engine_name: str | os.PathLike,
                    choice: str = "Color nodes by type", output_format: str = "svg") -> str:
    """Render one of TREx's presets (:data:`GRAPH_CHOICES`) to ``<engine_name>.<format>``."""
    options = dict(GRAPH_CHOICES[choice])
    color_by = options.pop("color_by")
    return render_plan_graph(plan, engine_name, color_by, output_format, **options)


def layer_renderers() -> dict[str, Any]:
    """Node renderers by name (TREx's ``layer_node_renderers``)."""
    from .. import graph as graphing

    return dict(graphing.layer_node_renderers)


def latency_types() -> list[str]:
    """Latency metrics a drawing can show (TREx's ``latency_types``)."""
    from .. import graph as graphing

    return list(graphing.latency_types)
