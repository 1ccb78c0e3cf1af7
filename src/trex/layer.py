"""TREx-compatible Layer and Activation objects built from normalised raw layer dicts."""

from __future__ import annotations

from typing import Any

from .tensor_format import TensorFormat, dtype_bytes, parse_format, tensor_size_bytes


class Activation:
    """A tensor as one layer sees it: name, shape, format, precision and size in bytes."""

    __slots__ = ("name", "shape", "format", "precision", "data_size", "size_bytes", "tensor_format",
                 "raw")

    def __init__(self, raw_dict: dict[str, Any]):
        self.raw = raw_dict
        self.name: str = raw_dict["Name"]
        self.shape: list[int] = raw_dict.get("Dimensions", [])
        fmt, size = _format_and_size(raw_dict.get("Format/Datatype", ""), tuple(self.shape))
        self.tensor_format: TensorFormat = fmt
        self.format: str = fmt.short
        self.precision: str = fmt.precision
        self.data_size: float = fmt.data_size
        self.size_bytes: int = size

    @property
    def is_dynamic(self) -> bool:
        """True if some dimension is -1 (its size then counts that dimension as 1)."""
        return any(d < 0 for d in self.shape)

    def tooltip(self) -> str:
        return "\\n".join((str(self.shape), self.format))

    def __repr__(self) -> str:
        return f"{self.name}: {self.shape}x{self.format}"


_SIZES: dict[tuple[str, tuple[int, ...]], tuple[TensorFormat, int]] = {}


def _format_and_size(text: str, shape: tuple[int, ...]) -> tuple[TensorFormat, int]:
    """Parsed format and byte size, memoised: big engines repeat the same few tensor shapes."""
    key = (text, shape)
    hit = _SIZES.get(key)
    if hit is None:
        fmt = parse_format(text)
        hit = (fmt, tensor_size_bytes(list(shape), fmt))
        if len(_SIZES) < 65536:
            _SIZES[key] = hit
    return hit


def parameter_sizes(raw: dict[str, Any]) -> tuple[int, int, int]:
    """Return (weights count, weights bytes, bias bytes) over every ``{Type, Count}`` attribute.

    Covers ``Weights``/``Bias``, ConvActPool's ``ConvWeights``/``ConvBias`` and any dtype (FP8,
    INT4, BF16, FP4 included).
    """
    count = weights = bias = 0
    for key, value in raw.items():
        if type(value) is not dict or "Count" not in value or "Type" not in value:
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
        self.inputs = [Activation(t) for t in raw_dict.get("Inputs", [])]
        self.outputs = [Activation(t) for t in raw_dict.get("Outputs", [])]
        self.inputs_size_bytes = sum(t.size_bytes for t in self.inputs)
        self.outputs_size_bytes = sum(t.size_bytes for t in self.outputs)
        self.precision = self.inputs[0].precision if self.inputs else None
        self.output_precision = self.outputs[0].precision if self.outputs else ""
        self.total_io_size_bytes = _int64(self.inputs_size_bytes + self.outputs_size_bytes)
        self.weights_cnt, self.weights_only_size, bias_size = parameter_sizes(raw_dict)
        self.bias_size = _int64(bias_size)
        self.weights_size = _int64(self.weights_only_size + bias_size)
        self.total_footprint_bytes = _int64(self.total_io_size_bytes + self.weights_size)

    def tooltip(self) -> str:
        skip = {"InputRegions", "OutputRegions", "Inputs", "Outputs", "ParameterType", "LayerName"}
        return "".join(f"{k}:{v}\\n" for k, v in sorted(self.raw_dict.items()) if k not in skip)

    def __repr__(self) -> str:
        return f"Layer({self.name})"


def layer_type(raw: dict[str, Any]) -> str:
    """TREx's ``type``: the ParameterType, else the LayerType (Deconvolution told apart)."""
    ptype = raw.get("ParameterType")
    ltype = raw.get("LayerType", "Unknown")
    if not ptype:
        if ltype == "Unknown":
            return _type_from_name(raw.get("Name", ""))
        return ltype
    if ptype == "Convolution" and "Deconvolution" in ltype:
        return "Deconvolution"
    return ptype


def _type_from_name(name: str) -> str:
    """Names-only exports: recognise the two kinds TensorRT names by convention."""
    if name.startswith("Reformatting CopyNode"):
        return "Reformat"
    if name.startswith("{ForeignNode["):
        return "Myelin"
    return "Unknown"


def fold_no_ops(layers: list[Layer], bindings: set[str]) -> list[Layer]:
    """Remove NoOp layers, reconnecting their consumers to the NoOp's input (as TREx does).

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
        seen = 0
        while act.name in forward and seen < len(forward):
            act, seen = forward[act.name], seen + 1
        return act

    kept = [layer for layer in layers if layer.type != "NoOp"]
    for layer in kept:
        layer.inputs = [resolve(t) for t in layer.inputs]
        layer.outputs = [backward.get(t.name, t) for t in layer.outputs]
    return kept
