"""``trex report``: the HTML report's data, its self-contained page and its escaping (no browser;
tests/test_report_browser.py drives the page in Chromium)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import warnings
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

import trex
from helpers import bench_module, require_module
from trex.cli import main
from trex.html_report import build_report, json_for_script, report_payload, write_report
from trex.html_report.page import asset, content_security_policy

warnings.simplefilter("ignore", trex.TrexWarning)
require_module("plotly")  # CI installs every extra: fail there, never skip

MOBILENET = "trex-mobilenet-qat"
RESNET50 = "trt8.6-resnet50-int8"
EVERY_ENGINE = ["a100-resnet18-fp16", "a100-resnet18-qat", "torchtrt-alexnet-fp16", MOBILENET,
                "trex-mobilenet-v2-residuals-qat", "trt10-detr-int8-names-only",
                "trt10.16-mnist-fp32", "trt10.16-multiprofile-oneline", "trt10.4-alexnet-fp16",
                "trt7-googlenet-int8-concatenated", "trt8.2-levit-fp32-names-only",
                "trt8.4-mnist-names-only", "trt8.5-names-only-single", RESNET50]

# Layer, tensor, type, tactic, metadata and path strings that would run script or break out of
# the page if any were written as HTML, into a script block, an attribute or plotly's markup.
HOSTILE = [
    "<script>alert(1)</script>",
    "</script><script>alert(2)</script>",
    "</style><img src=x onerror=alert(3)>",
    '"double" quote" onmouseover="alert(4)',
    "'single' quote' onfocus='alert(5)",
    "ctl\x01\x07\x1b[31m\x7f\u0085end",
    "line\u2028sep\u2029para",
    "<!-- <script>alert(6)</script>",
    "&lt;entity&gt; &amp; &#60;script&#62;",
    '<b>bold</b><a href="javascript:alert(7)">link</a>',
    "${alert(8)}` backtick",
    "\\u003cscript\\u003ealert(9)",
    "<svg onload=alert(10)>",
]
HOSTILE_DIR = "<img src=x onerror=alert(11)>"


def make_hostile_engine(engines: Path, target: Path) -> tuple[Path, list[str]]:
    """A real engine (ResNet50 INT8, TensorRT 8.6) whose first layers, their tensors, tactics,
    ONNX metadata, one layer type, the device name and the model path hold ``HOSTILE`` strings.
    Returns (the engine's folder, the hostile layer names as given)."""
    src = engines / RESNET50
    folder = target / HOSTILE_DIR
    folder.mkdir(parents=True)
    graph = json.loads((src / "resnet50-int8.engine.graph.json").read_text())
    profile = json.loads((src / "resnet50-int8.engine.profile.json").read_text())
    renamed: dict[str, str] = {}
    tensors: dict[str, str] = {}
    for i, layer in enumerate(graph["Layers"][:len(HOSTILE)]):
        evil = HOSTILE[i]
        renamed[layer["Name"]] = evil
        layer["Name"] = evil
        for tensor in layer["Outputs"]:
            if tensor["Name"] not in graph["Bindings"]:
                tensors[tensor["Name"]] = f"{evil} (tensor {i})"
        layer["Metadata"] = f"[ONNX Layer: {evil}]\x1e[ONNX Layer: /x/{HOSTILE[-1 - i]}]"
        if "TacticName" in layer:
            layer["TacticName"] = f"sm80_{HOSTILE[-1 - i]}"
    graph["Layers"][1]["LayerType"] = "<img src=x onerror=alert(12)>"
    graph["Layers"][1]["ParameterType"] = "</style><script>alert(13)</script>"
    for layer in graph["Layers"]:
        for tensor in (*layer["Inputs"], *layer["Outputs"]):
            tensor["Name"] = tensors.get(tensor["Name"], tensor["Name"])
    for row in profile:
        if isinstance(row, dict) and row.get("name") in renamed:
            row["name"] = renamed[row["name"]]
    meta = json.loads((src / "resnet50-int8.engine.profile.metadata.json").read_text())
    meta["device_information"]["Selected Device"] = "<script>alert(14)</script> GPU"
    build = {"model_options": {"Format": "ONNX", "Model": "</script><script>alert(15)</script>.onnx"},
             "build_options": {"Precision": "<b>INT8</b>\u2028"}}
    prefix = folder / "hostile.engine"
    Path(f"{prefix}.graph.json").write_text(json.dumps(graph))
    Path(f"{prefix}.profile.json").write_text(json.dumps(profile))
    Path(f"{prefix}.profile.metadata.json").write_text(json.dumps(meta))
    Path(f"{prefix}.build.metadata.json").write_text(json.dumps(build))
    Path(f"{prefix}.timing.json").write_bytes((src / "resnet50-int8.engine.timing.json").read_bytes())
    return folder, HOSTILE[:len(renamed)]


class _Page(HTMLParser):
    """Tags, attributes and the text of every script block of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._script: dict[str, str | None] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._script, self._text = dict(attrs), []

    def handle_endtag(self, tag):
        if tag == "script" and self._script is not None:
            self.scripts.append((self._script, "".join(self._text)))
            self._script = None

    def handle_data(self, data):
        if self._script is not None:
            self._text.append(data)


def parse_page(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    page.close()
    return page


@pytest.fixture(scope="module")
def mobilenet(engines):
    return trex.EnginePlan.from_path(engines / MOBILENET)


@pytest.fixture(scope="module")
def mobilenet_page(mobilenet):
    return build_report(mobilenet)


# ------------------------------------------------------------------------------- the data
def test_payload_holds_every_layer_and_view(mobilenet):
    payload, details = report_payload([mobilenet], ["mobilenet"])
    assert payload["comparison"] is None and len(details) == 1
    e = payload["engines"][0]
    df = mobilenet.df
    layers = e["layers"]
    assert layers["name"] == df["Name"].tolist()
    assert layers["type"] == df["type"].tolist()
    assert layers["avg"] == pytest.approx(df["latency.avg_time"].tolist())
    assert sum(layers["weights"]) == mobilenet.total_weights_size
    assert len(details[0]) == len(df)
    attrs, inputs, outputs = details[0][1]
    assert attrs["LayerType"] == mobilenet.layers[1].subtype
    assert [t[0] for t in inputs] == [t.name for t in mobilenet.layers[1].inputs]
    # header facts
    head = e["headline"]
    assert head["layers"] == 72 and head["weights_bytes"] == mobilenet.total_weights_size
    assert head["throughput_qps"] == pytest.approx(2829.15, abs=0.01)
    assert e["device"]["Selected Device"] == mobilenet.device_properties["Selected Device"]
    # graph: every layer is one node, laid out
    nodes = e["graph"]["nodes"]
    rows = sorted(r for r in nodes["row"] if r >= 0)
    assert rows == list(range(len(df)))
    assert len(nodes["x"]) == len(nodes["rows"]) == len(nodes["fill"]["type"])
    assert all(0 <= v <= e["graph"]["width"] for v in nodes["x"])
    assert all(re.fullmatch(r"#[0-9A-Fa-f]{3,8}|[A-Za-z]{3,30}", c) for c in e["graph"]["palette"])
    # linter findings name their layer's row
    lint = e["lint"]
    assert len(lint["rows"]) == len(trex.lint.lint(mobilenet))
    for row, name, *_ in lint["rows"]:
        assert row is None or layers["name"][row] == name
    # roofline, timings, figures
    assert e["roofline"]["row"] and e["roofline"]["gpu"]
    assert e["timings"]["available"] and len(e["timings"]["latency"]) == len(mobilenet.timings)
    assert {"latency_by_type", "precision_rollup", "timings"} <= set(e["figures"])
    assert not [k for k, f in e["figures"].items() if "error" in f]


def test_payload_is_valid_json_without_nan(engines):
    plan = trex.EnginePlan.from_path(engines / "trt7-googlenet-int8-concatenated")  # no medianMs
    payload, details = report_payload([plan])
    text = json_for_script(payload)
    assert "NaN" not in text and "Infinity" not in text
    assert json.loads(text)["engines"][0]["layers"]["median"][0] is None
    json.loads(json_for_script(details), parse_constant=lambda c: pytest.fail(c))


@pytest.mark.parametrize("folder", EVERY_ENGINE)
def test_every_real_engine_gets_a_report(engines, folder, tmp_path):
    result = write_report(engines / folder, tmp_path / "r.html")
    assert result.engines == 1 and result.layers > 0
    text = (tmp_path / "r.html").read_text(encoding="utf-8")
    page = parse_page(text)
    data = json.loads(next(body for attrs, body in page.scripts if attrs.get("id") == "trex-data"))
    assert len(data["engines"][0]["layers"]["name"]) == result.layers


def test_comparison_payload(engines):
    plans = [trex.EnginePlan.from_path(engines / f"a100-resnet18-{p}") for p in ("fp16", "qat")]
    payload, details = report_payload(plans, ["fp16", "qat"])
    c = payload["comparison"]
    assert c["names"] == ["fp16", "qat"] and len(details) == 2
    aligned = c["aligned"]
    assert len(aligned["rows"]) == 2 and len(aligned["rows"][0]) == len(aligned["type"])
    present = [r for r in aligned["rows"][1] if r is not None]
    assert sorted(present) == list(range(len(plans[1].df)))  # every layer of B appears once
    assert c["summary"]["columns"] == ["attribute", "fp16", "qat"]
    assert c["figures"] and not [k for k, f in c["figures"].items() if "error" in f]


# ------------------------------------------------------------------------------- the page
def test_page_is_self_contained(mobilenet_page):
    page = parse_page(mobilenet_page)
    # nothing is loaded from anywhere: no src/href/srcset/action attribute, no link/iframe/object
    for tag, attrs in page.tags:
        assert tag not in ("link", "iframe", "object", "embed", "img", "base", "frame")
        assert not {"src", "href", "srcset", "action", "data", "poster"} & set(attrs), (tag, attrs)
    kinds = [(attrs.get("type"), attrs.get("id")) for attrs, _ in page.scripts]
    # plotly.js is inlined as text (the page runs it when a chart is first drawn)
    assert kinds == [("application/json", "trex-data"), ("application/json", "trex-details-0"),
                     ("text/plain", "trex-plotly"), (None, None)]
    assert "plotly.js v" in page.scripts[2][1][:300]  # the installed package's bundle
    csp = next(a["content"] for t, a in page.tags
               if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    assert "default-src 'none'" in csp and "connect-src 'none'" in csp
    # only the page's script and plotly.js may run: the policy lists exactly their hashes
    hashes = re.findall(r"'sha256-([^']+)'", csp)
    for _, body in page.scripts[2:]:
        digest = base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode()
        assert digest in hashes
    assert len(hashes) == 2 and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]


def test_page_script_uses_no_html_parsing_sinks():
    js = asset("report.js")
    code = re.sub(r"/\*.*?\*/", "", js, flags=re.S)
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
                 "new Function", "setAttribute('on", "createContextualFragment", "DOMParser"):
        assert sink not in code, sink


def test_json_in_script_cannot_end_the_block():
    value = {"name": "</script><script>alert(1)</script>\u2028\u2029<!--&", "n": float("nan")}
    text = json_for_script(value)
    assert not set(text) & {"<", ">", "&", "\u2028", "\u2029"}
    assert json.loads(text) == {"name": value["name"], "n": None}


def _json_text(value):
    """json_for_script's text as the standard library writes it (the reference)."""
    from trex.html_report.columns import plain
    from trex.html_report.page import _compact
    from trex.jsonable import json_value

    try:
        text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False,
                          default=_compact)
    except (ValueError, TypeError):
        text = json.dumps(json_value(plain(value)), ensure_ascii=True, separators=(",", ":"),
                          allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def test_json_for_script_writes_what_json_writes():
    """msgspec writes the page's data: the same text as ``json.dumps`` (floats as ``repr``,
    ASCII escapes, NaN as null), strings that look like numbers left as they are. (The data is
    JSON values, :func:`trex.jsonable.json_value`; a set or a dataclass would be msgspec's.)"""
    import random
    import struct

    rng = random.Random(5)
    pieces = ['"', "\\", '\\"', ",1e16,", "[1e-05]", ":0.00001}", "abc", "\u2028", "\U0001F600",
              "\x7f", "\x00", "\x1f", "\u00e9", "</script>", "<!--", "&", ",1.5e-7]", "\\u0030", ","]

    def text():
        return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 6)))

    def number():
        k = rng.randint(0, 3)
        if k == 0:
            return struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0]
        if k == 1:
            return rng.random() * 10 ** rng.randint(-30, 30)
        if k == 2:
            return float(rng.randint(-10**18, 10**18))
        return round(rng.random() * 10 ** rng.randint(-8, 3), rng.randint(0, 8))

    def value(depth=0):
        k = rng.randint(0, 8 if depth < 4 else 3)
        if k <= 1:
            return number()
        if k == 2:
            return rng.choice([None, True, False, text(), rng.randint(-10**20, 10**20)])
        if k == 3:
            return text()
        if k <= 6:
            return [value(depth + 1) for _ in range(rng.randint(0, 5))]
        if k == 7:
            return tuple(value(depth + 1) for _ in range(rng.randint(0, 3)))
        return {text(): value(depth + 1) for _ in range(rng.randint(0, 5))}

    for _ in range(3000):
        v = value()
        assert json_for_script(v) == _json_text(v), v
    for v in (1e16, 1e-05, -2.5e-300, "1e16", float("nan"), [float("inf"), 1e-5], "\ud800",
              {"a": "\ud800", "b": 1e22}, {1: 2, 2.5: 3}, {True: 1, None: 2}, 10**400,
              [np.float64(1e-5)], [np.int64(3)]):
        assert json_for_script(v) == _json_text(v), v


def test_hostile_names_stay_data(engines, tmp_path):
    folder, names = make_hostile_engine(engines, tmp_path)
    plan = trex.EnginePlan.from_path(folder)
    assert set(names) <= set(plan.df["Name"])
    text = build_report(plan)
    page = parse_page(text)
    assert len(page.scripts) == 4  # the data, the details, plotly.js (text), the page's script
    for _attrs, body in page.scripts[:2]:
        assert "<" not in body and "\u2028" not in body
    # the strings come back intact from the JSON
    data = json.loads(page.scripts[0][1])
    assert names == data["engines"][0]["layers"]["name"][:len(names)]
    assert data["engines"][0]["device"]["Selected Device"].startswith("<script>")
    # plotly figures get entity-escaped strings (plotly renders a subset of HTML in text)
    for fig in data["engines"][0]["figures"].values():
        for trace in fig.get("figure", {}).get("data", []):
            for key in ("x", "y", "labels", "ids", "parents", "text", "name"):
                values = trace.get(key)
                values = values if isinstance(values, list) else [values]
                assert not any(isinstance(v, str) and "<" in v for v in values), (key, values)
    # outside the scripts the page holds no trace of the data's markup
    outside = re.sub(r"<script\b[^>]*>.*?</script>", "", text, flags=re.S)
    assert "alert(" not in outside and "onerror" not in outside


def test_figures_draw_without_webgl(mobilenet):
    from trex.figures import engine_timings_figure
    from trex.html_report.figures import MAX_SVG_MARKERS, figure_json

    fig = engine_timings_figure(mobilenet)
    assert "scattergl" in {t.type for t in fig.data}
    types = {t["type"] for t in figure_json(fig)["data"]}
    assert "scattergl" not in types and "scatter" in types
    import plotly.graph_objects as go

    big = figure_json(go.Figure(go.Scattergl(x=list(range(MAX_SVG_MARKERS + 1)),
                                             y=[1.0] * (MAX_SVG_MARKERS + 1), mode="markers")))
    assert big["data"][0]["type"] == "scatter" and big["data"][0]["mode"] == "lines"


def test_csp_hashes_are_computed_over_utf8():
    csp = content_security_policy(["é"])
    digest = base64.b64encode(hashlib.sha256("é".encode()).digest()).decode()
    assert f"'sha256-{digest}'" in csp


# ------------------------------------------------------------------------------- the command
def test_cli_writes_one_report(engines, tmp_path, capsys):
    out = tmp_path / "report.html"
    assert main(["report", str(engines / MOBILENET), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(f"Created file://{out}") and "72 layers" in printed
    assert out.stat().st_size > 1_000_000  # plotly.js alone is several MB


def test_cli_compares_several_engines(engines, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    paths = [str(engines / f"a100-resnet18-{p}") for p in ("fp32", "fp16", "qat")]
    assert main(["report", *paths, "--names", "fp32,fp16,int8", "--title", "ResNet18"]) == 0
    out = tmp_path / "fp32-vs-fp16-vs-int8.report.html"  # the labels, joined
    assert "3 engines" in capsys.readouterr().out
    page = parse_page(out.read_text(encoding="utf-8"))
    data = json.loads(page.scripts[0][1])
    assert data["title"] == "ResNet18" and data["comparison"]["names"] == ["fp32", "fp16", "int8"]
    assert [e["label"] for e in data["engines"]] == ["fp32", "fp16", "int8"]
    assert [a.get("id") for a, _ in page.scripts[:4]] == ["trex-data", "trex-details-0",
                                                           "trex-details-1", "trex-details-2"]


def test_cli_default_name_and_bad_input(engines, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["report", str(engines / "a100-resnet18-fp16")]) == 0
    assert (tmp_path / "a100-resnet18-fp16.resnet.onnx.engine.report.html").is_file()
    assert main(["report", str(tmp_path / "missing")]) == 2
    assert "trex report: error:" in capsys.readouterr().err
    assert main(["report", str(engines / "a100-resnet18-fp16"), str(engines / "a100-resnet18-qat"),
                 "--names", "same,same"]) == 2


def generated_engine(engines: Path, out: Path, n: int) -> Path:
    """An ``n``-layer engine made by bench/generate.py from the real exports; its path prefix."""
    files = bench_module("generate").generate(n, out, engines)
    return Path(str(files["graph.json"])[: -len(".graph.json")])


def test_large_engine_report_holds_every_layer(engines, tmp_path):
    """A generated 1,000-layer engine (speed targets are in bench/bench_report.py, not here)."""
    prefix = generated_engine(engines, tmp_path / "data", 1000)
    result = write_report(str(prefix), tmp_path / "r.html")
    assert result.layers == 1000


# ------------------------------------------------------------------------------- compact data
def test_plotly_bundle_holds_every_trace_the_report_draws(engines, mobilenet):
    from trex.html_report.page import plotly_js, plotly_version

    plans = [trex.EnginePlan.from_path(engines / f"a100-resnet18-{p}") for p in ("fp16", "qat")]
    payload, _ = report_payload(plans, ["fp16", "qat"])
    figures = [f for e in payload["engines"] for f in e["figures"].values()]
    figures += list(payload["comparison"]["figures"].values())
    used = {t.get("type", "scatter") for f in figures for t in f["figure"]["data"]}
    # the page's own figures (per-layer charts, roofline, aligned latencies)
    page_js = "".join(asset(f"js/{name}") for name in ("65-layer-figures.js", "85-compare.js"))
    used |= set(re.findall(r"type: '(bar|scatter|pie|histogram|sunburst|heatmap|box)'", page_js))
    assert {"bar", "scatter", "pie", "histogram", "sunburst"} <= used
    bundle = plotly_version()
    assert used <= set(bundle["traces"])
    assert f"plotly.js v{bundle['plotly.js']}" in plotly_js()[:200]
    assert len(plotly_js()) < 2_000_000  # the partial bundle, not plotly.min.js (4.8 MB)


def test_compact_details_and_findings_decode_to_the_plain_rows(mobilenet):
    from trex.html_report.columns import decode

    payload, details = report_payload([mobilenet])
    data = json.loads(json_for_script(payload))["engines"][0]
    compact = json.loads(json_for_script(details[0]))
    tensors = compact["tensors"]
    formats, precisions = decode(tensors["format"]), decode(tensors["precision"])

    def tensor(t):
        return [tensors["name"][t], tensors["shapes"][tensors["shape"][t]], formats[t],
                tensors["bytes"][t], precisions[t]]

    for row, layer in enumerate(mobilenet.layers):
        attrs = compact["attrs"][compact["attr"][row]]
        inputs = [tensor(t) for t in compact["inputs"][row]]
        outputs = [tensor(t) for t in compact["outputs"][row]]
        assert [attrs, inputs, outputs] == details[0][row]
        assert [t[0] for t in outputs] == [t.name for t in layer.outputs]
        assert attrs["LayerType"] == layer.raw_dict["LayerType"]
    assert len(compact["attrs"]) <= len(mobilenet.layers)
    # findings: texts written once; a null layer is the name of the layer at its row
    found = data["lint"]["rows"]
    names = data["layers"]["name"]
    plain = list(payload["engines"][0]["lint"]["rows"])
    assert len(found["row"]) == len(plain) == len(trex.lint.lint(mobilenet))
    texts = found["texts"]
    for j, row in enumerate(plain):
        layer = found["layer"][j] if found["layer"][j] is not None else names[found["row"][j]]
        assert [found["row"][j], layer, *(texts[found[k][j]] for k in
                ("linter", "severity", "hazard", "evidence", "mitigation", "help"))] == row
    assert len(json.dumps(found)) < len(json.dumps(plain)) / 2
    # coded layer columns decode to plan.df's
    assert decode(data["layers"]["precision"]) == mobilenet.df["precision"].tolist()
    assert decode(data["layers"]["tactic"]) == mobilenet.df["tactic"].fillna("").astype(str).tolist()


def test_report_of_each_profile(engines, tmp_path):
    """``trex report ENGINE --profiles``: the profiles of one engine as a comparison report."""
    from trex.cli import main

    out = tmp_path / "profiles.html"
    log = engines / "trt10.16-multiprofile-oneline" / "log-main.py.log"
    assert main(["report", str(log), "--profiles", "-o", str(out)]) == 0
    text = out.read_text()
    assert "log-main.py [profile 0]" in text and "log-main.py [profile 1]" in text
