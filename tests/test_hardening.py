"""Hostile inputs stay data in every output (spreadsheets, terminals, file names), extreme numbers
never crash a view and numeric options are checked. Archives: test_hardening_archive.py; plotly
text in a browser: test_hardening_plotly.py.

Every test starts from a real engine of the shared folder, mutated inside the test.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import shutil
import unicodedata
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest

import trex
from trex.cli import main
from trex.formats.archive import write_archive
from trex.safety import atomic_write, safe_filename, spreadsheet_cell, terminal_text

warnings.simplefilter("ignore", trex.TrexWarning)

MOBILENET = "trex-mobilenet-qat"
PREFIX = "mobilenet.qat.onnx.engine"
MNIST_BUILD_LOG = "trt10.16-mnist-fp32/result-02.log"
# OWASP's CSV-injection payloads, and a bare URL (xlsx writers turn those into hyperlinks).
FORMULAS = ["=cmd|' /C calc'!A0", '=HYPERLINK("http://x","y")', "+1", "@SUM(A1)",
            "http://evil.example", "-2+3", "\tTAB", "\rCR"]
# Terminal attacks: clear screen + window title, carriage return, NUL, an OSC-8 hyperlink, a bidi
# override, a C1 CSI, a tab.
TERMINAL = ["\x1b[2J\x1b]0;pwned\x07title", "cr\roverwrite", "nul\x00byte",
            "\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\", "bidi\u202eexe.txt",
            "c1\x9b31mred", "tab\there"]


def hostile_engine(engines: Path, target: Path, names: list[str], every_layer: bool = False,
                   graph_edit: Any = None, profile_edit: Any = None, timing_edit: Any = None
                   ) -> Path:
    """The MobileNet QAT engine copied to ``target`` with its layers renamed to ``names`` (from the
    second layer on; with ``every_layer``, every layer cycles through them); returns the folder."""
    target.mkdir(parents=True, exist_ok=True)
    for f in (engines / MOBILENET).iterdir():
        shutil.copyfile(f, target / f.name)
    graph_path, profile_path = target / f"{PREFIX}.graph.json", target / f"{PREFIX}.profile.json"
    graph, profile = json.loads(graph_path.read_text()), json.loads(profile_path.read_text())
    renamed = {}
    layers = graph["Layers"] if every_layer else graph["Layers"][1:1 + len(names)]
    for i, layer in enumerate(layers):
        new = names[i % len(names)] + (f"#{i}" if i >= len(names) else "")
        renamed[layer["Name"]] = layer["Name"] = new
    for row in profile:
        if isinstance(row, dict) and row.get("name") in renamed:
            row["name"] = renamed[row["name"]]
    for path, data, edit in ((graph_path, graph, graph_edit), (profile_path, profile, profile_edit)):
        if edit:
            edit(data)
        path.write_text(json.dumps(data))
    if timing_edit:
        timing_path = target / f"{PREFIX}.timing.json"
        timing = json.loads(timing_path.read_text())
        timing_edit(timing)
        timing_path.write_text(json.dumps(timing))
    return target


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def strict_json(text: str) -> Any:
    """Parse JSON as a strict reader does: NaN and Infinity are errors."""
    def refuse(token: str) -> Any:
        raise ValueError(f"non-standard JSON number {token}")
    return json.loads(text, parse_constant=refuse)


# ------------------------------------------------------------------------------ the functions
def test_safety_functions():
    assert terminal_text("a\x1b[31mb\rc\x00d\u202ee\x9bf\tg\u2028h") == \
        "a\\x1b[31mb\\rc\\x00d\\u202ee\\x9bf\\tg\\u2028h"
    assert terminal_text("a\nb") == "a\\nb" and terminal_text("a\nb", keep_newlines=True) == "a\nb"
    assert terminal_text("Conv_12 + PWN(Clip) é 日本") == "Conv_12 + PWN(Clip) é 日本"
    assert terminal_text("\udcff") == "\\udcff"  # an undecodable byte, shown instead of crashing
    assert [spreadsheet_cell(v) for v in FORMULAS] == [
        "'=cmd|' /C calc'!A0", "'=HYPERLINK(\"http://x\",\"y\")", "'+1", "'@SUM(A1)",
        "http://evil.example", "'-2+3", "'\tTAB", "'\rCR"]
    assert spreadsheet_cell(-5.0) == -5.0 and spreadsheet_cell("a=b") == "a=b"
    for name, expected in (("../../x", "x"), ("/abs/dir/x", "x"), ("..", "engine"), ("", "engine"),
                           ("a\\b\\..\\c", "c"), ("x\x1b[31m\ny", "x_[31m_y"), ("a..b", "a.b"),
                           ("-rf", "_rf"), ("CON", "_CON"), ('a<b>:"c"|?*', "a_b___c____"),
                           (None, "engine")):
        assert safe_filename(name) == expected, name
    long = safe_filename("é" * 300)
    assert len(long.encode()) <= 120 and long == "é" * 60


def test_atomic_write_never_leaves_a_truncated_file(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_write(target) as fh:
        fh.write("half")
        raise RuntimeError("disk full")
    with pytest.raises(KeyboardInterrupt), atomic_write(target, "wb") as fh:
        fh.write(b"half")
        raise KeyboardInterrupt
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["out.json"]
    with atomic_write(target) as fh:
        fh.write("new")
    assert target.read_text() == "new" and os.listdir(tmp_path) == ["out.json"]
    mask = os.umask(0o022)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask


# ------------------------------------------------------------------------------ spreadsheets
def test_excel_summary_stores_formulas_and_urls_as_text(engines, tmp_path):
    openpyxl = pytest.importorskip("openpyxl") if not os.environ.get("CI") else __import__("openpyxl")
    folder = hostile_engine(engines, tmp_path / "e", FORMULAS)
    plan = trex.EnginePlan.from_path(folder)
    path = tmp_path / "evil.xlsx"
    with trex.ExcelSummary(plan, path) as xl:
        xl.generate_default_summary(save=False)
    book = openpyxl.load_workbook(path)
    values, quoted = set(), set()
    for ws in book.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                assert cell.data_type != "f", (ws.title, cell.coordinate, cell.value)
                assert cell.hyperlink is None, (ws.title, cell.coordinate)
                value = _ooxml_text(cell.value)
                values.add(value)
                if cell.quotePrefix:
                    quoted.add(value)
    assert set(FORMULAS) <= values  # the data itself, unchanged
    assert {v for v in FORMULAS if not v.startswith("http")} <= quoted  # marked as text
    plan_rows = list(book["Plan"].iter_rows(min_row=4, values_only=True))
    assert [_ooxml_text(r[0]) for r in plan_rows][1:9] == FORMULAS
    assert all(isinstance(r[4], float) for r in plan_rows)  # latencies stay numbers
    with zipfile.ZipFile(path) as zf:
        for name in zf.namelist():
            text = zf.read(name)
            if name.startswith("xl/worksheets/sheet"):
                assert b"<f>" not in text and b"<f " not in text, name
            assert b"hyperlink" not in text, name


def _ooxml_text(value: Any) -> Any:
    """Control characters as Excel reads them (xlsx stores CR as ``_x000D_``; openpyxl keeps that)."""
    if not isinstance(value, str):
        return value
    return re.sub(r"_x([0-9A-Fa-f]{4})_", lambda m: chr(int(m.group(1), 16)), value)


def _csv_cells(text: str) -> list[str]:
    rows = csv.reader(io.StringIO(text, newline=""))
    return [c for row in rows if row and not row[0].startswith("# ") for c in row]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _assert_neutralised(cells: list[str], expected: list[str]) -> None:
    for cell in cells:
        assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")) or _is_number(cell), cell
    for name in expected:
        assert any(c.startswith("'" + name) for c in cells), name


@pytest.mark.parametrize("verb", ["summary", "compare", "lint", "tactics"])
def test_csv_outputs_neutralise_formulas(engines, tmp_path, capsys, verb):
    folder = hostile_engine(engines, tmp_path / "e", FORMULAS, every_layer=True)
    other = engines / "trex-mobilenet-v2-residuals-qat"
    dangerous = [v for v in FORMULAS if not v.startswith("http")]
    if verb == "tactics":
        log = (engines / MNIST_BUILD_LOG).read_text()
        log = log.replace("node_max_pool2d_1", FORMULAS[0]).replace("node_max_pool2d", FORMULAS[3])
        (tmp_path / "build.log").write_text(log)
        args, dangerous = [tmp_path / "build.log", "-s", "layers"], [FORMULAS[0], FORMULAS[3]]
    else:
        args = {"summary": [folder, "--top", "72"], "compare": [other, folder, "--top", "0"],
                "lint": [folder]}[verb]
    code, out, _ = cli(capsys, verb, *args, "-f", "csv")
    assert code == 0
    cells = _csv_cells(out)
    _assert_neutralised(cells, dangerous)
    if verb == "compare":  # negative numbers stay numbers
        assert any(re.fullmatch(r"-\d+\.\d+(e-\d+)?", c) for c in cells)
    code, raw, _ = cli(capsys, verb, *args, "-f", "csv", "--raw-csv")
    assert code == 0 and all(any(c.startswith(name) for c in _csv_cells(raw)) for name in dangerous)


# ------------------------------------------------------------------------------ terminals
def _assert_no_controls(text: str) -> None:
    bad = {c for c in text if c != "\n" and unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")}
    assert not bad, sorted(bad)


@pytest.mark.parametrize("verb", ["summary", "lint", "compare", "tactics"])
def test_tables_show_control_characters_as_escapes(engines, tmp_path, capsys, verb):
    def extra_profile_row(profile):  # an unmatched profile row: its name goes into a warning
        profile.append({"name": TERMINAL[0] + "-orphan", "timeMs": 1.0, "averageMs": 0.001,
                        "medianMs": 0.001, "percentage": 0.1})

    folder = hostile_engine(engines, tmp_path / "e", TERMINAL, every_layer=True,
                            profile_edit=extra_profile_row)
    if verb == "tactics":
        log = (engines / MNIST_BUILD_LOG).read_text()
        log = log.replace("node_max_pool2d_1", TERMINAL[3]).replace("node_max_pool2d", TERMINAL[0])
        (tmp_path / "build.log").write_text(log)
        args = [tmp_path / "build.log", "-s", "layers"]
    else:
        args = {"summary": [folder, "--top", "72"], "lint": [folder],
                "compare": [engines / "trex-mobilenet-v2-residuals-qat", folder, "--top", "0"]}[verb]
    code, out, err = cli(capsys, verb, *args)
    assert code == 0
    _assert_no_controls(out)
    _assert_no_controls(err)
    assert "\\x1b]8;;http://evil.example\\x1b\\link" in out  # the OSC-8 link, visible and inert
    if verb in ("summary", "compare"):
        for shown in ("\\x1b[2J\\x1b]0;pwned\\x07title", "cr\\roverwrite", "nul\\x00byte",
                      "bidi\\u202eexe.txt", "c1\\x9b31mred", "tab\\there"):
            assert shown in out, shown
        assert "\\x1b[2J\\x1b]0;pwned\\x07title-orphan" in err  # the warning naming the row


# ------------------------------------------------------------------------------ file names
HOSTILE_NAMES = ["../../x", "/abs/dir/x", "..", "\x1b[31mred\nline", "a" * 400, "", "-rf *"]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_default_output_names_stay_in_the_current_folder(engines, tmp_path, capsys, monkeypatch,
                                                         name):
    folder = hostile_engine(engines, tmp_path / "e", ["../layer/" + TERMINAL[0], "/etc/passwd"])
    if name.startswith("/abs"):
        name = str(tmp_path / "abs" / "dir" / "x")
        (tmp_path / "abs" / "dir").mkdir(parents=True)
    tea = write_archive(folder, tmp_path / "engine.tea", name=name)
    cwd = tmp_path / "cwd" / "deeper"
    cwd.mkdir(parents=True)
    monkeypatch.chdir(cwd)
    for args in (["timeline", tea], ["draw", tea, "--layout", "layered"],
                 ["report", tea, "--names", name or "x"]):  # without --names: the .tea's name
        code, out, err = cli(capsys, *args)
        assert code == 0, err
        written = re.search(r"Created file://(.+?) \(", out).group(1)
        assert Path(written).parent == cwd, (args, written)
        base = Path(written).name
        assert len(base.encode()) <= 255 and ".." not in base.replace("...", "")
        assert not any(unicodedata.category(c).startswith("C") for c in base)
        Path(written).unlink()
    everything = [p for p in tmp_path.rglob("*") if p.is_file() and "cwd" not in p.parts]
    assert not [p for p in everything if p.name.endswith((".trace.json", ".svg", ".html"))]
    assert os.listdir(cwd) == []


def test_a_huge_engine_name_costs_linear_time_and_capped_lines(engines, tmp_path, capsys,
                                                              monkeypatch):
    """A .tea whose manifest names the engine with 260,000 characters: the default file name is
    cut once (safe_filename took minutes, trimming a character per pass and re-encoding all),
    and no warning, header or message line echoes more than about 2,000 characters."""
    import time

    tea = write_archive(engines / MOBILENET, tmp_path / "big.tea", name="é" * 260_000)
    monkeypatch.chdir(tmp_path)
    start = time.perf_counter()
    code, out, err = cli(capsys, "timeline", tea)
    assert code == 0 and time.perf_counter() - start < 20, err[-500:]
    written = Path(re.search(r"Created file://(.+?) \(", out).group(1))
    assert len(written.name.encode()) <= 120 + len(".trace.json") and written.is_file()
    for verb in ("summary", "lint"):
        code, out, err = cli(capsys, verb, tea)
        assert code == 0
        assert max(len(line) for line in (out + err).splitlines()) < 2200
        assert "more characters)" in out.splitlines()[0]  # the header, cut in the middle
    start = time.perf_counter()
    assert safe_filename("日" * 520_000) == "日" * 40  # 120 bytes
    assert time.perf_counter() - start < 0.5


# ------------------------------------------------------------------------------ extreme numbers
def test_timeline_with_huge_times_writes_strict_json(engines, tmp_path, capsys):
    def huge_timing(timing):
        timing[0].update(endComputeMs=1e308, latencyMs=1e308)
        timing[1].update(endEnqMs=float("inf"))

    def huge_profile(profile):
        profile[2].update(averageMs=1e308, timeMs=1e308, medianMs=1e308)

    folder = hostile_engine(engines, tmp_path / "e", [], profile_edit=huge_profile,
                            timing_edit=huge_timing)
    out = tmp_path / "trace.json"
    out.write_text("previous trace")
    code, _, err = cli(capsys, "timeline", folder, "-o", out)
    assert code == 0, err
    trace = strict_json(out.read_text())
    assert all(math.isfinite(e.get("ts", 0.0)) and math.isfinite(e.get("dur", 0.0))
               for e in trace["traceEvents"])
    assert trace["otherData"]["iterations"] > 8000 and trace["otherData"]["layers"] == 72
    assert sorted(os.listdir(tmp_path)) == ["e", "trace.json"]  # no temporary file left beside it
    # a bare --exportTimes file (no model around it): an absurd start does not move time zero
    records = json.loads((folder / f"{PREFIX}.timing.json").read_text())[:50]
    records[3]["startComputeMs"] = -1e308
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "times.json").write_text(json.dumps(records))
    code, _, err = cli(capsys, "timeline", tmp_path / "bare" / "times.json", "-o", out)
    assert code == 0, err
    events = strict_json(out.read_text())["traceEvents"]
    # enqueue and compute of 48+ records (all inside trtexec's 200 ms warm-up: named so)
    assert len([e for e in events if e.get("cat") in ("iteration", "warmup")]) >= 2 * 48
    assert min(e["ts"] for e in events if "ts" in e) == 0.0


def test_views_tolerate_huge_dimensions_list_types_and_deep_attributes(engines, tmp_path, capsys):
    def edit(graph):
        layers = graph["Layers"]
        # each dimension fits int64 (the model keeps them), their products do not
        layers[1]["Inputs"][0]["Dimensions"] = [2**40, 3, 224, 224]
        layers[1]["Outputs"][0]["Dimensions"] = [2**40, 32, 2**20, 112]
        layers[2]["ParameterType"] = ["Convolution"]  # unhashable type
        deep: list = []
        for _ in range(500):
            deep = [deep]
        layers[3]["Deep"] = deep  # (not a text field: those read a list as missing)

    folder = hostile_engine(engines, tmp_path / "e", [], graph_edit=edit)
    plan = trex.EnginePlan.from_path(folder)
    roofline = trex.compute.roofline(plan)
    assert roofline["macs"].isna().iloc[1] and roofline["M"].isna().iloc[1]
    assert roofline["macs"].notna().sum() > 40
    assert (roofline["bytes"] >= 0).all() and roofline["bytes"].iloc[1] < 2**63
    assert len(trex.compute.annotate_convolutions(plan)) in (52, 53)  # the list type: kept or read
    report = tmp_path / "r.html"
    code, _, err = cli(capsys, "report", folder, "-o", report)
    assert code == 0, err
    data = re.search(r'<script type="application/json" id="trex-data">(.*?)</script>',
                     report.read_text(), re.S).group(1)
    assert "[nested too deep]" in report.read_text()
    strict_json(data)
    code, out, err = cli(capsys, "draw", folder, "-o", tmp_path / "g.svg", "--layout", "layered")
    assert code == 0 and "Created file://" in out, err
    code, out, err = cli(capsys, "summary", folder, "-f", "json")
    assert code == 0 and strict_json(out)[0]["layers"] == 72


def test_numbers_booleans_and_lists_where_text_belongs(engines, tmp_path, capsys):
    """A numeric TacticName (1.5, true, 2**63) crashed lint and report ('float' object has no
    attribute 'strip'); text fields are now read as text, or left out, with one warning."""
    def edit(graph):
        tactics = [layer for layer in graph["Layers"] if "TacticName" in layer]
        for layer, value in zip(tactics, [1.5, True, 2**63, [1], None]):
            layer["TacticName"] = value
        graph["Layers"][5]["ParameterSubType"] = {"a": 1}
        graph["Layers"][6]["Inputs"][0]["Location"] = 7

    folder = hostile_engine(engines, tmp_path / "e", [], graph_edit=edit)
    plan = trex.EnginePlan.from_path(folder)
    tactics = [layer.raw_dict.get("TacticName") for layer in plan.layers
               if layer.raw_dict.get("TacticName") is not None]
    assert all(isinstance(t, str) for t in tactics) and {"1.5", "True", str(2**63)} <= set(tactics)
    warning = next(w for w in plan.warnings if "fields that hold text" in w)
    assert "TacticName (5)" in warning and "ParameterSubType (1)" in warning
    assert "Location (1)" in warning
    for args in (["lint", folder, "-f", "json"], ["report", folder, "-o", tmp_path / "r.html"],
                 ["summary", folder, "-gt"]):
        code, _, err = cli(capsys, *args)
        assert code == 0, err


# ------------------------------------------------------------------------------ numeric options
@pytest.mark.parametrize("args", [
    ["compare", "A", "B", "--fail-if-slower", "nan"], ["compare", "A", "B", "--fail-if-slower", "inf"],
    ["compare", "A", "B", "--fail-if-slower", "-5"], ["compare", "A", "B", "--fail-if-slower", "x"],
    ["draw", "A", "--timeout", "nan"], ["draw", "A", "--timeout", "inf"], ["draw", "A", "--timeout", "0"],
    ["draw", "A", "-b", "conv,-1"], ["summary", "A", "--top", "-1"], ["summary", "A", "--top", "1e3"],
    ["compare", "A", "B", "--top", "-2"], ["tactics", "A", "--top", "-1"],
    ["timeline", "A", "--max-iterations", "-3"], ["summary", "A", "--profile-id", "-1"],
    ["lint", "A", "--profile-id", "nan"], ["process", "m.onnx", "out", "--power-limit", "nan"],
    ["process", "m.onnx", "out", "--monitor-interval", "0"], ["process", "m.onnx", "out", "--device", "-1"],
    ["draw", "A", "--timeout", "2147484"], ["draw", "A", "--timeout", "1e7"],
    ["summary", "A", "--top", "1e40"], ["timeline", "A", "--max-iterations", str(2**64)],
])
def test_numeric_options_are_checked(capsys, args):
    with pytest.raises(SystemExit) as info:
        main(args)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert re.search(r"error: argument [-\w/ ]+: (expected (an integer|a finite number)|beam must)",
                     err), err


def test_draw_waits_up_to_the_platforms_longest_timeout(engines, plan, tmp_path, capsys):
    """Up to 2,147,483 s (poll()'s milliseconds in a C int) Graphviz is waited for; beyond, the
    option and the API refuse the value (it used to raise OverflowError from subprocess)."""
    out = tmp_path / "g.svg"
    code = main(["draw", str(engines / "a100-resnet18-fp32"), "--timeout", "2147483",
                 "--layout", "dot", "-o", str(out)])
    assert code == 0 and out.read_text().startswith("<?xml"), capsys.readouterr().err
    with pytest.raises(ValueError, match="up to 2,147,483"):
        trex.graph.draw_plan(plan("a100-resnet18-fp32"), tmp_path / "h.svg", timeout=2147484)


def test_more_than_26_engines_are_labelled_aa_ab_without_pandas_warnings(engines, plan, capsys):
    """28 engines: the comparison names them A ... Z, AA, AB (the report's page too, where the
    27th was '['), and pandas never warns (a fragmented frame gave 60 PerformanceWarnings)."""
    import pandas as pd

    from trex.compare import (
        align_plans,
        compare_by_precision,
        compare_by_type,
        compare_layers,
        compare_onnx_nodes,
    )
    from trex.html_report.page import page_script
    from trex.html_report.payload import report_payload

    plans, single = [plan("trt10.4-alexnet-fp16")] * 28, plan("trt8.5-names-only-single")
    names = [f"e{k}" for k in range(28)]
    with warnings.catch_warnings():
        for category in (pd.errors.PerformanceWarning, FutureWarning, DeprecationWarning):
            warnings.simplefilter("error", category)
        alignment = align_plans(plans, names=names)
        for view in (compare_by_type(plans, names), compare_onnx_nodes(plans, names),
                     compare_by_precision(plans, names, alignment=alignment),
                     compare_layers(plans, names, alignment=alignment)):
            assert "e27 ms" in view.columns and view.columns.is_unique
        payload, _ = report_payload([single] * 28, names)
    assert [e["letter"] for e in payload["engines"]][24:] == ["Y", "Z", "AA", "AB"]
    assert "fromCharCode(65" not in page_script()
    code = main(["compare", *[str(engines / "trt8.5-names-only-single")] * 28, "--top", "1"])
    out, err = capsys.readouterr()
    assert code == 0 and "Warning" not in err
    assert re.search(r"^AB\s", out, re.M) and not re.search(r"^\[\s", out, re.M)


def test_regression_gate_refuses_a_nan_limit(plan):
    plans = [plan("a100-resnet18-fp16"), plan("a100-resnet18-fp32")]
    for limit in (math.nan, math.inf, -5.0):
        with pytest.raises(ValueError, match="finite percentage"):
            trex.compare.check_regression(plans, limit)


def test_routes_tables_and_csv(tmp_path, capsys):
    """``trex routes`` (no public tuning cache exists: test_routes.py's synthetic sweep) with a
    crash message that is both a formula and a terminal attack."""
    from test_routes import ITERATIONS, header, write

    iterations = [dict(it) for it in ITERATIONS]
    iterations[4]["error_message"] = FORMULAS[0] + TERMINAL[3]
    cache = write(tmp_path / "routes.jsonl", [header(), *iterations])
    code, out, err = cli(capsys, "routes", cache)
    assert code == 0
    _assert_no_controls(out + err)
    assert "\\x1b]8;;http://evil.example\\x1b\\link" in out
    code, out, _ = cli(capsys, "routes", cache, "-f", "csv")
    assert code == 0
    _assert_neutralised(_csv_cells(out), [FORMULAS[0], "-sliceFusion=off"])
