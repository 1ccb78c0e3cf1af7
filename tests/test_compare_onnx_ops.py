"""ONNX operators compared across two exports whose node names differ (issue 23, NVIDIA #4711).

The A100 ResNet18 FP16 and QAT engines come from two ONNX exports numbered differently (``Conv_5``
against ``Conv_34``, Q/DQ nodes inserted). The truth here is derived from the raw files alone:
the convolutions in engine order with their kernel, output maps, stride, weights count and output
shape must agree one by one, and the profile's ``averageMs`` of each layer gives the speedup.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from trex import EnginePlan
from trex.cli import main
from trex.compare import compare_onnx_op_types, compare_onnx_ops

FP16, QAT = "a100-resnet18-fp16", "a100-resnet18-qat"


def _raw(engines: Path, folder: str) -> tuple[list[dict], dict[str, float]]:
    graph = json.loads(next((engines / folder).glob("*.graph.json")).read_text())
    profile = json.loads(next((engines / folder).glob("*.profile.json")).read_text())
    return graph["Layers"], {r["name"]: r["averageMs"] for r in profile if "name" in r}


def _convolutions(layers: list[dict]) -> list[tuple[str, str, tuple]]:
    """(ONNX Conv/Gemm node named in the layer name, layer name, its geometry) per convolution
    layer, in engine order."""
    out = []
    for layer in layers:
        if layer.get("ParameterType") != "Convolution":
            continue
        node = re.search(r"\b(?:Conv|Gemm)_\d+\b", layer["Name"]).group(0)
        geometry = (tuple(layer["Kernel"]), layer["OutMaps"], tuple(layer["Stride"]),
                    layer["Weights"]["Count"], tuple(layer["Outputs"][0]["Dimensions"][1:]))
        out.append((node, layer["Name"], geometry))
    return out


@pytest.fixture(scope="module")
def truth(engines):
    """{FP16 node: (QAT node, expected speedup)} from the raw layer and profile JSON."""
    layers_a, ms_a = _raw(engines, FP16)
    layers_b, ms_b = _raw(engines, QAT)
    conv_a, conv_b = _convolutions(layers_a), _convolutions(layers_b)
    assert len(conv_a) == len(conv_b) == 21
    assert [g for _, _, g in conv_a] == [g for _, _, g in conv_b]  # the same network, in order
    assert {n for n, _, _ in conv_a}.isdisjoint(n for n, _, _ in conv_b)  # names all differ
    return {na: (nb, ms_a[la] / ms_b[lb]) for (na, la, _), (nb, lb, _) in zip(conv_a, conv_b)}


@pytest.fixture(scope="module")
def ops(engines):
    plans = [EnginePlan.from_path(str(engines / f)) for f in (FP16, QAT)]
    return plans, compare_onnx_ops(plans, ["fp16", "qat"])


def test_every_fp16_convolution_is_paired_with_its_qat_counterpart(ops, truth):
    _, df = ops
    convs = df[df["op"].isin(["Conv", "Gemm"]) & (df["fp16 node"] != "")]
    assert sorted(convs["fp16 node"]) == sorted(truth)
    for row in convs.itertuples(index=False):
        qat_node, speedup = truth[row[3]]
        assert row[5] == qat_node, row
        assert row.confidence == "high", row
        assert row.match == "layer"
        assert row.speedup == pytest.approx(speedup, rel=1e-9)
        assert row._7 == pytest.approx(row._6 - row._4)  # delta ms = qat - fp16
    assert (df["op"] == "Conv").sum() == 20  # every Conv of both exports paired: no only-in rows


def test_unpaired_operators_have_no_delta_and_fused_ones_no_time(ops):
    _, df = ops
    only = df[df["match"].str.startswith("only-in-")]
    assert set(only["match"]) == {"only-in-fp16", "only-in-qat"}
    assert only["delta ms"].isna().all() and only["speedup"].isna().all()
    assert set(only.loc[only["match"] == "only-in-qat", "op"]) == {"QuantizeLinear"}
    assert (only["confidence"] == "").all()
    # Add/ReLU fused into a convolution: 0 ms of their own (the time is the Conv's), no speedup
    fused = df[(df["op"] == "Add") & (df["match"] == "layer")]
    assert len(fused) == 8 and (fused["fp16 ms"] == 0).all() and fused["speedup"].isna().all()
    assert (fused["fp16 layer ms"] > 0).all()


def test_per_type_totals_are_the_operators_sums(ops):
    plans, df = ops
    types = compare_onnx_op_types(plans, ["fp16", "qat"], ops=df).set_index("op")
    conv = types.loc["Conv"]
    assert (conv["fp16 ops"], conv["qat ops"], conv["pairs"]) == (20, 20, 20)
    assert conv["fp16 ms"] == pytest.approx(df.loc[df["op"] == "Conv", "fp16 ms"].sum())
    assert conv["speedup"] == pytest.approx(conv["fp16 ms"] / conv["qat ms"])
    assert math.isnan(types.loc["QuantizeLinear", "speedup"])
    # every layer's time is in one operator or in (TensorRT): the totals are the engines' sums
    for k, name in enumerate(("fp16", "qat")):
        assert types[f"{name} ms"].sum() == pytest.approx(plans[k].df["latency.avg_time"].sum())


def _cli(capsys, engines, *args):
    code = main(["compare", str(engines / FP16), str(engines / QAT), "--names", "fp16,qat",
                 *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_json_lists_pairs_and_types(capsys, engines, truth):
    code, out, _ = _cli(capsys, engines, "--onnx-ops", "--top", "0", "-f", "json")
    assert code == 0
    data = json.loads(out)
    rows = {r["fp16 node"]: r for r in data["onnx_ops"] if r["fp16 node"]}
    for node, (qat_node, speedup) in truth.items():
        assert rows[node]["qat node"] == qat_node
        assert rows[node]["speedup"] == pytest.approx(speedup)
        assert rows[node]["confidence"] == "high"
    unpaired = [r for r in data["onnx_ops"] if r["match"].startswith("only-in-")]
    assert unpaired and all(r["delta ms"] is None and r["speedup"] is None for r in unpaired)
    assert data["onnx_ops_total"] == len(data["onnx_ops"])
    assert {"op": "Conv", "pairs": 20} == {k: next(t for t in data["onnx_op_types"]
                                                   if t["op"] == "Conv")[k] for k in ("op", "pairs")}
    assert data["onnx_files"] == [None, None]


def test_cli_markdown_shows_the_sections(capsys, engines):
    code, out, _ = _cli(capsys, engines, "--onnx-ops", "--top", "0", "-f", "markdown")
    assert code == 0
    assert "#### ONNX operators paired across exports" in out
    assert "#### ONNX operators by type" in out
    line = next(x for x in out.splitlines() if "| Conv\\_5 |" in x and "| layer |" in x)
    assert "| Conv\\_34 |" in line and "| high |" in line
    only = next(x for x in out.splitlines() if "| only-in-qat |" in x)
    assert only.count("| – |") >= 2  # delta and speedup: "–", never 0


def test_default_output_is_unchanged(capsys, engines):
    _, out, _ = _cli(capsys, engines, "-f", "json")
    assert "onnx_ops" not in json.loads(out)
    _, out, _ = _cli(capsys, engines)
    assert "ONNX operators" not in out


def test_bad_onnx_file_is_one_line_and_exit_2(capsys, engines, tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_text("not a protobuf at all")
    code, out, err = _cli(capsys, engines, "--onnx", f"{bad},{bad}")
    assert code == 2 and not out
    assert err.count("\n") == 1 and str(bad) in err and "not an ONNX model" in err
    code, _, err = _cli(capsys, engines, "--onnx", str(bad))
    assert code == 2 and err.count("\n") == 1 and "one ONNX file per engine" in err
    code, _, err = _cli(capsys, engines, "--onnx", f"{tmp_path / 'missing.onnx'},")
    assert code == 2 and err.count("\n") == 1 and "no such ONNX file" in err


def test_without_the_onnx_package_one_line_and_exit_2(capsys, engines, tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx raises ImportError
    code, _, err = _cli(capsys, engines, "--onnx", f"{tmp_path / 'a.onnx'},")
    assert code == 2 and err.count("\n") == 1 and "needs the onnx package" in err


# ------------------------------------------------------------------ with the ONNX files
def _onnx_model(layers: list[dict], path: Path, swap: tuple[str, str] | None = None) -> None:
    """An ONNX model consistent with an engine's raw layers: each fused layer's nodes (op type =
    the name's prefix, ``Conv_5`` -> Conv) chained between the layer's tensors, a Q/DQ pair for a
    quantising Reformat, an Identity for TensorRT's copies, each convolution's weights
    ``[OutMaps, C, *Kernel]`` (behind QuantizeLinear -> DequantizeLinear in the Q/DQ export).
    ``swap``: two Conv nodes whose weight shapes trade places (a file that contradicts)."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    nodes, inits, shapes = [], [], {}
    for k, layer in enumerate(layers):
        ins = [t["Name"] for t in layer["Inputs"]]
        outs = [t["Name"] for t in layer["Outputs"]]
        parts = [p for p in layer["Name"].split(" + ")
                 if not p.endswith((".weight", ".bias")) and "Unnamed" not in p]
        if layer["LayerType"] == "NoOp" or layer["Name"].startswith("Reformatting CopyNode"):
            nodes.append(helper.make_node("Identity", ins[:1], outs, name=f"copy_{k}"))
            continue
        if layer.get("LayerType") == "Reformat":  # a quantising reformat: Q then DQ
            nodes.append(helper.make_node("QuantizeLinear", ins[:1], [f"q{k}"], name=parts[0]))
            nodes.append(helper.make_node("DequantizeLinear", [f"q{k}"], outs, name=f"dq_{k}"))
            continue
        data, weight = ins[0], None
        for j, part in enumerate(parts):
            op = part.split("_")[0]
            if op == "QuantizeLinear":  # the weights' quantiser of the next Conv/Gemm
                weight = f"w{k}"
                nodes.append(helper.make_node(op, [f"w{k}.fp"], [f"w{k}.q"], name=part))
                nodes.append(helper.make_node("DequantizeLinear", [f"w{k}.q"], [weight],
                                              name=f"wdq_{k}"))
                inits.append(f"w{k}.fp")
                continue
            out = outs[0] if j == len(parts) - 1 else f"t{k}_{j}"
            if op in ("Conv", "Gemm"):
                if weight is None:
                    weight = f"w{k}.fp"
                    inits.append(weight)
                name = next(n for n in inits[::-1] if n.startswith(f"w{k}"))
                shapes[name] = (layer["OutMaps"], layer["Inputs"][0]["Dimensions"][1],
                                *layer["Kernel"])
                shapes[part] = name
                nodes.append(helper.make_node(op, [data, weight], [out], name=part))
            elif op == "Add":
                nodes.append(helper.make_node(op, [data, ins[1]], [out], name=part))
            else:
                nodes.append(helper.make_node(op, [data], [out], name=part))
            data = out
    if swap:
        a, b = shapes[swap[0]], shapes[swap[1]]
        shapes[a], shapes[b] = shapes[b], shapes[a]
    tensors = []
    for n in inits:  # shapes only: the comparison never reads the weights' values
        tensor = TensorProto(name=n, data_type=TensorProto.FLOAT)
        tensor.dims.extend(shapes[n])
        tensors.append(tensor)
    first = layers[0]["Inputs"][0]
    graph = helper.make_graph(nodes, "net", [helper.make_tensor_value_info(
        first["Name"], TensorProto.FLOAT, first["Dimensions"])], [], initializer=tensors)
    onnx.save(helper.make_model(graph), str(path))


@pytest.fixture(scope="module")
def onnx_files(engines, tmp_path_factory):
    folder = tmp_path_factory.mktemp("onnx")
    paths = []
    for name in (FP16, QAT):
        path = folder / f"{name}.onnx"
        _onnx_model(_raw(engines, name)[0], path)
        paths.append(str(path))
    return paths


def test_onnx_files_add_weight_shapes_and_neighbours(ops, onnx_files, truth):
    plans, _ = ops
    df = compare_onnx_ops(plans, ["fp16", "qat"], onnx=onnx_files)
    convs = df[df["op"].isin(["Conv", "Gemm"]) & (df["fp16 node"] != "")]
    assert sorted(convs["fp16 node"]) == sorted(truth)
    for row in convs.itertuples(index=False):
        assert row[5] == truth[row[3]][0]
        assert row.confidence == "high"
        assert "weight shape" in row.evidence and "neighbours" in row.evidence, row
    assert df.attrs["onnx_files"] == onnx_files


def test_an_onnx_file_that_contradicts_makes_pairs_low(ops, engines, tmp_path):
    plans, _ = ops
    layers_a, layers_b = _raw(engines, FP16)[0], _raw(engines, QAT)[0]
    paths = [tmp_path / "a.onnx", tmp_path / "b.onnx"]
    _onnx_model(layers_a, paths[0])
    _onnx_model(layers_b, paths[1], swap=("Conv_22", "Conv_95"))  # 64x64x3x3 and 128x64x1x1
    df = compare_onnx_ops(plans, ["fp16", "qat"], onnx=[str(p) for p in paths])
    low = df[df["qat node"].isin(["Conv_22", "Conv_95"])]
    assert (low["confidence"] == "low").all()
    assert low["evidence"].str.contains("weight shapes differ").all()
    others = df[df["op"].eq("Conv") & ~df["qat node"].isin(["Conv_22", "Conv_95"])]
    assert (others["confidence"] == "high").all()


def test_an_onnx_file_of_another_network_is_refused(capsys, engines, onnx_files):
    code, out, err = _cli(capsys, engines, "--onnx", f"{onnx_files[1]},{onnx_files[0]}")
    assert code == 2 and not out and err.count("\n") == 1
    assert "none of the" in err and "is in this model" in err


def test_exports_with_the_same_names_pair_by_name(engines):
    plans = [EnginePlan.from_path(str(engines / f)) for f in (FP16, "a100-resnet18-fp32")]
    df = compare_onnx_ops(plans, ["fp16", "fp32"])
    paired = df[df["match"] == "name"]
    assert len(paired) == len(df) and (paired["confidence"] == "high").all()
    assert (paired["fp16 node"] == paired["fp32 node"]).all()


def test_a_name_another_export_reuses_for_another_node_pairs_nothing(engines):
    """The QAT-residual export adds Q/DQ nodes, so its ``Conv_84`` is layer2.0's conv1 while the
    QAT export's ``Conv_84`` is layer2.0's conv2: the weight names inside the raw fused layer
    names are the truth; every Conv is paired with the Conv of the same weights."""
    folders = ("a100-resnet18-qat", "a100-resnet18-qat-residual")
    plans = [EnginePlan.from_path(str(engines / f)) for f in folders]
    weights = []
    for folder in folders:
        layers, _ = _raw(engines, folder)
        weights.append({re.search(r"\bConv_\d+\b", layer["Name"]).group(0):
                        re.search(r"[\w.]+\.weight", layer["Name"]).group(0)
                        for layer in layers if re.search(r"\bConv_\d+\b", layer["Name"])})
    df = compare_onnx_ops(plans, ["qat", "res"])
    convs = df[df["op"] == "Conv"]
    assert (convs["match"] != "").all() and len(convs) == 20  # all paired
    for row in convs.itertuples(index=False):
        assert weights[0][row[3]] == weights[1][row[5]], row
    assert weights[0]["Conv_84"] != weights[1]["Conv_84"]  # the reused name


def test_the_alignment_of_the_other_views_is_reused_as_is(ops):
    from trex.compare import align_plans

    plans, df = ops
    alignment = align_plans(plans, True, ["fp16", "qat"])
    again = compare_onnx_ops(plans, ["fp16", "qat"], alignment=alignment)
    assert again.equals(df)


def test_cli_with_onnx_files(capsys, engines, onnx_files):
    code, out, _ = _cli(capsys, engines, "--onnx", ",".join(onnx_files), "--top", "0",
                        "-f", "json")
    assert code == 0
    data = json.loads(out)
    assert data["onnx_files"] == onnx_files
    conv = next(r for r in data["onnx_ops"] if r["fp16 node"] == "Conv_5")
    assert conv["qat node"] == "Conv_34" and "weight shape" in conv["evidence"]
