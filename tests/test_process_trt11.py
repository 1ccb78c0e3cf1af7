"""``trex process`` against trtexec 11.1 (the stand-in's "11.1" scenario): flags per version."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import trex
from test_process import FAKE, fake  # noqa: F401  (the stand-in trtexec fixture)
from trex.cli import main
from trex.process import flags_for, process_engine, write_profile_metadata
from trex.process.commands import UnsupportedOption, prepare_extra_args, profiling_state

DEPRECATED_11 = {"--useCudaGraph", "--useSpinWait", "--separateProfileRun", "--noDataTransfers",
                 "--stronglyTyped", "--profilingVerbosity=verbose", "--profilingVerbosity=default"}


@pytest.fixture
def fake11(fake, monkeypatch):  # noqa: F811
    monkeypatch.setenv("TREX_FAKE_TRTEXEC_SCENARIO", "11.1")
    return fake


def test_version_table_rows():
    legacy, trt11 = flags_for((10, 16, 1)), flags_for((11, 1, 0))
    assert legacy.profile_flags == ("--noDataTransfers", "--useCudaGraph",
                                    "--separateProfileRun", "--useSpinWait")
    assert not legacy.strongly_typed and legacy.defaults["cuda_graph"] is False
    assert trt11.profile_flags == () and trt11.strongly_typed
    assert dict(trt11.defaults) == {"cuda_graph": True, "data_transfers": False,
                                    "spin_wait": True, "separate_profile_run": True}
    assert trt11.detailed == "--profilingVerbosity=detailed"
    # up to 10.x extra arguments pass unchanged, precision shortcuts included
    assert prepare_extra_args(legacy, ["fp16", "--useCudaGraph"]) == (
        ["--fp16", "--useCudaGraph"], [])


@pytest.mark.parametrize("shortcut, remedy", [
    ("fp16", "modelopt.onnx.autocast --onnx_path"),
    ("bf16", "--low_precision_type bf16"),
    ("fp8", "--quantize_mode fp8"),
    ("best", "modelopt.onnx.autocast"),
    ("int4", "--quantize_mode int4"),
    ("int8", "--int8 --calib=CACHE"),
])
def test_precision_shortcut_refused_before_any_build(fake11, capsys, shortcut, remedy):
    code = main(["process", str(fake11.model), str(fake11.out), shortcut, "shapes=x:1x3",
                 "--trtexec", fake11.exe])
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"trex process: error: --{shortcut} is not a "
                                                   "build option in TensorRT 11.1.0")
    assert "strongly typed" in err and "Q/DQ" in err and remedy in err
    assert f"run again without --{shortcut}" in err
    assert fake11.calls() == [["--help"]]  # only the version query: no build, no profile
    assert not fake11.out.exists()


def test_int8_calibration_passes_and_print_only_refuses_too(fake11, capsys):
    result = process_engine(fake11.model, fake11.out, ["int8", "calib=cal.cache"],
                            trtexec=fake11.exe, print_only=True)
    assert result.commands["build"][-2:] == ["--int8", "--calib=cal.cache"]
    assert main(["process", str(fake11.model), str(fake11.out), "--fp16", "--best", "--print-only",
                 "--trtexec", fake11.exe]) == 2
    assert "--fp16, --best are not build options" in capsys.readouterr().err


def test_stand_in_rejects_and_warns_as_trtexec_11(fake11, tmp_path):
    def run(*args):
        return subprocess.run([FAKE, *args], capture_output=True, text=True, check=False)

    refused = run(f"--onnx={fake11.model}", "--fp16")
    assert refused.returncode == 1 and "[E] Unknown option: --fp16" in refused.stdout
    warned = run(f"--onnx={fake11.model}", "--useCudaGraph", "--skipInference")
    assert warned.returncode == 0
    assert "[W] --useCudaGraph is deprecated" in warned.stdout


def test_no_deprecated_flag_reaches_trtexec_11(fake11):
    result = process_engine(fake11.model, fake11.out,
                            ["useCudaGraph", "profilingVerbosity=verbose", "noDataTransfers",
                             "stronglyTyped", "shapes=input:1x3x224x224"], trtexec=fake11.exe)
    x = fake11.out / "resnet.onnx.engine"
    helpcall, build, profile = fake11.calls()
    assert helpcall == ["--help"]
    assert not [a for a in build + profile if a in DEPRECATED_11]
    assert profile == ["--verbose", f"--loadEngine={x}", f"--exportTimes={x}.timing.json",
                       f"--exportProfile={x}.profile.json", f"--exportLayerInfo={x}.graph.json",
                       "--profilingVerbosity=detailed", "--profilingVerbosity=detailed",
                       "--shapes=input:1x3x224x224"]
    assert build == ["--verbose", f"--onnx={fake11.model}", f"--saveEngine={x}",
                     f"--exportLayerInfo={x}.graph.json",
                     f"--timingCacheFile={fake11.out}/timing.cache",
                     "--profilingVerbosity=detailed", "--skipInference",
                     "--profilingVerbosity=detailed", "--shapes=input:1x3x224x224"]
    for log in ("resnet.onnx.engine.build.log", "resnet.onnx.engine.profile.log"):
        assert "is deprecated" not in (fake11.out / log).read_text()  # the stand-in warns on them
    assert "--useCudaGraph is deprecated in TensorRT 11.1.0: not sent (CUDA graphs are the " \
           "default)" in result.notes
    assert ("--profilingVerbosity=verbose is deprecated in TensorRT 11.1.0: sent as "
            "--profilingVerbosity=detailed (the new spelling)") in result.notes


def test_print_only_shows_the_exact_commands_per_version(fake, capsys, monkeypatch):  # noqa: F811
    x = fake.out / "resnet.onnx.engine"
    expected_profile = {
        "8.6": f"--loadEngine={x} --noDataTransfers --useCudaGraph --separateProfileRun "
               f"--useSpinWait --exportTimes={x}.timing.json",
        "10.16": f"--loadEngine={x} --noDataTransfers --useCudaGraph --separateProfileRun "
                 f"--useSpinWait --exportTimes={x}.timing.json",
        "11.1": f"--loadEngine={x} --exportTimes={x}.timing.json",
    }
    for scenario, profile in expected_profile.items():
        monkeypatch.setenv("TREX_FAKE_TRTEXEC_SCENARIO", scenario)
        assert main(["process", str(fake.model), str(fake.out), "--print-only",
                     "--trtexec", fake.exe]) == 0
        build, profile_line = capsys.readouterr().out.splitlines()
        assert build == (f"{fake.exe} --verbose --onnx={fake.model} --saveEngine={x} "
                         f"--exportLayerInfo={x}.graph.json --timingCacheFile={fake.out}/"
                         "timing.cache --profilingVerbosity=detailed --skipInference")
        assert profile_line == (f"{fake.exe} --verbose {profile} --exportProfile={x}.profile.json"
                                f" --exportLayerInfo={x}.graph.json --profilingVerbosity=detailed")


@pytest.mark.parametrize("scenario, extra, cuda_graph, transfers", [
    ("11.1", [], True, False),
    ("11.1", ["noCudaGraph", "includeDataTransfers"], False, True),
    ("10.16", [], True, False),
    ("8.6", [], True, False),
])
def test_profile_metadata_records_cuda_graph_and_data_transfers(
        fake, monkeypatch, scenario, extra, cuda_graph, transfers):  # noqa: F811
    monkeypatch.setenv("TREX_FAKE_TRTEXEC_SCENARIO", scenario)
    process_engine(fake.model, fake.out, extra, trtexec=fake.exe, build=True, profile=True)
    metadata = json.loads((fake.out / "resnet.onnx.engine.profile.metadata.json").read_text())
    state = metadata["trex_profiling"]
    assert (state["cuda_graph"], state["data_transfers"]) == (cuda_graph, transfers)
    assert state["source"] == "trtexec log"
    assert metadata["inference_options"]["CUDA Graph"] == ("Enabled" if cuda_graph else "Disabled")
    assert ("host-device copies included" in state["per_layer_times"]) == transfers


def test_profile_metadata_of_a_real_10x_log(engines, tmp_path):
    # trtexec 10.16 run without --useCudaGraph/--noDataTransfers: its log says so
    out = write_profile_metadata(engines / "trt10.16-mnist-fp32/result-05.log",
                                 tmp_path / "m.profile.metadata.json")
    state = json.loads(out.read_text())["trex_profiling"]
    assert state == {"cuda_graph": False, "data_transfers": True, "spin_wait": False,
                     "separate_profile_run": False, "profiler": True, "source": "trtexec log",
                     "per_layer_times": "stream launches, per-layer times from the timed run "
                                        "(layer timing adds to the latency); host-device copies "
                                        "included"}
    # without a log section, the version's defaults and the command line decide
    assert profiling_state(flags_for((11, 1)), ["--noCudaGraph"])["cuda_graph"] is False
    assert profiling_state(flags_for((11, 1)), [])["source"] == "command line"


def test_full_trt11_run_writes_trt11_layer_json_that_loads(fake11, engines):
    process_engine(fake11.model, fake11.out, ["minShapes=input:1x3x224x224",
                                              "optShapes=input:4x3x224x224",
                                              "maxShapes=input:8x3x224x224"],
                   trtexec=fake11.exe, archive=True)
    x = fake11.out / "resnet.onnx.engine"
    graph = json.loads((fake11.out / "resnet.onnx.engine.graph.json").read_text())
    assert "Bindings" not in graph
    io = {t["Name"]: t for t in graph["I/O Tensors"]}
    assert io["input"]["IOMode"] == "Input" and io["output"]["IOMode"] == "Output"
    assert io["input"]["Dimensions"] == [-1, 3, 224, 224]
    assert io["input"]["ProfileInfo"] == [{"MinShape": [1, 3, 224, 224],
                                           "OptShape": [4, 3, 224, 224],
                                           "MaxShape": [8, 3, 224, 224],
                                           "Format": "Row major linear FP16 format (kLINEAR)"}]
    assert {t["Location"] for t in io.values()} == {"Device"}
    assert not any(t["IsShapeInferenceIO"] for t in io.values())
    tensors = [t for layer in graph["Layers"] for t in layer["Inputs"] + layer["Outputs"]]
    assert not [t for t in tensors if "Format/Datatype" in t]
    assert {t["DataType"] for t in tensors} == {"Half", "Float"}
    assert graph["Layers"][1]["Outputs"][0]["Format"] == (
        "Channel major FP16 format where channel % 8 == 0 (kHWC8)")
    real = json.loads((engines / "trt10.4-alexnet-fp16/alexnet_fp16.graph.json").read_text())
    assert [layer["Name"] for layer in graph["Layers"]] == [layer["Name"] for layer in
                                                           real["Layers"]]
    plan = trex.EnginePlan.from_path(x)
    original = trex.EnginePlan.from_path(engines / "trt10.4-alexnet-fp16")
    assert len(plan.df) == 14
    assert plan.bindings == ["input", "output"]
    given = plan.io_tensors[0]  # the model's view of the I/O Tensors entry
    assert (given.name, given.mode, given.precision, given.shape, given.location) == (
        "input", "input", "FP16", [-1, 3, 224, 224], "Device")
    assert [(p.min, p.opt, p.max, p.format) for p in given.profiles] == [
        ([1, 3, 224, 224], [4, 3, 224, 224], [8, 3, 224, 224], "FP16 NCHW")]
    # the same engine as the real 10.4 export it was derived from
    for column in ("precision", "weights_size", "total_io_size_bytes", "latency.avg_time"):
        assert plan.df[column].equals(original.df[column]), column
    assert plan.total_runtime == pytest.approx(original.total_runtime)
    assert trex.EnginePlan(fake11.out / "resnet.onnx.engine.tea").io_tensors == plan.io_tensors
    build_md = json.loads((fake11.out / "resnet.onnx.engine.build.metadata.json").read_text())
    assert build_md["tensorrt_version"] == "11.1.0"


def test_refusal_is_an_error_of_the_python_api_too(fake11):
    with pytest.raises(UnsupportedOption, match="strongly typed"):
        process_engine(fake11.model, fake11.out, ["--bf16"], trtexec=fake11.exe, build=True)
    assert len(fake11.calls()) == 1
    assert sys.modules["trex.process.commands"].UnsupportedOption is UnsupportedOption
