"""Engine graph drawings (TREx's ``graphing``): DOT, SVG, PNG, subgraphs and ONNX export.

``graphviz`` and ``onnx`` are imported only by the functions that need them.
"""

from __future__ import annotations

from .colors import layer_colormap, precision_colormap
from .dot import DotGraph, GraphvizError, render_dot, render_source, to_dot
from .drawing import DOT_MAX_NODES, DrawResult, draw_plan, formatter_for
from .formatters import (
    LatencyHeatmapFormatter,
    latency_types,
    layer_latency_formatter,
    layer_node_configurable_renderer,
    layer_node_formatters,
    layer_node_highlighter,
    layer_node_renderer_keras,
    layer_node_renderer_simple,
    layer_node_renderers,
    layer_precision_formatter,
    layer_type_formatter,
    region_precision_formatter,
)
from .layout import Layout, layered_layout
from .onnx_export import OnnxGraph, export_onnx, to_onnx
from .regions import Edge, MemoryNode, PlanGraph, PortDesc, Region, RegionGeneration, regions_factory
from .subgraph import GraphQueryError, SubPlan, beam, query
from .svg import graph_to_svg

__all__ = [
    "DOT_MAX_NODES",
    "DotGraph",
    "DrawResult",
    "Edge",
    "GraphQueryError",
    "GraphvizError",
    "LatencyHeatmapFormatter",
    "Layout",
    "MemoryNode",
    "OnnxGraph",
    "PlanGraph",
    "PortDesc",
    "Region",
    "RegionGeneration",
    "SubPlan",
    "beam",
    "draw_plan",
    "export_onnx",
    "formatter_for",
    "graph_to_svg",
    "latency_types",
    "layer_colormap",
    "layer_latency_formatter",
    "layer_node_configurable_renderer",
    "layer_node_formatters",
    "layer_node_highlighter",
    "layer_node_renderer_keras",
    "layer_node_renderer_simple",
    "layer_node_renderers",
    "layer_precision_formatter",
    "layer_type_formatter",
    "layered_layout",
    "precision_colormap",
    "query",
    "regions_factory",
    "region_precision_formatter",
    "render_dot",
    "render_source",
    "to_dot",
    "to_onnx",
]
