"""Hub tensors and the layout choice, on generated transformer-like plans (bench/worst_cases.py:
N blocks of TensorRT 10 Myelin layers copied from the real trt10.4-alexnet-fp16 export, one
``attention_mask`` binding read by every block, short residual skips).

A hub's edges are drawn as one bus (dot: point nodes chained beside the graph; own layout and
report: one polyline with a short branch per consumer); ``--layout auto`` predicts dot's time from
the long edges and falls back to the own layout when dot runs out of its budget.
"""

from __future__ import annotations

import re
import warnings
import xml.etree.ElementTree as ET

import pytest

import trex
from helpers import bench_module, require_program
from trex.cli import main
from trex.graph import DotGraph, draw_plan, graph_to_svg, layer_type_formatter
from trex.graph.cost import DOT_MAX_CROSSING, choose_layout, dot_cost
from trex.graph.placement import place_graph
from trex.graph.structure import HUB_MIN_EDGES

warnings.simplefilter("ignore", trex.TrexWarning)
OPTIONS = dict(display_forking_regions=True, display_region_reuse=True, display_edge_details=False)
SVG = "{http://www.w3.org/2000/svg}"


def transformer(engines, tmp_path, blocks: int, **kwargs) -> trex.EnginePlan:
    worst = bench_module("worst_cases")
    prefix = worst.write_graph(tmp_path, f"t{blocks}", worst.transformer_graph(blocks, engines,
                                                                                **kwargs))
    return trex.EnginePlan.from_path(str(prefix))


def mask_edges(graph: DotGraph) -> list[int]:
    return [i for i, e in enumerate(graph.edges) if e.tensor is not None
            and e.tensor.name == "attention_mask"]


def test_mask_is_one_bus(engines, tmp_path):
    plan = transformer(engines, tmp_path, 40)
    graph = DotGraph(plan, layer_type_formatter, **OPTIONS)
    mask = mask_edges(graph)
    assert len(mask) == 40
    buses = graph.structure.buses
    assert len(buses) == 1 and buses[0].direction == "out"
    assert sorted(buses[0].edges) == mask
    assert graph.nodes[buses[0].node].name == "attention_mask"
    # skips and the other tensors are no hub (fewer than HUB_MIN_EDGES readers each)
    assert HUB_MIN_EDGES > 2
    # without bundling, no bus
    assert DotGraph(plan, layer_type_formatter, bundle_hubs=False, **OPTIONS).structure.buses == []


def test_hub_in_dot_source(engines, tmp_path):
    plan = transformer(engines, tmp_path, 40)
    graph = DotGraph(plan, layer_type_formatter, **OPTIONS)
    source = graph.source
    taps = re.findall(r'^\t"(attention_mask \(bus \d+\))" \[label="" shape="point"', source, re.M)
    assert len(taps) == 40  # one tap per layer the mask reaches (one attention per block)
    # the mask node has exactly one edge, to the first tap; every attention hangs off a tap
    assert len(re.findall(r'^\t"attention_mask" -> ', source, re.M)) == 1
    for b in range(40):
        assert re.search(rf'^\t"attention_mask \(bus \d+\)" -> "/model/layers\.{b}/attn" ',
                         source, re.M)
    assert source.count('arrowhead="none"') == 40  # the bus segments
    # the bundled drawing is cheap for dot, the unbundled one is not
    cost = dot_cost(graph)
    assert cost.crossing <= 2 and cost.dot_is_fast
    flat = dot_cost(DotGraph(plan, layer_type_formatter, bundle_hubs=False, **OPTIONS))
    assert flat.crossing > DOT_MAX_CROSSING and not flat.dot_is_fast
    assert flat.virtual > 10 * cost.virtual // 2


def test_hub_drawn_by_dot(engines, tmp_path):
    require_program("dot")
    plan = transformer(engines, tmp_path, 50)
    result = draw_plan(plan, tmp_path / "t.svg", **OPTIONS)
    assert result.method == "dot" and result.note == ""
    svg = (tmp_path / "t.svg").read_text()
    root = ET.fromstring(svg)
    titles = [t.text for t in root.iter(f"{SVG}title")]
    assert sum(1 for t in titles if re.fullmatch(r"attention_mask \(bus \d+\)", t)) == 50
    assert "attention_mask->attention_mask (bus 1)" in titles
    assert not any(t.startswith("attention_mask->/model") for t in titles)


def test_hub_in_own_layout(engines, tmp_path):
    plan = transformer(engines, tmp_path, 200)
    graph = DotGraph(plan, layer_type_formatter, **OPTIONS)
    svg = graph_to_svg(graph, plan.name)
    root = ET.fromstring(svg)
    buses = [p for p in root.iter(f"{SVG}path") if p.get("class") == "bus"]
    assert len(buses) == 1
    assert buses[0].find(f"{SVG}title").text.startswith("attention_mask\nbus: 200 edges")
    # every mask edge is a short branch off the bus: from its tap one layer down to the attention
    edges = [p for p in root.iter(f"{SVG}path") if p.get("class") == "e"]
    branches = [p for p in edges if p.find(f"{SVG}title").text.startswith("attention_mask \u2192")]
    assert len(branches) == 200
    for path in branches:
        ys = [float(y) for y in re.findall(r"-?[\d.]+,(-?[\d.]+)", path.get("d"))]
        assert 0 < ys[-1] - ys[0] < 120
    bus_ys = [float(y) for y in re.findall(r"-?[\d.]+,(-?[\d.]+)", buses[0].get("d"))]
    assert bus_ys[-1] - bus_ys[0] > 200 * 100  # the bus runs down the whole graph


def test_auto_choice_by_shape(engines, tmp_path):
    small = DotGraph(transformer(engines, tmp_path, 20), layer_type_formatter, **OPTIONS)
    big = DotGraph(transformer(engines, tmp_path, 200), layer_type_formatter, **OPTIONS)
    assert choose_layout(dot_cost(small), "svg") == "dot"
    assert choose_layout(dot_cost(big), "svg") == "layered"
    assert choose_layout(dot_cost(big), "svg", "dot") == "dot"
    assert choose_layout(dot_cost(big), "svg", "own") == "layered"
    assert choose_layout(dot_cost(big), "png") == "dot"
    assert choose_layout(dot_cost(small), "svg", dot_available=False) == "layered"
    with pytest.raises(ValueError, match="auto, dot, own"):
        choose_layout(dot_cost(small), "svg", "neato")


def test_budget_exceeded_falls_back_with_a_note(engines, tmp_path, capsys):
    require_program("dot")
    plan = transformer(engines, tmp_path, 20)
    result = draw_plan(plan, tmp_path / "t.svg", timeout=0.001, **OPTIONS)
    assert result.method == "layered"
    assert result.note.startswith("Graphviz dot took more than 0.001 s (")
    assert "long edges across one layer" in result.note
    ET.parse(tmp_path / "t.svg")
    # forced dot: the budget is an error, not a fallback
    with pytest.raises(trex.graph.GraphvizError, match="more than 0.001 s"):
        draw_plan(plan, tmp_path / "u.svg", method="dot", timeout=0.001, **OPTIONS)
    # the CLI prints the note on one line of stderr
    assert main(["draw", str(tmp_path / "t20"), "-o", str(tmp_path / "c.svg"),
                 "--timeout", "0.001"]) == 0
    out, err = capsys.readouterr()
    notes = [line for line in err.splitlines() if line.startswith("note: ")]
    assert len(notes) == 1 and "trex's own layout instead" in notes[0]
    assert "trex's own layout" in out


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "abc"])
def test_timeout_must_be_positive(engines, tmp_path, capsys, value):
    with pytest.raises(SystemExit) as exit_:
        main(["draw", str(engines / "trex-mobilenet-qat"), "--timeout", value])
    assert exit_.value.code == 2
    assert "--timeout" in capsys.readouterr().err
    with pytest.raises(ValueError, match="timeout"):
        draw_plan(trex.EnginePlan.from_path(engines / "trex-mobilenet-qat"), tmp_path / "x.svg",
                  timeout=float(value) if value != "abc" else value)


def test_report_graph_has_the_bus(engines, tmp_path):
    from trex.html_report.graphdata import graph_payload

    plan = transformer(engines, tmp_path, 30)
    payload = graph_payload(plan, "own")
    assert payload["layout"] == "layered"
    buses = payload["buses"]
    assert buses["edges"] == [30] and len(buses["route"][0]) >= 2 * 30
    mask_node = buses["node"][0]
    mask = [j for j, s in enumerate(payload["edges"]["src"]) if s == mask_node]
    assert len(mask) == 30  # the edges keep their ends (selection, details) ...
    nodes, edges = payload["nodes"], payload["edges"]
    full = set(edges["full"])
    for j in mask:  # ... but are drawn from the bus: a branch one layer long
        s, t = edges["src"][j], edges["dst"][j]
        route = edges["route"][j] if j in full else [
            nodes["x"][s], nodes["y"][s] + nodes["h"][s] / 2, *edges["route"][j],
            nodes["x"][t], nodes["y"][t] - nodes["h"][t] / 2]
        assert 0 < route[-1] - route[1] < 120
    assert len(full & set(mask)) == 29  # all but the first start at a tap, not at the mask
    # dot positions follow the same rule (a bus as well)
    require_program("dot")
    payload = graph_payload(plan)
    assert payload["layout"] == "dot" and len(payload["buses"]["route"][0]) > 30


def test_place_graph_uses_the_rule(engines, tmp_path):
    require_program("dot")
    graph = DotGraph(transformer(engines, tmp_path, 200), layer_type_formatter, **OPTIONS)
    sizes = [(60.0, 30.0)] * len(graph.nodes)
    layout, method, note = place_graph(graph, sizes)
    assert method == "layered" and note == "" and len(layout.buses) == 1
    small = DotGraph(transformer(engines, tmp_path, 10), layer_type_formatter, **OPTIONS)
    layout, method, _ = place_graph(small, [(60.0, 30.0)] * len(small.nodes))
    assert method == "dot"
    assert all(0 <= x <= layout.width and 0 <= y <= layout.height
               for x, y in zip(layout.x, layout.y))
