"""The plan's layers as columns: the readers' typed records and tensor uses, no object per layer.

:class:`LayerTable` holds every per-layer fact the plan and its analyses read — name, kinds,
tactic, ONNX nodes, stream, sizes, weights — as lists and arrays in engine order, and the tensors
as the reader's :class:`~trex.formats.layer_records.TensorUses` columns (each use's layer, side,
place, tensor name id and (format, shape) id). NoOp folding, constants-as-weights, bindings and
the graph checks work on those arrays; TREx's :class:`~trex.model.layer.Layer` objects, their
:class:`~trex.model.tensors.Activation` tensors and ``plan.df`` are made from them when first
asked for.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from functools import cached_property
from operator import attrgetter
from typing import Any

import numpy as np
from msgspec import UNSET

from ..formats.layer_records import (
    ATTRIBUTE_FIELDS,
    LayerAttributes,
    LayerRecord,
    TensorUses,
    TypedWeights,
)
from ..formats.tensor_format import TensorFormat
from .profiles import profile_of_name, strip_profile
from .tensors import Activation, format_and_size
from .weight_sizes import weight_columns

INT64_MAX = 2**63 - 1
DLA_SUFFIXES = {" to nvm": "DLACopy", " from nvm": "DLACopy", " copy finish": "DLASync"}


def layer_kind(name: str, layer_type: str, parameter_type: str | None) -> str:
    """TREx's ``type``: the ParameterType, else the LayerType (``MyelinReformat``, ``kgen``,
    ``gemm`` stay as TensorRT names them); a Deconvolution is told apart from its Convolution
    ParameterType, and names-only exports get the kinds their names follow."""
    if not parameter_type:
        return type_from_name(name) if layer_type == "Unknown" else layer_type
    if parameter_type == "Convolution" and "Deconvolution" in layer_type:
        return "Deconvolution"
    return parameter_type


def layer_kinds(names: Sequence[str], records: Sequence[LayerRecord],
                layer_types: Sequence[str]) -> list[str]:
    """:func:`layer_kind` of every record (``layer_types``: their LayerTypes): its ParameterType,
    except where that is absent or a Convolution (a Deconvolution's), worked out one by one."""
    kinds: list[str] = list(map(attrgetter("parameter_type"), records))
    for i in [i for i, kind in enumerate(kinds) if not kind or kind == "Convolution"]:
        kinds[i] = layer_kind(names[i], layer_types[i], kinds[i])
    # one string object per kind (each record decoded its own): the grouping and comparing of
    # every view then hashes a handful of strings, not one per layer
    return list(map(sys.intern, kinds))


def is_reformat(layer_type: str, subtype: str) -> bool:
    """A layer that only converts layout or data type: TensorRT's ``Reformat`` and Myelin's
    ``MyelinReformat`` (whose ``type`` stays as TREx gives it)."""
    return layer_type == "Reformat" or subtype.endswith("Reformat")


def type_from_name(name: str) -> str:
    """Names-only exports: recognise the kinds TensorRT names by convention.

    DLA engines copy tensors to and from the DLA's memory (``X to nvm``, ``X from nvm``) and wait
    for them (``X copy finish``); their ``{...}`` subgraph runs on the DLA (see ``mark_dla``).
    """
    if name.startswith("Reformatting CopyNode") or " reformatter " in name:
        return "Reformat"
    for suffix, kind in DLA_SUFFIXES.items():
        if name.endswith(suffix):
            return kind
    if name.startswith("{ForeignNode["):
        return "Myelin"
    return "Unknown"


def stream_id(value: Any) -> int:
    """A layer's CUDA stream (``StreamId``, TensorRT 8.6+): 0 when absent or not a count."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value if 0 <= value < 1 << 31 else 0
    if isinstance(value, str) and value.strip().isdigit() and len(value) < 10:
        return int(value)
    return 0


def int64(size: int) -> int:
    """Clamp a byte count to int64, the df's dtype (only a corrupt file's dimensions get beyond)."""
    return max(-INT64_MAX, min(size, INT64_MAX))


def weights_hidden(layer_type: str, subtype: str, weights_size: int, inputs: int) -> bool:
    """True where the export does not list weights the layer holds: a Myelin region
    (``{ForeignNode[...]}``) or a Myelin GEMM whose B operand is neither an input nor an
    attribute."""
    return layer_type == "Myelin" or (subtype == "gemm" and not weights_size and inputs == 1)


class LayerTable:
    """Every layer of one profile of the engine, in engine order, as columns.

    Row i is ``records[i]`` of the selected profile; ``raw_index[i]`` its position among the
    reader's raw layers, from which TREx's ``raw_dict`` and the df's attribute columns are read on
    demand. Tensor uses are rows of the ``use_*`` arrays, ordered by layer, inputs before outputs;
    ``use_shape`` indexes ``shapes`` (format, dimensions) and ``use_name`` ``tensor_names``.
    Folded NoOps stay as rows with ``alive`` False."""

    def __init__(self, records: Sequence[LayerRecord], positions: Sequence[int], raws: Any,
                 names: Sequence[str], uses: TensorUses, weights: TypedWeights | None = None):
        n = len(records)
        self.raws = raws
        self._records = records  # the typed records (a tensor's location is read from them)
        self.raw_index: list[int] = list(positions)
        self.names: list[str] = list(names)
        self.subtypes: list[str] = list(map(attrgetter("layer_type"), records))
        self.types: list[str] = layer_kinds(self.names, records, self.subtypes)
        self.tactic_names: list[str | None] = list(map(attrgetter("tactic_name"), records))
        self.tactic_values: list[Any] = list(map(attrgetter("tactic_value"), records))
        self.origins: list[str | None] = list(map(attrgetter("origin"), records))
        streams = list(map(attrgetter("stream"), records))
        self.streams: list[int] = [0] * n if streams.count(None) == n else [
            0 if s is None else s if type(s) is int and 0 <= s < 1 << 31 else stream_id(s)
            for s in streams]
        self.alive = np.ones(n, dtype=bool)  # False for folded NoOps
        self.weights_count, self.weights_bytes, self.bias_bytes = weight_columns(records, raws,
                                                                                 positions, weights)
        self._select_uses(uses, positions)
        self.constant = np.zeros(len(self.use_row), dtype=bool)  # inputs that are weights
        self.renamed: dict[int, str] = {}  # input use -> the producer's name (a folded NoOp)
        self.alias: dict[int, int] = {}  # output use -> the binding NoOp's output use it became
        self._activations: dict[int, Activation] = {}

    @cached_property
    def onnx_nodes(self) -> list[list[str]]:
        """Per row, the ONNX nodes its ``Metadata`` lists (TensorRT 10+), [] when it lists none."""
        return [m if type(m) is list else [] for m in map(attrgetter("metadata"), self._records)]

    def _select_uses(self, uses: TensorUses, positions: Sequence[int]) -> None:
        """The tensor uses of the selected records (their row: the record's place among them)."""
        n = len(positions)
        if n and len(uses.row) and (positions[-1] != n - 1 or int(uses.row[-1]) >= n):
            where = np.full(max(positions[-1], int(uses.row.max())) + 1, -1, dtype=np.int64)
            where[np.asarray(positions, dtype=np.int64)] = np.arange(n)
            row = where[uses.row]
            keep = row >= 0
            row = row[keep]
            uses = TensorUses(row, uses.output[keep], uses.position[keep], uses.name[keep],
                              uses.shape[keep], uses.names, uses.shapes)
        self.use_row: np.ndarray = uses.row
        self.use_output: np.ndarray = uses.output
        self.use_position: np.ndarray = uses.position
        self.use_name: np.ndarray = uses.name.copy()
        self.use_shape: np.ndarray = uses.shape
        self.tensor_names: list[str] = uses.names
        stored = [format_and_size(fmt, dims) for fmt, dims in uses.shapes]
        self.shapes: list[tuple[TensorFormat, tuple[int, ...]]] = [
            (fmt, dims) for (fmt, _, _), (_, dims) in zip(stored, uses.shapes)]
        self.shape_size: list[int] = [size for _, size, _ in stored]
        self.shape_dynamic = np.asarray([dyn for _, _, dyn in stored], dtype=bool)
        # Where each row's inputs and outputs start among the uses (row i: 2i and 2i + 1).
        key = 2 * self.use_row + self.use_output
        counts = np.bincount(key, minlength=2 * len(self.names))
        self._starts: list[int] = np.concatenate(([0], np.cumsum(counts))).tolist()

    def __len__(self) -> int:
        return len(self.names)

    # ------------------------------------------------------------------ tensors as objects
    def uses(self, i: int, output: bool) -> range:
        """The uses of row i's inputs (or outputs), in their order."""
        key = 2 * i + output
        return range(self._starts[key], self._starts[key + 1])

    def activation(self, use: int) -> Activation:
        """The tensor of one use as TREx's Activation (made once)."""
        act = self._activations.get(use)
        if act is not None:
            return act
        if use in self.alias:  # the binding NoOp's output, as the producer's output
            act = self.activation(self.alias[use])
        else:
            fmt, dims = self.shapes[int(self.use_shape[use])]
            sid = int(self.use_shape[use])
            row, output, position = int(self.use_row[use]), bool(self.use_output[use]), \
                int(self.use_position[use])
            record = self._records[row]
            location = (record.outputs if output else record.inputs)[position].location
            source: Any = (self.raws, self.raw_index[row], "Outputs" if output else "Inputs",
                           position, location if isinstance(location, str) else None)
            name = self.tensor_names[int(self.use_name[use])]
            make = Activation.made
            if use in self.renamed:  # a rewired edge: the tensor as exported, under a new name
                exported = make(name, list(dims), fmt, self.shape_size[sid], False, source)
                source = ("renamed", exported, name)
            act = make(name, list(dims), fmt, self.shape_size[sid],
                       bool(self.shape_dynamic[sid]), source)
        self._activations[use] = act
        return act

    def inputs(self, i: int) -> list[Activation]:
        """Row i's inputs as Activations (constants included)."""
        return [self.activation(u) for u in self.uses(i, False)]

    def outputs(self, i: int) -> list[Activation]:
        """Row i's outputs as Activations."""
        return [self.activation(u) for u in self.uses(i, True)]

    def constant_inputs(self, i: int) -> list[Activation]:
        """Row i's inputs that are weights (constant tensors no layer writes)."""
        return [self.activation(u) for u in self.uses(i, False) if self.constant[u]]

    def exported_tensors(self, i: int, output: bool) -> list[dict[str, Any]]:
        """Row i's tensors as exported (TREx's ``Inputs``/``Outputs``), edges rewired."""
        span = self.uses(i, output)
        if (self.renamed or self.alias) and any(u in self.renamed or u in self.alias
                                                for u in span):
            return [self.activation(u).raw for u in span]
        exported = self.raws[self.raw_index[i]]["Outputs" if output else "Inputs"]
        return list(exported[:len(span)])

    def attribute(self, i: int, key: str, default: Any = None) -> Any:
        """One attribute of row i as exported (``Kernel``, ``Groups``, ``OutMaps``, ...): those
        the records hold typed (:data:`~trex.formats.layer_records.ATTRIBUTE_FIELDS`) without
        decoding the layer's raw dict, the others from it."""
        field = ATTRIBUTE_FIELDS.get(key)
        if field is None:
            return self.raws[self.raw_index[i]].get(key, default)
        value = getattr(self.attribute_records[i], field)
        return default if value is UNSET else value

    @cached_property
    def attribute_records(self) -> list[LayerAttributes]:
        """Each row's typed attributes (:class:`~trex.formats.layer_records.LayerAttributes`),
        decoded when an analysis first asks for one."""
        every = self.raws.attributes()
        return [every[p] for p in self.raw_index]

    def attribute_getter(self, keys: Sequence[str]
                         ) -> Callable[[LayerAttributes], tuple[Any, ...]]:
        """A function of a row's attributes (``attribute_records[i]``) giving ``keys`` as a
        tuple (UNSET where absent)."""
        getter = attrgetter(*[ATTRIBUTE_FIELDS[key] for key in keys])
        if len(keys) == 1:
            return lambda record: (getter(record),)
        return getter

    @property
    def records(self) -> Sequence[LayerRecord]:
        """The typed record of each row."""
        return self._records

    @property
    def use_starts(self) -> list[int]:
        """Where each row's uses start: row i's inputs are ``use_starts[2i]:use_starts[2i+1]``,
        its outputs ``use_starts[2i+1]:use_starts[2i+2]``."""
        return self._starts

    @cached_property
    def view_shape(self) -> np.ndarray:
        """Per use, the (format, shape) id its Activation has: a binding NoOp's output use
        (``alias``) shows its source's."""
        shape = self.use_shape
        if self.alias:
            shape = shape.copy()
            for use, source in self.alias.items():
                shape[use] = self.use_shape[source]
        return shape

    # ------------------------------------------------------------------ derived columns
    @cached_property
    def in_bytes(self) -> list[int]:
        """Per row, the bytes of its inputs, constants left out (they are weights)."""
        return self._side_bytes(~self.use_output & ~self.constant)

    @cached_property
    def out_bytes(self) -> list[int]:
        """Per row, the bytes of its outputs."""
        return self._side_bytes(self.use_output)

    @cached_property
    def _exact_sizes(self) -> np.ndarray | None:
        """``shape_size`` as int64 when any sum of them is exact in float64 (< 2**53 bytes in all:
        every real engine); None otherwise (a corrupt file's sizes are summed as Python ints)."""
        if not self.shape_size:
            return None
        largest = max(self.shape_size)
        if min(self.shape_size) < 0 or largest * max(len(self.use_shape), 1) >= 1 << 53:
            return None
        return np.asarray(self.shape_size, dtype=np.int64)

    def _side_bytes(self, mask: np.ndarray) -> list[int]:
        exact = self._exact_sizes
        if exact is not None:  # summed in C: exact, as every partial sum is below 2**53
            sums = np.bincount(self.use_row[mask], weights=exact[self.use_shape[mask]],
                               minlength=len(self.names))
            summed: list[int] = sums.astype(np.int64).tolist()
            return summed
        totals = [0] * len(self.names)
        sizes = self.shape_size
        for row, sid in zip(self.use_row[mask].tolist(), self.use_shape[mask].tolist()):
            totals[row] += sizes[sid]
        return totals

    def total(self, column: list[int], rows: Sequence[int], other: list[int] | None = None) -> int:
        """The sum over ``rows`` of a byte column (plus ``other``), each row clamped to int64 as
        the df's are (only a corrupt file's dimensions get beyond)."""
        values = [column[i] + other[i] for i in rows] if other is not None else \
            [column[i] for i in rows]
        total = sum(values)
        return total if total <= INT64_MAX else sum(int64(v) for v in values)

    def io_bytes(self, i: int) -> int:
        """Input and output bytes of row i, constants left out (they are weights)."""
        return int64(self.in_bytes[i] + self.out_bytes[i])

    def weights_size(self, i: int) -> int:
        """Weights and bias bytes of row i."""
        return int64(self.weights_bytes[i] + self.bias_bytes[i])

    def hides_weights(self, i: int) -> bool:
        """True where the export does not list weights row i holds (:func:`weights_hidden`)."""
        return weights_hidden(self.types[i], self.subtypes[i], self.weights_size(i),
                              len(self.uses(i, False)))

    def hidden_weights(self, rows: Sequence[int]) -> list[int]:
        """The rows among ``rows`` whose weights the export does not list (only Myelin regions
        and GEMMs can be: the others are not asked)."""
        types, subtypes = self.types, self.subtypes
        return [i for i in rows if (types[i] == "Myelin" or subtypes[i] == "gemm")
                and self.hides_weights(i)]

    @cached_property
    def precisions(self) -> list[str | None]:
        """Per row, its first input's data type (TREx's precision), None without inputs."""
        return self._first_precision(False, None)

    @cached_property
    def output_precisions(self) -> list[str]:
        """Per row, its first output's data type, "" without outputs."""
        return self._first_precision(True, "")

    def _first_precision(self, output: bool, absent: Any) -> list[Any]:
        out: list[Any] = [absent] * len(self.names)
        shapes = self.shapes
        firsts = np.flatnonzero((self.use_position == 0) & (self.use_output == output))
        for row, use in zip(self.use_row[firsts].tolist(), firsts.tolist()):
            if use in self.alias:
                use = self.alias[use]
            out[row] = shapes[int(self.use_shape[use])][0].precision
        return out

    @cached_property
    def dynamic(self) -> list[int]:
        """Per row, its tensor uses with a dynamic (-1) dimension."""
        flags = self.shape_dynamic[self.use_shape]
        counts: list[int] = np.bincount(self.use_row[flags], minlength=len(self.names)).tolist()
        return counts

    def row_uses(self, rows: Sequence[int], output: bool) -> np.ndarray:
        """The uses of the inputs (or outputs) of ``rows`` (engine order)."""
        wanted = np.zeros(len(self.names), dtype=bool)
        wanted[np.asarray(rows, dtype=np.int64)] = True
        return np.flatnonzero(wanted[self.use_row] & (self.use_output == output))

    def activation_footprint(self, rows: Sequence[int]) -> int:
        """Bytes of the activations of ``rows``, each tensor once (its largest view): the
        constants (weights) left out."""
        largest: dict[int, int] = {}
        get = largest.get
        sizes = self.shape_size
        wanted = np.zeros(len(self.names), dtype=bool)
        wanted[np.asarray(rows, dtype=np.int64)] = True
        uses = np.flatnonzero(wanted[self.use_row] & ~self.constant)
        shape = self.use_shape.copy()
        for use, source in self.alias.items():
            shape[use] = self.use_shape[source]
        exact = self._exact_sizes
        if exact is not None:  # each tensor's largest view, in C
            best = np.zeros(len(self.tensor_names), dtype=np.int64)
            np.maximum.at(best, self.use_name[uses], exact[shape[uses]])
            return int(best.sum())
        for name, sid in zip(self.use_name[uses].tolist(), shape[uses].tolist()):
            size = sizes[sid]
            if size > get(name, -1):
                largest[name] = size
        return int(sum(largest.values()))

    # ------------------------------------------------------------------ graph edits
    def fold_no_ops(self, bindings: set[str]) -> None:
        """Remove NoOp rows, reconnecting their consumers to the NoOp's input: the edge is
        rewired (the producer's tensor name), the shape and format stay what the consumer reads
        (a GEMM reading the flattened [1, C] behind a folded reshape of [1, C, 1, 1] keeps
        [1, C]). A NoOp whose output is a binding instead renames its producer's output."""
        no_op = np.asarray([t == "NoOp" for t in self.types], dtype=bool)
        if not no_op.any():
            return
        self.alive &= ~no_op
        starts = self._starts
        folding = [i for i in np.flatnonzero(no_op).tolist()
                   if starts[2 * i] < starts[2 * i + 1] and starts[2 * i + 1] < starts[2 * i + 2]]
        if not folding:
            return
        name = self.use_name
        first_in = {i: starts[2 * i] for i in folding}
        first_out = {i: starts[2 * i + 1] for i in folding}
        forward = {int(name[first_out[i]]): int(name[first_in[i]]) for i in folding}
        by_output = {int(name[first_out[i]]): i for i in folding}
        backward: dict[int, int] = {}  # producer's tensor -> the binding NoOp's output use
        for i in folding:
            if self.tensor_names[int(name[first_out[i]])] not in bindings:
                continue
            first, hops = i, 0  # walk up a chain of NoOps to the real producer's tensor
            while int(name[first_in[first]]) in by_output and hops < len(folding):
                first, hops = by_output[int(name[first_in[first]])], hops + 1
            backward[int(name[first_in[first]])] = first_out[i]
        alive = self.alive[self.use_row]
        rewired = alive & ~self.use_output & np.isin(name, np.fromiter(forward, np.int64))
        for use in np.flatnonzero(rewired).tolist():
            target, seen = int(name[use]), 0
            while target in forward and seen < len(forward):
                target, seen = forward[target], seen + 1
            if target != int(name[use]):
                self.renamed[use] = self.tensor_names[target]
                name[use] = target
        if backward:
            renamed = alive & self.use_output & np.isin(name, np.fromiter(backward, np.int64))
            for use in np.flatnonzero(renamed).tolist():
                source = backward[int(name[use])]
                self.alias[use] = source
                name[use] = name[source]

    def mark_dla(self) -> bool:
        """In an engine with DLA copies, the ``{...}`` subgraphs are DLA loadables, not Myelin
        regions: type them ``DLA``. Returns True for a DLA engine."""
        types = self.types
        if "DLACopy" not in types and "DLASync" not in types:
            return False
        for i, name in enumerate(self.names):
            if name.startswith("{") and name.endswith("}") and types[i] in ("Myelin", "Unknown"):
                types[i] = "DLA"
        return True

    def count_constants(self, rows: Sequence[int], engine_io: set[str]) -> None:
        """Inputs of ``rows`` that no layer writes (or only a Constant layer does) and that are
        not engine inputs are constants: weights, not activations (TensorRT 10 Myelin GEMMs read
        their weights, bias and scales this way)."""
        not_constant = np.asarray([t != "Constant" for t in self.types], dtype=bool)
        writers = (self.alive & not_constant)[self.use_row] & self.use_output
        written = np.zeros(len(self.tensor_names), dtype=bool)
        written[self.use_name[writers]] = True
        candidates = self.row_uses(rows, False)
        candidates = candidates[~written[self.use_name[candidates]]]
        names = self.tensor_names
        for use in candidates.tolist():
            name = names[int(self.use_name[use])]
            if name in engine_io or strip_profile(name) in engine_io:
                continue
            self.constant[use] = True
            row, sid = int(self.use_row[use]), int(self.use_shape[use])
            self.weights_bytes[row] += self.shape_size[sid]
            self.weights_count[row] += math.prod(max(d, 1) for d in self.shapes[sid][1])
        self.__dict__.pop("in_bytes", None)  # made again without the constants

    # ------------------------------------------------------------------ the graph's tensors
    def loose_ends(self) -> list[str]:
        """Tensors read and never written (graph inputs, constants' names left out) then tensors
        written and never read (graph outputs), in engine order: the bindings of an export that
        names none."""
        read = self._first_names(~self.use_output)
        written = self._first_names(self.use_output)
        written_set, read_set = set(written), set(read)
        return [n for n in read if n not in written_set and "const" not in n.lower()] + \
            [n for n in written if n not in read_set]

    def _first_names(self, mask: np.ndarray) -> list[str]:
        """Tensor names of the masked uses, each once, in order of first use."""
        ids = self.use_name[mask]
        unique, first = np.unique(ids, return_index=True)
        return [self.tensor_names[k] for k in unique[np.argsort(first, kind="stable")].tolist()]

    def bindings_in(self, bindings: list[str], rows: Sequence[int]
                    ) -> tuple[list[Activation], list[Activation]]:
        """(input bindings, output bindings) as ``rows`` see them, each tensor once, in engine
        order: a binding read and not written by the rows is an input, one written an output."""
        wanted = {strip_profile(b) for b in bindings}
        names = self.tensor_names
        is_binding = np.fromiter(map(wanted.__contains__, names), dtype=bool, count=len(names))
        for k in np.flatnonzero(~is_binding).tolist() if "[profile " in "\n".join(names) else ():
            is_binding[k] = "[profile " in names[k] and strip_profile(names[k]) in wanted
        ins, outs = self.row_uses(rows, False), self.row_uses(rows, True)
        produced = np.zeros(len(self.tensor_names), dtype=bool)
        produced[self.use_name[outs]] = True
        ins = ins[is_binding[self.use_name[ins]] & ~produced[self.use_name[ins]]]
        outs = outs[is_binding[self.use_name[outs]]]
        return self._first_of(ins), self._first_of(outs)

    def _first_of(self, uses: np.ndarray) -> list[Activation]:
        """The Activations of ``uses``, one per tensor name (its first use), in order."""
        _, first = np.unique(self.use_name[uses], return_index=True)
        return [self.activation(u) for u in uses[np.sort(first)].tolist()]


def profiles_of(records: Sequence[LayerRecord]) -> list[int]:
    """The profile number of each record (0 for single-profile engines): a ``[profile N]`` suffix
    on its name or one of its tensors, else the profile of the layer before it."""
    result: list[int] = []
    current = 0
    for record in records:
        found = profile_of_name(record.name)
        if found is None:
            for tensor in (*record.inputs, *record.outputs):
                found = profile_of_name(tensor.name)
                if found is not None:
                    break
        if found is not None:
            current = found
        result.append(current)
    return result


def select_profile(records: Sequence[LayerRecord], profile_id: int | None,
                   names: Sequence[str] | None = None) -> tuple[list[int], list[int]]:
    """(positions of the records of one profile (None: profile 0), the profiles present);
    ``names``: the records' names, if known."""
    if names is None:
        names = list(map(attrgetter("name"), records))
    if "[profile " not in "\n".join(names):  # (no match can span the \n)
        # Single-profile engine: layers of profile N >= 1 always have some suffixed names.
        return (list(range(len(records))) if not profile_id else []), [0]
    profiles = profiles_of(records)
    wanted = profile_id or 0
    return [i for i, p in enumerate(profiles) if p == wanted], sorted(set(profiles))


def unique_names(names: list[str]) -> list[str]:
    """TREx appends ``_N`` to the second and later layers of a repeated name."""
    if len(set(names)) == len(names):
        return names  # the usual case: every name once
    seen: dict[str, int] = {}
    out = []
    for name in names:
        if name in seen:
            seen[name] += 1
            out.append(f"{name}_{seen[name]}")
        else:
            seen[name] = 1
            out.append(name)
    return out
