"""Tests of the trtexec log reader, on the real logs in ``engines`` and on small synthetic texts.

Each figure asserted on a real log was checked against the file with grep.
"""

from __future__ import annotations

import json
import math
import re
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trex.errors import InputError
from trex.formats.trtexec_log import (
    TrtexecLog,
    looks_like_trtexec_log,
    parse_trtexec_log,
    read_trtexec_log,
)

LEVIT = "trt8.2-levit-fp32-names-only/result-FP32.txt"
LEVIT_LAYERS = "trt8.2-levit-fp32-names-only/detailed_report.txt"
RESNET = "trt8.6-resnet50-int8/resnet50-int8.engine.profile.log"
MNIST_BUILD = "trt10.16-mnist-fp32/result-02.log"
MNIST_PROFILE = "trt10.16-mnist-fp32/result-05.log"
MOBILENET_BUILD = "trt8.6-mobilenetv2-int8-build/mobilenetV2.onnx.engine.build.log"
TS = "[05/26/2022-18:09:28]"


@pytest.fixture(scope="module")
def levit(engines: Path) -> TrtexecLog:
    return read_trtexec_log(engines / LEVIT)


@pytest.fixture(scope="module")
def resnet(engines: Path) -> TrtexecLog:
    return read_trtexec_log(engines / RESNET)


@pytest.fixture(scope="module")
def mnist_profile(engines: Path) -> TrtexecLog:
    return read_trtexec_log(engines / MNIST_PROFILE)


def _log(*lines: str) -> str:
    """Build a synthetic log: lines starting with [I]/[W]/[V]/[E] get a timestamp."""
    out = []
    for line in lines:
        out.append(f"{TS} {line}" if re.match(r"\[[IWVE]\]", line) else line)
    return "\n".join(out) + "\n"


def _rows_between_header_and_total(text: str, header: str) -> int:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if header in line)
    total = next(i for i in range(start + 1, len(lines))
                 if re.search(r"\[I\]\s+(Total\s+[\d.]|[\d.\s]+\sTotal$)", lines[i]))
    return total - start - 2  # minus the column-header line


# --- TensorRT 8.2, LeViT: 8.2 profile-table layout, one-percentile summary ------------------------

def test_levit_version_command_and_options(levit: TrtexecLog) -> None:
    assert levit.version == "8.2.4"
    assert levit.command == ("trtexec --loadEngine=./trt_plans/model_128S.plan "
                             "--shapes=input:16x3x224x224 --verbose --dumpProfile "
                             "--exportLayerInfo=./detailed_report.txt")
    sections = levit.metadata.sections
    assert list(sections) == ["model_options", "build_options", "system_options",
                              "inference_options", "reporting_options", "device_information",
                              "performance_summary"]
    assert sections["model_options"] == {"Format": "*", "Model": "", "Output": ""}
    build = sections["build_options"]
    assert build["Precision"] == "FP32"
    assert build["Workspace"] == "16 MiB"
    assert build["Input(s)s format"] == "fp32:CHW"  # key verbatim, value keeps its ':'
    assert build["Calibration"] == ""
    assert build["Input calibration shapes"] == "model"  # last entry of the section
    assert len(build) == 21
    # "Dump refittable layers:Disabled" has no space after ':'; TREx read "isabled" and then
    # stopped; the entries after it must still be read.
    reporting = sections["reporting_options"]
    assert reporting["Dump refittable layers"] == "Disabled"
    assert reporting["Profile"] == "Enabled"
    assert reporting["Export profile to JSON file"] == ""
    assert levit.warnings == []
    assert levit.log_warnings == []


def test_levit_performance_summary(levit: TrtexecLog) -> None:
    perf = levit.metadata.section("performance_summary")
    assert perf["Throughput"] == 105.134
    assert perf["Latency"] == [7.21924, 23.2815, 9.41407, 8.09473, 19.2207]
    assert perf["End-to-End Host Latency"] == [7.27222, 23.5103, 9.50697, 8.16168, 19.4236]
    assert perf["D2H Latency"] == [0.0114746, 0.163818, 0.0206686, 0.0134277, 0.147705]
    for key in ("Enqueue Time", "H2D Latency", "GPU Compute Time"):
        assert len(perf[key]) == 5
    assert perf["Total Host Walltime"] == 1.97843
    assert perf["Total GPU Compute Time"] == 1.64404
    assert perf["percentiles"]["Latency"] == {
        "min": 7.21924, "max": 23.2815, "mean": 9.41407, "median": 8.09473, "p99": 19.2207}
    # The [V] explanation lines ("Throughput: the observed throughput ...") are not entries.
    assert set(perf) == {"Throughput", "Latency", "End-to-End Host Latency", "Enqueue Time",
                         "H2D Latency", "GPU Compute Time", "D2H Latency", "Total Host Walltime",
                         "Total GPU Compute Time", "percentiles"}


def test_levit_device(levit: TrtexecLog) -> None:
    info = levit.metadata.section("device_information")
    assert info == {
        "Selected Device": "NVIDIA GeForce RTX 3050 Ti Laptop GPU",
        "Compute Capability": 8.6,
        "SMs": 20,
        "Compute Clock Rate": 1.185,
        "Device Global Memory": "4095 MiB",  # TREx keeps sizes as strings
        "Shared Memory per SM": "100 KiB",
        "Memory Bus Width": 128.0,
        "Memory Clock Rate": 5.501,
    }
    device = levit.device
    assert device is not None and device is levit.metadata.device
    assert device.name == "NVIDIA GeForce RTX 3050 Ti Laptop GPU"
    assert device.compute_capability == 8.6
    assert device.sms == 20 and isinstance(device.sms, int)
    assert device.compute_clock_ghz == 1.185
    assert device.memory_clock_ghz == 5.501
    assert device.global_memory_bytes == 4095 * 2**20
    assert device.shared_memory_per_sm_bytes == 100 * 1024
    assert device.memory_bus_width_bits == 128
    assert device.ecc_enabled is False
    # "TensorRT version: 8.2.4" follows the section after an empty [I] line: not an entry.
    assert "TensorRT version" not in info


def test_levit_profile_table(levit: TrtexecLog, engines: Path) -> None:
    text = (engines / LEVIT).read_text()
    assert len(levit.profile_runs) == 1
    run = levit.profile_runs[0]
    assert run.count == 209
    assert run.source == str(engines / LEVIT)
    first = run.records[0]
    assert first.name == "onnx::MatMul_1172 + (Unnamed Layer* 23) [Shuffle]"
    assert (first.time_ms, first.avg_ms, first.median_ms, first.percentage) == (
        0.64, 0.0030, None, 0.0)
    assert run.records[-1].name == "PWN(onnx::Div_1158 + (Unnamed Layer* 1932) [Shuffle], Div_658)"
    assert run.records[-1].time_ms == 3.06
    expected_rows = _rows_between_header_and_total(text, "=== Profile (209 iterations ) ===")
    assert expected_rows == 435
    assert len(run.records) == expected_rows
    assert all(r.name != "Total" for r in run.records)
    # The names equal, in order, those of the names-only layer JSON of the same engine.
    layers = json.loads((engines / LEVIT_LAYERS).read_text())["Layers"]
    assert [r.name for r in run.records] == layers
    assert math.isclose(sum(r.time_ms for r in run.records), 2833.49, abs_tol=0.01 * 435)


# --- TensorRT 10.16: 10.x profile-table layout (name last, with median) --------------------------

def test_trt10_profile_table(mnist_profile: TrtexecLog, engines: Path) -> None:
    log = mnist_profile
    assert log.version == "10.16.1"  # banner "[TensorRT v101601]" and "TensorRT version: 10.16.1"
    assert log.command is not None and log.command.startswith("trtexec --loadEngine=")
    (run,) = log.profile_runs
    assert run.count == 18362
    first = run.records[0]
    assert (first.name, first.time_ms, first.avg_ms, first.median_ms, first.percentage) == (
        "__mye59_0_myl0_0", 31.40, 0.0017, 0.0018, 2.1)
    spaced = run.records[3]
    assert spaced.name == (
        "Reformatting CopyNode for Input Tensor 0 to {ForeignNode[node_conv2d_1...node_relu_1]}")
    assert (spaced.time_ms, spaced.avg_ms, spaced.median_ms, spaced.percentage) == (
        101.96, 0.0056, 0.0044, 6.7)
    assert run.records[-1].name == "__myl_Cast_myl5_7"
    text = (engines / MNIST_PROFILE).read_text()
    assert len(run.records) == _rows_between_header_and_total(
        text, "=== Profile (18362 iterations ) ===") == 15
    assert math.isclose(sum(r.time_ms for r in run.records), 1529.13, abs_tol=0.01 * 15)
    assert log.warnings == []
    # Profiling without --separateProfileRun prints no performance summary.
    assert "performance_summary" not in log.metadata.sections


def test_trt10_device(mnist_profile: TrtexecLog) -> None:
    info = mnist_profile.metadata.section("device_information")
    assert info["Compute Capability"] == 9.0
    assert info["SMs"] == 114
    assert info["Application Compute Clock Rate"] == 1.755
    assert info["Application Memory Clock Rate"] == 1.593
    assert info["Memory Bus Width"] == 5120.0
    assert info["Device Global Memory"] == "81081 MiB"
    assert info["Available Devices"] == ""
    assert info["Device 0"] == '"NVIDIA H100 PCIe" UUID: GPU-31e9692b-62b7-2d62-f0b1-f4195b568ac7'
    device = mnist_profile.device
    assert device is not None
    assert device.name == "NVIDIA H100 PCIe"
    assert device.compute_clock_ghz == 1.755 and device.memory_clock_ghz == 1.593
    assert device.global_memory_bytes == 81081 * 2**20
    assert device.shared_memory_per_sm_bytes == 228 * 1024
    assert device.ecc_enabled is True


def test_trt10_build_log_values_with_colons(engines: Path) -> None:
    log = read_trtexec_log(engines / MNIST_BUILD)
    assert log.version == "10.16.1"
    build = log.metadata.section("build_options")
    assert build["Memory Pools"] == ("workspace: 0.000976562 MiB, dlaSRAM: default, "
                                     "dlaLocalDRAM: default, dlaGlobalDRAM: default, "
                                     "tacticSharedMem: default")
    assert build["Tempfile Controls"] == "{ in_memory: allow, temporary: allow }"
    assert build["Precision"] == "FP32+FP16"
    assert build["Input build shape (profile 0)"] == "x=1x1x28x28+4x1x28x28+16x1x28x28"
    assert build["Input calibration shapes"] == "model"
    assert len(build) == 50
    # "Input inference shape : x=4x1x28x28" (space before the colon)
    assert log.metadata.section("inference_options")["Input inference shape"] == "x=4x1x28x28"
    assert log.profile_runs == []
    assert any("Make sure output z has Int64 binding" in w for w in log.log_warnings)


# --- TensorRT 8.6: three percentiles, warnings inside the performance summary ---------------------

def test_resnet_performance_summary_three_percentiles(resnet: TrtexecLog) -> None:
    perf = resnet.metadata.section("performance_summary")
    assert perf["Throughput"] == 3406.14
    assert perf["Latency"] == [0.273193, 0.976898, 0.292246, 0.275391, 0.276611, 0.468018,
                               0.624634]
    assert perf["H2D Latency"] == [0.0] * 7
    assert perf["percentiles"]["Latency"]["p90"] == 0.276611
    assert perf["percentiles"]["Latency"]["p95"] == 0.468018
    assert perf["percentiles"]["Latency"]["p99"] == 0.624634
    assert list(perf["percentiles"]["Enqueue Time"]) == [
        "min", "max", "mean", "median", "p90", "p95", "p99"]
    assert perf["Total Host Walltime"] == 3.00046
    assert perf["Total GPU Compute Time"] == 2.98676
    assert "End-to-End Host Latency" not in perf  # --noDataTransfers run prints none
    # Two [W] lines follow inside the section; they are collected, not entries.
    assert not any(key.startswith("*") for key in perf)
    assert any("GPU compute time is unstable" in w for w in resnet.log_warnings)


def test_resnet_options_and_no_profile(resnet: TrtexecLog) -> None:
    assert resnet.version == "8.6.1"
    build = resnet.metadata.section("build_options")
    assert build["Memory Pools"] == ("workspace: default, dlaSRAM: default, "
                                     "dlaLocalDRAM: default, dlaGlobalDRAM: default")
    assert build["Tempfile Controls"] == "{ in_memory: allow, temporary: allow }"
    assert build["Precision"] == "FP32"
    assert resnet.metadata.section("reporting_options")["Percentiles"] == "90,95,99"
    inference = resnet.metadata.section("inference_options")
    assert inference["CUDA Graph"] == "Enabled" and inference["Inputs"] == ""
    device = resnet.metadata.section("device_information")
    assert device["SMs"] == 68 and device["Application Compute Clock Rate"] == 1.74
    # Layer timing failed under CUDA graphs: no table was printed.
    assert resnet.profile_runs == []
    assert "trace_details" not in resnet.metadata.sections


def test_resnet_matches_trex_profile_metadata(resnet: TrtexecLog, engines: Path) -> None:
    """TREx's own metadata file for this log: same shapes, plus what TREx lost or left as text."""
    ref = json.loads((engines / RESNET.replace(".log", ".metadata.json")).read_text())
    sections = resnet.metadata.sections
    perf = {k: v for k, v in sections["performance_summary"].items() if k != "percentiles"}
    assert perf == ref["performance_summary"]
    inference = sections["inference_options"]
    assert {k: inference[k] for k in ref["inference_options"]} == ref["inference_options"]
    assert set(inference) - set(ref["inference_options"]) == {"Inputs"}  # TREx dropped it
    device = dict(sections["device_information"])
    # TREx left the application clocks as "1.74 GHz" strings; we give GHz floats.
    assert ref["device_information"].pop("Application Compute Clock Rate") == "1.74 GHz"
    assert ref["device_information"].pop("Application Memory Clock Rate") == "9.501 GHz"
    assert (device.pop("Application Compute Clock Rate"),
            device.pop("Application Memory Clock Rate")) == (1.74, 9.501)
    assert device == ref["device_information"]


def test_big_build_log_is_fast_and_complete(engines: Path) -> None:
    path = engines / MOBILENET_BUILD
    text = path.read_text()
    assert len(text) > 3_000_000
    best = math.inf
    for _ in range(3):
        start = time.perf_counter()
        log = parse_trtexec_log(text, str(path))
        best = min(best, time.perf_counter() - start)
    assert best < 0.5
    assert log.version == "8.6.1"
    build = log.metadata.section("build_options")
    assert build["Precision"] == "FP32+INT8"
    assert build["Calibration"] == "Dynamic"
    assert build["Memory Pools"].startswith("workspace: 8192 MiB, dlaSRAM: default")
    assert log.device is not None and log.device.sms == 68
    assert log.device.compute_clock_ghz == 1.74 and log.device.memory_clock_ghz == 9.501
    assert log.profile_runs == []


def test_every_real_file_parses_or_is_rejected_cleanly(engines: Path) -> None:
    logs = []
    for path in sorted([*engines.glob("*/*.log"), *engines.glob("*/*.txt")]):
        try:
            log = read_trtexec_log(path)
        except InputError as exc:
            assert str(path) in str(exc)
            continue
        logs.append(path.name)
        assert log.version is not None and log.command is not None
        assert "model_options" in log.metadata.sections
        assert log.device is not None and log.device.sms
    assert sorted(logs) == sorted(["result-02.log", "result-05.log", "result-FP32.txt",
                                   "mobilenetV2.onnx.engine.build.log",
                                   "resnet50-int8.engine.profile.log"])


# --- synthetic texts: section boundaries ---------------------------------------------------------

def test_warning_verbose_and_trt_lines_do_not_end_a_section() -> None:
    text = _log(
        "&&&& RUNNING TensorRT.trtexec [TensorRT v8601] # trtexec --onnx=m.onnx",
        "[I] === Build Options ===",
        "[I] Max batch: explicit batch",
        "[W] --workspace flag has been deprecated by --memPoolSize flag.",
        "[I] Memory Pools: workspace: 8192 MiB, dlaSRAM: default",
        "[V] [TRT] Registered plugin creator - ::BatchTilePlugin_TRT version 1",
        "[I] minTiming: 1",
        "[I] [TRT] [MemUsageChange] Init CUDA: CPU +11, GPU +0, now: CPU 16, GPU 1293 (MiB)",
        "[E] Error[3]: something odd: value",
        "unprefixed text: from another tool",
        "[I] avgTiming: 8",
        "[I] ",
        "[I] Not: an entry any more",
    )
    log = parse_trtexec_log(text, "synthetic.log")
    assert log.metadata.sections["build_options"] == {
        "Max batch": "explicit batch",
        "Memory Pools": "workspace: 8192 MiB, dlaSRAM: default",
        "minTiming": "1",
        "avgTiming": "8",
    }
    assert log.version == "8.6.1"
    assert log.command == "trtexec --onnx=m.onnx"
    assert log.log_warnings == [
        "[W] --workspace flag has been deprecated by --memPoolSize flag.",
        "[E] Error[3]: something odd: value",
    ]


def test_sections_end_at_headers_sentences_and_empty_info_lines() -> None:
    text = _log(
        "[I] === Model Options ===",
        "[I] Format: ONNX",
        "[I] === System Options ===",  # a header ends the previous section
        "[I] Device: 0",
        "[I]",  # 10.x prints empty info lines without the trailing space
        "[I] Stray: entry",
        "[I] === Inference Options ===",
        "[I] Iterations: 10",
        "[I] Starting inference now",  # a sentence ends the section
        "[I] Late: entry",
        "[I] === Reporting Options ===",
        "[I] Verbose: Enabled",
    )
    sections = parse_trtexec_log(text).metadata.sections
    assert sections == {
        "model_options": {"Format": "ONNX"},
        "system_options": {"Device": "0"},
        "inference_options": {"Iterations": "10"},
        "reporting_options": {"Verbose": "Enabled"},  # ends with the text
    }


def test_repeated_keys_and_sections_later_wins() -> None:
    text = _log(
        "[I] === Build Options ===",
        "[I] Precision: FP32",
        "[I] Precision: FP16",
        "[I] Refit: Disabled",
        "[I] === Build Options ===",
        "[I] Precision: INT8",
    )
    log = parse_trtexec_log(text)
    assert log.metadata.sections["build_options"] == {"Precision": "INT8"}
    assert any("appears again" in w for w in log.warnings)


def test_trace_details_and_explanations_are_not_sections() -> None:
    text = _log(
        "[I] === Trace details ===",
        "[I] Trace averages of 10 runs:",
        "[I] Average on 10 runs - GPU latency: 8.1 ms - Host latency: 9.4 ms",
        "[I] ",
        "[I] === Performance summary ===",
        "[I] Throughput: 2829.15 qps",
        "[I] Latency: min = 1 ms, max = 2 ms, mean = 1.5 ms, median = 1.4 ms, "
        "percentile(90%) = 1.8 ms, percentile(95%) = 1.9 ms, percentile(99%) = 2 ms",
        "[I] Total Host Walltime: 3003 ms",
        "[V] === Explanations of the performance metrics ===",
        "[V] Throughput: the observed throughput computed by dividing ...",
        "[I] Explanations of the performance metrics are printed in the verbose logs.",
    )
    sections = parse_trtexec_log(text).metadata.sections
    assert list(sections) == ["performance_summary"]
    perf = sections["performance_summary"]
    assert perf["Throughput"] == 2829.15
    assert perf["Latency"] == [1.0, 2.0, 1.5, 1.4, 1.8, 1.9, 2.0]
    assert perf["Total Host Walltime"] == pytest.approx(3.003)  # always seconds


def test_odd_device_and_summary_values_are_kept_or_warned_not_raised() -> None:
    text = _log(
        "[I] === Device Information ===",
        "[I] Selected Device: Orin",
        "[I] SMs: nan",
        "[I] Compute Clock Rate: 1300 MHz",
        "[I] Device Global Memory: 1e300 GiB",
        "[I] Shared Memory per SM: 48 furlongs",
        "[I] Memory Bus Width: (ECC enabled)",
        "[I] ",
        "[I] === Performance summary ===",
        "[I] Throughput: n/a",
        "[I] Input: x=1x3",
        "[I] Latency: min = 1 us, max = 2 s, mean = 3 ms, median = 4 ms, percentile(99.9%) = 5 ms",
    )
    log = parse_trtexec_log(text)
    device = log.device
    assert device is not None
    assert device.name == "Orin" and device.sms is None
    assert device.compute_clock_ghz == pytest.approx(1.3)
    assert device.global_memory_bytes is None and device.shared_memory_per_sm_bytes is None
    assert device.memory_bus_width_bits is None and device.ecc_enabled is True
    perf = log.metadata.section("performance_summary")
    assert perf["Throughput"] == "n/a" and perf["Input"] == "x=1x3"
    assert perf["Latency"] == pytest.approx([0.001, 2000.0, 3.0, 4.0, 5.0])
    assert list(perf["percentiles"]["Latency"]) == ["min", "max", "mean", "median", "p99.9"]
    assert any("Throughput" in w for w in log.warnings)
    assert any("Memory Bus Width" in w for w in log.warnings)


# --- synthetic texts: versions and profile tables ------------------------------------------------

@pytest.mark.parametrize(("code", "version"), [
    ("8204", "8.2.4"), ("8601", "8.6.1"), ("7103", "7.1.3"), ("100400", "10.4.0"),
    ("101601", "10.16.1"), ("100000", "10.0.0"),
])
def test_version_from_banner(code: str, version: str) -> None:
    log = parse_trtexec_log(f"&&&& RUNNING TensorRT.trtexec [TensorRT v{code}] # trtexec\n")
    assert log.version == version
    assert log.command == "trtexec"


def test_version_from_info_line_only() -> None:
    log = parse_trtexec_log(_log("[I] TensorRT version: 10.16.1", "[I] Loading standard plugins"))
    assert log.version == "10.16.1"
    assert log.command is None
    assert parse_trtexec_log(_log("[I] hello")).version is None


def test_profile_tables_keep_names_exactly() -> None:
    text = _log(
        "[I] === Profile (12 iterations ) ===",
        "[I]                  Layer   Time (ms)   Avg. Time (ms)   Time %",
        "[I]    my layer  2 [x]: 3        1.20           0.1000     60.0",
        "[V] [TRT] verbose noise inside the table",
        "[I]              1 + 2 = 3        0.80           0.0667     40.0",
        "[I]                  Total        2.00           0.1667    100.0",
        "[I] ",
        "[I] === Profile (7 iterations ) ===",
        "[I]    Time(ms)     Avg.(ms)   Median(ms)   Time(%)   Layer",
        "[I]        0.70       0.1000       0.0900      70.0   7 layer  with  spaces ",
        "[I]        0.30       0.0429       0.0400      30.0   {ForeignNode[a...b]} [profile 1]",
        "[I]        1.00       0.1429       0.1300     100.0   Total",
    )
    log = parse_trtexec_log(text, "t.log")
    assert [run.count for run in log.profile_runs] == [12, 7]
    first, second = log.profile_runs
    assert [r.name for r in first.records] == ["my layer  2 [x]: 3", "1 + 2 = 3"]
    assert first.records[0].time_ms == 1.2 and first.records[0].median_ms is None
    assert [r.name for r in second.records] == ["7 layer  with  spaces ",
                                                "{ForeignNode[a...b]} [profile 1]"]
    assert second.records[0].median_ms == 0.09 and second.records[1].percentage == 30.0
    assert log.warnings == []
    assert log.metadata.sections == {}


def test_profile_table_oddities_become_warnings() -> None:
    text = _log(
        "[I] === Profile (5 iterations ) ===",
        "[I]    Time(ms)     Avg.(ms)   Median(ms)   Time(%)   Layer",
        "[I]        9.00       1.8000       1.8000      90.0   a",
        "[I]       10.00       2.0000       2.0000     100.0   Total",  # rows sum to 9, not 10
        "[I] === Profile (5 iterations ) ===",
        "[I]    Time(ms)     Avg.(ms)   Median(ms)   Time(%)   Layer",
        "[I]        1.00       0.2000       0.2000      50.0   b",
        "[I] log cut here",  # no Total row
    )
    log = parse_trtexec_log(text)
    assert [len(run.records) for run in log.profile_runs] == [1, 1]
    assert any("sum to 9.00 ms but the Total row says 10.00 ms" in w for w in log.warnings)
    assert any("no Total row" in w for w in log.warnings)


# --- reading files and rejecting non-logs --------------------------------------------------------

def test_read_errors_name_the_file(tmp_path: Path, engines: Path) -> None:
    missing = tmp_path / "missing.log"
    with pytest.raises(InputError, match="missing.log: file not found"):
        read_trtexec_log(missing)
    with pytest.raises(InputError, match="folder"):
        read_trtexec_log(tmp_path)
    prose = tmp_path / "notes.txt"
    prose.write_text("Just some notes: nothing to see.\n")
    with pytest.raises(InputError, match=r"notes\.txt: not a trtexec log"):
        read_trtexec_log(prose)
    # A Latin-1 byte (a Windows path) is replaced and reported, not a reason to refuse the log.
    latin1 = tmp_path / "latin1.log"
    latin1.write_bytes(b"[05/26/2022-18:09:28] [I] === Model Options ===\n"
                       b"[05/26/2022-18:09:28] [I] Model: caf\xe9.onnx\n")
    log = read_trtexec_log(latin1)
    assert log.metadata.section("model_options") == {"Model": "caf\ufffd.onnx"}
    assert any("latin1.log: not UTF-8" in w and "offset 84" in w for w in log.warnings)
    binary = tmp_path / "model.engine"
    binary.write_bytes(b"ftrt\x00\x00\x01\x02" * 10)
    with pytest.raises(InputError, match="binary"):
        read_trtexec_log(binary)
    # A names-only layer JSON named .txt is not a log.
    with pytest.raises(InputError, match="detailed_report.txt: not a trtexec log"):
        read_trtexec_log(engines / LEVIT_LAYERS)
    with pytest.raises(InputError):
        read_trtexec_log(None)  # type: ignore[arg-type]
    with pytest.raises(InputError):
        parse_trtexec_log(b"[I] bytes")  # type: ignore[arg-type]


def test_read_utf16_and_crlf(tmp_path: Path) -> None:
    text = _log("[I] === Build Options ===", "[I] Precision: FP16", "[I] ")
    path = tmp_path / "powershell.log"
    path.write_bytes(text.replace("\n", "\r\n").encode("utf-16"))
    log = read_trtexec_log(path)
    assert log.metadata.section("build_options") == {"Precision": "FP16"}
    assert log.source == str(path)


def test_looks_like_trtexec_log(engines: Path) -> None:
    assert looks_like_trtexec_log((engines / LEVIT).read_text())
    assert looks_like_trtexec_log("&&&& RUNNING TensorRT.trtexec [TensorRT v8601] # trtexec\n")
    assert looks_like_trtexec_log("[I] === Model Options ===\n")
    assert not looks_like_trtexec_log((engines / LEVIT_LAYERS).read_text())
    assert not looks_like_trtexec_log(
        (engines / "trt10.16-multiprofile-oneline/log-main.py.log").read_text())
    assert not looks_like_trtexec_log("")
    assert not looks_like_trtexec_log('[{"count": 10}]')


_LINE = st.one_of(
    st.text(max_size=80),
    st.sampled_from([
        "[I] === Profile (3 iterations ) ===", "[I] === Performance summary ===",
        "[I] === Device Information ===", "[I]    Time(ms)     Avg.(ms)   Median(ms)   Time(%)   Layer",
        "[I]   Layer   Time (ms)   Avg. Time (ms)   Time %", "[I]  1.0 2.0 3.0 4.0   x",
        "[I] x   1.0  2.0  3.0", "[I] Latency: min = nan ms, max = inf ms, percentile(99%) = x",
        "[I] SMs: nan", "[I] Device Global Memory: 1e400 GiB",
        "[I] Shared Memory per SM: 1e300 GiB", "[I] Throughput: qps",
        "[I] Memory Bus Width: (ECC enabled)", "&&&& RUNNING TensorRT.trtexec [TensorRT v99999999]",
        "[I] TensorRT version: 1.2.3.4.5", "[W] w", "[I] ", "[I] [TRT] t: v",
    ]),
).map(lambda line: f"{TS} {line}" if line.startswith("[") and line[1:2] in "IWVE" else line)


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINE, max_size=30))
def test_parser_never_raises_on_garbage(lines: list[str]) -> None:
    log = parse_trtexec_log("\n".join(lines), "fuzz.log")
    assert isinstance(log, TrtexecLog)
