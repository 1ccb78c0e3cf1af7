"""``--format markdown`` of summary, compare (with the gate's verdict) and lint, rendered by a
CommonMark parser with GitHub's tables: the figures of the real engines, and hostile names that
stay text (no link, image, HTML or mention), one table row each."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from helpers import require_module
from test_html_report import HOSTILE, make_hostile_engine
from trex.cli import main

ALLOWED_TAGS = {"h3", "h4", "p", "table", "thead", "tbody", "tr", "th", "td", "strong", "ul", "li"}


class Page(HTMLParser):
    """The rendered page's tags, attributes and tables (rows of cell texts)."""

    def __init__(self, html: str):
        super().__init__()
        self.tags: set[str] = set()
        self.attributes: list[tuple[str, str | None]] = []
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attributes += [a for a in attrs if a != ("style", "text-align:right")]
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def render(text: str) -> Page:
    markdown_it = require_module("markdown_it")
    html = markdown_it.MarkdownIt("commonmark").enable("table").render(text)
    return Page(html)


def _run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_summary_markdown(engines, capsys):
    code, out = _run(capsys, "summary", str(engines / "a100-resnet18-qat"), "-f", "markdown",
                     "--top", "3")
    assert code == 0 and out.startswith("### resnet-qat.onnx.engine\n")
    page = render(out)
    assert page.tags <= ALLOWED_TAGS and not page.attributes
    headline, device, *_rest, by_type, by_precision, slowest, tactics = page.tables
    assert ["Layers", "35"] in headline and ["Weights", "11,702,112 B"] in headline
    assert ["Compute capability", "8.0"] in device
    assert by_type[0] == ["type", "count", "timed", "latency_ms", "latency_pct"]
    assert [row[:2] for row in by_type[1:]] == [["Convolution", "21"], ["Reformat", "12"],
                                                 ["Pooling", "2"]]
    assert {row[0] for row in by_precision[1:]} == {"INT8", "FP16", "FP32"}
    assert len(slowest) == 4 and slowest[1][0] == "conv1.weight + QuantizeLinear_7 + Conv_9"
    assert all(len(row) == len(table[0]) for table in page.tables for row in table)
    assert len(tactics) > 2


def test_compare_markdown_leads_with_the_gate_verdict(engines, capsys):
    fp16, fp32 = str(engines / "a100-resnet18-fp16"), str(engines / "a100-resnet18-fp32")
    code, out = _run(capsys, "compare", fp16, fp32, "--names", "fp16,fp32", "-f", "markdown",
                     "--fail-if-slower", "50", "--top", "5")
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "### trex compare: fp16 vs fp32"
    assert lines[2].startswith("❌ **Regression gate failed**: total latency") \
        and "fp32 2.1238 ms vs fp16 1.0168 ms, 108.9% slower; FAIL" in lines[2]
    page = render(out)
    assert page.tags <= ALLOWED_TAGS and not page.attributes
    engines_table, summary, by_type, *_ = page.tables
    assert [row[0] for row in engines_table[1:]] == ["fp16", "fp32"]
    assert ["weights", "23,369,424 B", "46,738,848 B"] in summary
    assert ["compute capability", "8.0", "8.0"] in summary
    assert by_type[1][:3] == ["Convolution", "0.8571", "1.9753"]
    code, out = _run(capsys, "compare", fp32, fp16, "--names", "fp32,fp16", "-f", "markdown",
                     "--fail-if-slower", "5")
    assert code == 0 and "✅ **Regression gate passed**" in out.splitlines()[2]
    code, out = _run(capsys, "compare", fp32, fp16, "-f", "markdown")
    assert code == 0 and "Regression gate" not in out


def test_lint_markdown(engines, capsys):
    paths = [str(engines / f"a100-resnet18-{v}") for v in ("qat", "qat-residual", "qat-residual-qgap")]
    code, out = _run(capsys, "lint", *paths, "-f", "markdown", "-l", "reformat-share",
                     "--fail-on", "warning")
    assert code == 1
    assert out.startswith("❌ **Lint gate failed**: a finding at warning or worse (--fail-on warning)")
    assert re.findall(r"^### (\S+): (\d+) findings", out, flags=re.M) == [
        (r"resnet-qat.onnx.engine", "2"), ("resnet-qat-residual.onnx.engine", "1"),
        ("resnet-qat-residual-qgap.onnx.engine", "1")]
    page = render(out)
    assert page.tags <= ALLOWED_TAGS and not page.attributes
    # the input's quantize is needed with FP32 bindings: only qat's other reformats (19.8 %)
    # make a warning; qat-residual's and qgap's remaining reformats are that quantize, or nearly
    assert [t[1][:2] for t in page.tables] == [["warning", "reformat-share"],
                                               ["info", "reformat-share"],
                                               ["info", "reformat-share"]]
    assert "reformats=12" in page.tables[0][1][4] and "reformat_pct=25.4200" in page.tables[0][1][4]


def test_hostile_names_stay_text(engines, tmp_path, capsys):
    folder, names = make_hostile_engine(engines, tmp_path)
    other = tmp_path / "base"
    other.symlink_to(engines / "trt8.6-resnet50-int8")
    outputs = [_run(capsys, "summary", str(folder), "-f", "markdown", "--top", str(len(HOSTILE)))[1],
               _run(capsys, "lint", str(folder), "-f", "markdown")[1],
               _run(capsys, "compare", str(other), str(folder), "-f", "markdown", "--top", "0",
                    "--fail-if-slower", "1")[1]]
    for out in outputs:
        page = render(out)
        assert page.tags <= ALLOWED_TAGS, page.tags  # no a, img, script, svg, b, ...
        assert not page.attributes
        assert all(len(row) == len(table[0]) for table in page.tables for row in table)
        assert "\x1b" not in out and "\u202e" not in out
    compare = render(outputs[2])
    shown = {cell for table in compare.tables for row in table for cell in row}
    for name in names:  # every hostile layer name is a cell of the aligned layers, as text
        if "\n" not in name and name.isprintable():
            assert name in shown, name


@pytest.mark.parametrize("name", ["@octocat says hi", "a | b", "[x](https://example.com)"])
def test_markdown_text_escapes(name):
    from trex.safety import markdown_text

    page = render(f"| a |\n|---|\n| {markdown_text(name)} |\n")
    assert page.tables == [[["a"], [name.replace("@", "@\u2060")]]]
    assert page.tags <= ALLOWED_TAGS and not page.attributes
