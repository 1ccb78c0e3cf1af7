"""The ``trex`` command on real engines and bad input."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from trex import __version__
from trex.cli import main


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "trex.cli", *args], capture_output=True,
                          text=True, timeout=120)


def test_version_and_help(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert __version__ in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["summary", "--help"])
    assert "--group_tactics" in capsys.readouterr().out


def test_summary_table(engines, capsys):
    assert main(["summary", str(engines / "trex-mobilenet-qat")]) == 0
    out = capsys.readouterr().out
    assert "input1: [1, 3, 224, 224]xFP32 NCHW" in out
    assert re.search(r"^Layers\s+72$", out, re.MULTILINE)
    assert re.search(r"^Latency\s+0\.4704 ms \(sum of layer averages\)$", out, re.MULTILINE)
    assert "throughput 2829.15 qps" in out  # measured figures carry their units
    assert re.search(r"^Compute clock\s+\d[\d.]* GHz$", out, re.MULTILINE)
    assert re.search(r"^Latency\s+min [\d.]+, max [\d.]+, mean [\d.]+, median [\d.]+", out,
                     re.MULTILINE)  # trtexec's statistics are named
    assert "Convolution     53" in out
    assert "Latency by precision" in out and "INT8" in out
    assert "NVIDIA TITAN RTX" in out


def test_summary_words_unknown_precisions_and_few_iterations(engines, capsys):
    """Issue 25: a names-only export's precisions are unknown (not "None 840"), with the reason;
    a per-layer profile of one iteration (count 1) is cautioned against; 6,610 are not."""
    assert main(["summary", str(engines / "trt10-detr-int8-names-only")]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^Precisions\s+unknown for all 840 layers \(names-only layer information: "
                     r"build with --profilingVerbosity=detailed\)$", out, re.MULTILINE)
    assert "None 840" not in out
    assert main(["summary", str(engines / "a100-resnet18-qat")]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^Caution\s+each layer's time is a single sample \(the profile's count is 1\): "
                     r"differences of a few percent are noise; profile 10 or more iterations", out,
                     re.MULTILINE)
    assert main(["summary", str(engines / "trex-mobilenet-qat")]) == 0
    assert "Caution" not in capsys.readouterr().out


def test_onnx_sources_say_where_names_come_from():
    from trex.onnx_map import onnx_sources_text

    assert onnx_sources_text(["Metadata"] * 56 + ["none"]) == "Metadata (56 of 57 layers)"
    assert onnx_sources_text(["name"] * 71 + ["none"]) == "from layer names (71 of 72 layers)"
    assert onnx_sources_text(["Metadata"] * 12 + ["name"] * 3) == \
        "Metadata (12 layers), from layer names (3 layers) of 15"
    assert onnx_sources_text(["none", "none"]) == "none"


def test_summary_json_several_engines(engines, capsys):
    paths = [str(engines / f"a100-resnet18-{v}") for v in ("fp32", "fp16")]
    assert main(["summary", *paths, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["layers"] for d in data] == [24, 25]
    assert data[0]["average_time_ms"] == pytest.approx(2.1238, abs=1e-4)
    fp16_types = {row["type"]: row["count"] for row in data[1]["by_type"]}
    assert fp16_types == {"Convolution": 21, "Reformat": 2, "Pooling": 2}


def test_summary_csv_and_grouped_tactics(engines, capsys):
    assert main(["summary", str(engines / "trt10.4-alexnet-fp16"), "-f", "csv", "-gt",
                 "-sk", "latency"]) == 0
    out = capsys.readouterr().out
    assert "# alexnet_fp16: tactics" in out
    tactics = out.split("# alexnet_fp16: tactics\n")[1].splitlines()
    # The same columns, with the same meanings, as the per-type and per-precision tables.
    assert tactics[0] == "tactic,count,timed,latency_ms,latency_pct"
    # the 0x hash of Myelin kernels is removed when grouping
    assert not any("_0x" in line for line in tactics)


def test_summary_profile_id_and_run(engines, capsys):
    log = engines / "trt10.16-multiprofile-oneline" / "log-main.py.log"
    assert main(["summary", str(log), "--profile-id", "1", "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["profile_id"] == 1
    folder = engines / "trt7-googlenet-int8-concatenated"
    assert main(["summary", str(folder), "--run", "6", "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["profile_iterations"] == 36


@pytest.mark.parametrize("content,message", [
    (None, "no such file, folder or engine prefix"),
    ('{"Layers": [', "invalid JSON at line 1"),
    ("hello world\n", "not a TensorRT export trex recognises"),
])
def test_bad_input_one_line_exit_2(tmp_path, content, message):
    path = tmp_path / "x.graph.json"
    if content is not None:
        path.write_text(content)
    result = run("summary", str(path))
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and str(path) in lines[0]
    assert "Traceback" not in result.stderr


def test_console_script_runs(engines):
    result = run("summary", str(engines / "trt8.5-names-only-single"))
    assert result.returncode == 0
    assert "Layers       1\n" in result.stdout
    # names only and no profile: no "slowest layers" made of layers without a time
    assert "Slowest 10 layers: – (no layer has a time" in result.stdout
    assert "profilingVerbosity=detailed" in result.stderr
