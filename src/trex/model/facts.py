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

from ..formats.units import PLAUSIBLE_MS, finite

if TYPE_CHECKING:
    from .plan import EnginePlan
    from .protocol import PlanLike

MISSING = "–"  # how a missing figure is shown in text


@dataclass(frozen=True)
class Measured:
    """End-to-end figures trtexec measured (its performance summary); None where absent."""

    latency_median_ms: float | None = None
    gpu_compute_median_ms: float | None = None
    throughput_qps: float | None = None
    source: str = ""  # "profile metadata" or the log it came from

    @classmethod
    def from_summary(cls, summary: dict[str, Any], source: str = "") -> Measured:
        """Read TREx's ``performance_summary`` shapes: stat lists [min, max, mean, median, ...]."""
        return cls(_median(summary, "Latency"), _median(summary, "GPU Compute Time"),
                   _number(summary.get("Throughput")), source)

    @property
    def available(self) -> bool:
        """True if the performance summary gave at least one of the measured figures."""
        return any(v is not None for v in (self.latency_median_ms, self.gpu_compute_median_ms,
                                           self.throughput_qps))


def _number(value: Any) -> float | None:
    """A finite, plausible figure (a number, not a string), else None."""
    if not isinstance(value, (int, float)):
        return None
    number = finite(value)
    return number if number is not None and abs(number) <= PLAUSIBLE_MS else None


def _median(summary: dict[str, Any], key: str) -> float | None:
    named = summary.get("percentiles")
    if isinstance(named, dict) and isinstance(named.get(key), dict):
        found = _number(named[key].get("median"))
        if found is not None:
            return found
    value = summary.get(key)
    if isinstance(value, list) and len(value) >= 4:
        return _number(value[3])
    return None


# trtexec's "Inference Options" lines that change what per-layer times mean.
PROFILING_OPTIONS = {"CUDA Graph": "cuda_graph", "Data transfers": "data_transfers",
                     "Spin-wait": "spin_wait", "Separate profiling": "separate_profile_run"}


def logged_conditions(inference_options: dict[str, Any]) -> dict[str, bool]:
    """The profiling conditions a trtexec log states (``CUDA Graph: Enabled`` ...)."""
    out = {}
    for key, ours in PROFILING_OPTIONS.items():
        text = str(inference_options.get(key, "")).strip().lower()
        if text in ("enabled", "disabled"):
            out[ours] = text == "enabled"
    return out


def describe_conditions(state: dict[str, Any]) -> str:
    """What the per-layer times of a run under these conditions are, in words."""
    graph, separate, copies = (state.get(k) for k in ("cuda_graph", "separate_profile_run",
                                                       "data_transfers"))
    text = ("CUDA graph launches" if graph is True else "stream launches" if graph is False
            else "launches not recorded")
    if separate is True:
        text += ", separate profiling run"
    elif separate is False:
        text += ", profiled with the timed run (layer timing adds to the latency)"
    if copies is not None:
        text += "; host-device copies " + ("included" if copies else "excluded")
    return text


def profiling_conditions(plan: EnginePlan) -> dict[str, Any]:
    """How the profile was measured: what ``trex process`` recorded (``trex_profiling``), else
    what the log's Inference Options say; empty when the inputs do not say."""
    if plan.profiling_recorded:
        return dict(plan.profiling_recorded)
    state: dict[str, Any] = dict(logged_conditions(plan.inference_options))
    if state:
        state["source"] = "trtexec log"
        state["per_layer_times"] = describe_conditions(state)
    return state


@dataclass(frozen=True)
class EngineFacts:
    """An engine's headline figures as plain values (None: the inputs do not say)."""

    name: str
    layers: int
    detailed: bool
    profiles: list[int]
    profile_id: int
    latency_ms: float | None  # sum of the layers' average latencies (needs a per-layer profile)
    gpu_compute_median_ms: float | None  # trtexec's performance summary
    latency_median_ms: float | None
    throughput_qps: float | None
    batch_size: int | None
    weights_bytes: int | None
    activations_bytes: int | None  # TREx's figure: every layer's inputs and outputs
    activation_footprint_bytes: int | None  # each activation tensor once
    streams: int
    profile_iterations: int | None
    precision_counts: dict[str, int]
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
    return EngineFacts(
        name=plan.name,
        layers=len(plan.df),
        detailed=detailed,
        profiles=list(plan.profiles),
        profile_id=plan.profile_id,
        latency_ms=plan.total_runtime if plan.has_profile else None,
        gpu_compute_median_ms=measured.gpu_compute_median_ms,
        latency_median_ms=measured.latency_median_ms,
        throughput_qps=measured.throughput_qps,
        batch_size=batch_size(plan),
        weights_bytes=plan.total_weights_size if detailed and plan.weights_known else None,
        activations_bytes=plan.total_act_size if detailed else None,
        activation_footprint_bytes=plan.total_activation_footprint if detailed else None,
        streams=plan.stream_count,
        profile_iterations=plan.profile_count,
        precision_counts=precision_counts(plan),
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
    counts = Counter(p if isinstance(p, str) else "None" for p in plan.df["precision"].tolist()) \
        if len(plan.df) else Counter()
    return dict(counts.most_common())


def precision_mix(plan: EnginePlan) -> str:
    """Layer count per precision, most frequent first: ``INT8 21, FP16 11``."""
    return engine_facts(plan).precision_mix


def has_onnx_metadata(plan: PlanLike) -> bool:
    """True if some layer lists the ONNX nodes it implements (TensorRT 8.6+ ``Metadata``)."""
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
                        "{:.1f}", "MB"),
        "Activations": show(None if facts.activations_bytes is None
                            else facts.activations_bytes / mb, "{:.1f}", "MB"),
    }


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
