"""Work beside the report (trex.perf.beside): a forked copy computes the drawing while the report
goes on; the page is the same byte for byte, and a copy never waited for does not stay behind."""

from __future__ import annotations

import gc
import os
import sys
import threading
import warnings

import pytest

import trex
from trex.html_report import graphdata, write_report
from trex.perf import beside

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="forks only on Linux")


def _load(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return trex.EnginePlan.from_path(path)


def _alive(pid: int) -> bool:
    try:
        return os.waitpid(pid, os.WNOHANG) == (0, 0)
    except ChildProcessError:  # reaped already
        return False


def test_the_copy_computes_what_this_process_would(engines):
    plan = _load(engines / "trt8.6-resnet50-int8")
    here = graphdata.graph_payload(plan)
    parent = os.getpid()
    waiting = beside(lambda: (os.getpid() != parent, graphdata.graph_payload(plan)))
    in_copy, there = waiting()
    assert in_copy and there == here and len(there["nodes"]["x"]) >= len(plan.df)


def test_a_failing_copy_falls_back_to_this_process():
    parent = os.getpid()
    waiting = beside(lambda: 1 / (os.getpid() == parent))  # divides by zero in the copy only
    assert waiting() == 1.0


def test_a_result_never_asked_for_ends_its_copy():
    waiting = beside(lambda: threading.Event().wait(60))  # a copy that would wait a minute
    pid = waiting._ending.peek()[2][0]
    assert _alive(pid)
    del waiting
    gc.collect()
    assert not _alive(pid)


def test_no_copy_beside_other_threads():
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        work = lambda: os.getpid()  # noqa: E731
        assert beside(work) is work  # forking beside threads can deadlock the copy
    finally:
        stop.set()
        other.join()


def test_the_report_page_is_the_same_drawn_beside_or_here(engines, tmp_path, monkeypatch):
    plan = _load(engines / "trex-mobilenet-qat")
    write_report(plan, tmp_path / "here.html")
    monkeypatch.setattr(graphdata, "BESIDE_LAYERS", 1)  # every drawing beside
    started = []

    def started_beside(work):
        waiting = beside(work)
        started.append(waiting is not work)  # a copy was made
        return waiting

    monkeypatch.setattr(graphdata, "beside", started_beside)
    write_report(plan, tmp_path / "beside.html")
    assert started == [True]
    assert (tmp_path / "beside.html").read_bytes() == (tmp_path / "here.html").read_bytes()
