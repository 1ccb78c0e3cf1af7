"""Report-card views on real engines: each chart's traces hold the plan's numbers; notebook layer."""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import trex
from trex import EnginePlan, notebook
from trex import figures as report
from trex.figures.html_table import html_table
from trex.iteration_stats import latency_percentiles, timing_records, trtexec_percentile
from trex.jupyter import widgets as interactive  # what TREx's trex.interactive names
from trex.misc import (
    clean_df,
    clean_for_display,
    create_activations,
    group_count,
    group_mean_attr,
    group_sum_attr,
)

warnings.simplefilter("ignore", trex.TrexWarning)

MOBILENET = "trex-mobilenet-qat"
ENGINES = ["trex-mobilenet-qat", "a100-resnet18-qat", "trt10.4-alexnet-fp16", "trt8.6-resnet50-int8",
           "torchtrt-alexnet-fp16", "trt10-detr-int8-names-only", "trt10.16-mnist-fp32"]


def bars(fig) -> dict[str, float]:
    """Category -> bar value over every bar trace of a figure."""
    out: dict[str, float] = {}
    for trace in fig.data:
        cats, vals = (trace.y, trace.x) if trace.orientation == "h" else (trace.x, trace.y)
        for c, v in zip(cats, vals):
            out[c] = out.get(c, 0.0) + float(v)
    return out


# ----------------------------------------------------------------------------- the walkthrough
def test_walkthrough_snippets(plan):
    p = plan(MOBILENET)
    top3 = p.df.nlargest(3, "latency.pct_time")
    assert len(top3) == 3 and top3["latency.pct_time"].is_monotonic_decreasing
    by_type = p.df.groupby(["type"]).sum()[["latency.avg_time"]]
    assert by_type["latency.avg_time"].sum() == pytest.approx(p.total_runtime)


# ----------------------------------------------------------------------------- DataFrame helpers
def test_group_helpers_equal_pandas(plan):
    df = plan(MOBILENET).df
    counts = group_count(df, "type").set_index("type")["count"]
    assert counts.to_dict() == df["type"].value_counts().to_dict()
    sums = group_sum_attr(df, "precision", "latency.avg_time").set_index("precision")
    assert sums["latency.avg_time"].to_dict() == pytest.approx(
        df.groupby("precision")["latency.avg_time"].sum().to_dict())
    means = group_mean_attr(df, "type", ["latency.avg_time", "weights_size"]).set_index("type")
    assert means.loc["Convolution", "weights_size"] == pytest.approx(
        df[df["type"] == "Convolution"]["weights_size"].mean())
    kernels = group_count(df[df["type"] == "Convolution"], "Kernel")  # list cells are grouped too
    assert set(kernels["Kernel"]) == {(1, 1), (3, 3)} and kernels["count"].sum() == 53


def test_clean_for_display_and_activations(plan):
    df = plan(MOBILENET).df
    clean = clean_for_display(df)
    assert list(clean.columns[:4]) == ["Name", "type", "Inputs", "Outputs"]
    assert clean.loc[0, "Inputs"] == "FP32 NCHW [1,3,224,224]"
    assert not any(isinstance(v, (list, dict)) for col in clean for v in clean[col])
    assert "subtype" not in clean and "TacticValue" not in clean
    assert len(clean) == len(df) and isinstance(df.loc[0, "Inputs"], list)  # the plan is untouched
    assert clean_df(df.head(3).copy()).loc[0, "Outputs"].startswith("Int8")
    inputs, outputs = create_activations(df.iloc[0])
    assert inputs[0].name == "input1" and inputs[0].shape == [1, 3, 224, 224]
    assert outputs[0].precision == "INT8"


# ----------------------------------------------------------------------------- figures
def test_perf_overview_per_type_bars_equal_groupby(plan):
    p = plan(MOBILENET)
    figs = report.perf_overview_figures(p)
    assert list(figs) == ["Latency per layer (%)", "Latency per layer (ms)",
                          "Layer latency distribution", "Precision per layer",
                          "Output precision per layer", "Count per layer type",
                          "Latency per layer type (ms)", "Latency per layer type (%)",
                          "Precision per layer type", "Precision rollup"]
    grouped = p.df.groupby("type")[["latency.avg_time", "latency.pct_time"]].sum()
    assert bars(figs["Latency per layer type (ms)"]) == pytest.approx(
        grouped["latency.avg_time"].to_dict())
    assert bars(figs["Latency per layer type (%)"]) == pytest.approx(
        grouped["latency.pct_time"].to_dict())
    assert bars(figs["Count per layer type"]) == {"Convolution": 53, "Reformat": 18, "Pooling": 1}
    # per-layer bars: one trace per layer type (a legend), the layers in plan order, every value once
    per_layer = figs["Latency per layer (ms)"]
    assert {t.name for t in per_layer.data} == {"Convolution", "Reformat", "Pooling"}
    assert list(per_layer.layout.xaxis.categoryarray) == list(p.df["Name"])
    assert bars(per_layer) == pytest.approx(dict(zip(p.df["Name"], p.df["latency.avg_time"])))
    assert per_layer.layout.barmode == "stack"
    precision = figs["Precision per layer"]
    assert {t.name for t in precision.data} == {"INT8", "FP16", "FP32"}
    rollup = figs["Precision rollup"]
    assert [t.type for t in rollup.data] == ["pie", "pie"]
    assert dict(zip(rollup.data[0].labels, rollup.data[0].values)) == {"INT8": 53, "FP16": 15,
                                                                      "FP32": 4}
    hist = figs["Layer latency distribution"]
    assert sum(len(t.x) for t in hist.data) == len(p.df)


def test_axis_titles_name_quantity_and_unit(plan):
    figs = report.perf_overview_figures(plan(MOBILENET))
    per_layer = figs["Latency per layer (ms)"]
    assert per_layer.layout.xaxis.title.text == "Layer"
    assert per_layer.layout.yaxis.title.text == "Latency (ms)"
    per_type = figs["Latency per layer type (%)"]  # horizontal: values along x
    assert per_type.layout.xaxis.title.text == "Latency (% of total)"
    assert per_type.layout.yaxis.title.text == "Layer type"
    dist = figs["Layer latency distribution"]
    assert (dist.layout.xaxis.title.text, dist.layout.yaxis.title.text) == ("Latency (ms)", "Layers")
    mem = report.memory_footprint_figures(plan(MOBILENET))["Weights footprint per layer"]
    assert mem.layout.yaxis.title.text == "Weights (bytes)"


@pytest.mark.parametrize("name", ["trex-mobilenet-qat", "a100-resnet18-qat", "trt10.4-alexnet-fp16"])
def test_sunburst_sized_by_latency(plan, name):
    """TREx sized the wedges by layer count; each wedge here is latency, the centre the total."""
    p = plan(name)
    fig = report.layer_latency_sunburst(p)
    trace = fig.data[0]
    ids, parents, values = list(trace.ids), list(trace.parents), np.asarray(trace.values)
    assert trace.branchvalues == "total" and len(set(ids)) == len(ids)
    assert values[0] == pytest.approx(p.total_runtime)
    types = {i: v for i, par, v in zip(ids, parents, values) if par == ids[0]}
    expected = p.df.groupby("type")["latency.avg_time"].sum()
    assert {k.split("/", 1)[1]: v for k, v in types.items()} == pytest.approx(expected.to_dict())
    leaves = values[1 + len(types):]
    assert len(leaves) == len(p.df) and leaves.sum() == pytest.approx(p.total_runtime)
    # TREx's signature: a DataFrame and a title
    assert notebook.layer_latency_sunburst(p.df, "Layers Latencies (%)").layout.title.text == \
        "Layers Latencies (%)"


def test_precision_per_type_sunburst_counts(plan):
    fig = report.precision_per_type_sunburst(plan("a100-resnet18-qat"))
    trace = fig.data[0]
    by_id = dict(zip(trace.ids, trace.values))
    assert by_id["type/Convolution"] == 21 and by_id["type/Reformat"] == 12
    assert sum(v for i, v in by_id.items() if i.startswith("type/")) == 35


def test_memory_footprint_bars_sum_to_plan_totals(plan):
    p = plan("a100-resnet18-fp16")
    figs = report.memory_footprint_figures(p)
    assert len(figs) == 6
    assert sum(bars(figs["Weights footprint per layer"]).values()) == p.total_weights_size
    assert sum(bars(figs["Activation footprint per layer"]).values()) == p.total_act_size
    hist = figs["Total footprint distribution per layer"]
    assert sum(len(t.x) for t in hist.data) == len(p.df)


def test_timings_chart_percentile_lines(plan, engines):
    p = plan(MOBILENET)
    fig = report.engine_timings_figure(p)
    by_name = {t.name: t for t in fig.data}
    # trtexec's warm-up (records starting before 200 ms) drawn apart; lines over the timed ones
    warm = int((p.timings["startComputeMs"] < 200).sum())
    assert list(by_name) == [f"Warm-up ({warm}, left out)", "Latency", "p50", "p90", "p95", "p99"]
    records = timing_records(p)
    latency = records["latency_ms"].to_numpy()[warm:]
    assert len(by_name["Latency"].y) == len(p.timings) - warm == 8945 - 455
    assert len(by_name[f"Warm-up ({warm}, left out)"].y) == warm
    stats = latency_percentiles(p).set_index("metric").loc["latency"]
    for q in (50, 90, 95, 99):
        line = by_name[f"p{q}"]
        assert list(line.y) == [trtexec_percentile(latency, q)] * 2 == [stats[f"p{q}"]] * 2
        assert list(line.x) == [warm, len(p.timings) - 1]
    # trtexec printed these percentiles for the same run (profile metadata)
    assert [stats["p50"], stats["p90"], stats["p95"], stats["p99"]] == [
        p.performance_summary["Latency"][i] for i in (3, 4, 5, 6)]
    assert fig.layout.yaxis.title.text == "Latency (ms)"
    # TREx's call: the --exportTimes file itself (no metadata: trtexec's default 200 ms warm-up)
    path = engines / MOBILENET / "mobilenet.qat.onnx.engine.timing.json"
    from_file = notebook.plot_engine_timings(timing_json_file=str(path))
    assert [t.name for t in from_file.data] == list(by_name)
    assert list(from_file.data[2].y) == list(by_name["p50"].y)


def test_timings_chart_shows_gpu_compute_when_it_differs(plan):
    """7.x timings (H2D and D2H included in the latency): GPU compute is a second series."""
    p = plan("trt7-googlenet-int8-concatenated")
    fig = report.engine_timings_figure(p)
    names = [t.name for t in fig.data]
    assert names == ["Warm-up (80, left out)", "Latency", "GPU compute", "p50", "p90", "p95", "p99"]
    assert list(fig.data[2].y) == list(timing_records(p)["compute_ms"])[80:]
    assert report.timing_percentiles(plan("trt8.6-resnet50-int8"))["p99"] == 0.624634


def test_timings_chart_without_timings(plan):
    fig = report.engine_timings_figure(plan("torchtrt-alexnet-fp16"))
    assert [t.name for t in fig.data] == ["Latency"] and len(fig.data[0].y) == 0


def test_convolutions_overview_kernel_size_chart(plan):
    """TREx's kernel-size chart crashed (list-valued kernels); here 1x1 and 3x3 are categories."""
    p = plan(MOBILENET)
    figs = report.convolutions_overview_figures(p.get_layers_by_type("Convolution"))
    assert len(figs) == 13
    kernel = figs["Latency per convolution (color = kernel size)"]
    assert sorted(t.name for t in kernel.data) == ["1x1", "3x3"]
    assert sum(len(t.x) for t in kernel.data) == 53
    macs = figs["Fused Multiply-Accumulate (FMAs)"]
    convs = report.conv_layers(p)
    assert bars(macs) == pytest.approx(dict(zip(convs["Name"], convs["attr.macs"].astype(float))))
    assert macs.data[0].marker.colorbar.title.text == "Latency (% of total)"


def test_conv_layers_from_rows_equal_from_plan(plan):
    p = plan(MOBILENET)
    from_rows = report.conv_layers(p.get_layers_by_type("Convolution"))
    from_plan = report.conv_layers(p)
    cols = ["attr.macs", "attr.M", "attr.N", "attr.K", "attr.arithmetic_intensity"]
    pd.testing.assert_frame_equal(from_rows[cols], from_plan[cols])
    first = from_rows.iloc[0]
    assert (first["attr.macs"], first["attr.M"], first["attr.N"], first["attr.K"]) == \
        (10_838_016, 12544, 32, 27)


def test_gemm_and_efficiency_scatters(plan):
    p = plan("a100-resnet18-fp16")
    convs = report.conv_layers(p)
    mnk = report.gemm_MNK_figures(p)
    assert len(mnk) == 4 and all(f.data[0].type == "scatter3d" for f in mnk.values())
    first = next(iter(mnk.values())).data[0]
    assert list(first.x) == list(convs["attr.M"]) and list(first.z) == list(convs["attr.K"])
    assert first.marker.size.max() == pytest.approx(18)  # TREx's size_max, by latency
    scatter = report.gemm_MNK_scatter_figures(p)
    assert [f.layout.xaxis.title.text for f in scatter.values()] == ["GEMM M", "GEMM N", "GEMM K"]
    perf = report.perf_scatter_figures(p)
    assert len(perf) == 6 and all(len(f.data[0].x) == len(convs) for f in perf.values())
    eff = report.efficiency_vs_latency_3d(p)
    assert eff.data[0].type == "scatter3d" and len(eff.data[0].x) == 21


def test_reformat_overview_by_origin(plan):
    p = plan(MOBILENET)
    figs = report.reformat_overview_figures(p)
    reformats = p.get_layers_by_type("Reformat")
    # TREx's get_layers_by_type renames the Reformat attributes: Origin -> attr.origin.
    assert bars(figs["Reformat - Count by origin"]) == \
        reformats["attr.origin"].value_counts().to_dict()
    assert sum(bars(figs["Reformat - Latency by origin"]).values()) == pytest.approx(
        reformats["latency.avg_time"].sum())


def test_pointwise_report(plan, tmp_path):
    assert report.pointwise_report(plan(MOBILENET)).message == \
        "The engine plan does not contain pointwise layers."
    layers, profile = [], [{"count": 10}]
    for i, n_ops in enumerate([1, 3, 3, 5]):
        layers.append({"Name": f"pw{i}", "LayerType": "PointWiseV2", "ParameterType": "PointWise",
                       "Inputs": [{"Name": f"t{i}", "Dimensions": [1, 8], "Format/Datatype": "FP16"}],
                       "Outputs": [{"Name": f"t{i + 1}", "Dimensions": [1, 8],
                                    "Format/Datatype": "FP16"}],
                       "Operations": [f"op{k}" for k in range(n_ops)], "NbOperations": n_ops})
        profile.append({"name": f"pw{i}", "timeMs": 1.0, "averageMs": 0.1, "medianMs": 0.1,
                        "percentage": 25.0})
    (tmp_path / "pw.graph.json").write_text(json.dumps({"Layers": layers, "Bindings": ["t0", "t4"]}))
    (tmp_path / "pw.profile.json").write_text(json.dumps(profile))
    p = EnginePlan(tmp_path / "pw.graph.json", tmp_path / "pw.profile.json")
    result = report.pointwise_report(p)
    counts = result.figure.data[0]
    assert dict(zip(counts.labels, counts.values)) == {"1": 1, "3": 2, "5": 1}
    per_op = dict(zip(result.figure.data[2].labels, result.figure.data[2].values))
    assert per_op == pytest.approx({"1": 25.0, "3": 50.0 / 6, "5": 5.0})
    assert list(result.operations["Name"]) == ["pw1", "pw2", "pw3"]


def test_plotting_wrappers(plan):
    df = plan(MOBILENET).df
    types = group_count(df, "type")
    fig = report.plotly_bar2(types, "Layer Count By Type", "count", "type", color="type",
                             colormap=report.layer_colormap())
    assert bars(fig) == {"Convolution": 53, "Pooling": 1, "Reformat": 18}
    assert fig.data[0].marker.color == "#4682B4"  # Convolution's colour in the type colormap
    two = report.plotly_bar2({"a": types, "b": types}, "t", "count", "type", showlegend=True)
    assert [t.name for t in two.data] == ["a", "b"] and two.layout.barmode == "group"
    hist = report.plotly_hist(df, "h", "latency.avg_time", color="precision")
    assert sum(len(t.x) for t in hist.data) == len(df)
    pie = report.plotly_pie(types, "p", "count", "type")
    assert list(pie.data[0].values) == [53, 1, 18]
    pies = report.plotly_pie2("p2", [(types, "a", "count", "type")] * 4, max_cols=3)
    assert len(pies.data) == 4
    prec = group_sum_attr(df, "precision", "latency.avg_time")
    stacked = report.stacked_bars("s", ["x", "y"], [prec, prec.head(1)], "precision",
                                  "latency.avg_time")
    assert [t.name for t in stacked.data] == list(prec["precision"])
    assert list(stacked.data[1].y) == [prec["latency.avg_time"][1], 0]
    table = report.stacked_tabular_df(["x", "y"], [prec, prec.head(1)], "precision",
                                      "latency.avg_time")
    assert list(table.columns) == ["latency.avg_time", "x", "y"] and len(table) == 3


@pytest.mark.parametrize("name", ENGINES)
def test_every_view_on_every_engine(plan, name):
    """Names-only, unprofiled and Myelin engines: every view builds (empty where there is nothing)."""
    p = plan(name)
    for build in (report.perf_overview_figures, report.memory_footprint_figures,
                  report.convolutions_overview_figures, report.gemm_MNK_figures,
                  report.gemm_MNK_scatter_figures, report.perf_scatter_figures,
                  report.reformat_overview_figures):
        figs = build(p)
        assert figs and all(hasattr(f, "data") for f in figs.values())
    report.efficiency_vs_latency_3d(p)
    report.engine_timings_figure(p)
    report.pointwise_report(p)
    sunburst = report.layer_latency_sunburst(p)
    assert sunburst.data[0].values[0] == pytest.approx(p.total_runtime)
    assert len(report.table_view(p)) == len(p.df)


def test_table_view_and_caption(plan):
    p = plan(MOBILENET)
    assert report.table_view_choices(p) == ["All", "Convolution", "Reformat", "Pooling"]
    assert len(report.table_view(p, "Reformat")) == 18
    assert report.table_caption(p, "Reformat") == (
        "There are 18 Reformat layers which account for 17.55% (0.08254 ms) of the overall latency.")


def test_html_table_escapes_sorts_and_limits():
    df = pd.DataFrame({"Name": ["<b>x</b>", "a & b", "c"], "latency": [0.5, np.nan, 2.0],
                       "n": np.array([3, 1, 2], dtype="int64")})
    text = html_table(df, table_id="t1")
    assert "&lt;b&gt;x&lt;/b&gt;" in text and "<b>x</b>" not in text and "a &amp; b" in text
    assert 'id="t1"' in text and "trex-search" in text and text.count('class="trex-filter"') == 3
    assert 'data-v="0.5"' in text and 'data-v="3"' in text and "<script>" in text
    assert text.count("<tr>") == 1 + 3  # header + rows
    big = html_table(pd.DataFrame({"x": range(50)}), max_rows=10)
    assert big.count("<tr>") == 11 and "first 10 of 50 rows" in big


def test_plan_graph_drawing(plan, tmp_path):
    p = plan("a100-resnet18-qat")
    path = report.draw_plan_graph(p, tmp_path / "resnet", "Color nodes by precision (detailed)")
    assert path.endswith("resnet.svg") and "<svg" in Path(path).read_text()[:2000]


# ----------------------------------------------------------------------------- notebook layer
class Shown(list):
    """What was shown, and the number of the cell being run."""

    cell = 1


@pytest.fixture
def jupyter(monkeypatch):
    """Pretend to run in a kernel; record what is shown instead of showing it."""
    shown = Shown()
    monkeypatch.setattr(interactive, "in_notebook", lambda: True)
    monkeypatch.setattr(interactive, "show", lambda *objs: shown.extend(objs))
    monkeypatch.setattr(interactive, "execution_count", lambda: shown.cell)
    return shown


def kinds(shown: list) -> list[str]:
    return [type(o).__name__ for o in shown]


def test_report_card_shows_dropdown_and_chart(plan, jupyter):
    p = plan(MOBILENET)
    menu = notebook.report_card_perf_overview(p)
    assert kinds(jupyter) == ["Figure", "VBox"]  # the first chart (drawn into the output), the widget
    assert jupyter[0].layout.title.text == "Latency per layer (%)"
    menu.widget.dropdown.value = "Latency per layer type (ms)"
    assert kinds(jupyter)[-1] == "Figure" and jupyter[-1].layout.title.text == \
        "Latency per layer type (ms)"
    # TREx's dict of callables: title and do_show
    fig = menu["Count per layer type"](title="Count", do_show=False)
    assert fig.layout.title.text == "Count" and len(jupyter) == 3
    # as the cell's value it is not shown twice; in a later cell it is shown again
    menu._ipython_display_()
    assert len(jupyter) == 3
    jupyter.cell += 1
    menu._ipython_display_()
    assert kinds(jupyter)[3:] == ["Figure", "VBox"]


def test_report_cards_without_ipywidgets_show_every_chart(plan, jupyter, monkeypatch):
    monkeypatch.setattr(interactive, "have_widgets", lambda: False)
    notebook.report_card_memory_footprint(plan(MOBILENET))
    assert kinds(jupyter) == ["Figure"] * 6


def test_report_cards_in_a_script_show_nothing(plan, monkeypatch):
    shown: list = []
    monkeypatch.setattr(interactive, "show", lambda *objs: shown.extend(objs))
    p = plan(MOBILENET)
    menu = notebook.report_card_perf_overview(p)
    assert len(menu.figures()) == 10
    assert notebook.plotly_bar2(p.df, "t", "latency.avg_time", "Name").data
    notebook.report_card_table_view(p)
    notebook.set_wide_display()
    assert shown == [] and not interactive.in_notebook()


def test_every_report_card_function_in_a_notebook(plan, jupyter, tmp_path, monkeypatch):
    p = plan(MOBILENET)
    monkeypatch.chdir(tmp_path)
    calls = {
        "report_card_perf_overview_widget": (p,), "report_card_memory_footprint_widget": (p,),
        "report_card_convolutions_overview_widget": (p.get_layers_by_type("Convolution"),),
        "report_card_reformat_overview": (p,), "report_card_gemm_MNK": (p,),
        "report_card_gemm_MNK_scatter": (p,), "report_card_perf_scatter": (p,),
        "report_card_efficiency_vs_latency_3d": (p,), "report_card_table_view": (p,),
        "report_card_pointwise_lint": (p,),
    }
    for name, args in calls.items():
        jupyter.clear()
        getattr(notebook, name)(*args)
        assert jupyter, name
    jupyter.clear()
    view = notebook.report_card_table_view(p)
    view.widget.dropdown.value = "Reformat"
    assert "18 Reformat layers" in jupyter[-2].data and "trex-table" in jupyter[-1].data
    jupyter.clear()
    notebook.report_card_pointwise_lint(p)
    assert "does not contain pointwise" in jupyter[0].data


def test_plan_graph_report_cards(plan, jupyter, tmp_path):
    p = plan("a100-resnet18-qat")
    view = notebook.report_card_draw_plan_graph(p, tmp_path / "g")
    assert kinds(jupyter) == ["SVG", "VBox"] and os.path.exists(view.paths["Color nodes by type"])
    jupyter.clear()
    ext = notebook.report_card_draw_plan_graph_extended(p, tmp_path / "ext")
    assert kinds(jupyter) == ["VBox"]
    ext.widget.svg_button.click()
    assert kinds(jupyter)[-1] == "SVG" and ext.path.endswith("ext.svg")


def test_figures_shown_once_per_cell(plan, jupyter):
    fig = notebook.plotly_bar2(plan(MOBILENET).df, "t", "latency.avg_time", "Name", color="type")
    assert jupyter == [fig]
    fig._ipython_display_()  # the cell's value: already shown
    assert jupyter == [fig]


def test_display_df_backends(plan, jupyter, monkeypatch):
    df = plan(MOBILENET).df
    notebook.display_df(df)  # no itables here: trex's own HTML table
    assert kinds(jupyter) == ["HTML"] and 'class="trex-table"' in jupyter[0].data
    assert jupyter[0].data.count("<tr>") == len(df) + 1
    seen = []
    notebook.set_table_display_backend(lambda d, **kw: seen.append((len(d), kw)))
    try:
        notebook.display_df(df, range_highlights={})
        assert seen == [(len(df), {"range_highlights": {}})]
        notebook.set_table_display_backend(lambda d: seen.append(len(d)))
        notebook.display_df(df, precision=3)  # options the backend does not take are dropped
        assert seen[-1] == len(df)
    finally:
        notebook.set_table_display_backend(None)


def test_section_header_and_filechooser(engines, jupyter):
    header = notebook.section_header("Plan <Summary>")
    assert "Plan &lt;Summary&gt;" in header.data and "#76b900" in header.data
    chooser = notebook.display_filechooser(engines)
    assert kinds(jupyter) == ["Dropdown"]
    mobilenet = str(engines / MOBILENET / "mobilenet.qat.onnx.engine")
    assert mobilenet in chooser.files and len(chooser.files) == len(set(chooser.files))
    chooser.widget.value = mobilenet
    assert chooser.selected == mobilenet and chooser.selected_filename == "mobilenet.qat.onnx.engine"
    assert len(EnginePlan.from_path(chooser.selected).df) == 72


def test_compare_notebook_functions(plan, jupyter):
    p1, p2 = plan(MOBILENET), plan("trex-mobilenet-v2-residuals-qat")
    gallery = notebook.compare_engines_overview([p1, p2])
    assert isinstance(gallery, dict) and kinds(jupyter) == ["Figure", "VBox"]
    jupyter.clear()
    view = notebook.compare_engines_layer_latencies(p1, p2, threshold=0.03, exact_matching=True)
    assert kinds(jupyter)[-2:] == ["Figure", "VBox"]
    df, fig = view  # unpacks as trex.compare's (table, figure)
    assert len(df) and fig.data
    details = notebook.compare_engines_layer_details(p1, p2)
    assert kinds(jupyter)[-1] == "VBox"
    assert list(notebook.compare_engines_layer_details(p1, p2, 0)["attribute"])[0] == "name"
    assert len(notebook.compare_engines_layer_details(p1, p2, row=None).choices) == len(df)
    assert details.description == "Choose Layer:"


def test_display_df_uses_itables_when_installed(plan, jupyter, monkeypatch):
    import sys
    import types

    calls = []
    fake = types.ModuleType("itables")
    fake.show = lambda df, **kw: calls.append(len(df))
    monkeypatch.setitem(sys.modules, "itables", fake)
    notebook.display_df(plan(MOBILENET).df)
    assert calls == [72] and jupyter == []


def test_plan_graph_without_graphviz_uses_trex_layout(plan, tmp_path, monkeypatch):
    from trex import graph as graphing

    def no_graphviz(*args, **kwargs):
        raise graphing.GraphvizError("no dot")

    monkeypatch.setattr(graphing, "render_dot", no_graphviz)
    path = report.draw_plan_graph(plan(MOBILENET), tmp_path / "m", "Color nodes by type")
    assert path.endswith("m.svg") and "<svg" in Path(path).read_text()[:2000]
