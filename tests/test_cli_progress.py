"""Progress of ``trex report``, ``draw`` and ``compare`` on big engines: on a terminal (a pty) a
line rewritten in place and erased at the end; in a pipe nothing."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import bench_module
from trex.cli.progress import MIN_LAYERS, Progress

COPIES = 70  # trex-mobilenet-qat x 70 = 5,040 layers, just over MIN_LAYERS


@pytest.fixture(scope="module")
def big(engines, tmp_path_factory) -> str:
    """A real engine repeated in series (bench/generate.py) to just over MIN_LAYERS layers."""
    out = tmp_path_factory.mktemp("series")
    files = bench_module("generate").series(COPIES, out, engines)
    return str(files["graph.json"])[: -len(".graph.json")]


def run_on_terminal(args: list[str], cwd: Path) -> tuple[int, str, str]:
    """Run ``trex ARGS`` with stderr on a pseudo-terminal; (exit code, stdout, what the terminal got)."""
    controller, terminal = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "trex", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=terminal, stdin=subprocess.DEVNULL)
    os.close(terminal)
    received = bytearray()
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        received += chunk
    os.close(controller)
    out = proc.stdout.read().decode()
    proc.stdout.close()
    return proc.wait(timeout=300), out, received.decode()


def commands(big: str, tmp: Path) -> dict[str, list[str]]:
    return {"report": ["report", big, "-o", str(tmp / "big.html")],
            "draw": ["draw", big, "-o", str(tmp / "big.svg")],
            "compare": ["compare", big, big, "-f", "json"]}


@pytest.mark.parametrize("command", ["report", "draw", "compare"])
def test_progress_on_a_terminal(big, tmp_path, command):
    code, out, terminal = run_on_terminal(commands(big, tmp_path)[command], tmp_path)
    assert code == 0, terminal
    assert f"trex {command}: loading {big} ..." in terminal
    parts = terminal.split("\r")
    steps = [j for j, part in enumerate(parts) if part.startswith(f"trex {command}: ")]
    assert len(steps) >= 2  # loading, then at least one later step of the big engine
    if command == "report":
        assert any("laying out the graph of 5,040 layers" in parts[j] for j in steps)
    assert parts[steps[-1] + 1].strip() == ""  # the line is erased at the end
    assert out.startswith(("Created", "{"))  # stdout has the result only


@pytest.mark.parametrize("command", ["report", "draw", "compare"])
def test_no_progress_in_a_pipe(big, tmp_path, command):
    proc = subprocess.run([sys.executable, "-m", "trex", *commands(big, tmp_path)[command]],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "\r" not in proc.stderr and "loading" not in proc.stderr


def test_small_engines_show_only_loading(engines, tmp_path):
    small = str(engines / "trex-mobilenet-qat")
    code, _out, terminal = run_on_terminal(["report", small, "-o", str(tmp_path / "r.html")],
                                           tmp_path)
    assert code == 0
    steps = [part for part in terminal.split("\r") if part.startswith("trex report: ")]
    assert [s.split(" ...")[0] for s in steps] == [f"trex report: loading {small}"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_line_is_rewritten_and_erased():
    stream = _Terminal()
    shown = Progress("trex x", stream)
    shown.step("loading a")
    shown.layers(MIN_LAYERS + 1)
    shown.step("b")
    shown.clear()
    parts = stream.getvalue().split("\r")
    assert parts[1].startswith("trex x: loading a ... ") and parts[2].startswith("trex x: b ... ")
    assert len(parts[2]) == len(parts[1])  # padded over the longer previous line
    assert parts[3].strip() == "" and parts[-1] == ""
    quiet = io.StringIO()  # not a terminal
    shown = Progress("trex x", quiet)
    shown.step("loading a")
    shown.layers(MIN_LAYERS + 1)
    shown.step("b")
    shown.clear()
    assert quiet.getvalue() == ""
