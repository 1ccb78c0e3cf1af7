"""Layer pairing in compare: quantisation affixes, fused fragments, types, unlike engines.

The engines are the real A100 ResNet18 exports of TREx's QAT walkthrough and the two trex
MobileNet engines; where a case needs names the exports do not have, a copy is renamed the way
other exporters name layers (TensorFlow's QAT ``quant_`` prefix, ONNX Runtime's ``_quant`` suffix).
The truth is the raw layer JSON: each convolution's own name part (which block, which conv), its
layer type, and the devices, batch sizes and weights the exports list.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from trex import EnginePlan
from trex.cli import main
from trex.compare import align_layers, engine_mismatches

WEIGHTED = ("Convolution", "ConvActPool")


def _tf_names(engines: Path, tmp_path: Path, folder: str, prefix: str = "", suffix: str = "",
              unlink: bool = False, move: tuple[str, str] | None = None) -> Path:
    """A copy of ``a100-resnet18-<folder>``'s layer JSON with TensorFlow-style names: each
    convolution by its block (``layer2.0.conv2``, with the quantisation affix), the block-closing
    Add/ReLU it fused as ``layer2.0.add + layer2.0.relu``. ``move`` hands the Add/ReLU fragment of
    one convolution to another; ``unlink`` renames every layer's inputs so that no tensor links two
    layers (only the names and the weights are left to pair them)."""
    src = engines / f"a100-resnet18-{folder}"
    graph = json.loads(next(src.glob("*.graph.json")).read_text(), strict=False)
    for k, layer in enumerate(graph["Layers"]):
        parts = layer["Name"].split(" + ")
        weight = next((p for p in parts if p.endswith(".weight")), None)
        if weight is not None:
            conv = weight[:-len(".weight")]
            block = conv.rsplit(".", 2)[0] if ".downsample." in conv else conv.rsplit(".", 1)[0]
            name = prefix + conv + suffix
            if any(p.startswith("Add_") for p in parts):
                name += f" + {block}.add + {block}.relu"
            layer["Name"] = name
        if unlink:  # the renamed inputs are listed as engine inputs, so that no input that no
            for tensor in layer["Inputs"]:  # layer writes is taken for a constant (weights)
                tensor["Name"] = f"{k}:{tensor['Name']}"
                graph["Bindings"].append(tensor["Name"])
    if move is not None:
        names = [layer["Name"] for layer in graph["Layers"]]
        frm = next(i for i, n in enumerate(names) if n.startswith(move[0] + " + "))
        to = names.index(move[1])
        head, _, fragment = names[frm].partition(" + ")
        graph["Layers"][frm]["Name"] = head
        graph["Layers"][to]["Name"] = f"{names[to]} + {fragment}"
    out = tmp_path / f"{folder}{prefix}{suffix}{'-unlinked' if unlink else ''}.graph.json"
    out.write_text(json.dumps(graph))
    return out


def _plan(path: Path) -> EnginePlan:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return EnginePlan(path)


@pytest.mark.parametrize(("prefix", "suffix"), [("quant_", ""), ("", "_quant"), ("", "_quantized")])
def test_names_that_differ_by_a_quantisation_affix_pair_by_name(engines, tmp_path, prefix, suffix):
    """qat against qat-residual with ``quant_conv``/``conv_quant`` names: every layer whose name
    is the other's but for the affix pairs with it, by name, at high confidence."""
    a = _plan(_tf_names(engines, tmp_path, "qat"))
    b = _plan(_tf_names(engines, tmp_path, "qat-residual", prefix, suffix))

    def bare(name: str) -> str:
        head, sep, rest = name.partition(" + ")
        head = head.removeprefix(prefix) if prefix else head.removesuffix(suffix)
        return head + sep + rest

    names_b = [bare(layer.name) for layer in b.layers]
    expected = {(i, names_b.index(layer.name)) for i, layer in enumerate(a.layers)
                if layer.name in names_b and names_b.count(layer.name) == 1
                and layer.type in WEIGHTED}
    # 21 convolutions, but 6 carry the Add/ReLU of layer{2,3,4}.0 in one engine only
    assert len(expected) == 15
    alignment = align_layers(a, b).dropna(subset=["a", "b"])
    found = {(int(r.a), int(r.b)): r for r in alignment.itertuples()}
    for i, j in expected:
        row = found[(i, j)]
        same_type = a.layers[i].type == b.layers[j].type  # conv1 is a ConvActPool in qat-residual
        assert (row.match, row.confidence) == ("name", "high" if same_type else "low"), row
        assert "same name" in row.evidence


def test_a_shared_fragment_and_equal_weights_never_pair_different_convolutions_high(engines,
                                                                                     tmp_path):
    """layer1.0's Add/ReLU handed to layer1.1.conv1 in one engine (both convolutions hold 36,864
    weights) and no tensor links left: the fragment and the weights count alone must not pair
    layer1.0.conv2 with layer1.1.conv1 at high confidence. Every high pair of convolutions is one
    convolution of one block in both engines (their own name parts, affix aside, are equal)."""
    a = _plan(_tf_names(engines, tmp_path, "qat", unlink=True))
    b = _plan(_tf_names(engines, tmp_path, "qat-residual", "quant_", unlink=True,
                        move=("quant_layer1.0.conv2", "quant_layer1.1.conv1")))
    moved = next(layer for layer in b.layers if layer.name.startswith("quant_layer1.1.conv1 + "))
    source = next(layer for layer in a.layers if layer.name.startswith("layer1.0.conv2 + "))
    assert moved.weights_cnt == source.weights_cnt == 36864
    alignment = align_layers(a, b).dropna(subset=["a", "b"])
    checked = 0
    for row in alignment.itertuples():
        la, lb = a.layers[int(row.a)], b.layers[int(row.b)]
        if la.type not in WEIGHTED or lb.type not in WEIGHTED:
            continue
        own_a = la.name.split(" + ")[0]
        own_b = lb.name.split(" + ")[0].removeprefix("quant_")
        if own_a != own_b:
            assert row.confidence != "high", (la.name, lb.name, row.evidence)
        checked += 1
    assert checked >= 19
    wrong = alignment[(alignment["name_a"] == source.name) & (alignment["name_b"] == moved.name)]
    assert wrong.empty or set(wrong["confidence"]) == {"low"}


def test_different_layer_types_are_low_confidence(resnets_by_name):
    """qat-residual fuses conv1 and the max-pool into one ConvActPool: its counterpart in fp16 is
    conv1 (the weights count says so), but a Convolution and a ConvActPool are not a confident
    pair."""
    a, b = resnets_by_name["fp16"], resnets_by_name["qat-residual"]
    alignment = align_layers(a, b).dropna(subset=["a", "b"])
    differ = [(r.confidence, r.evidence) for r in alignment.itertuples()
              if a.layers[int(r.a)].type != b.layers[int(r.b)].type]
    assert [c for c, _ in differ] == ["low"]
    assert "types differ" in differ[0][1]
    same = [r.confidence for r in alignment.itertuples()
            if a.layers[int(r.a)].type == b.layers[int(r.b)].type]
    assert "low" not in same


@pytest.fixture(scope="module")
def resnets_by_name(engines: Path) -> dict[str, EnginePlan]:
    out = {}
    for name in ("fp16", "qat", "qat-residual"):
        folder = engines / f"a100-resnet18-{name}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out[name] = EnginePlan.from_path(folder)
    return out


def _facts(folder: Path) -> tuple[str, int, int]:
    """(device, batch, weights of the weighted layers) read from the raw files."""
    device = json.loads(next(folder.glob("*.profile.metadata.json")).read_text())
    name = device["device_information"]["Selected Device"]
    graph = json.loads(next(folder.glob("*.graph.json")).read_text(), strict=False)
    batch = next(t["Dimensions"][0] for layer in graph["Layers"] for t in layer["Inputs"]
                 if t["Name"] in graph["Bindings"])
    weights = sum(layer[key]["Count"] for layer in graph["Layers"]
                  for key in ("Weights", "ConvWeights")  # ConvActPool: ConvWeights
                  if layer.get("ParameterType") in WEIGHTED and key in layer)
    return name, batch, weights


def test_unlike_engines_are_warned_about_first_and_the_gate_still_runs(engines, capsys):
    """An A100 ResNet18 at batch 32 against a TITAN RTX MobileNetV2 at batch 1: a warning names
    the device, the batch size and the network before the comparison, which runs with its gate."""
    first, second = engines / "a100-resnet18-qat", engines / "trex-mobilenet-qat"
    (device_a, batch_a, weights_a), (device_b, batch_b, weights_b) = _facts(first), _facts(second)
    assert (device_a != device_b, batch_a, batch_b, weights_a != weights_b) == (True, 32, 1, True)
    code = main(["compare", str(first), str(second), "--fail-if-slower", "1000", "-n", "1"])
    assert code == 0  # the gate ran (MobileNet is faster)
    captured = capsys.readouterr()
    warning = captured.err.splitlines()[0]
    assert warning.startswith("warning: trex compare: trex-mobilenet-qat vs a100-resnet18-qat: ")
    assert f"device {device_b} vs {device_a}" in warning
    assert f"batch size {batch_b} vs {batch_a}" in warning
    assert f"another network ({weights_b:,} weights in 53 layers vs {weights_a:,} in 21)" in warning
    assert "Regression gate: " in captured.out
    assert main(["compare", str(first), str(second), "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["warnings"] == [warning.removeprefix("warning: trex compare: ")]


def test_builds_of_one_network_on_one_device_are_not_warned_about(engines, capsys):
    """The five ResNet18 builds (FP32 to INT8) and the two MobileNet builds: same device, batch
    and weights in the raw files, no warning."""
    for group in (["a100-resnet18-fp32", "a100-resnet18-fp16", "a100-resnet18-qat",
                   "a100-resnet18-qat-residual", "a100-resnet18-qat-residual-qgap"],
                  ["trex-mobilenet-qat", "trex-mobilenet-v2-residuals-qat"]):
        facts = {_facts(engines / g) for g in group}
        assert len(facts) == 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plans = [EnginePlan.from_path(engines / g) for g in group]
        assert engine_mismatches(plans, group) == []
    assert main(["compare", str(engines / "trex-mobilenet-qat"),
                 str(engines / "trex-mobilenet-v2-residuals-qat"), "-n", "1"]) == 0
    assert "trex compare" not in capsys.readouterr().err
