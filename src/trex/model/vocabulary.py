"""The layer types trex knows: TensorRT 11.4's ``LayerType`` enum, the JSON spelling of each (the
``type`` of a layer: its ParameterType, else its LayerType) and a family per type.

The enum names come from the 11.4 Python bindings (``tensorrt-cu13-bindings==11.4.0.106``: the
names ``strings`` finds in ``tensorrt.so``). How the layer JSON spells the newer ones is not
documented: the spelling follows the API class (``IKVCacheUpdateLayer`` -> ``KVCacheUpdate``) and
docs/llm-formats.md lists those guesses. Myelin regions name their kernels by lower-case kinds.
A type no table names is family ``other``: still counted, drawn and coloured.
"""

from __future__ import annotations

# nvinfer1::LayerType of TensorRT 11.4, in the bindings' order.
TRT_LAYER_TYPES: tuple[str, ...] = (
    "CONVOLUTION", "GRID_SAMPLE", "NMS", "ACTIVATION", "POOLING", "LRN", "SCALE", "SOFTMAX",
    "DECONVOLUTION", "CONCATENATION", "ELEMENTWISE", "PLUGIN", "UNARY", "PADDING", "SHUFFLE",
    "REDUCE", "TOPK", "GATHER", "MATRIX_MULTIPLY", "RAGGED_SOFTMAX", "CONSTANT", "IDENTITY", "CAST",
    "PLUGIN_V2", "SLICE", "SHAPE", "PARAMETRIC_RELU", "RESIZE", "TRIP_LIMIT", "RECURRENCE",
    "ITERATOR", "LOOP_OUTPUT", "SELECT", "ASSERTION", "FILL", "QUANTIZE", "DEQUANTIZE", "CONDITION",
    "CONDITIONAL_INPUT", "CONDITIONAL_OUTPUT", "SCATTER", "EINSUM", "ONE_HOT", "NON_ZERO",
    "REVERSE_SEQUENCE", "NORMALIZATION", "PLUGIN_V3", "SQUEEZE", "UNSQUEEZE", "CUMULATIVE",
    "DYNAMIC_QUANTIZE", "ATTENTION_INPUT", "ATTENTION_OUTPUT", "ROTARY_EMBEDDING",
    "KV_CACHE_UPDATE", "MOE", "DIST_COLLECTIVE",
)
# Enum names whose JSON spelling is not the CamelCase of their words (TensorRT's own spellings
# where exports show them: SoftMax, ElementWise, TopK; the API class name otherwise).
_SPELLINGS = {"SOFTMAX": "SoftMax", "RAGGED_SOFTMAX": "RaggedSoftMax", "ELEMENTWISE": "ElementWise",
              "TOPK": "TopK", "NMS": "NMS", "LRN": "LRN", "MOE": "MoE",
              "KV_CACHE_UPDATE": "KVCacheUpdate", "PARAMETRIC_RELU": "ParametricReLU"}

# Myelin's lower-case kernel kinds (TensorRT 10/11 layer JSON; loops add memset, add, cjmp).
MYELIN_KINDS: tuple[str, ...] = ("kgen", "gemm", "custom_layer", "correlation", "maxpool",
                                 "memset", "add", "cjmp", "shape_call")


def json_spelling(enum_name: str) -> str:
    """The layer JSON's spelling of a ``LayerType`` enum name (``GRID_SAMPLE`` -> ``GridSample``)."""
    return _SPELLINGS.get(enum_name) or "".join(w.capitalize() for w in enum_name.split("_"))


_FAMILY_MEMBERS: dict[str, tuple[str, ...]] = {
    "convolution": ("Convolution", "Deconvolution", "ConvActPool", "correlation"),
    "matrix multiply": ("MatrixMultiply", "gemm", "FullyConnected", "Einsum"),
    "attention": ("Attention", "AttentionInput", "AttentionOutput"),
    "kv cache": ("KVCacheUpdate",),
    "rotary embedding": ("RotaryEmbedding",),
    "mixture of experts": ("MoE",),
    "collective": ("DistCollective",),
    "quantization": ("Quantize", "Dequantize", "DynamicQuantize"),
    "normalization": ("Normalization", "LRN", "SoftMax", "RaggedSoftMax"),
    "pooling": ("Pooling", "maxpool"),
    "pointwise": ("PointWise", "ElementWise", "Activation", "Unary", "Scale", "ParametricReLU",
                  "Select", "Cast", "add"),
    "reduction": ("Reduce", "TopK", "Cumulative", "NMS"),
    "data movement": ("Reformat", "Shuffle", "Slice", "Concatenation", "Gather", "Scatter",
                      "Resize", "Padding", "Identity", "Squeeze", "Unsqueeze", "ReverseSequence",
                      "GridSample", "OneHot", "Fill", "memset", "Constant", "TrainStation"),
    "shape": ("Shape", "shape_call", "NonZero", "Assertion"),
    "control flow": ("TripLimit", "Recurrence", "Iterator", "LoopOutput", "Condition",
                     "ConditionalInput", "ConditionalOutput", "cjmp", "signal", "wait"),
    "plugin": ("Plugin", "PluginV2", "PluginV3", "custom_layer"),
    "myelin": ("Myelin", "kgen"),
    "dla": ("DLA", "DLACopy", "DLASync"),
}
FAMILIES: dict[str, str] = {t: family for family, types in _FAMILY_MEMBERS.items() for t in types}
OTHER = "other"

# What each LLM-era type does, for the report's details (one line each).
DESCRIPTIONS: dict[str, str] = {
    "Attention": "fused attention (IAttention): softmax(Q K^T) V in one kernel, "
                 "4·B·H·Sq·Skv·D FLOPs, reads the KV cache",
    "AttentionInput": "IAttention's input boundary (ATTENTION_INPUT)",
    "AttentionOutput": "IAttention's output boundary (ATTENTION_OUTPUT)",
    "KVCacheUpdate": "writes the new keys or values into the KV cache (IKVCacheUpdateLayer); "
                     "its output aliases the cache, only the update's bytes are written",
    "RotaryEmbedding": "rotary position embedding (IRotaryEmbeddingLayer), elementwise",
    "MoE": "mixture of experts (IMoELayer): each token's top-k experts' gated GEMMs",
    "DistCollective": "multi-device collective (IDistCollectiveLayer): all-reduce, all-gather, "
                      "reduce-scatter, all-to-all or broadcast over NVLink/network",
    "DynamicQuantize": "quantizes at run time with per-block scales computed from the data "
                       "(IDynamicQuantizeLayer: FP8, NVFP4 or MXFP8)",
    "kgen": "a Myelin-generated kernel: the ONNX operators of its Metadata fused",
    "gemm": "a Myelin matrix multiply",
    "custom_layer": "a Myelin region running a custom (plugin) kernel",
    "correlation": "a Myelin correlation (convolution-like) kernel",
    "maxpool": "a Myelin max-pooling kernel",
    "memset": "a Myelin memory fill (loops)",
    "add": "a Myelin elementwise add (loop counters)",
    "cjmp": "a Myelin conditional jump (loops)",
}


def family(layer_type: object) -> str:
    """The family of a layer ``type`` (``Attention`` -> ``attention``); ``other`` when unknown."""
    return FAMILIES.get(str(layer_type), OTHER)


def known_types() -> tuple[str, ...]:
    """Every type trex names: the 11.4 enum's JSON spellings, Myelin's kinds and the engine-side
    kinds of the family table (ConvActPool, Reformat, PointWise, Attention, ...), in that order."""
    out = dict.fromkeys(json_spelling(e) for e in TRT_LAYER_TYPES)
    out.update(dict.fromkeys(MYELIN_KINDS))
    out.update(dict.fromkeys(FAMILIES))
    return tuple(out)
