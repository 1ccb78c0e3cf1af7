"""A folder of engine folders: summary, lint, compare and report take each engine (in name order,
with a note); a command that takes one engine refuses it with the names it holds.

The folder is made of links to the real A100 ResNet18 FP16 and FP32 exports (24 and 25 layers,
../shared/engines/README.md), whose engine files share one name (resnet.onnx.engine).
"""

from __future__ import annotations

import json
import re

import pytest

import trex
from trex.cli import main
from trex.errors import InputError
from trex.formats.discovery import engine_folders


@pytest.fixture
def runs(engines, tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "fp32").symlink_to(engines / "a100-resnet18-fp32")
    (folder / "fp16").symlink_to(engines / "a100-resnet18-fp16")
    (folder / "notes").mkdir()  # a folder without an engine is not one of them
    (folder / "notes" / "readme.txt").write_text("not an export\n")
    return folder


NOTE = "is a folder of 2 engine folders; each is used, in name order: fp16, fp32"


def test_engine_folders_lists_the_engines_only(runs, engines):
    assert [f.name for f in engine_folders(runs)] == ["fp16", "fp32"]
    assert engine_folders(engines / "a100-resnet18-fp32") == []  # an engine's own folder
    assert engine_folders(runs / "notes" / "readme.txt") == []


def test_summary_and_lint_take_each_engine(runs, capsys):
    assert main(["summary", str(runs), "--top", "1"]) == 0
    captured = capsys.readouterr()
    assert f"note: {runs} {NOTE}" in captured.err
    assert [int(n) for n in re.findall(r"^Layers\s+(\d+)$", captured.out, flags=re.M)] == [25, 24]
    assert main(["lint", str(runs), "-f", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [r["engine"] for r in report] == ["resnet.onnx.engine"] * 2 and len(report) == 2


def test_compare_takes_them_in_name_order_but_the_gate_wants_them_named(runs, capsys):
    assert main(["compare", str(runs), "-f", "json", "--top", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [e["label"] for e in data["engines"]] == ["fp16", "fp32"]
    assert [e["layers"] for e in data["engines"]] == [25, 24]
    assert main(["compare", str(runs), "--fail-if-slower", "5"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"trex compare: error: {runs} is a folder of engine folders") \
        and "name them (trex compare BASE NEW --fail-if-slower PCT)" in err and "\n" not in err


def test_report_takes_each_engine(runs, tmp_path, capsys):
    pytest.importorskip("plotly")
    out = tmp_path / "runs.html"
    assert main(["report", str(runs), "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert NOTE in captured.err and "(2 engines, 49 layers" in captured.out
    assert out.is_file()


def test_one_engine_commands_refuse_with_the_names(runs, tmp_path, capsys):
    assert main(["draw", str(runs), "-o", str(tmp_path / "x.svg")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"trex draw: error: {runs}: is a folder of 2 engine folders (fp16, fp32), not an "
                   f"engine: name one of them ({runs / 'fp16'})")
    with pytest.raises(InputError, match="folder of 2 engine folders"):
        trex.EnginePlan.from_path(runs)
    empty = tmp_path / "empty"
    (empty / "sub").mkdir(parents=True)
    with pytest.raises(InputError, match="no layer-information file"):
        trex.EnginePlan.from_path(empty)
