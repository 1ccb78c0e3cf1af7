"""Labels longer than Graphviz's 16,384-character string limit: shortened in the DOT source (the
full text stays in the own layout's tooltips, the plan's table and the HTML report). Inputs: the
real trt8.6-resnet50-int8 export with 1 MB layer, tensor and metadata strings
(bench/worst_cases.py ``long_names_engine``)."""

from __future__ import annotations

import re
import subprocess
import warnings
import xml.etree.ElementTree as ET

import pytest

import trex
from helpers import bench_module, require_program
from trex.cli import main
from trex.graph import DotGraph, layer_type_formatter
from trex.graph.escape import DOT_MAX_STRING, fit_escaped, html_text
from trex.graph.svg import MAX_ROW_CHARS

warnings.simplefilter("ignore", trex.TrexWarning)
SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"
# A DOT string: "..." with escapes, or an HTML label <...> (trex writes one per line).
QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')


@pytest.fixture(scope="module")
def names_engine(engines, tmp_path_factory):
    worst = bench_module("worst_cases")
    prefix = worst.long_names_engine(tmp_path_factory.mktemp("names"), engines)
    return str(prefix), worst.hostile_names()


def longest_dot_string(source: str) -> int:
    longest = max(len(m) for m in QUOTED.findall(source))
    html = [len(m) for m in re.findall(r"label=<(.*)> ", source)]
    return max(longest, *html)


def test_dot_source_fits_graphviz(names_engine):
    prefix, names = names_engine
    plan = trex.EnginePlan.from_path(prefix)
    assert set(names) <= set(plan.df["Name"])  # the table keeps every name whole
    graph = DotGraph(plan, layer_type_formatter, display_forking_regions=True,
                     display_region_names=True, display_regions=True, display_edge_name=True)
    source = graph.source
    assert longest_dot_string(source) <= DOT_MAX_STRING
    assert "\u2026" in source  # shortened, visibly
    # the node keeps the name's start, and ids stay unique
    conv = next(n for n in graph.nodes if n.name == names[0])
    assert conv.id.startswith("Conv_1_1_1") and len(conv.id) <= 3001
    assert len({n.id for n in graph.nodes}) == len(graph.nodes)


@pytest.mark.parametrize("layout", ["dot", "own"])
def test_megabyte_names_through_trex_draw(names_engine, tmp_path, capsys, layout):
    if layout == "dot":
        require_program("dot")
    prefix, names = names_engine
    out = tmp_path / f"{layout}.svg"
    assert main(["draw", prefix, "--layout", layout, "-o", str(out)]) == 0
    assert "Created file://" in capsys.readouterr().out
    root = ET.parse(out).getroot()
    if layout == "own":
        titles = [t.text or "" for t in root.iter(f"{SVG}title")]
        for name in names:  # whole, in the node's tooltip (spaces and all)
            assert any(t.startswith(name) for t in titles)
        texts = [t.text or "" for t in root.iter(f"{SVG}text")]
        assert max(len(t) for t in texts) <= MAX_ROW_CHARS
    else:
        tips = [a.get(f"{XLINK}title") or "" for a in root.iter(f"{SVG}a")]
        # the name first (its start, as much as Graphviz takes), then the attributes, cut at 300
        assert any(t.startswith("Conv_1_1_1") and "\nName:Conv_1_1_1" in t for t in tips)
        assert max(len(t) for t in tips) < DOT_MAX_STRING
        # labels are bounded as in the own layout: rows of at most 56 characters, three lines of
        # a long name (its start, then "…" and its end)
        texts = [t.text or "" for t in root.iter(f"{SVG}text")]
        assert max(len(t) for t in texts) <= MAX_ROW_CHARS
        for start, end in (("Conv_1_1", "_1y"), ("PWN(PWN(", "PWN("), ("{ForeignNode[/x/x", "/x")):
            at = next(i for i, t in enumerate(texts) if t.startswith(start))
            assert texts[at + 2].startswith("\u2026") and texts[at + 2].endswith(end)


def test_report_keeps_the_whole_name(names_engine, tmp_path):
    prefix, names = names_engine
    out = tmp_path / "r.html"
    assert main(["report", prefix, "-o", str(out)]) == 0
    html = out.read_text()
    assert names[0] in html


def test_fit_escaped_is_exact():
    text = "&\\" * 20000
    fitted = fit_escaped(text, html_text, 16000)
    assert len(fitted) <= 16000 and fitted.endswith("\u2026")
    assert fit_escaped("short", html_text) == "short"


def test_dot_accepts_the_limit():
    """Graphviz itself: 16,384 characters is where it stops (so the budget is needed)."""
    require_program("dot")
    ok = subprocess.run(["dot", "-Tsvg"], input=f'digraph {{ a [label="{"x" * 16000}"] }}',
                        capture_output=True, text=True)
    too_long = subprocess.run(["dot", "-Tsvg"], input=f'digraph {{ a [label="{"x" * 20000}"] }}',
                              capture_output=True, text=True)
    assert ok.returncode == 0 and too_long.returncode != 0 and "16384" in too_long.stderr
