"""One engine layer (TREx's Layer): its type, tensors, precision, sizes, stream and ONNX nodes.

Every per-layer fact a view needs is computed here once, from the reader's normalised raw dict:
views read ``layer.stream`` or ``layer.onnx_nodes`` and never look into ``raw_dict`` for them.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from ..formats.layer_records import ATTRIBUTE_FIELDS
from .table import (
    DLA_SUFFIXES,
    INT64_MAX,
    LayerTable,
    int64,
    is_reformat,
    layer_kind,
    stream_id,
    type_from_name,
    weights_hidden,
)
from .tensors import Activation
from .weight_sizes import weight_sizes

__all__ = ["DLA_SUFFIXES", "Layer", "fold_no_ops", "layer_type", "parameter_sizes", "stream_id",
           "type_from_name"]


def parameter_sizes(raw: dict[str, Any]) -> tuple[int, int, int]:
    """Return (weights count, weights bytes, bias bytes) over every ``{Type, Count}`` attribute.

    Covers ``Weights``/``Bias``, ConvActPool's ``ConvWeights``/``ConvBias`` and any dtype (FP8,
    INT4, BF16, FP4 included).
    """
    return weight_sizes(list(raw.items()))


# Exported keys the Layer's own fields give (name, kinds, tactic name, tensors, ONNX nodes).
_CONSUMED = frozenset({"Name", "LayerType", "ParameterType", "TacticName", "Inputs", "Outputs",
                       "Metadata"})


class Layer:
    """One engine layer (TREx's Layer): type, tensors, precision and memory figures.

    A plan makes its layers from its :class:`~trex.model.table.LayerTable` when first asked
    for (:meth:`from_table`); ``Layer(raw_dict)`` reads one exported layer dict, as TREx's does."""

    def __init__(self, raw_dict: dict[str, Any]):
        self._raw: Any = raw_dict
        self.name: str = raw_dict["Name"]
        self.subtype: str = raw_dict.get("LayerType", "Unknown")
        ptype = raw_dict.get("ParameterType")
        self.type: str = layer_kind(self.name, str(self.subtype),
                                    ptype if isinstance(ptype, str) else None)
        self.metadata = raw_dict.get("Metadata")
        # The ONNX nodes the layer implements (readers give Metadata as a list of node names).
        self.onnx_nodes: list[str] = self.metadata if type(self.metadata) is list else []
        stream = raw_dict.get("StreamId")
        self.stream: int = 0 if stream is None else stream \
            if type(stream) is int and 0 <= stream < 1 << 31 else stream_id(stream)
        tactic = raw_dict.get("TacticName")
        self.tactic_name: str | None = tactic if isinstance(tactic, str) else None
        self.tactic_value: Any = raw_dict.get("TacticValue")
        origin = raw_dict.get("Origin")
        self.origin: str | None = origin if isinstance(origin, str) else None
        inputs = [Activation(t) for t in raw_dict.get("Inputs", ())]
        outputs = [Activation(t) for t in raw_dict.get("Outputs", ())]
        count, weights, bias = parameter_sizes(raw_dict)
        self._set(inputs, outputs, sum(t.size_bytes for t in inputs),
                  sum(t.size_bytes for t in outputs), count, weights, bias, [])

    @classmethod
    def from_table(cls, table: LayerTable, i: int) -> Layer:
        """Row ``i`` of a plan's layer table as a Layer (its raw dict made when asked for)."""
        layer = cls.__new__(cls)
        layer._raw = (table, i)
        layer.name = table.names[i]
        layer.subtype = table.subtypes[i]
        layer.type = table.types[i]
        nodes = table.onnx_nodes[i]
        layer.onnx_nodes = nodes
        layer.metadata = nodes or None
        layer.stream = table.streams[i]
        layer.tactic_name = table.tactic_names[i]
        layer.tactic_value = table.tactic_values[i]
        layer.origin = table.origins[i]
        layer._set(table.inputs(i), table.outputs(i), table.in_bytes[i], table.out_bytes[i],
                   table.weights_count[i], table.weights_bytes[i], table.bias_bytes[i],
                   table.constant_inputs(i))
        return layer

    def _set(self, inputs: list[Activation], outputs: list[Activation], size_in: int,
             size_out: int, count: int, weights_only: int, bias_size: int,
             constants: list[Activation]) -> None:
        self.tactic: str = self.tactic_name if self.tactic_name else "TensorRT"
        self.inputs = inputs
        self.outputs = outputs
        self.inputs_size_bytes = size_in
        self.outputs_size_bytes = size_out
        self.precision = inputs[0].precision if inputs else None
        self.output_precision = outputs[0].precision if outputs else ""
        self.weights_cnt, self.weights_only_size = count, weights_only
        self.constant_inputs: list[Activation] = constants  # inputs that are weights
        io = size_in + size_out
        weights = weights_only + bias_size
        if io + weights <= INT64_MAX:  # always, but for a corrupt file's dimensions
            self.total_io_size_bytes, self.bias_size = io, bias_size
            self.weights_size, self.total_footprint_bytes = weights, io + weights
        else:
            self.total_io_size_bytes, self.bias_size = int64(io), int64(bias_size)
            self.weights_size = int64(weights)
            self.total_footprint_bytes = int64(io + weights)

    @property
    def raw_dict(self) -> dict[str, Any]:
        """The layer as exported (TREx's raw dict): its attributes, with the name and tensors
        this plan gives it (a repeated name made unique, folded NoOps' edges rewired)."""
        source = self._raw
        if type(source) is dict:
            return source
        table, i = source
        raw = dict(table.raws[table.raw_index[i]])
        raw["Name"] = self.name
        raw["Inputs"] = [t.raw for t in self.inputs]
        raw["Outputs"] = [t.raw for t in self.outputs]
        self._raw = raw
        return raw

    @raw_dict.setter
    def raw_dict(self, value: dict[str, Any]) -> None:
        self._raw = value

    @property
    def attributes(self) -> dict[str, Any]:
        """The layer's attributes as exported (``Kernel``, ``Stride``, ``Groups``, ``Origin``,
        ``Weights``, ...): its raw dict without the name, kinds, tactic name, tensors and ONNX
        nodes, which the Layer's own fields give. Views read attributes here, never the raw dict."""
        return {k: v for k, v in self._fields().items() if k not in _CONSUMED}

    def exported_fields(self) -> dict[str, Any]:
        """Every field of the layer as exported but its tensors (``LayerType``, ``TacticName``,
        ``Kernel``, ``Metadata``...): what TREx's tooltips, the ONNX export and the report's
        details list."""
        fields = {k: v for k, v in self._fields().items() if k not in ("Inputs", "Outputs")}
        fields["Name"] = self.name  # as the raw dict has it (a repeated name made unique)
        return fields

    def attribute(self, key: str, default: Any = None) -> Any:
        """One attribute of the layer as exported (``Kernel``, ``Stride``, ``Groups``, ...)."""
        source = self._raw
        if type(source) is tuple and key in ATTRIBUTE_FIELDS:  # typed: no raw dict decoded
            return source[0].attribute(source[1], key, default)
        return self._fields().get(key, default) if key not in _CONSUMED else default

    def _fields(self) -> dict[str, Any]:
        """The raw dict, or before it is made the table's layer as exported: the two differ only
        in the name and tensors (``_CONSUMED``), which attributes leave out."""
        source = self._raw
        if type(source) is dict:
            return source
        table, i = source
        fields: dict[str, Any] = table.raws[table.raw_index[i]]
        return fields

    def count_as_weights(self, names: set[str]) -> None:
        """Count the inputs named ``names`` as weights, not activations: constant tensors no layer
        writes (TensorRT 10 Myelin GEMMs read their B operand ``__mye…dconst``, bias and scales
        as inputs)."""
        constants = [t for t in self.inputs if t.name in names]
        if not constants:
            return
        size = sum(t.size_bytes for t in constants)
        self.constant_inputs = constants
        self.inputs_size_bytes -= size
        self.total_io_size_bytes -= size
        self.weights_size = int64(self.weights_size + size)
        self.weights_only_size += size
        self.weights_cnt += sum(math.prod(max(d, 1) for d in t.shape) for t in constants)

    @property
    def activation_inputs(self) -> list[Activation]:
        """The inputs other layers (or the engine's inputs) provide: constants left out."""
        if not self.constant_inputs:
            return self.inputs
        return [t for t in self.inputs if t not in self.constant_inputs]

    @property
    def math_precision(self) -> str | None:
        """The math its kernel runs (:func:`math_precision`)."""
        return math_precision(self.tactic_name, self.subtype, self.precision)

    @property
    def is_reformat(self) -> bool:
        """A layer that only converts layout or data type: TensorRT's ``Reformat`` and Myelin's
        ``MyelinReformat`` (whose ``type`` stays as TREx gives it)."""
        return is_reformat(self.type, self.subtype)

    @property
    def hides_weights(self) -> bool:
        """True where the export does not list weights the layer holds (:func:`weights_hidden`)."""
        return weights_hidden(self.type, self.subtype, self.weights_size, len(self.inputs))

    def tooltip(self) -> str:
        """Every raw attribute but the tensors as ``key:value`` lines (TREx's node tooltip)."""
        skip = {"InputRegions", "OutputRegions", "Inputs", "Outputs", "ParameterType", "LayerName"}
        return "".join(f"{k}:{v}\\n" for k, v in sorted(self.exported_fields().items())
                       if k not in skip)

    def __repr__(self) -> str:
        return f"Layer({self.name})"


@lru_cache(maxsize=8192)
def math_precision(tactic: str | None, subtype: str | None, precision: str | None) -> str | None:
    """The math a layer's kernel runs (``TF32 HMMA``, ``FP16 HMMA``, ``INT8 IMMA``, ``FP32 FFMA``,
    ``INT8 DP4A``, ``INT8 CUDA cores``...), from the tactic's name (:mod:`trex.kernels`); a
    CUDA-core kernel whose name gives no type runs the layer's precision. None when unknown."""
    from ..kernels import classify_tactic

    kernel = classify_tactic(tactic if isinstance(tactic, str) else None,
                             subtype if isinstance(subtype, str) else None)
    math_kind = kernel.math
    if math_kind is None and kernel.tensor_cores is False and precision:
        math_kind = f"{precision} {kernel.instruction or 'CUDA cores'}"
    return math_kind


def layer_type(raw: dict[str, Any]) -> str:
    """TREx's ``type`` of an exported layer dict (:func:`~trex.model.table.layer_kind`)."""
    ptype = raw.get("ParameterType")
    return layer_kind(str(raw.get("Name", "")), str(raw.get("LayerType", "Unknown")),
                      ptype if isinstance(ptype, str) else None)


def fold_no_ops(layers: list[Layer], bindings: set[str]) -> list[Layer]:
    """Remove NoOp layers, reconnecting their consumers to the NoOp's input (as TREx does), each
    consumer keeping the shape and format it reads (TREx gave it the NoOp's input tensor).

    A NoOp whose output is a binding instead renames its producer's output to the binding.
    """
    no_ops = [layer for layer in layers if layer.type == "NoOp" and layer.inputs and layer.outputs]
    if not no_ops:
        return [layer for layer in layers if layer.type != "NoOp"]
    forward = {n.outputs[0].name: n.inputs[0] for n in no_ops}
    by_output = {n.outputs[0].name: n for n in no_ops}
    backward: dict[str, Activation] = {}
    for n in no_ops:
        if n.outputs[0].name not in bindings:
            continue
        first, hops = n, 0  # walk up a chain of NoOps to the real producer's tensor
        while first.inputs[0].name in by_output and hops < len(no_ops):
            first, hops = by_output[first.inputs[0].name], hops + 1
        backward[first.inputs[0].name] = n.outputs[0]

    def resolve(act: Activation) -> Activation:
        """The tensor a NoOp chain starts from, as this layer reads it: the edge is rewired (the
        producer's name), the shape and format stay what the layer reads (a GEMM reading the
        flattened [1, C] behind a folded reshape of [1, C, 1, 1] keeps [1, C])."""
        source, seen = act, 0
        while source.name in forward and seen < len(forward):
            source, seen = forward[source.name], seen + 1
        if source is act:
            return act
        return Activation({**act.raw, "Name": source.name})

    kept = [layer for layer in layers if layer.type != "NoOp"]
    for layer in kept:
        if not _reads_any(layer.inputs, forward) and not _reads_any(layer.outputs, backward):
            continue
        layer.inputs = [resolve(t) for t in layer.inputs]
        layer.outputs = [backward.get(t.name, t) for t in layer.outputs]
        # The raw dict follows, so that df's Inputs/Outputs columns (the raw lists) agree.
        layer.raw_dict["Inputs"] = [t.raw for t in layer.inputs]
        layer.raw_dict["Outputs"] = [t.raw for t in layer.outputs]
    return kept


def _reads_any(tensors: list[Activation], names: dict[str, Activation]) -> bool:
    for t in tensors:
        if t.name in names:
            return True
    return False
