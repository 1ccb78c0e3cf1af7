"""QDQLinter: Quantize/Dequantize work left unfused (TREx's Scale form and the TensorRT 8.4+/10 forms)."""

from __future__ import annotations

import re
from functools import cached_property

from ..model.layer import Layer
from ..model.profiles import strip_profile
from ..onnx_map import plan_onnx_nodes, plan_onnx_ops
from .base import Finding, Linter

_QDQ_OPS = {"QuantizeLinear", "DequantizeLinear"}
_QDQ_TYPES = {"Quantize", "Dequantize", "QuantizeLinear", "DequantizeLinear"}
_QUANTIZED = ("INT8", "UINT8", "FP8", "INT4", "FP4")
_QDQ_NAME_RE = re.compile(r"(?:^|/)(?:QuantizeLinear|DequantizeLinear)(?:_\d+)?$")
_HELP = ("Unfused Quantize/Dequantize nodes are wasteful and should be avoided. Quantize nodes may "
         "be necessary for quantizing inputs.")


def _role(layer: Layer, ops: list[str]) -> str:
    inp = layer.inputs[0].precision if layer.inputs else ""
    out = layer.outputs[0].precision if layer.outputs else ""
    if out in _QUANTIZED and inp not in _QUANTIZED:
        return "Quantize"
    if inp in _QUANTIZED and out not in _QUANTIZED:
        return "Dequantize"
    if "Dequantize" in layer.type or (ops and all(op == "DequantizeLinear" for op in ops)):
        return "Dequantize"
    return "Quantize"


class QDQLinter(Linter):
    """Layers that only (de)quantize: TREx's Scale form, Quantize/Dequantize layers, ``QDQ``
    reformats (TensorRT 8.4+/10), and layers whose ONNX nodes are all Q/DQ nodes."""

    name = "qdq"
    description = "Unfused Quantize/Dequantize layers"

    @cached_property
    def _qdq_ops(self) -> list[list[str]]:
        """Per layer, the op types of its ONNX nodes: from its Metadata, or from its name when
        that names a Q/DQ node."""
        plan = self.plan
        return [ops if source == "Metadata" or (source == "name" and _QDQ_NAME_RE.search(layer.name))
                else [] for (_, source), ops, layer in zip(plan_onnx_nodes(plan), plan_onnx_ops(plan),
                                                           plan.layers)]

    def _is_unfused(self, i: int, layer: Layer) -> bool:
        if layer.type == "Scale" and layer.inputs and layer.outputs:
            return ("Int8" in layer.inputs[0].format) ^ ("Int8" in layer.outputs[0].format)
        if layer.type in _QDQ_TYPES or layer.subtype in _QDQ_TYPES:
            return True
        if layer.type == "Reformat" and layer.origin == "QDQ":
            return True
        ops = self._qdq_ops[i]
        return bool(ops) and all(op in _QDQ_OPS for op in ops)

    def check(self) -> list[Finding]:
        """One finding per unfused Q/DQ layer (info when it quantizes a network input)."""
        plan = self.plan
        inputs = {strip_profile(b) for b in plan.bindings}
        out = []
        for i, layer in enumerate(plan.layers):
            if not self._is_unfused(i, layer):
                continue
            role = _role(layer, self._qdq_ops[i])
            on_input = bool(layer.inputs) and strip_profile(layer.inputs[0].name) in inputs
            inp = layer.inputs[0].precision if layer.inputs else "?"
            outp = layer.outputs[0].precision if layer.outputs else "?"
            severity = "info" if (role == "Quantize" and on_input) else "warning"
            mitigation = (f"Check why the {role} layer is not fused" +
                          (" (quantizing the network input is expected)." if severity == "info" else
                           ": place Q/DQ so that the producer can emit (or the consumer read) "
                           "quantized data, e.g. quantize residual and pooling branches."))
            out.append(self.finding(
                layer.name, severity, f"Unfused {role} layer.",
                {"bytes_in": layer.inputs_size_bytes, "bytes_out": layer.outputs_size_bytes,
                 **self.layer_timing(i)},
                mitigation, _HELP,
                **{"type conversion": f"{inp} -> {outp}", "layer type": layer.type}))
        return out
