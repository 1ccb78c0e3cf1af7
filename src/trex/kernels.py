"""What a tactic (kernel) name says: Tensor Cores or CUDA cores, MMA instruction, precision, library.

One classifier for every view (linters, compute model, reports). The rules follow NVIDIA's kernel
naming as it appears in TensorRT's ``TacticName`` and build logs:

- cuDNN/cuBLAS kernels ``<arch>_[<input type>_]<math><shape><library>_...``: the math letter is
  NVIDIA's GEMM type (``s`` FP32 accumulation, ``h`` FP16, ``i`` INT8) and an MMA shape after it
  (``884`` Volta HMMA, ``1688``/``16816`` HMMA, ``8816``/``16832`` IMMA) means Tensor Cores:
  ``ampere_h16816cudnn_*``, ``volta_fp32_i8816cudnn_int8_*``, ``ampere_tf32_s1688gemm_tf32_*``.
  Without a shape (``scudnn``, ``hcudnn``, ``icudnn``, ``sgemm``, ``fp16x2``, ``int8x4``) the
  kernel runs on CUDA cores (FFMA, HFMA2, DP4A).
- CASK ``sm<NN>_xmma_<op>_...`` kernels: ``tensor16x8x16`` (MMA instruction shape) or
  ``warpgroupsize`` (Hopper GMMA) mean Tensor Cores; ``ffma``, ``simt``, GEMV, depthwise,
  pooling and softmax kernels, and any kernel built for sm5x/sm6x (no Tensor Cores before sm70)
  do not. The types after the operation (``f32f32_tf32f32_f32``: I/O, math and accumulator,
  epilogue) give the math precision.
- Myelin-generated kernels ``__myl_<ops>_0x<hash>`` name the fused ops, not the instructions.

``tensor_cores`` is True, False, or None when the name does not say (``TensorRT`` placeholders,
names-only plans, unknown families): an unknown is never reported as "not accelerated".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["KernelInfo", "classify_tactic", "math_precision", "quantization", "uses_tensor_cores"]

_ARCHS = {"maxwell": 50, "pascal": 60, "volta": 70, "turing": 75, "ampere": 80, "ada": 89,
          "hopper": 90, "blackwell": 100}
_ARCH = re.compile(r"^(?:trt_)?(?:(?:sm_?|cutlass_)(?P<sm>\d{2,3})|(?P<family>" + "|".join(_ARCHS)
                   + r"))_",
                   re.IGNORECASE)
# cuDNN/cuBLAS GEMM types (NVIDIA's gemmType_t): math letter, optional MMA shape, library.
_LEGACY = re.compile(r"(?:^|_)(?:(?P<input>fp16|bf16|tf32|fp32|int8|fp16x2|int8x4|f16|f32|s8)_)?"
                     r"(?P<math>[hsi])(?P<shape>884|1688|1684|16816|8816|16832|16864)?"
                     r"(?P<lib>cudnn|gemm)(?:_|$)", re.IGNORECASE)
_MMA_SHAPE = re.compile(r"(?:^|_)(?:sp)?tensor(?P<shape>\d+x\d+x\d+)", re.IGNORECASE)
_GMMA = re.compile(r"warpgroupsize|(?:^|_)w?gmma(?:_|$)", re.IGNORECASE)
_MMA_WORD = re.compile(r"(?:^|_)(?P<word>hmma|imma|tensorop)(?:_|$)", re.IGNORECASE)
_CUDA_CORE_WORD = re.compile(r"(?:^|_)(?P<word>ffma|hfma2?|simt|dp4a|fp16x2|int8x4|gemvx?)(?:_|$)",
                             re.IGNORECASE)
_XMMA = re.compile(r"^(?:trt_)?sm_?\d{2,3}_xmma_(?P<op>[a-z0-9]+)_(?P<rest>.*)$", re.IGNORECASE)
# Types after the operation: I/O pair, then math + accumulator (``f16f16_f16f32_f32``).
_TYPE = r"(?:e4m3|e5m2|e2m1|tf32|bf16|fp\d+|f\d+|i\d+|s\d+|u\d+|int\d+)"
_XMMA_TYPES = re.compile(rf"(?:^|_)(?P<io>{_TYPE}{_TYPE})_(?P<math>{_TYPE})(?P<acc>{_TYPE})(?:_|$)",
                         re.IGNORECASE)
_PRECISIONS = {"f16": "FP16", "fp16": "FP16", "bf16": "BF16", "tf32": "TF32", "f32": "FP32",
               "fp32": "FP32", "i8": "INT8", "s8": "INT8", "int8": "INT8", "u8": "UINT8",
               "i4": "INT4", "int4": "INT4", "e4m3": "FP8", "e5m2": "FP8", "fp8": "FP8", "f8": "FP8",
               "e2m1": "FP4", "fp4": "FP4", "fp16x2": "FP16", "int8x4": "INT8"}
_NAMED_TYPE = re.compile(r"(?:^|_)(?P<t>e4m3|e5m2|fp8|bf16|tf32)(?:_|$|[a-z0-9])", re.IGNORECASE)
_NOT_MMA_OPS = ("pooling", "softmax", "reduce", "resize", "copy", "reformat", "pointwise",
                "elementwise", "concat", "slice", "shuffle", "cast", "transpose", "gather")
_NOT_MMA_OP = re.compile(r"(?:^|_)(?P<op>" + "|".join(_NOT_MMA_OPS) + r")(?:_|$)", re.IGNORECASE)
_FIRST_TYPE = re.compile(rf"(?:^|_)(?P<t>{_TYPE})(?:{_TYPE})+_", re.IGNORECASE)
_MYELIN = re.compile(r"^__myl_(?P<ops>[A-Za-z0-9]+?)(?:_0x[0-9a-f]+|_myl\d+_\d+)?$")
# The quantisation scheme a kernel name states, most specific first: NVFP4 (E2M1 values, E4M3
# scales per 16), MXFP4/MXFP8 (E8M0 scales per 32), INT4 weight-only (W4A16: 4-bit weights
# dequantised to FP16/BF16 math), FP8 (E4M3/E5M2), FP4.
_QUANTIZATION = tuple((re.compile(p, re.IGNORECASE), scheme) for p, scheme in (
    (r"nvfp4|e2m1\w*(?:blockscale|block_scale|vec16)", "NVFP4"),
    (r"mxfp4|e2m1\w*e8m0", "MXFP4"),
    (r"mxfp8|e8m0", "MXFP8"),
    (r"weight_?only|w4a16|(?:^|_)(?:bf16|f16|fp16)(?:u?i4|int4)(?:_|$)", "INT4 weight-only"),
    (r"(?:^|_|\d)(?:e4m3|e5m2|fp8)", "FP8"),
    (r"(?:^|_|\d)(?:e2m1|fp4)", "FP4"),
))


@dataclass(frozen=True)
class KernelInfo:
    """What one kernel name says; ``evidence`` is the part of the name that decided."""

    name: str
    library: str | None = None  # cuDNN, cuBLAS, CASK (xmma), CUTLASS, Myelin, TensorRT
    operation: str | None = None  # convolution, depthwise convolution, gemm, gemv, pooling, ...
    tensor_cores: bool | None = None
    mma: str | None = None  # HMMA, IMMA, GMMA (Hopper warpgroup MMA), MMA
    mma_shape: str | None = None  # instruction shape M x N x K, e.g. 16x8x16
    precision: str | None = None  # math input precision the name states
    arch: int | None = None  # SM version the kernel was built for (70, 75, 80, 90, ...)
    evidence: str = ""
    instruction: str | None = None  # CUDA-core math the name states: FFMA, HFMA2, DP4A, SIMT, GEMV
    quantization: str | None = None  # NVFP4, MXFP8, MXFP4, INT4 weight-only, FP8, FP4

    @property
    def math(self) -> str | None:
        """The math the kernel runs, precision and instruction kind: ``TF32 HMMA``, ``FP16 HMMA``,
        ``INT8 IMMA``, ``FP32 FFMA``, ``INT8 DP4A``, ``FP16 CUDA cores``; None when the name does
        not say (placeholders, Myelin's generated kernels)."""
        if self.tensor_cores:
            kind = self.mma or "Tensor Cores"
            return f"{self.precision} {kind}" if self.precision else kind
        if self.tensor_cores is False and self.precision:
            return f"{self.precision} {self.instruction or 'CUDA cores'}"
        return None

    @property
    def family(self) -> str:
        """Library and operation in a few words (``cuDNN convolution``, ``CASK (xmma) gemm``)."""
        return " ".join(p for p in (self.library, self.operation) if p) or "unknown"


def math_precision(tactic: str | None, layer_type: str | None = None) -> str | None:
    """The math a layer's kernel runs (:attr:`KernelInfo.math`): ``TF32 HMMA``, ``FP32 FFMA``..."""
    return classify_tactic(tactic, layer_type).math


def uses_tensor_cores(tactic: str | None, layer_type: str | None = None) -> bool | None:
    """True/False from the kernel name (and the runner type); None when they do not say."""
    return classify_tactic(tactic, layer_type).tensor_cores


@lru_cache(maxsize=4096)
def classify_tactic(name: str | None, layer_type: str | None = None) -> KernelInfo:
    """Classify a tactic name (``TacticName`` or a build log's tactic name).

    ``layer_type`` (the implementation, e.g. ``CudaDepthwiseConvolution``) decides when the name is
    missing or TensorRT's placeholder ``TensorRT``."""
    text = (name or "").strip()
    if not text or text == "TensorRT":
        return _from_layer_type(text, layer_type)
    myelin = _MYELIN.match(text)
    if myelin:
        return KernelInfo(text, "Myelin", "generated kernel", None,
                          evidence=f"Myelin kernel of {myelin['ops']} (the name lists ops, not "
                                   "instructions)")
    arch = _arch(text)
    lower = text.lower()
    library = _library(lower)
    xmma = _XMMA.match(text)
    operation = _operation(lower, xmma)
    precision = _precision(text)
    base = {"name": text, "library": library, "operation": operation, "arch": arch,
            "precision": precision, "quantization": quantization(text)}

    legacy = _LEGACY.search(text) if xmma is None else None
    if legacy is not None:
        return _legacy(base, legacy)
    if operation in _NOT_MMA_OPS or operation == "depthwise convolution" or operation == "gemv":
        return KernelInfo(**base, tensor_cores=False, instruction="GEMV" if operation == "gemv"
                          else None, evidence=f"{operation} kernel (no matrix-multiply instructions)")
    if arch is not None and arch < 70:
        return KernelInfo(**base, tensor_cores=False,
                          evidence=f"built for sm{arch} (Tensor Cores start with sm70)")
    shape = _MMA_SHAPE.search(text)
    if shape is not None:
        mma = "IMMA" if precision in ("INT8", "INT4", "UINT8") else \
            "HMMA" if precision in ("FP16", "BF16", "TF32") else "MMA"
        return KernelInfo(**base, tensor_cores=True, mma=mma, mma_shape=shape["shape"],
                          evidence=shape.group(0).strip("_"))
    if _GMMA.search(text):
        return KernelInfo(**base, tensor_cores=True, mma="GMMA",
                          evidence="warpgroup MMA (Hopper GMMA)")
    cuda = _CUDA_CORE_WORD.search(text)
    if cuda is not None:
        word = cuda["word"].upper()
        instruction = {"HFMA": "HFMA2", "FP16X2": "HFMA2", "INT8X4": "DP4A", "GEMVX": "GEMV"}.get(
            word, word)
        return KernelInfo(**base, tensor_cores=False, instruction=instruction,
                          evidence=f"{cuda['word'].lower()} (CUDA-core instructions)")
    word = _MMA_WORD.search(text)
    if word is not None:
        kind = word["word"].upper()
        if kind == "IMMA" and not base["precision"]:
            base["precision"] = "INT8"
        return KernelInfo(**base, tensor_cores=True, mma=None if kind == "TENSOROP" else kind,
                          evidence=word["word"].lower())
    if operation == "attention":
        return KernelInfo(**base, tensor_cores=True,
                          evidence="fused multi-head attention kernel (fmha: Tensor Core MMA)")
    return KernelInfo(**base, evidence="the name names no instruction kind")


def quantization(tactic: str | None) -> str | None:
    """The quantisation scheme a kernel name states (``NVFP4``, ``MXFP8``, ``INT4 weight-only``,
    ``FP8``, ``FP4``), else None."""
    text = tactic or ""
    return next((scheme for regex, scheme in _QUANTIZATION if regex.search(text)), None)


def _from_layer_type(text: str, layer_type: str | None) -> KernelInfo:
    kind = layer_type or ""
    if kind == "CudaDepthwiseConvolution":
        return KernelInfo(text, "TensorRT", "depthwise convolution", False,
                          evidence="LayerType CudaDepthwiseConvolution (CUDA-core kernel)")
    return KernelInfo(text, None, None, None,
                      evidence="no tactic name" if not text else "TensorRT's placeholder name")


def _arch(text: str) -> int | None:
    match = _ARCH.match(text)
    if match is None:
        return None
    if match["sm"]:
        return int(match["sm"])
    return _ARCHS[match["family"].lower()]


def _library(lower: str) -> str | None:
    for token, library in (("cutlass", "CUTLASS"), ("cublas", "cuBLAS"), ("nvjet", "cuBLAS"),
                           ("cudnn", "cuDNN"), ("xmma", "CASK (xmma)")):
        if token in lower:
            return library
    return None  # a cuDNN/cuBLAS-style GEMM name (_h16816gemm) gets its library in _legacy


def _operation(lower: str, xmma: re.Match | None) -> str | None:
    if "depthwise" in lower:
        return "depthwise convolution"
    if "fmha" in lower or "flash_attention" in lower:
        return "attention"
    if "gemv" in lower:
        return "gemv"
    simple = _NOT_MMA_OP.search(lower)
    if simple is not None:
        return simple["op"]
    if xmma is not None:
        op = xmma["op"].lower()
        if op in ("fprop", "conv", "convolution"):
            return "convolution"
        if op in ("dgrad", "deconv"):
            return "deconvolution"
        if op == "gemm":
            return "gemm"
        return op
    if "cudnn" in lower or "fprop" in lower or "_fwd" in lower or "conv" in lower:
        return "convolution"
    if "gemm" in lower:
        return "gemm"
    return None


def _precision(text: str) -> str | None:
    types = _XMMA_TYPES.search(text)
    if types is not None:
        return _PRECISIONS.get(types["math"].lower())
    named = _NAMED_TYPE.search(text)
    if named is not None:
        return _PRECISIONS[named["t"].lower()]
    first = _FIRST_TYPE.search(text)
    return _PRECISIONS.get(first["t"].lower()) if first is not None else None


def _legacy(base: dict, match: re.Match) -> KernelInfo:
    """A cuDNN/cuBLAS-style name: the GEMM type says the instruction kind."""
    math_letter = match["math"].lower()
    given = (match["input"] or "").lower()
    token = match.group(0).strip("_")
    if math_letter == "i":
        base["precision"] = "INT8"  # IMMA or DP4A: INT8 inputs whatever the output type
    elif math_letter == "h":
        base["precision"] = "FP16"
    elif not base["precision"]:
        # s: FP32 accumulation; the inputs are the named type (fp16_s16816gemm), else FP32 math
        named = given if given in ("fp16", "bf16", "tf32", "f16") else None
        base["precision"] = _PRECISIONS[named] if named else None if match["shape"] else "FP32"
    base["library"] = "cuDNN" if match["lib"].lower() == "cudnn" else base["library"] or "cuBLAS"
    if match["shape"]:
        mma = "IMMA" if math_letter == "i" else "HMMA"
        shape = match["shape"]
        dims = {"884": "8x8x4", "1688": "16x8x8", "1684": "16x8x4", "16816": "16x8x16",
                "8816": "8x8x16", "16832": "16x8x32", "16864": "16x8x64"}[shape]
        return KernelInfo(**base, tensor_cores=True, mma=mma, mma_shape=dims, evidence=token)
    kind = {"s": "FFMA", "h": "HFMA2", "i": "DP4A"}[math_letter]
    return KernelInfo(**base, tensor_cores=False, instruction=kind,
                      evidence=f"{token} (no MMA shape: {kind} on CUDA cores)")
