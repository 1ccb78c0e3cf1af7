"""The report's drawing of a whole plan, read from the plan's columns (no Layer objects made).

It is what :class:`~trex.graph.scene.GraphScene` draws with the report's options (memory regions
only for the engine's inputs and outputs and rewritten buffers, no constants, no edge labels, no
highlight, hubs on buses), made from :class:`~trex.model.table.LayerTable`'s columns and tensor
uses by the same rules: :func:`~trex.graph.regions.table_regions`, the label rows of
:func:`~trex.graph.formatters.head_rows` and the dependencies of
:func:`~trex.graph.scene.dependency_pairs`. tests/test_graph_table.py checks that both draw the
same on every engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..model.control_flow import is_back_edge, is_recurrence
from ..model.layer_graph import SYNC_TYPES
from ..model.plan import EnginePlan
from ..model.tensors import Activation
from .colors import UNKNOWN_KEY_COLOR, precision_colormap
from .formatters import Row, head_rows, plan_latencies, stream_row, wrap_row
from .regions import binding_checker, resolved_shapes, table_regions
from .scene import dependency_pairs
from .structure import GraphStructure, structure_of_edges

DEPENDENCY_COLOR = "lightgray"  # GraphScene's dashed dependency edges


@dataclass
class TableScene:
    """Nodes (regions first, then layers in engine order) and edges of a plan's drawing."""

    kinds: list[str] = field(default_factory=list)  # "region", "layer", "constant" or "sync"
    names: list[str] = field(default_factory=list)  # the layer or tensor name
    rows: list[list[Row]] = field(default_factory=list)  # label rows
    table_rows: list[int] = field(default_factory=list)  # a layer's table row; -1: a region
    tensors: list[Activation | None] = field(default_factory=list)  # a region's tensor
    users: list[bool] = field(default_factory=list)  # a region of an engine input or output
    ends: list[tuple[int, int]] = field(default_factory=list)
    edge_colors: list[str] = field(default_factory=list)
    edge_dashed: list[bool] = field(default_factory=list)
    back: list[int] = field(default_factory=list)  # a loop's back-edges
    keys: list[str | None] = field(default_factory=list)  # the tensor of a data edge (hubs)
    dropped_edges: int = 0
    structure: GraphStructure | None = None
    bundle_hubs: bool = True


def table_scene(plan: EnginePlan) -> TableScene:
    """The drawing of ``plan`` as GraphScene draws it with the report's options."""
    table = plan.table
    names, types, streams = table.names, table.types, table.streams
    is_binding = binding_checker(plan)
    regions = table_regions(table, plan.rows, is_binding)
    all_rows = plan.all_rows
    scene = TableScene()

    # Memory nodes and the data edges between layers and them (PlanGraph's order).
    tensor_names = table.tensor_names
    use_name = table.use_name
    producers = set()
    for row in all_rows:
        if types[row] == "Constant":
            outputs = table.uses(row, True)
            if len(outputs):
                producers.add(tensor_names[int(use_name[outputs.start])])
    memory: list[tuple[str, Any, bool]] = []  # (node name, generation, is_user)
    # an edge: (source is a region, source key, target is a region, target key, generation use)
    edges: list[tuple[bool, Any, bool, Any, int]] = []
    add = edges.append
    for name, gens in regions.items():
        if name in producers or (not is_binding(name) and not any(g.writers for g in gens)):
            continue  # a constant's (or Myelin's embedded constant's) tensor: not drawn
        several = len(gens) > 1
        for k, gen in enumerate(gens):
            use = gen.use
            if not (gen.is_user or several):  # not a node: its writers feed its readers
                for writer, _ in gen.writers:
                    for reader, _ in gen.readers:
                        add((False, writer, False, reader, use))
                continue
            node = name if gen.is_user else f"{name}.{k}"
            memory.append((node, gen, gen.is_user))
            for writer, _ in gen.writers:
                add((False, writer, True, node, use))
            for reader, _ in gen.readers:
                add((True, node, False, reader, use))
    for name, gens in regions.items():  # each generation of a rewritten region to the next
        for k in range(1, len(gens)):
            prev, curr = gens[k - 1], gens[k]
            add((True, name if prev.is_user else f"{name}.{k - 1}", True,
                 name if curr.is_user else f"{name}.{k}", curr.use))

    region_index: dict[str, int] = {}
    for node, gen, user in memory:
        region_index[node] = len(scene.kinds)
        tensor = table.activation(gen.use)
        rows: list[Row] = [(line, None) for line in wrap_row(tensor.name)] \
            if user and tensor.name else []
        rows += [(str(tensor.shape), None), (tensor.format, None)]
        _node(scene, "region", tensor.name, rows, -1, tensor, user)

    # Layer nodes: every layer but constants, in engine order.
    layers = [row for row in all_rows if types[row] != "Constant"]
    latencies = plan_latencies(plan)
    origins, onnx_nodes = table.origins, table.onnx_nodes
    layer_index: dict[str, int] = {}
    kinds, node_names, node_rows = scene.kinds, scene.names, scene.rows
    first = len(kinds)
    for row in layers:
        name, kind, stream = names[row], types[row], streams[row]
        layer_index[name] = len(kinds)
        rows = head_rows(kind, name, onnx_nodes[row], origins[row],
                         latencies.get(name) or None, bounded=True)
        if stream > 0:
            rows.append(stream_row(stream))
        kinds.append("sync" if kind in SYNC_TYPES else "constant" if kind == "Constant"
                     else "layer")
        node_names.append(name)
        node_rows.append(rows)
    scene.table_rows.extend(layers)
    scene.tensors.extend([None] * (len(kinds) - first))
    scene.users.extend([False] * (len(kinds) - first))

    _data_edges(scene, plan, edges, region_index, layer_index, layers)
    for i, j in dependency_pairs([types[row] for row in layers], [streams[row] for row in layers],
                                 getattr(plan, "detailed", True) is False):
        a, b = layer_index.get(names[layers[i]]), layer_index.get(names[layers[j]])
        if a is not None and b is not None and a != b:
            scene.ends.append((a, b))
            scene.edge_colors.append(DEPENDENCY_COLOR)
            scene.edge_dashed.append(True)
            scene.keys.append(None)
    scene.structure = structure_of_edges(len(scene.kinds), scene.ends, scene.back, scene.keys)
    return scene


def _node(scene: TableScene, kind: str, name: str, rows: list[Row], row: int,
          tensor: Activation | None, user: bool) -> None:
    scene.kinds.append(kind)
    scene.names.append(name)
    scene.rows.append(rows)
    scene.table_rows.append(row)
    scene.tensors.append(tensor)
    scene.users.append(user)


def _data_edges(scene: TableScene, plan: EnginePlan, edges: list[tuple[bool, Any, bool, Any, int]],
                region_index: dict[str, int], layer_index: dict[str, int],
                layers: list[int]) -> None:
    """The edges between nodes, coloured by their tensor's precision; a loop's back-edges
    (into a Recurrence, from a later layer) dashed."""
    table = plan.table
    names, types = table.names, table.types
    shapes = table.shapes
    shape_of = resolved_shapes(table)
    tensor_names = table.tensor_names
    use_name = table.use_name
    all_rows = plan.all_rows
    colors: dict[int, str] = {}  # shape id -> colour
    recurrent = {t for t in set(types) if is_recurrence(t)}
    loops = bool(recurrent) and any(types[row] in recurrent for row in all_rows)
    order: dict[str, int] = {}
    producer: dict[str, int] = {}
    layer_types: dict[str, str] = {}
    if loops:
        for i, row in enumerate(all_rows):
            order[names[row]] = i
            for u in table.uses(row, True):
                producer.setdefault(tensor_names[int(use_name[u])], i)
        layer_types = {names[row]: types[row] for row in layers}
    ends, edge_colors, dashed, keys = scene.ends, scene.edge_colors, scene.edge_dashed, scene.keys
    dropped = 0
    for src_region, src, dst_region, dst, use in edges:
        a = region_index.get(src) if src_region else layer_index.get(names[src])
        b = region_index.get(dst) if dst_region else layer_index.get(names[dst])
        if a is None or b is None:
            dropped += 1
            continue
        sid = int(shape_of[use])
        color = colors.get(sid)
        if color is None:
            color = colors[sid] = precision_colormap.get(shapes[sid][0].precision,
                                                         UNKNOWN_KEY_COLOR)
        tensor = tensor_names[int(use_name[use])]
        back = False
        if loops and not dst_region:
            dst_name = names[dst]
            back = is_back_edge(layer_types.get(dst_name), producer.get(tensor, -1),
                                order.get(dst_name, -1))
        if back:
            scene.back.append(len(ends))
        ends.append((a, b))
        edge_colors.append(color)
        dashed.append(back)
        keys.append(None if back else tensor)
    scene.dropped_edges = dropped
