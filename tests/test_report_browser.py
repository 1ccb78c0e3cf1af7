"""``trex report`` pages driven in a real browser: Debian's Chromium through Playwright.

Needs ``pip install playwright`` and ``apt-get install chromium`` (no browser download: Playwright
launches /usr/bin/chromium, or $TREX_CHROMIUM). Without them these tests skip locally and fail
when ``CI`` is set.
"""

from __future__ import annotations

import os
import re
import shutil
import time
import warnings
from pathlib import Path

import pytest

import trex
from helpers import require_program
from test_html_report import (
    HOSTILE_DIR,
    MOBILENET,
    generated_engine,
    make_hostile_engine,
)
from trex.html_report import write_report

warnings.simplefilter("ignore", trex.TrexWarning)

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
VIEWPORT = {"width": 1500, "height": 950}


def screenshot_path(tmp_path: Path, name: str) -> Path:
    """Where a test saves a screenshot: the folder $TREX_SCREENSHOTS names (scripts/make_pictures.py
    --tests refreshes the docs gallery from it), else the test's temporary folder."""
    folder = os.environ.get("TREX_SCREENSHOTS")
    if not folder:
        return tmp_path / name
    Path(folder).mkdir(parents=True, exist_ok=True)
    return Path(folder) / name


def _missing(what: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{what} is required in CI for the browser tests")
    pytest.skip(f"{what} is not installed")


def chromium_path() -> str | None:
    for candidate in (os.environ.get("TREX_CHROMIUM"), "/usr/bin/chromium",
                      shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and os.path.isfile(candidate):
            return candidate
    return None


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright (pip install playwright)")
    executable = chromium_path()
    if executable is None:
        _missing("chromium (apt-get install chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield b
        b.close()


class Report:
    """One opened report page, with what it logged and requested."""

    def __init__(self, browser, path: Path, fragment: str = "", init_script: str | None = None,
                 bypass_csp: bool = False, viewport: dict[str, int] | None = None):
        self.context = browser.new_context(viewport=viewport or VIEWPORT, bypass_csp=bypass_csp)
        if init_script:
            self.context.add_init_script(init_script)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.on("request", lambda r: self.requests.append(r.url))

        def on_dialog(dialog):
            self.dialogs.append(dialog.message)
            dialog.dismiss()

        self.page.on("dialog", on_dialog)
        self.page.goto(path.as_uri() + fragment)
        self.wait("() => !!window.trexReady", timeout=30.0)

    def close(self) -> None:
        self.context.close()

    def js(self, expression: str, arg=None):
        return self.page.evaluate(expression, arg)

    def wait(self, expression: str, arg=None, timeout: float = 30.0):
        """Poll ``expression`` until it is truthy (page.wait_for_function evaluates its predicate
        with eval, which the page's Content-Security-Policy forbids)."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.page.evaluate(expression, arg)
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {expression} ({arg})")
            self.page.wait_for_timeout(50)

    def tab(self, name: str) -> None:
        self.page.click(f"#tabbtn-{name}")

    def count(self, element_id: str, expected: int) -> None:
        self.wait("([id, n]) => document.getElementById(id).getAttribute('data-count') === String(n)",
                  [element_id, expected])

    def search_layers(self, text: str, expected: int | None = None) -> None:
        self.page.fill("#layer-search", text)
        self.wait("(t) => document.getElementById('layer-count').getAttribute('data-query') === t",
                  text)
        if expected is not None:
            self.count("layer-count", expected)

    def charts_settled(self, tab: str) -> None:
        """Wait until every chart of a tab is drawn, or says why it has nothing to draw."""
        self.wait("""(t) => [...document.querySelectorAll(`#tab-${t} .chart`)]
            .every(c => c.getAttribute('data-settled') === '1')""", tab)

    def table_names(self) -> list[str]:
        return self.js("""() => [...document.querySelectorAll('#layer-table .vt-row')]
            .sort((a, b) => a.offsetTop - b.offsetTop)
            .map(r => r.querySelector('[data-col=name]').textContent)""")

    def selected_in_graph(self) -> int | None:
        return self.js("""() => { const s = document.getElementById('graph-selection');
            return s ? Number(s.getAttribute('data-layer')) : null; }""")

    def offline(self) -> bool:
        return all(url.startswith("file://") for url in self.requests)


@pytest.fixture(scope="module")
def mobilenet_plan(engines):
    return trex.EnginePlan.from_path(engines / MOBILENET)


@pytest.fixture(scope="module")
def mobilenet_report(engines, tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "mobilenet.html"
    write_report(engines / MOBILENET, path)
    return path


@pytest.fixture
def mobilenet(browser, mobilenet_report):
    report = Report(browser, mobilenet_report)
    yield report
    report.close()


def test_page_loads_offline_without_errors(mobilenet, mobilenet_plan, tmp_path):
    page = mobilenet.page
    assert page.text_content("#engine-name") == mobilenet_plan.name
    # the overview charts in view are drawn by the inlined plotly.js
    mobilenet.wait("() => document.querySelectorAll('.chart[data-drawn]').length >= 2", timeout=10)
    for tab in ("layers", "charts", "lint", "overview"):
        mobilenet.tab(tab)
        mobilenet.wait("(t) => document.getElementById('tabbtn-' + t).getAttribute('aria-selected')"
                       " === 'true'", tab)
    mobilenet.wait("() => document.querySelectorAll('#tab-overview .chart[data-settled]').length >= 2")
    assert mobilenet.errors == []
    assert mobilenet.offline(), mobilenet.requests
    shot = screenshot_path(tmp_path, "overview.png")
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 20_000


def test_search_finds_a_layer(mobilenet, mobilenet_plan):
    mobilenet.tab("layers")
    name = mobilenet_plan.df["Name"].iloc[40]
    mobilenet.search_layers(name, 1)
    assert mobilenet.table_names() == [name]
    # ONNX node names and tactics are searched too; words are ANDed
    mobilenet.search_layers("QuantizeLinear_170 Conv_174", 1)
    mobilenet.search_layers("definitely-not-a-layer", 0)
    assert mobilenet.page.is_visible("#layer-table .vt-empty")


def test_table_row_shows_details_and_selects_in_graph(mobilenet, mobilenet_plan, tmp_path):
    page = mobilenet.page
    mobilenet.tab("layers")
    row = 30
    name = mobilenet_plan.df["Name"].iloc[row]
    page.click(f"#layer-table .vt-row[data-item='{row}']")
    assert page.text_content("#details-name") == name
    assert mobilenet.selected_in_graph() == row
    assert page.get_attribute(f"#layer-table .vt-row[data-item='{row}']", "class") == "vt-row sel"
    # the graph centred the selected node: its halo is inside the graph's stage
    mobilenet.wait("""() => {
        const h = document.getElementById('graph-selection').getBoundingClientRect();
        const s = document.getElementById('graph-stage').getBoundingClientRect();
        const x = h.x + h.width / 2, y = h.y + h.height / 2;
        return s.x <= x && x <= s.x + s.width && s.y <= y && y <= s.y + s.height; }""")
    halo = page.locator("#graph-selection").bounding_box()
    stage = page.locator("#graph-stage").bounding_box()
    assert stage["x"] <= halo["x"] + halo["width"] / 2 <= stage["x"] + stage["width"]
    assert stage["y"] <= halo["y"] + halo["height"] / 2 <= stage["y"] + stage["height"]
    # details: tensors, ONNX nodes, tactic, attributes
    text = page.text_content("#details")
    layer = mobilenet_plan.layers[row]
    assert layer.inputs[0].name in text and layer.outputs[0].name in text
    assert "Attributes" in text and layer.subtype in text
    assert f"layer={row}" in mobilenet.page.url  # deep link to the selection
    page.screenshot(path=str(screenshot_path(tmp_path, "layers.png")))
    assert mobilenet.errors == []


def test_table_rows_survive_a_resize_between_press_and_release(mobilenet, mobilenet_plan):
    """Rows on screen are kept when a resize or scroll leaves the range as it was, so a click whose
    press and release straddle such a render still selects its row (it was lost 1 time in ~20)."""
    page = mobilenet.page
    mobilenet.tab("layers")
    row = 12
    box = page.locator(f"#layer-table .vt-row[data-item='{row}']").bounding_box()
    page.evaluate("""() => { const r = document.querySelector("#layer-table .vt-row[data-item='12']");
        r.dataset.mark = 'kept'; }""")
    page.mouse.move(box["x"] + 40, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.evaluate("() => window.trexReport.app.explorer.table.render()")  # what a resize runs
    page.mouse.up()
    assert page.get_attribute(f"#layer-table .vt-row[data-item='{row}']", "data-mark") == "kept"
    mobilenet.wait(f"() => document.getElementById('details-name') && "
                   f"document.getElementById('details-name').textContent === "
                   f"{mobilenet_plan.df['Name'].iloc[row]!r}")
    assert mobilenet.selected_in_graph() == row
    assert mobilenet.errors == []


def test_graph_click_selects_table_row(mobilenet, mobilenet_plan):
    page = mobilenet.page
    mobilenet.tab("layers")
    # the screen position of the first drawn layer node (once the graph has drawn some)
    # (not under the minimap, which sits over the drawing's bottom-right corner)
    row, x, y = mobilenet.wait("""() => {
        const g = window.trexReport.app.explorer.graph;
        const nodes = g.g.nodes, r = g.svg.getBoundingClientRect();
        const m = g.mini.getBoundingClientRect();
        for (let i = 0; i < g.n; i++) {
          if (nodes.row[i] < 0) continue;
          const x = g.X[i] * g.s + g.tx, y = g.Y[i] * g.s + g.ty;
          if (x > 40 && y > 40 && x < m.left - r.left - 10 && y < r.height - 40)
            return [nodes.row[i], r.left + x, r.top + y];
        }
        return null; }""")
    assert row >= 0
    page.mouse.click(x, y)
    assert page.text_content("#details-name") == mobilenet_plan.df["Name"].iloc[row]
    assert mobilenet.selected_in_graph() == row
    page.wait_for_selector(f"#layer-table .vt-row.sel[data-item='{row}']")
    assert mobilenet.errors == []


def test_filters_change_the_row_count(mobilenet, mobilenet_plan):
    page = mobilenet.page
    df = mobilenet_plan.df
    mobilenet.tab("layers")
    mobilenet.count("layer-count", len(df))
    page.select_option("#type-filter", "Reformat")
    mobilenet.count("layer-count", int((df["type"] == "Reformat").sum()))
    page.select_option("#precision-filter", "FP16")
    mobilenet.count("layer-count", int(((df["type"] == "Reformat") & (df["precision"] == "FP16")).sum()))
    page.click("text=Clear")
    mobilenet.count("layer-count", len(df))


def test_sorting_by_latency(mobilenet, mobilenet_plan):
    mobilenet.tab("layers")
    mobilenet.page.click("#layer-table .vt-head button[data-col='avg']")
    names = mobilenet.table_names()
    expected = mobilenet_plan.df.sort_values("latency.avg_time", ascending=False)["Name"].tolist()
    assert names[:5] == expected[:5]
    # only the rows in view exist in the page
    assert len(names) < len(expected)


def test_graph_search_zoom_and_colours(mobilenet, mobilenet_plan):
    page = mobilenet.page
    mobilenet.tab("layers")
    mobilenet.wait("() => !!document.querySelector('.zoom-label')")
    before = page.text_content(".zoom-label")
    page.mouse.move(900, 500)
    page.mouse.wheel(0, 400)
    mobilenet.wait("(b) => document.querySelector('.zoom-label').textContent !== b", before)
    page.select_option("#graph-color", "precision")
    mobilenet.wait("() => (document.querySelector('#graph-legend div') || {}).textContent"
                   "?.startsWith('INT8')")
    assert page.text_content("#graph-legend").split("\n")[0].startswith("Legend")
    page.fill("#graph-search", "Reformat")
    page.press("#graph-search", "Enter")
    mobilenet.wait("() => document.getElementById('graph-match-count').textContent.includes(' of ')")
    row = mobilenet.selected_in_graph()
    assert mobilenet_plan.df["type"].iloc[row] == "Reformat"
    assert page.text_content("#details-name") == mobilenet_plan.df["Name"].iloc[row]
    assert mobilenet.errors == []


def test_lint_findings_link_to_layers(mobilenet, mobilenet_plan):
    page = mobilenet.page
    mobilenet.tab("lint")
    first = page.locator("#lint-table .vt-row").first
    layer = first.locator("[data-col=layer]").text_content()
    first.locator("[data-col=layer]").click()
    assert page.get_attribute("#tabbtn-layers", "aria-selected") == "true"
    assert page.text_content("#details-name") == layer
    assert "Linter findings" in page.text_content("#details")


def test_charts_select_layers(mobilenet, mobilenet_plan):
    page = mobilenet.page
    mobilenet.tab("charts")
    page.wait_for_selector("[data-chart='latency-per-layer'] .chart[data-drawn]", timeout=10_000)
    for chart in ("roofline", "efficiency", "memory-per-layer"):
        page.locator(f"[data-chart='{chart}']").scroll_into_view_if_needed()
        page.wait_for_selector(f"[data-chart='{chart}'] .chart[data-drawn]", timeout=10_000)
    mobilenet.tab("overview")
    # the timings (a WebGL figure in the report card) draw without a GPU
    page.locator("[data-chart='timings']").scroll_into_view_if_needed()
    page.wait_for_selector("[data-chart='timings'] .chart[data-drawn]", timeout=10_000)
    assert "WebGL" not in page.text_content("[data-chart='timings']")
    page.locator("[data-chart='slowest']").scroll_into_view_if_needed()
    page.wait_for_selector("[data-chart='slowest'] .chart[data-drawn]", timeout=10_000)
    # the slowest layer's bar opens it
    # a bar opens its layer (the second slowest: the mode bar may cover the top one)
    bars = page.locator("[data-chart='slowest'] .point")
    box = bars.nth(bars.count() - 2).bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    second = mobilenet_plan.df.sort_values("latency.avg_time", ascending=False)["Name"].iloc[1]
    page.wait_for_selector("#details-name")
    assert page.text_content("#details-name") == second
    assert mobilenet.errors == []


def test_comparison_report(browser, engines, tmp_path):
    paths = [engines / "a100-resnet18-fp16", engines / "a100-resnet18-qat"]
    plans = [trex.EnginePlan.from_path(p) for p in paths]
    out = tmp_path / "compare.html"
    write_report(plans, out, labels=["fp16", "int8"])
    report = Report(browser, out, "#tab=compare")
    try:
        page = report.page
        assert page.get_attribute("#tabbtn-compare", "aria-selected") == "true"
        page.wait_for_selector("#compare-table .vt-row")
        # ONNX operators paired across the two exports (their node names differ)
        page.wait_for_selector("#onnx-ops-table .vt-row", state="attached")
        page.fill("#onnx-ops-search", "Conv_5 ")
        text = page.text_content("#onnx-ops-table")
        assert "Conv_34" in text and "high" in text
        shown, _, total = page.text_content("#onnx-ops-count").partition(" of ")
        assert total == "79 operators" and 0 < int(shown) < 79
        page.fill("#onnx-ops-search", "only-in-int8")
        assert "\u2013" in page.text_content("#onnx-ops-table")  # no delta for an unpaired op
        # a layer only the INT8 engine has: its name opens it in that engine
        row = page.locator("#compare-table .vt-row [data-col='n1'].link").first
        name = row.text_content()
        row.click()
        assert page.input_value("#engine-select") == "1"
        assert page.text_content("#details-name") == name
        assert "In the other engines" in page.text_content("#details")
        page.select_option("#engine-select", "0")
        report.tab("overview")
        assert page.text_content("#engine-name") == plans[0].name
        page.screenshot(path=str(screenshot_path(tmp_path, "compare.png")), full_page=True)
        assert report.errors == [] and report.offline()
    finally:
        report.close()


def test_names_only_engine(browser, engines, tmp_path):
    out = tmp_path / "detr.html"
    write_report(engines / "trt10-detr-int8-names-only", out)
    report = Report(browser, out, "#tab=layers")
    try:
        report.count("layer-count", 840)
        report.page.click("#layer-table .vt-row[data-item='3']")
        assert "Names-only layer information" in report.page.text_content("#details")
        assert report.selected_in_graph() == 3
        assert report.errors == []
    finally:
        report.close()


ALERT_TRAP = """
window.__trexAlerts = [];
for (const f of ['alert', 'confirm', 'prompt', 'print', 'open']) {
  window[f] = (...args) => { window.__trexAlerts.push([f, String(args[0])]); };
}
"""


@pytest.mark.parametrize("csp", ["enforced", "bypassed"])
def test_hostile_names_run_no_script(browser, engines, tmp_path, csp):
    """With the page's Content-Security-Policy, and without it: escaping alone must suffice."""
    folder, names = make_hostile_engine(engines, tmp_path)
    plan = trex.EnginePlan.from_path(folder)
    out = tmp_path / "hostile.html"
    write_report(plan, out, paths=[str(folder)])
    report = Report(browser, out, init_script=ALERT_TRAP, bypass_csp=csp == "bypassed")
    try:
        page = report.page
        assert page.text_content("#engine-name") == plan.name
        assert HOSTILE_DIR in page.text_content(".title-row")  # the path, as text
        report.tab("layers")
        df_names = plan.df["Name"].tolist()
        for name in names:
            row = df_names.index(name)
            page.click(f"#layer-table .vt-row[data-item='{row}']")
            assert page.text_content("#details-name") == name  # shown literally, unchanged
            assert report.selected_in_graph() == row
        report.search_layers("<script>alert(1)</script>")
        assert "<script>alert(1)</script>" in report.table_names()
        page.fill("#graph-search", "alert")
        page.press("#graph-search", "Enter")
        for tab in ("charts", "lint", "overview"):
            report.tab(tab)
            page.mouse.wheel(0, 3000)
        report.tab("charts")
        for chart in page.locator("#tab-charts [data-chart]").all():
            chart.scroll_into_view_if_needed()
        report.charts_settled("charts")
        assert report.js("window.__trexAlerts") == []
        assert report.dialogs == []
        # only the page's own script elements exist; no element came from the data's markup
        scripts = report.js("""() => [...document.scripts].map(s => s.type + '#' + s.id)""")
        assert scripts == ["application/json#trex-data", "application/json#trex-details-0",
                           "text/plain#trex-plotly", "#", "#trex-plotly-run"]
        assert report.js("""() => [...document.querySelectorAll('*')].filter(e =>
            [...e.attributes].some(a => a.name.startsWith('on'))).length""") == 0
        assert report.js("document.querySelectorAll('img, iframe, object, embed, b, a[href]').length") == 0
        assert report.errors == [] and report.offline()
        page.screenshot(path=str(screenshot_path(tmp_path, f"hostile-{csp}.png")))
    finally:
        report.close()


def test_large_engine_draws_only_what_is_in_view(browser, engines, tmp_path):
    """Big tables and graphs are virtualised (time to interactive is measured in bench/bench_report.py)."""
    prefix = generated_engine(engines, tmp_path / "data", 1000)
    out = tmp_path / "big.html"
    write_report(str(prefix), out)
    report = Report(browser, out, "#tab=layers")
    try:
        page = report.page
        report.count("layer-count", 1000)
        assert report.js("document.querySelectorAll('#layer-table .vt-row').length") < 100
        drawn = int(page.get_attribute(".graph-stage .nodes", "data-count"))
        assert 0 < drawn < 1000  # the graph draws what is in view, not every node
        report.search_layers("blk7 ", None)
        report.page.locator("#layer-table .vt-row").first.click()
        page.wait_for_selector("#details-name")
        assert report.errors == []
    finally:
        report.close()


def test_unknown_figures_are_dashes_not_zeros(browser, engines, tmp_path):
    """A plan read from a build log has no per-layer profile, no weights and no performance
    summary: the header says so with dashes and the export that would provide them."""
    plan = trex.EnginePlan(engines / "trt10.16-mnist-fp32" / "result-02.log")
    out = tmp_path / "unprofiled.html"
    write_report(plan, out)
    report = Report(browser, out)
    try:
        cards = report.js("""() => Object.fromEntries([...document.querySelectorAll('.card')].map(
            c => [c.querySelector('h3').textContent, c.textContent]))""")
        assert "Latency\u2013Sum of layer averages\u2013 (no per-layer profile: --exportProfile)" \
            in cards["Latency"]
        assert "trtexec median latency\u2013" in cards["Latency"]
        assert cards["Memory"].startswith("Memory\u2013 weights")
        assert " 0 ms" not in report.page.text_content("#tab-overview")
        assert "NVIDIA H100 PCIe" in cards["Device"] and "1.755 GHz" in cards["Device"]
        # Charts of values the build log does not have say so instead of drawing empty axes.
        errors = report.js("""() => [...document.querySelectorAll('#tab-overview .error-box')]
            .map(e => e.textContent)""")
        assert "Not available: no per-layer profile (--exportProfile) was given" in errors
        report.page.screenshot(path=str(screenshot_path(tmp_path, "unprofiled-overview.png")))
        assert report.errors == []
    finally:
        report.close()


# ------------------------------------------------------------------ table widths, evidence, notes
COLUMN_WIDTHS = """() => Object.fromEntries([...document.querySelectorAll('#layer-table .vt-hcell')]
    .map(c => [c.getAttribute('data-col'), c.getBoundingClientRect().width]))"""


def test_layer_table_columns_fit_their_content(mobilenet, mobilenet_plan, tmp_path):
    page = mobilenet.page
    mobilenet.tab("layers")
    page.wait_for_selector("#layer-table .vt-row")
    widths = mobilenet.js(COLUMN_WIDTHS)
    # the tactic column is wider than its old fixed track (160 px), within its limit; the name
    # column takes what the columns kept in view (type ... %) leave of the pane (issue 25: it
    # was fitted to the longest names, 560 px, and pushed them off screen)
    assert 300 < widths["tactic"] <= 520 + 1
    kept = sum(widths[k] for k in ("idx", "type", "precision", "math", "avg", "pct"))
    visible = mobilenet.js("() => document.getElementById('layer-table').clientWidth")
    assert widths["name"] == pytest.approx(visible - kept, abs=2)
    assert widths["avg"] >= mobilenet.js("""() => document.querySelector(
        "#layer-table .vt-head button[data-col='avg']").scrollWidth""")  # the header is not cut
    # every name cut has its full text on hover
    cells = mobilenet.js("""() => [...document.querySelectorAll('#layer-table .vt-cell[data-col=name]')]
        .map(c => [c.textContent, c.title, c.scrollWidth <= c.clientWidth + 1])""")
    assert len(cells) >= 20 and any(not fits for _, _, fits in cells)
    assert all(title == name for name, title, _ in cells)
    # dragging the tactic header's right edge widens the column by as much
    grip = page.locator("#layer-table .vt-resize[data-resize='tactic']")
    grip.scroll_into_view_if_needed()
    box = grip.bounding_box()
    page.mouse.move(box["x"] + 3, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + 153, box["y"] + box["height"] / 2, steps=5)
    page.mouse.up()
    after = mobilenet.js(COLUMN_WIDTHS)
    assert after["tactic"] == pytest.approx(widths["tactic"] + 150, abs=3)
    tactic = mobilenet.js("""() => document.querySelector(
        "#layer-table .vt-row .vt-cell[data-col=tactic]").getBoundingClientRect().width""")
    assert tactic == pytest.approx(after["tactic"], abs=1)  # the rows follow the header
    # the table pane can be widened by its splitter
    pane = page.locator("#layer-pane").bounding_box()["width"]
    split = page.locator("#layer-splitter").bounding_box()
    page.mouse.move(split["x"] + 3, split["y"] + 200)
    page.mouse.down()
    page.mouse.move(split["x"] + 153, split["y"] + 200, steps=5)
    page.mouse.up()
    assert page.locator("#layer-pane").bounding_box()["width"] == pytest.approx(pane + 150, abs=3)
    # the name column takes the room the pane gained (up to its fitted width)
    mobilenet.wait("(w) => document.querySelector(\"#layer-table .vt-hcell[data-col='name']\")"
                   ".getBoundingClientRect().width > w + 140", after["name"])
    page.screenshot(path=str(screenshot_path(tmp_path, "layer-table.png")))
    assert mobilenet.errors == []


def _kib(n: int) -> str:
    """The page's fmtBytes for values under 1 MiB."""
    return f"{n} B" if n < 1024 else f"{n / 1024:.{2 if n < 10 * 1024 else 1}f} KiB"


def test_a_declared_column_is_in_the_table(browser, engines, mobilenet_plan, tmp_path, monkeypatch):
    """A column declared in Python alone (trex/html_report/layer_columns.py, no JavaScript) is in
    the layer table: its header, its cells in the declared text kind with their hover text, its
    sort (largest first), and the kept columns stay in view."""
    from trex.html_report import layer_columns as declared
    from trex.html_report.column_spec import Column, Show, df_column

    bias = Column("bias", "bias bytes", df_column("bias_size"), "ints",
                  show=Show("Bias", "82px", fit=120, num=True, text="bytes", title="text"))
    monkeypatch.setattr(declared, "LAYER_COLUMNS", (*declared.LAYER_COLUMNS, bias))
    out = tmp_path / "bias.html"
    write_report(engines / MOBILENET, out)
    report = Report(browser, out, "#tab=layers")
    try:
        report.count("layer-count", 72)
        heads = report.js("""() => [...document.querySelectorAll('#layer-table .vt-head button')]
            .map(b => [b.getAttribute('data-col'), b.textContent])""")
        assert heads[-2:] == [["onnx", "ONNX nodes"], ["bias", "Bias"]]
        report.page.click("#layer-table .vt-head button[data-col='bias']")
        report.wait("() => document.querySelector(\"#layer-table .vt-head button[data-col='bias']\")"
                    ".getAttribute('aria-sort') === 'descending'")
        cells = report.js("""() => [...document.querySelectorAll('#layer-table .vt-row')]
            .sort((a, b) => a.offsetTop - b.offsetTop).slice(0, 3).map(r => {
              const c = r.querySelector('[data-col=bias]');
              return [Number(r.getAttribute('data-item')), c.textContent, c.title,
                      c.classList.contains('num')]; })""")
        biases = mobilenet_plan.df["bias_size"].astype("int64").tolist()
        order = sorted(range(len(biases)), key=lambda i: (-biases[i], i))[:3]
        assert cells == [[i, _kib(biases[i]), _kib(biases[i]), True] for i in order]
        assert biases[order[0]] > 0
        widths = report.js(COLUMN_WIDTHS)
        kept = sum(widths[k] for k in ("idx", "type", "precision", "math", "avg", "pct"))
        visible = report.js("() => document.getElementById('layer-table').clientWidth")
        assert widths["name"] == pytest.approx(visible - kept, abs=2)
        assert report.errors == []
    finally:
        report.close()


def test_lint_evidence_is_readable_text(mobilenet, tmp_path):
    page = mobilenet.page
    mobilenet.tab("lint")
    page.wait_for_selector("#lint-table .vt-row")
    cells = mobilenet.js("""() => [...document.querySelectorAll('#lint-table .vt-cell[data-col=evidence]')]
        .map(c => [c.textContent, c.title, c.children.length])""")
    assert len(cells) >= 20
    for text, title, children in cells:
        assert not any(mark in text for mark in '{}"'), text  # no JSON
        assert children == 0 and ": " in text  # text only, key: value pairs
        assert title.split("\n")[0] == text.split(", ")[0]
    joined = "\n".join(text for text, _, _ in cells)
    assert "input channels: 3, output channels: 32, groups: 1, kernel: " in joined
    assert re.search(r"latency: 0\.0\d+ ms, latency: \d+\.\d+ %", joined)
    assert re.search(r"output bytes: 196\.0 KiB, output bytes if int8: 98\.0 KiB", joined)
    page.fill("#lint-search", "output bytes if int8")  # the readable text is searched too
    mobilenet.wait("() => !document.getElementById('lint-count').textContent.startsWith('79 ')")
    page.screenshot(path=str(screenshot_path(tmp_path, "lint.png")))
    assert mobilenet.errors == []


def test_layout_note_under_the_graph(browser, engines, tmp_path):
    from test_graph_hubs import transformer

    require_program("dot")
    plan = transformer(engines, tmp_path, 200)
    out = tmp_path / "t200.html"
    result = write_report(plan, out)
    assert len(result.notes) == 1 and "would be slow" in result.notes[0]
    report = Report(browser, out, "#tab=layers")
    try:
        note = report.page.text_content("#graph-layout-note")
        assert note == result.notes[0]
        below = report.js("""() => document.getElementById('graph-layout-note').getBoundingClientRect().top
            >= document.getElementById('graph-stage').getBoundingClientRect().bottom - 1""")
        assert below
        report.page.screenshot(path=str(screenshot_path(tmp_path, "layout-note.png")))
        assert report.errors == []
    finally:
        report.close()
    mobilenet = tmp_path / "m.html"
    write_report(engines / MOBILENET, mobilenet)
    report = Report(browser, mobilenet, "#tab=layers")
    try:
        report.page.wait_for_selector("#graph-stage")
        assert report.js("() => document.getElementById('graph-layout-note')") is None
    finally:
        report.close()


def test_overview_of_a_trt11_plan(browser, engines, tmp_path, mobilenet_report):
    from test_report_visuals import trt11_plan_file

    out = tmp_path / "trt11.html"
    write_report(str(trt11_plan_file(tmp_path / "t11")), out)
    report = Report(browser, out)
    try:
        page = report.page
        rows = report.js("""() => [...document.querySelectorAll('#io-profiles tbody tr')]
            .map(r => [...r.children].map(c => c.textContent))""")
        assert rows == [["input_0", "input", "0", "[1, 3, 224, 224]", "[8, 3, 224, 224]",
                         "[16, 3, 224, 224]", "FP16 NCHW"],
                        ["input_0", "input", "1", "[16, 3, 224, 224]", "[32, 3, 224, 224]",
                         "[64, 3, 224, 224]", "FP16 NCHW"]]
        assert report.js("() => document.querySelector('#io-profiles').open")
        latency = page.text_content(".card:has(h3:text('Latency'))")
        assert "Profiled with" not in latency  # nothing was profiled
        page.click("#layer-gap summary")
        gap = page.text_content("#layer-gap")
        assert "sum of layers\u2013" in gap and "measured\u2013" in gap and " 0 ms" not in gap
        assert "cannot compare: no timings and no performance summary" in gap
        # no profile: the latency charts say so instead of drawing an empty axis
        assert "no per-layer profile (--exportProfile)" in page.text_content("#tab-overview")
        assert "Layers by precision" in page.text_content("#tab-overview")  # no empty latency pie
        page.screenshot(path=str(screenshot_path(tmp_path, "trt11-overview.png")), full_page=True)
        page.locator("#tab-overview").evaluate("s => { s.scrollTop = s.scrollHeight; }")
        page.screenshot(path=str(screenshot_path(tmp_path, "trt11-overview-bottom.png")))
        assert report.errors == []
    finally:
        report.close()
    report = Report(browser, mobilenet_report)
    try:
        note = report.page.text_content(".card:has(h3:text('Latency')) .card-note")
        assert note == ("Profiled with CUDA graph launches, per-layer times from a separate "
                        "profiling run; host-device copies excluded.")
        assert report.page.locator("#io-profiles").count() == 0  # a plain engine: no such rows
        report.page.screenshot(path=str(screenshot_path(tmp_path, "mobilenet-overview.png")))
    finally:
        report.close()
