"""Compute views: per-layer work, achieved throughput, roofline position, TREx's ``attr.*`` columns.

``annotate_convolutions`` adds TREx's columns to a copy of the Convolution rows: ``attr.macs``,
``attr.M``/``attr.N``/``attr.K`` (implicit GEMM: M = N*P*Q, N = output channels, K = C/G*R*S, so
MACs = M*N*K; TREx's K = C*R*S differs for grouped convolutions), ``attr.arithmetic_intensity``
(MACs per byte), ``attr.compute_efficiency`` (MACs/ms), ``attr.memory_efficiency`` (bytes/ms), and
``attr.kernel``/``attr.groups``/... copies of the raw attributes. Bytes are the padded input and
output sizes plus weights and bias in their own data types (TREx: unpadded, weights in the input's
type).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ..model.layer import Layer
from ..model.plan import EnginePlan
from .costs import layer_cost
from .gpus import GpuPeaks, device_peaks
from .plan_costs import plan_costs

COMPUTE_COLUMNS = ["Name", "type", "precision", "model", "macs", "flops", "M", "N", "K", "bytes_in",
                   "bytes_out", "bytes_weights", "bytes", "arithmetic_intensity", "latency_ms",
                   "achieved_tflops", "achieved_gbps"]


def plan_peaks(plan: EnginePlan, gpu: str | None = None) -> GpuPeaks | None:
    """The peaks used for ``plan``: ``gpu`` from the table if named, else its device metadata."""
    return device_peaks(plan.device, gpu)


def layer_compute(plan: EnginePlan) -> pd.DataFrame:
    """One row per layer of ``plan.df``: MACs, FLOPs, GEMM M/N/K, bytes, intensity, TFLOP/s, GB/s.

    FLOPs count a multiply-add as two operations; intensity is FLOP per byte moved."""
    nan = math.nan
    if isinstance(plan, EnginePlan):  # from the plan's columns, each geometry costed once
        found = plan_costs(plan)
        df = pd.DataFrame({
            "Name": plan.column("Name"), "type": plan.column("type"),
            "precision": plan.column("precision"), "model": found.column("model"),
            "macs": found.ints("macs"), "flops": found.numbers("flops", "float64"),
            "M": found.ints("m"), "N": found.ints("n"), "K": found.ints("k"),
            "bytes_in": found.numbers("bytes_in", "int64"),
            "bytes_out": found.numbers("bytes_out", "int64"),
            "bytes_weights": found.numbers("bytes_weights", "int64"),
        }, columns=COMPUTE_COLUMNS[:12])
    else:  # a selection of layers
        costs = [layer_cost(layer) for layer in plan.layers]
        df = pd.DataFrame({
            "Name": [layer.name for layer in plan.layers],
            "type": [layer.type for layer in plan.layers],
            "precision": [layer.precision for layer in plan.layers],
            "model": [c.model for c in costs],
            "macs": pd.array([c.macs for c in costs], dtype="Int64"),
            "flops": np.array([nan if c.flops is None else c.flops for c in costs],
                              dtype="float64"),
            "M": pd.array([c.m for c in costs], dtype="Int64"),
            "N": pd.array([c.n for c in costs], dtype="Int64"),
            "K": pd.array([c.k for c in costs], dtype="Int64"),
            "bytes_in": np.array([c.bytes_in for c in costs], dtype="int64"),
            "bytes_out": np.array([c.bytes_out for c in costs], dtype="int64"),
            "bytes_weights": np.array([c.bytes_weights for c in costs], dtype="int64"),
        }, columns=COMPUTE_COLUMNS[:12])
    df["bytes"] = df["bytes_in"] + df["bytes_out"] + df["bytes_weights"]
    total = df["bytes"].to_numpy(dtype="float64")
    flops = df["flops"].to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        df["arithmetic_intensity"] = np.where(total > 0, flops / total, nan)
        latency = np.asarray(plan.column("latency.avg_time"), dtype="float64")
        timed = latency > 0
        df["latency_ms"] = latency
        df["achieved_tflops"] = np.where(timed, flops / (latency * 1e9), nan)
        df["achieved_gbps"] = np.where(timed, total / (latency * 1e6), nan)
    return df


# Why a point can lie above its roof; shown with every such point (never silently).
ABOVE_ROOF = ("above its roof: the model counts every tensor once from DRAM at the device's "
              "nominal clocks; caches (L2 re-reads), boost clocks or a peak the device metadata "
              "understates make a layer faster than the model allows")


def roofline(plan: EnginePlan, gpu: str | None = None) -> pd.DataFrame:
    """:func:`layer_compute` plus the math the kernel runs (``math``), the roof that bounds it
    (``roof``: TF32 for FP32 layers on Tensor Cores, ...), its peak, attainable = min(peak,
    intensity x bandwidth), bound, % of roofline and ``roof_note`` (why a point is above its
    roof, else None).

    Memory bound: intensity below the ridge point (peak compute / bandwidth)."""
    df = layer_compute(plan)
    peaks = plan_peaks(plan, gpu)
    if isinstance(plan, EnginePlan):  # the Layers' math_precision, None where unknown (the
        precisions = plan.column("precision")  # df's column has NaN there)
        maths = [m if type(m) is str else None for m in plan.column("math_precision")]
    else:
        precisions = [layer.precision for layer in plan.layers]
        maths = [layer.math_precision for layer in plan.layers]
    df["math"] = maths
    if peaks is None:
        peak = np.full(len(df), math.nan)
        bandwidth = math.nan
        df["roof"] = None
    else:
        memo: dict[tuple[Any, Any], tuple[str, float | None]] = {}  # a few (precision, math)
        roofs = []
        for precision, m in zip(precisions, maths):
            found = memo.get((precision, m))
            if found is None:
                found = memo[(precision, m)] = peaks.roof(precision, m)
            roofs.append(found)
        df["roof"] = [name for name, _ in roofs]
        peak = np.array([math.nan if v is None else v for _, v in roofs], dtype="float64")
        bandwidth = peaks.bandwidth_gbs or math.nan
    ai = df["arithmetic_intensity"].to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        memory_roof = ai * bandwidth / 1000.0  # FLOP/B x GB/s -> TFLOP/s
        attainable = np.fmin(peak, memory_roof)
        attainable = np.where(np.isnan(peak) | np.isnan(memory_roof), np.nan, attainable)
        ridge = peak * 1000.0 / bandwidth
        df["peak_tflops"] = peak
        df["peak_gbps"] = bandwidth
        df["ridge_point"] = ridge
        df["attainable_tflops"] = attainable
        df["bound"] = np.where(np.isnan(ridge) | np.isnan(ai), None,
                               np.where(ai < ridge, "memory", "compute"))
        df["pct_of_roofline"] = 100.0 * df["achieved_tflops"].to_numpy() / attainable
        above = df["pct_of_roofline"].to_numpy() > 100.5
        df["roof_note"] = np.where(above, ABOVE_ROOF, None)
        df["pct_of_peak_compute"] = 100.0 * df["achieved_tflops"].to_numpy() / peak
        df["pct_of_peak_bandwidth"] = 100.0 * df["achieved_gbps"].to_numpy() / bandwidth
    df.attrs["gpu"] = peaks.name if peaks else None
    df.attrs["peaks_source"] = peaks.source if peaks else "no device metadata and no gpu= given"
    return df


def compute_summary(plan: EnginePlan, gpu: str | None = None) -> dict[str, Any]:
    """Engine totals: MACs, FLOPs, bytes, achieved throughput (timed layers), peaks and their source."""
    df = roofline(plan, gpu)
    peaks = plan_peaks(plan, gpu)
    lat = df["latency_ms"].to_numpy(dtype="float64")
    timed = lat > 0
    latency = float(lat[timed].sum())
    flops = float(np.nansum(df["flops"].to_numpy()))
    timed_flops = float(np.nansum(df["flops"].to_numpy()[timed]))
    total_bytes = int(df["bytes"].sum())
    timed_bytes = int(df["bytes"].to_numpy()[timed].sum())
    memory_ms = float(df.loc[df["bound"] == "memory", "latency_ms"].sum())
    bounded_ms = float(df.loc[df["bound"].notna(), "latency_ms"].sum())
    return {
        "layers": len(df),
        "macs": int(df["macs"].sum(skipna=True)),
        "flops": flops,
        "bytes": total_bytes,
        "arithmetic_intensity": flops / total_bytes if total_bytes else math.nan,
        "latency_ms": latency,
        "achieved_tflops": timed_flops / (latency * 1e9) if timed_flops > 0 else math.nan,
        "achieved_gbps": timed_bytes / (latency * 1e6) if timed_bytes > 0 else math.nan,
        "memory_bound_latency_pct": 100.0 * memory_ms / bounded_ms if bounded_ms > 0 else math.nan,
        "layers_without_model": int(df["model"].isin(["opaque", "none"]).sum()),
        "gpu": peaks.name if peaks else None,
        "peaks": {k: v for k, v in vars(peaks).items() if k not in ("name", "source")} if peaks else {},
        "peaks_source": df.attrs["peaks_source"],
    }


# TREx's Convolution attribute columns (df_preprocessing.layer_attributes) copied under attr.* names.
_CONV_ATTRS = {"Groups": "attr.groups", "OutMaps": "attr.out_maps", "Stride": "attr.stride",
               "Kernel": "attr.kernel", "HasBias": "attr.has_bias", "Activation": "attr.activation",
               "HasReLU": "attr.has_relu", "Dilation": "attr.dilation"}


def annotate_convolutions(plan: EnginePlan) -> pd.DataFrame:
    """A copy of the Convolution rows of ``plan.df`` with TREx's ``attr.*`` columns (see module doc).

    Units as TREx: MACs/byte, MACs/ms, bytes/ms; MACs = M*N*K with K = C/G*R*S."""
    df = plan.df
    mask = (df["type"] == "Convolution").to_numpy() if len(df) else np.zeros(0, dtype=bool)
    convs = df[mask].copy()
    for src, dst in _CONV_ATTRS.items():
        if src in convs.columns:
            values = convs[src].tolist()
            convs[dst] = [tuple(v) if isinstance(v, list) else v for v in values]
    return add_convolution_work(convs, [layer for layer, keep in zip(plan.layers, mask) if keep])


def add_convolution_work(convs: pd.DataFrame, layers: list[Layer]) -> pd.DataFrame:
    """Add TREx's ``attr.macs``, ``attr.M/N/K``, intensity and efficiency columns to ``convs``
    (rows of ``df``, one per layer of ``layers``, in the same order); returns ``convs``."""
    costs = [layer_cost(layer) for layer in layers]
    macs = np.array([c.macs or 0 for c in costs], dtype="int64")
    nbytes = np.array([c.bytes for c in costs], dtype="float64")
    latency = convs["latency.avg_time"].to_numpy(dtype="float64")
    timed = latency > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        convs["attr.macs"] = macs
        convs["attr.arithmetic_intensity"] = np.where(nbytes > 0, macs / nbytes, 0.0)
        convs["attr.compute_efficiency"] = np.where(timed, macs / latency, 0.0)
        convs["attr.memory_efficiency"] = np.where(timed, nbytes / latency, 0.0)
    convs["attr.M"] = np.array([c.m or 0 for c in costs], dtype="int64")
    convs["attr.N"] = np.array([c.n or 0 for c in costs], dtype="int64")
    convs["attr.K"] = np.array([c.k or 0 for c in costs], dtype="int64")
    return convs
