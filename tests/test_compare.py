"""Comparing engines: alignment, N-way tables, figures and ``trex compare`` on the real exports."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pandas as pd
import pytest

from trex import EnginePlan
from trex.cli import main
from trex.compare import (
    align_layers,
    align_plans,
    aligned_latencies_figure,
    aligned_layers,
    aligned_merge_plans,
    check_regression,
    compare_by_precision,
    compare_by_type,
    compare_engines_layer_details,
    compare_engines_layer_latencies,
    compare_engines_overview,
    compare_engines_summaries_tbl,
    compare_layers,
    compare_onnx_nodes,
    get_plans_names,
    layer_regressions,
    link_counts,
    match_counts,
    match_layers,
    summary_table,
)
from trex.compare.sequence import _lcs, diff
from trex.errors import InputError
from trex.onnx_map import latency_by_onnx_node

RESNET18 = ("fp32", "fp16", "qat", "qat-residual", "qat-residual-qgap")

# TREx's tests/test_compare_engines.py: match_layers(plan, plan2, exact_matching=True) on its two
# test engines (mobilenet.qat vs mobilenet_v2_residuals.qat).
TREX_EXPECTED_PAIRS = [
    (0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6),
    (8, 7), (7, None), (9, 8), (10, 9), (12, 10), (11, None), (13, 11),
    (14, 12), (16, 13), (15, None), (17, 14), (18, 15), (20, 16), (19, None),
    (21, 17), (22, 18), (24, 19), (23, None), (25, 20), (26, 21), (28, 22),
    (27, None), (29, 23), (30, 24), (32, 25), (31, None), (33, 26), (34, 27),
    (36, 28), (35, None), (37, 29), (38, 30), (40, 31), (39, None), (41, 32),
    (42, 33), (44, 34), (43, None), (45, 35), (46, 36), (48, 37), (47, None),
    (49, 38), (50, 39), (52, 40), (51, None), (53, 41), (54, 42), (56, 43),
    (55, None), (57, 44), (58, 45), (60, 46), (59, None), (61, 47), (62, 48),
    (64, 49), (63, None), (65, 50), (66, 51), (67, 52), (68, 53), (69, 54),
    (70, 55), (71, 56)]


@pytest.fixture(scope="module")
def mobilenets(engines: Path) -> tuple[EnginePlan, EnginePlan]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (EnginePlan.from_path(engines / "trex-mobilenet-qat"),
                EnginePlan.from_path(engines / "trex-mobilenet-v2-residuals-qat"))


@pytest.fixture(scope="module")
def resnets(engines: Path) -> list[EnginePlan]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [EnginePlan.from_path(engines / f"a100-resnet18-{v}") for v in RESNET18]


# ------------------------------------------------------------------------- TREx's 72 entries
def test_trex_test_engines_match_trexs_72_entries(mobilenets):
    """Same 72 entries as TREx: the 57 pairs and the 15 layers only in mobilenet.qat.

    Every layer of mobilenet_v2_residuals (57) is paired with the layer TREx pairs it with, and the
    15 unpaired layers of mobilenet.qat are TREx's 15: the Q/DQ Reformats 7, 11, ..., 63 that the
    residual Q/DQ fix removed (Reformats 18 -> 3). Two differences, both deliberate:

    - Order. TREx's beam search appends a pair before the skipped layer that precedes it, giving
      ``(8, 7), (7, None)``; we list every layer in graph order, ``(7, None), (8, 7)``: the 15
      ``(i, None)`` entries move one place up, nothing else changes.
    - We also say how each pair was found. 53 convolutions share their weight name
      (``features.3.conv.0.0.weight``) although the ONNX exports numbered the nodes differently
      (``Conv_108`` vs ``Conv_93``); ``QuantizeLinear_2`` has the same name in both; the last three
      (the global-pool Reformat, the pool, the classifier's Reformat) match by type and shapes.
    """
    plan1, plan2 = mobilenets
    ours = match_layers(plan1, plan2, exact_matching=True)
    assert len(ours) == 72 == len(TREX_EXPECTED_PAIRS)
    assert set(ours) == set(TREX_EXPECTED_PAIRS)
    assert [p for p in ours if None not in p] == [p for p in TREX_EXPECTED_PAIRS if None not in p]
    only_a = [a for a, b in ours if b is None]
    assert only_a == [7, 11, 15, 19, 23, 27, 31, 35, 39, 43, 47, 51, 55, 59, 63]
    assert set(plan1.df["type"].iloc[only_a]) == {"Reformat"}
    # graph order: A's rows ascend, and so do B's
    assert [a for a, _ in ours] == list(range(72))
    assert [b for _, b in ours if b is not None] == list(range(57))
    assert match_layers(plan1, plan2, exact_matching=False) == ours

    alignment = align_layers(plan1, plan2)
    assert match_counts(alignment) == {"onnx": 0, "name": 54, "signature": 3, "position": 0,
                                       "only-in-A": 15}
    names = alignment.set_index("a")
    assert names.loc[0, "match"] == "name" and names.loc[0, "name_b"] == "QuantizeLinear_2"
    assert names.loc[8, "name_b"].startswith("features.3.conv.0.0.weight + QuantizeLinear_91")
    assert list(alignment.loc[alignment["match"] == "signature", "type"]) == [
        "Reformat", "Pooling", "Reformat"]


def test_get_plans_names(engines, mobilenets, resnets):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trex_style = [EnginePlan(next((engines / d).glob("*.graph.json")))
                      for d in ("trex-mobilenet-qat", "trex-mobilenet-v2-residuals-qat")]
    assert get_plans_names(trex_style) == ["mobilenet.qat.onnx.engine.graph.json",
                                           "mobilenet_v2_residuals.qat.onnx.engine.graph.json"]
    # fp32 and fp16 are both "resnet.onnx.engine": TREx appends the index to every name
    assert get_plans_names(resnets[:2]) == ["resnet.onnx.engine0", "resnet.onnx.engine1"]


# ------------------------------------------------------------------------- ResNet18 walkthrough
def test_resnet18_walkthrough_story(resnets):
    """TREx's QAT walkthrough: FP16 ~2x FP32; each Q/DQ fix removes reformats and time."""
    by_type = compare_by_type(resnets, RESNET18).set_index("type")
    assert list(by_type.loc["Reformat", [f"{v} layers" for v in RESNET18]]) == [1, 2, 12, 3, 1]
    totals = [p.total_runtime for p in resnets]
    assert totals == pytest.approx([2.123776, 1.016832, 1.09568, 0.731136, 0.672768], abs=1e-6)
    assert 1.8 <= totals[0] / totals[1] <= 2.3  # FP16 about twice as fast as FP32 (2.09x)
    assert totals[2] > totals[3] > totals[4]  # qat > qat-residual > qat-residual-qgap
    assert by_type.loc["Reformat", "qat ms"] == pytest.approx(0.278528, abs=1e-6)
    assert by_type.loc["Reformat", "qat-residual-qgap speedup"] == pytest.approx(
        0.045056 / 0.095232, rel=1e-6)
    assert by_type.loc["ConvActPool", "qat-residual layers"] == 1
    assert pd.isna(by_type.loc["ConvActPool", "qat ms"])

    by_precision = compare_by_precision(resnets, RESNET18).set_index("precision")
    assert list(by_precision.loc["INT8", [f"{v} layers" for v in RESNET18]]) == [0, 0, 21, 22, 22]
    assert list(by_precision.loc["FP16", [f"{v} layers" for v in RESNET18]]) == [0, 24, 11, 0, 0]
    assert by_precision.loc["FP32", "fp32 ms"] == pytest.approx(2.123776, abs=1e-6)

    summary = summary_table(resnets, RESNET18).set_index("attribute")
    assert summary.loc["layers"].tolist() == [24, 25, 35, 25, 23]
    assert summary.loc["precision mix (layers)", "qat"] == "INT8 21, FP16 11, FP32 3"
    assert summary.loc["throughput (qps, trtexec)", "qat-residual-qgap"] == 1990.03
    assert summary.loc["builder: Precision"].tolist() == [
        "FP32", "FP32+FP16", "FP32+FP16+INT8", "FP32+FP16+INT8", "FP32+FP16+INT8"]
    assert set(summary.loc["device"]) == {"NVIDIA A100 80GB PCIe"}
    assert summary.loc["speedup vs first (sum of layers)", "fp16"] == pytest.approx(2.0886, abs=1e-4)


def test_resnet18_alignment_accounts_for_every_removed_reformat(resnets):
    """Layers only in the earlier engine are exactly what each fix removed (12 -> 3 -> 1)."""
    qat, residual, qgap = resnets[2:]
    a = align_layers(qat, residual)
    assert match_counts(a) == {"onnx": 0, "name": 22, "signature": 3, "position": 0,
                               "only-in-A": 10}
    gone = a[a["match"] == "only-in-A"]["type"].value_counts().to_dict()
    assert gone == {"Reformat": 9, "Pooling": 1}  # 12 - 9 = 3; MaxPool fused into ConvActPool
    # conv1 fused with the max-pool: paired with the ConvActPool by its weight name
    row = a.set_index("a").loc[1]
    assert row["match"] == "name" and row["name_b"].startswith("conv1.weight") and row["b"] == 1
    assert residual.df["type"].iat[1] == "ConvActPool"
    # TensorRT swapped layer2.0's conv2 and downsample: the weight names pair them across
    swapped = a.set_index("a").loc[[12, 13], ["b", "match"]]
    assert swapped["b"].tolist() == [8, 7] and set(swapped["match"]) == {"name"}

    b = align_layers(residual, qgap)
    assert match_counts(b) == {"onnx": 0, "name": 22, "signature": 1, "position": 0,
                               "only-in-A": 2}
    assert set(b[b["match"] == "only-in-A"]["type"]) == {"Reformat"}  # 3 - 2 = 1

    # No names in common (fp32's are Conv_15...): structure pairs the swapped convolutions, and
    # conv1 + ReLU with the ConvActPool (9,408 weights, reads the network input); MaxPool_2 is
    # the one fp32 layer the ConvActPool absorbed.
    c = align_layers(resnets[0], qgap)
    assert match_counts(c) == {"onnx": 0, "name": 0, "signature": 22, "position": 0,
                               "only-in-A": 2, "only-in-B": 1}
    assert c.set_index("a").loc[0, "name_b"].startswith("conv1.weight")
    assert c.loc[c["match"] == "only-in-A", "name_a"].tolist()[0] == "MaxPool_2"
    pairs = c.set_index("a")
    assert pairs.loc[8, "name_a"] == "Conv_15" and "layer2.0.conv2" in pairs.loc[8, "name_b"]
    assert "downsample" in pairs.loc[9, "name_b"]
    # Gemm: fp32 writes its [32, 1000] output binding through two NoOps, folded like qgap's.
    assert pairs.loc[23, "match"] == "signature"


def test_resnet18_n_way_alignment(resnets):
    alignment = align_plans(resnets, names=RESNET18)
    counts = link_counts(alignment, RESNET18)
    # fp16 -> qat: Gemm_48 pairs with fc (512,000 weights, the global pool before it) by structure;
    # it used to be a "position" pair (its output is [32, 1000, 1, 1] in fp16, [32, 1000] in qat).
    assert counts.to_dict("records") == [
        {"from": "fp32", "to": "fp16", "onnx": 0, "name": 23, "signature": 0, "position": 0,
         "only in from": 1, "only in to": 2},
        {"from": "fp16", "to": "qat", "onnx": 0, "name": 0, "signature": 24, "position": 0,
         "only in from": 1, "only in to": 11},
        {"from": "qat", "to": "qat-residual", "onnx": 0, "name": 22, "signature": 3,
         "position": 0, "only in from": 10, "only in to": 0},
        {"from": "qat-residual", "to": "qat-residual-qgap", "onnx": 0, "name": 22,
         "signature": 1, "position": 0, "only in from": 2, "only in to": 0},
    ]
    assert len(alignment) == 37
    # every layer of every engine is in exactly one row
    for plan, name in zip(resnets, RESNET18):
        assert sorted(alignment[name].dropna().astype(int)) == list(range(len(plan.df)))
    # a conv present everywhere; a reformat only in qat
    assert alignment["match"].value_counts()["only-in-C"] == 9

    layers = compare_layers(resnets, RESNET18, alignment=alignment)
    # the deltas of the rows add up to the change of the total
    assert layers["delta ms"].sum() == pytest.approx(0.672768 - 2.123776, abs=1e-9)
    worst = layer_regressions(resnets, RESNET18, top=3, alignment=alignment)
    assert worst["qat-residual-qgap name"].iat[0] == "QuantizeLinear_2"  # input quantization
    assert worst["delta ms"].iat[0] == pytest.approx(0.095232, abs=1e-6)
    assert worst["match"].iat[0] == "signature"
    best = layer_regressions(resnets, RESNET18, alignment=alignment).iloc[-1]
    assert best["fp32 name"] == "Conv_0 + Relu_1" and best["delta ms"] < -0.4


# ------------------------------------------------------------------------- counterparts by structure
WEIGHTED = ("Convolution", "ConvActPool")
PAIRS = [("fp16", "qat"), ("fp32", "qat"), ("qat", "qat-residual"), ("fp16", "qat-residual")]


def _expected_conv_pairs(a: EnginePlan, b: EnginePlan) -> list[tuple[int, int]]:
    """Counterparts from what the graphs say: weighted layers grouped by weights count (which
    precision does not change), the k-th of a count in A with the k-th in B in graph order; each
    pair reads the same input shape and writes the same number of channels."""
    def groups(plan: EnginePlan) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for i, layer in enumerate(plan.layers):
            if layer.type in WEIGHTED:
                out.setdefault(layer.weights_cnt, []).append(i)
        return out

    ga, gb = groups(a), groups(b)
    assert {k: len(v) for k, v in ga.items()} == {k: len(v) for k, v in gb.items()}
    pairs = sorted(p for count in ga for p in zip(ga[count], gb[count]))
    for i, j in pairs:
        la, lb = a.layers[i], b.layers[j]
        assert la.inputs[0].shape[1:] == lb.inputs[0].shape[1:]
        assert la.outputs[0].shape[1] == lb.outputs[0].shape[1]
    return pairs


def _pairs(alignment: pd.DataFrame) -> list[tuple[int, int]]:
    both = alignment.dropna(subset=["a", "b"])
    return sorted(zip(both["a"].astype(int), both["b"].astype(int)))


@pytest.mark.parametrize(("first", "second"), PAIRS)
def test_every_convolution_pairs_with_its_counterpart(resnets, first, second):
    """FP16 vs QAT (and FP32 vs QAT, QAT vs QAT with the residual fix): all 21 convolutions, or 20
    and conv1 with the ConvActPool that absorbed it and the max-pool; what only one engine has
    is a reformat (Q/DQ) or that max-pool."""
    plans = dict(zip(RESNET18, resnets))
    a, b = plans[first], plans[second]
    expected = _expected_conv_pairs(a, b)
    assert len(expected) == 21
    alignment = align_layers(a, b)
    weighted = [(i, j) for i, j in _pairs(alignment) if a.layers[i].type in WEIGHTED]
    assert weighted == expected
    rows = alignment.dropna(subset=["a", "b"])
    conv_rows = rows[[a.layers[int(i)].type in WEIGHTED for i in rows["a"]]]
    # conv1 and the ConvActPool that absorbed it and the max-pool: a real counterpart, but layers
    # of different types are never a confident pair
    same_type = [a.layers[int(i)].type == b.layers[int(j)].type
                 for i, j in zip(conv_rows["a"], conv_rows["b"])]
    assert sum(not t for t in same_type) == (1 if "ConvActPool" in set(b.df["type"]) else 0)
    for row, same in zip(conv_rows.itertuples(), same_type):
        assert row.confidence == ("high" if same else "low")
        assert ("types differ" in row.evidence) is not same
    assert conv_rows["evidence"].str.contains("weights").all()
    only = alignment[alignment["match"].str.startswith("only")]
    fused_pool = {"ConvActPool"} & {layer.type for layer in b.layers}
    assert set(only["type"]) == ({"Reformat", "Pooling"} if fused_pool else {"Reformat"})
    if fused_pool:
        pool = only[only["type"] == "Pooling"]
        assert pool["name_a"].str.startswith("MaxPool").tolist() == [True]


def _renamed_copy(engines: Path, tmp_path: Path, folder: str, prefix: str) -> Path:
    """A real ResNet18 export with TensorFlow-style names: ``layer2.0.conv2 + layer2.0.add +
    layer2.0.relu`` (``quant_`` before the convolution's name in the QAT variant), so that the
    block-closing Add/ReLU fused into a different convolution in each engine is a shared name."""
    src = engines / f"a100-resnet18-{folder}"
    graph_file = next(src.glob("*.graph.json"))
    profile_file = next(src.glob("*.profile.json"))
    graph = json.loads(graph_file.read_text(), strict=False)
    profile = json.loads(profile_file.read_text(), strict=False)
    renamed = {}
    for layer in graph["Layers"]:
        parts = layer["Name"].split(" + ")
        weight = next((p for p in parts if p.endswith(".weight")), None)
        if weight is None:
            continue
        conv = weight[:-len(".weight")]
        block = conv.rsplit(".", 2)[0] if ".downsample." in conv else conv.rsplit(".", 1)[0]
        name = prefix + conv
        if any(p.startswith("Add_") for p in parts):
            name += f" + {block}.add + {block}.relu"
        renamed[layer["Name"]] = name
        layer["Name"] = name
    for row in profile[1:]:
        row["name"] = renamed.get(row["name"], row["name"])
    out = tmp_path / f"tf-{folder}"
    out.mkdir()
    (out / "tf.graph.json").write_text(json.dumps(graph))
    (out / "tf.profile.json").write_text(json.dumps(profile))
    return out


def test_a_shared_fused_add_does_not_pair_different_convolutions(engines, tmp_path):
    """qat and qat-residual fuse layer{2,3,4}.0's Add into different convolutions (downsample vs
    conv2). With TensorFlow-style names the Add/ReLU names are shared and the convolutions' own
    names differ by ``quant_``: fragments alone pair the downsample with conv2 (the issue's
    ``conv2_block1_0`` with ``quant_conv2_block1_3``) and leave both block-1 convolutions alone."""
    from trex.compare.align import _overlap_pairs
    from trex.compare.names import name_parts as _name_parts

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = EnginePlan.from_path(_renamed_copy(engines, tmp_path, "qat", ""))
        b = EnginePlan.from_path(_renamed_copy(engines, tmp_path, "qat-residual", "quant_"))
    parts_a = [_name_parts(layer.name) for layer in a.layers]
    parts_b = [_name_parts(layer.name) for layer in b.layers]
    by_fragment = _overlap_pairs(parts_a, parts_b, list(range(len(parts_a))),
                                 list(range(len(parts_b))), [x.type for x in a.layers],
                                 [x.type for x in b.layers])
    wrong = [(a.layers[i].name, b.layers[j].name) for i, j in by_fragment
             if a.layers[i].weights_cnt != b.layers[j].weights_cnt]
    assert ("layer2.0.downsample.0 + layer2.0.add + layer2.0.relu",
            "quant_layer2.0.conv2 + layer2.0.add + layer2.0.relu") in wrong
    assert len(wrong) == 3  # stages 2-4 (layer2..layer4)

    expected = _expected_conv_pairs(a, b)
    alignment = align_layers(a, b)
    assert [(i, j) for i, j in _pairs(alignment) if a.layers[i].type in WEIGHTED] == expected
    assert not alignment["type"][alignment["match"].str.startswith("only")].isin(WEIGHTED).any()
    downsample = alignment[alignment["name_a"].str.startswith("layer3.0.downsample.0")].iloc[0]
    assert downsample["name_b"] == "quant_layer3.0.downsample.0"
    assert downsample["confidence"] == "high" and "weights" in downsample["evidence"]
    # the regressions table starts with real counterparts, not with convolutions left alone
    worst = layer_regressions([a, b], ["A", "B"], top=5)
    alone = worst[(worst["A name"] == "") | (worst["B name"] == "")]
    assert not alone["type"].isin(WEIGHTED).any()


def _bottleneck(tmp_path: Path, name: str, layers: list[tuple]) -> EnginePlan:
    """A generated engine: (name, type, weights, inputs, outputs) with tensors as (name, C, H)."""
    def tensor(spec):
        tname, channels, size, dtype = spec
        return {"Name": tname, "Location": "Device", "Dimensions": [1, channels, size, size],
                "Format/Datatype": f"Row major linear {dtype} format"}

    out = []
    for lname, ltype, weights, ins, outs in layers:
        layer = {"Name": lname, "LayerType": "CaskConvolution" if ltype == "Convolution" else ltype,
                 "ParameterType": ltype, "Inputs": [tensor(t) for t in ins],
                 "Outputs": [tensor(t) for t in outs]}
        if weights:
            layer["Weights"] = {"Type": "Half", "Count": weights}
        out.append(layer)
    path = tmp_path / f"{name}.graph.json"
    path.write_text(json.dumps({"Layers": out, "Bindings": ["x", "out"]}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return EnginePlan(path)


def test_graph_position_pairs_convolutions_with_equal_weights(tmp_path):
    """ResNet50's first bottleneck as TensorFlow exports it: the shortcut conv ``_0`` and the
    expanding conv ``_3`` are both 1x1, 64 -> 256 channels, 16,384 weights, on 56x56. FP16 fuses
    the block's Add into ``_0``, INT8 into ``quant_..._3``: same weights, same shapes, shared Add
    and ReLU names. Only the graph tells them apart: ``_0`` reads the pool, ``_3`` reads ``_2``."""
    x, p, pq = ("x", 64, 112, "Half"), ("p", 64, 56, "Half"), ("pq", 64, 56, "Int8")
    fp16 = _bottleneck(tmp_path, "fp16", [
        ("pool", "Pooling", 0, [x], [p]),
        ("conv2_block1_1_conv + conv2_block1_1_relu", "Convolution", 4096, [p], [("a", 64, 56, "Half")]),
        ("conv2_block1_2_conv + conv2_block1_2_relu", "Convolution", 36864, [("a", 64, 56, "Half")],
         [("b", 64, 56, "Half")]),
        ("conv2_block1_3_conv", "Convolution", 16384, [("b", 64, 56, "Half")], [("c", 256, 56, "Half")]),
        ("conv2_block1_0_conv + conv2_block1_add + conv2_block1_out", "Convolution", 16384,
         [p, ("c", 256, 56, "Half")], [("out", 256, 56, "Half")]),
    ])
    int8 = _bottleneck(tmp_path, "int8", [
        ("pool", "Pooling", 0, [x], [p]),
        ("quant_pool", "Reformat", 0, [p], [pq]),
        ("quant_conv2_block1_0_conv", "Convolution", 16384, [pq], [("s", 256, 56, "Int8")]),
        ("quant_conv2_block1_1_conv + quant_conv2_block1_1_relu", "Convolution", 4096, [pq],
         [("a", 64, 56, "Int8")]),
        ("quant_conv2_block1_2_conv + quant_conv2_block1_2_relu", "Convolution", 36864,
         [("a", 64, 56, "Int8")], [("b", 64, 56, "Int8")]),
        ("quant_conv2_block1_3_conv + conv2_block1_add + conv2_block1_out", "Convolution", 16384,
         [("b", 64, 56, "Int8"), ("s", 256, 56, "Int8")], [("out", 256, 56, "Half")]),
    ])
    alignment = align_layers(fp16, int8).dropna(subset=["a", "b"])
    pairs = dict(zip(alignment["name_a"], alignment["name_b"]))
    assert pairs["conv2_block1_0_conv + conv2_block1_add + conv2_block1_out"] == \
        "quant_conv2_block1_0_conv"
    assert pairs["conv2_block1_3_conv"] == \
        "quant_conv2_block1_3_conv + conv2_block1_add + conv2_block1_out"
    assert len(pairs) == 5 and set(alignment["confidence"]) == {"high"}


def test_precision_speedups_compare_aligned_layers_only(resnets):
    """Per precision, the speedup covers aligned counterparts in that precision in both engines;
    the totals of unrelated layers are not divided (fp32's 24 FP32 layers against the one FP32
    reformat of fp16 would read 26x)."""
    fp32, fp16, qat, residual, _ = resnets
    df = compare_by_precision([fp32, fp16], ["fp32", "fp16"]).set_index("precision")
    assert df.loc["FP32", "fp32 ms"] / df.loc["FP32", "fp16 ms"] == pytest.approx(26.25, abs=0.01)
    assert pd.isna(df.loc["FP32", "fp16 speedup"]) and df.loc["FP32", "fp16 pairs"] == 0
    assert pd.isna(df.loc["FP16", "fp16 speedup"]) and df.loc["FP16", "fp16 pairs"] == 0

    df = compare_by_precision([qat, residual], ["qat", "res"]).set_index("precision")
    convs = _expected_conv_pairs(qat, residual)  # all INT8 in both
    ms_a = sum(qat.df["latency.avg_time"].iat[i] for i, _ in convs)
    ms_b = sum(residual.df["latency.avg_time"].iat[j] for _, j in convs)
    assert df.loc["INT8", "res pairs"] == 21
    assert df.loc["INT8", "res speedup"] == pytest.approx(ms_a / ms_b)
    # FP32: QuantizeLinear_2 reads the FP32 input in both; the other FP32 layers have no FP32
    # counterpart (MaxPool_12 fused into the INT8 ConvActPool, the pool runs in FP16 in qat)
    assert df.loc["FP32", "res pairs"] == 1
    assert df.loc["FP32", "res speedup"] == pytest.approx(
        qat.df["latency.avg_time"].iat[0] / residual.df["latency.avg_time"].iat[0])


# ------------------------------------------------------------------------- ONNX node names
def _split_copy(engines: Path, tmp_path: Path) -> Path:
    """trt8.6-resnet50-int8 as another build would give it: renamed layers, no input reformat,
    layer1.0's conv3+Add+ReLU split in a conv and a PointWise, and layer2.0's conv1 twice as slow."""
    src = engines / "trt8.6-resnet50-int8"
    graph = json.loads((src / "resnet50-int8.engine.graph.json").read_text(), strict=False)
    profile = json.loads((src / "resnet50-int8.engine.profile.json").read_text(), strict=False)
    avg = {r["name"]: r["averageMs"] for r in profile[1:]}
    layers, rows = [], [profile[0]]
    for layer in graph["Layers"]:
        name = layer["Name"]
        if layer.get("LayerType") == "Reformat" and name.startswith("Reformatting CopyNode for Input"):
            reformatted = layer["Outputs"][0]["Name"]
            continue
        layer = json.loads(json.dumps(layer))
        for t in layer.get("Inputs", []):
            if t["Name"] == reformatted:
                t["Name"] = "input0"
        new_name = f"layer{len(layers)}"
        ms = avg.get(name, 0.0) * (2 if name.startswith("/backbone/layer2/layer2.0/conv1/") else 1)
        if name.startswith("/backbone/layer1/layer1.0/conv3/Conv"):
            conv = dict(layer, Name=new_name, Inputs=layer["Inputs"][:1],
                        Outputs=[dict(layer["Outputs"][0], Name="split")],
                        Metadata="[ONNX Layer: /backbone/layer1/layer1.0/conv3/Conv]")
            add = {"Name": f"{new_name}.add", "LayerType": "PointWise", "ParameterType": "PointWise",
                   "Inputs": [dict(layer["Outputs"][0], Name="split"), *layer["Inputs"][1:]],
                   "Outputs": layer["Outputs"],
                   "Metadata": "[ONNX Layer: /backbone/layer1/layer1.0/Add]\x1e"
                               "[ONNX Layer: /backbone/layer1/layer1.0/relu_2/Relu]"}
            layers += [conv, add]
            rows += [{"name": conv["Name"], "timeMs": 1.0, "averageMs": ms, "medianMs": ms,
                      "percentage": 1.0},
                     {"name": add["Name"], "timeMs": 1.0, "averageMs": 0.002, "medianMs": 0.002,
                      "percentage": 1.0}]
            continue
        layer["Name"] = new_name
        layers.append(layer)
        rows.append({"name": new_name, "timeMs": 1.0, "averageMs": ms, "medianMs": ms,
                     "percentage": 1.0})
    out = tmp_path / "split"
    out.mkdir()
    (out / "split.graph.json").write_text(json.dumps({"Layers": layers,
                                                      "Bindings": graph["Bindings"]}))
    (out / "split.profile.json").write_text(json.dumps(rows))
    return out


def test_onnx_alignment_and_per_node_latency(engines, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        original = EnginePlan.from_path(engines / "trt8.6-resnet50-int8")
        other = EnginePlan.from_path(_split_copy(engines, tmp_path))
    assert len(original.df) == 57 and len(other.df) == 57
    a = align_layers(original, other)
    assert match_counts(a) == {"onnx": 56, "name": 0, "signature": 0, "position": 0,
                               "only-in-A": 1, "only-in-B": 1}
    only = a[a["match"].str.startswith("only")]
    assert only["name_a"].str.startswith("Reformatting CopyNode for Input").sum() == 1
    assert only["name_b"].tolist() == ["", "layer4.add"]  # the PointWise split off
    split = a.set_index("a").loc[5]  # conv3 + Add + ReLU: paired with the conv that has conv3
    assert split["match"] == "onnx" and split["name_b"] == "layer4" and split["type"] == "Convolution"

    nodes = compare_onnx_nodes([original, other], ["A", "B"]).set_index("onnx_node")
    assert len(nodes) == 122 and nodes.attrs["without_metadata"] == []
    # One definition of a node's time: a fused layer's time goes to its compute-heavy node (its
    # Conv), as in the ONNX-op table; conv3 + Add + ReLU gives its whole time to conv3/Conv.
    conv3 = original.df["latency.avg_time"].iat[5]
    assert nodes.loc["/backbone/layer1/layer1.0/conv3/Conv", "A ms"] == pytest.approx(conv3)
    assert nodes.loc["/backbone/layer1/layer1.0/Add", "A ms"] == 0.0
    # B's PointWise layer (0.002 ms) lists Add and Relu, neither compute-heavy: half each
    assert nodes.loc["/backbone/layer1/layer1.0/Add", "B ms"] == pytest.approx(0.001)
    assert nodes.loc["/backbone/layer1/layer1.0/conv3/Conv", "B ms"] == pytest.approx(conv3)
    conv1 = nodes.loc["/backbone/layer2/layer2.0/conv1/Conv"]
    assert conv1["B ms"] == pytest.approx(2 * conv1["A ms"]) and conv1["B speedup"] == 0.5
    worst = nodes.sort_values("delta ms", ascending=False).index[:1]
    assert list(worst) == ["/backbone/layer2/layer2.0/conv1/Conv"]
    # the same split as latency_by_onnx_node, and every engine's node times add up to its total
    for plan, name in ((original, "A"), (other, "B")):
        by_node = latency_by_onnx_node(plan).set_index("onnx_node")["latency_ms"]
        assert nodes[f"{name} ms"].dropna().to_dict() == pytest.approx(
            by_node.drop("(TensorRT)", errors="ignore").to_dict())
        untied = plan.df["latency.avg_time"][[not m for m in plan.df["Metadata"]]].sum()
        assert nodes[f"{name} ms"].sum() == pytest.approx(plan.total_runtime - untied)


def test_onnx_nodes_say_when_engines_have_no_metadata(engines, mobilenets):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        resnet50 = EnginePlan.from_path(engines / "trt8.6-resnet50-int8")
    # pre-8.6 engines: no Metadata, so the nodes come from the fused layer names (said so)
    named = compare_onnx_nodes(list(mobilenets))
    assert named.attrs["without_metadata"] == [p.name for p in mobilenets]
    assert "Conv_726" in set(named["onnx_node"])
    mixed = compare_onnx_nodes([resnet50, mobilenets[0]], ["r50", "mobilenet"])
    assert mixed.attrs["without_metadata"] == ["mobilenet"]
    r50 = mixed[mixed["r50 layers"] > 0]
    assert len(r50) == 122 and r50["mobilenet ms"].isna().all()
    # a node counts each layer listing it once: 56 layers list 122 nodes
    assert r50["r50 layers"].sum() == sum(len(m) for m in resnet50.df["Metadata"])


# ------------------------------------------------------------------------- TREx's tables
def test_trex_tables(mobilenets):
    plan1, plan2 = mobilenets
    pairs = match_layers(plan1, plan2, True)
    merged = aligned_merge_plans(plan1, plan2, pairs)
    assert merged.shape == (72, 14)
    assert list(merged.columns[:4]) == ["type", "avg_time (1)", "avg_time (2)", "speedup (2)"]
    assert merged["avg_time (1)"].sum() == pytest.approx(plan1.total_runtime)
    assert merged["avg_time (2)"].sum() == pytest.approx(plan2.total_runtime)
    row = merged.iloc[7]  # (7, None): a reformat removed by the fix
    assert row["type"] == "Reformat" and row[plan2.name] == "" and row["avg_time (2)"] == 0
    assert row["in-p (1)"] == "FP16" and row["out-p (1)"] == "INT8"
    with_kinds = aligned_merge_plans(plan1, plan2, align_layers(plan1, plan2))
    assert with_kinds["match"].value_counts().to_dict() == {"name": 54, "only-in-A": 15,
                                                            "signature": 3}

    df1, df2 = aligned_layers(plan1, plan2, pairs)
    assert len(df1) == len(df2) == 72
    assert (df2["name"] == "").sum() == 15 and (df1["name"] == "").sum() == 0
    r1, r2 = aligned_layers(plan1, plan2, pairs, "Reformat")
    assert len(r1) == 18 and (r2["name"] != "").sum() == 3

    details = compare_engines_layer_details(plan1, plan2, 8).set_index("attribute")
    assert details.loc["tactic", "comparison"] == "Same"
    assert details.loc["avg_time", "comparison"] == pytest.approx(0.006892 / 0.006667, rel=1e-3)
    assert details.loc["match", plan1.name] == "name"

    tbl = compare_engines_summaries_tbl([plan1, plan2])
    assert tbl.shape == (29, 3)
    assert tbl.loc["Layers"].tolist() == ["Layers", "72", "57"]
    assert tbl.loc["Throughput", plan2.name] == 3765.71
    assert compare_engines_summaries_tbl([plan1, plan2], "horizontal").shape == (2, 30)


def test_plans_are_never_mutated_or_renamed(resnets):
    """TREx renamed plans with equal names (``.0``/``.1``); we never touch them."""
    fp32, fp16 = resnets[:2]
    assert fp32.name == fp16.name == "resnet.onnx.engine"
    before = [(p.name, p.df.copy(), len(p.layers)) for p in (fp32, fp16)]
    merged = aligned_merge_plans(fp32, fp16, match_layers(fp32, fp16))
    assert list(merged.columns[12:14]) == ["resnet.onnx.engine.0", "resnet.onnx.engine.1"]
    compare_layers([fp32, fp16])
    compare_engines_layer_details(fp32, fp16, 0)
    for (name, df, n), plan in zip(before, (fp32, fp16)):
        assert plan.name == name and len(plan.layers) == n
        pd.testing.assert_frame_equal(plan.df, df)


# ------------------------------------------------------------------------- figures
def test_figures(mobilenets, resnets):
    import plotly.graph_objects as go

    figs = compare_engines_overview(resnets, RESNET18)
    assert list(figs) == [
        "Stacked latencies by layer type", "Stacked latencies by layer type (BS normalized)",
        "Layer count comparison", "Layer-type latency comparison", "Layer latency by precision",
        "Precision counts", "Output precision counts", "Precision latency", "Throughput",
        "Aligned layer latencies"]
    assert all(isinstance(f, go.Figure) for f in figs.values())
    stacked = figs["Stacked latencies by layer type"]
    bars = {t.name: t.y for t in stacked.data if t.type == "bar"}
    assert set(bars) == {"Convolution", "Pooling", "Reformat", "ConvActPool"}
    assert sum(b[2] for b in bars.values()) == pytest.approx(1.09568)
    throughput = next(t for t in stacked.data if t.name == "Throughput (IPS)")
    assert list(throughput.y) == [499.294, 1155.36, 1130.01, 1823.37, 1990.03]
    normalized = figs["Stacked latencies by layer type (BS normalized)"]
    assert sum(t.y[0] for t in normalized.data) == pytest.approx(2.123776 / 32)
    assert len(figs["Precision counts"].data) == 5
    assert len(figs["Aligned layer latencies"].data) == 5
    assert len(figs["Aligned layer latencies"].data[0].x) == 37

    df, fig = compare_engines_layer_latencies(*mobilenets, threshold=0.03)
    assert len(df) == 72 and len(fig.data) == 2 and len(fig.data[0].x) == 72
    assert (df["verdict"] != "").sum() == 57  # every pair gets a verdict
    reformats, _ = compare_engines_layer_latencies(*mobilenets, choice="Reformat")
    assert len(reformats) == 18
    mismatch, _ = compare_engines_layer_latencies(*mobilenets, choice="Precision Mismatch")
    # the 15 removed reformats and the 15 projection convs whose output became INT8
    assert len(mismatch) == 30
    convs = mismatch[mismatch["type"] == "Convolution"]
    assert len(convs) == 15 and set(convs["out-p (1)"]) == {"FP16", "FP32"}
    assert set(convs["out-p (2)"]) == {"INT8"}
    assert len(aligned_latencies_figure(list(mobilenets)).data) == 2


def test_import_does_not_load_plotly():
    code = ("import sys, trex, trex.compare, trex.cli; "
            "print('plotly' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ------------------------------------------------------------------------- sequence diff
def test_diff_is_an_order_preserving_matching_and_exact_on_small_inputs():
    rng = random.Random(5)
    for _ in range(200):
        a = [rng.randrange(4) for _ in range(rng.randrange(0, 30))]
        b = [rng.randrange(4) for _ in range(rng.randrange(0, 30))]
        pairs = diff(a, b)
        assert all(a[i] == b[j] for i, j in pairs)
        assert all(i1 < i2 and j1 < j2 for (i1, j1), (i2, j2) in zip(pairs, pairs[1:]))
        assert len(pairs) == len(_lcs(a, b, 0, len(a), 0, len(b)))  # a longest one


def test_diff_is_near_linear_on_long_periodic_sequences():
    """50,000 keys with a period of 7 and 1 in 10 deleted: no unique key to anchor on."""
    a = [i % 7 for i in range(50_000)]
    b = [k for i, k in enumerate(a) if i % 10 != 3]
    start = time.perf_counter()
    pairs = diff(a, b)
    elapsed = time.perf_counter() - start
    assert len(pairs) == len(b)
    assert elapsed < 5.0  # about 0.2 s; quadratic would take minutes


def test_weighted_lcs_prefers_compute_layers_over_reformats():
    # keys: 0 = a Reformat (weight 1), 1 = a convolution (weight 2)
    assert _lcs([1, 0], [0, 1], 0, 2, 0, 2, weight=[1, 2]) == [(0, 1)]
    assert _lcs([1, 0], [0, 1], 0, 2, 0, 2) == [(1, 0)]  # unweighted: earliest match


# ------------------------------------------------------------------------- regression gate
def test_check_regression(resnets):
    fp32, fp16, qat, _, qgap = resnets
    slower = check_regression([fp16, fp32], 50.0, names=["fp16", "fp32"])
    assert slower.failed and slower.slower_pct == pytest.approx(108.86, abs=0.01)
    assert "fp32 2.1238 ms vs fp16 1.0168 ms, 108.9% slower; FAIL" in slower.message
    faster = check_regression([qat, qgap], 0.0)
    assert not faster.failed and faster.slower_pct == pytest.approx(-38.6, abs=0.1)
    tput = check_regression([fp16, fp32], 100.0, "throughput")
    assert tput.failed and tput.slower_pct == pytest.approx((1155.36 / 499.294 - 1) * 100)
    gpu = check_regression([fp32, fp16], 0.0, "gpu-compute")
    assert gpu.first == 1.99072 and gpu.last == 0.862183 and not gpu.failed
    with pytest.raises(ValueError):
        check_regression([fp32, fp16], 1.0, "speed")


# ------------------------------------------------------------------------- trex compare
def test_cli_compare_table(engines, capsys):
    paths = [str(engines / f"a100-resnet18-{v}") for v in ("qat", "qat-residual", "qat-residual-qgap")]
    assert main(["compare", *paths, "--top", "4"]) == 0
    out = capsys.readouterr().out
    assert "A  a100-resnet18-qat " in out and "C  a100-resnet18-qat-residual-qgap" in out
    assert "latency (ms, sum of layers)       1.0957" in out
    assert "precision mix (layers)            INT8 21, FP16 11, FP32 3" in out
    # One text form per quantity, as trex summary prints them (JSON keeps the numbers).
    assert re.search(r"^weights +11,702,112 B +11,702,112 B +11,702,112 B$", out, flags=re.M)
    assert re.search(r"^throughput \(qps, trtexec\) +1130\.01 ", out, flags=re.M)
    assert re.search(r"^compute capability +8\.0 +8\.0 +8\.0$", out, flags=re.M)
    assert "Reformat     0.2785  0.1157  0.0952        12         3         1     2.4071" in out
    assert "A     B      0    22          3         0            10           0" in out
    assert "(C vs A; 4 of 35 rows)" in out
    assert "Reformat     name       high        QuantizeLinear_2" in out
    assert "INT8       0.7107  0.6195  0.5775        21        22        22     1.1723     1.2641       21" \
        in out
    assert "ONNX nodes: no engine lists ONNX node names" in out
    assert "Regression gate" not in out


def test_cli_compare_short_names_and_gate_failure(engines, capsys):
    paths = [str(engines / f"a100-resnet18-{v}") for v in ("fp16", "fp32")]
    assert main(["compare", *paths, "--names", "fp16,fp32", "--fail-if-slower", "50"]) == 1
    out = capsys.readouterr().out
    assert "Convolution   0.8571   1.9753           21           21        0.4339" in out
    assert ("Regression gate: total latency (sum of the layers' average latencies): fp32 2.1238 ms "
            "vs fp16 1.0168 ms, 108.9% slower; FAIL: more than 50% slower") in out
    assert main(["compare", *paths, "--fail-if-slower", "110"]) == 0
    assert "ok (limit 110% slower)" in capsys.readouterr().out
    assert main(["compare", *paths[::-1], "--fail-if-slower", "0", "--metric", "throughput"]) == 0
    assert "throughput: a100-resnet18-fp16 1155.36 qps vs a100-resnet18-fp32 499.29 qps, 56.8% faster" \
        in capsys.readouterr().out


def test_cli_compare_json(engines, capsys):
    paths = [str(engines / d) for d in ("trex-mobilenet-qat", "trex-mobilenet-v2-residuals-qat")]
    code = main(["compare", *paths, "-f", "json", "--top", "0", "--fail-if-slower", "0",
                 "--metric", "gpu-compute"])
    captured = capsys.readouterr()
    assert code == 0  # 26.5% faster (a negative limit is refused: see test_hardening.py)
    data = json.loads(captured.out)
    assert [e["label"] for e in data["engines"]] == ["trex-mobilenet-qat",
                                                     "trex-mobilenet-v2-residuals-qat"]
    assert [e["layers"] for e in data["engines"]] == [72, 57]
    assert data["engines"][0]["latency_ms"] == pytest.approx(0.47038876)
    assert data["alignment"] == [{"from": "trex-mobilenet-qat",
                                  "to": "trex-mobilenet-v2-residuals-qat", "onnx": 0, "name": 54,
                                  "signature": 3, "position": 0, "only in from": 15,
                                  "only in to": 0}]
    assert len(data["layers"]) == data["aligned_rows"] == 72
    # no Metadata in either: nodes from the fused names, and the output says so
    assert data["onnx_nodes"] and len(data["onnx_without_metadata"]) == 2
    gate = data["gate"]
    assert gate["metric"] == "gpu-compute" and gate["failed"] is False
    assert gate["first"] == 0.351196 and gate["last"] == 0.25824
    assert "26.5% faster; ok (limit 0% slower)" in gate["message"] and "ok" in captured.err
    types = {r["type"]: r["trex-mobilenet-v2-residuals-qat layers"] for r in data["by_type"]}
    assert types == {"Convolution": 53, "Reformat": 3, "Pooling": 1}


def test_cli_compare_csv(engines, capsys):
    paths = [str(engines / f"a100-resnet18-{v}") for v in ("fp32", "fp16")]
    assert main(["compare", *paths, "-f", "csv"]) == 0
    out = capsys.readouterr().out
    sections = [line for line in out.splitlines() if line.startswith("# ")]
    assert sections == ["# summary", "# by_type", "# by_precision", "# alignment", "# layers",
                        "# onnx_nodes"]
    by_type = out.split("# by_type\n")[1].split("# by_precision")[0].splitlines()
    assert by_type[0] == ("type,a100-resnet18-fp32 ms,a100-resnet18-fp16 ms,a100-resnet18-fp32 "
                          "layers,a100-resnet18-fp16 layers,a100-resnet18-fp16 speedup")
    assert by_type[1].startswith("Convolution,1.975296,0.857088,21,21,2.3046")


def test_cli_compare_bad_input(engines, capsys, tmp_path):
    one = str(engines / "a100-resnet18-fp32")
    assert main(["compare", one]) == 2
    assert "at least two engines" in capsys.readouterr().err
    assert main(["compare", one, str(tmp_path / "missing")]) == 2
    assert "missing" in capsys.readouterr().err
    assert main(["compare", one, one, "--names", "a"]) == 2
    assert "--names needs 2 distinct names" in capsys.readouterr().err
    # a names-only export without a profile: no total latency to gate on
    names_only = str(engines / "trt8.4-mnist-names-only")
    assert main(["compare", names_only, names_only]) == 0
    assert "A     B      0    12          0         0             0           0" in \
        capsys.readouterr().out
    assert main(["compare", names_only, names_only, "--fail-if-slower", "5"]) == 2
    assert "no total latency" in capsys.readouterr().err
    assert main(["compare", one, one, "--fail-if-slower", "5", "--metric", "latency"]) == 0
    with pytest.raises(SystemExit) as exc:
        main(["compare", one, one, "--metric", "speed"])
    assert exc.value.code == 2
    with pytest.raises(InputError):
        check_regression([EnginePlan.from_path(names_only)] * 2, 1.0)


def test_profiles_of_one_engine_compare_like_engines(engines, capsys):
    """``--profiles``: each optimisation profile of a multi-profile engine is an engine of its own
    (e.g. prefill vs decode); every layer of profile 0 finds its profile-1 counterpart."""
    log = engines / "trt10.16-multiprofile-oneline" / "log-main.py.log"
    plans = EnginePlan.each_profile(log)
    assert [p.name for p in plans] == ["log-main.py [profile 0]", "log-main.py [profile 1]"]
    assert [p.profile_id for p in plans] == [0, 1]
    assert main(["compare", str(log), "--profiles", "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [e["label"] for e in data["engines"]] == ["log-main.py [profile 0]",
                                                     "log-main.py [profile 1]"]
    links = data["alignment"][0]
    assert links["only in from"] == links["only in to"] == 0
    assert links["onnx"] + links["name"] + links["signature"] + links["position"] == 13
    assert main(["compare", str(log), "--profiles", "--profile-id", "1"]) == 2
    assert "--profiles and --profile-id exclude each other" in capsys.readouterr().err
