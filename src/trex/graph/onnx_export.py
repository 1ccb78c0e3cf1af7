"""Export the engine graph as an ONNX model for Netron: layers as nodes, tensors typed and shaped.

Nodes use the custom domain ``trt`` (op type = TREx's layer type), so ``onnx.checker`` accepts
them. Tensors are renamed into single-assignment form per memory-region generation; a generation
written by several layers gets a ``Region`` node joining the writes.
"""

from __future__ import annotations

import json
import math
import os
import re
from typing import Any

from ..model.layer import Layer
from ..model.protocol import PlanLike
from ..model.tensors import Activation
from .escape import clean
from .formatters import plan_latencies
from .regions import binding_checker, regions_factory

DOMAIN = "trt"
_SKIP = {"InputRegions", "OutputRegions", "Inputs", "Outputs", "Name", "name", "ParameterType",
         "LayerName"}
# TREx precision -> onnx.TensorProto name (FP8 refined by the format string).
_ONNX_TYPES = {
    "FP32": "FLOAT", "TF32": "FLOAT", "FP16": "FLOAT16", "BF16": "BFLOAT16",
    "FP8": "FLOAT8E4M3FN", "FP4": "FLOAT4E2M1", "INT4": "INT4", "UINT4": "UINT4",
    "INT8": "INT8", "UINT8": "UINT8", "INT16": "INT16", "UINT16": "UINT16", "INT32": "INT32",
    "UINT32": "UINT32", "INT64": "INT64", "UINT64": "UINT64", "FP64": "DOUBLE", "Bool": "BOOL",
    "COMPLEX64": "COMPLEX64", "COMPLEX128": "COMPLEX128",
}
_INT64 = (-(2**63), 2**63 - 1)


def onnx_elem_type(tensor: Activation) -> int:
    """The ``onnx.TensorProto`` element type of a tensor (FLOAT when unknown or unsupported)."""
    import onnx

    name = _ONNX_TYPES.get(tensor.precision, "FLOAT")
    if tensor.precision == "FP8" and tensor.tensor_format.e5m2:
        name = "FLOAT8E5M2"
    return int(getattr(onnx.TensorProto, name, onnx.TensorProto.FLOAT))


def _op_type(layer: Layer) -> str:
    op = re.sub(r"[^A-Za-z0-9_]", "_", clean(layer.type)) or "Unknown"
    return op if not op[0].isdigit() else f"_{op}"


def _attribute_value(value: Any) -> Any:
    """A value ``onnx.helper.make_attribute`` accepts, or None to skip the attribute."""
    if value is None:
        return None
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value if _INT64[0] <= value <= _INT64[1] else str(value)
    if isinstance(value, float):
        return value
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, (list, tuple)) and value:
        if all(isinstance(v, int) and not isinstance(v, bool) and _INT64[0] <= v <= _INT64[1]
               for v in value):
            return list(value)
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            return [float(v) for v in value]
        if all(isinstance(v, str) for v in value):
            return [clean(v) for v in value]
    return clean(json.dumps(value, default=str, ensure_ascii=False))


class OnnxGraph:
    """A plan as an ONNX model (TREx's OnnxGraph): ``onnx_model`` is an ``onnx.ModelProto``."""

    def __init__(self, plan: PlanLike, display_forking_regions: bool = False):
        import onnx
        from onnx import helper

        self.plan = plan
        self._used: set[str] = set()
        latencies = plan_latencies(plan)
        drawn = [layer for layer in plan.all_layers]
        events_plan = _EventsView(plan, [layer for layer in drawn
                                         if layer.type not in ("signal", "wait")])
        regions = regions_factory(events_plan)
        is_binding = binding_checker(plan)
        out_name: dict[tuple[str, int], str] = {}
        in_name: dict[tuple[str, int], str] = {}
        value_info: dict[str, Activation] = {}
        graph_inputs: list[Any] = []
        graph_outputs: list[Any] = []
        region_nodes: list[Any] = []
        by_name = {layer.name: layer for layer in drawn}

        for region in regions:
            gens = region.generations
            for gen in gens:
                tid = self._unique(region.name if len(gens) == 1 else f"{region.name}#{gen.id}")
                # The writer's view of the tensor (the region keeps the widest of all views).
                tensor = (by_name[gen.writers[0].layer_name].outputs[gen.writers[0].port]
                          if gen.writers else gen.tensor)
                target = tid
                if display_forking_regions and len(gen.readers) > 1 and gen.writers:
                    # A forked generation: writers feed a Region node that fans out to readers.
                    target = self._unique(f"{tid}#fork")
                    region_nodes.append(helper.make_node("Region", [target], [tid],
                                                         name=self._unique(f"region {tid}"),
                                                         domain=DOMAIN))
                    value_info[target] = tensor
                if len(gen.writers) == 1:
                    w = gen.writers[0]
                    out_name[(w.layer_name, w.port)] = target
                elif len(gen.writers) > 1:
                    parts = []
                    for k, w in enumerate(gen.writers):
                        part = self._unique(f"{target}#w{k}")
                        out_name[(w.layer_name, w.port)] = part
                        parts.append(part)
                        value_info[part] = tensor
                    region_nodes.append(helper.make_node("Region", parts, [target],
                                                         name=self._unique(f"region {target}"),
                                                         domain=DOMAIN))
                elif gen.id == 0:
                    doc = "" if is_binding(region.name) else "no producer: constant or weights"
                    graph_inputs.append(self._value_info(tid, tensor, doc))
                for r in gen.readers:
                    in_name[(r.layer_name, r.port)] = tid
                if is_binding(region.name) and gen is gens[-1] and gen.writers:
                    graph_outputs.append(self._value_info(tid, tensor))
                elif gen.writers or gen.id > 0:
                    value_info[tid] = tensor

        layer_nodes = []
        chain = getattr(plan, "detailed", True) is False
        previous_token = None
        for layer in drawn:
            inputs = [in_name.get((layer.name, p), "") for p in range(len(layer.inputs))]
            outputs = [out_name.get((layer.name, p)) or self._unique(f"{layer.name}:out{p}")
                       for p in range(len(layer.outputs))]
            if not inputs and not outputs:
                # ONNX rejects nodes without tensors: give each an order token (names-only plans
                # chain them in execution order).
                if chain and previous_token:
                    inputs = [previous_token]
                previous_token = self._unique(f"{clean(layer.name)}:done")
                outputs = [previous_token]
            node = helper.make_node(_op_type(layer), inputs, outputs,
                                    name=self._unique(clean(layer.name)), domain=DOMAIN)
            for key, value in sorted(layer.exported_fields().items()):
                converted = _attribute_value(value)
                key = clean(key)
                if key in _SKIP or not key or converted is None:
                    continue
                node.attribute.append(helper.make_attribute(key, converted))
            latency = latencies.get(layer.name)
            if latency and not math.isnan(latency):
                node.attribute.append(helper.make_attribute("latency_ms", float(latency)))
            layer_nodes.append(node)

        # Each Region node goes right after the last layer writing into it.
        position = {name: i for i, node in enumerate(layer_nodes) for name in node.output}
        after: dict[int, list[Any]] = {}
        for region_node in region_nodes:
            last = max((position.get(name, -1) for name in region_node.input), default=-1)
            after.setdefault(last, []).append(region_node)
        ordered = list(after.get(-1, []))
        for i, node in enumerate(layer_nodes):
            ordered.append(node)
            ordered.extend(after.get(i, []))
        nodes = _topological(ordered)
        infos = [self._value_info(name, t) for name, t in value_info.items()]
        graph = helper.make_graph(nodes, clean(getattr(plan, "name", "engine")) or "engine",
                                  graph_inputs, graph_outputs, value_info=infos)
        from .. import __version__

        self.onnx_model = helper.make_model(
            graph, producer_name="trex", producer_version=__version__,
            opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(DOMAIN, 1)])
        self.onnx_model.doc_string = "TensorRT engine graph exported by trex (not runnable)"
        self._onnx = onnx

    def _unique(self, name: str) -> str:
        base = clean(name) or "_"
        candidate, n = base, 1
        while candidate in self._used:
            n += 1
            candidate = f"{base}~{n}"
        self._used.add(candidate)
        return candidate

    @staticmethod
    def _value_info(name: str, tensor: Activation, doc: str = "") -> Any:
        from onnx import helper

        dims = [d if isinstance(d, int) and d >= 0 else None for d in tensor.shape]
        info = helper.make_tensor_value_info(name, onnx_elem_type(tensor), dims, doc_string=doc)
        return info


class _EventsView:
    """The slice of a plan ``regions_factory`` reads, with Constant layers counted as writers."""

    def __init__(self, plan: PlanLike, layers: list[Layer]):
        self.layers = layers
        self.bindings = plan.bindings


def _topological(nodes: list[Any]) -> list[Any]:
    """Nodes ordered so every input is produced first (stable; a cycle keeps its input order)."""
    producer = {out: i for i, node in enumerate(nodes) for out in node.output}
    remaining = [0] * len(nodes)
    users: list[list[int]] = [[] for _ in nodes]
    for i, node in enumerate(nodes):
        for name in node.input:
            j = producer.get(name)
            if j is not None and j != i:
                remaining[i] += 1
                users[j].append(i)
    import heapq

    ready = [i for i, r in enumerate(remaining) if r == 0]
    heapq.heapify(ready)
    order: list[int] = []
    placed = [False] * len(nodes)
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        placed[i] = True
        for u in users[i]:
            remaining[u] -= 1
            if remaining[u] == 0:
                heapq.heappush(ready, u)
    order.extend(i for i in range(len(nodes)) if not placed[i])
    return [nodes[i] for i in order]


def to_onnx(plan: PlanLike, display_forking_regions: bool = False) -> Any:
    """The plan's graph as an ``onnx.ModelProto``."""
    return OnnxGraph(plan, display_forking_regions).onnx_model


def export_onnx(plan: PlanLike, path: str | os.PathLike, display_forking_regions: bool = False) -> str:
    """Write the plan's graph as an ONNX file for Netron; return its absolute path (written
    whole through :func:`trex.outputs.atomic_write`, never a truncated file)."""
    from ..outputs import atomic_write

    data = to_onnx(plan, display_forking_regions).SerializeToString()
    out = os.path.abspath(path)
    with atomic_write(out, "wb", what="the ONNX file") as f:
        f.write(data)
    return out
