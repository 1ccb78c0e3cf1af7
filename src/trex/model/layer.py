"""One engine layer (TREx's Layer): its type, tensors, precision, sizes, stream and ONNX nodes.

Every per-layer fact a view needs is computed here once, from the reader's normalised raw dict:
views read ``layer.stream`` or ``layer.onnx_nodes`` and never look into ``raw_dict`` for them.
"""

from __future__ import annotations

import math
from typing import Any

from .tensor_format import dtype_bytes
from .tensors import Activation


def parameter_sizes(raw: dict[str, Any]) -> tuple[int, int, int]:
    """Return (weights count, weights bytes, bias bytes) over every ``{Type, Count}`` attribute.

    Covers ``Weights``/``Bias``, ConvActPool's ``ConvWeights``/``ConvBias`` and any dtype (FP8,
    INT4, BF16, FP4 included).
    """
    count = weights = bias = 0
    for key, value in raw.items():
        if type(value) is not dict:
            continue
        if "Count" not in value or "Type" not in value:
            continue
        try:
            n = int(value["Count"])
        except (TypeError, ValueError, OverflowError):  # None, "abc", NaN, inf
            continue
        element_bytes = dtype_bytes(str(value["Type"]))
        try:
            size = int(round(n * element_bytes))
        except OverflowError:  # a count beyond float range: exact integer arithmetic
            size = n * int(element_bytes * 8) // 8
        if "bias" in key.lower():
            bias += size
        else:
            count += n
            weights += size
    return count, weights, bias


_INT64_MAX = 2**63 - 1


def _int64(size: int) -> int:
    """Clamp a byte count to int64, the df's dtype (only a corrupt file's dimensions get beyond)."""
    return max(-_INT64_MAX, min(size, _INT64_MAX))


class Layer:
    """One engine layer (TREx's Layer): type, tensors, precision and memory figures."""

    def __init__(self, raw_dict: dict[str, Any]):
        self.raw_dict = raw_dict
        self.name: str = raw_dict["Name"]
        self.subtype: str = raw_dict.get("LayerType", "Unknown")
        self.type: str = layer_type(raw_dict)
        self.metadata = raw_dict.get("Metadata")
        # The ONNX nodes the layer implements (readers give Metadata as a list of node names).
        self.onnx_nodes: list[str] = self.metadata if type(self.metadata) is list else []
        stream = raw_dict.get("StreamId")
        self.stream: int = 0 if stream is None else stream \
            if type(stream) is int and 0 <= stream < 1 << 31 else stream_id(stream)
        tactic = raw_dict.get("TacticName")
        self.tactic: str = tactic if isinstance(tactic, str) and tactic else "TensorRT"
        self.inputs = [Activation(t) for t in raw_dict.get("Inputs", ())]
        self.outputs = [Activation(t) for t in raw_dict.get("Outputs", ())]
        size_in = size_out = 0
        for t in self.inputs:
            size_in += t.size_bytes
        for t in self.outputs:
            size_out += t.size_bytes
        self.inputs_size_bytes = size_in
        self.outputs_size_bytes = size_out
        self.precision = self.inputs[0].precision if self.inputs else None
        self.output_precision = self.outputs[0].precision if self.outputs else ""
        self.weights_cnt, self.weights_only_size, bias_size = parameter_sizes(raw_dict)
        self.constant_inputs: list[Activation] = []  # inputs that are weights (count_as_weights)
        io = size_in + size_out
        weights = self.weights_only_size + bias_size
        if io + weights <= _INT64_MAX:  # always, but for a corrupt file's dimensions
            self.total_io_size_bytes, self.bias_size = io, bias_size
            self.weights_size, self.total_footprint_bytes = weights, io + weights
        else:
            self.total_io_size_bytes, self.bias_size = _int64(io), _int64(bias_size)
            self.weights_size = _int64(weights)
            self.total_footprint_bytes = _int64(io + weights)

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
        self.weights_size = _int64(self.weights_size + size)
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
        """The math its kernel runs (``TF32 HMMA``, ``FP16 HMMA``, ``INT8 IMMA``, ``FP32 FFMA``,
        ``INT8 DP4A``, ``INT8 CUDA cores``...), from the tactic's name (:mod:`trex.kernels`); a
        CUDA-core kernel whose name gives no type runs the layer's precision. None when unknown."""
        from ..kernels import classify_tactic

        tactic = self.raw_dict.get("TacticName")
        kernel = classify_tactic(tactic if isinstance(tactic, str) else None,
                                 self.subtype if isinstance(self.subtype, str) else None)
        math = kernel.math
        if math is None and kernel.tensor_cores is False and self.precision:
            math = f"{self.precision} {kernel.instruction or 'CUDA cores'}"
        return math

    @property
    def is_reformat(self) -> bool:
        """A layer that only converts layout or data type: TensorRT's ``Reformat`` and Myelin's
        ``MyelinReformat`` (whose ``type`` stays as TREx gives it)."""
        return self.type == "Reformat" or self.subtype.endswith("Reformat")

    @property
    def hides_weights(self) -> bool:
        """True where the export does not list weights the layer holds: a Myelin region
        (``{ForeignNode[...]}``) or a Myelin GEMM whose B operand is neither an input nor an
        attribute."""
        if self.type == "Myelin":
            return True
        return (self.subtype == "gemm" and not self.weights_size and len(self.inputs) == 1)

    def tooltip(self) -> str:
        """Every raw attribute but the tensors as ``key:value`` lines (TREx's node tooltip)."""
        skip = {"InputRegions", "OutputRegions", "Inputs", "Outputs", "ParameterType", "LayerName"}
        return "".join(f"{k}:{v}\\n" for k, v in sorted(self.raw_dict.items()) if k not in skip)

    def __repr__(self) -> str:
        return f"Layer({self.name})"


def stream_id(value: Any) -> int:
    """A layer's CUDA stream (``StreamId``, TensorRT 8.6+): 0 when absent or not a count."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value if 0 <= value < 1 << 31 else 0
    if isinstance(value, str) and value.strip().isdigit() and len(value) < 10:
        return int(value)
    return 0


def layer_type(raw: dict[str, Any]) -> str:
    """TREx's ``type``: the ParameterType, else the LayerType (``MyelinReformat``, ``kgen``,
    ``gemm`` stay as TensorRT names them); a Deconvolution is told apart from its Convolution
    ParameterType, and names-only exports get the kinds their names follow."""
    ptype = raw.get("ParameterType")
    ltype = str(raw.get("LayerType", "Unknown"))
    if not ptype or not isinstance(ptype, str):  # absent, or not a type name (a corrupt file)
        return _type_from_name(raw.get("Name", "")) if ltype == "Unknown" else ltype
    if ptype == "Convolution" and "Deconvolution" in ltype:
        return "Deconvolution"
    return ptype


DLA_SUFFIXES = {" to nvm": "DLACopy", " from nvm": "DLACopy", " copy finish": "DLASync"}


def _type_from_name(name: str) -> str:
    """Names-only exports: recognise the kinds TensorRT names by convention.

    DLA engines copy tensors to and from the DLA's memory (``X to nvm``, ``X from nvm``) and wait
    for them (``X copy finish``); their ``{...}`` subgraph runs on the DLA (see :func:`mark_dla`).
    """
    if name.startswith("Reformatting CopyNode") or " reformatter " in name:
        return "Reformat"
    for suffix, kind in DLA_SUFFIXES.items():
        if name.endswith(suffix):
            return kind
    if name.startswith("{ForeignNode["):
        return "Myelin"
    return "Unknown"


def mark_dla(layers: list[Layer]) -> bool:
    """In an engine with DLA copies, the ``{...}`` subgraphs are DLA loadables, not Myelin
    regions: type them ``DLA``. Returns True for a DLA engine."""
    if not any(layer.type in ("DLACopy", "DLASync") for layer in layers):
        return False
    for layer in layers:
        if layer.name.startswith("{") and layer.name.endswith("}") and \
                layer.type in ("Myelin", "Unknown"):
            layer.type = "DLA"
    return True


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
