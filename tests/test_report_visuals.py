"""One palette in every view, readable text on coloured nodes, distinct layer-type colours, legends
outside the plot area, sunburst text only where it fits, the graph's layout note (issue 14's
"report visuals"). What Chromium shows is checked in test_report_browser.py."""

from __future__ import annotations

import itertools
import json
import warnings
from collections import defaultdict
from pathlib import Path

import pytest

import trex
from helpers import require_program
from test_graph_hubs import transformer
from test_report_browser import Report, browser, mobilenet_report, screenshot_path
from trex.cli import main
from trex.graph import DotGraph, layer_precision_formatter, layer_type_formatter
from trex.graph.colors import (
    LAYER_FAMILIES,
    NO_LATENCY_COLOR,
    PRECISION_FAMILIES,
    UNKNOWN_KEY_COLOR,
    contrast_ratio,
    delta_e,
    engine_palette,
    extra_palette,
    key_color,
    latency_palette,
    layer_colormap,
    precision_colormap,
    relative_luminance,
    rgb,
    stream_palette,
    text_color,
)
from trex.html_report import write_report
from trex.html_report.figures import comparison_figures, engine_figures, report_colors
from trex.html_report.graphdata import graph_payload

FIXTURES = (browser, mobilenet_report)  # Chromium and mobilenet's report, shared with those tests

warnings.simplefilter("ignore", trex.TrexWarning)

MIN_DELTA_E = 10.0


def trt11_plan_file(folder: Path, extra_type: str | None = None) -> Path:
    """A TensorRT 11 style layer export (``I/O Tensors`` with two optimisation profiles, split
    ``DataType``/``Format`` keys; as tests/test_readers.py's) of four layers, FP16 in, FP32 out;
    ``extra_type`` adds a layer of a type no colour table names."""
    def tensor(name: str, dims: list[int], dtype: str = "Half",
               fmt: str = "Row major linear FP16 format (kLINEAR)") -> dict:
        return {"Name": name, "Dimensions": dims, "DataType": dtype, "Format": fmt}

    shape = [-1, 16, 112, 112]
    layers = [
        {"Name": "conv1", "LayerType": "CaskConvolution", "ParameterType": "Convolution",
         "Inputs": [tensor("input_0", [-1, 3, 224, 224],
                           fmt="Channel major FP16 format where channel % 8 == 0 (kHWC8)")],
         "Outputs": [tensor("c1", shape)],
         "Weights": {"Type": "Half", "Count": 432}, "Bias": {"Type": "Half", "Count": 16}},
        {"Name": "relu1", "LayerType": "PointWiseV2", "ParameterType": "PointWise",
         "Inputs": [tensor("c1", shape)], "Outputs": [tensor("r1", shape)]},
        {"Name": "add1", "LayerType": "ElementWise", "ParameterType": "ElementWise",
         "Inputs": [tensor("r1", shape), tensor("c1", shape)], "Outputs": [tensor("a1", shape)]},
        {"Name": "to_fp32", "LayerType": "Reformat", "ParameterType": "Reformat",
         "Inputs": [tensor("a1", shape)],
         "Outputs": [tensor("out", shape, "Float", "Row major linear FP32 format (kLINEAR)")]},
    ]
    if extra_type:
        layers.append({"Name": "extra", "LayerType": extra_type, "ParameterType": extra_type,
                       "Inputs": [tensor("out", shape, "Float")],
                       "Outputs": [tensor("out2", shape, "Int8")]})
    profiles = [{"MinShape": [lo, 3, 224, 224], "OptShape": [opt, 3, 224, 224],
                 "MaxShape": [hi, 3, 224, 224], "Format": "Row major linear FP16 format (kLINEAR)"}
                for lo, opt, hi in ((1, 8, 16), (16, 32, 64))]
    doc = {"Layers": layers, "I/O Tensors": [
        {"Name": "input_0", "IOMode": "Input", "DataType": "Half", "Dimensions": [-1, 3, 224, 224],
         "Location": "Device", "IsShapeInferenceIO": False, "ProfileInfo": profiles},
        {"Name": "out2" if extra_type else "out", "IOMode": "Output", "DataType": "Float",
         "Dimensions": shape, "Location": "Device"}]}
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "trt11.graph.json"
    path.write_text(json.dumps(doc))
    return path


# ------------------------------------------------------------------ colour arithmetic
def test_colour_arithmetic():
    assert rgb("#76b900") == (0x76, 0xB9, 0x00) and rgb("#abc") == (0xAA, 0xBB, 0xCC)
    assert rgb("#E51C20ff") == (0xE5, 0x1C, 0x20)
    assert rgb("LightGray") == (211, 211, 211) and rgb("grey") == rgb("gray") == (128, 128, 128)
    assert rgb("notacolour") is None and rgb(None) is None and rgb("#12") is None
    assert relative_luminance("white") == pytest.approx(1.0)
    assert relative_luminance("black") == 0.0
    assert contrast_ratio("white", "black") == pytest.approx(21.0)
    assert contrast_ratio("#777", "#777") == pytest.approx(1.0)
    # WCAG's worked value: #767676 on white is 4.54:1
    assert contrast_ratio("#767676", "white") == pytest.approx(4.54, abs=0.01)
    assert delta_e("#9ACD32", "yellowgreen") == 0.0
    assert delta_e("black", "white") == pytest.approx(100.0, abs=0.01)
    with pytest.raises(ValueError, match="not a colour"):
        relative_luminance("nope")


ALL_FILLS = sorted({*layer_colormap.values(), *precision_colormap.values(), *latency_palette,
                    *stream_palette, *extra_palette, *engine_palette, NO_LATENCY_COLOR,
                    UNKNOWN_KEY_COLOR})


@pytest.mark.parametrize("fill", ALL_FILLS)
def test_text_colour_has_the_better_contrast(fill):
    ink = text_color(fill)
    other = "white" if ink == "black" else "black"
    assert contrast_ratio(fill, ink) >= contrast_ratio(fill, other)
    assert contrast_ratio(fill, ink) >= 4.5  # the better of black and white always reaches AA


def test_text_colour_examples():
    # the issue: dark text on red nodes; FP32 is a red where white reads better, and both pass
    assert text_color(precision_colormap["FP32"]) == "white"
    assert contrast_ratio(precision_colormap["FP32"], "white") >= 4.6
    assert contrast_ratio(precision_colormap["FP32"], "black") >= 4.5  # Graphviz's black text
    assert text_color("red") == "black"  # pure red: black has the higher ratio (5.3 vs 4.0)
    assert text_color("#800026") == text_color("darkred") == text_color("navy") == "white"
    assert text_color("#00FFFF") == text_color("orange") == text_color(NVDA_GREEN) == "black"
    assert text_color("SteelBlue") == text_color("#4682b4") == "black"  # 5.1:1 vs 4.1:1
    assert text_color(None) == text_color("url(#x)") == "black"


NVDA_GREEN = precision_colormap["INT8"]


# ------------------------------------------------------------------ distinct palettes
def _close_pairs(table: dict, families: tuple[frozenset, ...]) -> list[tuple]:
    close = []
    for (a, ca), (b, cb) in itertools.combinations(table.items(), 2):
        if any(a in f and b in f for f in families):
            continue
        if delta_e(ca, cb) <= MIN_DELTA_E:
            close.append((a, ca, b, cb, round(delta_e(ca, cb), 1)))
    return close


def test_layer_types_have_distinct_colours():
    assert layer_colormap["PointWise"] != layer_colormap["ElementWise"]  # both were #9ACD32
    assert delta_e(layer_colormap["PointWise"], layer_colormap["ElementWise"]) > 25
    assert _close_pairs(dict(layer_colormap), LAYER_FAMILIES) == []
    for family in LAYER_FAMILIES:  # a family is one operation under two names: one colour
        assert len({layer_colormap[t] for t in family}) == 1, family
    # no type looks "unknown" (gray) and the colours for unnamed types stand apart too
    assert all(delta_e(c, UNKNOWN_KEY_COLOR) > MIN_DELTA_E for c in layer_colormap.values())
    for extra in extra_palette:
        assert all(delta_e(extra, c) > MIN_DELTA_E for c in [*layer_colormap.values(),
                                                              UNKNOWN_KEY_COLOR])
    assert _close_pairs(dict(enumerate(extra_palette)), ()) == []


def test_precisions_and_engines_have_distinct_colours():
    assert _close_pairs(dict(precision_colormap), PRECISION_FAMILIES) == []
    # engines in comparison figures are never drawn in a precision's colour
    for engine in engine_palette:
        assert all(delta_e(engine, c) > MIN_DELTA_E for c in precision_colormap.values())
    assert _close_pairs(dict(enumerate(engine_palette)), ()) == []


def test_key_colour_is_one_rule():
    assert key_color("Convolution", layer_colormap) == layer_colormap["Convolution"]
    assert key_color(None, precision_colormap) == key_color("None", precision_colormap) \
        == key_color("Unknown", layer_colormap) == UNKNOWN_KEY_COLOR
    # a type no table names: always the same colour of extra_palette, not inserted into the table
    fill = key_color("CumulativeSum", layer_colormap)
    assert fill in extra_palette and fill == key_color("CumulativeSum", layer_colormap)
    assert "CumulativeSum" not in layer_colormap
    # TREx's defaultdict, which a lookup of an unnamed key leaves as it was
    assert isinstance(layer_colormap, defaultdict) and layer_colormap["CumulativeSum"] == "gray"
    assert "CumulativeSum" not in layer_colormap


# ------------------------------------------------------------------ one palette in every figure
def _figure_colours(figure: dict) -> dict[str, set[str]]:
    """Colour per category name in a plotly figure's JSON: named traces (bars, histograms, legend
    entries), and pie and sunburst sectors by label."""
    seen: dict[str, set[str]] = {}
    for trace in figure["data"]:
        marker = trace.get("marker") or {}
        if trace.get("type") in ("pie", "sunburst"):
            for label, color in zip(trace["labels"], marker.get("colors") or ()):
                if color != "white":  # a sunburst's type ring
                    seen.setdefault(label, set()).add(color)
        elif trace.get("name") and isinstance(marker.get("color"), str):
            seen.setdefault(trace["name"], set()).add(marker["color"])
    return seen


def test_precision_colours_agree_in_every_python_view(engines, tmp_path):
    plans = [trex.EnginePlan.from_path(engines / f"a100-resnet18-{p}") for p in ("fp32", "qat")]
    # INT32 and None (shape_call) precisions
    plans.append(trex.EnginePlan.from_path(engines / "trt10.16-multiprofile-oneline"))
    plans.append(trex.EnginePlan(trt11_plan_file(tmp_path / "t11", "CumulativeSum")))
    seen: dict[str, set[str]] = {}

    def add(colours: dict[str, set[str]]) -> None:
        for key, values in colours.items():
            seen.setdefault(key, set()).update(values)

    for plan in plans:
        figures = engine_figures(plan)
        for key in ("precision_rollup", "precision_per_type"):
            add(_figure_colours(figures[key]["figure"]))
        by_precision = trex.figures.perf_overview_figures(plan)["Precision per layer"]
        add(_figure_colours(json.loads(by_precision.to_json())))
        graph = DotGraph(plan, layer_precision_formatter)
        for node in graph.nodes:
            if node.kind == "layer":
                add({str(node.layer.precision or "None"): {node.attrs["fillcolor"]}})
        payload = graph_payload(plan)
        for label, color, _ in payload["legend"]["precision"]:
            add({label: {payload["palette"][color]}})
    for figure in comparison_figures(plans[:3], ["fp32", "int8", "multi"]).values():
        if "figure" in figure and "precision" in json.dumps(figure["figure"]["layout"]).lower():
            add(_figure_colours(figure["figure"]))
    page = report_colors(plans)["precision"]
    for key in ("FP32", "FP16", "INT8", "INT32", "None"):
        assert seen[key] == {key_color(key, precision_colormap)}, key
        assert page[key] == key_color(key, precision_colormap)
    assert seen["FP32"] == {"#E51C20"} and seen["None"] == {UNKNOWN_KEY_COLOR}


def test_type_colours_agree_in_every_python_view(engines, tmp_path):
    plans = [trex.EnginePlan.from_path(engines / "trt10.4-alexnet-fp16"),
             trex.EnginePlan(trt11_plan_file(tmp_path / "t11", "CumulativeSum"))]
    seen: dict[str, set[str]] = {}
    for plan in plans:
        figures = engine_figures(plan)
        for key in ("count_by_type",):
            for name, colours in _figure_colours(figures[key]["figure"]).items():
                seen.setdefault(name, set()).update(colours)
        graph = DotGraph(plan, layer_type_formatter)
        for node in graph.nodes:
            if node.kind == "layer":
                seen.setdefault(str(node.layer.type), set()).add(node.attrs["fillcolor"])
    for figure in comparison_figures(plans, ["alexnet", "t11"]).values():
        if figure["title"].startswith("Stacked latencies by layer type"):
            for name, colours in _figure_colours(figure["figure"]).items():
                if name in seen:
                    seen[name] |= colours
    page = report_colors(plans)["type"]
    for key in ("Convolution", "kgen", "gemm", "shape_call", "PointWise", "ElementWise",
                "CumulativeSum"):
        assert seen[key] == {key_color(key, layer_colormap)}, key
        assert page[key] == key_color(key, layer_colormap)
    assert seen["CumulativeSum"] <= set(extra_palette)


# ------------------------------------------------------------------ layouts of the figures
def _legend_inside(layout: dict) -> bool:
    legend = layout.get("legend") or {}
    x, y = legend.get("x"), legend.get("y")
    inside = lambda v: v is not None and 0 <= v <= 1  # noqa: E731
    if legend.get("orientation") == "h":
        return y is None or inside(y)
    return inside(x) and (y is None or inside(y))


def test_legends_are_outside_the_plot_area(engines):
    plans = [trex.EnginePlan.from_path(engines / f"a100-resnet18-{p}") for p in ("fp16", "qat")]
    figures = [f["figure"] for f in engine_figures(plans[1]).values() if "figure" in f]
    figures += [f["figure"] for f in comparison_figures(plans, ["fp16", "int8"]).values()]
    figures += [json.loads(f.to_json()) for f in
                trex.figures.perf_overview_figures(plans[1]).values()]
    with_legend = 0
    for figure in figures:
        shows = any(t.get("showlegend", True) and t.get("name") for t in figure["data"])
        if shows and figure["layout"].get("showlegend", True):
            with_legend += 1
            assert not _legend_inside(figure["layout"]), figure["layout"].get("legend")
    assert with_legend >= 10
    # the per-type bars (where a legend covered the Reformat bar): right of the plot
    legend = json.loads(trex.figures.perf_overview_figures(plans[1])[
        "Latency per layer type (ms)"].to_json())["layout"]["legend"]
    assert legend["x"] > 1 and legend["xanchor"] == "left"


def test_sunburst_text_only_on_wedges_that_hold_it(engines):
    plan = trex.EnginePlan.from_path(engines / "trex-mobilenet-qat")
    figure = trex.figures.precision_per_type_sunburst(plan)
    trace = figure.data[0]
    text = dict(zip(trace.ids, trace.texttemplate))
    # mobilenet has one Pooling layer of 72 (1.4 % of the circle): no text on it, the hover names it
    assert text["type/Pooling"] == text["Pooling/FP16"] == ""
    assert text["type/Convolution"] == text["Convolution/INT8"] == "%{label}"
    assert text["Reformat/FP32"] == "%{label}"  # 4 of 72
    assert "%{label}" in trace.hovertemplate and "%{value} layers" in trace.hovertemplate
    assert dict(zip(trace.ids, trace.customdata))["Pooling/FP16"] == "Pooling: "
    assert trace.leaf.opacity == 1  # the precision's own colour, not a paler one
    assert figure.layout.uniformtext.minsize >= 10 and figure.layout.uniformtext.mode == "hide"
    latency = trex.figures.layer_latency_sunburst(plan)
    total, *sizes = latency.data[0].values
    shares = [size / total for size in sizes]
    labelled = [t == "%{label}" for t in latency.data[0].texttemplate[1:]]
    assert labelled == [share >= 0.02 for share in shares]
    assert 0 < sum(labelled) < len(labelled)


def test_no_latency_charts_without_a_profile(tmp_path):
    plan = trex.EnginePlan(trt11_plan_file(tmp_path / "t11"))
    figures = engine_figures(plan)
    for key in ("latency_by_type", "latency_distribution"):
        assert "figure" not in figures[key] and "--exportProfile" in figures[key]["error"]
    rollup = figures["precision_rollup"]
    assert rollup["title"] == "Layers by precision" and len(rollup["figure"]["data"]) == 1


# ------------------------------------------------------------------ the graph's layout note
def test_layout_note_in_report_and_on_stderr(engines, tmp_path, capsys):
    require_program("dot")
    plan = transformer(engines, tmp_path, 200)
    payload = graph_payload(plan)
    assert payload["layout"] == "layered"
    note = payload["layout_note"]
    assert note.startswith("Graphviz dot would be slow on this graph (") and "own layout" in note
    small = graph_payload(trex.EnginePlan.from_path(engines / "trex-mobilenet-qat"))
    assert small["layout"] == "dot" and small["layout_note"] == ""
    assert graph_payload(plan, "own")["layout_note"] == ""  # asked for: nothing to explain
    assert main(["report", str(tmp_path / "t200"), "-o", str(tmp_path / "t.html")]) == 0
    err = capsys.readouterr().err
    notes = [line for line in err.splitlines() if line.startswith("note: ")]
    assert notes == [f"note: {note}"]
    assert main(["report", str(engines / "trex-mobilenet-qat"), "-o",
                 str(tmp_path / "m.html")]) == 0
    # a small graph needs no layout note (the engine's own notes, such as the layer-sum gap, remain)
    assert "Graphviz dot would be slow" not in capsys.readouterr().err


def test_graph_legend_counts_what_is_drawn(engines):
    payload = graph_payload(trex.EnginePlan.from_path(engines / "trex-mobilenet-qat"))
    palette = payload["palette"]
    legend = {label: (palette[color], n) for label, color, n in payload["legend"]["type"]}
    # one colour rule for Reformat in every view: the 17 Q/DQ reformats too are Reformat's cyan
    assert legend == {"Convolution": (layer_colormap["Convolution"], 53),
                      "Reformat": (layer_colormap["Reformat"], 18),
                      "Pooling": (layer_colormap["Pooling"], 1)}
    precision = {label: (palette[c], n) for label, c, n in payload["legend"]["precision"]}
    assert precision == {"INT8": (NVDA_GREEN, 53), "FP16": ("orange", 15),
                         "FP32": (precision_colormap["FP32"], 4)}
    assert [palette[i] for i in range(len(palette))] == palette
    assert all(payload["ink"][i] == text_color(c) for i, c in enumerate(palette))


# ------------------------------------------------------------------ what Chromium shows
# JS: [chart, key, fill, opacity] for each legend entry and pie/sunburst sector of the charts drawn
# in the active tab; the graph legend's swatches; the layer details' precision badge.
SEEN_COLOURS = """() => {
  const out = [];
  for (const card of document.querySelectorAll('.tab.active .chart-card')) {
    const chart = card.getAttribute('data-chart');
    for (const t of card.querySelectorAll('.legend .traces')) {
      const sym = t.querySelector('.legendpoints path, .legendlines path');
      if (!sym) continue;
      const style = getComputedStyle(sym);  // a line's legend symbol is stroked, not filled
      const fill = style.fill !== 'none' ? style.fill : style.stroke;
      out.push([chart, t.querySelector('.legendtext').textContent, fill, '1']);
    }
    for (const t of card.querySelectorAll('g.trace.bars')) {
      const cd = t.__data__; const bar = t.querySelector('.point path');
      if (cd && cd[0] && cd[0].trace && bar) {
        out.push([chart, cd[0].trace.name, getComputedStyle(bar).fill, '1']);
      }
    }
    for (const s of card.querySelectorAll('g.slice')) {
      const d = s.__data__;
      const label = d && d.data && d.data.data ? d.data.data.label : d && d.label;
      const style = getComputedStyle(s.querySelector('path'));
      out.push([chart, label, style.fill, style.opacity]);
    }
  }
  for (const e of document.querySelectorAll('.tab.active #graph-legend div[data-key]')) {
    const swatch = getComputedStyle(e.querySelector('.swatch')).backgroundColor;
    out.push(['graph legend', e.getAttribute('data-key'), swatch, '1']);
  }
  return out;
}"""

# Chromium's own value of a CSS colour
CSS_RGB = """(colors) => colors.map(c => {
  const d = document.createElement('div'); d.style.color = c; document.body.append(d);
  const v = getComputedStyle(d).color; d.remove(); return v; })"""


def draw_every_chart(report, tab: str) -> None:
    report.tab(tab)
    for card in report.page.locator(f"#tab-{tab} .chart-card").all():
        card.scroll_into_view_if_needed()
    report.charts_settled(tab)


def test_css_colour_names_are_chromiums(browser, mobilenet_report):
    from trex.graph.colors import CSS_COLORS

    report = Report(browser, mobilenet_report)
    try:
        names = sorted(CSS_COLORS)
        seen = report.js(CSS_RGB, names)
        assert len(names) == 148
        assert seen == ["rgb({}, {}, {})".format(*rgb(name)) for name in names]
    finally:
        report.close()


def test_precision_colours_are_the_same_in_every_tab(browser, engines, tmp_path):
    out = tmp_path / "compare.html"
    paths = [engines / "a100-resnet18-fp32", engines / "a100-resnet18-qat"]
    write_report([str(p) for p in paths], out, labels=["fp32", "int8"])
    report = Report(browser, out)
    seen: list[list[str]] = []
    try:
        page = report.page
        keys = ("FP32", "FP16", "INT8")
        expected = dict(zip(keys, report.js(CSS_RGB, [precision_colormap[p] for p in keys])))
        for k in (0, 1):
            page.select_option("#engine-select", str(k))
            draw_every_chart(report, "overview")
            seen += report.js(SEEN_COLOURS)
            report.tab("charts")
            page.select_option("[data-chart='latency-per-layer'] select", "precision")
            report.wait("""() => [...document.querySelectorAll(
                "[data-chart='latency-per-layer'] g.trace.bars")]
                .some(t => t.__data__[0].trace.name === 'FP32')""")
            draw_every_chart(report, "charts")
            seen += [r for r in report.js(SEEN_COLOURS) if r[0] in ("latency-per-layer", "roofline")]
            report.tab("layers")
            page.select_option("#graph-color", "precision")
            page.wait_for_selector("#graph-legend div[data-key]")
            seen += report.js(SEEN_COLOURS)
            # an FP32 layer's details: the precision badge
            row = report.js("(k) => window.trexReport.engines[k].L.precision.indexOf('FP32')", k)
            report.js("(row) => window.trexReport.select(row, 'test')", row)
            badge = report.js("""() => [...document.querySelectorAll('#details .badge')]
                .filter(b => b.textContent.startsWith('FP32'))
                .map(b => getComputedStyle(b.querySelector('.swatch')).backgroundColor)""")
            seen += [["details badge", "FP32", c, "1"] for c in badge]
            page.screenshot(path=str(screenshot_path(tmp_path, f"colours-layers-{k}.png")))
        draw_every_chart(report, "compare")
        seen += report.js(SEEN_COLOURS)
        page.screenshot(path=str(screenshot_path(tmp_path, "colours-compare.png")))
        assert report.errors == []
    finally:
        report.close()
    by_key: dict[str, set[str]] = {}
    places: dict[str, set[str]] = {}
    for chart, key, fill, opacity in seen:
        key = str(key or "").split(" peak (")[0]  # the roofline's "INT8 peak (261 TFLOP/s)"
        if key in expected:
            assert opacity == "1", (chart, key)  # drawn in the colour itself, not a paler one
            by_key.setdefault(key, set()).add(fill)
            places.setdefault(key, set()).add(chart)
    assert by_key == {key: {value} for key, value in expected.items()}
    # seen in the overview, the charts, the graph legend and the compare tab
    for key in expected:
        assert {"Layers and latency by precision", "Precision per layer type", "graph legend",
                "latency-per-layer", "Layer latency by precision", "Precision counts"} <= places[key]
    assert "details badge" in places["FP32"], places["FP32"]
    assert "roofline" in places["INT8"], places["INT8"]


LEGEND_OVERLAPS = """() => {
  const hit = (a, b) => a.left < b.right - 1 && b.left < a.right - 1
    && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const out = [];
  let legends = 0;
  for (const card of document.querySelectorAll('.tab.active .chart-card')) {
    const legend = card.querySelector('.legend .bg');
    if (!legend) continue;
    legends++;
    const box = legend.getBoundingClientRect();
    const areas = [...card.querySelectorAll('.nsewdrag, .pielayer .trace, .sunburstlayer .trace')];
    for (const area of areas) {
      if (hit(box, area.getBoundingClientRect())) out.push(card.getAttribute('data-chart'));
    }
  }
  return [legends, out];
}"""


def test_legends_do_not_cover_the_plots(browser, engines, tmp_path):
    out = tmp_path / "compare.html"
    write_report([str(engines / "a100-resnet18-fp16"), str(engines / "a100-resnet18-qat")], out,
                 labels=["fp16", "int8"])
    report = Report(browser, out)
    try:
        total = 0
        for tab in ("overview", "charts", "compare"):
            draw_every_chart(report, tab)
            legends, overlaps = report.js(LEGEND_OVERLAPS)
            assert overlaps == [], tab
            total += legends
            report.page.screenshot(path=str(screenshot_path(tmp_path, f"legends-{tab}.png")))
        assert total >= 12
        assert report.errors == []
    finally:
        report.close()


def test_small_sunburst_wedges_have_no_text_but_a_hover(browser, mobilenet_report, tmp_path):
    report = Report(browser, mobilenet_report)
    try:
        page = report.page
        card = page.locator("[data-chart='Precision per layer type']")
        card.scroll_into_view_if_needed()
        page.wait_for_selector("[data-chart='Precision per layer type'] .chart[data-drawn]")
        sectors = report.js("""() => [...document.querySelectorAll(
            "[data-chart='Precision per layer type'] g.slice")].map(s => {
              const t = s.querySelector('text'); const b = t ? t.getBoundingClientRect() : null;
              return [s.__data__.data.data.id, t ? t.textContent : '', b ? b.height : 0]; })""")
        text = {sector: (label, height) for sector, label, height in sectors}
        assert text["type/Pooling"][0] == "" and text["Pooling/FP16"][0] == ""
        shown = [(label, height) for label, height in text.values() if label]
        assert {"Convolution", "Reformat", "INT8", "FP16", "FP32"} <= {label for label, _ in shown}
        assert all(height >= 10 for _, height in shown), shown  # no text shrunk to a smudge
        # the tiny Pooling wedge still names itself on hover
        x, y = report.js("""() => {
            const s = [...document.querySelectorAll("[data-chart='Precision per layer type'] g.slice")]
              .find(s => s.__data__.data.data.id === 'Pooling/FP16');
            const p = s.querySelector('path'); const b = p.getBoundingClientRect();
            const m = p.getScreenCTM().inverse(); const pt = p.ownerSVGElement.createSVGPoint();
            for (let i = 1; i < 20; i++) for (let j = 1; j < 20; j++) {
              pt.x = b.left + b.width * i / 20; pt.y = b.top + b.height * j / 20;
              if (p.isPointInFill(pt.matrixTransform(m))) return [pt.x, pt.y];
            }
            return null; }""")
        page.mouse.move(x, y)
        report.wait("() => (document.querySelector("
                    "\"[data-chart='Precision per layer type'] .hoverlayer\") || {}).textContent"
                    "?.includes('Pooling: FP16, 1 layers')")
        card.screenshot(path=str(screenshot_path(tmp_path, "sunburst-hover.png")))
        assert report.errors == []
    finally:
        report.close()


def test_graph_text_reads_on_every_fill(browser, mobilenet_report, tmp_path):
    report = Report(browser, mobilenet_report, "#tab=layers")
    try:
        page = report.page
        for mode in ("type", "precision", "latency"):
            page.select_option("#graph-color", mode)
            report.wait("(m) => window.trexReport.app.explorer.graph.colorBy === m", mode)
            pairs = report.wait("""() => {
                const g = document.querySelectorAll('.graph-stage .nodes g[data-node]');
                return g.length ? [...g].map(n => [n.querySelector('rect').getAttribute('fill'),
                  n.querySelector('text').getAttribute('fill')]) : null; }""")
            fills = {fill for fill, _ in pairs}
            assert len(fills) >= 2, mode
            for fill, ink in pairs:
                assert ink == text_color(fill) and contrast_ratio(fill, ink) >= 4.5, (mode, fill)
            page.locator("#graph-stage").screenshot(path=str(screenshot_path(tmp_path, f"graph-{mode}.png")))
        assert report.errors == []
    finally:
        report.close()
