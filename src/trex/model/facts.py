"""One engine's headline facts, computed once and read by every view.

``trex summary``, ``trex compare`` and its gate, the HTML report's header, the notebooks and the
Excel workbook all take these figures from :func:`engine_facts`, so the same number can never be
computed two ways. A figure the inputs do not provide is None (shown as "–"), never 0.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from . import measurement
from .measurement import Measured, describe_conditions, logged_conditions

__all__ = ["MISSING", "EngineFacts", "Measured", "describe_conditions", "engine_facts",
           "logged_conditions", "profiling_conditions", "show", "summary_dict"]

if TYPE_CHECKING:
    from .plan import EnginePlan
    from .protocol import PlanLike

MISSING = "–"  # how a missing figure is shown in text


def profiling_conditions(plan: EnginePlan) -> dict[str, Any]:
    """How the engine was timed (:func:`~trex.model.measurement.profiling_conditions`)."""
    return measurement.profiling_conditions(plan.profiling_recorded, plan.inference_options,
                                            plan.reporting_options)


@dataclass(frozen=True)
class EngineFacts:
    """An engine's headline figures as plain values (None: the inputs do not say)."""

    name: str
    layers: int
    detailed: bool
    profiles: list[int]
    profile_id: int
    latency_ms: float | None  # sum of the layers' average latencies (needs a per-layer profile)
    timed_layers: int  # layers with a time in the per-layer profile
    gpu_compute_median_ms: float | None  # trtexec's performance summary
    latency_median_ms: float | None
    throughput_qps: float | None
    batch_size: int | None
    weights_bytes: int | None  # the weights the export lists (attributes and constant inputs)
    weights_not_exported: list[str]  # layers holding weights the export does not list
    activations_bytes: int | None  # TREx's figure: every layer's inputs and outputs
    activation_footprint_bytes: int | None  # each activation tensor once
    streams: int
    profile_iterations: int | None
    precision_counts: dict[str, int]
    math_precision_counts: dict[str, int]  # layers per math their kernels run (TF32 HMMA, ...)
    onnx_metadata: bool
    device: str | None
    compute_capability: float | None
    tensorrt_version: str | None
    builder_config: dict[str, Any] = field(default_factory=dict)
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    io_tensors: list[dict[str, Any]] = field(default_factory=list)
    profiling: dict[str, Any] = field(default_factory=dict)  # CUDA graph, copies, separate run

    @property
    def precision_mix(self) -> str:
        """Layer count per precision, most frequent first: ``INT8 21, FP16 11``."""
        return ", ".join(f"{p} {n}" for p, n in self.precision_counts.items())

    @property
    def math_mix(self) -> str:
        """Layer count per math precision, most frequent first: ``TF32 HMMA 20, FP32 FFMA 1``."""
        return ", ".join(f"{p} {n}" for p, n in self.math_precision_counts.items())

    @property
    def precision_text(self) -> str:
        """The precision mix as views word it: a names-only export gives no precision, so its
        layers are "unknown", with the reason (not "None 840")."""
        if not self.layers:
            return MISSING
        if not self.detailed:
            return (f"unknown for all {self.layers:,} layers (names-only layer information: "
                    "build with --profilingVerbosity=detailed)")
        return self.precision_mix

    def as_dict(self) -> dict[str, Any]:
        """The facts as a plain dict (JSON-ready), with ``precision_mix`` added."""
        out = asdict(self)
        out["precision_mix"] = self.precision_mix
        out["math_mix"] = self.math_mix
        return out


def engine_facts(plan: EnginePlan) -> EngineFacts:
    """The plan's :class:`EngineFacts` (computed on first use, then kept with the plan)."""
    cached = plan.__dict__.get("_facts")
    if cached is None:
        cached = plan.__dict__["_facts"] = _facts(plan)
    return cached


def _facts(plan: EnginePlan) -> EngineFacts:
    inputs, outputs = plan.get_bindings()
    detailed = plan.detailed
    device = plan.device
    measured = plan.measured
    timed = int(np.count_nonzero(~np.isnan(plan.latency.avg)))
    return EngineFacts(
        name=plan.name,
        layers=len(plan.rows),
        detailed=detailed,
        profiles=list(plan.profiles),
        profile_id=plan.profile_id,
        latency_ms=plan.total_runtime if plan.has_profile and timed else None,
        timed_layers=timed,
        gpu_compute_median_ms=measured.gpu_compute_median_ms,
        latency_median_ms=measured.latency_median_ms,
        throughput_qps=measured.throughput_qps,
        batch_size=batch_size(plan),
        weights_bytes=plan.total_weights_size if detailed and plan.weights_known else None,
        weights_not_exported=[plan.table.names[i] for i in plan.table.hidden_weights(plan.rows)]
        if detailed and plan.weights_known else [],
        activations_bytes=plan.total_act_size if detailed else None,
        activation_footprint_bytes=plan.total_activation_footprint if detailed else None,
        streams=plan.stream_count,
        profile_iterations=plan.profile_count,
        precision_counts=precision_counts(plan),
        math_precision_counts=_counts(plan, "math_precision", skip_missing=True),
        onnx_metadata=has_onnx_metadata(plan),
        device=device.name if device and device.name else None,
        compute_capability=device.compute_capability if device else None,
        tensorrt_version=plan.tensorrt_version,
        builder_config=dict(plan.builder_cfg),
        inputs=[repr(b) for b in inputs],
        outputs=[repr(b) for b in outputs],
        io_tensors=[t.as_dict() for t in plan.io_tensors],
        profiling=profiling_conditions(plan),
    )


def batch_size(plan: EnginePlan) -> int | None:
    """The first dimension of the first input (None when unknown or dynamic)."""
    inputs, _ = plan.get_bindings()
    if inputs and inputs[0].shape and inputs[0].shape[0] > 0:
        return int(inputs[0].shape[0])
    return None


def precision_counts(plan: EnginePlan) -> dict[str, int]:
    """Layer count per precision (a layer's first input), most frequent first."""
    return _counts(plan, "precision")


def _counts(plan: EnginePlan, column: str, skip_missing: bool = False) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for value, n in Counter(plan.column(column)).items():  # counted in C, then non-text folded
        if isinstance(value, str):
            counts[value] += n
        elif not skip_missing:
            counts["None"] += n
    return dict(counts.most_common())


def precision_mix(plan: EnginePlan) -> str:
    """Layer count per precision, most frequent first: ``INT8 21, FP16 11``."""
    return engine_facts(plan).precision_mix


def has_onnx_metadata(plan: PlanLike) -> bool:
    """True if some layer lists the ONNX nodes it implements (TensorRT 8.6+ ``Metadata``)."""
    table, rows = getattr(plan, "table", None), getattr(plan, "rows", None)
    if table is not None and rows is not None:
        return any(table.onnx_nodes[i] for i in rows)
    return any(layer.onnx_nodes for layer in plan.layers)


# A per-layer profile averaged over fewer iterations than this is cautioned against.
MIN_PROFILE_ITERATIONS = 10


def profile_caution(iterations: int | None) -> str:
    """Why per-layer times averaged over few iterations (the profile's ``count``) are noisy, or
    "" when there are enough (or the count is unknown)."""
    if iterations is None or iterations >= MIN_PROFILE_ITERATIONS:
        return ""
    what = "a single sample" if iterations == 1 else f"an average of only {iterations} samples"
    return (f"each layer's time is {what} (the profile's count is {iterations}): differences "
            f"of a few percent are noise; profile {MIN_PROFILE_ITERATIONS} or more iterations "
            "(trtexec --iterations or --duration)")


def show(value: float | int | None, fmt: str = "{:.3f}", unit: str = "") -> str:
    """A figure as text, or "–" when it is missing."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return MISSING
    return fmt.format(value) + (f" {unit}" if unit else "")


def summary_dict(plan: EnginePlan) -> dict[str, str]:
    """TREx's summary of the plan: bindings, average time, layer count, weights, activations."""
    facts = engine_facts(plan)
    mb = 1024 * 1024
    inputs, outputs = plan.get_bindings()
    nl = "\n\t\t"
    return {
        "Inputs": nl.join(str(b) for b in inputs),
        "Outputs": nl.join(str(b) for b in outputs),
        "Average time": show(facts.latency_ms, "{:.3f}", "ms"),
        "Layers": f"{facts.layers}",
        "Weights": show(None if facts.weights_bytes is None else facts.weights_bytes / mb,
                        "{:.1f}", "MB") + not_exported(facts),
        "Activations": show(None if facts.activations_bytes is None
                            else facts.activations_bytes / mb, "{:.1f}", "MB"),
    }


def not_exported(facts: EngineFacts) -> str:
    """`` + not exported (N layers)`` when some layers hold weights the export does not list."""
    n = len(facts.weights_not_exported)
    return f" + not exported ({n} layer{'s' if n != 1 else ''})" if n else ""


def summary_text(plan: EnginePlan) -> str:
    """TREx's printed summary as one string."""
    parts = []
    for title, section in (("Model", summary_dict(plan)),
                           ("Device Properties", plan.device_properties),
                           ("Builder Configuration", plan.builder_cfg),
                           ("Performance Summary", plan.performance_summary)):
        parts.append(f"{title}:")
        parts.extend(f"\t{k}: {v}" for k, v in section.items())
    return "\n".join(parts)
