"""Compute model on real engines: TREx's attr.* columns, MACs/bytes per layer kind, peaks, roofline."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import trex
from trex.compute import (
    GPU_TABLE,
    annotate_convolutions,
    compute_summary,
    device_peaks,
    gpu_table,
    layer_compute,
    lookup_gpu,
    roofline,
)
from trex.formats.records import DeviceInfo

warnings.simplefilter("ignore", trex.TrexWarning)


def test_trex_attr_columns_first_mobilenet_conv(plan):
    p = plan("trex-mobilenet-qat")
    columns = list(p.df.columns)
    convs = annotate_convolutions(p)
    assert list(p.df.columns) == columns  # a copy: plan.df keeps its columns
    assert len(convs) == 53
    first = convs.iloc[0]
    assert (first["attr.macs"], first["attr.M"], first["attr.N"], first["attr.K"]) == \
        (10_838_016, 12544, 32, 27)
    assert first["attr.kernel"] == (3, 3) and first["attr.groups"] == 1
    # TREx's units: MACs per byte, MACs per ms, bytes per ms (bytes: 200,704 in + 401,408 out + 992).
    assert first["attr.arithmetic_intensity"] == pytest.approx(10_838_016 / 603_104)
    assert first["attr.compute_efficiency"] == pytest.approx(10_838_016 / first["latency.avg_time"])
    assert first["attr.memory_efficiency"] == pytest.approx(603_104 / first["latency.avg_time"])
    for col in ("attr.macs", "attr.M", "attr.N", "attr.K"):
        assert convs[col].dtype == "int64"
    assert (convs["attr.macs"] == convs["attr.M"] * convs["attr.N"] * convs["attr.K"]).all()


def test_grouped_and_depthwise_convolutions(plan):
    convs = annotate_convolutions(plan("trex-mobilenet-qat"))
    depthwise = convs.iloc[1]  # 32 groups of one channel, 3x3
    assert depthwise["attr.groups"] == 32
    # K is the reduction per output, C/G*R*S = 9 (TREx's C*R*S = 288 is not a GEMM dimension).
    assert (depthwise["attr.M"], depthwise["attr.N"], depthwise["attr.K"]) == (12544, 32, 9)
    assert depthwise["attr.macs"] == 3_612_672
    assert convs["attr.macs"].sum() == 300_774_272


def test_convactpool_gemm_and_folded_reshape(plan):
    resnet50 = layer_compute(plan("trt8.6-resnet50-int8"))
    cap = resnet50.iloc[1]  # 7x7/2 conv (112x112 before the 3x3/2 max-pool) + ReLU + MaxPool
    assert cap["model"] == "convactpool"
    assert (cap["M"], cap["N"], cap["K"], cap["macs"]) == (12544, 64, 147, 118_013_952)
    alexnet = layer_compute(plan("trt10.4-alexnet-fp16"))
    gemm = alexnet[alexnet["type"] == "gemm"].iloc[0]
    assert (gemm["M"], gemm["N"], gemm["K"], gemm["macs"]) == (1, 4096, 9216, 37_748_736)
    # B [9216, 4096] Half, two FP32 scales and the [1, 4096] Half bias are constant inputs:
    # weights, not activations; the activation read is A [1, 9216] Half
    assert gemm["bytes_in"] == 9216 * 2
    assert gemm["bytes_weights"] == 9216 * 4096 * 2 + 2 * 4 + 4096 * 2
    # Torch-TensorRT: the conv's input is the folded reshape's [1, 256, 6, 6]; weights say K = 9216.
    fc = layer_compute(plan("torchtrt-alexnet-fp16")).iloc[10]
    assert (fc["M"], fc["N"], fc["K"]) == (1, 4096, 9216)
    # A Myelin gemm without its B operand: weights estimated as K x N FP32 values.
    mnist = layer_compute(plan("trt10.16-mnist-fp32"))
    linear = mnist[mnist["type"] == "gemm"].iloc[0]
    assert (linear["K"], linear["N"], linear["bytes_weights"]) == (3136, 1024, 3136 * 1024 * 4)
    assert set(mnist["model"]) == {"conv", "pool", "gemm", "opaque"}


def test_pooling_reformat_and_opaque_layers(plan):
    df = layer_compute(plan("a100-resnet18-qat"))
    maxpool = df[df["Name"] == "MaxPool_12"].iloc[0]
    assert maxpool["model"] == "pool" and pd.isna(maxpool["macs"])
    assert maxpool["flops"] == 32 * 64 * 56 * 56 * 9
    reformat = df.iloc[0]
    assert reformat["model"] == "reformat" and reformat["flops"] == 0
    assert reformat["bytes"] == 32 * 3 * 224 * 224 * 4 + 32 * 4 * 224 * 224  # NC/4HW4 INT8 padding
    names_only = layer_compute(plan("trt10-detr-int8-names-only"))
    assert len(names_only) == 840 and names_only["macs"].isna().all()


def test_peaks_from_device_metadata(plan):
    a100 = device_peaks(plan("a100-resnet18-qat").device)
    assert (a100.fp32_tflops, a100.tf32_tflops, a100.fp16_tflops, a100.int8_tops) == \
        (19.5, 155.9, 311.9, 623.7)
    assert a100.bandwidth_gbs == 1935.4  # 2 x 1.512 GHz x 5120 bits / 8
    assert "108 SMs" in a100.source
    titan = device_peaks(plan("trex-mobilenet-qat").device)
    assert (titan.fp16_tflops, titan.int8_tops, titan.bandwidth_gbs) == (130.5, 261.0, 672.1)
    assert device_peaks(plan("trt8.6-resnet50-int8").device).bandwidth_gbs == 760.1  # RTX 3080
    h100 = device_peaks(plan("trt10.16-mnist-fp32").device)
    assert (h100.fp32_tflops, h100.bandwidth_gbs, h100.fp8_tflops) == (51.2, 2039.0, 1639.0)
    assert device_peaks(None) is None
    # No per-SM rates for an unknown architecture: the table entry of its name, bandwidth kept.
    odd = DeviceInfo(name="NVIDIA A100 80GB PCIe", compute_capability=12.3, sms=10,
                     compute_clock_ghz=1.0, memory_clock_ghz=1.512, memory_bus_width_bits=5120)
    peaks = device_peaks(odd)
    assert peaks.fp16_tflops == 312 and peaks.bandwidth_gbs == 1935.4


def test_gpu_table():
    assert lookup_gpu("NVIDIA A100 80GB PCIe").name == "A100 PCIe 80GB"
    assert lookup_gpu("Tesla T4").name == "T4"
    assert lookup_gpu("NVIDIA L4").name == "L4"
    assert lookup_gpu("NVIDIA GeForce RTX 3060 Laptop GPU").name == "RTX 3060 Laptop GPU"
    assert lookup_gpu("NVIDIA TITAN RTX").name == "TITAN RTX"
    assert lookup_gpu("NVIDIA H100 PCIe").name == "H100 PCIe"
    assert lookup_gpu("unknown accelerator") is None
    for needed in ("A100 SXM4 80GB", "H100 SXM5", "L4", "T4", "A10", "RTX 3060 Laptop GPU", "RTX 3080",
                   "TITAN RTX"):
        assert needed in GPU_TABLE
    for row in gpu_table():
        assert row["source"] and row["fp32_tflops"] and row["fp16_tflops"] and row["bandwidth_gbs"]


def test_roofline(plan):
    df = roofline(plan("trt10.4-alexnet-fp16"))
    assert df.attrs["gpu"] == "NVIDIA GeForce RTX 3060 Laptop GPU"
    gemm = df[df["type"] == "gemm"].iloc[0]
    # a GEMV kernel (cuBLAS gemvx) on CUDA cores: FP16 at twice the FP32 rate, not the Tensor Core
    # peak; memory bound either way. FP32: SMs x clock x 256 (compute capability 8.6) per second.
    device = plan("trt10.4-alexnet-fp16").device
    fp32 = round(device.sms * device.compute_clock_ghz * 256 / 1000, 1)
    assert gemm["math"] == "FP16 GEMV" and gemm["roof"] == "FP16 CUDA cores"
    assert gemm["bound"] == "memory" and gemm["peak_tflops"] == 2 * fp32 == 21.8
    assert gemm["achieved_gbps"] == pytest.approx(315.28, abs=0.01)
    assert gemm["pct_of_roofline"] == pytest.approx(93.83, abs=0.01)
    convs = df[df["type"] == "Convolution"]
    assert (convs["bound"] == "compute").all()
    assert convs["pct_of_roofline"].round(2).tolist() == [13.19, 38.98, 27.29, 26.91, 22.68]
    # Achieved never exceeds the attainable roofline on a real engine.
    ratio = (df["achieved_tflops"] / df["attainable_tflops"]).dropna()
    assert (ratio[np.isfinite(ratio)] <= 1.0).all()
    # No device metadata: peaks come from the table when named, else stay unknown.
    torch_trt = plan("torchtrt-alexnet-fp16")
    assert roofline(torch_trt)["peak_tflops"].isna().all()
    t4 = roofline(torch_trt, gpu="T4")
    assert t4.attrs["peaks_source"] == "NVIDIA T4 datasheet"
    # FP16 Tensor Core layers: the T4's 65 TFLOP/s; the GEMV and the CUDA-core pooling layers
    # run FP16 on CUDA cores: twice the T4's FP32 8.1 TFLOP/s
    roofs = dict(zip(t4["roof"], t4["peak_tflops"]))
    assert roofs["FP16"] == 65.0 and roofs["FP16 CUDA cores"] == 2 * 8.1
    assert set(t4["peak_tflops"].dropna()) == {65.0, 16.2} and set(t4["peak_gbps"]) == {320.0}


def test_compute_summary(plan):
    s = compute_summary(plan("trex-mobilenet-qat"))
    assert s["macs"] == 300_774_272
    assert s["flops"] == 2 * 300_774_272 + 1280 * 7 * 7  # + the 7x7 global average pool
    assert s["gpu"] == "NVIDIA TITAN RTX" and s["memory_bound_latency_pct"] == 100.0
    assert s["achieved_tflops"] == pytest.approx(1.279, abs=0.001)
    names_only = compute_summary(plan("trt10-detr-int8-names-only"))
    assert names_only["macs"] == 0 and math.isnan(names_only["achieved_tflops"])
    assert names_only["gpu"] is None


def _tensor(name: str, dims: list[int]) -> dict:
    return {"Name": name, "Dimensions": dims, "Format/Datatype": "Row major linear FP16 format"}


def test_layer_kinds_not_in_the_real_engines():
    """3-D convolution, deconvolution and batched MatrixMultiply, checked against hand counts."""
    from trex.compute import layer_cost
    from trex.layer import Layer

    conv3d = Layer({"Name": "c3", "LayerType": "CaskConvolution", "ParameterType": "Convolution",
                    "Inputs": [_tensor("x", [1, 16, 8, 32, 32])],
                    "Outputs": [_tensor("y", [1, 32, 8, 32, 32])], "Kernel": [3, 3, 3],
                    "OutMaps": 32, "Groups": 1, "Weights": {"Type": "Half", "Count": 32 * 16 * 27}})
    c = layer_cost(conv3d)
    assert (c.m, c.n, c.k, c.macs) == (8 * 32 * 32, 32, 16 * 27, 113_246_208)
    deconv = Layer({"Name": "d", "LayerType": "CaskDeconvolution", "ParameterType": "Convolution",
                    "Inputs": [_tensor("x", [1, 64, 16, 16])], "Outputs": [_tensor("y", [1, 32, 32, 32])],
                    "Kernel": [2, 2], "Stride": [2, 2], "OutMaps": 32, "Groups": 1})
    assert deconv.type == "Deconvolution"
    d = layer_cost(deconv)
    assert d.macs == 32 * 32 * 32 * 64 and (d.m, d.n, d.k) == (256, 128, 64)
    matmul = Layer({"Name": "mm", "LayerType": "MatrixMultiply", "ParameterType": "MatrixMultiply",
                    "Inputs": [_tensor("a", [4, 128, 64]), _tensor("b", [4, 64, 256])],
                    "Outputs": [_tensor("y", [4, 128, 256])]})
    g = layer_cost(matmul)
    assert (g.m, g.n, g.k, g.macs) == (512, 256, 64, 512 * 256 * 64)
    assert g.bytes == 2 * (4 * 128 * 64 + 4 * 64 * 256 + 4 * 128 * 256)


def test_same_network_same_macs_across_the_a100_engines(plan):
    """ResNet-18 at batch 32 is 32 x 1.814 GMACs whatever the precision, fusion or Q/DQ placement."""
    names = ["a100-resnet18-fp32", "a100-resnet18-fp16", "a100-resnet18-qat",
             "a100-resnet18-qat-residual", "a100-resnet18-qat-residual-qgap"]
    macs = {compute_summary(plan(name))["macs"] for name in names}
    assert macs == {58_050_347_008}
    tflops = [compute_summary(plan(name))["achieved_tflops"] for name in names[2:]]
    assert tflops == sorted(tflops)  # fewer reformats, more useful work per ms
