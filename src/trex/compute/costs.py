"""Per-layer work and traffic: MACs, FLOPs and bytes moved, from layer attributes and tensor shapes.

Convolutions (2-D, 3-D, grouped, depthwise) and Deconvolutions use ``Kernel``/``Groups``/``OutMaps``;
ConvActPool its ``Conv*`` attributes; GEMMs (MatrixMultiply, Myelin ``gemm``, FullyConnected) the
tensor shapes. Pooling, pointwise and normalisation layers are counted per element; Reformat and
other data-movement layers move bytes only. Bytes are the padded sizes of every input and output
plus the layer's weights and bias; a convolution whose windows skip input rows (stride larger
than the kernel, e.g. a 1x1 stride-2 downsample reads a quarter of its input) counts what it reads.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..model.layer import Layer

CONV_TYPES = ("Convolution",)
GEMM_TYPES = ("gemm", "MatrixMultiply", "FullyConnected", "Gemm", "MatMul")
POOL_TYPES = ("Pooling", "maxpool")
# Estimated operations per output element (documented approximations, not kernel counts).
ELEMENTWISE_OPS = {
    "PointWise": 1, "PointWiseV2": 1, "ElementWise": 1, "Activation": 1, "Scale": 2, "Unary": 1,
    "SoftMax": 5, "Normalization": 8, "Reduce": 1, "LRN": 6, "Cast": 1, "Quantize": 2,
    "Dequantize": 2,
    # TensorRT 11: RoPE is x*cos + rotate(x)*sin; a dynamic quantization finds each block's
    # absolute maximum, scales and converts; Myelin's add
    "RotaryEmbedding": 3, "DynamicQuantize": 3, "add": 1, "ParametricReLU": 2, "Select": 1,
    "Cumulative": 1, "RaggedSoftMax": 5,
}
MOVE_TYPES = ("Reformat", "Shuffle", "Concatenation", "Slice", "Gather", "Resize", "Padding",
              "Copy", "Identity", "Scatter", "Transpose", "Squeeze", "Unsqueeze", "memset",
              "Fill", "ReverseSequence", "OneHot", "GridSample")
ATTENTION_TYPES = ("Attention", "AttentionOutput")
# Bytes each rank sends per byte of the collective's tensor, for n ranks (ring algorithms):
# all-reduce = reduce-scatter + all-gather.
_COLLECTIVE_SHARE = {"ALL_REDUCE": lambda n: 2 * (n - 1) / n, "ALL_GATHER": lambda n: (n - 1) / n,
                     "REDUCE_SCATTER": lambda n: (n - 1) / n, "ALL_TO_ALL": lambda n: (n - 1) / n,
                     "BROADCAST": lambda n: 1.0}


@dataclass
class Cost:
    """What one layer computes and moves; ``model`` names the formula used."""

    model: str
    macs: int | None = None
    flops: float | None = None
    m: int | None = None
    n: int | None = None
    k: int | None = None
    bytes_in: int = 0
    bytes_out: int = 0
    bytes_weights: int = 0
    read_fraction: float = 1.0  # of the first input, that the layer reads (strided convolutions)
    bytes_kv: int = 0  # attention: the keys and values it reads (the KV cache)
    bytes_link: int = 0  # collectives: bytes each rank exchanges over NVLink or the network

    @property
    def bytes(self) -> int:
        """Bytes moved: inputs, outputs and weights."""
        return self.bytes_in + self.bytes_out + self.bytes_weights


def _ints(value: Any) -> list[int] | None:
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, (int, float)) for v in value):
        return [int(v) for v in value]
    return None


def _int(value: Any) -> int | None:
    try:
        out = int(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return out if out > 0 else None


def _dims(shape: list[int]) -> list[int]:
    return [max(int(d), 1) for d in shape]


def _elements(shape: list[int]) -> int:
    return math.prod(_dims(shape)) if shape else 0


def _conv_out_spatial(in_spatial: list[int], kernel: list[int], raw: dict, prefix: str) -> list[int]:
    stride = _ints(raw.get(f"{prefix}Stride")) or [1] * len(kernel)
    dilation = _ints(raw.get(f"{prefix}Dilation")) or [1] * len(kernel)
    pre = _ints(raw.get(f"{prefix}PrePadding")) or [0] * len(kernel)
    post = _ints(raw.get(f"{prefix}PostPadding")) or [0] * len(kernel)
    out = []
    for i, size in enumerate(in_spatial):
        try:
            span = dilation[i] * (kernel[i] - 1) + 1
            out.append(max((size + pre[i] + post[i] - span) // max(stride[i], 1) + 1, 1))
        except IndexError:
            out.append(size)
    return out


@lru_cache(maxsize=4096)  # layers repeat a few geometries: each counted once
def _rows_read(size: int, out: int, kernel: int, stride: int, dilation: int, pre: int) -> int:
    """How many of ``size`` input rows a convolution reads along one axis: the union of its
    windows (a 1x1 stride-2 convolution reads every other row)."""
    span = dilation * (kernel - 1) + 1
    if stride >= span or dilation > 1:
        if out * kernel > 1 << 16:  # implausibly many windows: assume every row
            return size
        rows = {p * stride - pre + r * dilation for p in range(out) for r in range(kernel)}
        return sum(1 for row in rows if 0 <= row < size)
    first = max(-pre, 0)  # overlapping windows read one contiguous band
    last = min((out - 1) * stride - pre + span, size)
    return max(min(last, size) - first, 0) if last > first else 0


def _read_fraction(in_spatial: list[int], out_spatial: list[int], kernel: list[int], raw: dict,
                   prefix: str) -> float:
    """The part of the input a convolution reads, over its spatial axes."""
    n = len(kernel)
    stride = _ints(raw.get(f"{prefix}Stride")) or [1] * n
    dilation = _ints(raw.get(f"{prefix}Dilation")) or [1] * n
    pre = _ints(raw.get(f"{prefix}PrePadding")) or [0] * n
    fraction = 1.0
    try:
        for i in range(n):
            size = in_spatial[i]
            fraction *= _rows_read(size, out_spatial[i], kernel[i], max(stride[i], 1),
                                   max(dilation[i], 1), pre[i]) / size if size else 1.0
    except IndexError:
        return 1.0
    return min(max(fraction, 0.0), 1.0)


_CONV_KEYS = ("Kernel", "Groups", "OutMaps", "Stride", "Dilation", "PrePadding", "PostPadding")


def _hashable(value: Any) -> Any:
    """Lists as tuples (a convolution's attribute values, as a memo key)."""
    return tuple(_hashable(v) for v in value) if isinstance(value, list) else value


def conv_cost(layer: Layer, prefix: str = "") -> Cost | None:
    """Convolution as an implicit GEMM: M = N*P*Q, N = K (output channels), K = C/G*R*S.

    Computed once per geometry (shapes, weights count and the attributes read): a network
    repeats a few convolution shapes."""
    if not layer.inputs:
        return None
    values = tuple(_hashable(layer.attribute(prefix + key)) for key in _CONV_KEYS)
    key = (prefix, tuple(layer.inputs[0].shape),
           tuple(layer.outputs[0].shape) if layer.outputs else None, layer.weights_cnt, values)
    try:
        cost = _conv_geometry_cost(*key)
    except TypeError:  # an unhashable value (a corrupt file's dict): not remembered
        cost = _conv_geometry_cost.__wrapped__(*key)
    return dataclasses.replace(cost) if cost is not None else None  # the caller changes its copy


@lru_cache(maxsize=4096)
def _conv_geometry_cost(prefix: str, x_shape: tuple[int, ...], y_shape: tuple[int, ...] | None,
                        weights: int, values: tuple[Any, ...]) -> Cost | None:
    raw = {prefix + key: value for key, value in zip(_CONV_KEYS, values)}
    x = _dims(list(x_shape))
    y = _dims(list(y_shape)) if y_shape is not None else []
    kernel = _ints(raw.get(f"{prefix}Kernel"))
    groups = _int(raw.get(f"{prefix}Groups")) or 1
    if len(x) < 3:
        return None
    if kernel is None:
        kernel = [1] * (len(x) - 2)
    nsp = len(kernel)
    batch = math.prod(x[: len(x) - nsp - 1]) if len(x) > nsp + 1 else 1
    c = x[len(x) - nsp - 1]
    k_out = _int(raw.get(f"{prefix}OutMaps")) or (y[len(y) - nsp - 1] if len(y) > nsp else None)
    if k_out is None:
        return None
    in_spatial = x[len(x) - nsp:]
    if prefix or len(y) != len(x):
        out_spatial = _conv_out_spatial(in_spatial, kernel, raw, prefix)
    else:
        out_spatial = y[len(y) - nsp:]
    m = batch * math.prod(out_spatial)
    k = max(c // groups, 1) * math.prod(kernel)
    if weights and weights % k_out == 0 and weights // k_out != k:
        k = weights // k_out  # the weights know the true reduction (e.g. a folded reshape before it)
    macs = m * k_out * k
    return Cost("conv", macs, 2.0 * macs, m, k_out, k,
                read_fraction=_read_fraction(in_spatial, out_spatial, kernel, raw, prefix))


def deconv_cost(layer: Layer) -> Cost | None:
    """Deconvolution: every input pixel meets K/G*R*S weights per input channel of its group."""
    if not layer.inputs:
        return None
    x = _dims(layer.inputs[0].shape)
    kernel = _ints(layer.attribute("Kernel"))
    if kernel is None or len(x) < len(kernel) + 2:
        return None
    nsp = len(kernel)
    groups = _int(layer.attribute("Groups")) or 1
    y = _dims(layer.outputs[0].shape) if layer.outputs else []
    k_out = _int(layer.attribute("OutMaps")) or (y[len(y) - nsp - 1] if len(y) > nsp else None)
    if k_out is None:
        return None
    batch = math.prod(x[: len(x) - nsp - 1]) if len(x) > nsp + 1 else 1
    c = x[len(x) - nsp - 1]
    m = batch * math.prod(x[len(x) - nsp:])
    n = k_out * math.prod(kernel)
    k = max(c // groups, 1)
    macs = m * n * k
    return Cost("deconv", macs, 2.0 * macs, m, n, k)


def gemm_cost(layer: Layer) -> Cost | None:
    """GEMM from shapes: M = rows of the output (batch included), N = its last dim, K from input A."""
    if not layer.inputs or not layer.outputs:
        return None
    y = _dims(layer.outputs[0].shape)
    a = _dims(layer.inputs[0].shape)
    if not y or not a:
        return None
    if layer.type == "FullyConnected":
        m = y[0]
        n = _int(layer.attribute("OutMaps")) or (y[1] if len(y) > 1 else 1)
        k = max(layer.weights_cnt // n, 1) if layer.weights_cnt else math.prod(a[1:])
    else:
        n = y[-1]
        m = math.prod(y[:-1]) if len(y) > 1 else 1
        k = a[-1]
        if len(a) >= 2 and len(y) >= 2 and a[-1] == y[-2] and a[-2] != y[-2]:
            k = a[-2]  # A is transposed
    macs = m * n * k
    return Cost("gemm", macs, 2.0 * macs, m, n, k)


def attention_cost(layer: Layer) -> Cost | None:
    """Fused attention: Q [B, H, Sq, D] against K, V [B, Hkv, Skv, D] (grouped-query heads share
    K and V): Q K^T and P V are 2·B·H·Sq·Skv·D FLOPs each, 4·B·H·Sq·Skv·D together."""
    if len(layer.inputs) < 3:
        return None
    q, k = _dims(layer.inputs[0].shape), _dims(layer.inputs[1].shape)
    if len(q) < 3 or len(k) < 3 or q[-1] != k[-1]:
        return None
    bh, sq, skv, d = math.prod(q[:-2]), q[-2], k[-2], q[-1]
    macs = 2 * bh * sq * skv * d
    cost = Cost("attention", macs, 2.0 * macs, sq, skv, d)
    cost.bytes_kv = sum(t.size_bytes for t in layer.inputs[1:3])
    return cost


def moe_cost(layer: Layer) -> Cost | None:
    """Mixture of experts: every token runs its top-k experts' GEMMs (gate, up and down for a
    gated expert): 2·tokens·k·G·hidden·ffn FLOPs, G the expert weight matrices (the largest
    [E, ., .] inputs; their block scales are smaller). Only the experts some token chose are read:
    min(E, tokens·k) of E (see :func:`layer_cost`)."""
    if not layer.inputs:
        return None
    x = _dims(layer.inputs[0].shape)
    experts = [t for t in layer.inputs[1:] if len(t.shape) == 3]
    if len(x) < 2 or not experts:
        return None
    sizes = [_elements(t.shape) for t in experts]
    largest = max(sizes)
    matrices = [t for t, n in zip(experts, sizes) if n == largest]
    n_experts = _int(layer.attribute("NumExperts")) or _dims(matrices[0].shape)[0]
    top_k = _int(layer.attribute("TopK"))
    if top_k is None:
        chosen = [t for t in layer.inputs[1:] if len(t.shape) == len(x) and t not in experts]
        top_k = _dims(chosen[0].shape)[-1] if chosen else 1
    tokens, hidden = math.prod(x[:-1]), x[-1]
    ffn = largest // max(n_experts * hidden, 1)
    macs = tokens * top_k * len(matrices) * hidden * ffn
    return Cost("moe", macs, 2.0 * macs, tokens * top_k, ffn, hidden)


def collective_cost(layer: Layer) -> Cost:
    """A multi-device collective: no math to speak of (an all-reduce adds (n-1)/n of its elements
    per rank); ``bytes_link`` is what each rank exchanges (ring algorithms: all-reduce
    2·(n-1)/n of the tensor, all-gather and reduce-scatter (n-1)/n, broadcast all of it)."""
    operation = str(layer.attribute("CollectiveOperation") or "ALL_REDUCE").upper()
    ranks = layer.attribute("Ranks")
    n = _int(layer.attribute("WorldSize")) or (len(ranks) if isinstance(ranks, list) else 0) or 2
    tensor = max((t.size_bytes for t in (*layer.inputs, *layer.outputs)), default=0)
    share = _COLLECTIVE_SHARE.get(operation, _COLLECTIVE_SHARE["ALL_REDUCE"])(n)
    elements = max((_elements(t.shape) for t in layer.inputs), default=0)
    flops = elements * (n - 1) / n if operation in ("ALL_REDUCE", "REDUCE_SCATTER") else 0.0
    return Cost("collective", None, float(flops), bytes_link=int(tensor * share))


_INT64_MAX = 2**63 - 1


def layer_cost(layer: Layer) -> Cost:
    """MACs, FLOPs and bytes of one layer (``model`` says which formula applied).

    Counts beyond int64 (a corrupt file's dimensions, such as 10**30) are unknown (None); byte
    counts are clamped to int64, as the layer table's."""
    try:
        cost = _formula_cost(layer)
    except OverflowError:  # beyond the float range
        cost = None
    if cost is None:
        cost = Cost("opaque" if (layer.inputs or layer.outputs) else "none")
    for key in ("macs", "m", "n", "k"):
        value = getattr(cost, key)
        if value is not None and not -_INT64_MAX <= value <= _INT64_MAX:
            setattr(cost, key, None)
    if cost.flops is not None and not math.isfinite(cost.flops):
        cost.flops = None
    inputs = layer.activation_inputs
    read = [tensor.size_bytes for tensor in inputs]
    if read and cost.read_fraction < 1.0:  # a strided convolution reads part of its input
        read[0] = int(round(read[0] * cost.read_fraction))
    cost.bytes_in = min(sum(read), _INT64_MAX)
    cost.bytes_out = min(sum(tensor.size_bytes for tensor in layer.outputs), _INT64_MAX)
    cost.bytes_weights = min(layer.weights_size, _INT64_MAX)
    if (cost.model == "gemm" and len(layer.inputs) == 1 and not layer.weights_size and cost.n
            and cost.k):
        # A Myelin gemm whose B operand (the weights) is not listed: count K x N elements of A's type.
        cost.bytes_weights = min(int(cost.k * cost.n * layer.inputs[0].data_size), _INT64_MAX)
    if cost.model == "kv-cache" and len(inputs) > 1 and layer.outputs:
        # The output aliases the cache: only the update is read and written into it.
        cache = max(inputs, key=lambda t: t.size_bytes)
        update = [t for t in inputs if t is not cache]
        cost.bytes_in = min(sum(t.size_bytes for t in update), _INT64_MAX)
        cost.bytes_out = min(max(t.size_bytes for t in update), _INT64_MAX)
    elif cost.model == "moe" and cost.n is not None and cost.m is not None:
        n_experts = _int(layer.attribute("NumExperts")) or _dims(
            max((t for t in layer.inputs if len(t.shape) == 3),
                key=lambda t: _elements(t.shape)).shape)[0]
        active = min(n_experts, cost.m)  # cost.m = tokens x top-k
        cost.bytes_weights = int(cost.bytes_weights * active / max(n_experts, 1))
    if cost.bytes_in + cost.bytes_out + cost.bytes_weights > _INT64_MAX:
        cost.bytes_in = cost.bytes_out = cost.bytes_weights = _INT64_MAX // 3
    return cost


def attribute_keys(kind: str, subtype: str) -> tuple[str, ...]:
    """The attributes :func:`layer_cost` reads of a layer of this ``type`` and ``subtype`` (the
    dispatch of :func:`_formula_cost`): with the tensors and weights, all a cost depends on."""
    if kind == "Convolution":
        return _CONV_KEYS
    if kind == "Deconvolution":
        return ("Kernel", "Groups", "OutMaps")
    if kind == "ConvActPool":
        return (*("Conv" + key for key in _CONV_KEYS), "PoolingWindowSize")
    if kind in GEMM_TYPES or subtype in GEMM_TYPES:
        return ("OutMaps",)
    if kind in POOL_TYPES:
        return ("WindowSize",)
    if kind in ELEMENTWISE_OPS:
        return ("NbOperations",)
    if kind == "MoE":
        return ("NumExperts", "TopK")
    if kind == "DistCollective":
        return ("CollectiveOperation", "Ranks", "WorldSize")
    return ()


def _formula_cost(layer: Layer) -> Cost | None:
    """The cost by the layer's kind, before the byte counts; None when no formula applies."""
    cost: Cost | None = None
    t = layer.type if isinstance(layer.type, str) else str(layer.type)  # a corrupt file: a list
    sub = layer.subtype if isinstance(layer.subtype, str) else ""
    if t == "Convolution":
        cost = conv_cost(layer)
    elif t == "Deconvolution":
        cost = deconv_cost(layer)
    elif t == "ConvActPool":
        cost = conv_cost(layer, "Conv")
        if cost is not None:
            window = _ints(layer.attribute("PoolingWindowSize")) or [1]
            out = _elements(layer.outputs[0].shape) if layer.outputs else 0
            cost.flops = (cost.flops or 0) + float(out * math.prod(window))
            cost.model = "convactpool"
    elif t in GEMM_TYPES or sub in GEMM_TYPES:
        cost = gemm_cost(layer)
    elif t in POOL_TYPES:
        window = _ints(layer.attribute("WindowSize")) or [1]
        out = _elements(layer.outputs[0].shape) if layer.outputs else 0
        cost = Cost("pool", None, float(out * math.prod(window)))
    elif t in ELEMENTWISE_OPS:
        ops = _int(layer.attribute("NbOperations")) or ELEMENTWISE_OPS[t]
        out = max((_elements(o.shape) for o in layer.outputs), default=0)
        cost = Cost("pointwise", None, float(out * ops))
    elif t in MOVE_TYPES:
        cost = Cost("reformat" if t == "Reformat" else "memory", None, 0.0)
    elif t in ATTENTION_TYPES:
        cost = attention_cost(layer)
    elif t == "KVCacheUpdate":
        cost = Cost("kv-cache", None, 0.0)
    elif t == "MoE":
        cost = moe_cost(layer)
    elif t == "DistCollective":
        cost = collective_cost(layer)
    return cost
