"""Peak compute and memory bandwidth of GPUs: derived from device metadata, else from a table.

Figures are dense (no structured sparsity). Derived peaks are ``SMs x clock x per-SM rate`` with the
per-SM rates of each architecture; memory bandwidth is ``2 x memory clock (GHz) x bus width (bits)
/ 8`` GB/s (double data rate, as trtexec reports the clock of HBM and GDDR alike).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..formats.records import DeviceInfo


@dataclass(frozen=True)
class GpuPeaks:
    """Peak dense throughput per precision (TFLOP/s or TOP/s) and memory bandwidth (GB/s)."""

    name: str
    fp32_tflops: float | None
    fp16_tflops: float | None  # Tensor Cores (FP16 accumulate on GeForce parts)
    int8_tops: float | None
    bandwidth_gbs: float | None
    tf32_tflops: float | None = None
    fp8_tflops: float | None = None
    source: str = ""

    def roof(self, precision: str | None, math: str | None = None) -> tuple[str, float | None]:
        """(roof name, peak TFLOP/s or TOP/s) that bounds a layer: by the math its kernel runs
        (``TF32 HMMA`` -> the TF32 Tensor Core peak, ``INT8 DP4A`` -> 4x the FP32 rate, ``FP16
        HFMA2`` -> 2x), else by its precision (Tensor Core peaks for FP16/BF16/INT8/FP8)."""
        math_kind = math.split(" ", 1) if math else []
        p = (math_kind[0] if math_kind else precision or "").upper()
        on_cuda_cores = len(math_kind) == 2 and math_kind[1] not in (
            "HMMA", "IMMA", "GMMA", "MMA", "Tensor Cores")
        fp32 = self.fp32_tflops
        if p == "TF32":
            return "TF32", self.tf32_tflops
        if p == "FP32":
            return "FP32", fp32
        if on_cuda_cores and p in ("FP16", "BF16"):
            return f"{p} CUDA cores", None if fp32 is None else 2 * fp32
        if on_cuda_cores and p in ("INT8", "UINT8"):
            return "INT8 DP4A", None if fp32 is None else 4 * fp32
        if p in ("FP16", "BF16"):
            return "FP16", self.fp16_tflops
        if p in ("INT8", "UINT8"):
            return "INT8", self.int8_tops
        if p == "FP8":
            return "FP8", self.fp8_tflops
        return p or "unknown", None

    def compute_peak(self, precision: str | None, tactic: str = "") -> float | None:
        """The peak that bounds a layer of this precision whose kernel is ``tactic`` (see
        :meth:`roof`)."""
        from ..kernels import math_precision

        return self.roof(precision, math_precision(tactic) if tactic else None)[1]

    @property
    def ridge_point(self) -> float | None:
        """FP16 ridge point in FLOP/byte (peak compute / bandwidth)."""
        if self.fp16_tflops and self.bandwidth_gbs:
            return self.fp16_tflops * 1000 / self.bandwidth_gbs
        return None


# Dense operations per clock per SM: (FP32 FMA x2, FP16 Tensor Core, INT8, FP8), by compute capability.
# Sources: CUDA C Programming Guide arithmetic-instruction throughput table; NVIDIA Volta, Turing,
# Ampere (GA100, GA102), Ada and Hopper architecture whitepapers. INT8 on 6.1/7.0 is DP4A.
SM_RATES: dict[tuple[int, int], tuple[int, int | None, int | None, int | None]] = {
    (6, 0): (128, 256, None, None),
    (6, 1): (256, None, 1024, None),
    (7, 0): (128, 1024, 512, None),
    (7, 2): (128, 1024, 2048, None),
    (7, 5): (128, 1024, 2048, None),
    (8, 0): (128, 2048, 4096, None),
    (8, 6): (256, 1024, 2048, None),
    (8, 7): (256, 2048, 4096, None),
    (8, 9): (256, 1024, 2048, 2048),
    (9, 0): (256, 4096, 8192, 8192),
}

_DS = "datasheet (dense; half of the sparsity figures)"
# name -> peaks. FP16 is Tensor Core throughput; GeForce figures use FP16 accumulation.
GPU_TABLE: dict[str, GpuPeaks] = {g.name: g for g in (
    GpuPeaks("A100 SXM4 80GB", 19.5, 312, 624, 2039, 156, None, f"NVIDIA A100 {_DS}"),
    GpuPeaks("A100 SXM4 40GB", 19.5, 312, 624, 1555, 156, None, f"NVIDIA A100 {_DS}"),
    GpuPeaks("A100 PCIe 80GB", 19.5, 312, 624, 1935, 156, None, f"NVIDIA A100 {_DS}"),
    GpuPeaks("A100 PCIe 40GB", 19.5, 312, 624, 1555, 156, None, f"NVIDIA A100 {_DS}"),
    GpuPeaks("H100 SXM5", 67, 989.4, 1978.9, 3350, 494.7, 1978.9, f"NVIDIA H100 {_DS}"),
    GpuPeaks("H100 PCIe", 51, 756.5, 1513, 2000, 378, 1513, f"NVIDIA H100 {_DS}"),
    GpuPeaks("H200 SXM", 67, 989.5, 1979, 4800, 494.5, 1979, f"NVIDIA H200 {_DS}"),
    GpuPeaks("B200", 75, 2250, 4500, 8000, 1125, 4500,
             f"NVIDIA HGX B200 {_DS}, per GPU (one eighth of the 8-GPU figures)"),
    GpuPeaks("L40S", 91.6, 362.05, 733, 864, 183, 733, f"NVIDIA L40S {_DS}"),
    GpuPeaks("L4", 30.3, 121, 242.5, 300, 60, 242.5, f"NVIDIA L4 {_DS}"),
    GpuPeaks("A10", 31.2, 125, 250, 600, 62.5, None, f"NVIDIA A10 {_DS}"),
    GpuPeaks("A30", 10.3, 165, 330, 933, 82, None, f"NVIDIA A30 {_DS}"),
    GpuPeaks("T4", 8.1, 65, 130, 320, None, None, "NVIDIA T4 datasheet"),
    GpuPeaks("V100 SXM2", 15.7, 125, 62.8, 900, None, None,
             "NVIDIA V100 datasheet; INT8 by DP4A (4x FP32 rate), no INT8 Tensor Cores"),
    GpuPeaks("TITAN RTX", 16.3, 130.5, 261, 672, None, None,
             "NVIDIA Turing architecture whitepaper (TITAN RTX, FP16 accumulate)"),
    GpuPeaks("RTX 2080 Ti", 13.4, 107.6, 215.2, 616, None, None,
             "NVIDIA Turing architecture whitepaper (FP16 accumulate)"),
    GpuPeaks("RTX 3080", 29.8, 119, 238, 760, 29.8, None,
             "NVIDIA Ampere GA102 whitepaper (RTX 3080, FP16 accumulate)"),
    GpuPeaks("RTX 3090", 35.6, 142, 284, 936, 35.6, None,
             "NVIDIA Ampere GA102 whitepaper (RTX 3090, FP16 accumulate)"),
    GpuPeaks("RTX 3060 Laptop GPU", 13.1, 52.3, 104.6, 336, 13.1, None,
             "GeForce RTX 3060 Laptop specifications (30 SMs, up to 1.703 GHz, 192-bit 14 Gbps) "
             "x GA10x per-SM rates of the Ampere GA102 whitepaper"),
    GpuPeaks("RTX 4090", 82.6, 330.3, 660.6, 1008, 82.6, 660.6,
             "NVIDIA Ada Lovelace architecture whitepaper (RTX 4090, FP16 accumulate)"),
    GpuPeaks("Jetson AGX Orin 64GB", 5.3, 42.5, 85, 204.8, 21.3, None,
             "NVIDIA Jetson AGX Orin datasheet (GPU only; dense = half the sparse INT8 TOPS)"),
)}


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower().replace("nvidia", "").replace("geforce", "")
                  .replace("tesla", "")).strip()


def lookup_gpu(name: str) -> GpuPeaks | None:
    """The table entry whose name best matches ``name`` (e.g. "NVIDIA A100 80GB PCIe" -> A100 PCIe 80GB)."""
    wanted = set(_norm(name).split())
    if not wanted:
        return None
    best, best_score = None, 0.0
    for key, peaks in GPU_TABLE.items():
        words = _norm(key).split()
        model = words[0]  # "a100", "rtx", "titan", "l4", ...
        if model not in wanted:
            continue
        if model in ("rtx", "titan", "jetson") and not set(words[1:2]) <= wanted:
            continue
        score = len(wanted & set(words)) / len(words)
        if score > best_score:
            best, best_score = peaks, score
    return best


def peaks_from_device(device: DeviceInfo) -> GpuPeaks | None:
    """Peaks derived from SM count, clocks, compute capability and memory bus of the device."""
    bandwidth = None
    if device.memory_clock_ghz and device.memory_bus_width_bits:
        bandwidth = round(2 * device.memory_clock_ghz * device.memory_bus_width_bits / 8, 1)
    cc = device.compute_capability
    rates = None
    if cc is not None:
        major = int(cc)
        minor = int(round((cc - major) * 10))
        rates = SM_RATES.get((major, minor))
    if not (rates and device.sms and device.compute_clock_ghz):
        return None if bandwidth is None else GpuPeaks(
            device.name or "unknown GPU", None, None, None, bandwidth,
            source="memory clock and bus width of the device metadata; no per-SM rates for "
                   f"compute capability {cc}")
    scale = device.sms * device.compute_clock_ghz / 1000  # x ops/clk/SM -> TFLOP/s
    fp32, fp16, int8, fp8 = (None if r is None else round(r * scale, 1) for r in rates)
    tf32 = None
    if cc is not None and cc >= 8.0 and fp16:
        tf32 = round(fp16 / (4 if (int(cc), int(round((cc - int(cc)) * 10))) in ((8, 6), (8, 9))
                             else 2), 1)
    return GpuPeaks(
        device.name or "unknown GPU", fp32, fp16, int8, bandwidth, tf32, fp8,
        source=f"device metadata: {device.sms} SMs x {device.compute_clock_ghz} GHz x per-SM rates of "
               f"compute capability {cc}; bandwidth 2 x {device.memory_clock_ghz} GHz x "
               f"{device.memory_bus_width_bits} bits / 8")


def device_peaks(device: DeviceInfo | None = None, gpu: str | None = None) -> GpuPeaks | None:
    """Peaks for ``gpu`` (a table name) if given, else derived from ``device``, else its table entry."""
    if gpu:
        return lookup_gpu(gpu)
    if device is None:
        return None
    derived = peaks_from_device(device)
    if derived is not None and derived.fp16_tflops is not None:
        return derived
    table = lookup_gpu(device.name) if device.name else None
    if table is None:
        return derived
    if derived is not None and derived.bandwidth_gbs:
        return replace(table, bandwidth_gbs=derived.bandwidth_gbs,
                       source=f"{table.source}; bandwidth from device metadata")
    return table


def gpu_table() -> list[dict]:
    """The table of common GPUs as records (one dict per GPU)."""
    return [vars(g).copy() for g in GPU_TABLE.values()]
