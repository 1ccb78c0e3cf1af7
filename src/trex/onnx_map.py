"""Engine layer <-> ONNX node table, and latency per ONNX node and per ONNX op type.

Nodes come from each layer's ``Metadata`` (TensorRT 8.6+). Older or names-only plans fall back to
the layer name, which TensorRT builds by joining the fused nodes with `` + `` (``PWN(...)`` unwrapped,
weight initialisers such as ``conv1.weight`` and ``onnx::Mul_12`` constants dropped). Layers that
TensorRT inserted (reformats, Myelin helpers) map to no node and are kept under ``(TensorRT)``.

The op type is guessed from the node name (ONNX exporters name nodes after their op): the last
``/`` segment, without ``node_``/``onnx::`` prefixes and ``_12``/``.3``/``_clone_1`` suffixes, is
matched case-insensitively against ONNX operator names (``/features/features.0/Conv`` -> ``Conv``,
``QuantizeLinear_8`` -> ``QuantizeLinear``); a few PyTorch spellings are translated
(``node_conv2d`` -> ``Conv``, ``linear`` -> ``Gemm``); ``(Unnamed Layer* 7) [Shuffle]`` gives the
TensorRT layer kind in brackets; anything else is ``Unknown``.

A layer's latency goes to its compute-heavy nodes (Conv, Gemm, MatMul, ...) when it has any, split
equally between them, else equally between all its nodes (``split="equal"`` always splits equally).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from .model.latency import group_latency
from .model.layer import Layer
from .model.plan import EnginePlan
from .model.profiles import strip_profile

TENSORRT = "(TensorRT)"  # pseudo-node of layers that no ONNX node produced

ONNX_OPS = (
    "Abs Acos Acosh Add And ArgMax ArgMin Asin Asinh Atan Atanh AveragePool BatchNormalization "
    "BitShift Cast CastLike Ceil Celu Clip Compress Concat ConcatFromSequence Constant "
    "ConstantOfShape Conv ConvInteger ConvTranspose Cos Cosh CumSum DepthToSpace DequantizeLinear "
    "Det Div Dropout DynamicQuantizeLinear Einsum Elu Equal Erf Exp Expand EyeLike Flatten Floor "
    "Gather GatherElements GatherND Gelu Gemm GlobalAveragePool GlobalLpPool GlobalMaxPool Greater "
    "GreaterOrEqual GridSample GroupNormalization HardSigmoid HardSwish Hardmax Identity If "
    "InstanceNormalization IsInf IsNaN LRN LSTM LayerNormalization LeakyRelu Less LessOrEqual Log "
    "LogSoftmax Loop LpNormalization LpPool MatMul MatMulInteger Max MaxPool MaxRoiPool MaxUnpool "
    "Mean Min Mish Mod Mul Multinomial Neg NonMaxSuppression NonZero Not OneHot Or PRelu Pad Pow "
    "QLinearConv QLinearMatMul QuantizeLinear RNN RandomNormal RandomUniform Range Reciprocal "
    "ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp ReduceMax ReduceMean ReduceMin ReduceProd "
    "ReduceSum ReduceSumSquare Relu Reshape Resize RoiAlign Round ScatterElements ScatterND Selu "
    "Shape Shrink Sigmoid Sign Sin Sinh Size Slice Softmax Softplus Softsign SpaceToDepth Split "
    "Sqrt Squeeze Sub Sum Tan Tanh ThresholdedRelu Tile TopK Transpose Trilu Unique Unsqueeze "
    "Upsample Where Xor Attention RotaryEmbedding RMSNormalization "
    # TensorRT's and ModelOpt's custom operators of LLM exports (quantizers, KV cache, MoE and
    # multi-device collectives)
    "TRT_FP4DynamicQuantize TRT_MXFP8DynamicQuantize TRT_FP8QuantizeLinear "
    "TRT_FP8DequantizeLinear KVCacheUpdate MoE AllReduce AllGather ReduceScatter AllToAll"
).split()
_ONNX_BY_LOWER = {op.lower(): op for op in ONNX_OPS}
# PyTorch (dynamo / Torch-TensorRT) spellings of ONNX ops.
_ALIASES = {
    "conv2d": "Conv", "conv1d": "Conv", "conv3d": "Conv", "convolution": "Conv",
    "conv_transpose2d": "ConvTranspose", "linear": "Gemm", "addmm": "Gemm", "mm": "MatMul",
    "bmm": "MatMul", "matmul": "MatMul", "max_pool2d": "MaxPool", "max_pool1d": "MaxPool",
    "avg_pool2d": "AveragePool", "adaptive_avg_pool2d": "GlobalAveragePool",
    "batch_norm": "BatchNormalization", "layer_norm": "LayerNormalization", "softmax": "Softmax",
    "log_softmax": "LogSoftmax", "relu": "Relu", "gelu": "Gelu", "silu": "Mul", "sigmoid": "Sigmoid",
    "tanh": "Tanh", "add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "cat": "Concat",
    "view": "Reshape", "reshape": "Reshape", "flatten": "Flatten", "permute": "Transpose",
    "transpose": "Transpose", "max": "Max", "mean": "ReduceMean", "sum": "ReduceSum",
    "quantize_per_tensor": "QuantizeLinear", "dequantize_per_tensor": "DequantizeLinear",
}
_HEAD_RE = re.compile(r"[_.]")  # an op name's head ends at the first of these
_BRACKET_RE = re.compile(r"\[([A-Za-z_]+)\]\s*$")
_TORCH_TRT_RE = re.compile(r"^\[([A-Z_]+)\]-\[([^\]]*)\]-\[(.*)\]$")
# `` + `` between fused nodes, or ``, ``; a `` + `` match starts only where a run of spaces does
# (the look-behind), so a long run of spaces is scanned once, not once per position.
_SPLIT_RE = re.compile(r"(?<!\s)\s+\+\s+|,\s+")
_NUMBERED_SUFFIXES = ("_clone_", "_output_", "_", ".")  # before a number; longest first
_INITIALIZER_RE = re.compile(r"(?:^onnx::|[._](?:weight|bias)$|_constant_\d+$|^\(Unnamed Layer)")
_INITIALIZER_PREFIXES = ("onnx::", "(Unnamed Layer")  # the expression's anchored alternatives
# Names of layers TensorRT made itself: no ONNX node behind them.
_TENSORRT_NAME_RE = re.compile(
    r"^(?:Reformatting CopyNode|__my|\{ForeignNode)|shape_call|_myl\d+_\d+$|(?:in|out)put reformatter \d+$")
_TENSORRT_PREFIXES = ("Reformatting CopyNode", "__my", "{ForeignNode")
HEAVY_OPS = frozenset({"Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "Gemm", "MatMul",
                       "MatMulInteger", "QLinearMatMul", "Einsum", "Attention", "LSTM", "RNN", "GRU"})


@lru_cache(maxsize=65536)
def onnx_op_type(node: str) -> str:
    """Guess the ONNX op type of a node from its name (see the module docstring for the rules)."""
    text = node.strip()
    torch_trt = _TORCH_TRT_RE.match(text)
    if torch_trt:  # Torch-TensorRT: [KIND]-[aten_ops.name.overload]-[/path/name]
        aten = torch_trt.group(2).split(".")
        text = aten[1] if len(aten) > 1 else torch_trt.group(3)
    bracket = _BRACKET_RE.search(text) if text.startswith("(Unnamed Layer") else None
    if bracket:
        return bracket.group(1)
    token = text.rstrip("/").rsplit("/", 1)[-1]
    for prefix in ("node_", "onnx::"):
        if token.startswith(prefix):
            token = token[len(prefix):]
    token = strip_node_suffixes(token)
    lower = token.lower()
    if lower in _ONNX_BY_LOWER:
        return _ONNX_BY_LOWER[lower]
    if lower in _ALIASES:
        return _ALIASES[lower]
    head = _HEAD_RE.split(token, maxsplit=1)[0].lower()
    return _ONNX_BY_LOWER.get(head) or _ALIASES.get(head) or "Unknown"


def strip_node_suffixes(token: str) -> str:
    """``Conv_12``, ``add.3``, ``mul_clone_1``, ``x_output_0``, ``gelu_default`` (repeated, at the
    end) -> the base name. String methods from the end, linear in the name (a regular expression
    ``(?:_[0-9]+|...)+$`` retries from every ``_`` and is quadratic on ``Conv_1_1_1...``)."""
    end = len(token)
    while end > 0:
        if token.endswith("_default", 0, end):
            end -= len("_default")
            continue
        digits = end
        while digits > 0 and token[digits - 1].isdecimal():
            digits -= 1
        if digits == end:
            break
        for sep in _NUMBERED_SUFFIXES:
            if token.endswith(sep, 0, digits):
                end = digits - len(sep)
                break
        else:
            break
    return token[:end]


def nodes_from_name(name: str) -> list[str]:
    """The ONNX nodes a fused layer's name lists (``a + PWN(b, c)`` -> ``[a, b, c]``)."""
    return list(_nodes_from_name(name))


@lru_cache(maxsize=16384)  # the linters, the mapping and the report ask for the same layers' nodes
def _nodes_from_name(name: str) -> tuple[str, ...]:
    # Each regular expression runs only where a substring it needs is there (the same answers;
    # searching every name of a 10,000-layer plan cost more than the rest of the mapping).
    if name.startswith(_TENSORRT_PREFIXES) or "shape_call" in name or (
            ("_myl" in name or "put reformatter " in name) and _TENSORRT_NAME_RE.search(name)):
        return ()
    nodes = []
    for part in _SPLIT_RE.split(name) if "+" in name or "," in name else (name,):
        part = part.strip()
        start = 0
        while part.startswith("PWN(", start):
            start += 4
        part = part[start:]
        part = part.rstrip(")").strip() if part.count(")") > part.count("(") else part.strip()
        if part and not (part.startswith(_INITIALIZER_PREFIXES) or (
                ("weight" in part or "bias" in part or "_constant_" in part)
                and _INITIALIZER_RE.search(part))):
            nodes.append(part)
    return tuple(nodes)


def layer_onnx_nodes(layer: Layer, use_names: bool = True) -> tuple[list[str], str]:
    """The ONNX nodes a layer implements and where they came from: its ``Metadata``, else (with
    ``use_names``) the node names its fused name lists (``name``), else none (``none``)."""
    nodes = list(layer.onnx_nodes)
    if nodes:
        return nodes, "Metadata"
    if use_names:
        nodes = nodes_from_name(layer.name)
        if nodes:
            return nodes, "name"
    return [], "none"


def plan_onnx_nodes(plan: EnginePlan, use_names: bool = True) -> list[tuple[list[str], str]]:
    """:func:`layer_onnx_nodes` of each of ``plan.layers``, from a whole plan's columns (no Layer
    objects made), computed once per plan (the mapping, the report and its header read it)."""
    if not isinstance(plan, EnginePlan):  # a selection of layers
        return [layer_onnx_nodes(layer, use_names) for layer in plan.layers]
    cache = plan.__dict__.setdefault("_onnx_nodes", {})
    found = cache.get(use_names)
    if found is None:
        found = cache[use_names] = [
            (list(nodes), "Metadata") if nodes else
            (named, "name") if use_names and (named := nodes_from_name(name)) else ([], "none")
            for nodes, name in zip(plan.layer_values("onnx_nodes"), plan.column("Name"))]
    return found


def plan_onnx_ops(plan: EnginePlan, use_names: bool = True) -> list[list[str]]:
    """The guessed op types of :func:`plan_onnx_nodes`'s nodes, per layer, each node's guessed
    once per plan (a big plan has more nodes than :func:`onnx_op_type` remembers)."""
    whole = isinstance(plan, EnginePlan)
    cache = plan.__dict__.setdefault("_onnx_nodes", {}) if whole else {}
    found = cache.get(("ops", use_names))
    if found is None:
        memo: dict[str, str] = {}
        found = [[memo[n] if n in memo else memo.setdefault(n, onnx_op_type(n)) for n in nodes]
                 for nodes, _ in plan_onnx_nodes(plan, use_names)]
        if whole:
            cache[("ops", use_names)] = found
    return found


def _layer_latencies(plan: EnginePlan) -> np.ndarray:
    """``latency.avg_time`` of each layer (a whole plan's column: no DataFrame made)."""
    if isinstance(plan, EnginePlan):
        return np.asarray(plan.column("latency.avg_time"), dtype="float64")
    return plan.df["latency.avg_time"].to_numpy(dtype="float64") if len(plan.df) else np.zeros(0)


def onnx_sources_text(sources: list[str]) -> str:
    """Where a plan's layers' ONNX node names come from, in words, from each layer's source
    (:func:`layer_onnx_nodes`): ``Metadata (56 of 57 layers)``, ``from layer names (71 of 72
    layers)``, both with their counts, or ``none``. "Metadata" is said only of names that came
    from it."""
    counts = {source: sources.count(source) for source in ("Metadata", "name")}
    total = len(sources)
    if counts["Metadata"] and counts["name"]:
        return (f"Metadata ({counts['Metadata']:,} layers), from layer names "
                f"({counts['name']:,} layers) of {total:,}")
    if counts["Metadata"]:
        return f"Metadata ({counts['Metadata']:,} of {total:,} layers)"
    if counts["name"]:
        return f"from layer names ({counts['name']:,} of {total:,} layers)"
    return "none"


_MYELIN_KERNEL_RE = re.compile(r"_(myl\d+)_\d+$")
_FOREIGN_NODE_RE = re.compile(r"^\{ForeignNode\[.*\]\}$")


def myelin_region_of(layer: Layer) -> str:
    """The Myelin region (ForeignNode) a layer belongs to: ``myl3`` for the kernels TensorRT
    names ``..._myl3_<k>`` (detailed exports), the ``{ForeignNode[...]}`` name of an opaque region
    (names-only exports), else ``""``."""
    return myelin_region_of_name(layer.name)


def myelin_region_of_name(name: str) -> str:
    """:func:`myelin_region_of` a layer of this name."""
    if "_myl" not in name and "{ForeignNode" not in name:
        return ""  # the usual case, without a regular expression
    name = strip_profile(name)
    kernel = _MYELIN_KERNEL_RE.search(name)
    if kernel:
        return kernel.group(1)
    return name if _FOREIGN_NODE_RE.match(name) else ""


@dataclass
class MyelinRegion:
    """One Myelin region: its layers (``plan.layers`` indices), the ONNX nodes of their Metadata
    in order, the op type of each (:func:`onnx_op_type`) counted, and the region's time (the sum
    of its kernels': Myelin does not time the operators inside a kernel)."""

    label: str
    rows: list[int]
    nodes: list[str]
    ops: dict[str, int]
    latency_ms: float

    def ops_text(self, limit: int = 12) -> str:
        """``Add ×2, Pow, ReduceMean`` (most frequent first, at most ``limit`` kinds)."""
        items = sorted(self.ops.items(), key=lambda kv: (-kv[1], kv[0]))
        shown = [f"{op} \u00d7{n}" if n > 1 else op for op, n in items[:limit]]
        more = len(items) - limit
        return ", ".join(shown) + (f", +{more} more kinds" if more > 0 else "")


def myelin_regions(plan: EnginePlan) -> list[MyelinRegion]:
    """The plan's Myelin regions in layer order, with the ONNX operators of their Metadata."""
    latency = _layer_latencies(plan)
    found: dict[str, MyelinRegion] = {}
    if isinstance(plan, EnginePlan):  # the plan's columns
        names, nodes_of = plan.column("Name"), plan.layer_values("onnx_nodes")
    else:
        names = [layer.name for layer in plan.layers]
        nodes_of = [layer.onnx_nodes for layer in plan.layers]
    for index, (name, nodes) in enumerate(zip(names, nodes_of)):
        label = myelin_region_of_name(name)
        if not label:
            continue
        region = found.setdefault(label, MyelinRegion(label, [], [], {}, 0.0))
        region.rows.append(index)
        for node in nodes:
            if node not in region.nodes:
                region.nodes.append(node)
                op = onnx_op_type(node)
                region.ops[op] = region.ops.get(op, 0) + 1
        if index < len(latency) and not np.isnan(latency[index]):
            region.latency_ms += float(latency[index])
    return list(found.values())


def onnx_mapping(plan: EnginePlan, use_names: bool = True, split: str = "dominant",
                 op_types: Mapping[str, str] | None = None) -> pd.DataFrame:
    """One row per (engine layer, ONNX node) with the node's guessed op type and latency share.

    ``source`` says where the node came from: ``Metadata``, ``name`` (fallback) or ``none``;
    ``split`` is ``"dominant"`` (time to the compute-heavy nodes) or ``"equal"``; ``op_types``
    (node name -> op type, e.g. read from the ONNX file) replaces the guess for the nodes it names.
    """
    if split not in ("dominant", "equal"):
        raise ValueError(f"split must be 'dominant' or 'equal', not {split!r}")
    layer_col, type_col, node_col, op_col, source_col, count_col, idx_col, weight_col = \
        [], [], [], [], [], [], [], []
    region_col: list[str] = []
    whole = isinstance(plan, EnginePlan)
    names = plan.column("Name") if whole else [layer.name for layer in plan.layers]
    types = plan.column("type") if whole else [layer.type for layer in plan.layers]
    for index, ((nodes, source), ops) in enumerate(zip(plan_onnx_nodes(plan, use_names),
                                                       plan_onnx_ops(plan, use_names))):
        region = myelin_region_of_name(names[index])
        if not nodes:
            nodes, ops = [TENSORRT], [TENSORRT]
        elif TENSORRT in nodes or op_types:  # the pseudo-node's name; op types given
            ops = [TENSORRT if n == TENSORRT else (op_types.get(n) if op_types else None) or op
                   for n, op in zip(nodes, ops)]
        k = len(nodes)
        heavy = [op in HEAVY_OPS for op in ops] if split == "dominant" else []
        n_heavy = sum(heavy)
        # a layer's rows at once: its values repeated, its nodes' weights in one list
        layer_col += [names[index]] * k
        type_col += [types[index]] * k
        node_col += nodes
        op_col += ops
        source_col += [source] * k
        count_col += [k] * k
        idx_col += [index] * k
        region_col += [region] * k
        weight_col += [1.0 / n_heavy if h else 0.0 for h in heavy] if n_heavy else [1.0 / k] * k
    latency = _layer_latencies(plan)
    idx = np.asarray(idx_col, dtype="int64")
    counts = np.asarray(count_col, dtype="int64")
    layer_ms = latency[idx] if len(idx) else np.zeros(0)
    weights = np.asarray(weight_col, dtype="float64")
    return pd.DataFrame({
        "layer": layer_col,
        "layer_type": type_col,
        "onnx_node": node_col,
        "onnx_op": op_col,
        "source": source_col,
        "nodes_in_layer": counts,
        "layer_latency_ms": layer_ms,
        "latency_ms": layer_ms * weights,
        "layer_index": idx,
        "myelin_region": region_col,
    })


def _latency_table(mapping: pd.DataFrame, key: list[str]) -> pd.DataFrame:
    """Per ``key``: layers, timed layers, latency (each layer's time split between its nodes; NaN
    when none of its layers is timed) and share (:func:`~trex.model.latency.group_latency`)."""
    return group_latency({k: mapping[k].tolist() for k in key},
                         mapping["latency_ms"].to_numpy(dtype="float64"),
                         count_of=mapping["layer_index"].tolist(), count_name="layers")


def latency_by_onnx_node(plan: EnginePlan, use_names: bool = True, split: str = "dominant") -> pd.DataFrame:
    """Latency (ms, each layer's time split between its nodes) per ONNX node, slowest first."""
    return _latency_table(onnx_mapping(plan, use_names, split), ["onnx_node", "onnx_op"])


def latency_by_onnx_op(plan: EnginePlan, use_names: bool = True, split: str = "dominant") -> pd.DataFrame:
    """Node count, layer count and latency per guessed ONNX op type, slowest first."""
    mapping = onnx_mapping(plan, use_names, split)
    out = _latency_table(mapping, ["onnx_op"])
    nodes = mapping.groupby("onnx_op", sort=False)["onnx_node"].nunique()
    out.insert(1, "nodes", out["onnx_op"].map(nodes).fillna(0).astype("int64"))
    # Inside Myelin regions: the op's nodes there, and their time, which is the region kernels'
    # time split between the nodes of each kernel (Myelin times kernels, not operators)
    in_region = mapping["myelin_region"].to_numpy() != ""
    if not in_region.any():
        out["myelin_nodes"] = np.zeros(len(out), dtype="int64")
        out["myelin_ms"] = np.full(len(out), np.nan)
        return out
    inside = mapping[in_region]
    counted = inside.groupby("onnx_op", sort=False)["onnx_node"].nunique()
    timed = inside.groupby("onnx_op", sort=False)["latency_ms"].sum(min_count=1)
    out["myelin_nodes"] = out["onnx_op"].map(counted).fillna(0).astype("int64")
    out["myelin_ms"] = out["onnx_op"].map(timed).astype("float64")
    return out


def layer_nodes(plan: EnginePlan, use_names: bool = True) -> pd.DataFrame:
    """One row per engine layer: the ONNX nodes it fused, their op types and how many."""
    rows = plan_onnx_nodes(plan, use_names)
    whole = isinstance(plan, EnginePlan)
    return pd.DataFrame({
        "layer": plan.column("Name") if whole else [layer.name for layer in plan.layers],
        "layer_type": plan.column("type") if whole else [layer.type for layer in plan.layers],
        "onnx_nodes": [list(nodes) for nodes, _ in rows],
        "onnx_ops": [sorted(set(ops)) for ops in plan_onnx_ops(plan, use_names)],
        "nodes": np.array([len(nodes) for nodes, _ in rows], dtype="int64"),
        "source": [source for _, source in rows],
        "latency_ms": _layer_latencies(plan),
    }, columns=["layer", "layer_type", "onnx_nodes", "onnx_ops", "nodes", "source", "latency_ms"])
