"""Decode against memory bandwidth: the bytes one step must move over its measured time.

A decode step (one token per sequence) reads every weight once and the whole KV cache once, and
does little arithmetic: its speed limit is the GPU's memory bandwidth. The bytes that must move
per step are the weights (and bias) the export lists (of an MoE layer, only the experts a step
of N tokens can route to: min(experts, N x top-k) of them; of an embedding table, only the rows
a Gather writes), the K and V caches the attention reads (the
cache a cache update writes, where one is found; an engine input that is the cache before the
update is the same memory and counts there), and every other activation tensor once (its largest
view). Divided by the measured step time (trtexec's GPU compute median; else the sum of the layer
averages) this is the bandwidth achieved, against the GPU's peak (``trex.compute.gpus``).

Shown for a decode stage (every attention has one query token) and for any transformer engine
whose arithmetic intensity (FLOP per byte) lies below the GPU's ridge point; never for engines
without transformer blocks.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..model.plan import EnginePlan
from . import layer_roles as R
from .view import transformer_view


@dataclass(frozen=True)
class StepTraffic:
    """The bytes one step moves, its time and the bandwidth achieved against the peak."""

    stage: str  # "decode", "prefill" (shown when memory-bound), or "the engine"
    weights_bytes: int
    kv_cache_bytes: int
    activation_bytes: int
    step_ms: float | None
    time_source: str
    gpu: str | None
    peak_gbs: float | None
    flops: float | None  # the compute model's FLOPs of the step (None: no layer has a model)
    inactive_expert_bytes: int = 0  # MoE experts' weights the step does not read (left out)
    ungathered_bytes: int = 0  # embedding-table rows a Gather does not read (left out)
    ridge: float | None = None  # the GPU's FLOP/byte ridge point (FP16), when known

    @property
    def total_bytes(self) -> int:
        """Weights + KV cache read + activations."""
        return self.weights_bytes + self.kv_cache_bytes + self.activation_bytes

    @property
    def achieved_gbs(self) -> float | None:
        """Bytes per step / step time, in GB/s (10^9 bytes per second)."""
        if not self.step_ms:
            return None
        return self.total_bytes / (self.step_ms * 1e-3) / 1e9

    @property
    def pct_of_peak(self) -> float | None:
        """The achieved bandwidth as a percentage of the GPU's peak."""
        achieved = self.achieved_gbs
        if achieved is None or not self.peak_gbs:
            return None
        return 100.0 * achieved / self.peak_gbs

    @property
    def intensity(self) -> float | None:
        """FLOP per byte of the step."""
        return self.flops / self.total_bytes if self.flops and self.total_bytes else None

    def line(self) -> str:
        """``decode moves 8.2 GB per step in 3.3 ms = 2.48 TB/s, 74 % of the H100 SXM5's
        3.35 TB/s``."""
        step = "step" if self.stage == "decode" else "run"
        text = f"{self.stage} moves {size_text(self.total_bytes)} per {step}"
        achieved = self.achieved_gbs
        if achieved is None:
            return text + " (no measured time: --exportTimes or trtexec's performance summary)"
        text += f" in {self.step_ms:.3g} ms = {rate_text(achieved)}"
        pct = self.pct_of_peak
        if pct is not None and self.peak_gbs:
            text += f", {pct:.0f} % of the {self.gpu}'s {rate_text(self.peak_gbs)}"
        else:
            text += " (no peak bandwidth known: no device metadata and no GPU named)"
        if self.stage != "decode" and self.intensity is not None and self.ridge:
            text += (f"; memory-bound: {self.intensity:.3g} FLOP/B, below the ridge point "
                     f"{self.ridge:.3g}")
        return text

    def as_dict(self) -> dict[str, Any]:
        """The figures as plain values, derived ones included."""
        out = asdict(self)
        out.update(total_bytes=self.total_bytes, achieved_gbs=self.achieved_gbs,
                   pct_of_peak=self.pct_of_peak, intensity=self.intensity, line=self.line())
        return out


def size_text(nbytes: float) -> str:
    """Bytes in decimal units: ``8.2 GB``, ``350 MB``, ``12 kB``."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if nbytes >= scale:
            return f"{nbytes / scale:.3g} {unit}"
    return f"{int(nbytes)} B"


def rate_text(gbs: float) -> str:
    """A bandwidth in GB/s as ``2.48 TB/s`` or ``864 GB/s``."""
    return f"{gbs / 1000:.3g} TB/s" if gbs >= 1000 else f"{gbs:.3g} GB/s"


def step_traffic(plan: EnginePlan, gpu: str | None = None, always: bool = False
                 ) -> StepTraffic | None:
    """The step's traffic and bandwidth (see the module docstring); None for an engine without
    transformer blocks, without weights in the export, or (unless ``always``) neither decode nor
    memory-bound."""
    view = transformer_view(plan)
    if not view or not plan.weights_known:
        return None
    from ..compute.roofline import layer_compute, plan_peaks

    peaks = plan_peaks(plan, gpu)
    kv_names = {name for site in view.sites for name in site.kv_tensors}
    cache_inputs = _cache_inputs(plan, view, kv_names)
    largest = _largest_activations(plan)
    kv = sum(largest.get(n, 0) for n in kv_names)
    activations = sum(size for n, size in largest.items() if n not in kv_names | cache_inputs)
    inactive = _inactive_experts(plan, view)
    ungathered = _ungathered(plan)
    flops_col = layer_compute(plan)["flops"].to_numpy(dtype="float64")
    flops = float(np.nansum(flops_col)) if np.isfinite(flops_col).any() else None
    measured = plan.measured.gpu_compute_median_ms
    if measured:
        step_ms, source = measured, "GPU compute median " + (
            "of the timed iterations" if plan.measured.origin == "timings" else "(trtexec)")
    elif plan.has_profile and plan.total_runtime > 0:
        step_ms, source = plan.total_runtime, "sum of the layers' average times"
    else:
        step_ms, source = None, "no measured time"
    traffic = StepTraffic(
        stage=view.stage or "the engine",
        weights_bytes=int(plan.total_weights_size) - inactive - ungathered,
        kv_cache_bytes=int(kv),
        activation_bytes=int(activations), step_ms=step_ms, time_source=source,
        gpu=peaks.name if peaks else None,
        peak_gbs=peaks.bandwidth_gbs if peaks and peaks.bandwidth_gbs else None, flops=flops,
        inactive_expert_bytes=inactive, ungathered_bytes=ungathered,
        ridge=peaks.ridge_point if peaks else None)
    if always or view.stage == "decode":
        return traffic
    ridge, intensity = traffic.ridge, traffic.intensity
    if ridge and intensity is not None and intensity < ridge:
        return traffic
    return None


def _inactive_experts(plan: EnginePlan, view: Any) -> int:
    """Bytes of MoE expert weights a step leaves unread: of ``NumExperts`` experts, a step of
    ``tokens`` tokens routed to ``TopK`` each reads at most min(experts, tokens x top-k)."""
    table, rows = plan.table, plan.rows
    unread = 0
    for pos, role in enumerate(view.roles):
        if role != R.MOE:
            continue
        layer = plan.layers[pos]
        attrs = layer.attributes
        experts, top_k = _count(attrs.get("NumExperts")), _count(attrs.get("TopK"))
        if not experts or not top_k or not layer.inputs:
            continue
        tokens = math.prod(max(int(d), 1) for d in layer.inputs[0].shape[:-1])
        active = min(experts, tokens * top_k)
        weights = table.weights_bytes[rows[pos]] + table.bias_bytes[rows[pos]]
        unread += int(weights * (experts - active) / experts)
    return unread


def _ungathered(plan: EnginePlan) -> int:
    """Bytes of weight tables (embeddings) that Gather layers do not read: a gather reads the
    rows it writes, not the whole table."""
    table, rows = plan.table, plan.rows
    unread = 0
    for i in rows:
        if table.types[i] != "Gather":
            continue
        weights = sum(t.size_bytes for t in table.constant_inputs(i))
        unread += max(0, weights - table.out_bytes[i])
    return unread


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _largest_activations(plan: EnginePlan) -> dict[str, int]:
    """Activation tensor name -> bytes of its largest view over the plan's layers (constants
    left out): the footprint of :meth:`~trex.model.table.LayerTable.activation_footprint`, by
    name."""
    table = plan.table
    wanted = np.zeros(len(table), dtype=bool)
    wanted[np.asarray(plan.rows, dtype=np.int64)] = True
    uses = np.flatnonzero(wanted[table.use_row] & ~table.constant)
    shape = table.use_shape.copy()
    for use, source in table.alias.items():
        shape[use] = table.use_shape[source]
    sizes, names = table.shape_size, table.tensor_names
    largest: dict[str, int] = {}
    for name, sid in zip(table.use_name[uses].tolist(), shape[uses].tolist()):
        key = names[name]
        if sizes[sid] > largest.get(key, -1):
            largest[key] = sizes[sid]
    return largest


def _cache_inputs(plan: EnginePlan, view: Any, kv_names: set[str]) -> set[str]:
    """Engine inputs the cache updates read as the cache before the update (same memory): those
    shaped like the cache (a write index or length is an activation)."""
    table, rows = plan.table, plan.rows
    inputs = {t.name for t in plan.get_bindings()[0]}
    out: set[str] = set()
    for block in view.blocks:
        for pos in block.kv_cache.positions:
            ranks = {len(t.shape) for t in table.outputs(rows[pos])}
            out.update(t.name for t in table.inputs(rows[pos])
                       if t.name in inputs and len(t.shape) >= 3 and len(t.shape) in ranks)
    return out - kv_names


