"""An ONNX model's graph as the ONNX-operator comparison needs it: op types, order, data links.

Read with the ``onnx`` package (an optional dependency: ``pip install 'trex-explorer[onnx]'``),
without external weight data (only the weights' shapes are used). Q/DQ, Identity and Cast nodes
are transparent for the links: a Q/DQ export inserts them between the operators of the network,
so an operator's neighbours and its weights are looked up through them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError

__all__ = ["TRANSPARENT_OPS", "OnnxGraph", "read_onnx_graph"]

# Ops that pass their input through (up to scale or type): links are followed across them.
TRANSPARENT_OPS = frozenset({"QuantizeLinear", "DequantizeLinear", "Identity", "Cast"})
# Ops whose second input is a weights tensor (an initializer, possibly behind Q/DQ nodes).
_WEIGHTED_OPS = frozenset({"Conv", "ConvTranspose", "ConvInteger", "Gemm", "MatMul",
                           "MatMulInteger"})
_MAX_CHAIN = 16  # transparent nodes followed in a row


@dataclass
class OnnxGraph:
    """One ONNX model's nodes (by name): op type, topological position, the non-transparent
    nodes they read from (``"<input>"``: a network input) and their weights' shape."""

    path: str
    op_types: dict[str, str] = field(default_factory=dict)
    order: dict[str, int] = field(default_factory=dict)
    predecessors: dict[str, tuple[str, ...]] = field(default_factory=dict)
    weight_shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)

    def successors(self) -> dict[str, tuple[str, ...]]:
        """The inverse of :attr:`predecessors`."""
        out: dict[str, list[str]] = {}
        for node, preds in self.predecessors.items():
            for p in preds:
                out.setdefault(p, []).append(node)
        return {k: tuple(v) for k, v in out.items()}


NETWORK_INPUT = "<input>"


def read_onnx_graph(path: str | os.PathLike[str]) -> OnnxGraph:
    """The graph of the ONNX model at ``path``; :class:`~trex.errors.InputError` (one line) when
    the ``onnx`` package is missing or the file is not an ONNX model with named nodes."""
    path = os.fspath(path)
    try:
        import onnx
    except ImportError:
        raise InputError(None, "reading ONNX files (--onnx) needs the onnx package: "
                               "pip install 'trex-explorer[onnx]'") from None
    if not os.path.isfile(path):
        raise InputError(path, "no such ONNX file")
    try:
        model = onnx.load(path, load_external_data=False)
    except Exception as exc:  # protobuf's DecodeError and friends: one line, not a trace
        raise InputError(path, f"not an ONNX model ({type(exc).__name__})") from None
    graph = model.graph
    if not len(graph.node):
        raise InputError(path, "not an ONNX model (no graph nodes)")
    return _graph(path, graph)


def _graph(path: str, graph: Any) -> OnnxGraph:
    out = OnnxGraph(path)
    producer: dict[str, Any] = {}
    for node in graph.node:
        for t in node.output:
            producer[t] = node
    initializers = {t.name: tuple(int(d) for d in t.dims) for t in graph.initializer}
    inputs = {i.name for i in graph.input} - set(initializers)

    def sources(tensor: str, depth: int = 0) -> list[str]:
        """The non-transparent nodes (or the network input) a tensor comes from."""
        node = producer.get(tensor)
        if node is None:
            return [NETWORK_INPUT] if tensor in inputs else []
        if node.op_type == "Constant":
            return []
        if node.op_type in TRANSPARENT_OPS and depth < _MAX_CHAIN:
            return sources(node.input[0], depth + 1) if node.input else []
        return [node.name] if node.name else []

    def weight_shape(tensor: str, depth: int = 0) -> tuple[int, ...] | None:
        if tensor in initializers:
            return initializers[tensor]
        node = producer.get(tensor)
        if node is None or depth >= _MAX_CHAIN:
            return None
        if node.op_type == "Constant":
            for attr in node.attribute:
                if attr.name == "value":
                    return tuple(int(d) for d in attr.t.dims)
            return None
        if node.op_type in TRANSPARENT_OPS and node.input:
            return weight_shape(node.input[0], depth + 1)
        return None

    for k, node in enumerate(graph.node):
        if not node.name:
            continue  # TensorRT names such layers itself: no engine layer names this node
        out.op_types[node.name] = node.op_type
        out.order[node.name] = k
        data = list(node.input[:1]) if node.op_type in _WEIGHTED_OPS else list(node.input)
        preds = [s for t in data if t for s in sources(t)]
        out.predecessors[node.name] = tuple(dict.fromkeys(preds))
        if node.op_type in _WEIGHTED_OPS and len(node.input) > 1:
            shape = weight_shape(node.input[1])
            if shape is not None:
                out.weight_shapes[node.name] = shape
    return out
