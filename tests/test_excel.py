"""ExcelSummary on real engines, read back with openpyxl: sheets, rows, native charts."""

from __future__ import annotations

import warnings
import zipfile

import openpyxl
import pytest

import trex
from trex.excel_summary import ExcelSummary, cell_value, excel_color
from trex.iteration_stats import latency_percentiles
from trex.lint import lint_report

warnings.simplefilter("ignore", trex.TrexWarning)

DEFAULT_SHEETS = ["Summary", "Plan", "Latency by type", "Latency by precision", "Performance",
                  "Memory footprint", "Convolutions", "Reformats", "Timings", "Lint"]


def chart_kinds(ws) -> list[str]:
    return [type(c).__name__ for c in ws._charts]


@pytest.fixture(scope="module")
def mobilenet_book(engines, tmp_path_factory):
    plan = trex.EnginePlan.from_path(engines / "trex-mobilenet-qat")
    path = tmp_path_factory.mktemp("xlsx") / "default_summary.xlsx"
    summary = ExcelSummary(plan, path=path)
    summary.generate_default_summary()
    return plan, path, openpyxl.load_workbook(path)


def test_default_summary_sheets(mobilenet_book):
    _, _, book = mobilenet_book
    assert book.sheetnames == DEFAULT_SHEETS


def test_plan_sheet_has_every_layer(mobilenet_book):
    plan, _, book = mobilenet_book
    ws = book["Plan"]
    rows = list(ws.iter_rows(values_only=True))
    assert rows[0][0] == "Layers of mobilenet.qat.onnx.engine"
    header = rows[2]
    assert header[:6] == ("Name", "type", "Inputs", "Outputs", "latency.avg_time", "latency.pct_time")
    body = rows[3:]
    assert len(body) == len(plan.df) == 72
    assert [r[0] for r in body] == list(plan.df["Name"])
    assert sum(r[4] for r in body) == pytest.approx(plan.total_runtime)
    assert body[0][2] == "FP32 NCHW [1,3,224,224]"
    assert ws.auto_filter.ref is not None and ws.freeze_panes == "A4"


def test_summary_and_grouping_sheets(mobilenet_book):
    plan, _, book = mobilenet_book
    facts = {(s, a): v for s, a, v in book["Summary"].iter_rows(min_row=4, values_only=True)}
    assert facts[("Model", "layers")] == 72
    assert facts[("Model", "average_time_ms")] == pytest.approx(plan.total_runtime, abs=1e-6)
    assert facts[("Performance summary", "Throughput")] == 2829.15
    types = {r[0]: r[1:] for r in book["Latency by type"].iter_rows(min_row=4, values_only=True)}
    assert {t: v[0] for t, v in types.items()} == {"Convolution": 53, "Reformat": 18, "Pooling": 1}
    assert chart_kinds(book["Latency by type"]) == ["PieChart"]


def test_report_sheets_have_native_charts(mobilenet_book):
    _, path, book = mobilenet_book
    assert chart_kinds(book["Performance"]).count("BarChart") == 8  # 7 bar charts + the histogram
    assert chart_kinds(book["Performance"])[8:] == ["PieChart", "DoughnutChart", "DoughnutChart"]
    assert chart_kinds(book["Memory footprint"]) == ["BarChart"] * 6
    assert len(book["Convolutions"]._charts) == 13
    assert chart_kinds(book["Reformats"]) == ["BarChart"] * 3
    assert chart_kinds(book["Timings"]) == ["ScatterChart"]
    with zipfile.ZipFile(path) as z:
        charts = [n for n in z.namelist() if n.startswith("xl/charts/chart")]
        assert len(charts) == 36
        xml = [z.read(n).decode() for n in charts]
    # the first per-layer bar chart: title and axis titles as in the figure
    first = next(x for x in xml if "<a:t>Latency per layer (%)</a:t>" in x)
    assert "<a:t>Latency (% of total)</a:t>" in first and "<a:t>Layer</a:t>" in first


def test_report_sheet_data_match_the_figures(mobilenet_book):
    plan, _, book = mobilenet_book
    rows = list(book["Reformats"].iter_rows(values_only=True))
    start = rows.index(("Reformat - Count by origin", None, None)) + 1
    assert rows[start] == ("category", "QDQ", "REFORMAT")  # one series per origin, stacked
    counts = {}
    for r in rows[start + 1:]:
        if r[0] is None:
            break
        counts[r[0]] = sum(v for v in r[1:] if v is not None)
    assert counts == plan.get_layers_by_type("Reformat")["attr.origin"].value_counts().to_dict()


def test_timings_sheet(mobilenet_book):
    plan, _, book = mobilenet_book
    ws = book["Timings"]
    rows = list(ws.iter_rows(values_only=True))
    # the percentiles of the timed iterations first, equal to trtexec's summary of the run
    assert rows[2][0].startswith("Percentiles (ms) of the timed iterations; the 455 in trtexec's")
    header = rows[3]
    got = dict(zip(header, next(r for r in rows[4:10] if r[0] == "latency")))
    stats = latency_percentiles(plan).set_index("metric")
    assert got["p99"] == stats.loc["latency", "p99"] == plan.performance_summary["Latency"][6]
    assert got["p50"] == stats.loc["latency", "p50"] == plan.performance_summary["Latency"][3]
    # then the samples: trtexec's warm-up (records starting before 200 ms) a series apart
    start = rows.index(("Engine timing samples",) + (None,) * (len(rows[0]) - 1)) + 1
    warm = int((plan.timings["startComputeMs"] < 200).sum())
    assert rows[start][:4] == (f"Warm-up ({warm}, left out) x", f"Warm-up ({warm}, left out)",
                               "Latency x", "Latency")
    warmups = [r[1] for r in rows[start + 1:] if r[1] is not None]
    latencies = [r[3] for r in rows[start + 1:] if r[3] is not None]
    assert len(warmups) == warm == 455 and len(latencies) == len(plan.timings) - warm


def test_lint_sheet_has_every_finding(mobilenet_book):
    plan, _, book = mobilenet_book
    rows = list(book["Lint"].iter_rows(min_row=3, values_only=True))
    header = rows[0]
    assert header[:7] == ("layer", "linter", "severity", "hazard", "evidence", "mitigation", "help")
    findings = lint_report(plan).findings
    body = [r for r in rows[1:len(findings) + 1]]
    assert len(body) == len(findings)
    assert sum(r[1] == "ConvLinter" for r in body) == sum(f.linter == "ConvLinter" for f in findings)


def test_trex_api_custom_summary(plan, tmp_path):
    p = plan("a100-resnet18-qat")
    logo = tmp_path / "logo.png"
    # a 1x1 PNG
    logo.write_bytes(bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"))
    path = tmp_path / "custom.xlsx"
    with ExcelSummary(p, path=path) as summary:
        summary.add_dataframes({"df": p.df})
        summary.add_images({"trex_logo": logo})
        summary.add_dataframes({"clean_df": trex.clean_for_display(p.df)})
        summary.add_dataframes({"a" * 40: p.df.head(2), "a" * 40 + "b": p.df.head(1)})
        summary.add_report("report_card_gemm_MNK_scatter")
        with pytest.raises(ValueError, match="not a supported report"):
            summary.add_report("report_card_nothing")
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["df", "trex_logo", "clean_df", "a" * 31, "a" * 27 + " (2)", "GEMM MNK"]
    assert book["df"].max_row == 3 + len(p.df)
    with zipfile.ZipFile(path) as z:
        assert "xl/media/image1.png" in z.namelist()
    assert chart_kinds(book["GEMM MNK"]) == ["ScatterChart"] * 3


@pytest.mark.parametrize("name", ["trt10-detr-int8-names-only", "torchtrt-alexnet-fp16",
                                  "trt10.4-alexnet-fp16"])
def test_default_summary_on_other_engines(plan, tmp_path, name):
    p = plan(name)
    path = ExcelSummary(p, tmp_path / "s.xlsx")
    path.generate_default_summary()
    book = openpyxl.load_workbook(tmp_path / "s.xlsx")
    expected = [s for s in DEFAULT_SHEETS if s != "Timings" or len(p.timings)]
    assert book.sheetnames == expected
    assert book["Plan"].max_row == 3 + len(p.df)


def test_cell_values_and_colors():
    assert cell_value(float("nan")) is None and cell_value(float("inf")) == "inf"
    assert cell_value([1, 2]) == "[1, 2]" and cell_value("x" * 40000) == "x" * 32767
    assert excel_color("#4682B4") == "#4682B4" and excel_color("rgba(114, 179, 24, 0.3)") == "#72B318"
    assert excel_color("orange") == "#FFA500" and excel_color("nonsense") is None


def test_every_palette_colour_reaches_the_workbook():
    """The charts colour series by the one palette: each of its colours (names included) converts."""
    from trex.graph.colors import layer_colormap, precision_colormap

    for colour in {*precision_colormap.values(), *layer_colormap.values()}:
        converted = excel_color(colour)
        assert converted is not None and len(converted) == 7, colour
    assert excel_color("deepskyblue") == "#00BFFF" and excel_color("#76b900") == "#76B900"
    assert excel_color("#abc") == "#AABBCC" and excel_color("rgb(300, 0, 0)") == "#FF0000"
