"""Untrusted strings stay inert: names, tensors, types, tactics and metadata that look like markup,
DOT syntax or escape sequences render as text in DOT, SVG (Graphviz and trex's own) and ONNX."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import warnings
import xml.etree.ElementTree as ET

import pytest

import trex
from helpers import require_module, require_program  # noqa: F401
from trex.graph import (
    DotGraph,
    draw_plan,
    graph_to_svg,
    layer_node_renderer_keras,
    layer_node_renderer_simple,
    layer_precision_formatter,
    layer_type_formatter,
)
from trex.graph.escape import clean, dot_quote, html_text, record_text, xml_attr, xml_text

warnings.simplefilter("ignore", trex.TrexWarning)

EVIL = [
    "<script>alert(1)</script>",
    'q"uo\'te"',
    "{br|ace}",
    "pi|pe||x",
    "co:lon:n:s",
    "ctl\x01\x07\x1b[31m\x7f\u0085end",
    "back\\slash\\N\\G\\",
    '"];evil[label="x',
    "</TD></TR></TABLE>>]; x [",
    "&amp;&lt;",
    "new\nline\rret\ttab",
    "]]>--><!--",
    "<<b>html</b>>",
]
SVG = "{http://www.w3.org/2000/svg}"


def tensor(name: str, fmt: str = "Row major linear FP16") -> dict:
    return {"Name": name, "Location": "Device", "Dimensions": [1, 8, 4, 4], "Format/Datatype": fmt}


@pytest.fixture
def evil_plan(tmp_path) -> trex.EnginePlan:
    """A chain of layers whose every string is hostile; odd layers run on auxiliary streams."""
    layers = []
    prev = 'in<put>"x'
    for i, text in enumerate(EVIL):
        out = f"t{i}{text}"
        layers.append({
            "Name": f"L{i} {text}",
            "LayerType": text if i % 3 == 0 else "Convolution",
            "ParameterType": text if i % 3 == 0 else "Convolution",
            "Inputs": [tensor(prev)],
            "Outputs": [tensor(out, "Row major linear FP32" if i % 2 else f"Int8 {text}")],
            "TacticName": text, "Metadata": f"[ONNX Layer: {text}]", "StreamId": i % 3,
            "Origin": text, "Activation": text,
        })
        prev = out
    path = tmp_path / "evil.graph.json"
    path.write_text(json.dumps({"Layers": layers, "Bindings": ['in<put>"x', prev]}))
    return trex.EnginePlan(path)


def assert_inert(root: ET.Element) -> None:
    for element in root.iter():
        tag = element.tag.split("}")[-1].lower()
        assert tag not in ("script", "foreignobject", "iframe"), tag
        assert not [k for k in element.attrib if k.split("}")[-1].lower().startswith("on")]
        href = element.get("{http://www.w3.org/1999/xlink}href") or element.get("href") or ""
        assert not href.lower().startswith("javascript")


def strings(root: ET.Element) -> str:
    parts = []
    for element in root.iter():
        parts.append(element.text or "")
        parts.extend(v for k, v in element.attrib.items() if k.endswith("title"))
    return "\n".join(parts)


def test_escape_functions():
    assert dot_quote('a"b\\c\nd&') == '"a\\"b\\\\c\\nd&amp;"'
    assert html_text('<a href="x">&|{}</a>') == (
        "&lt;a href=&quot;x&quot;&gt;&amp;&#124;&#123;&#125;&lt;/a&gt;")
    assert html_text("\\N") == "&#92;&#92;N"
    assert record_text("a|b{c}<d> e&") == "a\\|b\\{c\\}\\<d\\>\\ e&amp;"
    assert xml_text("<x>&\x00\x1b") == "&lt;x&gt;&amp;"
    assert xml_attr('"a"\nb') == "&quot;a&quot;&#10;b"
    assert clean("a\x00b\x1bc\u2028d\ud800e") == "abc de"


def test_dot_source_has_one_statement_per_node_and_edge(evil_plan):
    graph = DotGraph(evil_plan, layer_type_formatter, display_regions=True,
                     display_region_names=True, display_edge_name=True)
    body = graph.body()
    assert len(body) == len(graph.nodes) + len(graph.edges)
    for line in body:
        assert line.startswith("\t") and line.endswith("]\n") and "\n" not in line[:-1]
        assert "\x1b" not in line and "\x01" not in line


def test_graphviz_svg_is_inert_and_complete(evil_plan, tmp_path):
    if shutil.which("dot") is None:
        if os.environ.get("CI"):
            pytest.fail("Graphviz `dot` is required in CI")
        pytest.skip("Graphviz `dot` is not installed")
    for kwargs in ({}, {"display_regions": True, "display_region_names": True,
                        "display_edge_name": True, "expand_layer_details": True},
                   {"display_metadata": True, "stack_layer_names": False}):
        result = draw_plan(evil_plan, tmp_path / "g.svg", method="dot", **kwargs)
        root = ET.parse(result.path).getroot()
        assert_inert(root)
        nodes = [g for g in root.iter(f"{SVG}g") if g.get("class") == "node"]
        edges = [g for g in root.iter(f"{SVG}g") if g.get("class") == "edge"]
        assert (len(nodes), len(edges)) == (result.nodes, result.edges)
        text = strings(root)
        for layer in evil_plan.layers:
            assert clean(layer.name) in text
        assert "<script>alert(1)</script>" in text  # as text, not as an element
    png = draw_plan(evil_plan, tmp_path / "g.png", "png")
    assert open(png.path, "rb").read(4) == b"\x89PNG"


@pytest.mark.parametrize("renderer", [layer_node_renderer_keras, layer_node_renderer_simple])
def test_other_renderers_render(evil_plan, renderer, tmp_path):
    if shutil.which("dot") is None:
        pytest.skip("Graphviz `dot` is not installed")
    graph = DotGraph(evil_plan, layer_precision_formatter, layer_node_renderer=renderer)
    proc = subprocess.run(["dot", "-Tsvg"], input=graph.source.encode(), capture_output=True,
                          timeout=60)
    assert proc.returncode == 0 and b"Error" not in proc.stderr, proc.stderr
    root = ET.fromstring(proc.stdout)
    assert_inert(root)
    assert len([g for g in root.iter(f"{SVG}g") if g.get("class") == "node"]) == len(graph.nodes)


def test_own_svg_is_inert_and_complete(evil_plan):
    graph = DotGraph(evil_plan, layer_type_formatter, display_forking_regions=True,
                     display_edge_name=True)
    svg = graph_to_svg(graph, "<title>" + EVIL[0])
    root = ET.fromstring(svg)
    assert_inert(root)
    text = strings(root)
    for layer in evil_plan.layers:
        assert clean(layer.name) in text
    assert "<script>alert(1)</script>" in text


def test_formatter_values_cannot_inject_attributes(evil_plan):
    def hostile(layer):
        return {"fillcolor": 'red" onload="alert(1)', "tooltip": "</title><script>x</script>",
                "bad key": "x", "penwidth": "1e9", "style": "filled"}

    graph = DotGraph(evil_plan, hostile)
    assert all("bad key" not in line for line in graph.body())
    root = ET.fromstring(graph_to_svg(graph))
    assert_inert(root)
    fills = {r.get("fill") for r in root.iter(f"{SVG}rect")}
    assert 'red" onload="alert(1)' not in fills


def test_onnx_export_keeps_names_as_data(evil_plan, tmp_path):
    onnx = require_module("onnx")
    from trex.graph import export_onnx

    path = export_onnx(evil_plan, tmp_path / "evil.onnx")
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    assert [n.name for n in model.graph.node] == [clean(layer.name) for layer in evil_plan.layers]
    assert all(n.op_type.replace("_", "").isalnum() for n in model.graph.node)
