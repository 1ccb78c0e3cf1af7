"""Markup in every name-like field stays text in every plotly figure: the report's figures, the
comparison's (engine display names from ``--names`` or folder names), the notebook figures of
``trex.figures``/``trex.compare`` and the Excel charts made from them. Checked in the figures'
JSON, and in Chromium where plotly draws them (tests/test_report_browser.py drives the browser).
"""

from __future__ import annotations

import json
import shutil
import warnings
from typing import Any

import pytest

import trex
from test_html_report import make_hostile_engine
from test_report_browser import Report, browser  # noqa: F401 - the browser fixture
from trex import figures as report_views
from trex.compare import compare_engines_layer_latencies, compare_engines_overview
from trex.excel_summary import ExcelSummary
from trex.html_report import write_report
from trex.html_report.figures import comparison_figures, engine_figures

warnings.simplefilter("ignore", trex.TrexWarning)

# Folder names (no "/" possible) and --names that plotly would render as markup.
LINK_DIR = '<a href="https:evil.example">CLICK'
STYLE_DIR = '<span style="color:red;font-size:60px">BIG'
NAMES = '<img src=x onerror=alert(1)>,<b>bold</b> <sup>2</sup>'


@pytest.fixture(scope="module")
def hostile(engines, tmp_path_factory) -> dict[str, Any]:
    """Two copies of the hostile ResNet50 engine (layer, tensor, tactic, type, metadata and device
    names hold markup) in folders named with markup, and their plans."""
    root = tmp_path_factory.mktemp("hostile")
    folder, layer_names = make_hostile_engine(engines, root / "src")
    folders = []
    for name in (LINK_DIR, STYLE_DIR):
        shutil.copytree(folder, root / name)
        folders.append(root / name)
    plans = [trex.EnginePlan.from_path(f) for f in folders]
    return {"root": root, "folders": folders, "plans": plans, "layers": layer_names}


def figures_of(plans: list[trex.EnginePlan], names: list[str]) -> dict[str, Any]:
    """Every figure the notebook views build, by title."""
    plan = plans[0]
    figs: dict[str, Any] = {}
    for builders in (report_views.perf_overview_builders, report_views.memory_footprint_builders,
                     report_views.convolutions_overview_builders,
                     report_views.reformat_overview_builders, report_views.gemm_MNK_builders,
                     report_views.gemm_MNK_scatter_builders, report_views.perf_scatter_builders):
        figs.update({title: build(title=title) for title, build in builders(plan).items()})
    figs["sunburst"] = report_views.layer_latency_sunburst(plan)
    figs["precision sunburst"] = report_views.precision_per_type_sunburst(plan)
    figs["timings"] = report_views.engine_timings_figure(plan)
    figs.update({f"compare: {k}": v for k, v in compare_engines_overview(plans, names).items()})
    figs["layer latencies"] = compare_engines_layer_latencies(plans[0], plans[1])[1]
    figs["layer latencies (type)"] = compare_engines_layer_latencies(
        plans[0], plans[1], choice=plans[0].df["type"].iloc[1])[1]
    return figs


def unescaped_markup(data: Any, path: str = "") -> list[str]:
    """Strings of a figure's JSON that plotly would read as markup (templates are the code's own)."""
    found = []
    if isinstance(data, dict):
        for key, value in data.items():
            if key not in ("hovertemplate", "texttemplate"):
                found += unescaped_markup(value, f"{path}.{key}")
    elif isinstance(data, list):
        for i, value in enumerate(data):
            found += unescaped_markup(value, f"{path}[{i}]")
    elif isinstance(data, str) and any(c in data.replace("<br>", "") for c in "<>$"):
        found.append(f"{path}: {data[:80]!r}")
    return found


def test_every_figure_escapes_its_data(hostile):
    names = [LINK_DIR, STYLE_DIR]
    figs = figures_of(hostile["plans"], names)
    assert len(figs) > 50
    for title, fig in figs.items():
        assert unescaped_markup(json.loads(fig.to_json())) == [], title
    overview = json.loads(figs["compare: Precision counts"].to_json())
    titles = [a["text"] for a in overview["layout"]["annotations"]]
    assert titles == ["&lt;a href=\"https:evil.example\"&gt;CLICK",
                      "&lt;span style=\"color:red;font-size:60px\"&gt;BIG"]
    bars = json.loads(figs["Latency per layer (ms)"].to_json())
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in bars["data"][0]["x"]
    # the report's own figures: built once, escaped once (no "&amp;lt;")
    data = json.dumps([engine_figures(hostile["plans"][0]),
                       comparison_figures(hostile["plans"], names)])
    assert "&amp;lt;" not in data and "&lt;a href=" in data
    assert unescaped_markup(json.loads(data)) == []


def test_excel_charts_show_the_names_literally(hostile, tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    plan = hostile["plans"][0]
    path = tmp_path / "hostile.xlsx"
    with ExcelSummary(plan, path) as xl:
        xl.add_report("report_card_perf_overview")
    values = {c for ws in openpyxl.load_workbook(path).worksheets
              for row in ws.iter_rows(values_only=True) for c in row if isinstance(c, str)}
    assert "</style><script>alert(13)</script>" in values  # a layer type, as a chart category
    assert "<script>alert(1)</script>" in values  # a layer name
    entity_name = "&lt;entity&gt; &amp; &#60;script&#62;"  # a layer really named so
    assert entity_name in values
    assert not [v for v in values if ("&lt;" in v or "&#36;" in v) and entity_name not in v]


# ------------------------------------------------------------------------------ in Chromium
PLOTLY_MARKUP = """() => {
  const svg = [...document.querySelectorAll('.js-plotly-plot svg.main-svg')];
  const found = [];
  for (const s of svg) {
    for (const e of s.querySelectorAll('a, image, foreignObject')) found.push(e.tagName);
    for (const t of s.querySelectorAll('tspan[style], text[style*="font-weight: bold"]')) {
      const style = t.getAttribute('style') || '';
      if (/font-weight|font-size|color|font-style|baseline/.test(style)) {
        found.push('styled ' + t.textContent);
      }
    }
  }
  return found;
}"""
PLOTLY_TEXT = """() => [...document.querySelectorAll('.js-plotly-plot svg.main-svg text')]
  .map(t => t.textContent)"""


def _draw_every_chart(report: Report, only: str | None = None) -> int:
    """Visit every tab (or ``only`` one), scroll each chart into view; return how many plotly
    charts were drawn."""
    page = report.page
    tabs = report.js("() => [...document.querySelectorAll('[role=tab]')].map(b => b.id.slice(7))")
    for tab in [t for t in tabs if only in (None, t)]:
        report.tab(tab)
        for chart in page.locator(f"#tab-{tab} .chart").all():
            chart.scroll_into_view_if_needed()
        report.charts_settled(tab)
    return report.js("() => document.querySelectorAll('.js-plotly-plot').length")


@pytest.mark.parametrize("labels", ["folders", "names"])
def test_comparison_report_shows_markup_as_text(browser, hostile, labels):  # noqa: F811
    """Every tab with the folder names as display names; the Compare tab with --names."""
    out = hostile["root"] / f"compare-{labels}.html"
    names = None if labels == "folders" else NAMES.split(",")
    write_report(hostile["plans"], out, labels=names or [LINK_DIR, STYLE_DIR],
                 paths=[str(f) for f in hostile["folders"]])
    report = Report(browser, out, "#tab=compare")
    try:
        drawn = _draw_every_chart(report, None if labels == "folders" else "compare")
        assert drawn >= 8
        assert report.js(PLOTLY_MARKUP) == []
        assert report.js("document.querySelectorAll('img, iframe, object, embed, b, sup, a[href]')"
                         ".length") == 0
        texts = report.js(PLOTLY_TEXT)
        shown = names or [LINK_DIR, STYLE_DIR]
        for name in shown:  # subplot titles, ticks and legends: the name, literally
            assert any(name in t for t in texts), name
        assert any("</style><script>alert(13)</script>" in t for t in texts), \
            [t for t in texts if "alert" in t]  # a layer type, in a chart
        assert report.errors == [] and report.offline()
    finally:
        report.close()


def test_notebook_figures_show_markup_as_text(browser, hostile, tmp_path):  # noqa: F811
    """trex.figures / trex.compare figures as a notebook draws them (plotly's own HTML)."""
    import plotly.io as pio
    from plotly.offline import get_plotlyjs

    figs = figures_of(hostile["plans"], [LINK_DIR, STYLE_DIR])
    chosen = ["Latency per layer (ms)", "Latency per layer type (ms)", "Precision rollup",
              "sunburst", "compare: Precision counts", "compare: Layer count comparison",
              "layer latencies (type)"]
    # a sunburst names only wedges wide enough for text: one of the hostile layers alone, whole
    df = hostile["plans"][0].df
    figs["hostile sunburst"] = report_views.layer_latency_sunburst(
        df[df["Name"] == "<script>alert(1)</script>"])
    chosen.append("hostile sunburst")
    parts = [pio.to_html(figs[t], full_html=False, include_plotlyjs=False) for t in chosen]
    page = tmp_path / "notebook.html"
    page.write_text(f"<html><head><meta charset='utf-8'><script>{get_plotlyjs()}</script></head>"
                    f"<body><div id='x'>{''.join(parts)}</div></body></html>", encoding="utf-8")
    context = browser.new_context()
    try:
        tab = context.new_page()
        tab.goto(page.as_uri())
        tab.wait_for_function("document.querySelectorAll('.js-plotly-plot svg.main-svg').length "
                              f">= {len(chosen)}", timeout=30000)
        assert tab.evaluate(PLOTLY_MARKUP) == []
        texts = tab.evaluate(PLOTLY_TEXT)
        assert any(LINK_DIR in t for t in texts) and any(STYLE_DIR in t for t in texts)
        assert any("<script>alert(1)</script>" in t for t in texts)
    finally:
        context.close()
