"""TREx's ConvLinter: Tensor Core use, quantized convolutions with float outputs, channel alignment.

Tensor Core use comes from :func:`trex.kernels.classify_tactic` (TREx's ``imma|hmma|xmma|i88|884``
test missed cuDNN's ``h16816cudnn`` kernels and passed every ``xmma`` CUDA-core kernel). A kernel
whose name says nothing is reported as unknown (info), never as "not accelerated"; convolutions
that implement an ONNX Gemm/MatMul are left to the GEMM linter (``gemm-tensor-cores``).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
import pandas as pd

from ..kernels import KernelInfo
from .base import Finding, Linter, findings_frame
from .gemm import gemm_rows

_TC_HELP = "TensorCores accelerate large Convolution and GEMM operations."
_MIXED_HELP = ("Quantized Convolution with float outputs is ill advised for memory-limited "
               "convolutions.")
_UNKNOWN_MITIGATION = ("Build with --profilingVerbosity=detailed (kernel names in TacticName) or "
                       "profile with Nsight Systems to see the kernel.")
_ALIGN_HELP = ("For best performance, the input and output channels of a Tensor Core accelerated "
               "convolution should be aligned to 8 (FP32/FP16) or 16 (INT8).")


class ConvLinter(Linter):
    """Convolution layer linter (TREx's three checks, each finding kept)."""

    name = "conv"
    description = "Convolutions: Tensor Core use, INT8 convs with float outputs, channel alignment"

    @cached_property
    def _conv_mask(self) -> np.ndarray:
        """True for the Convolution layers."""
        mask: np.ndarray = self.facts.type_array == "Convolution"
        return mask

    @cached_property
    def _conv_rows(self) -> list[int]:
        """The positions k of the Convolution layers."""
        rows: list[int] = np.flatnonzero(self._conv_mask).tolist()
        return rows

    def _extra_at(self, k: int) -> dict[str, str]:
        facts = self.facts
        return {"tactic": facts.tactic_names[k] or "TensorRT", "subtype": facts.subtypes[k]}

    @cached_property
    def _channels(self) -> dict[int, tuple[int | None, int | None]]:
        """(input channels C, output channels K) of each convolution, by position k: axis 1 of
        the input, OutMaps (else output axis 1)."""
        facts = self.facts
        rows = np.asarray(self._conv_rows, dtype=np.int64)
        c, has_c = facts.second_dims(facts.first_in_array[rows], 3)
        k, has_k = facts.second_dims(facts.first_out_array[rows], 2)
        inputs = [v if ok else None for v, ok in zip(c.tolist(), has_c.tolist())]
        outputs = [v if ok else None for v, ok in zip(k.tolist(), has_k.tolist())]
        out_maps = facts.attributes(self._conv_rows, "OutMaps")
        return {i: (c_in, maps if isinstance(maps, int) and maps > 0 else c_out)
                for i, c_in, c_out, maps in zip(self._conv_rows, inputs, outputs, out_maps)}

    def tc_findings(self) -> list[Finding]:
        """Non-FP32 convolutions whose kernel runs on CUDA cores (warning) or whose kernel name
        does not say (info); GEMM-like convolutions are the GEMM linter's."""
        out = []
        gemm = gemm_rows(self.plan)
        facts = self.facts
        names = facts.names
        tactics, subtypes = facts.tactic_names, facts.subtypes
        channels = self._channels
        kernels: dict[tuple[str | None, str], KernelInfo] = {}  # a few distinct tactics
        rows = np.flatnonzero(self._conv_mask & (facts.precision_array != "FP32") &
                              ~np.asarray(gemm, dtype=bool)).tolist()
        for i, groups in zip(rows, facts.attributes(rows, "Groups")):
            kernel = kernels.get((tactics[i], subtypes[i]))
            if kernel is None:
                kernel = kernels[(tactics[i], subtypes[i])] = self.kernel_at(i)
            if kernel.tensor_cores:
                continue
            c, k = channels[i]
            groups = groups or 1
            evidence = {"input_channels": c, "output_channels": k, "groups": groups,
                        "kernel": kernel.evidence, **facts.timing(i)}
            if kernel.tensor_cores is None:
                out.append(Finding(
                    names[i], self.name, "info", "Convolution's Tensor Core use is unknown.",
                    evidence, _UNKNOWN_MITIGATION, _TC_HELP, self._extra_at(i)))
                continue
            mitigation = ""
            depthwise = kernel.operation == "depthwise convolution" or (
                isinstance(groups, int) and groups > 1 and c is not None and groups == c)
            first = facts.first_in[i]
            if depthwise:
                mitigation = ("Depthwise convolutions (one channel per group) have no Tensor "
                              "Core kernel, by design: this one is memory bound, so what helps is "
                              "fusing it with its neighbours and keeping its tensors in INT8/FP16.")
            elif c is not None and first >= 0 and len(facts.dims(first)) == 4 and c < 32:
                mitigation = ("This Convolution has a small number of input channels so "
                              "acceleration may not be possible.")
            out.append(Finding(
                names[i], self.name, "info" if depthwise else "warning",
                "Convolution is not accelerated.", evidence, mitigation, _TC_HELP,
                self._extra_at(i)))
        return out

    def mixed_precision_findings(self) -> list[Finding]:
        """INT8 convolutions whose output is not INT8."""
        out = []
        facts = self.facts
        rows = np.flatnonzero(self._conv_mask & (facts.precision_array == "INT8") &
                              (facts.first_in_array >= 0) & (facts.first_out_array >= 0) &
                              (facts.output_precision_array != "INT8")).tolist()
        for i in rows:
            written = facts.first_out[i]
            precision = facts.output_precisions[i]  # of outputs[0]
            size = facts.size_bytes(written)
            int8_bytes = size * 8 // int(facts.bits(written) or 8)
            engine_output = facts.tensor_name(written) in self.engine_io[1]
            extra = self._extra_at(i)
            extra["type conversion"] = f"INT8 -> {precision}"
            out.append(Finding(
                facts.names[i], self.name, "info" if engine_output else "warning",
                "Quantized Convolution has float outputs.",
                {"output_bytes": size, "output_bytes_if_int8": int8_bytes, **facts.timing(i)},
                ("Expected: the layer writes the engine's output binding, whose type is "
                 f"{precision} (e.g. the logits of the last classifier)." if engine_output
                 else "Consider adding quantization after the convolution."), _MIXED_HELP, extra))
        return out

    def alignment_findings(self) -> list[Finding]:
        """Convolutions whose input or output channels are not multiples of 8 (16 for INT8)."""
        out = []
        facts = self.facts
        channels = self._channels
        precisions = facts.precisions
        for i in self._conv_rows:
            c, k = channels[i]
            if c is None or k is None:
                continue
            align = 16 if precisions[i] == "INT8" else 8
            if c % align == 0 and k % align == 0:
                continue
            pads = ", ".join(f"{d} {v} -> {-(-v // align) * align}"
                             for d, v in (("C", c), ("K", k)) if v % align)
            out.append(Finding(
                facts.names[i], self.name, "info", "Convolution channels are not optimally aligned.",
                {"input_channels": c, "output_channels": k, "alignment": align,
                 "input_remainder": c % align, "output_remainder": k % align, **facts.timing(i)},
                f"Consider changing the alignment of the convolution's channels (pad {pads}).",
                _ALIGN_HELP, self._extra_at(i)))
        return out

    def check(self) -> list[Finding]:
        """Tensor Core, mixed-precision and alignment findings, in that order."""
        return self.tc_findings() + self.mixed_precision_findings() + self.alignment_findings()

    # TREx's method names, as DataFrames.
    def tc_lint(self) -> pd.DataFrame:
        """TREx's ``tc_lint`` (every finding a row)."""
        return findings_frame(self.tc_findings() if self.plan.detailed else [])

    def mixed_precision_lint(self) -> pd.DataFrame:
        """TREx's ``mixed_precision_lint`` (every finding a row)."""
        return findings_frame(self.mixed_precision_findings() if self.plan.detailed else [])

    def alignment_lint(self) -> pd.DataFrame:
        """TREx's ``alignment_lint`` (every finding a row)."""
        return findings_frame(self.alignment_findings() if self.plan.detailed else [])
