"""Every encoding survives (issue 24, items 3 and 4): lone surrogates (``"\\ud800"`` is valid
JSON), undecodable path bytes (a Latin-1 folder name), C1 and bidi controls in any string field
reach every verb and format, and each output encodes as UTF-8, JSON escapes the controls as the
tables do, and files written parse.

A real export (the INT8 ResNet18 of the shared folder) is mutated in the test: hostile text in
layer names, tactics, types, ONNX metadata, the device, build options; in a real build log for
``tactics``; in a tuning cache for ``routes``; and in the folder's name.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

import trex
from helpers import require_module
from trex.cli import main

QAT = "a100-resnet18-qat"
PREFIX = "resnet-qat.onnx.engine"
BUILD_LOG = "trt10.16-mnist-fp32/result-02.log"
HIDDEN = {"Cc", "Cf", "Zl", "Zp", "Cs"}
# A lone high surrogate, undecodable bytes (as surrogateescape reads them), a bidi override, a
# C1 CSI, DEL, a line separator, an OSC-8 link and a tag character beyond the BMP.
NASTY = "x\ud800-\udce9\u202e\x9b\x7f\u2028\x1b]8;;http://e\x07\U000e0001y"
FIELDS = ("Name", "TacticName", "LayerType", "ParameterType", "Metadata", "device", "precision",
          "model", "route", "log")


def hostile_engine(engines: Path, folder: Path, texts: dict[str, str]) -> Path:
    """The INT8 ResNet18 copied to ``folder`` with ``texts`` in its string fields: written as
    JSON writes them (``\\ud800`` escapes, so that the files themselves are valid)."""
    shutil.copytree(engines / QAT, folder)
    graph_path = folder / f"{PREFIX}.graph.json"
    graph = json.loads(graph_path.read_text())
    layers = graph["Layers"]
    old_name = layers[1]["Name"]
    layers[1]["Name"] = texts["Name"]
    layers[2]["TacticName"] = texts["TacticName"]
    layers[3]["LayerType"] = texts["LayerType"]
    layers[4]["ParameterType"] = texts["ParameterType"]
    layers[5]["Metadata"] = f"[ONNX Layer: {texts['Metadata']}]"
    graph_path.write_text(json.dumps(graph))
    profile_path = folder / f"{PREFIX}.profile.json"
    profile = json.loads(profile_path.read_text())
    for row in profile:
        if isinstance(row, dict) and row.get("name") == old_name:
            row["name"] = texts["Name"]
    profile_path.write_text(json.dumps(profile))
    meta_path = folder / f"{PREFIX}.profile.metadata.json"
    meta = json.loads(meta_path.read_text())
    meta.setdefault("device_information", {})["Selected Device"] = texts["device"]
    meta_path.write_text(json.dumps(meta))
    build_path = folder / f"{PREFIX}.build.metadata.json"
    build = json.loads(build_path.read_text())
    build.setdefault("build_options", {})["Precision"] = texts["precision"]
    build.setdefault("model_options", {})["Model"] = texts["model"]
    build_path.write_text(json.dumps(build))
    return folder


def hostile_inputs(engines: Path, root: Path, texts: dict[str, str], folder_name: str
                   ) -> dict[str, Path]:
    """The engine (in a folder named ``folder_name``), a build log and a tuning cache."""
    from test_routes import ITERATIONS, header, write

    (root / "engines").mkdir()
    engine = hostile_engine(engines, root / "engines" / folder_name, texts)
    log = (engines / BUILD_LOG).read_text().replace("node_max_pool2d", texts["log"])
    (root / "build.log").write_bytes(log.encode("utf-8", "surrogatepass"))  # invalid UTF-8 too
    iterations = [dict(it) for it in ITERATIONS]
    iterations[1]["build_route"] = "-sliceFusion=off -" + texts["route"]
    iterations[4]["error_message"] = texts["route"]
    cache = write(root / "routes.jsonl", [header(), *iterations])
    return {"engine": engine, "log": root / "build.log", "cache": cache}


def check_stream(text: str, fmt: str) -> None:
    """What a verb printed encodes as UTF-8; JSON (and tables) hold no control character."""
    text.encode("utf-8")
    if fmt in ("json", "table"):
        bad = {c for c in text if c != "\n" and unicodedata.category(c) in HIDDEN}
        assert not bad, sorted(bad)
    if fmt == "json":
        json.loads(text)
    elif fmt == "csv":
        rows = list(csv.reader(io.StringIO(text, newline="")))
        assert rows


def run_every_verb(inputs: dict[str, Path], work: Path, capsys) -> None:
    """Every verb in every format on the hostile inputs; each succeeds and its output checks."""
    engine = inputs["engine"]
    runs = []
    for fmt in ("table", "json", "csv"):
        runs += [(fmt, ["summary", engine, "-f", fmt]), (fmt, ["lint", engine, "-f", fmt]),
                 (fmt, ["compare", engine, engine, "-f", fmt, "--top", "5"]),
                 (fmt, ["tactics", inputs["log"], "-f", fmt]),
                 (fmt, ["routes", inputs["cache"], "-f", fmt])]
    for fmt, args in runs:
        code = main([os.fspath(a) for a in args])
        out, err = capsys.readouterr()
        assert code == 0, (args, err[-1500:])
        check_stream(out, fmt)
        check_stream(err, "table")
    name = engine.name
    outputs = {"report": work / f"r{name}.html", "timeline": work / f"t{name}.json",
               "draw": work / f"d{name}.svg"}
    for verb, path in outputs.items():
        extra = ["--layout", "own"] if verb == "draw" else []
        code = main([verb, os.fspath(engine), "-o", os.fspath(path), *extra])
        out, err = capsys.readouterr()
        assert code == 0, (verb, err[-1500:])
        check_stream(out, "table")
        check_stream(err, "table")
    page = outputs["report"].read_text(encoding="utf-8")
    for block in re.findall(r'<script type="application/json" id="trex-[\w-]+">(.*?)</script>',
                            page, re.S):
        json.loads(block)
    json.loads(outputs["timeline"].read_bytes().decode("utf-8"))
    ET.parse(outputs["draw"])
    plan = trex.EnginePlan.from_path(engine)
    book = work / f"x{name}.xlsx"
    with trex.ExcelSummary(plan, book) as xl:
        xl.generate_default_summary(save=False)
    require_module("openpyxl").load_workbook(book)


def test_lone_surrogates_controls_and_latin1_paths_in_every_verb(engines, tmp_path, capsys):
    folder = os.fsdecode(b"caf\xe9-\xff\xfe")  # not UTF-8: read back as surrogate escapes
    inputs = hostile_inputs(engines, tmp_path, dict.fromkeys(FIELDS, NASTY), folder)
    run_every_verb(inputs, tmp_path, capsys)
    code = main(["summary", os.fspath(inputs["engine"]), "-f", "json", "--top", "40"])
    out = capsys.readouterr().out
    assert code == 0
    for escaped in ("\\ud800", "\\udce9", "\\u202e", "\\u009b", "\\u007f", "\\u2028",
                    "\\udb40\\udc01"):  # as JSON escapes, never raw
        assert escaped in out, escaped
    assert json.loads(out)[0]["name"] == PREFIX


CODE_POINTS = st.one_of(
    st.integers(0, 0x10FFFF).map(chr),
    st.sampled_from(["\ud800", "\udfff", "\udc80", "\udcff", "\u202e", "\u2066", "\x9b", "\x85",
                     "\x00", "\x1b", "\x7f", "\u2028", "\ufeff", "\U000e0001", "\r", "\t", "\"",
                     "\\", "<", "&", "=", "/", "."]))
TEXT = st.text(CODE_POINTS, min_size=1, max_size=12)
FOLDER = st.binary(min_size=1, max_size=12).map(
    lambda b: os.fsdecode(b.replace(b"/", b"_").replace(b"\0", b"_").strip(b".") or b"x"))


@pytest.mark.slow
@seed(20241124)
@settings(max_examples=8, deadline=None, derandomize=False,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(texts=st.fixed_dictionaries({field: TEXT for field in FIELDS}), folder=FOLDER)
def test_any_code_point_in_any_string_field_or_path(engines, tmp_path_factory, capsys, texts,
                                                    folder):
    root = tmp_path_factory.mktemp("text")
    inputs = hostile_inputs(engines, root, texts, folder)
    run_every_verb(inputs, root, capsys)
