"""Format readers on synthetic edge cases that the real files do not cover."""

from __future__ import annotations

import json

import pytest

import trex
from trex.formats.jsonio import loads_documents
from trex.formats.layer_info import layer_info_from_json, onnx_nodes, read_layer_info
from trex.formats.profile import read_profile


def _layer(name, inputs, outputs, **extra):
    t = lambda n, fmt="Row major linear FP32 format (kLINEAR)": {  # noqa: E731
        "Name": n, "Dimensions": [1, 8, 4, 4], "Format/Datatype": fmt}
    return {"Name": name, "LayerType": "CaskConvolution", "ParameterType": "Convolution",
            "Inputs": [t(i) for i in inputs], "Outputs": [t(o) for o in outputs], **extra}


def test_trt11_io_tensors_and_split_keys(tmp_path):
    doc = {
        "Layers": [{
            "Name": "conv", "LayerType": "CaskConvolution", "ParameterType": "Convolution",
            "Inputs": [{"Name": "input_0", "Dimensions": [1, 3, 224, 224], "DataType": "Half",
                        "Format": "Channel major FP16 format where channel % 8 == 0 (kHWC8)"}],
            "Outputs": [{"Name": "out", "Dimensions": [1, 16, 112, 112], "DataType": "Half",
                         "Format": "Row major linear FP16 format (kLINEAR)"}],
            "Weights": {"Type": "Half", "Count": 432}, "Bias": {"Type": "Half", "Count": 16},
        }],
        "I/O Tensors": [
            {"Name": "input_0", "IOMode": "Input", "DataType": "Half",
             "Dimensions": [1, 3, 224, 224], "Location": "Device", "IsShapeInferenceIO": False,
             "ProfileInfo": [{"MinShape": [1, 3, 224, 224], "OptShape": [1, 3, 224, 224],
                              "MaxShape": [1, 3, 224, 224],
                              "Format": "Row major linear FP16 format (kLINEAR)"}]},
            {"Name": "out", "IOMode": "Output", "DataType": "Half",
             "Dimensions": [1, 16, 112, 112], "Location": "Device"},
        ],
    }
    path = tmp_path / "trt11.json"
    path.write_text(json.dumps(doc))
    plan = trex.EnginePlan(path)
    assert plan.bindings == ["input_0", "out"]
    first, second = plan.io_tensors
    assert (first.name, first.mode, first.precision, first.shape) == ("input_0", "input", "FP16",
                                                                      [1, 3, 224, 224])
    assert first.location == "Device" and not first.shape_io
    assert [(p.min, p.opt, p.max, p.format) for p in first.profiles] == [
        ([1, 3, 224, 224], [1, 3, 224, 224], [1, 3, 224, 224], "FP16 NCHW")]
    assert (second.mode, second.profiles) == ("output", [])
    row = plan.df.iloc[0]
    assert row["precision"] == "FP16"
    assert row["weights_size"] == (432 + 16) * 2
    assert row["total_io_size_bytes"] == 8 * 224 * 224 * 2 + 16 * 112 * 112 * 2


def test_bare_list_with_subgraph(tmp_path):
    layers = [_layer("a", ["x"], ["t"], _subgraph=0), _layer("b", ["t"], ["y"], _subgraph=1)]
    path = tmp_path / "torchtrt.json"
    path.write_text(json.dumps(layers))
    plan = trex.EnginePlan(path)
    assert list(plan.df["_subgraph"]) == [0, 1]
    assert plan.bindings == ["x", "y"]  # inferred: no Bindings key in a bare list


def test_unescaped_quote_repaired(tmp_path):
    raw = ('{"Layers": ["conv "A" + relu\\3", "pool"], "Bindings": ["in"]}')
    path = tmp_path / "names.json"
    path.write_text(raw)
    info = read_layer_info(path)
    assert [layer["Name"] for layer in info.layers] == ['conv "A" + relu\\3', "pool"]


def test_corrupt_json_reports_position(tmp_path):
    path = tmp_path / "bad.graph.json"
    path.write_text('{"Layers": [\n {"Name": "a",, }\n]}')
    with pytest.raises(trex.InputError) as err:
        read_layer_info(path)
    assert str(path) in str(err.value) and "line 2" in str(err.value)


def test_metadata_separators_become_onnx_node_lists():
    assert onnx_nodes("[ONNX Layer: a]\x1e[ONNX Layer: b]") == ["a", "b"]
    assert onnx_nodes("[ONNX Layer: a]\x1f[ONNX Layer: /b/c]") == ["a", "/b/c"]
    assert onnx_nodes("[ONNX Layer: a][ONNX Layer: b]") == ["a", "b"]
    assert onnx_nodes("") == []
    info = layer_info_from_json({"Layers": [_layer("x\x1ey", ["i"], ["o"])], "Bindings": []})
    assert info.layers[0]["Name"] == "x+y"


def test_profile_indices_beyond_nine(tmp_path):
    layers = [_layer("a", ["x"], ["t"]), _layer("b", ["t"], ["y"]),
              _layer("a [profile 12]", ["x [profile 12]"], ["t [profile 12]"]),
              {**_layer("__myl_b_myl3_1", ["t [profile 12]"], ["y [profile 12]"]),
               "LayerType": "kgen"}]
    path = tmp_path / "mp.json"
    path.write_text(json.dumps({"Layers": layers, "Bindings": ["x", "y"]}))
    plan = trex.EnginePlan(path, profile_id=12)
    assert plan.profiles == [0, 12]
    assert list(plan.df["Name"]) == ["a [profile 12]", "__myl_b_myl3_1"]
    inputs, outputs = plan.get_bindings()
    assert [t.name for t in inputs] == ["x [profile 12]"]
    assert [t.name for t in outputs] == ["y [profile 12]"]


def test_profile_multi_document_and_missing_average(tmp_path):
    docs = ('[{"count": 10}, {"name": "a", "timeMs": 2.0, "percentage": 100}]\n'
            '[{"count": 4}, {"name": "a", "timeMs": 2.0, "averageMs": 0.5, "percentage": 100}]')
    path = tmp_path / "p.json"
    path.write_text(docs)
    profile = read_profile(path)
    assert [r.count for r in profile.runs] == [10, 4]
    assert profile.runs[0].records[0].avg_ms == pytest.approx(0.2)
    assert profile.runs[1].records[0].median_ms is None


def test_documents_back_to_back():
    assert loads_documents("[1][2]  {\"a\": 3}") == [[1], [2], {"a": 3}]


def test_wrong_kind_of_file_is_named(engines):
    timing = engines / "trex-mobilenet-qat" / "mobilenet.qat.onnx.engine.timing.json"
    with pytest.raises(trex.InputError, match=r"timing.json: is per-iteration timings JSON "
                                              r"\(--exportTimes\), not layer information"):
        trex.EnginePlan(timing)
    with pytest.raises(trex.InputError, match="not a per-layer profile"):
        read_profile(timing)


def _write(tmp_path, layers, bindings=("x", "y")):
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"Layers": layers, "Bindings": list(bindings)}))
    return path


def test_consecutive_signal_wait_all_leave_df(tmp_path):
    """TREx removed signal/wait while iterating the list, so the second of two stayed behind."""
    sync = [{"Name": f"s{i}", "LayerType": kind, "Inputs": [], "Outputs": [], "StreamId": 1}
            for i, kind in enumerate(("signal", "wait", "signal", "wait"))]
    layers = [_layer("a", ["x"], ["t"]), *sync, {**_layer("b", ["t"], ["y"]), "StreamId": 1}]
    plan = trex.EnginePlan(_write(tmp_path, layers))
    assert list(plan.df["Name"]) == ["a", "b"]
    assert [layer.name for layer in plan.sync_layers] == ["s0", "s1", "s2", "s3"]
    assert len(plan.all_layers) == 6
    assert plan.stream_count == 2


def test_cycle_and_double_producer_become_warnings(tmp_path):
    layers = [_layer("a", ["x", "u"], ["t"]), _layer("b", ["t"], ["u"]),
              _layer("c", ["t"], ["y"]), _layer("d", ["t"], ["y"])]
    plan = trex.EnginePlan(_write(tmp_path, layers))
    assert any("written by more than one layer, and not as disjoint slices of an in-place "
               "concatenation: 'y'" in w for w in plan.warnings)
    assert any("cycle through 2 layers: 'a', 'b'" in w for w in plan.warnings)


def test_duplicate_names_disambiguated_and_profiled_in_order(tmp_path):
    layers = [_layer("dup", ["x"], ["t"]), _layer("dup", ["t"], ["y"])]
    graph = _write(tmp_path, layers)
    profile = tmp_path / "p.json"
    profile.write_text(json.dumps([{"count": 1},
                                   {"name": "dup", "timeMs": 1, "averageMs": 1, "percentage": 25},
                                   {"name": "dup_2", "timeMs": 3, "averageMs": 3,
                                    "percentage": 75}]))
    plan = trex.EnginePlan(graph, profile)
    assert list(plan.df["Name"]) == ["dup", "dup_2"]
    assert list(plan.df["latency.avg_time"]) == [1.0, 3.0]


def test_percentages_not_summing_to_100_warn(tmp_path):
    graph = _write(tmp_path, [_layer("a", ["x"], ["y"])])
    profile = tmp_path / "p.json"
    profile.write_text(json.dumps([{"name": "a", "timeMs": 1, "averageMs": 1, "percentage": 60}]))
    plan = trex.EnginePlan(graph, profile)
    assert any("add up to 60.0%" in w for w in plan.warnings)
    assert plan.profile_count is None  # no {"count": N} header (Torch-TensorRT style)


def test_every_dtype_has_a_size(tmp_path):
    dtypes = {"BFloat16": 2, "FP8": 1, "FP4": 0.5, "Int4": 0.5, "Bool": 1, "Int64": 8,
              "Half": 2, "Float": 4, "Int8": 1, "Int32": 4, "UInt8": 1}
    layers = []
    for i, dtype in enumerate(dtypes):
        layer = _layer(f"l{i}", [f"i{i}"], [f"o{i}"], Weights={"Type": dtype, "Count": 64})
        layer["Inputs"][0]["Format/Datatype"] = dtype
        layers.append(layer)
    plan = trex.EnginePlan(_write(tmp_path, layers, bindings=()))
    for i, size in enumerate(dtypes.values()):
        row = plan.df.iloc[i]
        assert row["weights_size"] == int(64 * size)
        assert plan.layers[i].inputs[0].size_bytes == int(128 * size)
    assert plan.df.iloc[0]["precision"] == "BF16"  # TREx labelled BFloat16 as FP32


def test_a_location_other_than_device_or_host_keeps_the_tensors(tmp_path):
    """The typed records hold TensorRT's two locations as constants; a file with another value is
    decoded again keeping it as text: every tensor and the location stay as exported."""
    layers = [_layer("a", ["x"], ["t"]), _layer("b", ["t"], ["y"])]
    layers[0]["Inputs"][0]["Location"] = "Unified"
    layers[1]["Outputs"][0]["Location"] = "Host"
    layers[1]["Inputs"][0]["Location"] = "Device"
    plan = trex.EnginePlan(_write(tmp_path, layers))
    a, b = plan.layers
    assert [t.name for t in a.inputs + a.outputs + b.inputs + b.outputs] == ["x", "t", "t", "y"]
    assert a.inputs[0].location == "Unified" and a.inputs[0].raw["Location"] == "Unified"
    assert (b.inputs[0].location, b.outputs[0].location, a.outputs[0].location) == \
        ("Device", "Host", None)
    assert [(t.name, t.location) for t in plan.io_tensors] == [("x", "Unified"), ("y", "Host")]
    assert plan.df["total_io_size_bytes"].tolist() == [2 * 8 * 4 * 4 * 4] * 2


def test_a_real_engine_with_another_location_spelling_loads_alike(engines, tmp_path):
    """Every tensor of a real export at a location spelt otherwise: the same df, each location
    kept as exported."""
    folder = engines / "trex-mobilenet-qat"
    graph = folder / "mobilenet.qat.onnx.engine.graph.json"
    text = graph.read_text()
    assert text.count('"Location":"Device"') + text.count('"Location": "Device"') > 100
    odd = tmp_path / graph.name
    odd.write_text(text.replace('"Device"', '"kDEVICE"'))
    profile = folder / "mobilenet.qat.onnx.engine.profile.json"
    plan, original = trex.EnginePlan(odd, profile), trex.EnginePlan(graph, profile)
    assert plan.df.drop(columns=["Inputs", "Outputs"]).equals(
        original.df.drop(columns=["Inputs", "Outputs"]))
    assert {t.location for t in plan.io_tensors} == {"kDEVICE"}
    assert {t.location for layer in plan.layers for t in layer.inputs + layer.outputs} == \
        {"kDEVICE"}
    assert plan.warnings == original.warnings
