"""The shared tactic-name classifier (trex.kernels) on every kernel name in the real engines.

tests/kernel_names.tsv lists every kernel name found in ../shared/engines (the TacticName of each
plan, the tactic names and Myelin kernels of the verbose build logs), normalized, with the verdict
checked by hand against NVIDIA's naming. A new real file with an unlisted name fails the first
test until its row is added (and checked).
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from trex import EnginePlan
from trex.errors import InputError
from trex.formats.build_log import read_build_log
from trex.kernels import classify_tactic, uses_tensor_cores

TABLE = Path(__file__).with_name("kernel_names.tsv")
_KEEP = re.compile(r"_0x[0-9a-f]+$|^(?:trt_)?sm\d+|[hsi](?:884|1688|16816|8816|16832)(?=cudnn|gemm)"
                   r"|(?:int8x4|fp16x2|tf32|bf16|e4m3|e5m2|fp16|fp32|f16|f32|i8|i32|int8|FP16|FP32|INT8)"
                   r"(?![0-9])|(\d+)")
VERDICT = {"TC": True, "CUDA": False, "?": None}
# TREx's Tensor Core test (ConvLinter), for comparison.
TREX_TC = re.compile(r"imma|hmma|xmma|i88|884")


def normalize(name: str) -> str:
    """Digits to N, except the architecture, cuDNN/cuBLAS MMA shapes, data types; hashes to HASH."""
    def sub(match: re.Match) -> str:
        if match.group(1):
            return "N"
        return "_0xHASH" if match.group(0).startswith("_0x") else match.group(0)
    return _KEEP.sub(sub, name)


def _table() -> dict[str, tuple[bool | None, str | None, str | None]]:
    rows = {}
    for line in TABLE.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        verdict, precision, operation, shape = line.split("\t")
        rows[shape] = (VERDICT[verdict], None if precision == "-" else precision,
                       None if operation == "-" else operation)
    return rows


@pytest.fixture(scope="module")
def real_names(engines: Path) -> dict[str, set[str]]:
    """Every kernel name in the real files -> where it was seen."""
    names: dict[str, set[str]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for folder in sorted(p for p in engines.iterdir() if p.is_dir()):
            for layer in EnginePlan.from_path(folder).layers:
                name = layer.raw_dict.get("TacticName")
                if name:
                    names.setdefault(name, set()).add(f"{folder.name} TacticName")
        for path in sorted([*engines.glob("*/*.log"), *engines.glob("*/*.txt")]):
            try:
                log = read_build_log(path)
            except InputError:
                continue  # a profile log or layer JSON named .log
            for t in log.tactics:
                if t.tactic_name:
                    names.setdefault(t.tactic_name, set()).add(f"{path.name} tactics")
            for m in log.myelin:
                names.setdefault(m.kernel, set()).add(f"{path.name} Myelin table")
    return names


def test_every_real_kernel_name_is_in_the_hand_checked_table(real_names):
    table = _table()
    assert len(real_names) == 1181  # distinct names: 128 in plans, 1,053 more in the two build logs
    missing = sorted({normalize(n) for n in real_names} - set(table))
    assert not missing, f"kernel names not yet checked by hand: {missing[:5]}"
    wrong = []
    for name in real_names:
        info = classify_tactic(name)
        if (info.tensor_cores, info.precision, info.operation) != table[normalize(name)]:
            wrong.append((name, info))
    assert not wrong
    # no stale rows: every row of the table stands for names in the real files
    assert {normalize(n) for n in real_names} == set(table)
    verdicts = [v for v, _, _ in table.values()]
    assert (verdicts.count(True), verdicts.count(False), verdicts.count(None)) == (74, 84, 10)


def test_trex_pattern_was_wrong_both_ways(real_names):
    """TREx's ``imma|hmma|xmma|i88|884`` misses cuDNN's HMMA kernels and passes every xmma kernel."""
    missed = sorted(n for n in real_names if uses_tensor_cores(n) and not TREX_TC.search(n))
    assert missed == [  # the 7 false "not accelerated" warnings of TREx on a100-resnet18-fp16
        "ampere_h16816cudnn_128x128_ldg8_relu_exp_stages_64x3_large_nhwc_tn_v1",
        "ampere_h16816cudnn_128x64_sliced1x2_ldg8_relu_exp_stages_64x3_small_nhwc_tn_v1",
        "ampere_h16816cudnn_128x64_sliced1x2_ldg8_relu_exp_stages_64x4_small_nhwc_tn_v1",
        "ampere_h16816cudnn_256x64_ldg8_relu_exp_stages_64x3_small_nhwc_tn_v1",
    ]
    assert {s for n in missed for s in real_names[n]} == {"a100-resnet18-fp16 TacticName"}
    passed = [n for n in real_names if uses_tensor_cores(n) is False and TREX_TC.search(n)]
    assert len(passed) == 350  # sm5x/sm70 xmma kernels on CUDA cores (ffma, simt, depthwise, ...)
    assert "sm70_xmma_fprop_conv1x1_i8f32_f32_f32_nchw_vect_c_4kcrs_vect_c_4_nchw_simt_small_batch_" \
           "bias_relu" in passed


# NVIDIA kernel names from public logs and profiles (NVIDIA/TensorRT and NVIDIA/cutlass issues,
# dusty-nv/jetson-inference logs, Nsight traces), and the Hopper FP8 form of the xmma grammar.
FAMILIES = [
    # (name, tensor cores, MMA, shape, precision, library)
    ("turing_h1688cudnn_256x64_ldg8_relu_exp_small_nhwc_tn_v1", True, "HMMA", "16x8x8", "FP16",
     "cuDNN"),
    ("volta_h884cudnn_256x128_ldg8_relu_exp_small_nhwc_tn_v1", True, "HMMA", "8x8x4", "FP16",
     "cuDNN"),
    ("ampere_h16816gemm_256x128_ldg8_stages_32x3_nn_v1", True, "HMMA", "16x8x16", "FP16", "cuBLAS"),
    ("ampere_fp16_s16816gemm_fp16_64x64_sliced1x2_ldg8_relu_f2f_stages_64x6_tn", True, "HMMA",
     "16x8x16", "FP16", "cuBLAS"),
    ("ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_32x3_tn", True, "HMMA", "16x8x16", "BF16",
     "cuBLAS"),
    ("ampere_fp16_s1688gemm_fp16_256x64_ldg8_f2f_nt", True, "HMMA", "16x8x8", "FP16", "cuBLAS"),
    ("cutlass_80_tensorop_f16_s16816gemm_relu_f16_128x128_32x4_tn_align8", True, "HMMA", "16x8x16",
     "FP16", "CUTLASS"),
    ("sm70_xmma_fprop_implicit_gemm_f16f16_f16f16_f16_nhwckrsc_nhwc_tilesize128x64x32_stage1_"
     "warpsize2x2x1_g1_tensor8x8x4_t1r1s1", True, "HMMA", "8x8x4", "FP16", "CASK (xmma)"),
    ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1", True, "GMMA",
     None, "BF16", "CASK (xmma)"),
    ("sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32_tn_n_tilesize128x128x128_cgasize1x1x1_"
     "warpgroupsize1x1x1", True, "GMMA", None, "FP8", "CASK (xmma)"),
    ("volta_sgemm_128x32_relu_nn_v1", False, None, None, "FP32", "cuBLAS"),
    ("volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1", False, None, None, "FP32",
     "cuDNN"),
    ("turing_fp16x2_hcudnn_fp16x2_128x64_relu_small_nn_v1", False, None, None, "FP16", "cuDNN"),
]


@pytest.mark.parametrize(("name", "tc", "mma", "shape", "precision", "library"), FAMILIES)
def test_nvidia_kernel_families(name, tc, mma, shape, precision, library):
    info = classify_tactic(name)
    assert (info.tensor_cores, info.mma, info.mma_shape, info.precision, info.library) == (
        tc, mma, shape, precision, library)


def test_names_that_say_nothing_are_unknown_never_cuda_cores():
    for name in (None, "", "TensorRT"):
        info = classify_tactic(name)
        assert info.tensor_cores is None and info.evidence
    # TensorRT's own depthwise runner writes no kernel name: its LayerType says CUDA cores
    depthwise = classify_tactic("TensorRT", "CudaDepthwiseConvolution")
    assert depthwise.tensor_cores is False and depthwise.operation == "depthwise convolution"
    assert classify_tactic("TensorRT", "FusedConvActConvolution").tensor_cores is None
    myelin = classify_tactic("__myl_MaxrSubExpSum_0xa612085ebb33c05a523fd71d84e9fe0b")
    assert (myelin.library, myelin.tensor_cores) == ("Myelin", None)
    # pooling kernels named after the IMMA layout (NC/32HW32) do not multiply matrices
    assert classify_tactic("sm72_xmma_pooling_IMMA_NCxHW32_gap").tensor_cores is False
