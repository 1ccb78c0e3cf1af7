"""``trex process`` with the project's stand-in trtexec, NVML and tensorrt modules (no GPU here)."""

from __future__ import annotations

import json
import os
import sys
import types
from pathlib import Path

import pytest

import trex
from trex.cli import main
from trex.process import (
    ProcessPaths,
    StepError,
    TrtexecNotFound,
    detect_version,
    find_trtexec,
    flags_for,
    normalise_extra_args,
    parse_version,
    process_engine,
    run_step,
)
from trex.process.gpu import GpuConfigurator, GpuMonitor, GpuSettings

FAKE = Path(__file__).parent / "fake_trtexec" / "trtexec"


@pytest.fixture
def fake(engines, tmp_path, monkeypatch):
    """The stand-in trtexec, its argument log, and an ONNX file to build."""
    monkeypatch.setenv("TREX_ENGINES_DIR", str(engines))
    args_log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("TREX_FAKE_TRTEXEC_ARGS_LOG", str(args_log))
    for name in ("TREX_FAKE_TRTEXEC_FAIL", "TREX_FAKE_TRTEXEC_SCENARIO", "TREX_FAKE_TRTEXEC_DELAY"):
        monkeypatch.delenv(name, raising=False)
    model = tmp_path / "resnet.onnx"
    model.write_bytes(b"\x08\x07onnx stand-in")

    def calls():
        if not args_log.exists():
            return []
        return [json.loads(line) for line in args_log.read_text().splitlines()]

    return types.SimpleNamespace(exe=str(FAKE), model=model, out=tmp_path / "out", calls=calls)


def test_versions_compare_numerically():
    assert parse_version("10.16.1") > parse_version("10.4.0") > parse_version("9.9")
    assert parse_version("v8.6.1") == (8, 6, 1)
    assert parse_version("x10") is None and parse_version(None) is None


@pytest.mark.parametrize("version, detailed, build_only, layer_info", [
    ((7, 1), "--nvtxMode=verbose", "--buildOnly", False),
    ((8, 2, 4), "--profilingVerbosity=detailed", "--buildOnly", True),
    ((8, 6, 1), "--profilingVerbosity=detailed", "--skipInference", True),
    ((10, 16, 1), "--profilingVerbosity=detailed", "--skipInference", True),
    ((11, 1), "--profilingVerbosity=detailed", "--skipInference", True),
])
def test_flags_per_version(version, detailed, build_only, layer_info):
    flags = flags_for(version)
    assert (flags.detailed, flags.build_only, flags.export_layer_info) == (
        detailed, build_only, layer_info)


def test_extra_arguments_in_trex_style():
    assert normalise_extra_args(["fp16", "shapes=input:1x3x224x224", "--best", " ", "-v"]) == [
        "--fp16", "--shapes=input:1x3x224x224", "--best", "-v"]


def test_version_banner_of_the_stand_in(fake, monkeypatch):
    assert detect_version(fake.exe) == "8.6.1"
    monkeypatch.setenv("TREX_FAKE_TRTEXEC_SCENARIO", "10.16")
    assert detect_version(fake.exe) == "10.16.1"
    monkeypatch.setenv("TREX_FAKE_TRTEXEC_FAIL", "help")
    assert detect_version(fake.exe) is None


def test_full_run_writes_trex_files_and_the_plan_loads(fake):
    result = process_engine(fake.model, fake.out, ["fp16"], trtexec=fake.exe, archive=True)
    x = fake.out / "resnet.onnx.engine"
    build, helpcall, profile = fake.calls()[1], fake.calls()[0], fake.calls()[2]
    assert helpcall == ["--help"]
    assert build == ["--verbose", f"--onnx={fake.model}", f"--saveEngine={x}",
                     f"--exportLayerInfo={x}.graph.json", f"--timingCacheFile={fake.out}/timing.cache",
                     "--profilingVerbosity=detailed", "--skipInference", "--fp16"]
    assert profile == ["--verbose", f"--loadEngine={x}", "--noDataTransfers", "--useCudaGraph",
                       "--separateProfileRun", "--useSpinWait", f"--exportTimes={x}.timing.json",
                       f"--exportProfile={x}.profile.json", f"--exportLayerInfo={x}.graph.json",
                       "--profilingVerbosity=detailed", "--fp16"]
    assert result.version == "8.6.1"
    assert sorted(p.name for p in fake.out.iterdir()) == sorted([
        "resnet.onnx.engine", "resnet.onnx.engine.build.log",
        "resnet.onnx.engine.build.metadata.json", "resnet.onnx.engine.graph.json",
        "resnet.onnx.engine.graph.json.svg", "resnet.onnx.engine.profile.json",
        "resnet.onnx.engine.profile.log", "resnet.onnx.engine.profile.metadata.json",
        "resnet.onnx.engine.tea", "resnet.onnx.engine.timing.json", "timing.cache"])
    build_md = json.loads((fake.out / "resnet.onnx.engine.build.metadata.json").read_text())
    assert build_md["build_options"]["Precision"] == "FP32+INT8"
    assert build_md["device_information"]["Selected Device"] == "NVIDIA GeForce RTX 3080"
    profile_md = json.loads((fake.out / "resnet.onnx.engine.profile.metadata.json").read_text())
    assert set(profile_md) >= {"performance_summary", "inference_options", "device_information"}
    assert "<svg" in (fake.out / "resnet.onnx.engine.graph.json.svg").read_text()[:500]
    plan = trex.EnginePlan.from_path(x)
    assert len(plan.df) == 57 and plan.total_runtime == pytest.approx(0.4527, abs=1e-4)
    assert plan.performance_summary == profile_md["performance_summary"]
    assert plan.builder_cfg["Precision"] == "FP32+INT8"
    tea = trex.EnginePlan(fake.out / "resnet.onnx.engine.tea")
    assert tea.name == "resnet.onnx.engine" and len(tea.df) == 57
    assert len(tea.timings) == len(plan.timings) == 10220


def test_single_steps_in_any_combination(fake):
    process_engine(fake.model, fake.out, trtexec=fake.exe, build=True)
    assert [c[0] for c in fake.calls()] == ["--help", "--verbose"]
    assert not (fake.out / "resnet.onnx.engine.profile.json").exists()
    # draw alone uses the build's layer information
    result = process_engine(fake.model, fake.out, trtexec=fake.exe, draw=True)
    assert result.drawing.name == "resnet.onnx.engine.graph.json.svg"
    assert len(fake.calls()) == 2  # drawing runs no trtexec
    # profile an engine file given as input, into another folder
    other = fake.out.parent / "other"
    process_engine(fake.out / "resnet.onnx.engine", other, trtexec=fake.exe, profile=True)
    assert fake.calls()[-1][1] == f"--loadEngine={fake.out / 'resnet.onnx.engine'}"
    assert (other / "resnet.onnx.engine.profile.json").is_file()


def test_10x_flags_from_the_detected_version(fake, monkeypatch):
    monkeypatch.setenv("TREX_FAKE_TRTEXEC_SCENARIO", "10.16")
    result = process_engine(fake.model, fake.out, trtexec=fake.exe, build=True)
    assert result.version == "10.16.1"
    build = fake.calls()[1]
    assert "--profilingVerbosity=detailed" in build and "--skipInference" in build
    assert not [a for a in build if a.startswith(("--nvtxMode", "--buildOnly", "--workspace"))]
    log = trex.tactics.build_summary(fake.out / "resnet.onnx.engine.build.log")
    assert log["kept_strategy"] == 3


def test_print_only_runs_nothing_but_the_version_query(fake, capsys):
    assert main(["process", str(fake.model), str(fake.out), "fp16", "--best",
                 "--trtexec", fake.exe, "--print-only"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2
    assert out[0].startswith(f"{fake.exe} --verbose --onnx=")
    assert out[0].endswith("--profilingVerbosity=detailed --skipInference --fp16 --best")
    assert "--loadEngine=" in out[1]
    assert fake.calls() == [["--help"]]
    assert not fake.out.exists()


def test_trex_spellings_of_the_steps_are_options_not_trtexec_arguments(fake, capsys):
    """TREx's process_engine.py took --build_engine/--profile_engine/--draw_engine/--print_only."""
    assert main(["process", str(fake.model), str(fake.out), "fp16", "--build_engine",
                 "--trtexec", fake.exe, "--print_only"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].endswith("--skipInference --fp16")
    assert "_engine" not in out[0] and "--print_only" not in out[0]
    assert main(["process", str(fake.model), str(fake.out), "--profile_engine",
                 "--draw_engine", "--trtexec", fake.exe, "--print_only"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and "--loadEngine=" in out[0]


def test_print_only_without_trtexec(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert main(["process", "m.onnx", str(tmp_path / "o"), "--print-only"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# trtexec not found: commands shown for TensorRT 10.16")
    assert "trtexec --verbose --onnx=m.onnx" in out


def test_missing_trtexec_is_a_clear_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert main(["process", "m.onnx", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "trtexec not found on PATH" in err and "--trtexec PATH" in err
    with pytest.raises(TrtexecNotFound, match="not found or not executable"):
        find_trtexec(tmp_path / "nope" / "trtexec")


def test_failed_build_shows_the_last_error_lines(fake, capsys, monkeypatch):
    monkeypatch.setenv("TREX_FAKE_TRTEXEC_FAIL", "build")
    code = main(["process", str(fake.model), str(fake.out), "--trtexec", fake.exe, "-q"])
    assert code == 1
    err = capsys.readouterr().err
    assert "build failed (trtexec exit status 1)" in err
    assert "[E] Error[4]: [network.cpp::validate::3162]" in err
    assert "[E] Engine set up failed" in err
    assert str(fake.out / "resnet.onnx.engine.build.log") in err
    assert len(fake.calls()) == 2  # no profiling after a failed build
    assert (fake.out / "resnet.onnx.engine.build.log").read_text().count("\n") == 126


def test_profile_without_an_engine(fake, capsys):
    assert main(["process", str(fake.model), str(fake.out), "-p", "--trtexec", fake.exe]) == 2
    assert "no engine to profile: build it first (-b)" in capsys.readouterr().err


def test_output_folder_that_is_a_file(fake, capsys):
    fake.out.write_text("not a folder")
    assert main(["process", str(fake.model), str(fake.out), "--trtexec", fake.exe]) == 2
    assert "cannot create the output folder" in capsys.readouterr().err


def test_engine_input_cannot_be_built(fake, tmp_path):
    engine = tmp_path / "x.engine"
    engine.write_bytes(b"\x00")
    with pytest.raises(trex.InputError, match="is an engine file"):
        process_engine(engine, fake.out, trtexec=fake.exe, build=True)


def test_cli_progress_messages_and_dashed_arguments(fake, capsys):
    assert main(["process", str(fake.model), str(fake.out), "-b", "--trtexec", fake.exe,
                 "--fp16", "--", "--shapes=x:1x3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Building: {fake.exe} --verbose")
    assert "build done in" in out and "(20,009 log lines)" in out
    assert out.rstrip().endswith(f"TensorRT 8.6.1; files in {fake.out}")
    assert fake.calls()[1][-2:] == ["--fp16", "--shapes=x:1x3"]


def test_run_step_streams_lines_and_stops_trtexec_on_ctrl_c(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("TREX_FAKE_TRTEXEC_DELAY", "30")
    seen = []

    def interrupt(step, number, line):
        seen.append(line)
        if number == 3:
            raise KeyboardInterrupt

    command = [fake.exe, f"--onnx={fake.model}"]
    with pytest.raises(KeyboardInterrupt):
        run_step("build", command, tmp_path / "b.log", on_line=interrupt)
    assert len(seen) == 3 and seen[0].startswith("&&&& RUNNING TensorRT.trtexec [TensorRT v8601]")


def test_run_step_never_uses_a_shell(tmp_path):
    with pytest.raises(StepError):
        run_step("build", [sys.executable, "-c", "import sys; print('[E] x; rm -rf'); "
                           "sys.exit(3)"], tmp_path / "l.log")
    assert (tmp_path / "l.log").read_text() == "[E] x; rm -rf\n"


def test_paths_are_trex_names(tmp_path):
    paths = ProcessPaths.for_input("models/resnet.onnx", tmp_path)
    assert paths.graph.name == "resnet.onnx.engine.graph.json"
    assert paths.drawing.name == "resnet.onnx.engine.graph.json.svg"
    engine = ProcessPaths.for_input("x/y.plan", tmp_path)
    assert engine.engine == Path("x/y.plan") and engine.profile.name == "y.plan.profile.json"


# --------------------------------------------------------------------------- NVML stand-in
class _NVMLError(Exception):
    pass


class _NoPermission(_NVMLError):
    pass


def fake_nvml(allow: bool = True) -> types.SimpleNamespace:
    calls: list[tuple] = []

    def record(name, result=None, permission=False):
        def fn(*args):
            calls.append((name, *args[1:]))
            if permission and not allow:
                raise _NoPermission("Insufficient Permissions")
            return result
        return fn

    return types.SimpleNamespace(
        calls=calls, NVMLError=_NVMLError, NVMLError_NoPermission=_NoPermission,
        NVML_TEMPERATURE_GPU=0, NVML_CLOCK_SM=1, NVML_CLOCK_MEM=2,
        nvmlClocksThrottleReasonGpuIdle=1, nvmlClocksThrottleReasonSwPowerCap=4,
        nvmlInit=lambda: calls.append(("init",)), nvmlShutdown=lambda: calls.append(("shutdown",)),
        nvmlDeviceGetHandleByIndex=lambda i: f"gpu{i}",
        nvmlDeviceGetPowerManagementLimitConstraints=lambda h: (100_000, 300_000),
        nvmlDeviceGetPowerManagementLimit=lambda h: 250_000,
        nvmlDeviceSetPowerManagementLimit=record("set_power", permission=True),
        nvmlDeviceGetSupportedMemoryClocks=lambda h: [5001, 9501, 405],
        nvmlDeviceGetSupportedGraphicsClocks=lambda h, m: [1740, 1905, 210],
        nvmlDeviceSetGpuLockedClocks=record("lock", permission=True),
        nvmlDeviceSetApplicationsClocks=record("app_clocks", permission=True),
        nvmlDeviceResetGpuLockedClocks=record("reset_lock"),
        nvmlDeviceResetApplicationsClocks=record("reset_app"),
        nvmlDeviceGetPowerUsage=lambda h: 123_456,
        nvmlDeviceGetTemperature=lambda h, s: 61,
        nvmlDeviceGetClockInfo=lambda h, c: 1905 if c == 1 else 9501,
        nvmlDeviceGetCurrentClocksThrottleReasons=lambda h: 4,
    )


def test_gpu_settings_applied_and_restored_even_on_ctrl_c():
    nv = fake_nvml()
    with pytest.raises(KeyboardInterrupt):
        with GpuConfigurator(GpuSettings(0, "max", "max", 300), nv) as gpu:
            raise KeyboardInterrupt
    assert nv.calls == [("init",), ("set_power", 300_000), ("lock", 1905, 1905),
                        ("app_clocks", 9501, 1905), ("set_power", 250_000), ("reset_lock",),
                        ("reset_app",), ("shutdown",)]
    assert gpu.notes[0] == "power limit set to 300 W (was 250 W)"
    assert "clocks locked: compute 1905 MHz, memory 9501 MHz" in gpu.notes


def test_gpu_without_permission_prints_nvidia_smi_equivalents():
    nv = fake_nvml(allow=False)
    with GpuConfigurator(GpuSettings(1, 1700, None, 200), nv) as gpu:
        pass
    assert gpu.hints == ["sudo nvidia-smi -i 1 -pl 200",
                         "sudo nvidia-smi -i 1 --lock-gpu-clocks=1740,1740",
                         "sudo nvidia-smi -i 1 --applications-clocks=9501,1740"]
    assert ("reset_lock",) not in nv.calls  # nothing was changed, nothing to restore
    assert "compute clock 1700 MHz is not supported; using 1740 MHz" in gpu.notes


def test_gpu_monitor_samples():
    nv = fake_nvml()
    with GpuMonitor(0, 0.01, nv) as monitor:
        pass
    assert monitor.samples and monitor.samples[0]["power_w"] == 123.456
    assert monitor.summary()["throttle"] == ["power cap"]
    assert monitor.summary()["temperature_c"] == {"min": 61, "max": 61}


def test_process_with_gpu_settings_and_monitor(fake, capsys, monkeypatch):
    nv = fake_nvml(allow=False)
    monkeypatch.setitem(sys.modules, "pynvml", nv)
    assert main(["process", str(fake.model), str(fake.out), "--trtexec", fake.exe,
                 "--lock-clocks", "--monitor", "--monitor-interval", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "sudo nvidia-smi -i 0 --lock-gpu-clocks=1905,1905" in out
    assert "GPU monitor:" in out and "throttled: power cap" in out
    data = json.loads((fake.out / "resnet.onnx.engine.gpu.json").read_text())
    assert data["summary"]["samples"] >= 1


def test_gpu_needs_nvidia_ml_py(fake, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    process_engine(fake.model, fake.out, trtexec=fake.exe, build=True)
    code = main(["process", str(fake.model), str(fake.out), "-p", "--trtexec", fake.exe,
                 "--power-limit", "200"])
    assert code == 2
    assert "pip install 'trex-explorer[gpu]'" in capsys.readouterr().err


# --------------------------------------------------------------------------- tensorrt stand-in
def fake_tensorrt(engines: Path) -> types.SimpleNamespace:
    graph = (engines / "trt8.6-resnet50-int8/resnet50-int8.engine.graph.json").read_text()
    names = [layer["Name"] for layer in json.loads(graph)["Layers"]]

    class ILogger:
        class Severity:
            INTERNAL_ERROR, ERROR, WARNING, INFO, VERBOSE = range(5)

        def __init__(self):
            pass

    class IProfiler:
        def __init__(self):
            pass

    class Inspector:
        execution_context = None

        def get_engine_information(self, fmt):
            return graph

    class Context:
        profiler = None

        def get_tensor_shape(self, name):
            return [1, 3, 224, 224]

        def set_tensor_address(self, name, address):
            pass

        def execute_async_v3(self, stream):
            if self.profiler is not None:
                for i, name in enumerate(names):
                    self.profiler.report_layer_time(name, 0.01 * (i % 3 + 1))
            return True

    class Engine:
        num_io_tensors = 2

        def get_tensor_name(self, i):
            return ["input0", "output0"][i]

        def get_tensor_dtype(self, name):
            return "float32"

        def create_execution_context(self):
            return Context()

        def create_engine_inspector(self):
            return Inspector()

    class Config:
        profiling_verbosity = None
        flags: list = []

        def set_flag(self, flag):
            self.flags.append(flag)

    class Builder:
        def __init__(self, logger):
            logger.log(ILogger.Severity.INFO, "[MemUsageChange] Init CUDA: CPU +1, GPU +0, now: "
                                              "CPU 1, GPU 2 (MiB)")

        def create_network(self, flags):
            return object()

        def create_builder_config(self):
            return Config()

        def build_serialized_network(self, network, config):
            assert config.profiling_verbosity == "DETAILED"
            return b"\x00engine"

    class Runtime:
        def __init__(self, logger):
            pass

        def deserialize_cuda_engine(self, plan):
            return Engine()

    class OnnxParser:
        num_errors = 0

        def __init__(self, network, logger):
            pass

        def parse(self, data):
            return True

    return types.SimpleNamespace(
        __version__="10.16.1", ILogger=ILogger, IProfiler=IProfiler, Builder=Builder,
        Runtime=Runtime, OnnxParser=OnnxParser,
        NetworkDefinitionCreationFlag=types.SimpleNamespace(),
        ProfilingVerbosity=types.SimpleNamespace(DETAILED="DETAILED"),
        BuilderFlag=types.SimpleNamespace(FP16="FP16", INT8="INT8"),
        LayerInformationFormat=types.SimpleNamespace(JSON="JSON"))


def fake_cudart() -> types.SimpleNamespace:
    freed = []
    return types.SimpleNamespace(
        freed=freed, cudaStreamCreate=lambda: (0, 7), cudaMalloc=lambda size: (0, 4096 + size),
        cudaStreamSynchronize=lambda s: (0,), cudaFree=freed.append,
        cudaStreamDestroy=lambda s: (0,))


def test_python_api_writes_the_same_files(engines, tmp_path):
    from trex.process import python_api

    trt, cudart = fake_tensorrt(engines), fake_cudart()
    model = tmp_path / "resnet.onnx"
    model.write_bytes(b"onnx")
    paths = python_api.build_engine(model, tmp_path / "out", fp16=True, trt=trt)
    assert paths.prefix.read_bytes() == b"\x00engine"
    assert "[MemUsageChange] Init CUDA" in paths.build_log.read_text()
    assert paths.build_log.read_text().startswith("&&&& RUNNING TensorRT.trex_python_api "
                                                  "[TensorRT v101601]")
    python_api.profile_engine(paths.prefix, tmp_path / "out", iterations=20, warmup=2, trt=trt,
                              cudart=cudart)
    assert len(cudart.freed) == 2
    profile = json.loads(paths.profile.read_text())
    assert profile[0] == {"count": 20}
    assert profile[1]["averageMs"] == pytest.approx(0.01)
    assert len(json.loads(paths.timings.read_text())) == 20
    plan = trex.EnginePlan.from_path(paths.prefix)
    assert len(plan.df) == 57
    assert plan.df["latency.avg_time"].iloc[:3].tolist() == pytest.approx([0.01, 0.02, 0.03])
    assert len(plan.timings) == 20


def test_python_api_without_tensorrt(monkeypatch, tmp_path):
    from trex.process import python_api

    monkeypatch.setitem(sys.modules, "tensorrt", None)
    with pytest.raises(trex.TrexError, match="needs the tensorrt package"):
        python_api.build_engine(tmp_path / "m.onnx", tmp_path)


def test_process_is_not_imported_by_trex():
    import subprocess

    out = subprocess.run([sys.executable, "-c", "import sys, trex; print(sorted(m for m in "
                          "sys.modules if m.startswith(('trex.process', 'pynvml', 'tensorrt', "
                          "'trex.formats.archive', 'trex.tactics', 'trex.timeline'))))"],
                         capture_output=True, text=True, check=True, env={**os.environ})
    assert out.stdout.strip() == "[]"


def test_process_restores_gpu_settings_when_profiling_fails(fake, monkeypatch):
    nv = fake_nvml()
    process_engine(fake.model, fake.out, trtexec=fake.exe, build=True)
    monkeypatch.setenv("TREX_FAKE_TRTEXEC_FAIL", "profile")
    events = []
    with pytest.raises(StepError):
        process_engine(fake.model, fake.out, trtexec=fake.exe, profile=True, nvml=nv,
                       gpu=GpuSettings(0, "max", "max", 200),
                       on_event=lambda kind, info: events.append((kind, info)))
    assert [c[0] for c in nv.calls] == ["init", "set_power", "lock", "app_clocks", "set_power",
                                        "reset_lock", "reset_app", "shutdown"]
    notes = [info["note"] for kind, info in events if kind == "gpu"]
    assert notes[-2:] == ["power limit restored to 250 W", "clocks unlocked"]


def test_python_api_refuses_precision_flags_on_tensorrt_11(engines, tmp_path):
    """TensorRT 11 networks are strongly typed: fp16=True is refused before anything is built."""
    from trex.process import python_api
    from trex.process.commands import UnsupportedOption

    trt = fake_tensorrt(engines)
    trt.__version__ = "11.1.0"
    model = tmp_path / "resnet.onnx"
    model.write_bytes(b"onnx")
    with pytest.raises(UnsupportedOption, match=r"fp16=True cannot be honoured by TensorRT 11\.1.*"
                                                r"modelopt\.onnx\.autocast"):
        python_api.build_engine(model, tmp_path / "out", fp16=True, trt=trt)
    assert not (tmp_path / "out").exists()
    paths = python_api.build_engine(model, tmp_path / "out", trt=trt)  # typed by the model: built
    assert paths.prefix.read_bytes() == b"\x00engine"
