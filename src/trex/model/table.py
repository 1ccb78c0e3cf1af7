"""The plan's layers as columns: one pass over the readers' typed records, no object per layer.

:class:`LayerTable` holds every per-layer fact the plan and its analyses read — name, kinds,
tactic, ONNX nodes, stream, tensors (:class:`~trex.model.tensors.Activation` values built from
the records' shape and format values), sizes, weights — as lists and arrays in engine order.
TREx's :class:`~trex.model.layer.Layer` objects and ``plan.df`` are made from these columns when
first asked for. NoOp folding, DLA marking and constants-as-weights work on the columns too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from ..formats.layer_records import UNKNOWN_FORMAT, LayerRecord
from ..formats.tensor_format import dtype_bytes
from .profiles import profile_of_name
from .tensors import Activation, format_and_size

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


def weight_sizes(weight_dicts: Sequence[tuple[str, Any]]) -> tuple[int, int, int]:
    """(weights count, weights bytes, bias bytes) over ``{Type, Count}`` attributes of any dtype
    (FP8, INT4, BF16, FP4 included); a key with "bias" in its name is bias."""
    count = weights = bias = 0
    for key, value in weight_dicts:
        if type(value) is not dict or "Count" not in value or "Type" not in value:
            continue
        try:
            n = int(value["Count"])
        except (TypeError, ValueError, OverflowError):  # None, "abc", NaN, inf
            continue
        size = _bytes_of(str(value["Type"]), n)
        if "bias" in key.lower():
            bias += size
        else:
            count += n
            weights += size
    return count, weights, bias


def int64(size: int) -> int:
    """Clamp a byte count to int64, the df's dtype (only a corrupt file's dimensions get beyond)."""
    return max(-INT64_MAX, min(size, INT64_MAX))


@lru_cache(maxsize=4096)
def _bytes_of(dtype: str, n: int) -> int:
    """Bytes of ``n`` elements of a weights ``Type`` (memoised: layers repeat a few shapes)."""
    element_bytes = dtype_bytes(dtype)
    try:
        return int(round(n * element_bytes))
    except OverflowError:  # a count beyond float range: exact integer arithmetic
        return n * int(element_bytes * 8) // 8


class LayerTable:
    """Every layer of one profile of the engine, in engine order, as columns.

    ``raw_index[i]`` is row i's position among the reader's raw layers (``raws``): TREx's
    ``raw_dict`` and the df's attribute columns are read from there, on demand."""

    def __init__(self, records: Sequence[LayerRecord], positions: Sequence[int], raws: Any,
                 names: Sequence[str]):
        n = len(records)
        self.raws = raws
        self.raw_index: list[int] = list(positions)
        self.names: list[str] = list(names)
        self.subtypes: list[str] = [r.layer_type for r in records]
        self.parameter_types: list[str | None] = [r.parameter_type for r in records]
        self.types: list[str] = [layer_kind(name, r.layer_type, r.parameter_type)
                                 for name, r in zip(self.names, records)]
        self.tactic_names: list[str | None] = [r.tactic_name for r in records]
        self.tactic_values: list[Any] = [r.tactic_value for r in records]
        self.origins: list[str | None] = [r.origin for r in records]
        self.onnx_nodes: list[list[str]] = [r.metadata if type(r.metadata) is list else []
                                            for r in records]
        self.streams: list[int] = [s if type(s) is int and 0 <= s < 1 << 31 else stream_id(s)
                                   for s in (r.stream for r in records)]
        self.inputs: list[list[Activation]] = [[] for _ in range(n)]
        self.outputs: list[list[Activation]] = [[] for _ in range(n)]
        self.in_bytes: list[int] = [0] * n
        self.out_bytes: list[int] = [0] * n
        self.weights_count: list[int] = [0] * n
        self.weights_bytes: list[int] = [0] * n  # weights without bias
        self.bias_bytes: list[int] = [0] * n
        self.constant_inputs: list[list[Activation]] = [[] for _ in range(n)]
        self.dynamic: list[int] = [0] * n  # tensor uses with a dynamic (-1) dimension
        self._fill(records)

    def _fill(self, records: Sequence[LayerRecord]) -> None:
        """Tensors, their sizes and the weights, in one pass (the hot loop of a load)."""
        memo: dict[tuple[Any, ...], tuple[Any, int, bool]] = {}
        get = memo.get
        dynamic = self.dynamic
        made = Activation.made
        raws, raw_index = self.raws, self.raw_index
        inputs, outputs, in_bytes, out_bytes = self.inputs, self.outputs, self.in_bytes, \
            self.out_bytes
        for i, record in enumerate(records):
            position = raw_index[i]
            for side, tensors in (("Inputs", record.inputs), ("Outputs", record.outputs)):
                if not tensors:
                    continue
                acts = []
                total = 0
                for j, t in enumerate(tensors):
                    dims = t.dims
                    fmt = t.fmt or UNKNOWN_FORMAT
                    key = (id(fmt), *dims)  # the reader shares one value per format text
                    hit = get(key)
                    if hit is None:
                        hit = memo[key] = format_and_size(fmt, tuple(dims))
                    acts.append(made(t.name, dims, hit[0], hit[1], hit[2],
                                     (raws, position, side, j)))
                    total += hit[1]
                    if hit[2]:
                        dynamic[i] += 1
                if side == "Inputs":
                    inputs[i], in_bytes[i] = acts, total
                else:
                    outputs[i], out_bytes[i] = acts, total
            if record.extra_weights:  # other {Type, Count} attributes: the raw dict has them all
                self._weights(i, list(raws[position].items()))
            else:
                weights = record.weight_dicts()
                if weights:
                    self._weights(i, weights)

    def _weights(self, i: int, weights: list[tuple[str, Any]]) -> None:
        self.weights_count[i], self.weights_bytes[i], self.bias_bytes[i] = weight_sizes(weights)

    def __len__(self) -> int:
        return len(self.names)

    # ------------------------------------------------------------------ derived columns
    def precision(self, i: int) -> str | None:
        """Row i's precision: its first input's data type (TREx's rule)."""
        ins = self.inputs[i]
        return ins[0].precision if ins else None

    def output_precision(self, i: int) -> str:
        """Row i's first output's data type ("" without outputs)."""
        outs = self.outputs[i]
        return outs[0].precision if outs else ""

    def io_bytes(self, i: int) -> int:
        """Input and output bytes of row i, constants left out (they are weights)."""
        return int64(self.in_bytes[i] + self.out_bytes[i])

    def weights_size(self, i: int) -> int:
        """Weights and bias bytes of row i."""
        return int64(self.weights_bytes[i] + self.bias_bytes[i])

    # ------------------------------------------------------------------ graph edits
    def count_as_weights(self, i: int, names: set[str]) -> None:
        """Row i's inputs named ``names`` are weights, not activations (constant tensors)."""
        constants = [t for t in self.inputs[i] if t.name in names]
        if not constants:
            return
        size = sum(t.size_bytes for t in constants)
        self.constant_inputs[i] = constants
        self.in_bytes[i] -= size
        self.weights_bytes[i] += size
        self.weights_count[i] += sum(math.prod(max(d, 1) for d in t.shape) for t in constants)

    def keep(self, rows: list[int]) -> None:
        """Keep only these rows (in this order)."""
        for column in ("raw_index", "names", "subtypes", "parameter_types", "types",
                       "tactic_names", "tactic_values", "origins", "onnx_nodes", "streams",
                       "inputs", "outputs", "in_bytes", "out_bytes", "weights_count",
                       "weights_bytes", "bias_bytes", "constant_inputs", "dynamic"):
            values = getattr(self, column)
            setattr(self, column, [values[r] for r in rows])

    def fold_no_ops(self, bindings: set[str]) -> None:
        """Remove NoOp rows, reconnecting their consumers to the NoOp's input: the edge is
        rewired (the producer's tensor name), the shape and format stay what the consumer reads
        (a GEMM reading the flattened [1, C] behind a folded reshape of [1, C, 1, 1] keeps
        [1, C]). A NoOp whose output is a binding instead renames its producer's output."""
        types = self.types
        no_ops = [i for i in range(len(types)) if types[i] == "NoOp"
                  and self.inputs[i] and self.outputs[i]]
        if not no_ops:
            if "NoOp" in types:
                self.keep([i for i in range(len(types)) if types[i] != "NoOp"])
            return
        forward = {self.outputs[i][0].name: self.inputs[i][0].name for i in no_ops}
        by_output = {self.outputs[i][0].name: i for i in no_ops}
        backward: dict[str, Activation] = {}
        for i in no_ops:
            out = self.outputs[i][0]
            if out.name not in bindings:
                continue
            first, hops = i, 0  # walk up a chain of NoOps to the real producer's tensor
            while self.inputs[first][0].name in by_output and hops < len(no_ops):
                first, hops = by_output[self.inputs[first][0].name], hops + 1
            backward[self.inputs[first][0].name] = out

        def resolve(act: Activation) -> Activation:
            name, seen = act.name, 0
            while name in forward and seen < len(forward):
                name, seen = forward[name], seen + 1
            return act if name == act.name else act.renamed(name)

        kept = [i for i in range(len(types)) if types[i] != "NoOp"]
        rewired = set(forward)
        renamed = set(backward)
        for i in kept:
            ins, outs = self.inputs[i], self.outputs[i]
            for t in ins:
                if t.name in rewired:
                    self.inputs[i] = [resolve(t) for t in ins]
                    break
            if renamed:
                for t in outs:
                    if t.name in renamed:
                        self.outputs[i] = [backward.get(t.name, t) for t in outs]
                        break
        self.keep(kept)

    def mark_dla(self) -> bool:
        """In an engine with DLA copies, the ``{...}`` subgraphs are DLA loadables, not Myelin
        regions: type them ``DLA``. Returns True for a DLA engine."""
        types = self.types
        if not any(t in ("DLACopy", "DLASync") for t in types):
            return False
        for i, name in enumerate(self.names):
            if name.startswith("{") and name.endswith("}") and types[i] in ("Myelin", "Unknown"):
                types[i] = "DLA"
        return True


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


def select_profile(records: Sequence[LayerRecord], profile_id: int | None
                   ) -> tuple[list[int], list[int]]:
    """(positions of the records of one profile (None: profile 0), the profiles present)."""
    if not any("[profile " in r.name for r in records):
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
