"""Run one trtexec step: stream its output to a log file, report progress, explain failures.

Memory stays bounded whatever trtexec prints: output is read in chunks and written to the log as
it comes, and only the first ``LINE_KEEP`` characters of each line are kept (for progress and
error messages), so a single 300 MB line costs no more than a short one. Lines echoed in errors
are cut to ``ECHO_CHARS`` with "…"; the full text stays in the log. trtexec runs in its own
process group, which is terminated as a whole when trex is interrupted.
"""

from __future__ import annotations

import codecs
import os
import re
import shutil
import signal
import subprocess
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..errors import TrexError
from .signals import deferred_signals

__all__ = ["ECHO_CHARS", "LINE_KEEP", "StepError", "StepResult", "TrtexecNotFound", "cap_line",
           "describe_line", "find_trtexec", "run_step"]

_ERROR_LINE = re.compile(r"\[E\]|\[F\]|\bError\b|\berror:")
_COSTS = "Computing costs for "
LINE_KEEP = 4096  # characters of each output line kept in memory
ECHO_CHARS = 500  # characters of a log line shown in an error message
_CHUNK = 1 << 16
_STOP_WAIT = 5.0  # seconds trtexec gets to exit after SIGTERM before SIGKILL


class TrtexecNotFound(TrexError):
    """No trtexec executable where it was looked for."""


class StepError(TrexError):
    """A trtexec step exited with an error; the message ends with the log's last error lines."""

    def __init__(self, step: str, returncode: int, log_path: Path, errors: list[str]):
        self.step, self.returncode, self.log_path, self.errors = step, returncode, log_path, errors
        lines = "\n".join(f"    {e}" for e in errors) or "    (no error lines in the log)"
        super().__init__(f"{step} failed (trtexec exit status {returncode}); log: {log_path}\n"
                         f"  last errors:\n{lines}")


@dataclass
class StepResult:
    """A finished step: its command, log, duration and line count."""

    step: str
    command: list[str]
    log_path: Path
    seconds: float
    lines: int
    returncode: int = 0


@dataclass
class _Line:
    number: int
    head: str  # the first LINE_KEEP characters
    length: int  # characters in the whole line


def cap_line(head: str, length: int | None = None, limit: int = ECHO_CHARS) -> str:
    """A log line cut for display: ``limit`` characters, then "…" and how long it was."""
    length = len(head) if length is None else length
    if length <= limit:
        return head
    return f"{head[:limit]}… ({length:,} characters; the full line is in the log)"


def find_trtexec(trtexec: str | os.PathLike | None = None) -> str:
    """The trtexec to run: ``trtexec`` given as a path or name, else the one on PATH."""
    name = os.fspath(trtexec) if trtexec else "trtexec"
    if os.sep in name or (os.altsep and os.altsep in name):
        path = Path(name)
        if path.is_file() and os.access(path, os.X_OK):
            return str(path.absolute())
        raise TrtexecNotFound(f"trtexec not found or not executable: {name}")
    found = shutil.which(name)
    if found is None:
        raise TrtexecNotFound(f"{name} not found on PATH: install TensorRT (trtexec is in its "
                              "bin/ folder) or pass --trtexec PATH")
    return found


def describe_line(line: str) -> str | None:
    """A short progress note for the log lines that mark a phase (None for the others)."""
    index = line.find(_COSTS)
    if index >= 0:
        return f"autotuning {line[index + len(_COSTS):].strip()[:200]}"
    for marker, note in (("Computing reformatting costs", "reformat costs"),
                         ("Engine generation completed", "engine generated"),
                         ("=== Performance summary ===", "performance summary"),
                         ("=== Profile (", "per-layer profile"),
                         ("Starting inference", "running inference"),
                         ("Loaded engine size", "engine loaded"),
                         ("Start parsing network model", "parsing the model")):
        if marker in line:
            return note
    return None


def _stream_lines(stream: IO[bytes], log: IO[str], keep: int = LINE_KEEP) -> Iterator[_Line]:
    """Copy ``stream`` to ``log`` line by line (CR LF -> LF) and yield each line's head.

    Reads fixed-size chunks, so memory does not grow with the length of a line.
    """
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    read = getattr(stream, "read1", stream.read)
    head: list[str] = []
    kept = length = number = 0
    pending_cr = ""

    def add(text: str) -> None:
        nonlocal kept, length
        if not text:
            return
        log.write(text)
        length += len(text)
        if kept < keep:
            head.append(text[: keep - kept])
            kept += len(head[-1])

    def end() -> _Line:
        nonlocal kept, length, number
        number += 1
        log.write("\n")
        line = _Line(number, "".join(head), length)
        head.clear()
        kept = length = 0
        return line

    while True:
        chunk = read(_CHUNK)
        text = decoder.decode(chunk, final=not chunk)
        text, pending_cr = pending_cr + text, ""
        start = 0
        while True:
            newline = text.find("\n", start)
            if newline < 0:
                break
            add(text[start:newline].rstrip("\r"))
            yield end()
            start = newline + 1
        rest = text[start:]
        body = rest.rstrip("\r")
        pending_cr = rest[len(body):]
        add(body)
        if not chunk:
            break
    if pending_cr or length:  # a last line without a newline (trailing CRs dropped)
        yield end()


def run_step(step: str, command: list[str], log_path: str | os.PathLike,
             on_line: Callable[[str, int, str], None] | None = None,
             env: dict[str, str] | None = None, tail: int = 5) -> StepResult:
    """Run ``command`` (an argument list, never a shell string), writing its output to ``log_path``.

    ``on_line(step, line_number, line)`` is called for every output line (its first
    ``LINE_KEEP`` characters). A non-zero exit raises StepError with the log's last error lines,
    each cut to ``ECHO_CHARS``; Ctrl-C, SIGTERM/SIGHUP (see ``signals``) or a failing callback
    stop trtexec and every process it started before the exception goes on.
    """
    log_path = Path(log_path)
    start = time.perf_counter()
    last: deque[str] = deque(maxlen=max(tail, 1))
    errors: deque[str] = deque(maxlen=5)
    count = 0
    try:
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=env, start_new_session=True)
    except FileNotFoundError:
        raise TrtexecNotFound(f"cannot run {command[0]}: file not found") from None
    except PermissionError:
        raise TrtexecNotFound(f"cannot run {command[0]}: permission denied") from None
    try:
        with open(log_path, "w", encoding="utf-8", newline="\n") as log:
            assert proc.stdout is not None
            for line in _stream_lines(proc.stdout, log):
                count = line.number
                shown = cap_line(line.head, line.length)
                last.append(shown)
                if _ERROR_LINE.search(line.head) and not line.head.startswith("&&&&"):
                    errors.append(shown)
                if on_line is not None:
                    on_line(step, count, line.head)
        returncode = proc.wait()
    except BaseException:  # Ctrl-C, SIGTERM, a failing callback, a full disk: stop trtexec
        with deferred_signals():
            stop_process_group(proc)
        raise
    finally:
        if proc.stdout is not None:
            proc.stdout.close()
    seconds = time.perf_counter() - start
    if returncode != 0:
        raise StepError(step, returncode, log_path, list(errors) or list(last)[-tail:])
    return StepResult(step, list(command), log_path, seconds, count, returncode)


def stop_process_group(proc: subprocess.Popen, wait: float = _STOP_WAIT) -> None:
    """Terminate ``proc`` and its process group (trtexec and anything it started).

    SIGTERM first, SIGKILL after ``wait`` seconds. The leader is reaped only after its group
    was signalled, so the group id cannot have been reused by then. Descendants that left the
    group (a helper that called ``setsid()``) are found through /proc first and stopped too.
    """
    if proc.poll() is not None:
        return
    strays = [p for p in _descendants(proc.pid) if p[2] != proc.pid]
    _signal_group(proc.pid, signal.SIGTERM)
    _signal_strays(strays, signal.SIGTERM)
    if not _wait_exited(proc.pid, wait):
        _signal_group(proc.pid, signal.SIGKILL)
        _wait_exited(proc.pid, None)
    if not _group_gone(proc.pid, 2.0):  # children that outlived their parent
        _signal_group(proc.pid, signal.SIGKILL)
    deadline = time.monotonic() + 2.0
    while _signal_strays(strays, 0) and time.monotonic() < deadline:
        time.sleep(0.02)
    _signal_strays(strays, signal.SIGKILL)
    proc.wait()


def _signal_strays(strays: list[tuple[int, str, int]], signum: int) -> bool:
    """Signal each (pid, start time, group) still alive as the same process; True if any was."""
    alive = False
    for pid, start, _ in strays:
        info = _stat(pid)
        if info is None or info[0] == "Z" or info[3] != start:
            continue  # gone, a zombie, or another process now has its pid
        alive = True
        try:
            os.kill(pid, signum)
        except (ProcessLookupError, PermissionError):
            pass
    return alive


def _descendants(pid: int) -> list[tuple[int, str, int]]:
    """(pid, start time, process group) of every live descendant of ``pid`` (Linux /proc)."""
    children: dict[int, list[tuple[int, str, int]]] = {}
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        info = _stat(int(entry.name))
        if info is not None and info[0] != "Z":
            children.setdefault(info[1], []).append((int(entry.name), info[3], info[2]))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child[0])
    return found


def _stat(pid: int) -> tuple[str, int, int, str] | None:
    """(state, parent, process group, start time) of a process, from /proc/PID/stat."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()
    if len(fields) < 20:
        return None
    return fields[0], int(fields[1]), int(fields[2]), fields[19]


def _signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def _wait_exited(pid: int, timeout: float | None) -> bool:
    """Wait until ``pid`` exited without reaping it (its pid and group id stay reserved)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        try:
            if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT | os.WNOHANG) is not None:
                return True
        except ChildProcessError:
            return True
        if deadline is not None and time.monotonic() >= deadline:
            return False
        time.sleep(0.02)


def _group_gone(pgid: int, timeout: float) -> bool:
    """True once no process but the (exited, unreaped) leader is left in the group."""
    deadline = time.monotonic() + timeout
    while True:
        members = _group_members(pgid)
        if not members:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)


def _group_members(pgid: int) -> list[int]:
    """Live processes of a process group other than its leader (Linux /proc; [] elsewhere)."""
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    members = []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == pgid:
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 2 and fields[0] != "Z" and fields[2] == str(pgid):
            members.append(int(entry.name))
    return members
