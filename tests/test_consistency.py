"""One fact, one value, in every output (issue 20): for every engine in ../shared/engines, the
headline and derived figures read back from ``trex summary``/``compare``/``lint`` JSON, the HTML
report's embedded data, the Excel workbook and the notebook functions equal the model's facts.

The model's figures themselves are checked against what TensorRT printed in
test_derived_figures.py and test_timings.py; this file checks that no output computes them again
another way.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path

import pytest

import trex
from helpers import require_module
from trex.cli import main
from trex.html_report import write_report
from trex.model.facts import engine_facts
from trex.onnx_map import latency_by_onnx_node, latency_by_onnx_op
from trex.summary import latency_by_precision, latency_by_type

warnings.simplefilter("ignore", trex.TrexWarning)
BASELINE = "a100-resnet18-qat"  # the first engine of every comparison


def _engine_folders(engines: Path) -> list[Path]:
    out = []
    for folder in sorted(p for p in engines.iterdir() if p.is_dir()):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                trex.EnginePlan.from_path(folder)
        except trex.TrexError:
            continue
        out.append(folder)
    return out


def _same(a, b, what) -> None:
    """Equal figures; floats to 1e-9 relative (JSON round trips), None/NaN alike."""
    if isinstance(a, float) or isinstance(b, float):
        if a is None or b is None:
            assert a is None and b is None or (a is None and math.isnan(b)) \
                or (b is None and math.isnan(a)), what
            return
        if math.isnan(a) or math.isnan(b):
            assert math.isnan(a) and math.isnan(b), what
            return
        assert a == pytest.approx(b, rel=1e-9, abs=1e-12), what
        return
    assert a == b, what


def _rows(table: list[dict], key: str) -> dict:
    return {row[key]: row for row in table}


def _check_groups(rows: list[dict], frame, key: str, where: str) -> None:
    """A per-type/per-precision table equals the model's, row by row (NaN/None alike)."""
    got = _rows(rows, key)
    assert set(got) == set(frame[key]), where
    for row in frame.to_dict("records"):
        out = got[row[key]]
        for column in ("count", "timed", "latency_ms", "latency_pct"):
            _same(out[column], row[column], (where, row[key], column))


def _report_data(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    match = re.search(r'<script type="application/json" id="trex-data">(.*?)</script>', text, re.S)
    assert match, path
    return json.loads(match.group(1))


def _frame_rows(frame: dict) -> list[dict]:
    return [dict(zip(frame["columns"], row)) for row in frame["rows"]]


@pytest.fixture(scope="module")
def folders(engines: Path) -> list[Path]:
    found = _engine_folders(engines)
    assert len(found) >= 15
    return found


def test_every_output_says_the_same(engines, folders, tmp_path, capsys):
    openpyxl = require_module("openpyxl")
    from trex.excel import ExcelSummary

    for folder in folders:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plan = trex.EnginePlan.from_path(folder)
        facts = engine_facts(plan)
        by_type, by_precision = latency_by_type(plan), latency_by_precision(plan)
        where = folder.name

        # trex summary --format json
        assert main(["summary", str(folder), "--format", "json"]) == 0
        summary = json.loads(capsys.readouterr().out)[0]
        _same(summary["average_time_ms"], None if facts.latency_ms is None
              else round(facts.latency_ms, 6), (where, "summary latency"))
        for key in ("gpu_compute_median_ms", "latency_median_ms", "throughput_qps",
                    "weights_bytes", "weights_not_exported", "outputs", "inputs",
                    "activations_bytes", "precision_mix", "math_mix"):
            _same(summary[key], getattr(facts, key), (where, "summary", key))
        _check_groups(summary["by_type"], by_type, "type", (where, "summary by_type"))
        _check_groups(summary["by_precision"], by_precision, "precision",
                      (where, "summary by_precision"))

        # trex compare --format json (this engine against the baseline)
        baseline = engines / BASELINE
        assert main(["compare", str(baseline), str(folder), "--format", "json", "--top", "0",
                     "--names", f"base,{'this' if folder != baseline else 'same'}"]) == 0
        compared = json.loads(capsys.readouterr().out)
        mine = compared["engines"][1]
        for key in ("latency_ms", "gpu_compute_median_ms", "throughput_qps", "weights_bytes",
                    "outputs", "timed_layers", "profiling"):
            _same(mine[key], getattr(facts, key), (where, "compare", key))
        name = mine["label"]
        types = _rows(compared["by_type"], "type")
        for row in by_type.to_dict("records"):
            _same(types[row["type"]][f"{name} ms"], row["latency_ms"], (where, "compare type"))
            assert types[row["type"]][f"{name} layers"] == row["count"], where
        nodes = latency_by_onnx_node(plan).set_index("onnx_node")["latency_ms"].to_dict()
        for row in compared["onnx_nodes"]:
            value = row.get(f"{name} ms")
            if value is not None:
                _same(value, nodes[row["onnx_node"]], (where, "compare onnx node"))

        # trex lint --format json: a layer's share in the evidence is the df's
        assert main(["lint", str(folder), "--format", "json"]) == 0
        lint = json.loads(capsys.readouterr().out)[0]
        pct = dict(zip(plan.df["Name"], plan.df["latency.pct_time"]))
        avg = dict(zip(plan.df["Name"], plan.df["latency.avg_time"]))
        checked = 0
        for finding in lint["findings"]:
            evidence, layer = finding["evidence"], finding["layer"]
            # a finding about one layer's time (a chain's evidence sums several layers)
            if layer in avg and evidence.get("latency_ms") == round(avg[layer], 4):
                assert evidence["latency_pct"] == round(pct[layer], 2), (where, finding["linter"])
                checked += 1
        assert checked or not plan.has_profile or not lint["findings"] or not plan.detailed, where

        # the HTML report's embedded data
        html = tmp_path / f"{folder.name}.html"
        write_report(plan, html)
        data = _report_data(html)["engines"][0]
        head = data["headline"]
        _same(head["average_time_ms"], summary["average_time_ms"], (where, "report latency"))
        for key in ("gpu_compute_median_ms", "weights_bytes", "outputs", "precision_mix",
                    "weights_not_exported"):
            _same(head[key], getattr(facts, key), (where, "report", key))
        gap = data["timings"]["layer_gap"]
        if facts.gpu_compute_median_ms is not None and facts.latency_ms is not None:
            _same(gap["measured_ms"], facts.gpu_compute_median_ms, (where, "report gap"))
            _same(gap["sum_of_layers_ms"], facts.latency_ms, (where, "report gap sum"))
        _check_groups(_frame_rows(data["by_type"]), by_type, "type", (where, "report by_type"))
        layers_pct = data["layers"]["pct"]
        for ours, theirs in zip(layers_pct, plan.df["latency.pct_time"]):
            _same(ours if ours is not None else math.nan, float(theirs), (where, "report pct"))
        ops = _rows(_frame_rows(data["onnx_ops"]), "onnx_op")
        for row in latency_by_onnx_op(plan).to_dict("records"):
            _same(ops[row["onnx_op"]]["latency_ms"], row["latency_ms"], (where, "report onnx op"))

        # the Excel workbook
        xlsx = tmp_path / f"{folder.name}.xlsx"
        ExcelSummary(plan, path=xlsx).generate_default_summary()
        book = openpyxl.load_workbook(xlsx)
        model = {r[1]: r[2] for r in book["Summary"].iter_rows(values_only=True)
                 if r[0] == "Model"}
        _same(model.get("average_time_ms"), summary["average_time_ms"], (where, "excel latency"))
        _same(model.get("weights_bytes"), facts.weights_bytes, (where, "excel weights"))
        rows = list(book["Latency by type"].iter_rows(values_only=True))
        header = rows.index(("type", "count", "timed", "latency_ms", "latency_pct"))
        excel_types = {r[0]: r for r in rows[header + 1:] if r[0] is not None}
        for row in by_type.to_dict("records"):
            got = excel_types[row["type"]]
            assert got[1] == row["count"] and got[2] == row["timed"], where
            _same(math.nan if got[3] is None else got[3], row["latency_ms"], (where, "excel ms"))

        # the notebook functions
        trex_summary = trex.summary_dict(plan)
        expected = "–" if facts.latency_ms is None else f"{facts.latency_ms:.3f} ms"
        assert trex_summary["Average time"] == expected, where
        from trex import figures as report

        figure = report.perf_overview_figures(plan)["Latency per layer type (ms)"]
        bars = {trace.y[0]: trace.x[0] for trace in figure.data}
        assert set(bars) == set(by_type["type"]), where
        for row in by_type.to_dict("records"):
            _same(float(bars[row["type"]]), row["latency_ms"], (where, "report card"))
