"""Engine layer <-> ONNX node table on real engines; op types guessed from node names."""

from __future__ import annotations

import warnings

import pytest

import trex
from trex.onnx_map import (
    TENSORRT,
    latency_by_onnx_node,
    latency_by_onnx_op,
    layer_nodes,
    nodes_from_name,
    onnx_mapping,
    onnx_op_type,
)

warnings.simplefilter("ignore", trex.TrexWarning)


@pytest.mark.parametrize("node, op", [
    ("/features/features.0/Conv", "Conv"),
    ("/classifier/classifier.1/Gemm", "Gemm"),
    ("QuantizeLinear_8", "QuantizeLinear"),
    ("Clip_16", "Clip"),
    ("GlobalAveragePool_843", "GlobalAveragePool"),
    ("/model/model/encoder/layers.0/self_attn/Softmax", "Softmax"),
    ("/model/model/Transpose_1_output_0_clone_3", "Transpose"),
    ("node_conv2d_1", "Conv"),
    ("node_max_pool2d", "MaxPool"),
    ("node_linear", "Gemm"),
    ("onnx::MatMul_1172", "MatMul"),
    ("(Unnamed Layer* 849) [Shuffle]", "Shuffle"),
    ("[CONVOLUTION]-[aten_ops.convolution.default]-[/features/0/convolution]", "Conv"),
    ("[RELU]-[aten_ops.relu.default]-[/features/1/relu]", "Relu"),
    ("conv1/7x7_s2", "Unknown"),
])
def test_op_type_heuristic(node, op):
    assert onnx_op_type(node) == op


def test_nodes_from_fused_names():
    assert nodes_from_name("features.0.0.weight + QuantizeLinear_8 + Conv_12 + PWN(Clip_16)") == \
        ["QuantizeLinear_8", "Conv_12", "Clip_16"]
    assert nodes_from_name("PWN(PWN(/Sub), PWN(/Div))") == ["/Sub", "/Div"]
    assert nodes_from_name("Reformatting CopyNode for Input Tensor 0 to Conv_12") == []
    assert nodes_from_name("__myl_MoveMeanSubMulMeanAddSqrtDivMulMulAdd_myl98_0") == []
    assert nodes_from_name("dummy_shape_call__mye622_0_myl9_0") == []


def test_metadata_mapping_alexnet(plan):
    p = plan("trt10.4-alexnet-fp16")
    m = onnx_mapping(p)
    assert len(m) == 21 and m["source"].value_counts().to_dict() == {"Metadata": 19, "none": 2}
    assert m["latency_ms"].sum() == pytest.approx(p.total_runtime)
    gemm = m[m["onnx_node"] == "/classifier/classifier.1/Gemm"].iloc[0]
    assert gemm["layer"] == "/classifier/classifier_1/Gemm_myl9_2" and gemm["nodes_in_layer"] == 2
    by_op = latency_by_onnx_op(p).set_index("onnx_op")
    assert by_op.loc["Gemm", "latency_pct"] == pytest.approx(72.47, abs=0.01)
    assert by_op.loc["Conv", "nodes"] == 5 and by_op.loc["Relu", "latency_ms"] == 0.0
    assert by_op.loc[TENSORRT, "layers"] == 2  # the input reformat and the shape_call
    top = latency_by_onnx_node(p).iloc[0]
    assert (top["onnx_node"], top["latency_ms"]) == ("/classifier/classifier.1/Gemm", 0.239573)
    equal = latency_by_onnx_op(p, split="equal").set_index("onnx_op")
    assert equal.loc["Relu", "latency_ms"] == pytest.approx(0.231969, abs=1e-6)
    assert equal["latency_ms"].sum() == pytest.approx(p.total_runtime)


def test_metadata_mapping_resnet50(plan):
    by_op = latency_by_onnx_op(plan("trt8.6-resnet50-int8")).set_index("onnx_op")
    assert by_op["nodes"].to_dict() == {"Conv": 53, "Relu": 49, "Add": 16, "Gemm": 1,
                                        "GlobalAveragePool": 1, TENSORRT: 1, "Softmax": 1, "MaxPool": 1}
    # Fused Conv+Relu+Add layers give their time to the Conv: 94.28 % of the engine.
    assert by_op.loc["Conv", "latency_pct"] == pytest.approx(94.28, abs=0.01)


def test_name_fallback_before_trt86(plan):
    p = plan("trex-mobilenet-qat")
    nodes = layer_nodes(p)
    assert len(nodes) == 72 and set(nodes["source"]) == {"name", "none"}
    classifier = nodes.iloc[-1]
    assert classifier["onnx_nodes"] == ["QuantizeLinear_860", "Gemm_864"]
    by_op = latency_by_onnx_op(p).set_index("onnx_op")
    assert by_op.loc["QuantizeLinear", "layers"] == 70  # 17 standalone, 53 fused into convolutions
    assert by_op.loc["QuantizeLinear", "latency_ms"] == pytest.approx(0.078470, abs=1e-6)
    assert by_op.loc["Conv", "nodes"] == 52
    assert onnx_mapping(p, use_names=False)["onnx_node"].eq(TENSORRT).all()


def test_names_only_plan(plan):
    p = plan("trt10-detr-int8-names-only")
    m = onnx_mapping(p)
    assert m["latency_ms"].sum() == pytest.approx(p.total_runtime)
    by_op = latency_by_onnx_op(p).set_index("onnx_op")
    assert by_op.loc[TENSORRT, "layers"] == 288  # 247 reformats and 41 Myelin/generated layers
    assert list(by_op.index[:3]) == ["Conv", "MatMul", TENSORRT]


def test_bad_split(plan):
    with pytest.raises(ValueError):
        onnx_mapping(plan("trt10.4-alexnet-fp16"), split="weird")
