"""What each layer does in a transformer: its role, from its kinds, kernel name and ONNX nodes.

A role is one of :data:`ROLES`. Dedicated TensorRT layers (``Attention``, ``KVCacheUpdate``,
``RotaryEmbedding``, ``MoE``, ``DistCollective``; any spelling of the 11.x enum names) and fused
attention kernels (``fmha``/``flash``/``mha`` in a Myelin or plugin kernel's name) are recognised
by kind and name; softmax, norms and GEMMs by kind or by the ONNX op of their nodes (a Myelin
``kgen`` computing ``/layers.0/self_attn/Softmax`` is a softmax). Everything else is ``glue``
(elementwise, data movement) or ``other``. Unknown kinds stay ``other``: counted, never dropped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..model.vocabulary import FAMILIES as VOCABULARY_FAMILIES
from ..onnx_map import nodes_from_name, onnx_op_type

ATTENTION = "attention"  # a fused attention layer or kernel (IAttention, fMHA, flash attention)
SOFTMAX = "softmax"
GEMM = "gemm"
NORM = "norm"
ROPE = "rope"  # IRotaryEmbeddingLayer
KV_CACHE = "kv-cache"  # IKVCacheUpdateLayer
MOE = "moe"
COLLECTIVE = "collective"
GLUE = "glue"  # elementwise and data movement: what unfused chains are made of
OTHER = "other"
ROLES = (ATTENTION, SOFTMAX, GEMM, NORM, ROPE, KV_CACHE, MOE, COLLECTIVE, GLUE, OTHER)


def _key(kind: str | None) -> str:
    """A kind spelled any way TensorRT may (``KV_CACHE_UPDATE``, ``KVCacheUpdate``) as one key."""
    return re.sub(r"[^a-z0-9]", "", (kind or "").lower())


# Layer kinds (ParameterType or LayerType, any spelling: ``_key`` makes ``KV_CACHE_UPDATE`` and
# ``KVCacheUpdate`` one key) of the dedicated transformer layers: the families of the vocabulary
# (trex.model.vocabulary), and other names plugins and older exports use.
_BY_FAMILY = {"attention": ATTENTION, "kv cache": KV_CACHE, "rotary embedding": ROPE,
              "mixture of experts": MOE, "collective": COLLECTIVE}
_DEDICATED = {
    **{_key(t): _BY_FAMILY[f] for t, f in VOCABULARY_FAMILIES.items() if f in _BY_FAMILY},
    **dict.fromkeys(("attention", "attentioninput", "attentionoutput", "iattention",
                     "multiheadattention", "fusedattention"), ATTENTION),
    **dict.fromkeys(("kvcacheupdate", "kvcacheupdatelayer", "kvcache"), KV_CACHE),
    **dict.fromkeys(("rotaryembedding", "rotaryembeddinglayer", "rope"), ROPE),
    **dict.fromkeys(("moe", "moelayer", "mixtureofexperts"), MOE),
    **dict.fromkeys(("distcollective", "collective", "allreduce", "allgather", "reducescatter",
                     "alltoall", "nccl"), COLLECTIVE),
    **dict.fromkeys(("softmax", "caskSoftMaxv2".lower(), "softmaxv2"), SOFTMAX),
    **dict.fromkeys(("normalization", "layernormalization", "rmsnormalization", "layernorm",
                     "rmsnorm"), NORM),
    **dict.fromkeys(("gemm", "matrixmultiply", "fullyconnected", "matmul", "einsum"), GEMM),
}
_GLUE_KINDS = frozenset(_key(k) for k in (
    "PointWise", "PointWiseV2", "ElementWise", "Activation", "Unary", "Scale", "Slice",
    "Concatenation", "Shuffle", "Gather", "Scatter", "Cast", "Reformat", "MyelinReformat", "kgen",
    "Identity", "Padding", "Copy", "Select", "Fill", "Reduce", "Quantize", "Dequantize",
    "Transpose", "Resize", "Myelin", "NoOp"))
# Fused attention kernels: TensorRT's fMHA, flash attention, TensorRT-LLM's attention kernels.
_FUSED_KERNEL_RE = re.compile(
    r"fmha|flash_?att|(?:^|[^a-z])mha(?:[^a-z]|$)|_mha|mha_|multi_?head_?att|gptattention|xqa|mmha",
    re.IGNORECASE)
_NORM_NODE_RE = re.compile(r"layer_?norm|rms_?norm|(?:^|[/._])ln_?f?(?:[/._]|\d|$)|norm(?:[/._]|$)",
                           re.IGNORECASE)
_ROPE_NODE_RE = re.compile(r"rotary|rope|(?:^|[/._])(?:cos|sin)(?:[/._]|$)", re.IGNORECASE)
_CACHE_NODE_RE = re.compile(r"past|present|kv_?cache|key_?cache|value_?cache|cache", re.IGNORECASE)
_SOFTMAX_OPS = frozenset({"Softmax"})
_MOVEMENT_OPS = frozenset({"Split", "Reshape", "Transpose", "Expand", "Squeeze", "Unsqueeze",
                           "Flatten", "Identity", "Cast", "Tile"})
_MOVEMENT_KINDS = frozenset({"shuffle", "reformat", "myelinreformat", "cast", "transpose", "noop"})
_NORM_OPS = frozenset({"LayerNormalization", "RMSNormalization", "SimplifiedLayerNormalization",
                       "SkipLayerNormalization", "SkipSimplifiedLayerNormalization"})
_GEMM_OPS = frozenset({"MatMul", "Gemm", "Einsum", "MatMulInteger", "QLinearMatMul"})
# A block's index in an ONNX node name: /model/layers.3/..., transformer.h.3, blocks_3, layer_3.
_BLOCK_RE = re.compile(r"(?:^|[/._:])(?:layers?|h|blocks?|decoder_?layers?|encoder_?layers?)"
                       r"[._/]?(\d{1,6})(?=[/._:]|$)", re.IGNORECASE)


@dataclass(frozen=True)
class LayerRole:
    """One layer's role and the hints its names give (block index, RoPE, KV cache)."""

    role: str
    block: int | None  # the block its ONNX nodes name (``layers.3`` -> 3), else None
    rope_hint: bool  # its names mention rotary/rope/cos/sin
    cache_hint: bool  # its names mention past/present/cache
    movement: bool = False  # it only moves data (reshape, transpose, split, expand, cast)


def layer_role(kind: str, subtype: str, name: str, tactic: str | None,
               nodes: Sequence[str]) -> LayerRole:
    """The role of one layer (see the module docstring)."""
    names = list(nodes) or nodes_from_name(name)
    text = " ".join((name, *names))
    block = _block_of(names or [name])
    ops = {onnx_op_type(n) for n in names}
    movement = ops <= _MOVEMENT_OPS if names else _key(kind) in _MOVEMENT_KINDS
    hints = (bool(_ROPE_NODE_RE.search(text)), bool(_CACHE_NODE_RE.search(text)), movement)
    for k in (kind, subtype):
        role = _DEDICATED.get(_key(k))
        if role is not None and role not in (GEMM, SOFTMAX, NORM):
            return LayerRole(role, block, *hints)
    kernel_name = not nodes_from_name(name)  # a name TensorRT made (Myelin), not an ONNX node's
    if _FUSED_KERNEL_RE.search(tactic or "") or (kernel_name and _FUSED_KERNEL_RE.search(name)) \
            or (_key(subtype).startswith("plugin") and "attention" in name.lower()):
        return LayerRole(ATTENTION, block, *hints)
    for k in (kind, subtype):
        role = _DEDICATED.get(_key(k))
        if role is not None:
            return LayerRole(role, block, *hints)
    myelin = kernel_name and name.startswith("__myl_")  # ops abbreviated: __myl_MaxSubExpSum
    if ops & _SOFTMAX_OPS or (myelin and all(op in name for op in ("Max", "Exp", "Sum"))):
        return LayerRole(SOFTMAX, block, *hints)
    if ops & _NORM_OPS or {"ReduceMean", "Sqrt"} <= ops or \
            (names and 2 * sum(bool(_NORM_NODE_RE.search(n)) for n in names) > len(names)) or \
            (myelin and "Mean" in name and "Sqrt" in name):
        return LayerRole(NORM, block, *hints)
    if ops & _GEMM_OPS and _key(kind) in ("kgen", "myelin", "unknown", "convolution"):
        return LayerRole(GEMM, block, *hints)
    if _key(kind) in _GLUE_KINDS or _key(subtype) in _GLUE_KINDS:
        return LayerRole(GLUE, block, *hints)
    return LayerRole(OTHER, block, *hints)


def _block_of(names: Sequence[str]) -> int | None:
    """The first block index the names give (a fused layer spanning two blocks takes the first)."""
    for n in names:
        match = _BLOCK_RE.search(n)
        if match:
            return int(match.group(1))
    return None
