"""Input size limits (issue 24, item 10): files beyond a size trex never meets in a real export
are refused before they are read, and logs are read line by line.

Real exports are copied and made huge in the test: sparse files (``truncate``), a real profile
log with a 120 MB tail of ordinary log lines. The runs are child processes under the address
space limit of test_worst_cases.py, so that a file read whole fails there, not here.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from test_worst_cases import check_clean, run_bounded

GIB = 1 << 30
RESNET50 = "trt8.6-resnet50-int8"
PREFIX = "resnet50-int8.engine"


def trex(*args: object, cwd: Path, **env: str):
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return run_bounded(["-m", "trex", *map(str, args)], cwd)
    finally:
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture
def engine(engines, tmp_path) -> Path:
    return Path(shutil.copytree(engines / RESNET50, tmp_path / "engine"))


def test_huge_files_are_refused_before_they_are_read(engine, tmp_path):
    """A 20 GiB log (a real log's lines, then a sparse tail) and a 3 GiB layer JSON: one line
    naming the file, its size and the setting, in bounded time and memory (each used to be read
    whole: a MemoryError traceback under the child's 8 GiB limit)."""
    log = engine / f"{PREFIX}.profile.log"
    os.truncate(log, 20 * GIB)
    run = trex("summary", log, cwd=tmp_path)
    check_clean(run, ("summary", "huge log"))
    assert run.returncode == 2 and "20.0 GiB, beyond the 8.0 GiB" in run.stderr, run.stderr
    assert "TREX_MAX_LOG_BYTES" in run.stderr and run.peak_bytes < 300 << 20

    graph = engine / f"{PREFIX}.graph.json"
    shutil.copyfile(graph, tmp_path / "graph.json")
    os.truncate(graph, 3 * GIB)
    run = trex("summary", engine, cwd=tmp_path)
    check_clean(run, ("summary", "huge JSON"))
    assert run.returncode == 2 and "3.0 GiB, beyond the 2.0 GiB" in run.stderr, run.stderr
    assert f"{PREFIX}.graph.json" in run.stderr and run.peak_bytes < 300 << 20

    shutil.copyfile(tmp_path / "graph.json", graph)  # the folder reads, the huge log left out
    run = trex("summary", engine, "-f", "json", cwd=tmp_path)
    check_clean(run, ("summary", "folder with a huge log"))
    assert run.returncode == 0 and '"layers": 57' in run.stdout, run.stderr


def test_the_limits_are_settings(engine, tmp_path):
    run = trex("summary", engine, cwd=tmp_path, TREX_MAX_JSON_BYTES="1000")
    assert run.returncode == 2 and "beyond the 1,000 bytes trex reads" in run.stderr, run.stderr
    log = engine / f"{PREFIX}.profile.log"
    run = trex("summary", log, cwd=tmp_path, TREX_MAX_LOG_BYTES="1000")
    assert run.returncode == 2 and "TREX_MAX_LOG_BYTES" in run.stderr, run.stderr
    run = trex("summary", log, cwd=tmp_path, TREX_MAX_LOG_BYTES="not a number")
    assert run.returncode == 0, run.stderr  # a setting that is no size: the default


@pytest.mark.slow
def test_logs_are_read_line_by_line(engine, tmp_path):
    """A real profile log followed by 130 MB of ordinary log lines: its records come out as
    before, in memory far below the file's size (reading it whole took about 400 MB)."""
    log = engine / f"{PREFIX}.profile.log"
    line = "[11/20/2023-10:00:00] [I] [TRT] an ordinary line of a verbose log, nothing to read\n"
    with open(log, "a") as f:
        f.write(line * 1_600_000)
    assert log.stat().st_size > 130_000_000
    run = trex("summary", log, "-f", "json", cwd=tmp_path)
    check_clean(run, ("summary", "long log"))
    assert run.returncode == 0 and '"layers": 57' in run.stdout, run.stderr
    assert run.peak_bytes < 200 << 20, f"peak {run.peak_bytes >> 20} MB"
