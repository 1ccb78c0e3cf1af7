"""Run one trtexec step: stream its output to a log file, report progress, explain failures."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import TrexError

__all__ = ["StepError", "StepResult", "TrtexecNotFound", "describe_line", "find_trtexec",
           "run_step"]

_ERROR_LINE = re.compile(r"\[E\]|\[F\]|\bError\b|\berror:")
_COSTS = "Computing costs for "


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
        return f"autotuning {line[index + len(_COSTS):].strip()}"
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


def run_step(step: str, command: list[str], log_path: str | os.PathLike,
             on_line: Callable[[str, int, str], None] | None = None,
             env: dict[str, str] | None = None, tail: int = 200) -> StepResult:
    """Run ``command`` (an argument list, never a shell string), writing its output to ``log_path``.

    ``on_line(step, line_number, line)`` is called for every output line. A non-zero exit raises
    StepError with the log's last error lines; Ctrl-C stops trtexec before re-raising.
    """
    log_path = Path(log_path)
    start = time.perf_counter()
    last: deque[str] = deque(maxlen=tail)
    errors: deque[str] = deque(maxlen=5)
    count = 0
    try:
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=env)
    except FileNotFoundError:
        raise TrtexecNotFound(f"cannot run {command[0]}: file not found") from None
    except PermissionError:
        raise TrtexecNotFound(f"cannot run {command[0]}: permission denied") from None
    try:
        with open(log_path, "w", encoding="utf-8", newline="\n") as log:
            assert proc.stdout is not None
            for raw in proc.stdout:
                line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                count += 1
                log.write(line + "\n")
                last.append(line)
                if _ERROR_LINE.search(line) and not line.startswith("&&&&"):
                    errors.append(line)
                if on_line is not None:
                    on_line(step, count, line)
        returncode = proc.wait()
    except BaseException:  # Ctrl-C, a failing callback, a full disk: never leave trtexec running
        _stop(proc)
        raise
    seconds = time.perf_counter() - start
    if returncode != 0:
        raise StepError(step, returncode, log_path, list(errors) or list(last)[-5:])
    return StepResult(step, list(command), log_path, seconds, count, returncode)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
