"""trex's layered layout: valid geometry on chains, branches, cycles and isolated nodes, and a
complete, fast SVG for a big replicated engine."""

from __future__ import annotations

import json
import random
import warnings
import xml.etree.ElementTree as ET

import trex
from trex.graph import DotGraph, graph_to_svg, layer_type_formatter, layered_layout
from trex.graph.layout import NODE_GAP

warnings.simplefilter("ignore", trex.TrexWarning)


def test_chain_is_straight_and_downward():
    n = 50
    layout = layered_layout([100.0] * n, [40.0] * n, [(i, i + 1) for i in range(n - 1)])
    assert layout.layers == list(range(n))
    assert len({round(x, 6) for x in layout.x}) == 1
    assert all(a < b for a, b in zip(layout.y, layout.y[1:]))
    assert all(route[0][1] < route[-1][1] for route in layout.routes)
    assert layout.dummies == 0


def test_no_overlap_in_random_dags():
    rng = random.Random(7)
    for _ in range(20):
        n = rng.randint(2, 120)
        edges = [(a, b) for a in range(n) for b in range(a + 1, min(n, a + 6)) if rng.random() < 0.3]
        widths = [rng.uniform(30, 200) for _ in range(n)]
        layout = layered_layout(widths, [30.0] * n, edges)
        for s, t in edges:
            assert layout.layers[s] < layout.layers[t]
        rows: dict[int, list[int]] = {}
        for v in range(n):
            rows.setdefault(layout.layers[v], []).append(v)
        for row in rows.values():
            row.sort(key=lambda v: layout.x[v])
            for a, b in zip(row, row[1:]):
                gap = layout.x[b] - layout.x[a] - (widths[a] + widths[b]) / 2
                assert gap >= NODE_GAP - 1e-6
        assert min(x - w / 2 for x, w in zip(layout.x, widths)) >= 0
        assert max(x + w / 2 for x, w in zip(layout.x, widths)) <= layout.width + 1e-6


def test_long_edges_bend_through_dummies_and_cycles_survive():
    edges = [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4), (4, 1), (2, 2)]
    layout = layered_layout([60.0] * 5, [20.0] * 5, edges)
    assert layout.dummies == 3  # 0 -> 4 spans four layers
    assert len(layout.routes[4]) == 5
    assert layout.routes[6] == []  # a self-loop is not drawn
    assert len(layout.routes[5]) == 2  # the back edge of the cycle is drawn straight
    assert layout.layers[:5] == [0, 1, 2, 3, 4]


def test_isolated_nodes_sit_beside_their_predecessor():
    layout = layered_layout([50.0] * 5, [20.0] * 5, [(0, 1), (1, 3), (3, 4)])
    assert layout.layers[2] == layout.layers[1]
    assert layered_layout([], [], []).routes == []


def replicated_engine(engines, tmp_path, copies: int):
    """mobilenet's layers replicated ``copies`` times, each copy fed by the previous one."""
    source = engines / "trex-mobilenet-qat" / "mobilenet.qat.onnx.engine.graph.json"
    data = json.loads(source.read_text())
    first_in, last_out = data["Bindings"]
    layers = []
    for k in range(copies):
        def rename(name, k=k):
            if name == first_in and k > 0:
                return f"{last_out}.{k - 1}"
            return f"{name}.{k}"
        for raw in data["Layers"]:
            layer = json.loads(json.dumps(raw))
            layer["Name"] = f"{layer['Name']}.{k}"
            for t in (*layer["Inputs"], *layer["Outputs"]):
                t["Name"] = rename(t["Name"])
            layers.append(layer)
    path = tmp_path / "big.graph.json"
    path.write_text(json.dumps({"Layers": layers,
                                "Bindings": [f"{first_in}.0", f"{last_out}.{copies - 1}"]}))
    return trex.EnginePlan(path)


def test_big_engine_svg_is_complete(engines, tmp_path):
    plan = replicated_engine(engines, tmp_path, 28)  # 2,016 layers: above the dot threshold
    graph = DotGraph(plan, layer_type_formatter, display_forking_regions=True)
    svg = graph_to_svg(graph, plan.name)
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    titles = {t.text.split("\n", 1)[0] for t in root.iter(f"{ns}title") if t.text}
    assert {layer.name for layer in plan.layers} <= titles
    assert len(plan.layers) == 2016


def test_dot_generation_is_linear(engines, tmp_path):
    """Per-layer work of building the DOT is flat from 72 to 1,152 layers (no per-layer lookups).

    Work is counted as Python function calls (deterministic), not timed: timing belongs to bench/.
    """
    import cProfile
    import pstats

    def calls_per_layer(copies: int) -> float:
        plan = replicated_engine(engines, tmp_path, copies)
        profiler = cProfile.Profile()
        profiler.runcall(lambda: DotGraph(plan, layer_type_formatter).body())
        return pstats.Stats(profiler).total_calls / len(plan.layers)

    small, large = calls_per_layer(1), calls_per_layer(16)
    assert large < 1.2 * small, (small, large)
