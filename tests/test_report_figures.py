"""The report's figures (:mod:`trex.figures.plain`, no plotly objects) are the notebook's plotly
figures as ``figure_json`` writes them: the same JSON text, on every real engine."""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
import pytest

import trex
from helpers import require_module
from test_html_report import make_hostile_engine
from trex import figures as notebook
from trex.figures import plain
from trex.figures._common import columns_frame
from trex.figures.frames import group_count
from trex.figures.plotting import plotly_pie2
from trex.graph.colors import precision_colormap
from trex.html_report.figures import MAX_SVG_MARKERS, engine_figures, figure_json
from trex.html_report.page import json_for_script

require_module("plotly")


def plotly_figures(plan: trex.EnginePlan) -> dict[str, str]:
    """Each report figure built by the notebook's plotly builders, as the page's JSON text."""
    perf = notebook.perf_overview_builders(plan)
    memory = notebook.memory_footprint_builders(plan)

    def counts():
        return plotly_pie2(None, [(group_count(columns_frame(plan, ["precision"]), "precision"),
                                   "Layer count by precision", "count", "precision")],
                           colormap=precision_colormap)

    builders = {
        "latency_by_type": lambda: perf["Latency per layer type (ms)"](title=None),
        "count_by_type": lambda: perf["Count per layer type"](title=None),
        "precision_rollup": (lambda: perf["Precision rollup"](title=None)) if plan.has_profile
        else counts,
        "precision_per_type": lambda: perf["Precision per layer type"](),
        "latency_distribution": lambda: perf["Layer latency distribution"](title=None),
        "weights_distribution": lambda: memory["Weights footprint distribution per layer"](
            title=None),
        "activations_distribution": lambda: memory[
            "Activations footprint distribution per layer"](title=None),
        "total_distribution": lambda: memory["Total footprint distribution per layer"](title=None),
        "timings": lambda: notebook.engine_timings_figure(plan),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {key: json_for_script(figure_json(build())) for key, build in builders.items()}


def assert_same_figures(plan: trex.EnginePlan) -> int:
    figures = engine_figures(plan)
    reference = plotly_figures(plan)
    built = 0
    for key, entry in figures.items():
        if "error" in entry:
            assert entry["error"].startswith(("no per-layer", "these exports", "precisions are")), entry
            continue
        assert json_for_script(entry["figure"]) == reference[key], (plan.name, key)
        built += 1
    return built


def test_every_real_engine(engines):
    built = 0
    for folder in sorted(p for p in Path(engines).iterdir() if p.is_dir()):
        built += assert_same_figures(trex.EnginePlan.from_path(folder))
    assert built > 50


def test_hostile_names(engines, tmp_path):
    folder, _ = make_hostile_engine(engines, tmp_path)
    assert assert_same_figures(trex.EnginePlan.from_path(folder)) == 9


def test_one_layer_type_and_many_iterations(engines):
    """One bar per chart (no stacking, no legend title); more timed iterations than the page
    draws as markers (a line instead)."""
    plan = trex.EnginePlan.from_path(engines / "a100-resnet18-fp32")
    df = columns_frame(plan, ["Name", "type", "latency.avg_time", "latency.pct_time"])
    one = df[df["type"] == "Convolution"]
    bars = notebook.plotly_bar2(notebook.latency_by_type(one), None, "latency.avg_time", "type",
                                color="type", colormap=notebook.layer_colormap(),
                                orientation="h", show_axis_ticks=(True, True))
    assert json_for_script(plain.bars_by_category(notebook.latency_by_type(one),
                                                  "latency.avg_time", "type")) == \
        json_for_script(figure_json(bars))
    records = notebook.timing_source(plan)
    many = pd.concat([records] * (MAX_SVG_MARKERS // len(records) + 2), ignore_index=True)
    many["iteration"] = range(len(many))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = figure_json(notebook.engine_timings_figure(many))
    built = plain.engine_timings(notebook.timing_source(many), MAX_SVG_MARKERS)
    assert json_for_script(built) == json_for_script(reference)
    assert any(trace.get("line", {}).get("width") == 1 for trace in built["data"])


@pytest.mark.parametrize("n", [1, 2, 3])
def test_donut_grid(engines, n):
    plan = trex.EnginePlan.from_path(engines / "trex-mobilenet-qat")
    df = columns_frame(plan, ["precision", "type"])
    charts = [(group_count(df, "precision"), "Layer count by precision", "count", "precision"),
              (group_count(df, "type"), "Layers per type", "count", "type"),
              (group_count(df, "precision"), "", "count", "precision")][:n]
    assert json_for_script(plain.donuts(charts, precision_colormap)) == json_for_script(
        figure_json(plotly_pie2(None, charts, colormap=precision_colormap)))
