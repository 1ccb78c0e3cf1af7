"""beam and query on real engines: computed on the plan model, drawable like a whole plan."""

from __future__ import annotations

import warnings
import xml.etree.ElementTree as ET

import pytest

import trex
from trex.graph import DotGraph, GraphQueryError, SubPlan, beam, draw_plan, layer_type_formatter, query

warnings.simplefilter("ignore", trex.TrexWarning)

CONV_12 = "features.0.0.weight + QuantizeLinear_8 + Conv_12 + PWN(Clip_16)"


@pytest.fixture(scope="module")
def mobilenet(engines) -> trex.EnginePlan:
    return trex.EnginePlan.from_path(engines / "trex-mobilenet-qat")


@pytest.fixture(scope="module")
def resnet50(engines) -> trex.EnginePlan:
    return trex.EnginePlan.from_path(engines / "trt8.6-resnet50-int8")


def test_beam_neighbourhood(mobilenet):
    sub = beam(mobilenet, CONV_12, 2)
    assert isinstance(sub, SubPlan)
    # One layer upstream (the input's Q/DQ reformat) and two downstream.
    assert [layer.name for layer in sub.layers] == [
        "QuantizeLinear_2", CONV_12,
        "features.1.conv.0.0.weight + QuantizeLinear_25 + Conv_29 + PWN(Clip_33)",
        "features.1.conv.1.weight + QuantizeLinear_42 + Conv_46"]
    assert sub.bindings == ["input1", "365"]  # the graph input and the tensor the beam cuts
    assert sub.highlighted == {CONV_12}
    assert list(sub.df["Name"]) == [layer.name for layer in sub.layers]
    inputs, outputs = sub.get_bindings()
    assert [t.name for t in inputs] == ["input1"] and [t.name for t in outputs] == ["365"]


def test_beam_draws_with_centre_highlighted(mobilenet):
    graph = DotGraph(beam(mobilenet, CONV_12, 2), layer_type_formatter)
    assert [n.kind for n in graph.nodes].count("layer") == 4
    assert [n.kind for n in graph.nodes].count("region") == 2
    assert len(graph.edges) == 5
    assert graph.highlighted_layers_ids == [CONV_12]
    centre = next(n for n in graph.nodes if n.name == CONV_12)
    assert centre.attrs["color"] == "yellow" and centre.attrs["penwidth"] == "6"


def test_beam_centre_resolution(mobilenet):
    assert beam(mobilenet, "Conv_12", 0).highlighted == {CONV_12}  # a fused part of the name
    assert beam(mobilenet, 1, 0).highlighted == {CONV_12}  # a df row
    assert len(beam(mobilenet, mobilenet.layers[1], 0)) == 1
    with pytest.raises(GraphQueryError, match="did you mean"):
        beam(mobilenet, "QuantiseLinear_2", 1)
    with pytest.raises(GraphQueryError, match="layers contain 'Conv_1'"):
        beam(mobilenet, "Conv_1", 1)
    with pytest.raises(GraphQueryError, match="out of range"):
        beam(mobilenet, 500, 1)
    with pytest.raises(GraphQueryError, match=">= 0"):
        beam(mobilenet, CONV_12, -1)


def test_beam_radius_grows(resnet50):
    sizes = [len(beam(resnet50, "/backbone/layer2/layer2.0/conv1/Conv", r)) for r in range(5)]
    assert sizes == sorted(sizes) and sizes[0] == 1 and sizes[-1] > sizes[1]


def test_query_matches_names_metadata_and_attributes(mobilenet, resnet50):
    by_name = query(mobilenet, r"Conv_1\d\d\b", radius=0)
    assert len(by_name) == len(by_name.highlighted) == 6
    by_attribute = query(mobilenet, r"^Origin:REFORMAT$")
    assert by_attribute.highlighted == {"Reformatting CopyNode for Input Tensor 0 to "
                                        "GlobalAveragePool_843"}
    assert len(by_attribute) == 3  # the match and its neighbours (TREx's radius 1)
    by_tactic = query(mobilenet, "volta_int8x4_icudnn_int8x4_128x32_relu_xregs_medium_c32_nn_v1",
                      radius=0)
    assert len(by_tactic) == 1
    by_metadata = query(resnet50, r"^/backbone/layer4/layer4\.2/", radius=0)
    assert len(by_metadata) == 3
    assert by_metadata.bindings == ["/backbone/layer4/layer4.1/relu_2/Relu_output_0",
                                    "/backbone/layer4/layer4.2/relu_2/Relu_output_0"]
    assert len(query(mobilenet, "no such layer")) == 0
    with pytest.raises(GraphQueryError, match="bad regular expression"):
        query(mobilenet, "(")


def test_query_on_names_only_engine_follows_execution_order(engines):
    plan = trex.EnginePlan.from_path(engines / "trt10-detr-int8-names-only")
    sub = query(plan, r"layers\.3/self_attn/v_proj")
    names = [layer.name for layer in plan.layers]
    first = names.index(sub.layers[0].name)
    assert [layer.name for layer in sub.layers] == names[first:first + len(sub.layers)]
    graph = DotGraph(sub, layer_type_formatter)
    assert all(e.kind == "dependency" for e in graph.edges)
    assert len(graph.edges) == len(sub.layers) - 1


def test_subplans_draw_like_plans(mobilenet, tmp_path):
    result = draw_plan(query(mobilenet, "GlobalAveragePool"), tmp_path / "q.svg",
                       method="layered")
    text = ET.parse(result.path).getroot()
    titles = " ".join(t.text or "" for t in text.iter("{http://www.w3.org/2000/svg}title"))
    assert "GlobalAveragePool_843" in titles
    assert draw_plan(beam(mobilenet, CONV_12, 1), tmp_path / "b.dot", "dot").nodes == 5
