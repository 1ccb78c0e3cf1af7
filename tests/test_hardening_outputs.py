"""Outputs never damage what they replace (issue 24, items 1, 9 and 11) and default names never
collide or clobber silently (issue 22): every writer goes through ``trex.outputs.atomic_write``.

Special files are made in the test's folder (``mkfifo``, ``os.mknod`` where permitted, sockets,
symbolic and hard links); a full disk is a child process with ``RLIMIT_FSIZE``; the engines are
real shared exports copied there.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from helpers import bench_module, require_program
from trex.cli import main

FP32, FP16 = "a100-resnet18-fp32", "a100-resnet18-fp16"
ENGINE = "resnet.onnx.engine"  # both folders hold an engine of this name
OLD = b"the previous file\n"


@pytest.fixture
def pair(engines, tmp_path) -> tuple[Path, Path]:
    """The FP32 and FP16 ResNet18 folders copied into the test's folder."""
    return tuple(Path(shutil.copytree(engines / name, tmp_path / name))  # type: ignore[return-value]
                 for name in (FP32, FP16))


def cli(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_error(err: str, *words: str) -> None:
    """A single ``trex VERB: error:`` line holding ``words``, no traceback."""
    lines = [line for line in err.splitlines() if ": error: " in line]
    assert len(lines) == 1 and "Traceback" not in err, err
    for word in words:
        assert word in lines[0], (word, lines[0])


def in_thread(target, *args) -> tuple[threading.Thread, list]:
    box: list = []
    thread = threading.Thread(target=lambda: box.append(target(*args)), daemon=True)
    thread.start()
    return thread, box


def read_all(path: Path) -> bytes:
    with open(path, "rb") as f:
        return f.read()


# ------------------------------------------------------------------------------ item 1
def test_fifo_device_socket_and_proc_link_are_written_not_replaced(pair, tmp_path, capsys):
    fp32 = pair[0]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    thread, got = in_thread(read_all, fifo)
    code, _, err = cli(capsys, "report", fp32, "-o", fifo)
    thread.join(60)
    assert code == 0, err
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # still a FIFO, and its reader got the report
    assert got[0].startswith(b"<!DOCTYPE html>") and len(got[0]) > 1_000_000

    device = tmp_path / "mynull"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:  # not root: the system's null device, through a link
        device.symlink_to("/dev/null")
    code, _, err = cli(capsys, "timeline", fp32, "-o", device)
    assert code == 0, err
    assert stat.S_ISCHR(os.stat(device).st_mode) and os.stat(device).st_size == 0

    address = tmp_path / "s"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(address))
    server.listen(1)

    def receive() -> bytes:
        conn, _ = server.accept()
        with conn:
            return b"".join(iter(lambda: conn.recv(1 << 16), b""))

    thread, got = in_thread(receive)
    code, _, err = cli(capsys, "timeline", fp32, "-o", address)
    thread.join(60)
    server.close()
    assert code == 0, err
    assert stat.S_ISSOCK(address.lstat().st_mode)
    assert json.loads(got[0])["otherData"]["iterations"] == 1600

    read_end, write_end = os.pipe()  # a link to /proc/self/fd/N is written through
    link = tmp_path / "stdout.json"
    link.symlink_to(f"/proc/self/fd/{write_end}")
    thread, got = in_thread(lambda: b"".join(iter(lambda: os.read(read_end, 1 << 16), b"")))
    code, _, err = cli(capsys, "timeline", fp32, "-o", link)
    os.close(write_end)
    thread.join(60)
    os.close(read_end)
    assert code == 0, err
    assert link.is_symlink() and json.loads(got[0])["otherData"]["layers"] == 24


def test_links_mode_and_hard_links_are_kept(pair, tmp_path, capsys):
    fp32 = pair[0]
    target = tmp_path / "target.svg"
    target.write_bytes(OLD)
    link = tmp_path / "link.svg"
    link.symlink_to(target.name)
    assert cli(capsys, "draw", fp32, "-o", link, "--layout", "own")[0] == 0
    assert link.is_symlink() and target.read_text().startswith("<?xml")

    private = tmp_path / "private.html"
    private.write_bytes(OLD)
    private.chmod(0o600)
    assert cli(capsys, "report", fp32, "-o", private)[0] == 0
    assert private.stat().st_mode & 0o777 == 0o600 and private.stat().st_size > 1_000_000

    first, second = tmp_path / "first.json", tmp_path / "second.json"
    first.write_bytes(OLD)
    os.link(first, second)
    assert cli(capsys, "timeline", fp32, "-o", first)[0] == 0
    assert first.stat().st_ino == second.stat().st_ino and first.stat().st_nlink == 2
    assert json.loads(second.read_text())["otherData"]["layers"] == 24
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_folders_missing_folders_and_read_only_places_are_one_line_errors(pair, tmp_path, capsys):
    fp32 = pair[0]
    (tmp_path / "folder.html").mkdir()
    if os.geteuid() == 0:  # root writes anywhere a mode forbids: a place no one may create in
        read_only = Path("/sys/trex-output-test.json")
    else:
        (tmp_path / "ro").mkdir()
        (tmp_path / "ro").chmod(0o555)
        read_only = tmp_path / "ro" / "x.json"
    for args, words in (
        (["report", fp32, "-o", tmp_path / "folder.html"], ["folder.html", "is a folder"]),
        (["timeline", fp32, "-o", tmp_path / "no" / "t.json"], ["t.json", "folder does not exist"]),
        (["timeline", fp32, "-o", read_only], [read_only.name, "cannot write the trace"]),
        (["draw", fp32, "-of", "onnx", "-o", tmp_path / "folder.html"], ["is a folder"]),
        (["draw", fp32, "-of", "onnx", "-o", tmp_path / "no" / "x.onnx"], ["x.onnx", "folder"]),
        (["timeline", fp32, "-o", "/dev/full"], ["/dev/full", "No space left on device"]),
    ):
        code, _, err = cli(capsys, *args)
        assert code == 2, (args, err)
        one_error(err, *words)
    assert (tmp_path / "folder.html").is_dir() and not (tmp_path / "no").exists()


LIMITED = """import json, resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
from trex.cli import main
codes = [main(json.loads(a)) for a in sys.argv[1:]]
print(json.dumps(codes))
"""


def run_on_a_full_disk(runs: list[list], cwd: Path) -> tuple[list[int], str]:
    """Each run of ``trex`` in one child that may write no file beyond 4 KiB (a full disk)."""
    proc = subprocess.run([sys.executable, "-c", LIMITED,
                           *[json.dumps([str(a) for a in args]) for args in runs]],
                          cwd=cwd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1]), proc.stderr


def test_a_full_disk_leaves_every_previous_file_as_it_was(pair, tmp_path):
    """A report, traces, drawings in each format, ONNX and a hard-linked file: each write fails
    with one line naming the file, and the old bytes stay."""
    require_program("dot")
    fp32 = pair[0]
    names = ["old.html", "old.json", "old.svg", "old.png", "old.dot", "old.onnx", "linked.json"]
    for name in names[:-1]:
        (tmp_path / name).write_bytes(OLD)
    os.link(tmp_path / "old.json", tmp_path / "linked.json")
    runs = [["report", fp32, "-o", "old.html"], ["timeline", fp32, "-o", "old.json"],
            ["timeline", fp32, "-o", "linked.json"], ["draw", fp32, "-o", "old.svg", "--layout", "own"],
            ["draw", fp32, "-of", "png", "-o", "old.png"], ["draw", fp32, "-of", "dot", "-o", "old.dot"],
            ["draw", fp32, "-of", "onnx", "-o", "old.onnx"]]
    codes, err = run_on_a_full_disk(runs, tmp_path)
    assert codes == [2] * len(runs), err
    errors = [line for line in err.splitlines() if ": error: " in line]
    assert len(errors) == len(runs) and "Traceback" not in err, err
    assert all("File too large" in line for line in errors), errors
    for name in names:
        assert (tmp_path / name).read_bytes() == OLD, name
    assert (tmp_path / "old.json").stat().st_nlink == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*names, FP32, FP16])


# ------------------------------------------------------------------------------ item 9
def test_draw_killed_by_its_time_limit_keeps_the_old_png(engines, tmp_path, capsys):
    """The real MobileNet QAT engine four times in series: ``dot`` lays it out in about 0.05 s
    and renders the PNG for about 0.5 s, so the limit stops it while it writes (it used to write
    the output itself: a cut PNG replaced the old one)."""
    require_program("dot")
    bench_module("generate").series(4, tmp_path / "series", engines)
    old = tmp_path / "old.png"
    old.write_bytes(OLD)
    for limit in ("0.2", "0.001"):
        code, _, err = cli(capsys, "draw", tmp_path / "series", "-of", "png", "-o", old,
                           "--layout", "dot", "--timeout", limit)
        assert code == 2 and old.read_bytes() == OLD, err
        one_error(err, f"took more than {limit} s")


def test_draw_with_an_empty_output_uses_the_default_name(pair, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(capsys, "draw", pair[0], "-o", "", "--layout", "own")
    assert code == 0, err
    assert (tmp_path / f"{FP32}.{ENGINE}.svg").is_file()


# ------------------------------------------------------------------------------ item 11
def test_outputs_written_inside_an_engine_folder_are_never_read_back(pair, capsys, monkeypatch):
    fp32 = pair[0]
    monkeypatch.chdir(fp32)
    for _ in range(2):  # the second run reads the folder with the first run's trace in it
        code, out, err = cli(capsys, "timeline", ".", "--force")
        assert code == 0, err
    assert (fp32 / f"{FP32}.{ENGINE}.trace.json").is_file()
    code, out, err = cli(capsys, "summary", ".")
    assert code == 0 and "24 " in out, err
    code, out, err = cli(capsys, "report", ".")
    assert code == 0, err
    assert (fp32 / f"{FP32}.{ENGINE}.report.html").is_file()  # never "engine.report.html"
    code, _, err = cli(capsys, "summary", f"{FP32}.{ENGINE}.trace.json")
    assert code == 2
    one_error(err, "trace trex timeline wrote")


# ------------------------------------------------------------------------------ issue 22
@pytest.mark.parametrize("verb, suffix", [("draw", ".svg"), ("timeline", ".trace.json"),
                                          ("report", ".report.html")])
def test_default_names_are_unique_per_engine_and_never_clobber(pair, tmp_path, capsys,
                                                              monkeypatch, verb, suffix):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    extra = ["--layout", "own"] if verb == "draw" else []
    for folder in pair:  # two engines named resnet.onnx.engine: two files
        code, out, err = cli(capsys, verb, folder, *extra)
        assert code == 0, err
    written = sorted(p.name for p in work.iterdir())
    assert written == sorted(f"{folder.name}.{ENGINE}{suffix}" for folder in pair)
    first = work / written[1]  # the FP32 engine's
    before = first.read_bytes()
    code, _, err = cli(capsys, verb, pair[0], *extra)  # a file this run did not write
    assert code == 2 and first.read_bytes() == before
    one_error(err, first.name, "--force")
    assert cli(capsys, verb, pair[0], *extra, "--force")[0] == 0
    assert cli(capsys, verb, pair[0], *extra, "-o", first.name)[0] == 0  # explicit: allowed
    assert sorted(p.name for p in work.iterdir()) == written


def test_summaries_and_lint_tell_engines_of_the_same_name_apart(pair, capsys):
    code, out, _ = cli(capsys, "summary", *pair, "--top", "1")
    assert code == 0
    assert [line for line in out.splitlines() if line.startswith("== ")] == [
        f"== {FP32}/{ENGINE} ==", f"== {FP16}/{ENGINE} =="]
    code, out, _ = cli(capsys, "lint", *pair, "-f", "json")
    assert code == 0 and [e["label"] for e in json.loads(out)] == [f"{FP32}/{ENGINE}",
                                                                   f"{FP16}/{ENGINE}"]
    code, out, _ = cli(capsys, "summary", pair[0])  # one engine: its name, as before
    assert out.startswith(f"== {ENGINE} ==\n")
