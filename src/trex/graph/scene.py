"""The drawing of a plan as nodes and edges (layers, memory regions, data and dependencies).

:class:`GraphScene` builds it once from a plan, with every TREx option (forking regions, layer
names, metadata, highlighting, latency colouring); :class:`~trex.graph.dot.DotGraph` writes it as
DOT and :mod:`trex.graph.svg` lays it out itself. Nothing here writes text for Graphviz.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model.control_flow import is_back_edge, is_recurrence
from ..model.layer import Layer
from ..model.layer_graph import SYNC_TYPES
from ..model.protocol import PlanLike
from ..model.tensors import Activation
from .colors import UNKNOWN_KEY_COLOR, precision_colormap, stream_color
from .escape import (
    clean,
    shorten,
)
from .formatters import (
    Row,
    html_table,
    latency_types,
    layer_node_configurable_renderer,
    layer_node_highlighter,
    layer_rows,
    plan_latencies,
    region_precision_formatter,
    tensor_tooltip,
    wrap_row,
)
from .regions import PlanGraph
from .structure import GraphStructure, structure_of

MAX_ID_CHARS = 3000  # node ids are names; escaped (at most 5x) they stay under Graphviz's limit
BACK_EDGE_ATTRS = {"style": "dashed", "constraint": "false"}
@dataclass
class Node:
    """One node of the drawing: a layer, a memory region or a sync (signal/wait) layer."""

    id: str
    kind: str  # "layer", "region", "constant" or "sync"
    name: str  # the layer or tensor name, unescaped
    label: str  # DOT label: plain text, HtmlLabel or RecordLabel
    rows: list[Row]  # the same label as rows of text, for the SVG writer
    attrs: dict[str, str] = field(default_factory=dict)
    layer: Layer | None = None
    tensor: Activation | None = None


@dataclass
class EdgeSpec:
    """One edge of the drawing: data (a tensor) or a dashed dependency."""

    src: str
    dst: str
    label: str = ""
    attrs: dict[str, str] = field(default_factory=dict)
    kind: str = "data"  # "data" or "dependency"
    tensor: Activation | None = None
    back: bool = False  # a loop's back-edge (into its Recurrence layer)


class _Ids:
    """Unique DOT node ids derived from names (TREx uses the names themselves)."""

    def __init__(self) -> None:
        self.used: set[str] = set()
        self.next_suffix: dict[str, int] = {}

    def allocate(self, name: str) -> str:
        base = shorten(clean(name), MAX_ID_CHARS) or "_"
        candidate, n = base, self.next_suffix.get(base, 1)
        while candidate in self.used:
            n += 1
            candidate = f"{base} #{n}"
        self.next_suffix[base] = n
        self.used.add(candidate)
        return candidate


class GraphScene:
    """A plan as nodes and edges (TREx's DotGraph options); ``highlight_layers`` takes layer
    names or ``plan.df`` row indices."""

    def __init__(
        self,
        plan: PlanLike,
        layer_node_formatter: Callable[[Layer], dict[str, str]],
        layer_node_highlighter: Callable[..., dict] = layer_node_highlighter,
        layer_node_renderer: Callable[..., str] = layer_node_configurable_renderer,
        region_formatter: Callable[[Activation, bool], dict[str, str]] = region_precision_formatter,
        display_layer_names: bool = True,
        stack_layer_names: bool = True,
        display_regions: bool = False,
        display_forking_regions: bool = False,
        expand_layer_details: bool = False,
        display_constants: bool = False,
        display_latency: bool = True,
        latency_type: str = "avg_time",
        display_region_reuse: bool = False,
        display_region_names: bool = False,
        display_edge_name: bool = False,
        display_edge_details: bool = True,
        highlight_layers: Sequence[int | str] | None = None,
        remove_disconnected_layers: bool = False,
        display_metadata: bool = True,
        display_matadata: bool | None = None,
        display_order_edges: bool | None = None,
        graph_attr: dict[str, str] | None = None,
        bundle_hubs: bool = True,
    ):
        self.plan = plan
        self.layer_node_formatter = layer_node_formatter
        self.layer_node_highlighter = layer_node_highlighter
        self.layer_node_renderer = layer_node_renderer
        self.region_formatter = region_formatter
        self.display_layer_names = display_layer_names
        self.stack_layer_names = stack_layer_names
        self.expand_layer_details = expand_layer_details
        self.display_latency = display_latency
        self.latency_type = latency_type if latency_type in latency_types else latency_types[0]
        self.display_region_reuse = display_region_reuse
        self.display_region_names = display_region_names
        self.display_edge_name = display_edge_name
        self.display_edge_details = display_edge_details
        self.display_metadata = display_metadata if display_matadata is None else display_matadata
        self.graph_attr = dict(graph_attr or {})
        self.bundle_hubs = bundle_hubs
        self._structure: GraphStructure | None = None
        self._bus_ids: list[list[str]] | None = None
        if display_order_edges is None:
            display_order_edges = getattr(plan, "detailed", True) is False
        self.nodes: list[Node] = []
        self.edges: list[EdgeSpec] = []
        self.dropped_edges = 0
        self._ids = _Ids()
        self._layer_ids: dict[str, str] = {}
        self._layer_types: dict[str, str] = {}
        self._dot: Any = None
        # what the colours mean (trex.graph.legend.Legend), drawn outside the graph when set
        self.legend: Any = None

        plan_graph = PlanGraph(plan, display_regions, display_constants, display_forking_regions)
        self.plan_graph = plan_graph
        layers = [node.layer for node in plan_graph.layer_nodes]
        if remove_disconnected_layers and not display_order_edges:
            layers = [layer for layer in layers if layer.inputs or layer.outputs
                      or layer.type == "TrainStation" or layer.type in SYNC_TYPES]
        if not display_constants:
            layers = [layer for layer in layers if layer.type != "Constant"]
        self._highlight_names = self._highlight_names_of(highlight_layers)
        self.highlighted_layers_ids: list[str] = []

        region_ids = self._add_region_nodes(plan_graph)
        self._add_layer_nodes(layers)
        self._add_data_edges(plan_graph, region_ids)
        self._add_dependencies(layers, display_order_edges)

    # ------------------------------------------------------------------ building
    def _highlight_names_of(self, highlight: Sequence[int | str] | str | int | None) -> set[str]:
        """Layer names to highlight: names as given, integers as ``plan.df`` row indices."""
        if highlight is None:
            highlight = sorted(getattr(self.plan, "highlighted", ()) or ())
        if isinstance(highlight, (str, int)):
            highlight = [highlight]
        names: set[str] = set()
        df_names: list[str] | None = None
        for item in highlight:
            if isinstance(item, str):
                names.add(item)
                continue
            if df_names is None:
                df_names = self.plan.df["Name"].tolist()
            try:
                names.add(df_names[int(item)])
            except (IndexError, ValueError, TypeError):
                warnings.warn(f"layer index {item!r} to highlight is out of range", stacklevel=4)
        return names

    def _add_region_nodes(self, plan_graph: PlanGraph) -> dict[str, str]:
        name_to_id: dict[str, str] = {}
        layer_names = {node.layer.name for node in plan_graph.layer_nodes}
        for mem in plan_graph.memory_nodes:
            # Region names share the namespace of layer names; keep them apart.
            preferred = mem.name if mem.name not in layer_names else f"{mem.name} (tensor)"
            node_id = self._ids.allocate(preferred)
            name_to_id[mem.name] = node_id
            tensor = mem.tensor
            attrs = dict(self.region_formatter(tensor, mem.is_user))
            desc = tensor.name if (self.display_region_names or mem.is_user) else ""
            if self.display_region_reuse and mem.region_gen > 0:
                desc = f"{desc} (gen={mem.region_gen})"
            rows = [(line, None) for line in wrap_row(desc)] if desc else []
            rows += [(str(tensor.shape), None), (tensor.format, None)]
            label = "\n".join(text for text, _ in rows)
            attrs["shape"] = "rectangle"
            if mem.is_user:
                attrs["fillcolor"] = "gray"
            self.nodes.append(Node(node_id, "region", tensor.name, label, rows, attrs,
                                   tensor=tensor))
        return name_to_id

    def _add_layer_nodes(self, layers: list[Layer]) -> None:
        latencies = plan_latencies(self.plan, self.latency_type) if self.display_latency else {}
        renderer = self.layer_node_renderer
        default_renderer = renderer is layer_node_configurable_renderer
        highlighted: list[str] = []
        for layer in layers:
            node_id = self._ids.allocate(layer.name)
            self._layer_ids[layer.name] = node_id
            self._layer_types[layer.name] = layer.type
            if layer.name in self._highlight_names:
                highlighted.append(node_id)
            latency = latencies.get(layer.name) or None
            rows = layer_rows(layer, latency, self.display_layer_names,
                              self.expand_layer_details, self.stack_layer_names,
                              self.display_metadata, bounded=True)
            if default_renderer:
                label: str = html_table(rows)
            else:
                label = renderer(layer, latency, display_layer_names=self.display_layer_names,
                                 expand_layer_details=self.expand_layer_details,
                                 stack_layer_names=self.stack_layer_names,
                                 prefer_matadata=self.display_metadata)
            attrs = dict(self.layer_node_formatter(layer))
            if layer.stream > 0:
                attrs.update(stream_border(layer.stream, attrs.get("color", "lightgray")))
            kind = "sync" if layer.type in SYNC_TYPES else (
                "constant" if layer.type == "Constant" else "layer")
            self.nodes.append(Node(node_id, kind, layer.name, label, rows, attrs, layer=layer))
        self.highlighted_layers_ids = highlighted
        if highlighted:
            for node in self.nodes:
                if node.kind != "region":
                    node.attrs.update(self.layer_node_highlighter(node.id, highlighted))

    def _add_data_edges(self, plan_graph: PlanGraph, region_ids: dict[str, str]) -> None:
        layer_ids = self._layer_ids
        order: dict[str, int] = {}
        producer: dict[str, int] = {}
        loops = [node.layer for node in plan_graph.layer_nodes if is_recurrence(node.layer.type)]
        if loops:  # positions, to tell a loop's back-edges (into a Recurrence, from later layers)
            for i, node in enumerate(plan_graph.layer_nodes):
                order[node.layer.name] = i
                for tensor in node.layer.outputs:
                    producer.setdefault(tensor.name, i)
        for edge in plan_graph.edges_list:
            src = (region_ids if edge.src_is_region else layer_ids).get(edge.src.layer_name)
            dst = (region_ids if edge.dst_is_region else layer_ids).get(edge.dst.layer_name)
            if src is None or dst is None:
                self.dropped_edges += 1
                continue
            tensor = edge.tensor
            desc = []
            if self.display_edge_name:
                desc.append(tensor.name)
            if self.display_edge_details:
                desc.append(tensor_tooltip(tensor))
            color = precision_colormap.get(tensor.precision, UNKNOWN_KEY_COLOR)
            back = bool(loops) and not edge.dst_is_region and is_back_edge(
                self._layer_types.get(edge.dst.layer_name), producer.get(tensor.name, -1),
                order.get(edge.dst.layer_name, -1))
            attrs = {"color": color, **BACK_EDGE_ATTRS} if back else {"color": color}
            self.edges.append(EdgeSpec(src, dst, "\n".join(desc), attrs, tensor=tensor,
                                       back=back))

    def _dependency(self, src: Layer, dst: Layer) -> None:
        a, b = self._layer_ids.get(src.name), self._layer_ids.get(dst.name)
        if a is not None and b is not None and a != b:
            self.edges.append(EdgeSpec(a, b, "", {"color": "lightgray", "style": "dashed"},
                                       kind="dependency"))

    def _add_dependencies(self, layers: list[Layer], order_edges: bool) -> None:
        """Dashed edges of TrainStations, signal/wait layers and (names only) execution order."""
        for i, j in dependency_pairs([layer.type for layer in layers],
                                     [layer.stream for layer in layers], order_edges):
            self._dependency(layers[i], layers[j])

    @property
    def structure(self) -> GraphStructure:
        """Edge ends, layers, back-edges and hub buses (computed once)."""
        if self._structure is None:
            self._structure = structure_of(self, self.bundle_hubs)
        return self._structure

    def layer_node_ids(self) -> dict[str, str]:
        """Layer name to node id."""
        return dict(self._layer_ids)


def dependency_pairs(types: Sequence[str], streams: Sequence[int], order_edges: bool
                     ) -> list[tuple[int, int]]:
    """The dashed dependency edges between drawn layers (indices into ``types``), in order:
    TrainStations order their neighbours (as in TREx); a stream's previous layer -> its signal ->
    the wait it releases (the first pending signal of another stream) -> the next layer of the
    waiting stream; names-only plans (no tensors) link layers in execution order."""
    pairs: list[tuple[int, int]] = []
    n = len(types)
    for i in range(1, n):
        if types[i] == "TrainStation" and i < n - 1:
            pairs.append((i - 1, i))
        if types[i - 1] == "TrainStation" and i > 1:
            pairs.append((i - 1, i))
    if any(t in SYNC_TYPES for t in types):
        last_on: dict[Any, int] = {}
        pending_waits: dict[Any, int] = {}
        signals: list[tuple[Any, int]] = []
        for i, (kind, stream) in enumerate(zip(types, streams)):
            if kind == "signal":
                if stream in last_on:
                    pairs.append((last_on[stream], i))
                signals.append((stream, i))
            elif kind == "wait":
                match = next((k for k, (s, _) in enumerate(signals) if s != stream), None)
                if match is None and signals:
                    match = 0
                if match is not None:
                    pairs.append((signals.pop(match)[1], i))
                pending_waits[stream] = i
            else:
                if stream in pending_waits:
                    pairs.append((pending_waits.pop(stream), i))
                last_on[stream] = i
    if order_edges:
        pairs.extend((i - 1, i) for i in range(1, n))
    return pairs


def stream_border(stream: int, color: str = "lightgray") -> dict[str, str]:
    """The border of a layer on auxiliary CUDA stream ``stream`` (> 0): the stream's colour
    (else ``color``), thick."""
    return {"color": stream_color(stream) or color, "penwidth": "3"}
