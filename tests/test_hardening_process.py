"""``trex process`` shows trtexec's words inert (issue 24, item 5) and checks its GPU options
(the smaller findings): a progress line or an error line naming an ONNX node never moves the
cursor, retitles the terminal or opens a link; clock and power values outside what a GPU can do
are usage errors, never clamped.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_process import fake_nvml
from trex.cli import main
from trex.errors import TrexError
from trex.process.gpu import GpuConfigurator, GpuSettings

SRC = Path(__file__).resolve().parents[1] / "src"
# An ONNX node name as a hostile model can carry it: an OSC-8 link, a title change, clear screen,
# a C1 CSI and a bidi override.
NODE = ("\x1b]8;;http://evil.example\x07node\x1b]8;;\x07\x1b]0;pwned\x07\x1b[2J\x9b31m"
        "\u202eexe")
TRTEXEC = f"""#!{sys.executable}
import sys, time
if "--help" in sys.argv:
    print("&&&& RUNNING TensorRT.trtexec [TensorRT v8601] # trtexec --help")
    sys.exit(0)
print("[V] [TRT] =============== Computing costs for " + {NODE!r}, flush=True)
time.sleep(0.5)
print("[E] Error[2]: [optimizer.cpp::computeCosts] " + {NODE!r} + " failed", flush=True)
sys.exit(1)
"""


def run_in_terminal(args: list[str], cwd: Path) -> tuple[int, str]:
    """``python -m trex ARGS`` with standard output and error on a pseudo-terminal (so that the
    progress line is drawn); returns its exit status and everything it wrote."""
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.Popen([sys.executable, "-m", "trex", *args], stdout=slave, stderr=slave,
                            stdin=subprocess.DEVNULL, cwd=cwd, env=env)
    os.close(slave)
    chunks = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            data = os.read(master, 1 << 16)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return proc.wait(30), b"".join(chunks).decode("utf-8", "replace")


def test_progress_and_error_lines_show_trtexec_output_inert(tmp_path):
    exe = tmp_path / "trtexec"
    exe.write_text(TRTEXEC)
    exe.chmod(0o755)
    (tmp_path / "model.onnx").write_bytes(b"onnx")
    code, shown = run_in_terminal(["process", "model.onnx", "out", "-b", "--trtexec", str(exe)],
                                  tmp_path)
    assert code == 1, shown
    assert "autotuning \\x1b]8;;http://evil.example\\x07node" in shown  # the progress line
    assert "last errors:" in shown and "\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\u202eexe failed" in shown
    for raw in ("\x1b", "\x9b", "\u202e", "\x07"):
        assert raw not in shown, repr(raw)
    log = (tmp_path / "out" / "model.onnx.engine.build.log").read_text()
    assert NODE in log  # the log keeps trtexec's words exactly


@pytest.mark.parametrize("option, value", [
    ("--compute-clock", "-5"), ("--compute-clock", "0"), ("--compute-clock", "1e20"),
    ("--compute-clock", "nan"), ("--memory-clock", "x"), ("--memory-clock", "1.5"),
    ("--power-limit", "0"), ("--power-limit", "-3"), ("--power-limit", "inf"),
])
def test_gpu_options_out_of_range_are_usage_errors(capsys, option, value):
    with pytest.raises(SystemExit) as info:
        main(["process", "m.onnx", "out", option, value])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}" in err and "Traceback" not in err


@pytest.mark.parametrize("settings, message", [
    (GpuSettings(0, 3000, None, None), "compute clock 3000 MHz is outside 210-1905 MHz"),
    (GpuSettings(0, None, 100, None), "memory clock 100 MHz is outside 405-9501 MHz"),
    (GpuSettings(0, None, None, 500), "power limit 500 W is outside 100-300 W"),
])
def test_gpu_values_outside_the_gpus_range_are_refused_and_nothing_changes(settings, message):
    nv = fake_nvml()
    with pytest.raises(TrexError, match=message):
        with GpuConfigurator(settings, nv):
            pass
    assert not [c for c in nv.calls if c[0] in ("set_power", "lock", "app_clocks")]
