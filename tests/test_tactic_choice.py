"""Each engine layer's tactic is judged in the format combination the engine layer runs.

The truth is what the real verbose build logs of TensorRT 8.6 and 10.16 print, read here by a
scan of the raw text independent of trex's reader: the ``Engine Layer Information`` lines (the
formats each layer runs: data type and vector width per tensor), the autotuning records (the
time printed for a tactic in a combination) and the ``Deleting timing cache`` lines. Mutated
copies stand for the forms older TensorRT versions print (unnamed ``Computing costs for`` lines,
layer lines without vector widths).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

from trex import tactics
from trex.cli import main
from trex.formats.build_log import parse_build_log, read_build_log
from trex.formats.combinations import combination_layouts, formats_agree, prose_layout

MOBILENET = "trt8.6-mobilenetv2-int8-build/mobilenetV2.onnx.engine.build.log"
MNIST = "trt10.16-mnist-fp32/result-02.log"
MULTIPROFILE = "trt10.16-multiprofile-oneline/log-main.py.log"

_LAYER_LINE = re.compile(r"^Layer\((?P<type>[^)]*)\): (?P<name>.*?), Tactic: (?P<tactic>\S+), "
                         r"(?P<io>.*)$")
_TENSOR = re.compile(r"\((?P<dtype>[A-Za-z0-9]+)\[(?P<dims>[-\d,: ]*)\]\)")
_COMBO_TENSOR = re.compile(r"(?P<dtype>[A-Za-z][A-Za-z0-9]*)\((?P<strides>[^()]*)\)")
_TIMED = re.compile(r"\] (?:Tactic Name: \S+ )?Tactic: (?P<tactic>\S+) Time: (?P<time>\S+)$")
_CACHED = re.compile(r"\[TRT\] (?P<layer>.+?) \[(?P<combo>[^\]]+)\] got cached result: [^,]+, tactic "
                     r"(?P<tactic>\S+), (?P<time>\S+) ms$")


def _engine_formats(text: str) -> dict[str, tuple[str, list[tuple[str, int]], list[tuple[str, int]]]]:
    """Layer name -> (tactic, [(dtype, vector)] of inputs, of outputs) from the layer lines."""
    out = {}
    for line in text.splitlines():
        match = _LAYER_LINE.match(line)
        if not match:
            continue
        left, _, right = match["io"].partition(" -> ")

        def side(part: str) -> list[tuple[str, int]]:
            tensors = []
            for t in _TENSOR.finditer(part):
                widths = [d.split(":")[1] for d in t["dims"].split(",") if ":" in d]
                tensors.append((t["dtype"], int(widths[0]) if widths else 1))
            return tensors

        out[match["name"]] = (match["tactic"], side(left), side(right))
    return out


def _combination_formats(combination: str) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    left, _, right = combination.partition(" -> ")

    def side(part: str) -> list[tuple[str, int]]:
        tensors = []
        for t in _COMBO_TENSOR.finditer(part):
            widths = [s.split(":")[1] for s in t["strides"].split(",") if ":" in s]
            tensors.append((t["dtype"], int(widths[0]) if widths else 1))
        return tensors

    return side(left), side(right)


def _kept_lines(text: str) -> list[str]:
    """The lines of the builder pass whose engine was kept (the one chosen last, else the only
    one)."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if "Building graph using backend strategy" in line]
    if len(starts) < 2:
        return lines
    chose = [line.rsplit("backend strategy ", 1)[1].split()[0] for line in lines
             if "Chose this engine with backend strategy" in line]
    for k, i in enumerate(starts):
        if lines[i].rstrip().endswith(f"strategy {chose[-1]}"):
            end = starts[k + 1] if k + 1 < len(starts) else len(lines)
            return lines[i:end]
    raise AssertionError("kept pass not found")


def _printed_times(text: str) -> dict[tuple[str, str, str], list[float]]:
    """(layer, combination, tactic) -> the times the kept pass printed for it."""
    out: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    layer = combo = ""
    for line in _kept_lines(text):
        if "=============== Computing costs for " in line:
            layer = line.split("Computing costs for ", 1)[1].strip()
        elif "Computing reformatting costs" in line:
            layer = ""
        elif "Autotuning format combination: " in line:
            combo = line.split("Autotuning format combination: ", 1)[1].strip("* ")
        elif (match := _CACHED.search(line)) is not None:
            out[(match["layer"], match["combo"], match["tactic"])].append(float(match["time"]))
        elif layer and (match := _TIMED.search(line)) is not None:
            out[(layer, combo, match["tactic"])].append(float(match["time"]))
    return out


@pytest.mark.parametrize("name", [MOBILENET, MNIST])
def test_chosen_tactic_is_judged_in_the_combination_the_engine_layer_runs(engines, name):
    text = (engines / name).read_text()
    engine, printed = _engine_formats(text), _printed_times(text)
    df = tactics.layer_tactics(read_build_log(engines / name))
    judged = df[df["chosen_is_fastest"].notna()]
    assert len(judged) == {MOBILENET: 56, MNIST: 5}[name]
    for row in judged.itertuples():
        tactic, ins, outs = engine[row.layer]
        assert row.chosen_tactic == tactic
        assert _combination_formats(row.chosen_combination) == (ins, outs), row.layer
        timed_by = row.timings_from if isinstance(row.timings_from, str) else row.layer
        assert row.chosen_ms in printed[(timed_by, row.chosen_combination, tactic)]
        best = min(t for (layer, combo, _), times in printed.items() for t in times
                   if layer == timed_by and combo == row.chosen_combination)
        assert row.fastest_in_combination_ms == best


@pytest.mark.parametrize("name", [MOBILENET, MNIST])
def test_one_timing_per_engine_layer_is_the_engines(engines, name):
    """``in_engine`` marks the engine tactic's timing in the combination the layer runs, not every
    timing of that tactic id (10.16: Myelin's tactic 0x0 in three combinations, 8.6: a NoOp's)."""
    text = (engines / name).read_text()
    engine = _engine_formats(text)
    df = tactics.tactic_timings(read_build_log(engines / name))
    marked = df[df["in_engine"]]
    assert marked["layer"].is_unique
    assert len(marked) == {MOBILENET: 34, MNIST: 5}[name]
    for row in marked.itertuples():
        tactic, ins, outs = engine[row.layer]
        assert row.tactic == tactic and row.status != "skipped"
        assert _combination_formats(row.combination) == (ins, outs)


def test_layer_lines_without_vector_widths(engines):
    """8.2/8.5 print ``name[Half(1,64,7,7)]``: no vector width, so none is assumed. The 10.16
    log in that form: the Myelin layer reads the HWC8 Half tensor and writes Float and Int64, the
    one combination of the three that timed its tactic 0x0 with a Float output."""
    text = (engines / MNIST).read_text()

    def old_form(match: re.Match) -> str:
        dims = ",".join(d.split(":")[0] for d in match["dims"].split(","))
        return f"[{match['dtype']}({dims})]"

    lines = [re.sub(r" \((?P<dtype>[A-Za-z0-9]+)\[(?P<dims>[-\d,: ]*)\]\)", old_form, line)
             if line.startswith("Layer(") else line for line in text.splitlines()]
    log = parse_build_log("\n".join(lines))
    assert all(not t.vector_printed for layer in log.engine_layers for t in layer.inputs)
    row = tactics.layer_tactics(log).set_index("layer").loc[
        "{ForeignNode[gemm2.bias + ONNXTRT_Broadcast_4...ONNXTRT_castHelper_9]}"]
    engine = _engine_formats(text)["{ForeignNode[gemm2.bias + ONNXTRT_Broadcast_4..."
                                   "ONNXTRT_castHelper_9]}"]
    assert _combination_formats(row["chosen_combination"]) == (engine[1], engine[2])
    printed = _printed_times(text)[(row.name, row["chosen_combination"], "0x0000000000000000")]
    assert row["chosen_ms"] in printed
    assert row["chosen_ms"] == 0.0245402


def _unnamed_sections(text: str) -> tuple[str, list[str]]:
    """The log as 8.2/8.5 print it: ``Computing costs for`` without the name; sections whose
    timings TensorRT reused print no timing runner either. Returns the text and the names."""
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if "=============== Computing" in line]
    drop: set[int] = set()
    for a, b in zip(starts, [*starts[1:], len(lines)]):
        body = range(a + 1, b)
        if "Computing costs for " in lines[a] and not any(_TIMED.search(lines[i]) for i in body):
            drop.update(i for i in body if "Timing Runner:" in lines[i]
                        or "has no valid tactics" in lines[i])
    names, out = [], []
    for i, line in enumerate(lines):
        if i in drop:
            continue
        head, sep, name = line.partition("=============== Computing costs for ")
        if sep:
            names.append(name)
            line = head + sep
        out.append(line)
    return "\n".join(out), names


def test_unnamed_sections_belong_to_the_layer_being_tuned(engines):
    """Every section is named after the layer it tunes: by its timing runners, else (silent reuse,
    no runner printed) by its place among the engine's layers. No row lacks a name, and every
    verdict is the one the named log gives."""
    text = (engines / MOBILENET).read_text()
    mutated, names = _unnamed_sections(text)
    assert mutated.count("Timing Runner:") < text.count("Timing Runner:")
    log = parse_build_log(mutated)
    assert [name for _, name in log.autotuned] == names
    assert not log.warnings
    df = tactics.layer_tactics(log)
    assert all(isinstance(n, str) and n and n.isprintable() for n in df["layer"])
    assert all(t.layer for t in log.tactics)
    expected = tactics.layer_tactics(read_build_log(engines / MOBILENET))
    columns = ["layer", "chosen_combination", "chosen_ms", "chosen_is_fastest", "faster_elsewhere",
               "timings_from", "combinations"]
    assert df[columns].astype(str).values.tolist() == expected[columns].astype(str).values.tolist()


def test_an_unplaceable_unnamed_section_is_left_out_with_a_warning(engines):
    text = (engines / MOBILENET).read_text()
    mutated, _ = _unnamed_sections(text)
    # without the engine's layer list, a section without runners cannot be named
    lines = [line for line in mutated.split("\n") if not line.startswith("Layer(")]
    log = parse_build_log("\n".join(lines))
    assert all(name for _, name in log.autotuned)
    assert any("cannot be placed" in w for w in log.warnings)


def test_timing_cache_hits_as_the_log_prints_them(engines, capsys):
    text = (engines / MOBILENET).read_text()
    deleted = [(int(m[1]), int(m[2])) for m in re.finditer(
        r"Deleting timing cache: (\d+) entries, served (\d+) hits", text)]
    assert deleted == [(987, 0), (987, 1487)]
    summary = tactics.build_summary(read_build_log(engines / MOBILENET))
    assert summary["timing_cache"] == "global"  # "Global timing cache in use."
    assert summary["timing_cache_entries"] == 987
    assert summary["timing_cache_hits"] == sum(h for _, h in deleted) == 1487
    assert [(d["entries"], d["hits"]) for d in summary["timing_cache_deletions"]] == deleted
    assert main(["tactics", str(engines / MOBILENET), "-s", "summary"]) == 0
    assert ("Timing cache         global; 987 entries, 1,487 hits (2 caches deleted, hits 0 + "
            "1,487)") in capsys.readouterr().out
    assert main(["tactics", str(engines / MOBILENET), "-s", "summary", "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)[0]["summary"]
    assert (data["timing_cache_entries"], data["timing_cache_hits"]) == (987, 1487)
    # a log that prints no such line has no figure (not 0)
    assert tactics.build_summary(read_build_log(engines / MNIST))["timing_cache_hits"] is None


def test_8x_local_cache_line():
    text = "\n".join([
        "[W] [TRT] Detected invalid timing cache, setup a local cache instead",
        "[V] [TRT] =============== Computing costs for conv1",
        "[V] [TRT] *************** Autotuning format combination: Float(1,3,8,8) -> "
        "Float(1,8,8,8) ***************",
        "[V] [TRT] --------------- Timing Runner: conv1 (CaskConvolution)",
        "[V] [TRT] Tactic: 0x1 Time: 0.5",
        "[V] [TRT] Deleting timing cache: 214 entries, 1290 hits",
    ])
    summary = tactics.build_summary(parse_build_log(text))
    assert (summary["timing_cache"], summary["timing_cache_entries"],
            summary["timing_cache_hits"]) == ("local", 214, 1290)


def test_prose_formats_tell_channel_major_from_planar():
    """"Channel major FP16 format where channel % 8 == 0" is ``Half(…,1:8,…)`` in autotuning's
    notation (the 10.16 log's HWC8 max pool), not the planar ``Half(12544,196,14,1)``; a bare
    ``Half`` says nothing of the layout."""
    hwc8 = "Half(1568,1:8,112,8) -> Half(392,1:8,56,8)"
    planar = "Half(12544,196,14,1) -> Half(3136,49,7,1)"
    chw32 = "Int8(12544,12544:32,112,1) -> Int8(12544,12544:32,112,1)"
    channel_major = prose_layout("Channel major FP16 format where channel % 8 == 0")
    assert (channel_major.precision, channel_major.vector, channel_major.channel_last) == (
        "FP16", 8, True)
    assert formats_agree(([channel_major], [channel_major]), hwc8) is True
    assert formats_agree(([channel_major], [channel_major]), planar) is False
    vectorised = prose_layout("Thirty-two wide channel vectorized row major Int8 format")
    assert formats_agree(([vectorised], [vectorised]), chw32) is True
    bare = prose_layout("Half")
    assert formats_agree(([bare], [bare]), hwc8) is formats_agree(([bare], [bare]), planar) is True
    assert [x.channel_last for x in combination_layouts(hwc8)[0] + combination_layouts(planar)[0]
            + combination_layouts(chw32)[0]] == [True, False, False]


def test_dump_layer_info_lines_give_the_formats(engines):
    """A ``--dumpLayerInfo`` block in a log: each layer's Format/Datatype as printed."""
    path: Path = engines / MULTIPROFILE
    text = path.read_text()
    log = parse_build_log(text)
    first = re.search(r"^Name: (node_conv2d \+ node_relu), LayerType: .*?Inputs: \[ \{ .*?"
                      r"Format/Datatype: (\w+) \}\], Outputs: \[ \{ .*?Format/Datatype: (\w+) \}",
                      text, re.MULTILINE)
    assert first is not None
    assert log.layer_formats[first[1]] == ([first[2]], [first[3]])
    assert len(log.layer_formats) == len({m for m in re.findall(r"^Name: (.*?), LayerType: ",
                                                                 text, re.MULTILINE)})


_WIDTH_WORDS = {2: "Two", 4: "Four", 16: "Sixteen", 32: "Thirty-two"}
_PRECISION = {"Float": "FP32", "Half": "FP16", "Int8": "Int8", "Int32": "Int32"}


def _in_words(dtype: str, vector: int, rank: int) -> str:
    """A tensor's format as ``--dumpLayerInfo`` words it (TensorRT's FORMATS.md spellings)."""
    precision = _PRECISION.get(dtype)
    if precision is None:
        return dtype  # Int64, Bool: a bare data type
    if vector == 8 and dtype == "Half":
        return "Channel major FP16 format where channel % 8 == 0"
    if vector > 1:
        return f"{_WIDTH_WORDS[vector]} wide channel vectorized row major {precision} format"
    return f"Row major linear {precision} format" if rank >= 3 else dtype


def test_a_dump_layer_info_block_stands_for_the_layer_lines(engines):
    """The 10.16 log with its ``Engine Layer Information`` lines written as a ``--dumpLayerInfo``
    block (formats in words: "Channel major FP16 format where channel % 8 == 0" for the HWC8
    tensors): the same layers, each judged in the same combination at the same time."""
    text = (engines / MNIST).read_text()
    lines = []
    for line in text.splitlines():
        match = _LAYER_LINE.match(line)
        if match is None:
            lines.append(line)
            continue
        left, _, right = match["io"].partition(" -> ")

        def tensors(part: str) -> str:
            out = []
            names = re.split(r" \([A-Za-z0-9]+\[[-\d,: ]*\]\)(?:, )?", part)
            for name, t in zip(names, _TENSOR.finditer(part)):
                dims = [d.split(":")[0] for d in t["dims"].split(",")]
                widths = [int(d.split(":")[1]) for d in t["dims"].split(",") if ":" in d]
                words = _in_words(t["dtype"], widths[0] if widths else 1, len(dims))
                out.append(f"{{ Name: {name}, Location: Device, Dimensions: [{','.join(dims)}], "
                           f"Format/Datatype: {words} }}")
            return ", ".join(out)

        lines.append(f"Name: {match['name']}, LayerType: {match['type']}, Inputs: [ "
                     f"{tensors(left)}], Outputs: [ {tensors(right)}], TacticValue: "
                     f"{match['tactic']}, StreamId: 0")
    log = parse_build_log("\n".join(lines))
    assert "Channel major FP16 format where channel % 8 == 0" in log.layer_formats[
        "node_max_pool2d_1"][0]
    expected = tactics.layer_tactics(read_build_log(engines / MNIST))
    df = tactics.layer_tactics(log)
    columns = ["layer", "chosen_tactic", "chosen_combination", "combination_from", "chosen_ms",
               "chosen_is_fastest", "faster_elsewhere"]
    assert df[columns].astype(str).values.tolist() == expected[columns].astype(str).values.tolist()


def test_words_decide_where_the_layer_line_cannot(capsys):
    """A tactic id timed in the planar and in the channel-major Float combination (as Myelin's
    0x0 is): the layer line (``Float[...]``, no width) cannot tell them apart, so no verdict and the
    summary says why; the dump's "Channel major FP32 format" picks ``Float(…,1,672,3)``."""
    combos = ["Float(150528,50176,224,1) -> Float(401408,12544,112,1)",
              "Float(150528,1,672,3) -> Float(401408,1,3584,32)"]
    lines = ["[V] [TRT] =============== Computing costs for conv1"]
    for combo, time in zip(combos, ("0.5", "0.3")):
        lines += [f"[V] [TRT] *************** Autotuning format combination: {combo} ***",
                  "[V] [TRT] --------------- Timing Runner: conv1 (Myelin[0x80000023])",
                  f"[V] [TRT] Tactic: 0x0000000000000000 Time: {time}",
                  "[V] [TRT] >>>>>>>>>>>>>>> Chose Runner Type: Myelin Tactic: 0x0000000000000000"]
    lines.append("Layer(Myelin): conv1, Tactic: 0x0000000000000000, x (Float[1,3,224,224]) -> "
                 "y (Float[1,32,112,112])")
    log = parse_build_log("\n".join(lines))
    row = tactics.layer_tactics(log).iloc[0]
    assert row["combination_from"] == "ambiguous" and row["chosen_is_fastest"] is None
    summary = tactics.build_summary(log)
    assert summary["layers_combination_unknown"] == 1
    from trex.cli.tactics import _summary_lines
    assert _summary_lines(summary)["Chosen vs fastest"].startswith("1 layers without a verdict")
    words = ("Name: conv1, LayerType: Myelin, Inputs: [ { Name: x, Location: Device, Dimensions: "
             "[1,3,224,224], Format/Datatype: Channel major FP32 format }], Outputs: [ { Name: y, "
             "Location: Device, Dimensions: [1,32,112,112], Format/Datatype: Channel major FP32 "
             "format }], TacticValue: 0x0000000000000000")
    row = tactics.layer_tactics(parse_build_log("\n".join([*lines, words]))).iloc[0]
    assert (row["combination_from"], row["chosen_combination"], row["chosen_ms"]) == (
        "engine formats", combos[1], 0.3)
