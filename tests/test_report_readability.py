"""The HTML report read by a practitioner at 1,400 x 900 (issue 25), in Chromium: the layer table
keeps type, precision, latency and % in view, the graph legend never covers a node, the table's
filters dim the graph, Reformat has one colour, the donuts' titles do not overlap and their
percentages say %, inputs and outputs one per line, unpaired compare rows show "–", engine labels
past Z, and the header's wording (ONNX node names, unknown precisions, OPs, few iterations).

Each test opens real exports (../shared/engines) or ones derived from them; see
tests/test_report_browser.py for the browser set-up (Debian's Chromium through Playwright).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import trex
from helpers import bench_module
from test_report_browser import Report, browser, screenshot_path  # noqa: F401 (the fixture)
from test_report_visuals import CSS_RGB, SEEN_COLOURS, draw_every_chart
from trex.graph.colors import layer_colormap
from trex.html_report import write_report

VIEWPORT = {"width": 1400, "height": 900}
# the table's columns always in view (math: the math the kernel runs, beside the precision)
KEPT = ("idx", "name", "type", "precision", "math", "avg", "pct")
DASH = "\u2013"
FIT = "button[title='Show the whole graph']"
DIMMED = "() => document.querySelector('#graph-stage .nodes').getAttribute('data-dimmed')"
OPTIONS = "(id) => [...document.querySelectorAll(`#${id} option`)].map(o => o.textContent)"


def report_of(tmp_path_factory, source, name: str, **kwargs) -> Path:
    out = tmp_path_factory.mktemp("readable") / f"{name}.html"
    write_report(source, out, **kwargs)
    return out


@pytest.fixture(scope="module")
def mobilenet_html(engines, tmp_path_factory):
    return report_of(tmp_path_factory, str(engines / "trex-mobilenet-qat"), "mobilenet")


@pytest.fixture(scope="module")
def qat_html(engines, tmp_path_factory):
    """NVIDIA's INT8 ResNet18 (12 reformats, 11 of them Q/DQ; profiled once: count 1)."""
    return report_of(tmp_path_factory, str(engines / "a100-resnet18-qat"), "qat")


def open_report(browser, path: Path, fragment: str = "") -> Report:  # noqa: F811
    return Report(browser, path, fragment, viewport=VIEWPORT)


# ------------------------------------------------------------------ the layer table
VISIBLE_COLUMNS = """() => {
  const body = document.getElementById('layer-table');
  const b = body.getBoundingClientRect();
  const right = b.left + body.clientWidth;
  return {scrollLeft: body.scrollLeft, overflow: body.scrollWidth > body.clientWidth,
          cells: [...body.querySelectorAll('.vt-hcell')].map(c => {
            const r = c.getBoundingClientRect();
            return [c.getAttribute('data-col'), r.left >= b.left - 1 && r.right <= right + 1]; })};
}"""


@pytest.mark.parametrize("engine", ["mobilenet", "dla"])
def test_table_keeps_type_precision_latency_and_share_in_view(browser, engines, mobilenet_html,  # noqa: F811
                                                             tmp_path, engine):
    """Long names (TREx's fused names, a DLA engine's 3,344-character one) are cut, whole on
    hover; # to % are in view without scrolling sideways, the other columns follow."""
    if engine == "dla":
        prefix = bench_module("worst_cases").dla_names_engine(tmp_path / "dla", engines)
        path = tmp_path / "dla.html"
        write_report(str(prefix), path)
    else:
        path = mobilenet_html
    report = open_report(browser, path, "#tab=layers")
    try:
        report.page.wait_for_selector("#layer-table .vt-row")
        seen = report.js(VISIBLE_COLUMNS)
        visible = [col for col, inside in seen["cells"] if inside]
        assert seen["scrollLeft"] == 0 and seen["overflow"]  # tactic, ONNX nodes: further right
        assert visible[:len(KEPT)] == list(KEPT), seen
        cells = report.js("""() => [...document.querySelectorAll(
            '#layer-table .vt-cell[data-col=name]')].map(c => [c.textContent, c.title,
            c.scrollWidth > c.clientWidth + 1])""")
        assert any(cut for _, _, cut in cells)
        assert all(title == text for text, title, _ in cells)  # the full name on hover
        # every kept cell of a row shows its whole text (only the name is cut)
        for col in ("type", "precision", "math", "avg", "pct"):
            assert report.js(f"""() => [...document.querySelectorAll(
                '#layer-table .vt-cell[data-col={col}]')].every(c => c.scrollWidth <= c.clientWidth + 1)""")
        if engine == "dla":
            report.page.screenshot(path=str(screenshot_path(tmp_path, "table-1400.png")))
        assert report.errors == []
    finally:
        report.close()


# ------------------------------------------------------------------ the graph: legend and filters
LEGEND_GEOMETRY = """() => {
  const legend = document.getElementById('graph-legend').getBoundingClientRect();
  const stage = document.getElementById('graph-stage').getBoundingClientRect();
  const nodes = [...document.querySelectorAll('#graph-stage g[data-node] rect')]
    .map(r => r.getBoundingClientRect()).filter(r => r.bottom > stage.top && r.top < stage.bottom);
  const over = nodes.filter(r => r.left < legend.right && r.right > legend.left &&
                                 r.top < legend.bottom && r.bottom > legend.top).length;
  return {legendBottom: legend.bottom, stageTop: stage.top, stageHeight: stage.height,
          nodes: nodes.length, over,
          entries: [...document.querySelectorAll('#graph-legend .legend-entry')].map(e => e.textContent)};
}"""


def test_graph_legend_sits_above_the_drawing_and_folds(browser, mobilenet_html, tmp_path):  # noqa: F811
    report = open_report(browser, mobilenet_html, "#tab=layers")
    try:
        page = report.page
        report.wait("() => document.querySelectorAll('#graph-stage g[data-node]').length > 3")
        seen = report.js(LEGEND_GEOMETRY)
        assert seen["entries"] == ["Convolution (53)", "Reformat (18)", "Pooling (1)"]
        assert seen["legendBottom"] <= seen["stageTop"] + 0.5 and seen["over"] == 0
        # the first node (the input) is in view, under no legend
        page.click(FIT)
        report.wait("() => document.querySelector('.zoom-label').textContent !== '75%'")
        assert report.js(LEGEND_GEOMETRY)["over"] == 0
        page.click("#graph-legend .legend-toggle")
        folded = report.wait("""() => { const s = document.getElementById('graph-stage');
            return document.querySelectorAll('#graph-legend .legend-entry').length === 0
                && s.getBoundingClientRect().height; }""")
        assert folded >= seen["stageHeight"]  # the drawing keeps (or takes) the room
        assert page.get_attribute("#graph-legend .legend-toggle", "aria-expanded") == "false"
        page.click("#graph-legend .legend-toggle")
        page.select_option("#graph-color", "precision")
        report.wait("() => document.querySelector('#graph-legend .legend-entry').textContent === 'INT8 (53)'")
        page.select_option("#graph-color", "latency")
        report.wait("() => document.querySelector('#graph-legend .legend-entry').textContent"
                    ".startsWith('Latency (square-root scale): 0')")
        page.screenshot(path=str(screenshot_path(tmp_path, "graph-legend.png")))
        assert report.errors == []
    finally:
        report.close()


DIMMING = """() => [...document.querySelectorAll('#graph-stage g[data-node]')].map(g => {
  const nodes = window.trexReport.app.explorer.graph.g.nodes;
  const i = Number(g.getAttribute('data-node'));
  return [nodes.row[i], Number(getComputedStyle(g).opacity)]; })"""


def test_type_filter_dims_the_other_nodes(browser, mobilenet_html, tmp_path):  # noqa: F811
    report = open_report(browser, mobilenet_html, "#tab=layers")
    try:
        page = report.page
        report.wait("() => document.querySelectorAll('#graph-stage g[data-node]').length > 3")
        page.click(FIT)  # every node drawn (boxes at this scale)
        page.select_option("#graph-color", "type")
        assert report.js(DIMMED) == "0"
        page.select_option("#type-filter", "Reformat")
        report.count("layer-count", 18)
        types = report.js("() => window.trexReport.app.explorer.engine.L.type")
        report.wait(f"() => Number(({DIMMED})()) > 0")
        # zoomed in: one element per node, each dimmed unless it is a Reformat layer
        page.evaluate("() => { const g = window.trexReport.app.explorer.graph; g.center(0, 0.8); }")
        report.wait("() => document.querySelector('#graph-stage .nodes').getAttribute('data-lod') === 'full'")
        seen = report.wait(f"() => {{ const v = ({DIMMING})(); return v.length > 3 ? v : null; }}")
        for row, opacity in seen:
            kept = row >= 0 and types[row] == "Reformat"
            assert (opacity == 1) == kept, (row, opacity)
        assert any(row >= 0 and types[row] == "Reformat" for row, _ in seen)
        page.screenshot(path=str(screenshot_path(tmp_path, "graph-filtered.png")))
        # a legend entry filters too (and a second click shows every layer again)
        page.click("text=Clear")
        report.wait(f"() => ({DIMMED})() === '0'")
        page.click("#graph-legend .legend-entry[data-key='Pooling']")
        report.count("layer-count", 1)
        assert page.input_value("#type-filter") == "Pooling"
        page.click("#graph-legend .legend-entry[data-key='Pooling']")
        report.count("layer-count", 72)
        assert report.errors == []
    finally:
        report.close()


def test_reformat_has_one_colour_in_every_view(browser, engines, tmp_path):  # noqa: F811
    """The overview and charts tabs' figures, the graph's legend, nodes and the details badge,
    and the comparison: every Reformat (Q/DQ or not) in Reformat's cyan."""
    out = tmp_path / "compare.html"
    write_report([str(engines / "a100-resnet18-fp16"), str(engines / "a100-resnet18-qat")], out,
                 labels=["fp16", "int8"])
    report = open_report(browser, out)
    seen: list[list[str]] = []
    try:
        page = report.page
        cyan = report.js(CSS_RGB, [layer_colormap["Reformat"]])[0]
        page.select_option("#engine-select", "1")
        draw_every_chart(report, "overview")
        seen += report.js(SEEN_COLOURS)
        draw_every_chart(report, "charts")
        seen += report.js(SEEN_COLOURS)
        report.tab("layers")
        page.wait_for_selector("#graph-legend div[data-key]")
        seen += report.js(SEEN_COLOURS)
        page.click(FIT)
        report.js("() => window.trexReport.app.explorer.graph.center(3, 0.8)")
        report.wait("() => document.querySelector('#graph-stage .nodes').getAttribute('data-lod') === 'full'")
        nodes = report.js("""() => { const g = window.trexReport.app.explorer.graph;
            const L = window.trexReport.app.explorer.engine.L;
            return [...document.querySelectorAll('#graph-stage g[data-node]')].map(e => {
              const i = Number(e.getAttribute('data-node')); const row = g.g.nodes.row[i];
              const fill = getComputedStyle(e.querySelector('rect')).fill;
              return row >= 0 ? ['graph node', L.type[row], fill, '1'] : null;
            }).filter(Boolean); }""")
        assert sum(key == "Reformat" for _, key, _, _ in nodes) >= 2
        seen += nodes
        qdq = report.js("() => window.trexReport.app.explorer.engine.L.name.indexOf('QuantizeLinear_40')")
        report.js("(row) => window.trexReport.select(row, 'test')", qdq)
        badge = report.js("""() => getComputedStyle(document.querySelector('#details .badge .swatch'))
            .backgroundColor""")
        seen.append(["details badge", "Reformat", badge, "1"])
        draw_every_chart(report, "compare")
        seen += report.js(SEEN_COLOURS)
        assert report.errors == []
    finally:
        report.close()
    # (the precision sunburst's inner ring names the types in white: its colours are precisions')
    reformat = {(chart, fill) for chart, key, fill, _ in seen
                if str(key).startswith("Reformat") and chart != "Precision per layer type"}
    places = {chart for chart, _ in reformat}
    assert {"graph legend", "graph node", "details badge"} <= places and len(places) >= 6, places
    assert {fill for _, fill in reformat} == {cyan}, reformat
    assert not any("Q/DQ" in str(key) for _, key, _, _ in seen)


# ------------------------------------------------------------------ overview
DONUTS = """(card) => {
  const c = document.querySelector(`[data-chart='${card}']`);
  const titles = [...c.querySelectorAll('.annotation-text')].map(t => t.getBoundingClientRect())
    .map(r => [r.left, r.right, r.top, r.bottom]);
  const slices = [...c.querySelectorAll('g.trace')]
    .map(t => [...t.querySelectorAll('.slicetext')].map(s => s.textContent));
  return {titles, slices};
}"""


def _overlap(a, b) -> bool:
    return a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]


@pytest.mark.parametrize("width", [None, 480])
def test_precision_donuts_titles_apart_and_percent_signs(browser, mobilenet_html, tmp_path, width):  # noqa: F811
    """At 1,400 px and in the narrowest card the grid makes (480 px): the two donuts' titles do
    not overlap, and every share of the latency donut carries %."""
    card = "Layers and latency by precision"
    report = open_report(browser, mobilenet_html)
    try:
        page = report.page
        page.locator(f"[data-chart='{card}']").scroll_into_view_if_needed()
        page.wait_for_selector(f"[data-chart='{card}'] .chart[data-drawn]", timeout=10_000)
        if width:
            report.js("""([card, w]) => { const c = document.querySelector(`[data-chart='${card}']`);
                c.style.width = w + 'px'; window.Plotly.Plots.resize(c.querySelector('.chart')); }""",
                      [card, width])
            page.wait_for_timeout(400)
        seen = report.js(DONUTS, card)
        assert len(seen["titles"]) == 2 and not _overlap(*seen["titles"]), seen["titles"]
        count, share = seen["slices"]
        assert count and all(t.isdigit() for t in count)
        assert share and all(t.endswith(" %") for t in share), share
        if width:  # the narrow card and the page beside it (the gallery's pictures are >= 600 px)
            box = page.locator(f"[data-chart='{card}']").bounding_box()
            page.screenshot(path=str(screenshot_path(tmp_path, "donuts-narrow.png")),
                            clip={"x": box["x"] - 10, "y": box["y"] - 10, "width": 700,
                                  "height": box["height"] + 20})
    finally:
        report.close()


def many_outputs_engine(engines: Path, folder: Path) -> Path:
    """trex-mobilenet-qat with the outputs of its first 11 layers made engine outputs too."""
    shutil.copytree(engines / "trex-mobilenet-qat", folder)
    graph_file = next(folder.glob("*.graph.json"))
    data = json.loads(graph_file.read_text())
    data["Bindings"] += [layer["Outputs"][0]["Name"] for layer in data["Layers"][1:12]]
    graph_file.write_text(json.dumps(data))
    return folder


def test_inputs_and_outputs_one_per_line(browser, engines, tmp_path):  # noqa: F811
    mnist = tmp_path / "mnist.html"
    two = trex.EnginePlan.from_path(engines / "trt10.16-mnist-fp32")  # outputs y and z
    write_report(two, mnist)
    many = tmp_path / "many.html"
    plan = trex.EnginePlan.from_path(many_outputs_engine(engines, tmp_path / "many"))
    write_report(plan, many)
    expected = trex.model.facts.engine_facts(plan).outputs
    assert len(expected) == 12
    lines = """(id) => [...document.querySelectorAll(`#${id} .io-tensor`)]
        .filter(e => !e.closest('details:not([open])')).map(e => {
        const r = e.getBoundingClientRect(); return [e.textContent, r.top, r.bottom]; })"""
    report = open_report(browser, mnist)
    try:
        seen = report.js(lines, "model-outputs")
        assert [t for t, _, _ in seen] == trex.model.facts.engine_facts(two).outputs
        assert [t.split(":")[0] for t, _, _ in seen] == ["y", "z"]
        assert seen[1][1] >= seen[0][2] - 0.5  # the second below the first
    finally:
        report.close()
    report = open_report(browser, many)
    try:
        page = report.page
        shown = report.js(lines, "model-outputs")
        assert [t for t, _, _ in shown] == expected[:6]  # whole tensors, none cut
        assert all(b[1] >= a[2] - 0.5 for a, b in zip(shown, shown[1:]))
        assert page.text_content("#model-outputs .io-more summary") == "6 more"
        page.click("#model-outputs .io-more summary")
        assert [t for t, _, _ in report.js(lines, "model-outputs")] == expected
        assert "\u2026" not in page.text_content("#model-outputs")
        page.screenshot(path=str(screenshot_path(tmp_path, "io-lines.png")))
        assert report.errors == []
    finally:
        report.close()


def test_header_wording(browser, engines, mobilenet_html, qat_html, tmp_path):  # noqa: F811
    """ONNX node names say where they come from; a names-only export's precisions are unknown,
    with the reason; a profile of one iteration is cautioned against; INT8 compute in OPs."""
    def cards(report):
        return report.js("""() => Object.fromEntries([...document.querySelectorAll('.card')].map(
            c => [c.querySelector('h3').textContent, c.textContent]))""")

    report = open_report(browser, mobilenet_html)
    try:
        layers = cards(report)["Layers"]
        assert "ONNX node namesfrom layer names (71 of 72 layers)" in layers
        assert "Metadata" not in layers
        assert report.page.locator("#profile-caution").count() == 0  # 6,610 iterations
    finally:
        report.close()
    resnet50 = tmp_path / "resnet50.html"
    write_report(str(engines / "trt8.6-resnet50-int8"), resnet50)
    report = open_report(browser, resnet50, "#tab=layers")
    try:
        report.tab("overview")
        assert "ONNX node namesMetadata (56 of 57 layers)" in cards(report)["Layers"]
        # an INT8 convolution's compute is integer operations; a FP32 layer's is FLOPs
        report.tab("layers")
        precisions = report.js("() => window.trexReport.app.explorer.engine.L.precision")
        R = report.js("() => window.trexReport.app.explorer.engine.R.row")
        for precision, unit in (("INT8", "OP"), ("FP32", "FLOP")):
            row = next(r for r in R if precisions[r] == precision)
            report.js("(row) => window.trexReport.select(row, 'test')", row)
            text = report.page.text_content("#details")
            assert f"{unit}s" in text and f"{unit}/B" in text and f"T{unit}/s" in text, (unit, text)
            if unit == "OP":
                assert "FLOP" not in text
    finally:
        report.close()
    detr = tmp_path / "detr.html"
    write_report(str(engines / "trt10-detr-int8-names-only"), detr)
    report = open_report(browser, detr)
    try:
        page = report.page
        assert ("Precisionsunknown for all 840 layers (names-only layer information: build with "
                "--profilingVerbosity=detailed)") in cards(report)["Layers"]
        assert "None 840" not in page.text_content("#tab-overview")
        assert "precisions are unknown: names-only layer information" in page.text_content("#tab-overview")
        report.tab("layers")
        options = report.js(OPTIONS, "precision-filter")
        assert options == ["All precisions (840)", "unknown (840)"]
        assert page.text_content("#layer-table .vt-row .vt-cell[data-col=precision]") == "unknown"
        page.click("#layer-table .vt-row[data-item='3']")
        assert "unknown \u2192 unknown" in page.text_content("#details .badges")
        assert report.errors == []
    finally:
        report.close()
    report = open_report(browser, qat_html)
    try:
        caution = report.page.text_content("#profile-caution")
        assert caution.startswith("Caution: each layer's time is a single sample (the profile's "
                                  "count is 1)") and "10 or more iterations" in caution
        report.page.screenshot(path=str(screenshot_path(tmp_path, "overview-caution.png")))
    finally:
        report.close()


# ------------------------------------------------------------------ compare
def test_unpaired_rows_show_a_dash(browser, engines, tmp_path):  # noqa: F811
    out = tmp_path / "compare.html"
    write_report([str(engines / "a100-resnet18-fp16"), str(engines / "a100-resnet18-qat")], out,
                 labels=["fp16", "int8"])
    report = open_report(browser, out, "#tab=compare")
    try:
        report.page.wait_for_selector("#compare-table .vt-row")
        report.page.select_option("#compare-match", "only-in-B")
        rows = report.js("""() => [...document.querySelectorAll('#compare-table .vt-row')].map(r =>
            Object.fromEntries([...r.children].map(c => [c.getAttribute('data-col'), c.textContent])))""")
        assert len(rows) >= 10
        for row in rows:
            assert (row["delta"], row["speedup"], row["ms0"], row["n0"]) == (DASH, DASH, DASH, "")
            assert row["ms1"] not in ("", DASH, "0")
        report.page.locator("#compare-table").screenshot(
            path=str(screenshot_path(tmp_path, "compare-unpaired.png")))
        report.page.select_option("#compare-match", "signature")
        paired = report.js("""() => [...document.querySelectorAll('#compare-table .vt-row [data-col=delta]')]
            .map(c => c.textContent)""")
        assert paired and DASH not in paired
        assert report.errors == []
    finally:
        report.close()


@pytest.mark.filterwarnings("ignore::pandas.errors.PerformanceWarning")  # 28 engines' columns
def test_engine_labels_past_z(browser, engines, tmp_path):  # noqa: F811
    """28 engines: A ... Z, AA, AB, as trex compare names them (trex.compare.engine_letter)."""
    plan = trex.EnginePlan.from_path(engines / "trt10.16-mnist-fp32" / "result-02.log")
    out = tmp_path / "many.html"
    write_report([plan] * 28, out, labels=[f"e{k}" for k in range(28)])
    report = open_report(browser, out, "#tab=compare")
    try:
        options = report.js(OPTIONS, "engine-select")
        assert options[0] == "A: e0" and options[25] == "Z: e25"
        assert options[26:] == ["AA: e26", "AB: e27"]
        letters = report.js("""() => [...document.querySelector('#tab-compare table.plain tbody')
            .querySelectorAll('tr')].map(r => r.children[0].textContent)""")
        assert letters[24:] == ["Y", "Z", "AA", "AB"]
        assert report.errors == []
    finally:
        report.close()
