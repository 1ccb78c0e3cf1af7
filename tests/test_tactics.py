"""Build-log analysis on the real verbose build logs of TensorRT 8.6 and 10.16.

Verdicts compare like with like: the chosen tactic against the fastest of its own format
combination; a faster tactic timed in another combination (whose reformats the builder weighs) is
reported apart. On both real logs every chosen tactic is the fastest of its combination: the
former "19 of 56" / "2 of 5 layers use a tactic slower than the fastest timed" were all faster
tactics of other format combinations.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

import trex
from trex import tactics
from trex.cli import main
from trex.formats.build_log import combination_signature, parse_build_log, read_build_log

MOBILENET = "trt8.6-mobilenetv2-int8-build/mobilenetV2.onnx.engine.build.log"
MNIST = "trt10.16-mnist-fp32/result-02.log"


@pytest.fixture(scope="module")
def log86(engines):
    return read_build_log(engines / MOBILENET)


@pytest.fixture(scope="module")
def log10(engines):
    return read_build_log(engines / MNIST)


def test_the_big_log_parses_every_tactic(engines):
    log = read_build_log(engines / MOBILENET)  # 0.14 s on a 2-core machine
    assert len(log.tactics) == 8565


def test_86_summary_figures(log86):
    s = tactics.build_summary(log86)
    assert s["tensorrt_version"] == "8.6.1"
    assert (s["build_passes"], s["kept_pass"], s["kept_strategy"]) == (1, 0, 2)
    assert (s["engine_layers"], s["autotuned_layers"], s["layers_with_tactics"]) == (58, 56, 34)
    assert s["format_combinations"] == 587
    assert (s["tactics_timed"], s["tactics_cached"]) == (8565, 0)
    assert (s["layers_compared"], s["layers_not_fastest"]) == (56, 0)
    assert s["max_combination_slowdown"] == 1.0
    assert s["layers_faster_elsewhere"] == 19  # what TREx-era views called "not fastest"
    assert s["max_slowdown"] == pytest.approx(0.00439065 / 0.00355624)
    assert s["autotune_s"] == pytest.approx(36.1729, abs=1e-4)
    assert (s["fusions"], s["removals"]) == (47, 2)
    assert s["engine_built_s"] == 43.3106
    assert s["activation_bytes"] == 1831424
    assert s["peak_gpu_mib"] == 1561


def test_86_first_conv_chosen_vs_fastest(log86):
    row = tactics.layer_tactics(log86).iloc[1]
    assert row["layer"].startswith("/backbone/features/features.0/features.0.0/Conv + PWN(")
    assert (row["combinations"], row["tactics_timed"]) == (12, 190)
    assert row["chosen_tactic"] == "0x3d988d07a78b0918"
    assert row["chosen_tactic_name"].startswith("sm80_xmma_fprop_first_layer_i8i8")
    # The engine's INT8 kernel, timed in the combination the engine uses ...
    assert row["chosen_combination"] == "Int8(50176,50176:4,224,1) -> Int8(12544,12544:32,112,1)"
    assert row["chosen_ms"] == 0.00362389
    # ... is the fastest of that combination ...
    assert row["chosen_is_fastest"] and row["combination_slowdown"] == 1.0
    assert row["fastest_in_combination_tactic"] == row["chosen_tactic"]
    assert row["fastest_in_combination_ms"] == 0.00362389
    # ... and 2.5 % slower than a kernel of another combination, whose input needed a reformat.
    assert row["faster_elsewhere"]
    assert row["fastest_tactic"] == "0x11764d94950382f8"
    assert row["fastest_combination"] == "Int8(150528,50176,224,1) -> Int8(12544,12544:32,112,1)"
    assert row["fastest_ms"] == 0.00353539
    assert row["slowdown"] == pytest.approx(1.02503, abs=1e-5)
    assert row["autotune_s"] == pytest.approx(0.57652205)


def test_86_worst_layer_is_a_depthwise_conv(log86):
    df = tactics.layer_tactics(log86)
    worst = df.loc[df["slowdown"].idxmax()]
    assert worst["layer"].startswith("/backbone/features/features.7/conv/conv.1/conv.1.0/Conv")
    assert worst["chosen_tactic"] == "0x77165216ca906393"
    assert worst["fastest_combination"] == "Float(150528,784,28,1) -> Float(37632,196,14,1)"


def test_86_silent_timing_cache_hits_name_the_layer_whose_timings_were_reused(log86):
    df = tactics.layer_tactics(log86).set_index("layer")
    reused = df[df["timings_from"].notna()]
    assert len(reused) == 22
    row = df.loc["/backbone/features/features.4/conv/conv.0/conv.0.0/Conv + "
                 "PWN(/backbone/features/features.4/conv/conv.0/conv.0.2/Clip)"]
    assert row["tactics_timed"] == 0
    assert row["timings_from"].startswith("/backbone/features/features.3/conv/conv.0/")
    assert row["chosen_ms"] == pytest.approx(0.004005, abs=1e-6)


def test_86_builder_layers_have_no_tactics(log86):
    first = tactics.layer_tactics(log86).iloc[0]
    assert first["type"] == "Reformat" and first["tactics_timed"] == 0
    assert math.isnan(first["chosen_ms"])


def test_86_fusions_map_engine_layers_to_onnx_layers(log86):
    steps = tactics.fusions(log86)
    assert steps["rule"].value_counts().to_dict() == {
        "ConvPointWiseClipFusion": 35, "ConvEltwiseSumFusion": 10, "": 2,
        "ConstShuffleFusion": 1, "ShuffleShuffleFusion": 1}
    fused = tactics.fused_layers(log86)
    assert fused["origin"].value_counts().to_dict() == {"fused": 45, "network": 11, "builder": 2}
    row = fused.iloc[1]
    assert row["network_layers"] == ["/backbone/features/features.0/features.0.0/Conv",
                                     "/backbone/features/features.0/features.0.2/Clip"]
    assert row["rules"] == ["ConvPointWiseClipFusion"]


def test_86_memory_changes(log86):
    mem = tactics.memory_changes(log86)
    assert mem["event"].tolist()[:2] == ["Init CUDA", "Init builder kernel library"]
    assert mem.iloc[1][["cpu_delta_mib", "gpu_delta_mib", "cpu_mib", "gpu_mib"]].tolist() == [
        1231, 266, 1324, 1559]


def test_10_builder_passes_and_the_kept_one(log10):
    passes = tactics.build_passes(log10)
    assert passes["strategy"].tolist() == [4, 3, 2]
    assert passes["kept"].tolist() == [False, True, False]
    assert passes["estimated_ms"].tolist() == [0.3344, 0.310688, 0.32816]
    assert passes["activation_bytes"].tolist() == [2876416, 2007040, 2007552]
    s = tactics.build_summary(log10)
    assert s["tensorrt_version"] == "10.16.1"
    assert (s["engine_layers"], s["autotuned_layers"]) == (6, 5)
    assert (s["tactics_timed"], s["tactics_cached"], s["tactics_timed_all_passes"]) == (5, 27, 1361)
    assert s["autotune_s"] == pytest.approx(7.580534)
    assert s["autotune_s_all_passes"] == pytest.approx(22.0643, abs=1e-4)
    assert (s["engine_size_mib"], s["engine_built_s"]) == (6.42511, 24.4854)
    assert (s["layers_compared"], s["layers_not_fastest"], s["layers_faster_elsewhere"]) == (5, 0, 2)
    # the log's own figures: "Formats and tactics selection completed in 14.8108 seconds." (a cut
    # at a fixed offset used to drop the first digit: 4.8108 and 0.70415)
    assert passes["tactic_selection_s"].tolist() == [14.8108, 7.70415, 0.395312]
    assert passes["generation_s"].tolist() == [15.4838, 7.75278, 0.43392]


def test_10_cached_results_and_kernel_names_from_an_earlier_pass(log10):
    row = tactics.layer_tactics(log10).set_index("layer").loc["node_max_pool2d_1"]
    assert (row["tactics_timed"], row["tactics_cached"]) == (0, 4)
    assert row["chosen_tactic"] == "0xf9ae51e35ff7f5db"
    assert row["chosen_combination"] == "Half(1568,1:8,112,8) -> Half(392,1:8,56,8)"
    assert row["chosen_tactic_name"].startswith("sm")  # timed by name in the first pass
    assert row["slowdown"] == pytest.approx(0.00330556 / 0.0029732)
    myelin = tactics.layer_tactics(log10).iloc[5]
    assert myelin["type"] == "Myelin" and myelin["slowdown"] == pytest.approx(1.1756460)


def test_10_skipped_tactics_and_myelin_tables(log10):
    assert sum(t.status == "skipped" for t in log10.tactics) == 10
    assert tactics.myelin_tactics(log10, all_passes=True).shape == (1787, 8)
    foreign = tactics.fused_layers(log10).iloc[5]
    assert foreign["network_layers"] == ["node_view", "node_linear", "node_relu_2",
                                         "node_linear_1", "node_softmax", "node_argmax"]


def test_10_fusions_of_every_pass(log10):
    rules = tactics.fusions(log10, all_passes=True)["rule"].value_counts().to_dict()
    assert rules == {"ConstShuffleFusion": 6, "ConvReluFusion": 4, "": 3, "EltReluFusion": 1,
                     "LogSoftmaxTopKFusion": 1}


def test_tactic_timings_mark_the_engine_tactics(log86):
    df = tactics.tactic_timings(log86)
    assert len(df) == 8565
    assert df["runner"].value_counts().to_dict()["CaskConvolution"] == 6401
    assert df[df["in_engine"]]["layer"].nunique() == 34  # every layer with printed timings


def test_combination_signature():
    assert combination_signature("Int8(1,2:32,3,4), Float(5,6,7,8) -> Half(9,1:8,2,3)") == (
        [("Int8", 32), ("Float", 1)], [("Half", 8)])


def test_older_formats_parse():
    text = "\n".join([
        "[I] [TRT] [MemUsageSnapshot] Builder begin: CPU 1384 MiB, GPU 1407 MiB",
        "[V] [TRT] =============== Computing costs for conv1",
        "[V] [TRT] *************** Autotuning format combination: Float(1,3,224,224) -> "
        "Float(1,64,112,112) ***************",
        "[V] [TRT] --------------- Timing Runner: conv1 (CudaConvolution)",
        "[V] [TRT] Tactic: 0 Time: 0.5",
        "[V] [TRT] Tactic: -1234 Time: 0.25",
        "[V] [TRT] Tactic: 2 skipped. Scratch requested: 9, available: 0",
        "[V] [TRT] Fastest Tactic: -1234 Time: 0.25",
        "[V] [TRT] >>>>>>>>>>>>>>> Chose Runner Type: CudaConvolution Tactic: -1234",
    ])
    log = parse_build_log(text)
    assert [(t.tactic, t.time_ms, t.status) for t in log.tactics][:2] == [
        ("0", 0.5, "timed"), ("-1234", 0.25, "timed")]
    df = tactics.layer_tactics(log)
    assert df.iloc[0]["chosen_tactic"] == "-1234"  # one combination: its runner's choice
    assert df.iloc[0]["chosen_ms"] == 0.25


def test_not_a_build_log(engines):
    with pytest.raises(trex.InputError, match="no TensorRT build records"):
        read_build_log(engines / "trt8.6-resnet50-int8/resnet50-int8.engine.graph.json")


def test_cli_table(engines, capsys):
    assert main(["tactics", str(engines / MNIST)]) == 0
    out = capsys.readouterr().out
    assert "Builder pass kept    1 of 3 (backend strategy 3)" in out
    assert ("0 of 5 layers use a tactic slower than the fastest timed in its own format "
            "combination") in out
    assert ("2 of 5 layers: a faster tactic ran in another format combination (up to x1.176; the "
            "builder weighs the reformats around the layer)") in out
    assert "node_conv2d, node_relu" in out
    assert "Builder passes:" in out


def test_cli_json_and_filters(engines, capsys):
    assert main(["tactics", str(engines / MOBILENET), "-f", "json", "-s", "layers",
                 "--layer", "GlobalAveragePool"]) == 0
    data = json.loads(capsys.readouterr().out)[0]
    assert data["summary"]["tactics_timed"] == 8565
    assert [r["layer"] for r in data["layers"]] == ["/backbone/GlobalAveragePool"]
    assert data["layers"][0]["tactics_timed"] == 23


def test_cli_sort_and_top(engines, capsys):
    assert main(["tactics", str(engines / MOBILENET), "-s", "layers", "--sort", "slowdown",
                 "-n", "1", "-f", "csv"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 3  # title, header, one row
    assert "0x77165216ca906393" in out


def test_cli_bad_input(engines, capsys):
    code = main(["tactics", str(engines / "trt10.4-alexnet-fp16/alexnet_fp16.graph.json")])
    assert code == 2
    assert "no TensorRT build records" in capsys.readouterr().err


def test_build_log_is_a_plan_input(engines):
    plan = trex.EnginePlan.from_path(engines / "trt8.6-mobilenetv2-int8-build")
    assert len(plan.df) == 56  # 58 engine layers, two NoOps folded
    assert plan.df["type"].value_counts().to_dict() == {"Convolution": 53, "Reformat": 1,
                                                       "Pooling": 1, "SoftMax": 1}
    assert plan.df["precision"].value_counts().to_dict() == {"INT8": 54, "FP32": 2}
    assert plan.bindings == ["input0", "output0"]
    assert plan.builder_cfg["Precision"] == "FP32+INT8"
    conv = plan.df.iloc[1]
    assert conv["TacticValue"] == "0x3d988d07a78b0918"
    assert conv["tactic"].startswith("sm80_xmma_fprop_first_layer_i8i8")


def test_10_log_is_a_plan_input(engines):
    plan = trex.EnginePlan(engines / MNIST)
    assert plan.df["type"].tolist() == ["Myelin", "Pooling", "Reformat", "Myelin", "Pooling",
                                        "Myelin"]
    assert plan.df["precision"].tolist() == ["FP32", "FP32", "FP32", "FP16", "FP16", "FP16"]
    assert plan.layers[0].onnx_nodes == ["node_conv2d", "node_relu"]  # from its ForeignNode line
    assert plan.layers[1].onnx_nodes == ["node_max_pool2d"]  # a parsed node of the log


def test_profile_log_alone_still_gives_names(engines):
    plan = trex.EnginePlan.from_path(engines / "trt8.2-levit-fp32-names-only/result-FP32.txt")
    assert len(plan.df) == 435
    assert not plan.detailed


# ------------------------------------------------------------------------- figures as the log writes them
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")


def _tables(text: str) -> dict[str, list[dict[str, str]]]:
    """The text tables of ``trex tactics`` by title: rows as {column: cell} (columns from the
    dashes under the header)."""
    out: dict[str, list[dict[str, str]]] = {}
    lines = text.splitlines()
    for k in range(2, len(lines)):
        dashes = lines[k]
        if not dashes.startswith("---") or set(dashes) - {"-", " "}:
            continue
        spans = [(m.start(), m.end()) for m in re.finditer(r"-+", dashes)]
        header = lines[k - 1]
        columns = [header[a:b + 40].split("  ")[0].strip() for a, b in spans]
        rows = []
        for line in lines[k + 1:]:
            if not line.strip() or line.startswith(("best_in_combo_ms:", "estimated_ms,")):
                break
            rows.append({c: line[a:b + 1].strip() for c, (a, b) in zip(columns, spans)})
        out[lines[k - 2].rstrip(":")] = rows
    return out


def _verbose_logs(engines: Path) -> list[Path]:
    logs = [p for p in sorted((engines / "trt10.16-mnist-fp32").glob("*.log"))
            if "Computing costs for" in p.read_text(errors="replace")]
    assert [p.name for p in logs] == ["result-02.log"]  # the others: layer JSON, --dumpProfile
    return [*logs, engines / MOBILENET]


def test_every_time_the_tactic_view_prints_is_in_the_log(engines, capsys):
    """Every seconds/ms figure of ``--show passes`` and of the per-layer verdicts is a number the
    log writes, character for character (7.70415, not 7.7042 or 0.70415); tuning_s, the one
    derived figure, is the sum of the layer's ``profiling completed in`` seconds."""
    checked = 0
    for path in _verbose_logs(engines):
        text = path.read_text()
        numbers = set(_NUMBER.findall(text))
        assert main(["tactics", str(path), "--show", "layers", "--show", "passes"]) == 0
        tables = _tables(capsys.readouterr().out)
        figures = {
            "Layers (chosen tactic vs the fastest of its format combination)":
                ("chosen_ms", "best_in_combo_ms"),
            "Builder passes": ("estimated_ms", "tactic_selection_s", "generation_s"),
            "Faster tactics in another format combination (the builder chose the combination "
            "with the reformats around the layer in mind)": ("chosen_ms", "faster_ms"),
        }
        for title, columns in figures.items():
            for row in tables.get(title, []):
                for column in columns:
                    if row[column]:
                        assert row[column] in numbers, (path.name, title, column, row[column])
                        checked += 1
        layers = tactics.layer_tactics(read_build_log(path))
        for row, tuning in zip(tables["Layers (chosen tactic vs the fastest of its format "
                                      "combination)"], layers["autotune_s"]):
            assert row["tuning_s"] == ("" if math.isnan(tuning) else f"{tuning:.4f}")
        if "result-02" in path.name:
            assert len(tables["Builder passes"]) == 3
            assert [r["tactic_selection_s"] for r in tables["Builder passes"]] == [
                "14.8108", "7.70415", "0.395312"]
    assert checked == 173  # 23 figures of the 10.16 log, 150 of the 8.6 log


def test_no_autotuning_times_means_none_not_zero(log10):
    """node_max_pool2d's timings came from the timing cache in the kept pass: no profiling time."""
    row = tactics.layer_tactics(log10).set_index("layer").loc["node_max_pool2d"]
    assert math.isnan(row["autotune_s"]) and row["autotune_s_all_passes"] == pytest.approx(
        0.0730787 + 0.0178271 + 0.00749153 + 0.0335335)
    text = "\n".join(["[V] [TRT] =============== Computing costs for conv1",
                      "[V] [TRT] *************** Autotuning format combination: Float(1,3,8,8) -> "
                      "Float(1,8,8,8) ***************",
                      "[V] [TRT] --------------- Timing Runner: conv1 (CaskConvolution)",
                      "[V] [TRT] Tactic: 0x1 Time: 0.5"])
    summary = tactics.build_summary(parse_build_log(text))
    assert summary["autotune_s"] is None and summary["autotune_s_all_passes"] is None
    from trex.cli.tactics import _summary_lines
    assert _summary_lines(summary)["Autotuning"] == "-"
