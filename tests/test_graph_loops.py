"""Loops and conditionals (TensorRT's Recurrence/Iterator/TripLimit/LoopOutput and Condition/
ConditionalInput/ConditionalOutput layers) on copies of the real trex-mobilenet-qat graph JSON
mutated in the test: the loop's back-edge (into its Recurrence) is drawn dashed and left out of the
ranking (``constraint=false``), and the plan's validation reports no cycle for it.
"""

from __future__ import annotations

import copy
import json
import re
import warnings
import xml.etree.ElementTree as ET

import pytest

import trex
from helpers import require_program
from trex.graph import DotGraph, draw_plan, graph_to_svg, layer_type_formatter
from trex.model.control_flow import control_flow_kind, is_back_edge, is_recurrence, normalized_type

warnings.simplefilter("ignore", trex.TrexWarning)
SVG = "{http://www.w3.org/2000/svg}"
FIRST, LAST = 12, 20  # the loop body: mobilenet's layers 12..20


def mobilenet_json(engines) -> dict:
    path = engines / "trex-mobilenet-qat" / "mobilenet.qat.onnx.engine.graph.json"
    return json.loads(path.read_text())


def tensor(template: dict, name: str) -> dict:
    return dict(copy.deepcopy(template), Name=name)


def with_loop(engines, tmp_path, recurrence_type: str = "Recurrence") -> tuple[trex.EnginePlan, dict]:
    """Layers FIRST..LAST become a loop body: a Recurrence feeds FIRST with LAST's output of the
    previous iteration; a TripLimit reads a trip count; a LoopOutput hands LAST's output on."""
    graph = mobilenet_json(engines)
    layers = graph["Layers"]
    first, last = layers[FIRST], layers[LAST]
    init = first["Inputs"][0]
    back = last["Outputs"][0]
    recurrence = {"Name": "loop/recurrence", "LayerType": recurrence_type,
                  "Inputs": [tensor(init, init["Name"]), tensor(back, back["Name"])],
                  "Outputs": [tensor(init, "loop/state")]}
    trip = {"Name": "loop/trip_limit", "LayerType": "TripLimit",
            "Inputs": [{"Name": "trip_count", "Location": "Device", "Dimensions": [],
                        "Format/Datatype": "Int32"}], "Outputs": []}
    first["Inputs"][0] = tensor(init, "loop/state")
    output = {"Name": "loop/output", "LayerType": "LoopOutput",
              "Inputs": [tensor(back, back["Name"])], "Outputs": [tensor(back, "loop/out")]}
    for layer in layers[LAST + 1:]:
        for t in layer["Inputs"]:
            if t["Name"] == back["Name"]:
                t["Name"] = "loop/out"
    layers[LAST + 1:LAST + 1] = [output]
    layers[FIRST:FIRST] = [trip, recurrence]
    graph["Bindings"] = [*graph["Bindings"], "trip_count"]
    path = tmp_path / f"loop-{recurrence_type}.graph.json"
    path.write_text(json.dumps(graph))
    return trex.EnginePlan(path), {"body_last": last["Name"], "body_first": first["Name"]}


def test_layer_type_names():
    assert is_recurrence("Recurrence") and is_recurrence("kRECURRENCE")
    assert normalized_type("kTRIP_LIMIT") == "triplimit"
    assert control_flow_kind("LoopOutput") == "loop" and control_flow_kind("Iterator") == "loop"
    assert control_flow_kind("ConditionalOutput") == "conditional"
    assert control_flow_kind("Convolution") is None
    assert is_back_edge("Recurrence", 9, 3) and not is_back_edge("Recurrence", 2, 3)
    assert not is_back_edge("Shuffle", 9, 3)


def test_loop_is_not_a_cycle(engines, tmp_path):
    plan, _ = with_loop(engines, tmp_path)
    assert not [w for w in plan.warnings if "cycle" in w]
    assert len(plan.layers) == 72 + 3
    # the same shape without a Recurrence is a cycle, and says so
    other, _ = with_loop(engines, tmp_path, recurrence_type="Shuffle")
    cycles = [w for w in other.warnings if "cycle" in w]
    assert len(cycles) == 1 and f"through {LAST - FIRST + 2} layers" in cycles[0]


@pytest.mark.parametrize("regions", [False, True])
def test_back_edge_marked(engines, tmp_path, regions):
    plan, names = with_loop(engines, tmp_path)
    graph = DotGraph(plan, layer_type_formatter, display_regions=regions)
    back = [e for e in graph.edges if e.back]
    assert len(back) == 1
    edge = back[0]
    assert edge.dst == "loop/recurrence"
    assert edge.src == (names["body_last"] if not regions else edge.src)
    assert edge.attrs["style"] == "dashed" and edge.attrs["constraint"] == "false"
    line = next(line for line in graph.body() if '-> "loop/recurrence"' in line
                and "dashed" in line)
    assert 'constraint="false"' in line
    # ranked without it: the Recurrence sits above the loop body, the body below it
    s = graph.structure
    index = {n.id: i for i, n in enumerate(graph.nodes)}
    assert s.layers[index["loop/recurrence"]] < s.layers[index[names["body_first"]]] \
        < s.layers[index[names["body_last"]]]
    assert s.back == [graph.edges.index(edge)]


def test_loop_drawn_by_both_layouts(engines, tmp_path):
    plan, names = with_loop(engines, tmp_path)
    graph = DotGraph(plan, layer_type_formatter)
    root = ET.fromstring(graph_to_svg(graph, plan.name))
    dashed = [p for p in root.iter(f"{SVG}path") if p.get("class") == "e"
              and p.get("stroke-dasharray")]
    titles = [p.find(f"{SVG}title").text.split("\n")[0] for p in dashed]
    assert titles == [f"{names['body_last']} \u2192 loop/recurrence"]
    # up the right side: it starts on the body's right edge and ends on the Recurrence's
    points = [tuple(map(float, xy)) for xy in re.findall(r"(-?[\d.]+),(-?[\d.]+)",
                                                           dashed[0].get("d"))]
    assert points[0][1] > points[-1][1]  # drawn upwards
    require_program("dot")
    result = draw_plan(plan, tmp_path / "loop.svg", method="dot")
    svg = (tmp_path / "loop.svg").read_text()
    assert result.method == "dot" and 'stroke-dasharray="5,2"' in svg


def with_conditional(engines, tmp_path) -> trex.EnginePlan:
    """A Condition, a ConditionalInput, two branches and a ConditionalOutput after layer 30."""
    graph = mobilenet_json(engines)
    layers = graph["Layers"]
    k = 30
    out = layers[k]["Outputs"][0]
    flag = {"Name": "flag", "Location": "Device", "Dimensions": [], "Format/Datatype": "Bool"}
    new = [
        {"Name": "if/condition", "LayerType": "Condition", "Inputs": [flag], "Outputs": []},
        {"Name": "if/input", "LayerType": "ConditionalInput", "Inputs": [tensor(out, out["Name"])],
         "Outputs": [tensor(out, "if/in")]},
        {"Name": "if/then", "LayerType": "Shuffle", "Inputs": [tensor(out, "if/in")],
         "Outputs": [tensor(out, "if/a")]},
        {"Name": "if/else", "LayerType": "Shuffle", "Inputs": [tensor(out, "if/in")],
         "Outputs": [tensor(out, "if/b")]},
        {"Name": "if/output", "LayerType": "ConditionalOutput",
         "Inputs": [tensor(out, "if/a"), tensor(out, "if/b")], "Outputs": [tensor(out, "if/out")]},
    ]
    for t in layers[k + 1]["Inputs"]:
        if t["Name"] == out["Name"]:
            t["Name"] = "if/out"
    layers[k + 1:k + 1] = new
    graph["Bindings"] = [*graph["Bindings"], "flag"]
    path = tmp_path / "cond.graph.json"
    path.write_text(json.dumps(graph))
    return trex.EnginePlan(path)


def test_conditional_draws_without_cycle(engines, tmp_path):
    plan = with_conditional(engines, tmp_path)
    assert not [w for w in plan.warnings if "cycle" in w]
    kinds = [control_flow_kind(layer.type) for layer in plan.layers]
    assert kinds.count("conditional") == 3
    graph = DotGraph(plan, layer_type_formatter)
    assert not [e for e in graph.edges if e.back]
    s = graph.structure
    index = {n.id: i for i, n in enumerate(graph.nodes)}
    assert s.layers[index["if/input"]] < s.layers[index["if/then"]] < s.layers[index["if/output"]]
    assert all(s.forward)
    require_program("dot")
    assert draw_plan(plan, tmp_path / "cond.svg").method == "dot"
