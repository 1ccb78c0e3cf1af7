"""``make demo``'s steps (examples/demo.py, through the ``trex`` CLI) on the engines shipped in examples/.

The three ResNet18 Q/DQ engines of NVIDIA's TREx walkthrough have 12, 3 and 1 reformat layers
(../shared/engines/README.md): the printed findings and both HTML reports must say so.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from helpers import require_module

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ENGINE_NAMES = ["resnet-qat.onnx.engine", "resnet-qat-residual.onnx.engine",
                "resnet-qat-residual-qgap.onnx.engine"]


def _demo():
    import importlib.util
    import sys

    name = "trex_examples_demo"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, EXAMPLES / "demo.py")
        sys.modules[name] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules[name]


def _payload(html: str) -> dict:
    found = re.search(r'<script type="application/json" id="trex-data">(.*?)</script>', html, re.S)
    assert found, "no report data block"
    return json.loads(found.group(1))


def _count(table: dict, column: str, type_: str = "Reformat") -> int:
    rows = {r[0]: dict(zip(table["columns"], r)) for r in table["rows"]}
    return rows[type_][column]


def test_shipped_examples_are_the_shared_engines(engines):
    """examples/ carries NVIDIA's files unchanged (the attribution in examples/NOTICE says so)."""
    demo = _demo()
    for folder in demo.ENGINES.values():
        shared = engines / folder.name
        files = sorted(p.name for p in folder.iterdir())
        assert files == sorted(p.name for p in shared.iterdir()) and len(files) == 6
        assert all((folder / f).read_bytes() == (shared / f).read_bytes() for f in files)
    assert "Apache License, Version 2.0" in (EXAMPLES / "NOTICE").read_text()


def test_demo_prints_summary_findings_and_report_paths(tmp_path, capsys, monkeypatch):
    require_module("plotly")
    demo = _demo()
    monkeypatch.chdir(EXAMPLES.parent)
    assert demo.main(["--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    one, comparison = tmp_path / demo.REPORT, tmp_path / demo.COMPARISON

    # The commands, as a user would type them.
    assert "$ trex summary examples/a100-resnet18-qat --top 3" in out
    assert "$ trex lint examples/a100-resnet18-qat examples/a100-resnet18-qat-residual " \
           "examples/a100-resnet18-qat-residual-qgap --linter reformat-share --linter qdq" in out
    # The summary of the INT8 engine.
    assert "== resnet-qat.onnx.engine ==" in out and re.search(r"Layers\s+35\n", out)
    assert re.search(r"Latency\s+1\.0957 ms \(sum of layer averages\)", out)
    # The reformat story, 12 -> 3 -> 1, from the reformat-share linter, engine by engine.
    assert re.findall(r"== (\S+): \d+ findings", out) == ENGINE_NAMES
    assert [int(n) for n in re.findall(r"reformats=(\d+), layers=", out)] == [12, 3, 1]
    assert "Reformat layers take 25.4 %" in out and "QuantizeLinear_15" in out
    # ... 25.4 % -> 15.8 % -> 14.2 % of the latency, as the README says.
    assert [float(x) for x in re.findall(r"Reformat layers take ([\d.]+) %", out)] == [25.4, 15.8, 14.2]
    # The two reports, printed as file:// links at the end.
    assert out.rstrip().endswith(f"one engine:  {one.as_uri()}\n  comparison:  {comparison.as_uri()}")

    single = _payload(one.read_text(encoding="utf-8"))
    assert [e["name"] for e in single["engines"]] == ENGINE_NAMES[:1]
    assert _count(single["engines"][0]["by_type"], "count") == 12
    both = _payload(comparison.read_text(encoding="utf-8"))
    assert [e["name"] for e in both["engines"]] == ENGINE_NAMES
    assert both["comparison"]["names"] == ["qat", "qat-residual", "qat-residual-qgap"]
    by_type = both["comparison"]["by_type"]
    assert [_count(by_type, f"{n} layers") for n in both["comparison"]["names"]] == [12, 3, 1]
