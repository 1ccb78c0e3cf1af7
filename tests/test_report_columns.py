"""The report's layer columns follow one declaration each (``trex/html_report/layer_columns.py``).

From ``LAYER_COLUMNS`` follow the payload's ``layers`` block, the page's TypeScript declarations
(``assets/js/layer-columns.d.ts``, generated: checked current here) and the layer table's columns
(the spec shipped in the data, drawn by ``35-layer-columns.js``): adding a column is one
declaration (``test_a_new_column_is_one_declaration``; the browser side is in
``test_report_browser.py``).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from trex.html_report import layer_columns as declared
from trex.html_report.column_spec import (
    Column,
    Show,
    check,
    df_column,
    layer_attribute,
    spec,
    table_column,
    typescript,
)
from trex.html_report.columns import decode
from trex.html_report.page import json_for_script
from trex.html_report.payload import layer_columns, report_payload
from trex.onnx_map import layer_nodes

ROOT = Path(__file__).resolve().parents[1]
JS = ROOT / "src" / "trex" / "html_report" / "assets" / "js"
TABLE = ["idx", "name", "type", "precision", "math", "avg", "pct", "weights", "io", "tactic", "onnx"]
BIAS = Column("bias", "bias bytes", df_column("bias_size"), "ints",
              show=Show("Bias", "82px", fit=120, num=True, text="bytes"))


def _plain(values, encoding: str) -> list:
    """A fact's values as the page reads them once decoded (JSON values, "" for missing text)."""
    values = values.tolist() if hasattr(values, "tolist") else list(values)
    if encoding == "floats":
        return [None if v is None or not math.isfinite(v) else float(v) for v in values]
    if encoding == "ints":
        return [int(v) for v in values]
    if encoding == "coded_lists":
        return [[str(x) for x in v] for v in values]
    return ["" if v is None or (isinstance(v, float) and v != v) else str(v) for v in values]


def test_the_page_types_are_generated_from_the_declaration():
    """``make js-types`` wrote the declarations of today's columns (else: run it)."""
    written = (JS / "layer-columns.d.ts").read_text(encoding="utf-8")
    assert written == typescript(declared.LAYER_COLUMNS), "stale layer-columns.d.ts: run make js-types"
    data = [c.key for c in declared.LAYER_COLUMNS if c.encoding != "row"]
    for interface in ("LayerColumnsJSON", "LayerColumns"):
        body = written.split(f"interface {interface} {{", 1)[1].split("\n}", 1)[0]
        assert [line.split(":")[0].strip() for line in body.splitlines()
                if line.strip() and not line.strip().startswith("/**")] == data
    assert "  math: Coded;" in written and "  math: string[];" in written
    assert "  avg: (number | null)[];" in written and "  onnx: string[][];" in written
    # 00-types.js no longer spells the columns out by hand
    assert "@typedef {Object} LayerColumns" not in (JS / "00-types.js").read_text(encoding="utf-8")


@pytest.mark.parametrize("folder", ["trex-mobilenet-qat", "trt10-detr-int8-names-only",
                                    "trt10.4-alexnet-fp16", "trt7-googlenet-int8-concatenated"])
def test_payload_layers_follow_the_declaration(plan, folder):
    """Each declared column, in order, is its plan fact encoded as declared."""
    p = plan(folder)
    columns = json.loads(json_for_script(layer_columns(p)))
    assert list(columns) == [c.key for c in declared.LAYER_COLUMNS if c.encoding != "row"]
    nodes = layer_nodes(p)
    for c in declared.LAYER_COLUMNS:
        if c.fact is None:
            continue
        got = columns[c.key]
        assert len(got["codes"] if c.encoding.startswith("coded") else got) == len(p.df), c.key
        got = decode(got) if c.encoding.startswith("coded") else got
        assert got == _plain(c.fact.read(p, {layer_nodes: nodes}), c.encoding), c.key
    # and the facts are the plan's: df columns, layer attributes, the ONNX mapping
    assert columns["name"] == p.df["Name"].tolist()
    assert decode(columns["math"]) == p.df["math_precision"].fillna("").tolist()
    assert columns["stream"] == [layer.stream for layer in p.layers]
    assert decode(columns["onnx"]) == nodes["onnx_nodes"].tolist()


def test_the_payload_reads_the_plans_facts_not_rows_mapped_back(plan, monkeypatch):
    """No view the report builds rebuilds a Layer from a ``plan.df`` row (``raw_from_row``)."""
    import trex.figures.layers

    def refuse(row):
        raise AssertionError("the report mapped a df row back to a layer")

    monkeypatch.setattr(trex.figures.layers, "raw_from_row", refuse)
    payload, _ = report_payload([plan("trex-mobilenet-qat"), plan("trt8.6-resnet50-int8")])
    assert [len(e["layers"]["name"]) for e in payload["engines"]] == [72, 57]
    assert not [k for e in payload["engines"] for k, f in e["figures"].items() if "error" in f]


def test_the_table_spec_is_shipped_with_the_data(plan):
    payload, _ = report_payload([plan("a100-resnet18-qat")])
    shipped = json.loads(json_for_script(payload))["layer_columns"]
    assert shipped == spec(declared.LAYER_COLUMNS)
    assert [c["key"] for c in shipped if c["show"]] == TABLE
    assert [c["key"] for c in shipped if c["show"] and c["show"]["keep"]] == \
        ["idx", "type", "precision", "math", "avg", "pct"]
    math_ = next(c for c in shipped if c["key"] == "math")
    assert math_["encoding"] == "coded" and math_["show"]["label"] == "Math"
    assert math_["show"]["blank"] == "unknown: the tactic name does not say"


@pytest.mark.parametrize("bad, why", [
    (Column("Name", "x", df_column("Name"), "text"), "identifiers"),
    (Column("idx2", "x", None, "text"), "reads a fact"),
    (Column("n", "x", df_column("Name"), "row"), "reads a fact"),
    (Column("n", "x", df_column("Name"), "strings"), "unknown encoding"),  # type: ignore[arg-type]
    (Column("n", "x", df_column("Name"), "text", Show("N", "9px", text="bold")),  # type: ignore[arg-type]
     "unknown kind"),
    (Column("n", "x", df_column("Name"), "text", Show("N", "9px", title="detail")), "other column"),
    (Column("n", "x", df_column("Name"), "text", Show("N", "9px", title="flow", other="nope")),
     "not a declared data column"),
    (Column("n", "x", df_column("Name"), "text", Show("N", "9px", squeeze=True)), "at most one"),
    (Column("name", "x", df_column("Name"), "text"), "distinct"),
])
def test_declarations_the_page_cannot_use_are_refused(bad, why):
    check(declared.LAYER_COLUMNS)
    with pytest.raises(ValueError, match=why):
        check((*declared.LAYER_COLUMNS, bad))


def _tsc() -> Path:
    tsc = ROOT / "node_modules" / ".bin" / "tsc"
    if not tsc.exists():
        if os.environ.get("CI"):
            pytest.fail("TypeScript (npm ci) is required in CI")
        pytest.skip("TypeScript is not installed (npm ci)")
    return tsc


def _typecheck(folder: Path, declarations: str, probe: str) -> subprocess.CompletedProcess:
    """tsc over the page's script with these layer-column declarations and one more file."""
    folder.mkdir()
    for f in JS.iterdir():
        if f.suffix == ".js" or (f.name.endswith(".d.ts") and f.name != "layer-columns.d.ts"):
            shutil.copy(f, folder / f.name)
    (folder / "layer-columns.d.ts").write_text(declarations, encoding="utf-8")
    (folder / "99-probe.js").write_text(probe, encoding="utf-8")
    config = json.loads((ROOT / "tsconfig.json").read_text(encoding="utf-8"))
    config["include"] = ["*.js", "*.d.ts"]
    (folder / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    return subprocess.run([str(_tsc()), "-p", str(folder / "tsconfig.json")], capture_output=True,
                          text=True, timeout=120)


def test_a_new_column_is_one_declaration(plan, monkeypatch, tmp_path):
    """One more Column (the layers' bias bytes, a table column; their CUDA stream again, data
    only) is in the payload, the spec the table is built from and the page's types."""
    p = plan("trex-mobilenet-qat")
    again = Column("stream_again", "the stream once more", layer_attribute("stream"), "ints")
    ops = Column("ops_again", "the ONNX op types once more", table_column(layer_nodes, "onnx_ops"),
                 "coded_lists")
    monkeypatch.setattr(declared, "LAYER_COLUMNS", (*declared.LAYER_COLUMNS, BIAS, again, ops))
    payload, _ = report_payload([p])
    data = json.loads(json_for_script(payload))
    layers = data["engines"][0]["layers"]
    assert layers["bias"] == p.df["bias_size"].astype("int64").tolist() and sum(layers["bias"]) > 0
    assert layers["stream_again"] == layers["stream"]
    assert decode(layers["ops_again"]) == decode(layers["onnx_ops"])
    assert [c["key"] for c in data["layer_columns"] if c["show"]] == [*TABLE, "bias"]
    assert data["layer_columns"][-3]["show"] == {
        "label": "Bias", "width": "82px", "min": None, "fit": 120, "tip": "", "num": True,
        "keep": False, "squeeze": False, "text": "bytes", "sort": "value", "title": None,
        "other": None, "blank": None}
    declarations = typescript(declared.LAYER_COLUMNS)
    assert declarations.count("  bias: number[];") == 2  # as written and decoded
    assert "  ops_again: CodedLists;" in declarations and "  ops_again: string[][];" in declarations
    # the page's script type-checks with the new declarations, and code that reads the new
    # column checks only with them
    probe = ("// @ts-check\n/** @param {Engine} e @returns {number} */\n"
             "function biasOf(e) { return e.L.bias[0] + e.d.layers.bias[0]; }\n")
    run = _typecheck(tmp_path / "with", declarations, probe)
    assert run.returncode == 0, run.stdout + run.stderr
    run = _typecheck(tmp_path / "without", typescript((*declared.LAYER_COLUMNS[:-3],)), probe)
    assert run.returncode != 0 and "'bias' does not exist" in run.stdout + run.stderr
