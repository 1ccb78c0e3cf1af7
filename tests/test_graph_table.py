"""The report's graph read from the plan's columns (trex.graph.table_scene) draws what DotGraph
draws with the report's options: the same nodes, label rows, fills, edges, layers and hub buses,
on every real engine in ../shared/engines and on plans with loops, conditionals, streams,
TrainStations, constants, in-place layers and hubs (the cases GraphScene handles specially).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import trex
from helpers import bench_module, require_program
from test_graph_loops import with_conditional, with_loop
from test_graph_streams import layer, plan_of
from trex.html_report import graphdata

warnings.simplefilter("ignore", trex.TrexWarning)
FIELDS = ("kinds", "rows", "df_rows", "types", "precisions", "fills", "strokes", "pens", "names",
          "tensors", "edge_colors", "edge_dashed", "dropped_edges", "labelled")


def assert_same_drawing(plan: trex.EnginePlan) -> None:
    table = graphdata._from_table(plan)
    scene = graphdata._from_scene(plan)
    for name in FIELDS:
        assert getattr(table, name) == getattr(scene, name), name
    a, b = table.graph.structure, scene.graph.structure
    assert (a.ends, a.layers, a.forward, a.back, a.buses) == \
        (b.ends, b.layers, b.forward, b.back, b.buses)


def test_every_shared_engine(engines: Path) -> None:
    checked = 0
    for folder in sorted(p for p in engines.iterdir() if p.is_dir()):
        try:
            plan = trex.EnginePlan.from_path(folder)
        except trex.TrexError:
            continue
        graphdata._from_table(plan)
        assert plan._layer_objects is None and plan._df is None, folder.name
        assert_same_drawing(plan)
        checked += 1
    assert checked >= 10


def test_loops_and_conditionals(engines: Path, tmp_path: Path) -> None:
    plan, _ = with_loop(engines, tmp_path)
    assert_same_drawing(plan)
    assert_same_drawing(with_conditional(engines, tmp_path))


@pytest.mark.parametrize("layers, bindings", [
    ([layer("a", ["x"], ["t1"]), layer("s0", [], [], "signal", 0), layer("w1", [], [], "wait", 1),
      layer("b", ["t1"], ["t2"], stream=1), layer("s1", [], [], "signal", 1),
      layer("w0", [], [], "wait", 0), layer("c", ["t1", "t2"], ["y"])], ("x", "y")),
    ([layer("a", ["x"], ["t"]), {"Name": "ts", "LayerType": "TrainStation",
                                 "ParameterType": "TrainStation", "Inputs": [], "Outputs": []},
      layer("b", ["t"], ["y"])], ("x", "y")),
    ([layer("w", [], ["weights"], "Constant"), layer("conv", ["x", "weights"], ["y"])], ("x", "y")),
    ([layer("x", ["x"], ["t"]), layer("b", ["t"], ["y"])], ("x", "y")),
    ([layer("a", ["x"], ["t"]), layer("b", ["t"], ["t"]), layer("c", ["t"], ["t"]),
      layer("d", ["t", "x"], ["y"]), layer("e", ["t"], ["y2"])], ("x", "y", "t")),
], ids=["streams", "train-station", "constant", "same-name", "in-place"])
def test_special_layers(tmp_path: Path, layers: list, bindings: tuple) -> None:
    assert_same_drawing(plan_of(tmp_path, layers, bindings))


def test_names_only_and_hubs(engines: Path, tmp_path: Path) -> None:
    path = tmp_path / "names.json"
    path.write_text(json.dumps({"Layers": ["a", "b", "c"], "Bindings": []}))
    assert_same_drawing(trex.EnginePlan(path))
    worst = bench_module("worst_cases")
    prefix = worst.write_graph(tmp_path, "t8", worst.transformer_graph(8, engines))
    plan = trex.EnginePlan.from_path(str(prefix))
    assert_same_drawing(plan)
    assert graphdata._from_table(plan).graph.structure.buses


def test_started_payload_is_the_payload(engines: Path) -> None:
    """Graphviz started early (beside the report's next steps) gives the same payload."""
    require_program("dot")
    plan = trex.EnginePlan.from_path(engines / "trex-mobilenet-qat")
    finish = graphdata.start_graph_payload(plan)
    payload = finish()
    assert payload["layout"] == "dot"
    assert payload == graphdata.graph_payload(plan)
    assert graphdata.start_graph_payload(plan, "own")() == graphdata.graph_payload(plan, "own")
