"""The plan model on real files: one fact, one value, whatever the input kind or the view.

These are the checks that would have caught the model's old inconsistencies: ONNX nodes lost when a
plan came from a build log, a UTF-16 log refused by detection, and views computing the same figure
two ways.
"""

from __future__ import annotations

import copy
import functools
import importlib
import json
import math
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import trex
from helpers import DLA_ROWS, write_dla_profile
from trex.formats import detect_kind
from trex.formats.readers import InputCache
from trex.html_report.payload import headline, layer_columns
from trex.model.dataframe import _INT_COLUMNS
from trex.model.facts import engine_facts
from trex.onnx_map import layer_nodes
from trex.summary import model_summary

MNIST_BUILD_LOG = "trt10.16-mnist-fp32/result-02.log"
MNIST_LAYERS = "trt10.16-mnist-fp32/model-trained-exportLayerInfo.log"
RESNET50 = "trt8.6-resnet50-int8/resnet50-int8.engine.graph.json"
# Every text log among the real files (several JSON files are named .log or .txt: not these).
LOGS = ["trt10.16-mnist-fp32/result-02.log", "trt10.16-mnist-fp32/result-05.log",
        "trt10.16-multiprofile-oneline/log-main.py.log", "trt8.2-levit-fp32-names-only/result-FP32.txt",
        "trt8.6-mobilenetv2-int8-build/mobilenetV2.onnx.engine.build.log",
        "trt8.6-resnet50-int8/resnet50-int8.engine.profile.log"]
PROFILED = ["a100-resnet18-fp16", "a100-resnet18-qat", "trex-mobilenet-qat", "trt8.6-resnet50-int8",
            "trt10.4-alexnet-fp16", "trt8.2-levit-fp32-names-only", "torchtrt-alexnet-fp16",
            "trt10.16-mnist-fp32"]


def _quiet(factory):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return factory()


# ------------------------------------------------------------------ ONNX nodes, whatever the reader
def test_build_log_plan_keeps_its_onnx_nodes(engines):
    """The layers of a verbose build log name their ONNX nodes: Myelin layers from the log's
    'ForeignNode ... metadata:' lines, the others from the parsed nodes their names are made of."""
    path = engines / MNIST_BUILD_LOG
    text = path.read_text()
    parsed = set(re.findall(r"Parsing node: (\S+) \[", text))
    foreign = {m[0]: re.findall(r"\[ONNX Layer: ([^\]]+)\]", m[1])
               for m in re.findall(r"ForeignNode (\{ForeignNode\[.*?\]\}) metadata: (.*)", text)}
    plan = _quiet(lambda: trex.EnginePlan(path))
    assert len(plan.layers) == 6
    for layer in plan.layers:
        if layer.name in foreign:
            assert layer.onnx_nodes == foreign[layer.name]
        elif layer.name.startswith("Reformatting CopyNode"):
            assert layer.onnx_nodes == []
        else:
            assert layer.onnx_nodes == [p for p in layer.name.split(" + ") if p in parsed]
    assert {n for layer in plan.layers for n in layer.onnx_nodes} == parsed  # all 12 nodes
    assert len(parsed) == 12
    # Every view reads the same lists: the DataFrame, the ONNX map and the report's columns.
    expected = [layer.onnx_nodes for layer in plan.layers]
    assert plan.df["Metadata"].tolist() == expected
    assert layer_nodes(plan)["onnx_nodes"].tolist() == expected
    assert layer_columns(plan)["onnx"] == expected
    assert engine_facts(plan).onnx_metadata


def _dump_value(value) -> str:
    if isinstance(value, dict):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ",".join(str(v) for v in value) + "]"
    return str(value)


def layer_dump_text(doc: dict) -> str:
    """A layer JSON written as the one-line text form ``--dumpLayerInfo`` prints in logs."""
    lines = ["[07/07/2026-02:11:40] [I] Layers:"]
    for layer in doc["Layers"]:
        fields = []
        for key, value in layer.items():
            if key in ("Inputs", "Outputs"):
                tensors = ", ".join("{ " + ", ".join(f"{k}: {_dump_value(v)}" for k, v in t.items())
                                    + " }" for t in value)
                fields.append(f"{key}: [ {tensors}]")
            elif key == "Metadata" and isinstance(value, list):
                fields.append("Metadata: " + "\x1e".join(f"[ONNX Layer: {n}]" for n in value))
            else:
                fields.append(f"{key}: {_dump_value(value)}")
        lines.append(", ".join(fields))
    lines.append("")
    lines.append("Bindings:")
    lines.extend(doc["Bindings"])
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("source", [MNIST_LAYERS, RESNET50])
def test_json_and_text_dump_of_one_engine_agree(engines, tmp_path, source):
    """The same engine read from its layer JSON and from the one-line text dump of that JSON."""
    doc = json.loads((engines / source).read_text(), strict=False)
    dump = tmp_path / "engine.log"
    dump.write_text(layer_dump_text(copy.deepcopy(doc)))
    assert detect_kind(dump) == "log"
    from_json = _quiet(lambda: trex.EnginePlan(engines / source))
    from_dump = _quiet(lambda: trex.EnginePlan(dump))
    assert [layer.onnx_nodes for layer in from_dump.layers] == \
        [layer.onnx_nodes for layer in from_json.layers]
    assert any(layer.onnx_nodes for layer in from_json.layers)
    for column in ("Name", "type", "precision", "tactic", "total_io_size_bytes", "weights_size"):
        assert from_dump.df[column].tolist() == from_json.df[column].tolist(), column
    a, b = engine_facts(from_json).as_dict(), engine_facts(from_dump).as_dict()
    a.pop("name"), b.pop("name")
    assert a == b


# ------------------------------------------------------------------ one decoder for every reader
@pytest.mark.parametrize("variant", ["bom", "utf16", "latin1", "crlf"])
def test_big_json_reads_the_same_whichever_path_parses_it(engines, tmp_path, variant):
    """Big JSON files are parsed straight from their bytes; any file that path refuses (a BOM,
    UTF-16, a stray Latin-1 byte) goes through the one decoder and gives the same plan."""
    folder = engines / "trt8.6-resnet50-int8"
    graph, profile = folder / "resnet50-int8.engine.graph.json", folder / "resnet50-int8.engine.profile.json"
    assert graph.stat().st_size > 1 << 16  # big enough for the byte path
    original = _quiet(lambda: trex.EnginePlan(graph, profile))
    text = graph.read_text(encoding="utf-8")
    first = original.df["Name"].iloc[0]
    if variant == "bom":
        data = b"\xef\xbb\xbf" + text.encode()
    elif variant == "utf16":
        data = text.encode("utf-16")
    elif variant == "crlf":
        data = text.replace("\n", "\r\n").encode()
    else:  # one undecodable byte in the first layer's name
        data = text.replace(f'"{first}"', f'"{first}\xe9"', 1).encode("latin-1")
    copy_ = tmp_path / graph.name
    copy_.write_bytes(data)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = trex.EnginePlan(copy_, profile)
    assert len(again.df) == len(original.df)
    latency = again.df["latency.avg_time"], original.df["latency.avg_time"]
    assert latency[0].iloc[1:].tolist() == latency[1].iloc[1:].tolist()
    replaced = [str(w.message) for w in caught if "undecodable bytes were replaced" in str(w.message)]
    if variant == "latin1":
        assert again.df["Name"].iloc[0] == first + "\ufffd" and replaced
        assert math.isnan(latency[0].iloc[0])  # its profile row names the layer otherwise
        assert again.df["Name"].iloc[1:].tolist() == original.df["Name"].iloc[1:].tolist()
    else:
        assert again.df["Name"].tolist() == original.df["Name"].tolist() and not replaced
        assert latency[0].iloc[0] == latency[1].iloc[0]


@pytest.mark.parametrize("log", LOGS)
def test_utf16_copy_of_every_real_log_reads_like_the_original(engines, tmp_path, log):
    original = engines / log
    copy_ = tmp_path / original.name
    copy_.write_bytes(original.read_text().replace("\n", "\r\n").encode("utf-16"))
    assert detect_kind(copy_) == detect_kind(original) == "log"
    first, second = InputCache().read(original), InputCache().read(copy_)
    assert second.trtexec.metadata.sections == first.trtexec.metadata.sections
    assert [len(r.records) for r in second.trtexec.profile_runs] == \
        [len(r.records) for r in first.trtexec.profile_runs]
    assert (second.layer_info is None) == (first.layer_info is None)
    if first.layer_info is not None:
        assert second.layer_info.layers == first.layer_info.layers
    assert (second.build is None) == (first.build is None)
    if first.build is not None:
        assert len(second.build.tactics) == len(first.build.tactics)
        assert len(second.build.memory) == len(first.build.memory)
    try:
        plan = _quiet(lambda: trex.EnginePlan(original))
    except trex.InputError:
        return  # a log with options only is metadata, not a plan (checked by the reader above)
    again = _quiet(lambda: trex.EnginePlan(copy_))
    assert again.df.drop(columns="Metadata").equals(plan.df.drop(columns="Metadata"))
    assert engine_facts(again).as_dict() | {"name": ""} == engine_facts(plan).as_dict() | {"name": ""}


def test_a_plan_reads_each_file_once(engines, monkeypatch):
    """Discovery and loading share the reads: a verbose build log is parsed once per plan."""
    from trex.formats import log as log_reader

    calls = []
    original = log_reader._scan  # every parse of a log, read line by line or given as text
    monkeypatch.setattr(log_reader, "_scan", lambda *a, **k: calls.append(a[1]) or original(*a, **k))
    _quiet(lambda: trex.EnginePlan.from_path(engines / "trt8.6-mobilenetv2-int8-build"))
    assert len(calls) == 1


# ------------------------------------------------------------------ one fact, every view
def _cli_json(*args: str):
    out = subprocess.run([sys.executable, "-m", "trex.cli", *args, "-f", "json"],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


FACTS = ("average_time_ms", "gpu_compute_median_ms", "latency_median_ms", "throughput_qps",
         "batch_size", "weights_bytes", "activations_bytes", "activation_footprint_bytes",
         "precision_mix", "layers")


def test_same_facts_through_summary_compare_and_report(engines):
    paths = [str(engines / name) for name in PROFILED]
    summaries = _cli_json("summary", *paths)
    compared = _cli_json("compare", *paths)["engines"]
    for path, cli_summary, cli_compare in zip(paths, summaries, compared):
        plan = _quiet(lambda path=path: trex.EnginePlan.from_path(path))
        facts = engine_facts(plan)
        header = headline(plan)
        python = model_summary(plan)
        for key in FACTS:
            fact = getattr(facts, "latency_ms" if key == "average_time_ms" else key)
            if key == "average_time_ms" and fact is not None:
                fact = round(fact, 6)
            assert python[key] == header[key] == cli_summary[key] == fact, (path, key)
            compare_key = "latency_ms" if key == "average_time_ms" else key
            value = cli_compare[compare_key]
            assert (value is None and fact is None) or value == pytest.approx(fact), (path, key)


def test_unknown_is_not_zero(engines):
    """No per-layer profile: latency is missing (None in JSON, a dash in text), never 0."""
    plan = _quiet(lambda: trex.EnginePlan.from_path(engines / "torchtrt-alexnet-fp16"))
    assert plan.has_profile  # a Chrome trace
    plan = _quiet(lambda: trex.EnginePlan(engines / MNIST_LAYERS))
    assert not plan.has_profile and math.isnan(plan.total_runtime)
    facts = engine_facts(plan)
    assert facts.latency_ms is None and facts.throughput_qps is None
    assert trex.summary_dict(plan)["Average time"] == "–"
    log_plan = _quiet(lambda: trex.EnginePlan(engines / MNIST_BUILD_LOG))
    assert engine_facts(log_plan).weights_bytes is None  # a build log lists no weights
    assert trex.summary_dict(log_plan)["Weights"] == "–"


# ------------------------------------------------------------------ in-place concatenation
def _split_into_slices(doc: dict, index: int, same_shape: bool) -> dict:
    """Replace layer ``index`` by two layers writing the two halves (channels) of its output."""
    layers = doc["Layers"]
    layer = layers[index]
    first, second = copy.deepcopy(layer), copy.deepcopy(layer)
    first["Name"], second["Name"] = layer["Name"] + " (a)", layer["Name"] + " (b)"
    for part in (first, second):
        dims = part["Outputs"][0]["Dimensions"]
        if not same_shape:
            dims[1] //= 2
    layers[index:index + 1] = [first, second]
    return doc


def test_in_place_concatenation_is_not_a_conflict(engines, tmp_path):
    source = json.loads((engines / RESNET50).read_text(), strict=False)
    index = next(i for i, layer in enumerate(source["Layers"])
                 if layer.get("ParameterType") == "Convolution" and i > 2)
    written = source["Layers"][index]["Outputs"][0]["Name"]
    path = tmp_path / "concat.graph.json"
    path.write_text(json.dumps(_split_into_slices(copy.deepcopy(source), index, False)))
    plan = _quiet(lambda: trex.EnginePlan(path))
    assert len(plan.producers[written]) == 2
    assert not any("more than one layer" in w for w in plan.warnings)
    # Two writers of the whole tensor are a real conflict.
    path.write_text(json.dumps(_split_into_slices(copy.deepcopy(source), index, True)))
    plan = _quiet(lambda: trex.EnginePlan(path))
    assert any(f"written by more than one layer, and not as disjoint slices of an in-place "
               f"concatenation: {written!r}" in w for w in plan.warnings)


def test_explicitly_named_file_is_never_replaced(engines, tmp_path):
    """An empty or truncated layer file named by the user is an error, not a sibling's stand-in."""
    folder = tmp_path / "engine"
    folder.mkdir()
    for f in (engines / "a100-resnet18-qat").iterdir():
        (folder / f.name).write_bytes(f.read_bytes())
    graph = next(folder.glob("*.graph.json"))
    graph.write_text("")
    with pytest.raises(trex.InputError, match=r"graph\.json: not a TensorRT export .* the file is empty"):
        trex.EnginePlan.from_path(graph)
    graph.write_text('{"Layers": [{"Name": "a", ')
    with pytest.raises(trex.InputError, match=r"graph\.json: invalid JSON"):
        trex.EnginePlan.from_path(graph)


def test_subplan_and_plan_share_one_graph_structure(engines):
    from trex.graph import beam
    from trex.model import LayerGraph, PlanLike

    plan = _quiet(lambda: trex.EnginePlan.from_path(engines / "a100-resnet18-qat"))
    sub = beam(plan, plan.layers[5].name, 1)
    assert isinstance(plan, LayerGraph) and isinstance(sub, LayerGraph)
    assert isinstance(sub, PlanLike) and isinstance(plan, PlanLike)
    inputs, outputs = sub.get_bindings()
    produced = {t.name for layer in sub.all_layers for t in layer.outputs}  # constants included
    assert {t.name for t in inputs} == {t.name for layer in sub.layers for t in layer.inputs
                                        if t.name not in produced}
    assert len(inputs) == 1 and {t.name for t in outputs} <= produced
    assert sub.stream_count == plan.stream_count == 1


def test_trex_module_names_are_aliases():
    from trex.activations import Activation
    from trex.engine_plan import EnginePlan, summary_dict
    from trex.layer import Layer

    assert EnginePlan is trex.EnginePlan and summary_dict is trex.summary_dict
    assert Activation is trex.Activation and Layer is trex.Layer
    import ast

    from trex import compat

    for name in ("engine_plan", "activations", "layer", "misc", "df_preprocessing", "colors",
                 "graphing", "compare_engines", "notebook", "interactive", "report_card",
                 "plotting", "excel_summary"):
        text = (Path(trex.__file__).parent / f"{name}.py").read_text()
        assert text.startswith(f'"""TREx\'s ``{name}``'), name
        # No logic: a docstring, the import of trex.compat and the alias made from it.
        body = ast.parse(text).body
        assert isinstance(body[0], ast.Expr) and len(body) == 3, name
        assert isinstance(body[1], ast.ImportFrom) and body[1].module == "compat", name
        call = body[2].value
        assert isinstance(call, ast.Call) and call.func.id == "alias_module", name
        assert call.args[0].value == name, name
        module = importlib.import_module(f"trex.{name}")
        assert set(module.__all__) == set(compat.names_of(name)), name


def test_implausible_numbers_become_missing_with_a_warning(engines, tmp_path):
    """The model sanitises once: absurd times and dimensions are missing values, named in warnings."""
    folder = tmp_path / "engine"
    folder.mkdir()
    source = engines / "trex-mobilenet-qat"
    for f in source.iterdir():
        (folder / f.name).write_bytes(f.read_bytes())
    prefix = folder / "mobilenet.qat.onnx.engine"
    profile = json.loads(Path(f"{prefix}.profile.json").read_text())
    profile[2]["averageMs"], profile[3]["timeMs"], profile[4]["percentage"] = 1e308, -5, 1e9
    Path(f"{prefix}.profile.json").write_text(json.dumps(profile))
    times = json.loads(Path(f"{prefix}.timing.json").read_text())
    times[5]["latencyMs"] = 1e308
    Path(f"{prefix}.timing.json").write_text(json.dumps(times))
    graph = json.loads(Path(f"{prefix}.graph.json").read_text())
    graph["Layers"][1]["Inputs"][0]["Dimensions"][2] = 10**30
    Path(f"{prefix}.graph.json").write_text(json.dumps(graph))
    plan = _quiet(functools.partial(trex.EnginePlan.from_path, folder))
    first_conv = graph["Layers"][1]["Name"]
    assert math.isnan(plan.df["latency.avg_time"].iloc[1]) and plan.df["latency.avg_time"].iloc[0] > 0
    assert math.isfinite(plan.total_runtime) and plan.total_runtime < 1
    assert math.isnan(plan.timings["latencyMs"].iloc[5]) and plan.timings["latencyMs"].notna().sum() \
        == len(times) - 1
    assert plan.layers[1].inputs[0].shape == [1, 3, -1, 224]
    text = "\n".join(plan.warnings)
    assert "profile.json: 3 profile values are not plausible" in text
    assert f"{first_conv!r} averageMs=1e+308" in text
    assert "timing.json: per-iteration times that are not plausible" in text
    assert "latencyMs (first in record 5: 1e+308, 1 in all)" in text
    assert "graph.json: 1 tensors have a dimension that is not a size" in text


def test_dla_engine_layers_are_recognised(tmp_path):
    """A DLA engine's profile (names as trtexec prints them for a DLA build; no real DLA export is
    in the shared files): copies to/from the DLA's memory, their waits, and the DLA subgraph."""
    path = write_dla_profile(tmp_path / "yolo.dla.profile.json")
    plan = _quiet(lambda: trex.EnginePlan(path))
    assert plan.dla and plan.has_profile  # a profile alone names the layers and times them
    assert plan.df["type"].tolist() == ["DLACopy", "DLA", "DLACopy", "DLASync", "DLASync",
                                        "DLACopy"]
    # The same names in a GPU engine (no DLA copies) stay a Myelin region.
    path.write_text(json.dumps([{"count": 1}, {"name": DLA_ROWS[1][0], "timeMs": 1.0,
                                               "averageMs": 1.0, "percentage": 100.0}]))
    gpu = _quiet(lambda: trex.EnginePlan(path))
    assert not gpu.dla and gpu.df["type"].tolist() == ["Myelin"]


def test_trt7_reformatter_names_are_reformats(engines):
    plan = _quiet(lambda: trex.EnginePlan.from_path(engines / "trt7-googlenet-int8-concatenated"))
    reformats = plan.df[plan.df["type"] == "Reformat"]["Name"].tolist()
    assert reformats and all(" reformatter " in name for name in reformats)
    assert "conv1/7x7_s2 + conv1/relu_7x7 + pool1/3x3_s2 input reformatter 0" in reformats


def test_latency_shares_mean_the_same_in_every_table(engines):
    """``latency_pct`` is a share of the summed layer latency in the type, precision and tactic
    tables alike, so each table adds up to 100 and to the plan's total latency."""
    from trex.summary import latency_by_precision, latency_by_type, tactic_summary

    plan = _quiet(lambda: trex.EnginePlan.from_path(engines / "trt10.4-alexnet-fp16"))
    for table in (latency_by_type(plan), latency_by_precision(plan),
                  tactic_summary(plan), tactic_summary(plan, group_tactics=True)):
        assert list(table.columns[-4:]) == ["count", "timed", "latency_ms", "latency_pct"]
        assert (table["timed"] == table["count"]).all()  # every layer of alexnet has a time
        assert table["latency_pct"].sum() == pytest.approx(100.0)
        assert table["latency_ms"].sum() == pytest.approx(plan.total_runtime)
        assert table["count"].sum() == len(plan.df)
    unprofiled = _quiet(lambda: trex.EnginePlan(engines / MNIST_LAYERS))
    assert latency_by_type(unprofiled)["latency_pct"].isna().all()


def test_attribute_columns_follow_a_row_by_row_walk(engines, tmp_path):
    """df's attribute columns, built group by group, equal a plain walk over the layers: values,
    NaN where a layer lacks a key, small dicts of scalars flattened to key.sub, any other dict one
    cell of JSON text (issue 24: never a column per key), columns in first-met order."""
    doc = json.loads((engines / "trt8.6-resnet50-int8/resnet50-int8.engine.graph.json").read_text())
    layers = doc["Layers"]
    layers[3] = dict(reversed(list(layers[3].items())))  # another key order for one layer
    layers[5]["Weights"] = 7  # a plain value where others hold {Type, Count}
    layers[9]["Extra"] = {"b": 1, "a": [2, 3]}  # a dict attribute only one layer has
    layers[2]["Late"] = "x"
    mutated = tmp_path / "engine.graph.json"
    mutated.write_text(json.dumps(doc))
    plan = _quiet(lambda: trex.EnginePlan(mutated))
    expected: dict[str, list[object]] = {}
    n = len(plan.layers)
    skip = {"Name", "LayerType", "ParameterType", "TacticName", "Inputs", "Outputs", "Metadata"}
    for row, layer in enumerate(plan.layers):
        for key, value in layer.raw_dict.items():
            if key in skip:
                continue
            flat = isinstance(value, dict) and not any(isinstance(v, (dict, list))
                                                       for v in value.values())
            if isinstance(value, dict) and not flat:
                value = json.dumps(value, separators=(",", ":"))
            items = value.items() if flat else [(None, value)]
            for sub, subvalue in items:
                name = key if sub is None else f"{key}.{sub}"
                expected.setdefault(name, [math.nan] * n)[row] = subvalue
    attributes = [c for c in plan.df.columns if c in expected]
    assert attributes == list(expected)
    assert {"Weights", "Weights.Count", "Extra", "Late"} <= set(attributes)
    assert "Extra.a" not in plan.df.columns and plan.df["Extra"].iloc[9] == '{"b":1,"a":[2,3]}'
    for name in attributes:
        got = plan.df[name].tolist()
        if name in _INT_COLUMNS:  # TREx's integer columns: 0 for absent
            continue
        assert [g if g == g else None for g in got] == \
            [e if e == e else None for e in expected[name]], name


def test_renamed_modules_keep_their_old_names_and_base_names_are_unique():
    import importlib

    import trex.report.frames
    from trex.timings import timing_records

    import trex.figures.frames
    import trex.iteration_stats
    from trex import compat

    assert trex.report.frames is trex.figures.frames and trex.report is trex.figures
    assert trex.timings is trex.iteration_stats and timing_records is trex.iteration_stats.timing_records
    assert importlib.import_module("trex.report.layers") is importlib.import_module("trex.figures.layers")
    # no two modules share a base name for different things: a repeated name is a front end of the
    # same concept (cli/, jupyter/) or one of TREx's module names (an alias)
    root = Path(trex.__file__).parent
    seen: dict[str, list[Path]] = {}
    for path in root.rglob("*.py"):
        if path.name not in ("__init__.py", "__main__.py"):
            seen.setdefault(path.stem, []).append(path.relative_to(root))
    for stem, paths in seen.items():
        if len(paths) == 1:
            continue
        inner = [p for p in paths if p.parts[0] not in ("cli", "jupyter")
                 and not (len(p.parts) == 1 and p.stem in compat.MODULES)]
        assert len(inner) <= 1, (stem, paths)


def test_byte_sums_in_numpy_equal_python_integer_sums(engines, monkeypatch):
    """Tensor bytes per layer and the activation footprint are summed in numpy where float64 is
    exact; the Python-integer sums (kept for corrupt sizes) must give the same on every engine."""
    from trex.model.table import LayerTable

    folders = [p for p in sorted(engines.iterdir()) if p.is_dir()]
    checked = 0
    for folder in folders:
        try:
            fast = _quiet(functools.partial(trex.EnginePlan.from_path, folder))
        except trex.TrexError:
            continue
        with monkeypatch.context() as patched:
            patched.setattr(LayerTable, "_exact_sizes", None)
            slow = _quiet(functools.partial(trex.EnginePlan.from_path, folder))
            assert slow.table._exact_sizes is None
            slow_facts = (slow.table.in_bytes, slow.table.out_bytes, slow.total_activation_footprint)
        assert fast.table._exact_sizes is not None or not fast.table.shape_size
        assert (fast.table.in_bytes, fast.table.out_bytes,
                fast.total_activation_footprint) == slow_facts, folder.name
        checked += 1
    assert checked >= 10


def test_huge_tensor_sizes_are_summed_exactly(engines, tmp_path):
    """Sizes beyond float64's exact range (a corrupt file's) are summed as Python integers."""
    doc = json.loads((engines / RESNET50).read_text())
    layer = next(layer for layer in doc["Layers"] if isinstance(layer, dict) and layer.get("Outputs"))
    layer["Outputs"][0]["Dimensions"] = [1 << 40, 1 << 20]  # 2**60 elements
    path = tmp_path / "huge.graph.json"
    path.write_text(json.dumps(doc))
    plan = _quiet(lambda: trex.EnginePlan(str(path)))
    row = plan.table.names.index(layer["Name"])
    assert plan.table._exact_sizes is None
    assert plan.table.out_bytes[row] >= 1 << 60
    assert plan.table.out_bytes[row] == sum(
        plan.table.shape_size[int(plan.table.use_shape[u])]
        for u in plan.table.uses(row, True))
