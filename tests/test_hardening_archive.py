"""Hostile ``.tea`` archives (built in tmp_path around a real engine): zip bombs, lying headers,
zip-slip, over-long names, a file that is also a folder, and signals while extracting. Each is a
clean one-line error (exit status 2, or 128 + the signal) that leaves nothing in the temp folder."""

from __future__ import annotations

import os
import signal
import struct
import subprocess
import sys
import tempfile
import textwrap
import zipfile
from pathlib import Path

import pytest

import trex
from trex.cli import main
from trex.formats import archive
from trex.formats.archive import extract_archive, write_archive

MOBILENET = "trex-mobilenet-qat"


@pytest.fixture
def tmpdir_for_trex(tmp_path, monkeypatch) -> Path:
    """The folder where trex makes its extraction folders (tempfile's default), empty at first."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def engine_zip(engines: Path, path: Path, extra: list[tuple[str, bytes]] = (), level: int = 6
               ) -> Path:
    """A zip of the real MobileNet engine's files plus ``extra`` entries (no manifest: found by content)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as zf:
        for f in sorted((engines / MOBILENET).iterdir()):
            zf.write(f, f.name)
        for name, data in extra:
            zf.writestr(name, data)
    return path


def run_cli(capsys, *args) -> tuple[int, str]:
    code = main([str(a) for a in args])
    err = capsys.readouterr().err
    return code, err


def assert_one_line_error(code: int, err: str, *fragments: str) -> None:
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("trex summary: error: "), err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


def test_zip_bomb_is_refused_before_extraction(engines, tmp_path, tmpdir_for_trex, capsys):
    """2.4 MB of zip declaring 537 MB of whitespace (the default limit is 512 MiB)."""
    bomb = engine_zip(engines, tmp_path / "bomb.tea")
    with zipfile.ZipFile(bomb, "a", zipfile.ZIP_DEFLATED, compresslevel=1) as zf, \
            zf.open("padding.graph.json", "w", force_zip64=True) as out:
        chunk = b" " * (4 << 20)
        out.write(b'{"Layers": []')
        for _ in range(129):
            out.write(chunk)
        out.write(b"}")
    assert bomb.stat().st_size < 3_000_000
    code, err = run_cli(capsys, "summary", bomb)
    assert_one_line_error(code, err, str(bomb), "(more than 536,870,912)", "nothing was extracted",
                          "TREX_ARCHIVE_MAX_BYTES")
    assert os.listdir(tmpdir_for_trex) == []


def test_compression_ratio_limit_and_its_settings(engines, tmp_path, tmpdir_for_trex, capsys,
                                                  monkeypatch):
    tea = engine_zip(engines, tmp_path / "ratio.tea", [("padding.txt", b" " * (20 << 20))])
    code, err = run_cli(capsys, "summary", tea)
    assert_one_line_error(code, err, "'padding.txt' would inflate", "more than 200:1",
                          "TREX_ARCHIVE_MAX_RATIO")
    assert os.listdir(tmpdir_for_trex) == []
    monkeypatch.setenv("TREX_ARCHIVE_MAX_RATIO", "100000")
    assert main(["summary", str(tea), "-f", "json"]) == 0  # allowed: the engine loads
    assert os.listdir(tmpdir_for_trex) == []  # and its folder is gone once the plan is
    monkeypatch.setenv("TREX_ARCHIVE_MAX_BYTES", "1000000")
    code, err = run_cli(capsys, "summary", tea)
    assert_one_line_error(code, err, "(more than 1,000,000)")
    monkeypatch.setenv("TREX_ARCHIVE_MAX_BYTES", "lots")
    code, err = run_cli(capsys, "summary", tea)
    assert_one_line_error(code, err, "$TREX_ARCHIVE_MAX_BYTES must be a positive number")
    files = extract_archive(tea, tmp_path / "x", max_bytes=30 << 20, max_ratio=1e6)
    assert len(files) == 6


def _patch_sizes(path: Path, name: str, declared: int) -> None:
    """Make the local and central headers of entry ``name`` declare ``declared`` bytes."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo(name)
    local = info.header_offset
    assert data[local:local + 4] == b"PK\x03\x04"
    struct.pack_into("<I", data, local + 22, declared)
    central = data.find(b"PK\x01\x02" + data[local + 4:local + 10])
    while data[central + 46:central + 46 + len(name)] != name.encode():
        central = data.find(b"PK\x01\x02", central + 4)
    struct.pack_into("<I", data, central + 24, declared)
    path.write_bytes(bytes(data))


def test_a_header_that_lies_about_the_size(engines, tmp_path, tmpdir_for_trex, capsys):
    tea = engine_zip(engines, tmp_path / "liar.tea", [("padding.txt", b"x" * (3 << 20))], level=0)
    _patch_sizes(tea, "padding.txt", 1000)  # stored 3 MiB, declared 1,000 bytes
    with zipfile.ZipFile(tea) as zf:
        assert zf.getinfo("padding.txt").file_size == 1000
    code, err = run_cli(capsys, "summary", tea)
    assert_one_line_error(code, err, "cannot extract 'padding.txt'")
    assert os.listdir(tmpdir_for_trex) == []


def test_bytes_written_are_counted_while_extracting(engines, tmp_path, monkeypatch):
    """Were the declared sizes believed (the check before extraction bypassed), the count of the
    bytes really written still stops the extraction and removes what was written."""
    tea = engine_zip(engines, tmp_path / "big.tea", [("zz-padding.txt", b" " * (5 << 20))])
    monkeypatch.setattr(archive, "_check_sizes", lambda *args: None)
    target = tmp_path / "out"
    with pytest.raises(trex.InputError, match="extracts to more than 4,194,304 bytes"):
        extract_archive(tea, target, max_bytes=4 << 20, max_ratio=1e6)
    assert list(target.iterdir()) == []
    with pytest.raises(trex.InputError, match="'zz-padding.txt' inflates beyond 200:1"):
        extract_archive(tea, target)
    assert list(target.iterdir()) == []


@pytest.mark.parametrize("entries, problem", [
    ([("../../evil.graph.json", b"{}")], "contains '..'"),
    ([("a" * 300 + ".json", b"{}")], "file or folder name longer than 200 bytes"),
    ([("/".join(["d" * 100] * 11) + "/x.json", b"{}")], "path longer than 1024 bytes"),
    ([("sub", b"file"), ("sub/x.json", b"{}")], "'sub' is both a file and a folder"),
    ([("sub/x.json", b"{}"), ("sub", b"file")], "'sub' is both a file and a folder"),
    ([("sub/", b""), ("sub/x/", b""), ("sub/x", b"file")], "'sub/x' is both a file and a folder"),
], ids=["zip-slip", "long-name", "long-path", "file-then-folder", "folder-then-file", "dir-entry"])
def test_unsafe_entries_are_clean_errors(engines, tmp_path, tmpdir_for_trex, capsys, entries,
                                         problem):
    tea = engine_zip(engines, tmp_path / "evil.tea", entries)
    code, err = run_cli(capsys, "summary", tea)
    assert_one_line_error(code, err, problem, "nothing was extracted")
    assert os.listdir(tmpdir_for_trex) == []
    assert not (tmp_path.parent / "evil.graph.json").exists()


def _signal_during(monkeypatch, target, name: str, signum: int) -> None:
    real = getattr(target, name)

    def hooked(*args, **kwargs):
        result = real(*args, **kwargs)
        os.kill(os.getpid(), signum)  # delivered at the next bytecode: mid-way through the load
        return result

    monkeypatch.setattr(target, name, hooked)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT],
                         ids=["SIGTERM", "SIGHUP", "SIGINT"])
@pytest.mark.parametrize("when", ["extracting", "extracted"])
def test_signals_remove_the_extraction_folder(engines, tmp_path, tmpdir_for_trex, capsys,
                                              monkeypatch, signum, when):
    tea = write_archive(engines / MOBILENET, tmp_path / "engine.tea")
    if when == "extracting":
        _signal_during(monkeypatch, archive, "_extract_one", signum)
    else:  # extracted, the plan about to read the files
        _signal_during(monkeypatch, archive, "open_archive", signum)
    code = main(["summary", str(tea)])
    assert code == 128 + signum
    assert f"interrupted ({signal.Signals(signum).name})" in capsys.readouterr().err
    assert os.listdir(tmpdir_for_trex) == []


def test_sigterm_from_outside_in_a_real_process(engines, tmp_path):
    """``trex summary X.tea`` killed with SIGTERM while extracting: exit 143, no folder left."""
    tea = write_archive(engines / MOBILENET, tmp_path / "engine.tea")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    script = textwrap.dedent(f"""
        import os, signal, sys, time
        from trex.formats import archive
        real = archive._extract_one
        def slow(*args):
            total = real(*args)
            print(os.listdir({str(tmp)!r}), flush=True)  # the extraction folder exists
            time.sleep(60)  # killed from outside before this ends
            return total
        archive._extract_one = slow
        from trex.cli import main
        sys.exit(main(["summary", {str(tea)!r}]))
    """)
    env = {**os.environ, "TMPDIR": str(tmp)}
    proc = subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline()
    assert "trex-tea-" in first
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "interrupted (SIGTERM)" in err and "Traceback" not in err
    assert os.listdir(tmp) == []
