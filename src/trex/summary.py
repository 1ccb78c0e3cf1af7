"""Summary views of a plan: model facts, latency per type/precision, slowest layers, tactics.

Each function returns a dict or a DataFrame; the CLI and notebooks decide how to show them.
"""

from __future__ import annotations

import re
from typing import Any, Literal

import numpy as np
import pandas as pd

from .model.facts import MISSING, engine_facts, profile_caution, show, summary_dict
from .model.latency import group_latency
from .model.plan import EnginePlan

_TACTIC_HASH_RE = re.compile(r"_0x[0-9a-fA-F]+$")


def model_summary(plan: EnginePlan) -> dict[str, Any]:
    """The plan's headline facts (:func:`~trex.model.facts.engine_facts`) as plain values, with
    its device, builder configuration, performance summary and warnings; missing figures are None."""
    facts = engine_facts(plan)
    latency = facts.latency_ms
    return {
        "name": facts.name,
        "inputs": facts.inputs,
        "outputs": facts.outputs,
        "io_tensors": facts.io_tensors,
        "layers": facts.layers,
        "detailed": facts.detailed,
        "profiles": facts.profiles,
        "profile_id": facts.profile_id,
        "average_time_ms": round(latency, 6) if latency is not None else None,
        "gpu_compute_median_ms": facts.gpu_compute_median_ms,
        "latency_median_ms": facts.latency_median_ms,
        "throughput_qps": facts.throughput_qps,
        "batch_size": facts.batch_size,
        "weights_bytes": facts.weights_bytes,
        "weights_not_exported": facts.weights_not_exported,
        "activations_bytes": facts.activations_bytes,
        "activation_footprint_bytes": facts.activation_footprint_bytes,
        "precision_mix": facts.precision_mix,
        "math_mix": facts.math_mix,
        "streams": facts.streams,
        "profile_iterations": facts.profile_iterations,
        "tensorrt_version": facts.tensorrt_version,
        "device": plan.device_properties,
        "builder_config": plan.builder_cfg,
        "performance_summary": plan.performance_summary,
        "warnings": plan.warnings,
        "trex_summary": summary_dict(plan),
    }


def _grouped(plan: EnginePlan, column: str, values: list[str] | None = None) -> pd.DataFrame:
    """Layers per value of ``column``: count, timed, summed average latency (NaN when none of
    them is timed) and share (:func:`~trex.model.latency.group_latency`)."""
    keys = values if values is not None else \
        [v if isinstance(v, str) else "None" for v in plan.column(column)]
    return group_latency({column: keys}, np.asarray(plan.column("latency.avg_time"),
                                                    dtype="float64"))


def latency_by_type(plan: EnginePlan) -> pd.DataFrame:
    """Layer count, timed layers, summed average latency (ms) and share of latency per layer type."""
    return _grouped(plan, "type")


def latency_by_precision(plan: EnginePlan) -> pd.DataFrame:
    """Layer count, timed layers, summed average latency (ms) and share of latency per precision."""
    return _grouped(plan, "precision")


def latency_by_math_precision(plan: EnginePlan) -> pd.DataFrame:
    """The same per math precision (``TF32 HMMA``, ``FP32 FFMA``, ...): the math the kernels run,
    which explains why an FP32 engine on Tensor Cores is not 8x slower than FP16."""
    return _grouped(plan, "math_precision")


def slowest_layers(plan: EnginePlan, n: int = 10) -> pd.DataFrame:
    """The ``n`` timed layers with the largest average latency (none without a profile)."""
    cols = ["Name", "type", "precision", "latency.avg_time", "latency.pct_time", "tactic"]
    avg = np.asarray(plan.column("latency.avg_time"), dtype="float64")
    if not len(avg) or np.isnan(avg).all():
        return pd.DataFrame(columns=cols)
    # the n largest (ties in engine order, NaN never), then a frame of those rows only
    timed = np.flatnonzero(~np.isnan(avg))
    top = timed[np.argsort(-avg[timed], kind="stable")[:max(n, 0)]].tolist()
    columns = {c: plan.column(c) for c in cols}
    if not top:  # an empty frame with the columns' own types
        return pd.DataFrame(columns).iloc[:0]
    return pd.DataFrame({c: [values[i] for i in top] for c, values in columns.items()})


def tactic_summary(
    plan: EnginePlan,
    group_tactics: bool = False,
    sort_key: Literal["count", "latency", "id"] = "count",
) -> pd.DataFrame:
    """Per tactic (kernel): layer count, timed layers, summed latency (ms) and share of the total.

    ``latency_pct`` is the tactic's share of the summed layer latency, as in every other trex
    table; a tactic none of whose layers is timed has no latency (NaN). With ``group_tactics`` the
    ``_0x...`` hash that tells individual kernels apart is removed, so kernel families are counted
    together. ``sort_key``: ``count`` (most layers first), ``latency`` (slowest first) or ``id``
    (engine order).
    """
    tactics = [str(t) for t in plan.column("tactic")]
    if group_tactics:  # a few kernels repeated over the layers: each one's family found once
        family = {t: _TACTIC_HASH_RE.sub("", t) for t in set(tactics)}
        tactics = [family[t] for t in tactics]
    out = _grouped(plan, "tactic", tactics)
    if sort_key == "count":
        out = out.sort_values(["count", "latency_ms"], ascending=False, na_position="last",
                              ignore_index=True)
    elif sort_key == "id":
        order = {t: i for i, t in enumerate(dict.fromkeys(tactics))}
        out = out.sort_values("tactic", key=lambda s: s.map(order), ignore_index=True)
    return out


# ------------------------------------------------------------------ text for the summary's header
def _ms(value: float | None) -> str:
    return show(value, "{:.4f}", "ms")


def _bytes(value: int | None) -> str:
    return show(value, "{:,}", "B")


def headline_rows(plan: EnginePlan) -> dict[str, str]:
    """The summary's header as labelled text: every figure with its unit, "–" when unknown."""
    facts = engine_facts(plan)
    rows = {
        "Inputs": ", ".join(facts.inputs) or MISSING,
        "Outputs": ", ".join(facts.outputs) or MISSING,
        "Layers": str(facts.layers),
        "Latency": (f"{_ms(facts.latency_ms)} (sum of layer averages" +
                    ("" if facts.timed_layers == facts.layers else
                     f"; {facts.timed_layers} of {facts.layers} layers timed") + ")"
                    if facts.latency_ms is not None
                    else f"{MISSING} (no per-layer profile: --exportProfile)"),
        "Measured": ", ".join(f"{label} {value}" for label, value in (
            ("latency median", _ms(facts.latency_median_ms)),
            ("GPU compute median", _ms(facts.gpu_compute_median_ms)),
            ("throughput", MISSING if facts.throughput_qps is None
             else f"{facts.throughput_qps:.2f} qps")))
        + (" (trtexec's performance summary)" if plan.measured.origin == "summary" else
           f" ({plan.measured.source.split(' of ')[0]} of --exportTimes)")
        if plan.measured.available else f"{MISSING} (no trtexec performance summary or timings)",
        "Weights": _bytes(facts.weights_bytes) + (
            f" + not exported in {len(facts.weights_not_exported)} Myelin layer(s): "
            f"{', '.join(facts.weights_not_exported[:3])}"
            f"{', ...' if len(facts.weights_not_exported) > 3 else ''}"
            if facts.weights_not_exported else ""),
        "Activations": (f"{_bytes(facts.activations_bytes)} (TREx: per layer I/O); "
                        f"{_bytes(facts.activation_footprint_bytes)} unique tensors"),
        "Precisions": facts.precision_text,
        "Math": (f"{facts.math_mix} (the math the kernels run)" if facts.math_mix
                 else f"{MISSING} (no kernel names: --profilingVerbosity=detailed)"),
    }
    if len(facts.profiles) > 1:
        rows["Profiles"] = (f"{', '.join(map(str, facts.profiles))} "
                            f"(showing profile {facts.profile_id})")
    if facts.streams > 1:
        rows["Streams"] = str(facts.streams)
    if facts.tensorrt_version:
        rows["TensorRT"] = facts.tensorrt_version
    if facts.profiling:
        rows["Profiled with"] = str(facts.profiling.get("per_layer_times", ""))
    rows.update(transformer_rows(plan))
    caution = profile_caution(facts.profile_iterations) if facts.latency_ms is not None else ""
    if caution:
        rows["Caution"] = caution
    for tensor in plan.io_tensors:
        for shapes in tensor.profiles:
            rows[f"{tensor.mode} {tensor.name} [profile {shapes.profile}]"] = (
                f"min {shapes.min}, opt {shapes.opt}, max {shapes.max}"
                + (f", {shapes.format}" if shapes.format else ""))
    return rows


def transformer_rows(plan: EnginePlan) -> dict[str, str]:
    """``Transformer`` (the blocks, attention fused or decomposed, RoPE, KV cache, stage) and
    ``Decode bandwidth`` (bytes per step over the step time against the GPU's peak); nothing for
    an engine without transformer blocks."""
    from .transformer import step_traffic, transformer_view, view_text

    view = transformer_view(plan)
    if not view:
        return {}
    rows = {"Transformer": view_text(view)}
    traffic = step_traffic(plan)
    if traffic is not None:
        label = "Decode bandwidth" if traffic.stage == "decode" else "Memory bandwidth"
        rows[label] = (f"{traffic.line()} (weights {traffic.weights_bytes:,} B + KV cache "
                       f"{traffic.kv_cache_bytes:,} B + activations {traffic.activation_bytes:,} B"
                       f"; time: {traffic.time_source})")
    return rows


def transformer_summary(plan: EnginePlan) -> dict[str, Any] | None:
    """The transformer view as plain values (``trex summary -f json``): the one-line text, the
    stage, the blocks and the step's traffic; None without transformer blocks."""
    from .transformer import blocks_frame, step_traffic, transformer_view, view_text

    view = transformer_view(plan)
    if not view:
        return None
    traffic = step_traffic(plan)
    return {"text": view_text(view), "stage": view.stage, "grouping": view.grouping,
            "blocks": blocks_frame(plan).to_dict("records"),
            "bandwidth": traffic.as_dict() if traffic is not None else None}


def device_rows(plan: EnginePlan) -> dict[str, str]:
    """The GPU's properties with their units (from the device metadata or log)."""
    device = plan.device
    if device is None:
        return {}
    rows = {
        "Device": device.name,
        "Compute capability": None if device.compute_capability is None
        else f"{device.compute_capability:.1f}",
        "SMs": device.sms,
        "Compute clock": None if device.compute_clock_ghz is None
        else f"{device.compute_clock_ghz:g} GHz",
        "Memory clock": None if device.memory_clock_ghz is None
        else f"{device.memory_clock_ghz:g} GHz",
        "Memory": None if device.global_memory_bytes is None
        else f"{device.global_memory_bytes / 2**20:,.0f} MiB",
        "Memory bus width": None if device.memory_bus_width_bits is None
        else f"{device.memory_bus_width_bits} bits",
        "Shared memory per SM": None if device.shared_memory_per_sm_bytes is None
        else f"{device.shared_memory_per_sm_bytes / 1024:g} KiB",
    }
    return {k: str(v) for k, v in rows.items() if v is not None}


_STAT_NAMES = ("min", "max", "mean", "median")
_SECONDS = {"Total Host Walltime", "Total GPU Compute Time"}


def performance_rows(plan: EnginePlan) -> dict[str, str]:
    """trtexec's performance summary with every statistic named and every figure with its unit."""
    summary = plan.performance_summary
    named = summary.get("percentiles") if isinstance(summary.get("percentiles"), dict) else {}
    rows: dict[str, str] = {}
    for key, value in summary.items():
        if key == "percentiles":
            continue
        if key in named and isinstance(named[key], dict):
            stats = named[key]
            rows[key] = ", ".join(f"{k} {v:.4g}" for k, v in stats.items()) + " ms"
        elif isinstance(value, list):
            labels = list(_STAT_NAMES) + (["p90", "p95", "p99"] if len(value) == 7 else
                                          ["p99"] if len(value) == 5 else [])
            if len(labels) != len(value):
                labels = [f"#{i + 1}" for i in range(len(value))]
            rows[key] = ", ".join(f"{label} {v:.4g}" if isinstance(v, (int, float)) else
                                  f"{label} {v}" for label, v in zip(labels, value)) + " ms"
        elif key == "Throughput" and isinstance(value, (int, float)):
            rows[key] = f"{value:g} qps"
        elif key in _SECONDS and isinstance(value, (int, float)):
            rows[key] = f"{value:g} s"
        else:
            rows[key] = str(value)
    return rows
