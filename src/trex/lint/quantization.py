"""QDQLinter: Quantize/Dequantize work left unfused (TREx's Scale form and the TensorRT 8.4+/10 forms)."""

from __future__ import annotations

import re
from functools import cached_property

from ..model.profiles import strip_profile
from ..onnx_map import plan_onnx_nodes, plan_onnx_ops
from .base import Finding, Linter

_QDQ_OPS = {"QuantizeLinear", "DequantizeLinear"}
_QDQ_TYPES = {"Quantize", "Dequantize", "QuantizeLinear", "DequantizeLinear"}
_QUANTIZED = ("INT8", "UINT8", "FP8", "INT4", "FP4")
_QDQ_NAME_RE = re.compile(r"(?:^|/)(?:QuantizeLinear|DequantizeLinear)(?:_\d+)?$")
_HELP = ("Unfused Quantize/Dequantize nodes are wasteful and should be avoided. Quantize nodes may "
         "be necessary for quantizing inputs.")


def _role_of(inp: str, out: str, kind: str, ops: list[str]) -> str:
    """Quantize or Dequantize: a layer whose first input and output have these data types ("" for
    none), of this type and these ONNX op types."""
    if out in _QUANTIZED and inp not in _QUANTIZED:
        return "Quantize"
    if inp in _QUANTIZED and out not in _QUANTIZED:
        return "Dequantize"
    if "Dequantize" in kind or (ops and all(op == "DequantizeLinear" for op in ops)):
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
        return [ops if source == "Metadata" or (source == "name" and "uantizeLinear" in name
                                                and _QDQ_NAME_RE.search(name))
                else [] for (_, source), ops, name in zip(plan_onnx_nodes(plan), plan_onnx_ops(plan),
                                                          self.facts.names)]

    def _unfused(self) -> list[int]:
        """The layers that only (de)quantize: Scale layers between Int8 and other formats, Q/DQ
        types, QDQ reformats, and layers whose ONNX nodes are all Q/DQ nodes."""
        facts = self.facts
        first_in, first_out = facts.first_in, facts.first_out
        out = []
        for i, (kind, sub, origin, ops) in enumerate(zip(facts.types, facts.subtypes,
                                                          facts.origins, self._qdq_ops)):
            if kind == "Scale" and first_in[i] >= 0 and first_out[i] >= 0:
                if ("Int8" in facts.format(first_in[i])) ^ ("Int8" in facts.format(first_out[i])):
                    out.append(i)
            elif kind in _QDQ_TYPES or sub in _QDQ_TYPES or (kind == "Reformat" and origin == "QDQ") \
                    or (ops and all(op in _QDQ_OPS for op in ops)):
                out.append(i)
        return out

    def check(self) -> list[Finding]:
        """One finding per unfused Q/DQ layer (info when it quantizes a network input)."""
        plan = self.plan
        facts = self.facts
        inputs = {strip_profile(b) for b in plan.bindings}
        out = []
        for i in self._unfused():
            first, written = facts.first_input(i), facts.first_output(i)
            inp = facts.precisions[i] if first is not None else ""
            outp = facts.output_precisions[i] if written is not None else ""
            role = _role_of(inp, outp, facts.types[i], self._qdq_ops[i])
            on_input = first is not None and strip_profile(facts.tensor_name(first)) in inputs
            severity = "info" if (role == "Quantize" and on_input) else "warning"
            mitigation = (f"Check why the {role} layer is not fused" +
                          (" (quantizing the network input is expected)." if severity == "info" else
                           ": place Q/DQ so that the producer can emit (or the consumer read) "
                           "quantized data, e.g. quantize residual and pooling branches."))
            out.append(Finding(
                facts.names[i], self.name, severity, f"Unfused {role} layer.",
                {"bytes_in": facts.in_bytes(i), "bytes_out": facts.out_bytes(i),
                 **facts.timing(i)},
                mitigation, _HELP,
                {"type conversion": f"{inp if first is not None else '?'} -> "
                                    f"{outp if written is not None else '?'}",
                 "layer type": facts.types[i]}))
        return out
