"""Memory regions (TREx's model): which tensors become graph nodes and which edges connect them.

A region is one named activation buffer. Each switch from reading it to writing it again starts a
new *generation*; a region with several generations is unravelled into one node per generation,
which removes the cycles in-place layers would otherwise create. Binding generations are
*user* regions (the graph inputs and outputs); a generation with several writers or readers is
*forked*.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from ..model.control_flow import is_recurrence
from ..model.layer import Layer
from ..model.profiles import strip_profile
from ..model.protocol import PlanLike
from ..model.tensors import Activation


class PortDesc(NamedTuple):
    """One input or output port of a layer (or region node); port is None for user regions."""

    layer_name: str
    port: int | None


class Edge(NamedTuple):
    """A data edge between two graph nodes (layer or memory node names; the flags tell which)."""

    src: PortDesc
    dst: PortDesc
    tensor: Activation
    region_gen: int
    src_is_region: bool = False
    dst_is_region: bool = False


@dataclass
class RegionGeneration:
    """One consumable state of a memory region: who writes it, then who reads it."""

    tensor: Activation
    id: int
    is_user: bool = False
    is_forked: bool = False
    writers: list[PortDesc] = field(default_factory=list)
    readers: list[PortDesc] = field(default_factory=list)


class Region:
    """One activation buffer (or graph input/output) and its generations."""

    __slots__ = ("name", "generations")

    def __init__(self, name: str | None = None):
        self.name: str | None = name
        self.generations: list[RegionGeneration] = []

    def add_generation(self, tensor: Activation) -> None:
        """Start a new generation of the region, holding ``tensor``."""
        self.name = self.name or tensor.name
        self.generations.append(RegionGeneration(tensor, len(self.generations)))

    def nb_generations(self) -> int:
        """Number of generations (TREx's method)."""
        return len(self.generations)

    def _widen(self, tensor: Activation, gen_id: int) -> None:
        # A generation is shown with its largest view (TREx: the biggest tensor wins).
        if tensor.size_bytes > self.generations[gen_id].tensor.size_bytes:
            self.generations[gen_id].tensor = tensor

    def add_writer(self, gen_id: int, writer: PortDesc, tensor: Activation) -> None:
        """Record a layer port writing generation ``gen_id``."""
        self.generations[gen_id].writers.append(writer)
        self._widen(tensor, gen_id)

    def add_reader(self, gen_id: int, reader: PortDesc, tensor: Activation) -> None:
        """Record a layer port reading generation ``gen_id``."""
        self.generations[gen_id].readers.append(reader)
        self._widen(tensor, gen_id)
        if gen_id > 0:
            self._widen(tensor, gen_id - 1)

    def writers(self, gen_id: int | None = None) -> list[PortDesc]:
        """Writers of one generation, or of all generations."""
        if gen_id is not None:
            return self.generations[gen_id].writers if 0 <= gen_id < len(self.generations) else []
        return [w for g in self.generations for w in g.writers]

    def readers(self, gen_id: int | None = None) -> list[PortDesc]:
        """Readers of one generation, or of all generations."""
        if gen_id is not None:
            return self.generations[gen_id].readers if 0 <= gen_id < len(self.generations) else []
        return [r for g in self.generations for r in g.readers]

    def is_placeholder(self) -> bool:
        """True if the region is rewritten (several generations), so it is drawn unrolled."""
        return len(self.generations) > 1

    def __repr__(self) -> str:
        return f"Region({self.name!r}, generations={len(self.generations)})"


def binding_checker(plan: PlanLike) -> Any:
    """A predicate telling binding tensors, with or without their `` [profile N]`` suffix."""
    bindings = set(plan.bindings)
    stripped = {strip_profile(b) for b in bindings}

    def is_binding(name: str) -> bool:
        return name in bindings or ("[profile " in name and strip_profile(name) in stripped)

    return is_binding


def regions_factory(plan: PlanLike) -> list[Region]:
    """The regions of a plan's layers, in order of first use (linear in tensor uses)."""
    is_binding_name = binding_checker(plan)
    story: dict[str, list[tuple[str, int, bool, Activation]]] = {}
    # A Recurrence layer reads its loop body's output (written later) as the next iteration's
    # value: that read is kept for after the tensor's writes, so the edge is body -> Recurrence.
    deferred: list[tuple[str, str, int, Activation]] = []
    written: set[str] = set()
    for layer in plan.layers:
        recurrence = is_recurrence(layer.type)
        for port, tensor in enumerate(layer.inputs):
            events = story.setdefault(tensor.name, [])
            if recurrence and tensor.name not in written and not is_binding_name(tensor.name):
                deferred.append((tensor.name, layer.name, port, tensor))
                continue
            events.append((layer.name, port, False, tensor))
        for port, tensor in enumerate(layer.outputs):
            story.setdefault(tensor.name, []).append((layer.name, port, True, tensor))
            written.add(tensor.name)
    for name, layer_name, port, tensor in deferred:
        story[name].append((layer_name, port, False, tensor))

    regions: list[Region] = []
    for name, events in story.items():
        region = Region(name)
        gen = -1
        previous: bool | None = None
        for layer_name, port, is_write, tensor in events:
            if is_write != previous and (is_write or previous is None):
                gen += 1
                region.add_generation(tensor)
            if is_write:
                region.add_writer(gen, PortDesc(layer_name, port), tensor)
            else:
                region.add_reader(gen, PortDesc(layer_name, port), tensor)
            previous = is_write
        is_binding = is_binding_name(name)
        last = len(region.generations) - 1
        for generation in region.generations:
            nw, nr = len(generation.writers), len(generation.readers)
            # A binding's last generation is always shown; earlier ones only at the graph's edge.
            generation.is_user = is_binding and (generation.id == last or nw == 0 or nr == 0)
            generation.is_forked = nw > 1 or nr > 1
        regions.append(region)
    return regions


def memory_node_name(region: Region, generation: RegionGeneration) -> str:
    """TREx's node name: the binding name for user regions, ``name.gen`` otherwise."""
    return region.name if generation.is_user else f"{region.name}.{generation.id}"


class LayerNode:
    """A graph node representing an engine layer."""

    __slots__ = ("layer",)

    def __init__(self, layer: Layer):
        self.layer = layer


class MemoryNode(NamedTuple):
    """A displayed region generation: an activation buffer, or a graph input/output."""

    name: str
    tensor: Activation
    region_gen: int
    is_user: bool


class PlanGraph:
    """A plan as layer nodes, memory nodes and edges; regions not shown as nodes (see
    :meth:`should_include_region`) become direct layer-to-layer edges."""

    def __init__(self, plan: PlanLike, include_regions: bool = False, include_constants: bool = False,
                 include_forking_regions: bool = False):
        self.include_regions = include_regions
        self.include_constants = include_constants
        self.include_forking_regions = include_forking_regions
        self.regions = regions_factory(plan)
        self._edges_list: list[Edge] = []
        self._layer_nodes = [LayerNode(layer) for layer in plan.all_layers]
        self._memory_nodes: list[MemoryNode] = []
        self._add_memory_nodes(plan)
        self._add_inter_region_edges()

    @property
    def edges_list(self) -> list[Edge]:
        """Edges between layer and memory nodes."""
        return self._edges_list

    @property
    def layer_nodes(self) -> list[LayerNode]:
        """One node per layer of the plan (constants included)."""
        return self._layer_nodes

    @property
    def memory_nodes(self) -> list[MemoryNode]:
        """The memory regions drawn as nodes (user I/O, rewritten or forking regions)."""
        return self._memory_nodes

    def _add_memory_nodes(self, plan: PlanLike) -> None:
        is_binding = binding_checker(plan)
        producers = {c.outputs[0].name: c for c in plan.constants if c.outputs}
        for region in self.regions:
            is_constant = region.name in producers
            # Tensors nobody writes that are not graph inputs: Myelin's embedded constants.
            is_myelin_const = not is_binding(region.name) and not any(
                g.writers for g in region.generations)
            if (is_constant or is_myelin_const) and not self.include_constants:
                continue
            for generation in region.generations:
                if not self.should_include_region(region, generation, is_constant):
                    self._add_region_bypass_edges(generation)
                elif is_constant:
                    self._add_constant_node(region, generation, producers[region.name])
                else:
                    self._add_memory_node(region, generation)

    def _add_constant_node(self, region: Region, generation: RegionGeneration,
                           constant: Layer) -> None:
        name = memory_node_name(region, generation)
        if self.include_regions:
            self._edges_list.append(Edge(PortDesc(constant.name, 0), PortDesc(name, 0),
                                         generation.tensor, generation.id, False, True))
            self._add_egress_edges(region, generation)
            self._memory_nodes.append(
                MemoryNode(name, generation.tensor, generation.id, generation.is_user))
        else:
            self._connect_writer_to_all_readers(PortDesc(constant.name, 0), generation, False)

    def _add_memory_node(self, region: Region, generation: RegionGeneration) -> None:
        name = memory_node_name(region, generation)
        self._memory_nodes.append(
            MemoryNode(name, generation.tensor, generation.id, generation.is_user))
        port = None if generation.is_user else 0
        for writer in generation.writers:
            self._edges_list.append(Edge(PortDesc(writer.layer_name, writer.port),
                                         PortDesc(name, port), generation.tensor, generation.id,
                                         False, True))
        self._add_egress_edges(region, generation)

    def _add_region_bypass_edges(self, generation: RegionGeneration) -> None:
        for writer in generation.writers:
            port = None if generation.is_user else writer.port
            self._connect_writer_to_all_readers(PortDesc(writer.layer_name, port), generation,
                                                False)

    def _add_egress_edges(self, region: Region, generation: RegionGeneration) -> None:
        port = None if generation.is_user else 0
        self._connect_writer_to_all_readers(
            PortDesc(memory_node_name(region, generation), port), generation, True)

    def _connect_writer_to_all_readers(self, writer: PortDesc, generation: RegionGeneration,
                                       from_region: bool) -> None:
        for reader in generation.readers:
            self._edges_list.append(Edge(writer, PortDesc(reader.layer_name, reader.port),
                                         generation.tensor, generation.id, from_region, False))

    def _add_inter_region_edges(self) -> None:
        """Edges from each generation of a multi-generation region to the next."""
        for region in self.regions:
            gens = region.generations
            for prev, curr in zip(gens, gens[1:]):
                self._edges_list.append(Edge(PortDesc(memory_node_name(region, prev), 0),
                                             PortDesc(memory_node_name(region, curr), 0),
                                             curr.tensor, curr.id, True, True))

    def should_include_region(self, region: Region, generation: RegionGeneration,
                              is_constant: bool) -> bool:
        """TREx's rule for showing one region generation as a node."""
        is_forked = self.include_forking_regions and generation.is_forked
        include = (self.include_regions or generation.is_user or region.nb_generations() > 1
                   or is_forked)
        return (self.include_constants and is_constant) or (not is_constant and include)


class UseGeneration:
    """A region generation read from a plan's columns: ``use`` is the tensor use it shows (its
    largest view), writers and readers are (table row, port)."""

    __slots__ = ("use", "size", "writers", "readers", "is_user")

    def __init__(self, use: int, size: int):
        self.use = use
        self.size = size
        self.writers: list[tuple[int, int]] = []
        self.readers: list[tuple[int, int]] = []
        self.is_user = False


def table_regions(table: Any, rows: list[int], is_binding_name: Any
                  ) -> dict[str, list[UseGeneration]]:
    """:func:`regions_factory`'s regions of the table ``rows`` (a plan's ``rows``, in order),
    from the tensor uses: tensor name -> its generations, in order of first use. The same rule:
    a switch from reading to writing starts a generation; a Recurrence's read of a tensor not
    written yet is kept for after the writes; a generation shows its largest view."""
    names = table.tensor_names
    types = table.types
    recurrent = {t for t in set(types) if is_recurrence(t)}
    wanted = np.zeros(len(types), dtype=bool)
    wanted[np.asarray(rows, dtype=np.int64)] = True
    selected = np.flatnonzero(wanted[table.use_row])  # uses in order: by row, inputs first
    sizes = use_sizes(table)
    # each use's port: its place among its row's inputs (or outputs)
    key = 2 * table.use_row + table.use_output
    first = np.searchsorted(key, key[selected])  # the uses are sorted by row and side
    story: dict[str, list[tuple[int, int, bool, int]]] = {}
    deferred: list[tuple[str, int, int, int]] = []
    written: set[str] = set()
    for u, row, is_write, port, name_id in zip(
            selected.tolist(), table.use_row[selected].tolist(),
            table.use_output[selected].tolist(), (selected - first).tolist(),
            table.use_name[selected].tolist()):
        name = names[name_id]
        events = story.get(name)
        if events is None:
            events = story[name] = []
        if is_write:
            written.add(name)
        elif types[row] in recurrent and name not in written and not is_binding_name(name):
            deferred.append((name, row, port, u))
            continue
        events.append((row, port, is_write, u))
    for name, row, port, u in deferred:
        story[name].append((row, port, False, u))

    regions: dict[str, list[UseGeneration]] = {}
    for name, events in story.items():
        gens: list[UseGeneration] = []
        gen: UseGeneration | None = None
        previous: bool | None = None
        for row, port, is_write, u in events:
            size = sizes[u]
            if is_write != previous and (is_write or previous is None):
                gen = UseGeneration(u, size)
                gens.append(gen)
            assert gen is not None
            if size > gen.size:  # a generation is shown with its largest view
                gen.use, gen.size = u, size
            if is_write:
                gen.writers.append((row, port))
            else:
                gen.readers.append((row, port))
                if len(gens) > 1:
                    before = gens[-2]
                    if size > before.size:
                        before.use, before.size = u, size
            previous = is_write
        if is_binding_name(name):
            last = len(gens) - 1
            for k, generation in enumerate(gens):
                # A binding's last generation is always shown; earlier ones only at the edge.
                generation.is_user = (k == last or not generation.writers
                                      or not generation.readers)
        regions[name] = gens
    return regions


def use_sizes(table: Any) -> list[int]:
    """The size in bytes of each tensor use's Activation (a renamed binding's as its source's)."""
    shapes = resolved_shapes(table)
    return np.asarray(table.shape_size, dtype=object)[shapes].tolist() if len(shapes) else []


def resolved_shapes(table: Any) -> Any:
    """Each tensor use's (format, shape) id as its Activation has it (aliases followed)."""
    shape = table.use_shape
    if table.alias:
        shape = shape.copy()
        for use in table.alias:
            source = use
            while source in table.alias:
                source = table.alias[source]
            shape[use] = table.use_shape[source]
    return shape
