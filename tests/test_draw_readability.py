"""``trex draw`` read by a practitioner (issues 22 and 25): labels bounded in width with the full name
in the tooltip, so a DLA engine's fused names do not make a 25,000 pt wide SVG; a legend of what the
colours mean, outside the graph, for ``--color-by type|precision|latency`` in SVG and PNG.

Inputs: the real trt8.6-resnet50-int8 export with one layer renamed to a DLA-style fused name
(bench/worst_cases.py ``dla_names_engine``: 120 ONNX nodes, 3,344 characters, no `` + ``), and TREx's
trex-mobilenet-qat engine.
"""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET

import pytest

from helpers import bench_module, require_program
from trex.cli import main
from trex.graph.formatters import MAX_ROW_CHARS

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"
NUMBER_PAIR = re.compile(r"(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)")
# Before the labels were bounded, the DLA-style engine drew 25,346 pt wide (the plain engine 769 pt).
WIDEST_PT = 1200


@pytest.fixture(scope="module")
def dla_engine(engines, tmp_path_factory):
    worst = bench_module("worst_cases")
    prefix = worst.dla_names_engine(tmp_path_factory.mktemp("dla"), engines)
    return str(prefix), worst.dla_fused_name()


def svg_width(path) -> float:
    """The drawing's width in its own unit (pt for Graphviz, px for trex's own layout)."""
    return float(re.match(r"[\d.]+", ET.parse(path).getroot().get("width")).group(0))


def draw(args: list[str], capsys) -> str:
    assert main(["draw", *args]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("layout", ["dot", "own"])
def test_a_dla_fused_name_keeps_the_drawing_narrow(dla_engine, tmp_path, capsys, layout):
    if layout == "dot":
        require_program("dot")
    prefix, name = dla_engine
    out = tmp_path / f"{layout}.svg"
    draw([prefix, "--layout", layout, "-o", str(out)], capsys)
    assert svg_width(out) < WIDEST_PT
    root = ET.parse(out).getroot()
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert max(len(t) for t in texts) <= MAX_ROW_CHARS
    # the label: the name's start on two rows, then "…" and its end (where fused names differ)
    at = next(i for i, t in enumerate(texts) if t.startswith("{ForeignNode["))
    assert name.startswith(texts[at] + texts[at + 1])
    assert texts[at + 2].startswith("\u2026") and name.endswith(texts[at + 2][1:])
    # the whole name in the node's tooltip, first
    if layout == "dot":
        tips = [a.get(f"{XLINK}title") or "" for a in root.iter(f"{SVG}a")]
    else:
        tips = [t.text or "" for t in root.iter(f"{SVG}title")]
    assert any(t.startswith(name + "\n") for t in tips)


def test_the_plain_engine_is_as_wide_with_the_dla_name(dla_engine, engines, tmp_path, capsys):
    """The fused name adds no width beyond one bounded label row."""
    require_program("dot")
    prefix, _ = dla_engine
    draw([prefix, "-o", str(tmp_path / "dla.svg")], capsys)
    draw([str(engines / "trt8.6-resnet50-int8"), "-o", str(tmp_path / "plain.svg")], capsys)
    assert svg_width(tmp_path / "dla.svg") <= svg_width(tmp_path / "plain.svg") + 60


# ------------------------------------------------------------------ legends
def _ys(element) -> list[float]:
    """Every y of an SVG element's shapes and texts (Graphviz writes absolute coordinates)."""
    ys = [float(t.get("y")) for t in element.iter(f"{SVG}text")]
    for shape in element.iter():
        for attr in ("points", "d"):
            ys += [float(y) for _, y in NUMBER_PAIR.findall(shape.get(attr) or "")]
    return ys


def dot_legend(root):
    """(the legend's texts, their lowest y; the graph's lowest node y): Graphviz draws the graph's
    label (the legend) as texts of the graph itself, outside every node and edge group."""
    graph = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "graph")
    texts = [t for t in graph.findall(f"{SVG}text")]
    nodes = [g for g in graph.iter(f"{SVG}g") if g.get("class") in ("node", "edge")]
    return [t.text for t in texts], min(float(t.get("y")) for t in texts), max(
        y for g in nodes for y in _ys(g))


EXPECTED = {  # trex-mobilenet-qat: 53 convolutions, 18 reformats, 1 pooling; INT8 53, FP16 15, FP32 4
    "type": ["Layer type", "Convolution (53)", "Reformat (18)", "Pooling (1)"],
    "precision": ["Precision (of the first input)", "INT8 (53)", "FP16 (15)", "FP32 (4)"],
    "latency": ["Latency (square-root scale)", "0 ms"],
}


@pytest.mark.parametrize("color_by", ["type", "precision", "latency"])
def test_dot_svg_legend_is_under_the_graph(engines, tmp_path, capsys, color_by):
    require_program("dot")
    out = tmp_path / f"{color_by}.svg"
    draw([str(engines / "trex-mobilenet-qat"), "--color-by", color_by, "-o", str(out)], capsys)
    texts, legend_top, graph_bottom = dot_legend(ET.parse(out).getroot())
    assert texts[:len(EXPECTED[color_by])] == EXPECTED[color_by]
    assert legend_top > graph_bottom  # outside the graph: below every node and edge
    if color_by == "latency":
        assert re.fullmatch(r"0\.0\d+ ms", texts[2])  # the slowest layer's latency


@pytest.mark.parametrize("color_by", ["type", "precision", "latency"])
def test_own_layout_legend_is_under_the_drawing(engines, tmp_path, capsys, color_by):
    out = tmp_path / f"{color_by}.svg"
    draw([str(engines / "trex-mobilenet-qat"), "--color-by", color_by, "--layout", "own",
          "-o", str(out)], capsys)
    root = ET.parse(out).getroot()
    legend = next(g for g in root.iter(f"{SVG}g") if g.get("id") == "legend")
    texts = [t.text for t in legend.iter(f"{SVG}text")]
    assert texts[:len(EXPECTED[color_by])] == EXPECTED[color_by]
    nodes = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "nodes")
    bottom = max(float(r.get("y")) + float(r.get("height")) for r in nodes.iter(f"{SVG}rect"))
    assert min(_ys(legend)) > bottom
    assert float(root.get("height")) >= max(_ys(legend))  # inside the canvas


@pytest.mark.parametrize("color_by", ["type", "precision", "latency"])
def test_png_legend_adds_room_below_the_graph(engines, tmp_path, capsys, color_by):
    """A PNG is rendered from the same DOT as the SVG: the legend is the graph's label, so
    Graphviz makes room for it below the nodes."""
    require_program("dot")
    pil = pytest.importorskip("PIL.Image")
    beam = [str(engines / "trex-mobilenet-qat"), "-b", "QuantizeLinear_98,2", "-of", "png",
            "--color-by", color_by]
    draw([*beam, "-o", str(tmp_path / "with.png")], capsys)
    draw([*beam, "--no-legend", "-o", str(tmp_path / "without.png")], capsys)
    draw([*beam[:-4], "-of", "dot", "--color-by", color_by, "-o", str(tmp_path / "g.dot")], capsys)
    with pil.open(tmp_path / "with.png") as a, pil.open(tmp_path / "without.png") as b:
        assert a.height - b.height >= 30 and a.width >= b.width
    source = (tmp_path / "g.dot").read_text()
    assert "labelloc=b" in source and EXPECTED[color_by][0] in source


def test_legend_labels_are_escaped(engines, tmp_path, capsys):
    """Layer types come from the input: a hostile one is text in the DOT label and the SVGs."""
    folder = tmp_path / "hostile"
    shutil.copytree(engines / "trex-mobilenet-qat", folder)
    graph_file = next(folder.glob("*.graph.json"))
    data = json.loads(graph_file.read_text())
    hostile = '<b>x</b>&"|{}\\'
    for layer in data["Layers"][:3]:
        if isinstance(layer, dict):
            layer["ParameterType"] = hostile
    graph_file.write_text(json.dumps(data))
    out = tmp_path / "own.svg"
    draw([str(folder), "--layout", "own", "-o", str(out)], capsys)
    legend = next(g for g in ET.parse(out).getroot().iter(f"{SVG}g") if g.get("id") == "legend")
    assert any((t.text or "").startswith(hostile) for t in legend.iter(f"{SVG}text"))
    if shutil.which("dot"):
        out = tmp_path / "dot.svg"
        draw([str(folder), "-o", str(out)], capsys)
        texts, _, _ = dot_legend(ET.parse(out).getroot())
        assert any((t or "").startswith(hostile) for t in texts)
