"""ONNX export for Netron: accepted by onnx.checker, layers as nodes, tensors typed and shaped."""

from __future__ import annotations

import json
import warnings

import pytest

import trex
from helpers import require_module, require_program  # noqa: F401

warnings.simplefilter("ignore", trex.TrexWarning)


def _onnx():
    return require_module("onnx")  # the [graph] extra


ENGINES = [
    ("a100-resnet18-qat", None), ("torchtrt-alexnet-fp16", None), ("trex-mobilenet-qat", None),
    ("trex-mobilenet-v2-residuals-qat", None), ("trt10.16-mnist-fp32", None),
    ("trt10.16-multiprofile-oneline", 1), ("trt10.4-alexnet-fp16", None),
    ("trt8.6-resnet50-int8", None), ("trt10-detr-int8-names-only", None),
]


@pytest.mark.parametrize(("folder", "profile"), ENGINES)
def test_export_passes_checker(engines, folder, profile, tmp_path):
    onnx = _onnx()
    from trex.graph import export_onnx

    plan = trex.EnginePlan.from_path(engines / folder, profile_id=profile)
    for forking in (False, True):
        path = export_onnx(plan, tmp_path / "g.onnx", display_forking_regions=forking)
        model = onnx.load(path)
        onnx.checker.check_model(model, full_check=True)
        layer_nodes = [n for n in model.graph.node if n.op_type != "Region"]
        assert [n.name for n in layer_nodes] == [layer.name for layer in plan.all_layers]
        assert all(n.domain == "trt" for n in model.graph.node)
    inputs, outputs = plan.get_bindings()
    graph_inputs = {v.name for v in model.graph.input}
    assert {t.name for t in inputs} <= graph_inputs
    assert {v.name for v in model.graph.output} == {t.name for t in outputs}


def test_mobilenet_types_shapes_and_attributes(engines):
    onnx = _onnx()
    from trex.graph import to_onnx

    plan = trex.EnginePlan.from_path(engines / "trex-mobilenet-qat")
    model = to_onnx(plan)
    types = {v.name: v.type.tensor_type for v in
             (*model.graph.input, *model.graph.output, *model.graph.value_info)}
    first = plan.layers[0]
    assert types["input1"].elem_type == onnx.TensorProto.FLOAT
    assert [d.dim_value for d in types["input1"].shape.dim] == [1, 3, 224, 224]
    assert types[first.outputs[0].name].elem_type == onnx.TensorProto.INT8
    assert types["1179"].elem_type == onnx.TensorProto.FLOAT
    conv = next(n for n in model.graph.node if n.name == plan.layers[1].name)
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in conv.attribute}
    assert conv.op_type == "Convolution"
    assert attrs["Kernel"] == [3, 3] and attrs["OutMaps"] == 32
    assert json.loads(attrs["Weights"]) == {"Type": "Int8", "Count": 864}
    assert attrs["latency_ms"] == pytest.approx(plan.df["latency.avg_time"].iloc[1])
    # Node inputs follow the data flow: the conv reads what the Q/DQ reformat wrote.
    reformat = model.graph.node[0]
    assert conv.input[0] == reformat.output[0]


def _write(tmp_path, layers, bindings):
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"Layers": layers, "Bindings": bindings}))
    return trex.EnginePlan(path)


def test_every_precision_gets_its_onnx_type(tmp_path):
    onnx = _onnx()
    from trex.graph import to_onnx

    T = onnx.TensorProto
    formats = {"Row major linear FP32": T.FLOAT, "TF32": T.FLOAT, "Half": T.FLOAT16,
               "BFloat16": T.BFLOAT16, "FP8": T.FLOAT8E4M3FN,
               "Row major linear FP8E5M2": T.FLOAT8E5M2, "Int8": T.INT8, "UInt8": T.UINT8,
               "Int4": T.INT4, "FP4": T.FLOAT4E2M1, "Int32": T.INT32, "Int64": T.INT64,
               "Bool": T.BOOL, "Double": T.DOUBLE}
    layers, prev = [], "x"
    for i, fmt in enumerate(formats):
        layers.append({"Name": f"l{i}", "LayerType": "Cast",
                       "Inputs": [{"Name": prev, "Dimensions": [-1, 4], "Format/Datatype": "Float"}],
                       "Outputs": [{"Name": f"t{i}", "Dimensions": [-1, 4], "Format/Datatype": fmt}]})
        prev = f"t{i}"
    model = to_onnx(_write(tmp_path, layers, ["x", prev]))
    onnx.checker.check_model(model, full_check=True)
    types = {v.name: v.type.tensor_type for v in (*model.graph.value_info, *model.graph.output)}
    assert [types[f"t{i}"].elem_type for i in range(len(formats))] == list(formats.values())
    dim = types["t0"].shape.dim[0]
    assert not dim.HasField("dim_value")  # -1: a dynamic dimension


def test_region_nodes_join_several_writers(tmp_path):
    """Two layers writing one buffer (in-place concatenation) stay single-assignment in ONNX."""
    onnx = _onnx()
    from trex.graph import to_onnx

    def act(name):
        return {"Name": name, "Dimensions": [1, 4], "Format/Datatype": "Half"}

    layers = [{"Name": "a", "LayerType": "Slice", "Inputs": [act("x")], "Outputs": [act("cat")]},
              {"Name": "b", "LayerType": "Slice", "Inputs": [act("x")], "Outputs": [act("cat")]},
              {"Name": "c", "LayerType": "Shuffle", "Inputs": [act("cat")], "Outputs": [act("y")]},
              {"Name": "s", "LayerType": "signal", "Inputs": [], "Outputs": [], "StreamId": 1}]
    model = to_onnx(_write(tmp_path, layers, ["x", "y"]))
    onnx.checker.check_model(model, full_check=True)
    region = next(n for n in model.graph.node if n.op_type == "Region")
    assert list(region.output) == ["cat"] and len(region.input) == 2
    assert [n.name for n in model.graph.node].index(region.name) < 3  # before its reader "c"
    signal = next(n for n in model.graph.node if n.name == "s")
    assert list(signal.output) == ["s:done"]  # ONNX needs at least one tensor per node
