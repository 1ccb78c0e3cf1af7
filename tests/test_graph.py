"""Engine graphs on every detailed real engine: region model, DOT, colours, labels, SVG output.

TREx's own tests give the trex-mobilenet-qat figures (API defaults: 72 layer nodes, 2 binding
region nodes, 83 edges; with display_forking_regions: 12 region nodes, 93 edges); the other rows
come from the same region model and are cross-checked by an independent count below.
"""

from __future__ import annotations

import collections
import os
import re
import shutil
import subprocess
import sys
import warnings
import xml.etree.ElementTree as ET

import pytest

import trex
from helpers import require_module, require_program  # noqa: F401
from trex.graph import (
    DotGraph,
    PlanGraph,
    draw_plan,
    graph_to_svg,
    layer_latency_formatter,
    layer_precision_formatter,
    layer_type_formatter,
    render_dot,
    to_dot,
)
from trex.graph.colors import NVDA_GREEN, latency_palette, layer_colormap, precision_colormap

warnings.simplefilter("ignore", trex.TrexWarning)

# (folder, profile): (layer nodes, region nodes, edges) with API defaults, then (region nodes,
# edges) with display_forking_regions, then with display_regions.
COUNTS = {
    ("a100-resnet18-fp16", None): (25, 2, 34, 10, 42, 26, 58),
    # The output binding "191" is written through two chained NoOps (Gemm_48 -> NoOp -> NoOp ->
    # 191); NoOp folding follows the chain, so the binding keeps its name and region node.
    ("a100-resnet18-fp32", None): (24, 2, 33, 10, 41, 25, 56),
    ("a100-resnet18-qat", None): (35, 2, 44, 10, 52, 36, 78),
    ("a100-resnet18-qat-residual", None): (25, 2, 34, 10, 42, 26, 58),
    ("a100-resnet18-qat-residual-qgap", None): (23, 2, 32, 10, 40, 24, 54),
    ("torchtrt-alexnet-fp16", None): (13, 2, 14, 2, 14, 14, 26),
    ("trex-mobilenet-qat", None): (72, 2, 83, 12, 93, 73, 154),
    ("trex-mobilenet-v2-residuals-qat", None): (57, 2, 68, 12, 78, 58, 124),
    ("trt10.16-mnist-fp32", None): (9, 3, 12, 3, 12, 13, 22),
    # Profile 1's tensors carry " [profile 1]", its bindings do not: matched like get_bindings().
    ("trt10.16-multiprofile-oneline", 0): (13, 3, 16, 4, 17, 15, 28),
    ("trt10.16-multiprofile-oneline", 1): (13, 3, 16, 4, 17, 15, 28),
    ("trt10.4-alexnet-fp16", None): (14, 2, 14, 2, 14, 14, 26),
    ("trt8.6-resnet50-int8", None): (57, 2, 74, 18, 90, 58, 130),
}
_PLANS: dict = {}


def load(engines, folder: str, profile_id: int | None = None) -> trex.EnginePlan:
    key = (folder, profile_id)
    if key not in _PLANS:
        _PLANS[key] = trex.EnginePlan.from_path(engines / folder, profile_id=profile_id)
    return _PLANS[key]


def require_dot() -> None:
    if shutil.which("dot") is None:
        if os.environ.get("CI"):
            pytest.fail("Graphviz `dot` is required in CI (apt-get install graphviz)")
        pytest.skip("Graphviz `dot` is not installed")


def require_graphviz_package():
    return require_module("graphviz")  # the [graph] extra


def kinds(graph: DotGraph) -> collections.Counter:
    return collections.Counter(node.kind for node in graph.nodes)


def naive_edge_count(plan: trex.EnginePlan) -> int:
    """Edges with API defaults when every region has one generation, counted from tensors alone:
    writers x readers per tensor, or writers + readers through a binding node."""
    writers: collections.Counter = collections.Counter()
    readers: collections.Counter = collections.Counter()
    for layer in plan.layers:
        readers.update(t.name for t in layer.inputs)
        writers.update(t.name for t in layer.outputs)
    bound = {t.name for group in plan.get_bindings() for t in group}
    total = 0
    for name in set(writers) | set(readers):
        if name in bound:
            total += writers[name] + readers[name]
        elif writers[name]:
            total += writers[name] * readers[name]
    return total


@pytest.mark.parametrize(("folder", "profile"), list(COUNTS))
def test_node_and_edge_counts(engines, folder, profile):
    plan = load(engines, folder, profile)
    layers, regions, edges, fork_regions, fork_edges, all_regions, all_edges = COUNTS[folder, profile]
    default = DotGraph(plan, layer_type_formatter)
    assert kinds(default) == {"layer": layers, "region": regions}
    assert len(default.edges) == edges == naive_edge_count(plan)
    assert default.dropped_edges == 0
    forking = DotGraph(plan, layer_type_formatter, display_forking_regions=True)
    assert (kinds(forking)["region"], len(forking.edges)) == (fork_regions, fork_edges)
    every = DotGraph(plan, layer_type_formatter, display_regions=True)
    assert (kinds(every)["region"], len(every.edges)) == (all_regions, all_edges)
    # The DOT text has one statement per node and per edge.
    body = default.body()
    assert sum(" -> " in line for line in body) == edges
    assert len(body) == layers + regions + edges


def test_mobilenet_matches_trex_plan_graph(engines):
    """TREx's PlanGraph figures, from its tests."""
    plan = load(engines, "trex-mobilenet-qat")
    graph = PlanGraph(plan)
    assert len(graph.layer_nodes) == 72
    assert [m.name for m in graph.memory_nodes] == ["input1", "1179"]
    assert all(m.is_user for m in graph.memory_nodes)
    assert len(graph.edges_list) == 83
    forking = PlanGraph(plan, include_forking_regions=True)
    assert len(forking.memory_nodes) == 12 and len(forking.edges_list) == 93
    forked = [m for m in forking.memory_nodes if not m.is_user]
    assert all(m.name.endswith(".0") for m in forked)  # TREx's "<region>.<generation>" names


def test_region_generations_and_forks(tmp_path):
    """An in-place layer starts a new generation; a region read twice is forked."""
    def act(name):
        return {"Name": name, "Dimensions": [1, 4], "Format/Datatype": "Row major linear FP16"}

    layers = [
        {"Name": "a", "LayerType": "X", "Inputs": [act("x")], "Outputs": [act("t")]},
        {"Name": "b", "LayerType": "X", "Inputs": [act("t")], "Outputs": [act("u")]},
        {"Name": "c", "LayerType": "X", "Inputs": [act("t")], "Outputs": [act("v")]},
        {"Name": "d", "LayerType": "X", "Inputs": [act("u"), act("v")], "Outputs": [act("t")]},
        {"Name": "e", "LayerType": "X", "Inputs": [act("t")], "Outputs": [act("y")]},
    ]
    path = tmp_path / "g.json"
    path.write_text(__import__("json").dumps({"Layers": layers, "Bindings": ["x", "y"]}))
    plan = trex.EnginePlan(path)
    region = next(r for r in PlanGraph(plan).regions if r.name == "t")
    assert [len(g.writers) for g in region.generations] == [1, 1]
    assert [len(g.readers) for g in region.generations] == [2, 1]
    assert [g.is_forked for g in region.generations] == [True, False]
    graph = PlanGraph(plan)
    # Two generations: two region nodes t.0, t.1 and an edge between them.
    assert sorted(m.name for m in graph.memory_nodes if not m.is_user) == ["t.0", "t.1"]
    assert any(e.src.layer_name == "t.0" and e.dst.layer_name == "t.1" for e in graph.edges_list)


def test_colours_by_type_and_precision(engines):
    plan = load(engines, "trex-mobilenet-qat")
    by_type = DotGraph(plan, layer_type_formatter)
    fills = collections.Counter(n.attrs["fillcolor"] for n in by_type.nodes if n.kind == "layer")
    # 53 convolutions, 18 reformats (17 of them Q/DQ: one colour rule for every Reformat, as the
    # charts colour the type), 1 pooling.
    assert fills == {layer_colormap["Convolution"]: 53, layer_colormap["Reformat"]: 18,
                     layer_colormap["Pooling"]: 1}
    qdq = [n for n in by_type.nodes if n.layer is not None and n.layer.raw_dict.get("Origin") == "QDQ"]
    assert len(qdq) == 17 and all(n.rows[-1][0] == "QDQ" for n in qdq)  # the label says Q/DQ
    by_precision = DotGraph(plan, layer_precision_formatter)
    fills = collections.Counter(n.attrs["fillcolor"] for n in by_precision.nodes if n.kind == "layer")
    fp32 = precision_colormap["FP32"]
    assert fills == {NVDA_GREEN: 53, "orange": 15, fp32: 4}  # INT8, FP16, FP32 (README figures)
    edge_colors = collections.Counter(e.attrs["color"] for e in by_precision.edges)
    assert edge_colors == {NVDA_GREEN: 53, "orange": 23, fp32: 7}
    users = [n for n in by_type.nodes if n.kind == "region"]
    assert all(n.attrs["fillcolor"] == "gray" and n.attrs["shape"] == "rectangle" for n in users)


def test_dot_node_text_reads_on_its_fill(engines):
    """Graphviz drawings choose each node's text colour as the report does: the more readable of
    black and white on its fill (white on FP32 red), and cells with their own colour likewise."""
    from trex.graph.colors import contrast_ratio, text_color
    from trex.graph.formatters import html_table

    plan = load(engines, "trex-mobilenet-qat")
    for formatter in (layer_type_formatter, layer_precision_formatter, layer_latency_formatter(plan)):
        nodes = [n for n in DotGraph(plan, formatter).nodes if n.kind == "layer"]
        for node in nodes:
            fill, ink = node.attrs["fillcolor"], node.attrs["fontcolor"]
            assert ink == text_color(fill) and contrast_ratio(fill, ink) >= 4.5, (fill, ink)
    by_precision = DotGraph(plan, layer_precision_formatter)
    fp32 = [n for n in by_precision.nodes if n.kind == "layer" and n.layer.precision == "FP32"]
    assert len(fp32) == 4 and {n.attrs["fontcolor"] for n in fp32} == {"white"}
    assert 'fontcolor="white"' in by_precision.source or "fontcolor=white" in by_precision.source
    cell = html_table([("Convolution", None), ("Conv(input0) + input1", "lightblue")])
    assert '<TD BGCOLOR="lightblue"><FONT COLOR="black">Conv(input0) + input1</FONT></TD>' in cell


def test_precision_table_covers_every_type():
    for precision in ("FP32", "TF32", "FP16", "BF16", "FP8", "INT8", "INT4", "FP4", "INT32",
                      "INT64", "Bool"):
        assert precision in precision_colormap
    assert precision_colormap["never-seen"] == "gray"
    assert len({precision_colormap[p] for p in ("FP32", "FP16", "BF16", "FP8", "INT8", "FP4")}) == 6


def test_labels_contain_latency(engines):
    plan = load(engines, "trex-mobilenet-qat")
    graph = DotGraph(plan, layer_type_formatter)
    latency = dict(zip(plan.df["Name"], plan.df["latency.avg_time"]))
    layer_nodes = [n for n in graph.nodes if n.kind == "layer"]
    for node in layer_nodes:
        assert node.rows[0][0] == node.layer.type
        assert node.rows[1][0] == f"{latency[node.name]:.4g} ms"
        assert f"<TD>{latency[node.name]:.4g} ms</TD>" in node.label
    median = DotGraph(plan, layer_type_formatter, latency_type="median_time")
    first = next(n for n in median.nodes if n.kind == "layer")
    assert first.rows[1][0] == f"{plan.df['latency.median_time'].iloc[0]:.4g} ms"
    hidden = DotGraph(plan, layer_type_formatter, display_latency=False)
    assert not any(" ms" in text for n in hidden.nodes for text, _ in n.rows)


def test_latency_heatmap_formatter(engines):
    plan = load(engines, "trex-mobilenet-qat")
    formatter = layer_latency_formatter(plan)
    graph = DotGraph(plan, formatter)
    fills = {n.name: n.attrs["fillcolor"] for n in graph.nodes if n.kind == "layer"}
    slowest = plan.df.loc[plan.df["latency.avg_time"].idxmax(), "Name"]
    fastest = plan.df.loc[plan.df["latency.avg_time"].idxmin(), "Name"]
    assert fills[slowest] == latency_palette[-1]
    assert latency_palette.index(fills[fastest]) < latency_palette.index(fills[slowest])
    assert set(fills.values()) <= set(latency_palette)
    assert graph.nodes[5].attrs["tooltip"].startswith("latency:")


def test_trex_options(engines):
    plan = load(engines, "trt8.6-resnet50-int8")
    names = DotGraph(plan, layer_type_formatter, display_layer_names=False)
    assert all(len(n.rows) <= 3 for n in names.nodes if n.kind == "layer")  # type, latency, origin
    flat = DotGraph(plan, layer_type_formatter, stack_layer_names=False, display_metadata=False)
    conv = next(n for n in flat.nodes if n.kind == "layer" and n.layer.type == "ConvActPool")
    # the unstacked name, wrapped at a separator into rows of at most 56 characters
    assert [text for text, _ in conv.rows[2:]] == ["/backbone/conv1/Conv + /backbone/relu/Relu + /backbone/",
                                                    "maxpool/MaxPool"]
    alexnet = load(engines, "trt10.4-alexnet-fp16")
    for flag, shown in ((True, "/Flatten"), (False, "__myl_Res_myl9_1")):
        meta = DotGraph(alexnet, layer_type_formatter, display_matadata=flag)  # TREx's spelling
        kgen = next(n for n in meta.nodes if n.name == "__myl_Res_myl9_1")
        assert kgen.rows[2] == (shown, None)
    details = DotGraph(plan, layer_type_formatter, expand_layer_details=True)
    assert any(bg == "lightblue" for n in details.nodes for _, bg in n.rows)
    edges = DotGraph(plan, layer_type_formatter, display_edge_name=True, display_edge_details=False)
    assert edges.edges[0].label == edges.edges[0].tensor.name
    reuse = DotGraph(plan, layer_type_formatter, display_regions=True, display_region_names=True)
    assert any(n.rows[0][0] == n.name for n in reuse.nodes if n.kind == "region")
    high = DotGraph(plan, layer_type_formatter, highlight_layers=[0, plan.df["Name"].iloc[3]])
    assert high.highlighted_layers_ids == [plan.df["Name"].iloc[0], plan.df["Name"].iloc[3]]
    lit = [n for n in high.nodes if n.attrs.get("color") == "yellow"]
    assert len(lit) == 2 and all(n.attrs["penwidth"] == "6" for n in lit)
    with pytest.warns(UserWarning, match="out of range"):
        DotGraph(plan, layer_type_formatter, highlight_layers=[10_000])


def test_remove_disconnected_layers(engines):
    plan = load(engines, "trt10.4-alexnet-fp16")  # has a shape_call layer without tensors
    kept = DotGraph(plan, layer_type_formatter)
    removed = DotGraph(plan, layer_type_formatter, remove_disconnected_layers=True)
    assert kinds(kept)["layer"] - kinds(removed)["layer"] == 1
    assert not any(n.layer.type == "shape_call" for n in removed.nodes if n.layer)


def test_to_dot_returns_digraph_and_renders(engines, tmp_path):
    graphviz = require_graphviz_package()
    require_dot()
    plan = load(engines, "trex-mobilenet-qat")
    dot = to_dot(plan, layer_type_formatter)
    assert isinstance(dot, graphviz.Digraph)
    assert dot.source.count(" -> ") == 83
    svg = render_dot(dot, str(tmp_path / "mobilenet"), "svg")
    assert svg == str(tmp_path / "mobilenet.svg")
    root = ET.parse(svg).getroot()
    assert len([g for g in root.iter("{http://www.w3.org/2000/svg}g")
                if g.get("class") == "node"]) == 74
    png = render_dot(dot, str(tmp_path / "mobilenet"), "png")
    assert open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    src = render_dot(dot, str(tmp_path / "mobilenet"), "dot")
    assert open(src).read() == dot.source


def svg_strings(path_or_text: str) -> str:
    """Every text and title (element or attribute) of an SVG, joined."""
    root = (ET.fromstring(path_or_text) if path_or_text.lstrip().startswith("<")
            else ET.parse(path_or_text).getroot())
    parts = []
    for element in root.iter():
        parts.append(element.text or "")
        parts.extend(v for k, v in element.attrib.items() if k.endswith("title"))
    return "\n".join(parts)


DETAILED = sorted({folder for folder, _ in COUNTS})


@pytest.mark.parametrize("folder", DETAILED)
def test_svg_parses_and_names_every_layer(engines, folder, tmp_path):
    require_dot()
    plan = load(engines, folder)
    for method in ("dot", "layered"):
        result = draw_plan(plan, tmp_path / f"{method}.svg", method=method,
                           display_forking_regions=True)
        assert result.method == method
        text = svg_strings(result.path)
        missing = [layer.name for layer in plan.all_layers if layer.name not in text]
        assert not missing


def test_own_layout_svg_structure(engines):
    plan = load(engines, "trex-mobilenet-v2-residuals-qat")
    graph = DotGraph(plan, layer_precision_formatter, display_forking_regions=True)
    svg = graph_to_svg(graph, plan.name)
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    nodes = [g for g in root.iter(f"{ns}g") if (g.get("class") or "").startswith("node ")]
    assert len(nodes) == len(graph.nodes)
    paths = [p for p in root.iter(f"{ns}path") if p.get("class") == "e"]
    assert len(paths) == len(graph.edges)
    fills = collections.Counter(g.find(f"{ns}rect").get("fill") for g in nodes
                                if g.get("class") == "node layer")
    assert fills[NVDA_GREEN] == 53
    assert re.search(r"0\.\d+ ms", svg)


def test_draw_plan_chooses_renderer(engines, tmp_path, monkeypatch):
    from trex.graph import drawing

    plan = load(engines, "trex-mobilenet-qat")
    assert drawing.choose_method(100, "dot") == "source"
    assert drawing.choose_method(100_000, "svg") == "layered"
    assert drawing.choose_method(100_000, "svg", "dot") == "dot"
    monkeypatch.setattr(drawing, "dot_executable", lambda: None)
    result = draw_plan(plan, tmp_path / "x.svg")  # no Graphviz: still an SVG
    assert result.method == "layered"
    ET.parse(result.path)
    with pytest.raises(ValueError, match="color_by"):
        draw_plan(plan, tmp_path / "x.svg", color_by="nope")


def test_missing_graphviz_is_a_clear_error(engines, tmp_path, monkeypatch):
    from trex.graph import GraphvizError

    plan = load(engines, "trex-mobilenet-qat")
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(GraphvizError, match="apt-get install graphviz"):
        draw_plan(plan, tmp_path / "x.png", "png")


def test_core_import_stays_light():
    code = ("import sys, trex, trex.graph, trex.cli; "
            "print(' '.join(m for m in ('graphviz', 'onnx') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         timeout=120).stdout
    assert out.strip() == ""
