"""GEMM linters: operand alignment of MatMul/gemm layers, GEMM tactics without Tensor Cores."""

from __future__ import annotations

from ..compute.costs import GEMM_TYPES, gemm_cost
from ..compute.plan_costs import RowLayer, row_cost
from ..kernels import uses_tensor_cores
from ..model.layer import Layer
from ..model.plan import EnginePlan
from ..onnx_map import layer_onnx_nodes, onnx_op_type, plan_onnx_ops
from .base import Finding, Linter, rank

__all__ = ["GemmAlignmentLinter", "TensorCoreGemmLinter", "is_gemm_layer", "uses_tensor_cores"]

ALIGNMENT = {"INT8": 16, "UINT8": 16, "FP8": 16, "FP16": 8, "BF16": 8, "FP32": 4, "TF32": 4}
_GEMM_OPS = {"Gemm", "MatMul"}


def is_gemm_layer(layer: Layer) -> bool:
    """A GEMM: gemm/MatrixMultiply/FullyConnected, a CaskGemmConvolution, or a conv from ONNX Gemm/MatMul."""
    if layer.type in GEMM_TYPES or layer.subtype in GEMM_TYPES:
        return True
    if layer.type != "Convolution":
        return False
    if "Gemm" in (layer.subtype or ""):
        return True
    nodes, _ = layer_onnx_nodes(layer)
    return any(onnx_op_type(n) in _GEMM_OPS for n in nodes)


def gemm_rows(plan: EnginePlan) -> list[bool]:
    """:func:`is_gemm_layer` of each of ``plan.layers``, from the plan's columns and its ONNX op
    types (:func:`~trex.onnx_map.plan_onnx_ops`, guessed once per plan)."""
    if not isinstance(plan, EnginePlan):  # a selection of layers
        return [is_gemm_layer(layer) for layer in plan.layers]
    found: list[bool] | None = plan.__dict__.get("_gemm_rows")  # two linters ask
    if found is None:
        types, subtypes = plan.layer_values("type"), plan.layer_values("subtype")
        ops = plan_onnx_ops(plan)
        found = plan.__dict__["_gemm_rows"] = [
            kind in GEMM_TYPES or sub in GEMM_TYPES or (kind == "Convolution" and (
                "Gemm" in (sub or "") or not _GEMM_OPS.isdisjoint(ops[i])))
            for i, (kind, sub) in enumerate(zip(types, subtypes))]
    return list(found)


class GemmAlignmentLinter(Linter):
    """MatMul/gemm layers whose N or K is not a multiple of the Tensor Core alignment."""

    name = "gemm-alignment"
    description = "MatMul/gemm operands not aligned to 16 (INT8/FP8), 8 (FP16/BF16) or 4 (TF32)"

    def check(self) -> list[Finding]:
        """GEMM layers whose N or K is not a multiple of their precision's alignment."""
        out = []
        facts = self.facts
        for i, (kind, sub) in enumerate(zip(facts.types, facts.subtypes)):
            if not (kind in GEMM_TYPES or sub in GEMM_TYPES):
                continue
            precision = facts.precisions[i]
            align = ALIGNMENT.get(precision or "")
            cost = gemm_cost(RowLayer(facts.table, facts.rows[i]))  # type: ignore[arg-type]
            if align is None or cost is None:
                continue
            bad = {dim: value for dim, value in (("N", cost.n), ("K", cost.k)) if value % align}
            if not bad:
                continue
            pads = ", ".join(f"{d} {v} -> {-(-v // align) * align}" for d, v in bad.items())
            out.append(self.finding(
                facts.names[i], "info", f"GEMM {' and '.join(bad)} not aligned to {align} "
                                        f"({precision}).",
                {"M": cost.m, "N": cost.n, "K": cost.k, "alignment": align, **self.layer_timing(i)},
                f"Pad the {'/'.join(bad)} dimension ({pads}) so that Tensor Core kernels qualify "
                "without a padded copy.",
                "Tensor Core GEMM kernels need the contiguous dimensions in multiples of 16 bytes.",
                tactic=facts.tactic_names[i] or "TensorRT"))
        return out


class TensorCoreGemmLinter(Linter):
    """Reduced-precision GEMMs whose tactic runs on CUDA cores (SIMT, GEMV, sm5x/sm6x kernels)."""

    name = "gemm-tensor-cores"
    description = "GEMMs in FP16/BF16/INT8/FP8 whose kernel does not use Tensor Cores"

    def check(self) -> list[Finding]:
        """Reduced-precision GEMMs whose kernel name says it runs on CUDA cores."""
        out = []
        gemm = gemm_rows(self.plan)
        facts = self.facts
        for i, precision in enumerate(facts.precisions):
            level = rank(precision)
            if level is None or level > 1 or not gemm[i]:
                continue
            tactic = facts.tactic_names[i] or ""
            kernel = self.kernel_at(i)
            if kernel.tensor_cores is not False:
                continue
            cost = row_cost(self.plan, i)
            m = cost.m or 0
            if m == 1:
                mitigation = ("By design for M = 1: a matrix-vector product (GEMV) reads every "
                              "weight once for one row, so it is bound by memory, not by math; "
                              "batching requests (larger M) or narrower weights (INT8/FP8) are "
                              "what would make it faster.")
            else:
                mitigation = ("Check the alignment of N and K and the allowed precisions; a Tensor "
                              "Core tactic should win for this shape.")
            out.append(self.finding(
                facts.names[i], "info" if m == 1 else "warning", "GEMM runs without Tensor Cores.",
                {"M": cost.m, "N": cost.n, "K": cost.k, "bytes": cost.bytes, "kernel": kernel.evidence,
                 **self.layer_timing(i)},
                mitigation,
                "SIMT/GEMV kernels reach a fraction of the Tensor Core peak; large GEMMs in reduced "
                "precision should use HMMA/IMMA kernels.",
                tactic=tactic, subtype=facts.subtypes[i]))
        return out
