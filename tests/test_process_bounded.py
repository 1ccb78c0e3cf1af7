"""``trex process`` in bounded memory on huge trtexec output, and stopped cleanly by signals.

These run trex in a subprocess with the stand-in trtexec (and the stand-in NVML module of
tests/fake_trtexec/nvml): memory is bounded with a generous address-space limit, and SIGTERM /
SIGHUP are sent to trex while trtexec runs.
"""

from __future__ import annotations

import io
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_process import FAKE
from trex.process.runner import LINE_KEEP, _stream_lines, cap_line
from trex.process.signals import Terminated, deferred_signals, terminate_on_signals

SRC = Path(__file__).resolve().parents[1] / "src"
NVML = Path(__file__).parent / "fake_trtexec" / "nvml"
HUGE = 100_000_000  # characters on one trtexec output line
MEMORY_LIMIT = 400 << 20  # address space of the trex process; reading the line whole needs more


def _env(engines: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TREX_FAKE_")}
    env.update(TREX_ENGINES_DIR=str(engines), PYTHONPATH=os.pathsep.join([str(NVML), str(SRC)]),
               OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", **extra)
    return env


def _alive(pid: int) -> bool:
    """True while a process exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2:].split()[0] != "Z"


def test_stream_lines_keeps_a_bounded_head_and_copies_everything():
    long = "x" * (3 * LINE_KEEP + 17)
    data = f"first\r\n{long}\n\nlast without newline\r".encode()
    log = io.StringIO()
    stream = io.BufferedReader(io.BytesIO(data), buffer_size=1000)
    lines = list(_stream_lines(stream, log))
    assert [(n.number, n.head[:5], n.length) for n in lines] == [
        (1, "first", 5), (2, "xxxxx", len(long)), (3, "", 0), (4, "last ", 20)]
    assert len(lines[1].head) == LINE_KEEP
    assert log.getvalue() == f"first\n{long}\n\nlast without newline\n"
    assert cap_line("a" * 600, 600) == "a" * 500 + "… (600 characters; the full line is in the log)"
    assert cap_line("short") == "short"


def test_huge_error_line_is_capped_in_bounded_memory(engines, tmp_path):
    model = tmp_path / "m.onnx"
    model.write_bytes(b"onnx")
    out = tmp_path / "out"

    def limit_memory():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    proc = subprocess.run(
        [sys.executable, "-m", "trex", "process", str(model), str(out), "-b", "--trtexec", FAKE,
         "-q"], capture_output=True, timeout=300, preexec_fn=limit_memory,
        env=_env(engines, TREX_FAKE_TRTEXEC_FAIL="build", TREX_FAKE_TRTEXEC_HUGE_LINE=str(HUGE)))
    err = proc.stderr.decode()
    assert proc.returncode == 1, err[-2000:]
    log = out / "m.onnx.engine.build.log"
    assert len(err) + len(proc.stdout) < 4000
    assert "… (100,000,036 characters; the full line is in the log)" in err
    assert f"log: {log}" in err and "[E] Engine set up failed" in err
    assert max(len(line) for line in err.splitlines()) < 600
    assert log.stat().st_size > HUGE  # the full text is kept in the log
    with open(log, "rb") as f:
        f.seek(-3000, os.SEEK_END)
        assert b"generated kernel na" in f.read().split(b"\n&&&& FAILED TensorRT.trtexec")[0]


@pytest.mark.parametrize("signum, setsid", [(signal.SIGTERM, ""), (signal.SIGHUP, ""),
                                            (signal.SIGTERM, "1")])
def test_signal_stops_trtexec_and_its_child_and_restores_the_gpu(engines, tmp_path, signum,
                                                                 setsid):
    """With ``setsid``, trtexec's child has left its process group (issue 24: it outlived the
    cleanup); it is found among trtexec's descendants and stopped too."""
    engine = tmp_path / "x.engine"
    engine.write_bytes(b"\x00engine")
    pids, nvml_log = tmp_path / "pids", tmp_path / "nvml.jsonl"
    env = _env(engines, TREX_FAKE_TRTEXEC_SLEEP="300", TREX_FAKE_TRTEXEC_SLEEP_STEP="profile",
               TREX_FAKE_TRTEXEC_PIDS=str(pids), TREX_FAKE_NVML_LOG=str(nvml_log),
               TREX_FAKE_TRTEXEC_SETSID=setsid)
    trex = subprocess.Popen(
        [sys.executable, "-m", "trex", "process", str(engine), str(tmp_path / "out"), "-p",
         "--trtexec", FAKE, "--lock-clocks", "--power-limit", "200", "-q"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 120
        while not (pids.exists() and pids.read_text().endswith("\n")):
            assert trex.poll() is None, trex.communicate()
            assert time.monotonic() < deadline, "the stand-in trtexec did not start"
            time.sleep(0.05)
        stand_in, child = map(int, pids.read_text().split())
        assert _alive(stand_in) and _alive(child)
        trex.send_signal(signum)
        out, err = trex.communicate(timeout=120)
    finally:
        if trex.poll() is None:
            trex.kill()
    assert trex.returncode == 128 + signum, err.decode()
    assert f"terminated by {signal.Signals(signum).name}" in err.decode()
    deadline = time.monotonic() + 10
    while (_alive(stand_in) or _alive(child)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(stand_in) and not _alive(child)
    calls = [json.loads(line)[0] for line in nvml_log.read_text().splitlines()]
    assert calls == ["init", "set_power", "lock", "app_clocks", "set_power", "reset_lock",
                     "reset_app", "shutdown"]
    restored = json.loads(nvml_log.read_text().splitlines()[4])
    assert restored == ["set_power", 250_000]  # the limit the GPU had before


def test_signals_become_exceptions_and_cleanups_finish_first():
    events = []
    with pytest.raises(Terminated) as caught:
        with terminate_on_signals():
            try:
                with deferred_signals():
                    os.kill(os.getpid(), signal.SIGTERM)
                    time.sleep(0.05)
                    events.append("cleanup finished")
            finally:
                events.append("after the cleanup")
    assert events == ["cleanup finished", "after the cleanup"]
    assert caught.value.exit_code == 143 and str(caught.value) == "terminated by SIGTERM"
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
