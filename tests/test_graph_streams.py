"""Auxiliary streams, signal/wait and TrainStation dependencies, and Constant layers."""

from __future__ import annotations

import json
import warnings

import pytest

import trex
from trex.graph import DotGraph, layer_type_formatter
from trex.graph.colors import stream_color

warnings.simplefilter("ignore", trex.TrexWarning)


def act(name: str) -> dict:
    return {"Name": name, "Dimensions": [1, 8], "Format/Datatype": "Row major linear FP16"}


def layer(name, inputs, outputs, kind="Convolution", stream=0) -> dict:
    return {"Name": name, "LayerType": kind, "Inputs": [act(t) for t in inputs],
            "Outputs": [act(t) for t in outputs], "StreamId": stream}


def plan_of(tmp_path, layers, bindings=("x", "y")) -> trex.EnginePlan:
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"Layers": layers, "Bindings": list(bindings)}))
    return trex.EnginePlan(path)


def dependencies(graph: DotGraph) -> list[tuple[str, str]]:
    return [(e.src, e.dst) for e in graph.edges if e.kind == "dependency"]


@pytest.fixture
def two_streams(tmp_path) -> trex.EnginePlan:
    return plan_of(tmp_path, [
        layer("a", ["x"], ["t1"]),
        layer("s0", [], [], "signal", 0),
        layer("w1", [], [], "wait", 1),
        layer("b", ["t1"], ["t2"], stream=1),
        layer("s1", [], [], "signal", 1),
        layer("w0", [], [], "wait", 0),
        layer("c", ["t1", "t2"], ["y"]),
    ])


def test_signal_wait_dependencies(two_streams):
    graph = DotGraph(two_streams, layer_type_formatter, remove_disconnected_layers=True)
    assert [n.name for n in graph.nodes if n.kind == "sync"] == ["s0", "w1", "s1", "w0"]
    assert dependencies(graph) == [("a", "s0"), ("s0", "w1"), ("w1", "b"), ("b", "s1"),
                                   ("s1", "w0"), ("w0", "c")]
    for edge in graph.edges:
        if edge.kind == "dependency":
            assert edge.attrs == {"color": "lightgray", "style": "dashed"}
    data = [(e.src, e.dst) for e in graph.edges if e.kind == "data"]
    assert ("a", "b") in data and ("b", "c") in data and ("a", "c") in data


def test_auxiliary_stream_is_marked(two_streams):
    graph = DotGraph(two_streams, layer_type_formatter)
    b = next(n for n in graph.nodes if n.name == "b")
    assert b.attrs["color"] == stream_color(1) and b.attrs["penwidth"] == "3"
    assert ("stream 1", None) in b.rows
    a = next(n for n in graph.nodes if n.name == "a")
    assert a.attrs["color"] == "lightgray"
    assert stream_color(1) != stream_color(2)


def test_train_station_dependencies(tmp_path):
    plan = plan_of(tmp_path, [
        layer("a", ["x"], ["t"]),
        {"Name": "ts", "LayerType": "TrainStation", "ParameterType": "TrainStation",
         "Inputs": [], "Outputs": []},
        layer("b", ["t"], ["y"]),
    ])
    graph = DotGraph(plan, layer_type_formatter, remove_disconnected_layers=True)
    assert dependencies(graph) == [("a", "ts"), ("ts", "b")]
    ts = next(n for n in graph.nodes if n.name == "ts")
    assert ts.attrs["fillcolor"] == "#FFA07A"


def test_constants_optional(tmp_path):
    plan = plan_of(tmp_path, [
        layer("w", [], ["weights"], "Constant"),
        layer("conv", ["x", "weights"], ["y"]),
    ])
    hidden = DotGraph(plan, layer_type_formatter)
    assert [n.name for n in hidden.nodes if n.kind != "region"] == ["conv"]
    assert [(e.src, e.dst) for e in hidden.edges] == [("x", "conv"), ("conv", "y")]
    shown = DotGraph(plan, layer_type_formatter, display_constants=True)
    assert [n.kind for n in shown.nodes if n.name == "w"] == ["constant"]
    assert ("w", "conv") in [(e.src, e.dst) for e in shown.edges]
    with_regions = DotGraph(plan, layer_type_formatter, display_constants=True,
                            display_regions=True)
    pairs = [(e.src, e.dst) for e in with_regions.edges]
    assert ("w", "weights.0") in pairs and ("weights.0", "conv") in pairs


def test_region_and_layer_with_the_same_name_stay_apart(tmp_path):
    plan = plan_of(tmp_path, [layer("x", ["x"], ["t"]), layer("b", ["t"], ["y"])])
    graph = DotGraph(plan, layer_type_formatter)
    assert [n.id for n in graph.nodes] == ["x (tensor)", "y", "x", "b"]
    assert sorted((e.src, e.dst) for e in graph.edges) == [("b", "y"), ("x", "b"), ("x (tensor)", "x")]
