"""Compute model: MACs, FLOPs, bytes, arithmetic intensity and a roofline per layer.

Peaks come from the device metadata (SMs, clocks, bus width) or from :data:`GPU_TABLE`.
"""

from __future__ import annotations

from .costs import Cost, layer_cost
from .gpus import GPU_TABLE, SM_RATES, GpuPeaks, device_peaks, gpu_table, lookup_gpu, peaks_from_device
from .roofline import annotate_convolutions, compute_summary, layer_compute, plan_peaks, roofline

__all__ = [
    "GPU_TABLE",
    "SM_RATES",
    "Cost",
    "GpuPeaks",
    "annotate_convolutions",
    "compute_summary",
    "device_peaks",
    "gpu_table",
    "layer_compute",
    "layer_cost",
    "lookup_gpu",
    "peaks_from_device",
    "plan_peaks",
    "roofline",
]
