"""Reader of trtexec's tuning cache (``--tuningCacheFile``): TensorRT 11.1 build-route sweeps.

JSON Lines written by ``writeTuningCacheHeader``/``writeTuningCacheIteration``: a header object
(tuner_version, accuracy_algorithm, accuracy_parameter, searching_algorithm, command_line,
default_build_route, tuning_expr, files, argv), then one object per iteration (iter, build_route,
crash, error_message, accuracy_loss, gpu_time). Interrupted sweeps leave a cut-off last line;
resumed ones (``--continue``) append a second header and may run iterations again. Both are read
with warnings; the last record of a repeated iteration wins. Lines are read with a length cap,
so memory stays bounded on any input.
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from .text import open_input

if TYPE_CHECKING:
    from .text import Head

__all__ = ["KIND", "TuningCache", "TuningHeader", "TuningIteration", "match", "read",
           "read_tuning_cache"]

KIND = "tuning_cache"
MAX_LINE = 16 << 20  # characters; a longer line is skipped with a warning
MAX_GPU_MS = 1e7  # a longer "GPU time" (2.8 hours per inference) is corrupt, not a measurement
_HEADER_START = re.compile(r'\A[\ufeff \t\r\n]*\{\s*"tuner_version"\s*:')
_RECORD_START = re.compile(r'\{\s*"(?:tuner_version|iter)"\s*:')
SALVAGE_TRIES = 16
_DECODER = json.JSONDecoder(strict=False)


@dataclass
class TuningHeader:
    """The header line of a sweep (a resumed sweep appends another)."""

    tuner_version: Any = None
    accuracy_algorithm: str | None = None
    accuracy_parameter: dict[str, Any] = field(default_factory=dict)  # atol, rtol, epsilon
    searching_algorithm: str | None = None
    command_line: str = ""
    default_build_route: str | None = None
    tuning_expr: str = ""
    files: dict[str, Any] = field(default_factory=dict)  # onnx, save_engine, inputs, ref_outputs
    argv: list[str] = field(default_factory=list)
    accuracy_threshold: float | None = None  # from --accuracyThreshold in argv/command_line
    line: int = 0
    extra: dict[str, Any] = field(default_factory=dict)  # keys not listed above


@dataclass
class TuningIteration:
    """One iteration: the route built, whether it crashed, its accuracy loss and GPU time (ms)."""

    iter: int
    build_route: str
    crash: bool
    error_message: str = ""
    accuracy_loss: dict[str, float | None] | None = None  # output -> loss (lower is better)
    gpu_time: float | None = None
    line: int = 0


@dataclass
class TuningCache:
    """A whole tuning cache: its first header, every header, and one record per iteration."""

    header: TuningHeader
    headers: list[TuningHeader]
    iterations: list[TuningIteration]  # sorted by iteration number, repeats resolved
    records: int = 0  # iteration lines read, repeats included
    source: str = ""
    warnings: list[str] = field(default_factory=list)


def match(head: Head | str) -> bool:
    """True when a file's head (``formats.text.Head`` or its text) is a tuning cache: its first
    object is the header."""
    text = head if isinstance(head, str) else head.text
    if _HEADER_START.match(text):
        return True
    first = text.lstrip("\ufeff \t\r\n").split("\n", 1)[0]
    return first.startswith("{") and '"tuner_version"' in first and '"build_route' in first


def read(path: str | os.PathLike[str]) -> TuningCache:
    """Read a tuning cache; a clear InputError naming the file when it is not one."""
    source = os.fspath(path)
    p = Path(path)
    if not p.exists():
        raise InputError(source, "file not found")
    if p.is_dir():
        raise InputError(source, "is a folder, expected a tuning cache (--tuningCacheFile)")
    try:
        with open_input(p, log=True) as fh:  # read line by line, up to TREX_MAX_LOG_BYTES
            if b"\x00" in fh.read(4096):
                raise InputError(source, "binary file, expected a tuning cache (JSON Lines)")
            fh.seek(0)
            return _Parser(source).parse(fh)
    except OSError as exc:
        raise InputError(source, f"cannot read file ({exc.strerror or exc})") from None


read_tuning_cache = read


def _threshold(argv: list[str], command_line: str) -> float | None:
    """``--accuracyThreshold=X`` (or ``--accuracyThreshold X``) from the sweep's command line."""
    for args in (argv, _split(command_line)):
        for i, arg in enumerate(args):
            value = None
            if arg.startswith("--accuracyThreshold="):
                value = arg.split("=", 1)[1]
            elif arg == "--accuracyThreshold" and i + 1 < len(args):
                value = args[i + 1]
            if value is not None:
                try:
                    number = float(value)
                except ValueError:
                    return None
                return number if math.isfinite(number) else None
    return None


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


class _Parser:
    """Line-by-line reading with the warnings each oddity deserves."""

    def __init__(self, source: str):
        self.source = source
        self.warnings: list[str] = []
        self.headers: list[TuningHeader] = []
        self.by_iter: dict[int, TuningIteration] = {}
        self.repeated: list[int] = []
        self.records = 0
        self.bad: list[int] = []  # lines that were not JSON
        self.last_line = 0  # the last non-blank line

    def parse(self, fh: Any) -> TuningCache:
        number = 0
        while True:
            raw = fh.readline(MAX_LINE + 1)
            if not raw:
                break
            number += 1
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                while raw and not raw.endswith(b"\n"):  # skip the rest of the line
                    raw = fh.readline(1 << 20)
                self.warnings.append(f"line {number} is longer than {MAX_LINE >> 20} MiB; skipped")
                self.last_line = number
                continue
            text = raw.decode("utf-8", errors="replace").strip().lstrip("\ufeff")
            if not text:
                continue
            self.last_line = number
            self._line(number, text)
        return self._finish()

    def _line(self, number: int, text: str) -> None:
        try:
            record = _DECODER.decode(text)
        except (ValueError, RecursionError):  # RecursionError: thousands of nested brackets
            record = self._salvage(number, text) if self.headers else None
            if record is None:
                if not self.headers:
                    raise InputError(self.source, f"not a tuning cache: line {number} is not JSON "
                                                  "(expected a header line with tuner_version)"
                                     ) from None
                self.bad.append(number)
                return
        if isinstance(record, dict) and "tuner_version" in record:
            self._header(number, record)
        elif isinstance(record, dict) and "iter" in record:
            if not self.headers:
                raise InputError(self.source, f"not a tuning cache: line {number} is an iteration "
                                              "but no header line comes before it")
            self._iteration(number, record)
        elif not self.headers:
            raise InputError(self.source, f"not a trtexec tuning cache (--tuningCacheFile): line "
                                          f"{number} is not a header with tuner_version")
        else:
            self.warnings.append(f"line {number} is neither a header nor an iteration; skipped")

    def _salvage(self, number: int, text: str) -> dict[str, Any] | None:
        """A cut-off record with a resumed sweep's record glued to it: keep the latter."""
        # The glued record ends the line; it starts at one of the last few record openings (trying
        # every opening of a hostile line would decode the rest of it once per opening).
        starts = [found.start() for found in _RECORD_START.finditer(text, 1)][-SALVAGE_TRIES:]
        for start in starts:
            try:
                record, end = _DECODER.raw_decode(text, start)
            except (ValueError, RecursionError):
                continue
            if text[end:].strip() == "" and isinstance(record, dict):
                self.warnings.append(f"line {number} starts with a cut-off record (an interrupted "
                                     "sweep, then resumed); the cut-off part is ignored")
                return record
        return None

    def _header(self, number: int, raw: dict[str, Any]) -> None:
        def text(key: str) -> str | None:
            value = raw.get(key)
            if value is None or isinstance(value, str):
                return value
            self.warnings.append(f"line {number}: header {key} is not a string")
            return str(value)

        def mapping(key: str) -> dict[str, Any]:
            value = raw.get(key)
            if isinstance(value, dict):
                return value
            if value is not None:
                self.warnings.append(f"line {number}: header {key} is not an object; ignored")
            return {}

        argv = raw.get("argv")
        if not isinstance(argv, list):
            if argv is not None:
                self.warnings.append(f"line {number}: header argv is not a list; ignored")
            argv = []
        argv = [str(a) for a in argv]
        command_line = text("command_line") or ""
        known = {"tuner_version", "accuracy_algorithm", "accuracy_parameter",
                 "searching_algorithm", "command_line", "default_build_route", "tuning_expr",
                 "files", "argv"}
        header = TuningHeader(
            tuner_version=raw.get("tuner_version"),
            accuracy_algorithm=text("accuracy_algorithm"),
            accuracy_parameter=mapping("accuracy_parameter"),
            searching_algorithm=text("searching_algorithm"),
            command_line=command_line,
            default_build_route=text("default_build_route"),
            tuning_expr=text("tuning_expr") or "",
            files=mapping("files"),
            argv=argv,
            accuracy_threshold=_threshold(argv, command_line),
            line=number,
            extra={k: v for k, v in raw.items() if k not in known},
        )
        if self.headers:
            first = self.headers[0]
            changed = [key for key in ("default_build_route", "tuning_expr", "accuracy_algorithm",
                                       "accuracy_parameter", "accuracy_threshold")
                       if getattr(first, key) != getattr(header, key)]
            note = (f"; it changes {', '.join(changed)}: the first header's values are used"
                    if changed else "")
            self.warnings.append(f"line {number}: another header (a resumed sweep){note}")
        self.headers.append(header)

    def _iteration(self, number: int, raw: dict[str, Any]) -> None:
        self.records += 1
        index = raw.get("iter")
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            self.warnings.append(f"line {number}: iter is not a non-negative integer; skipped")
            return
        route = raw.get("build_route")
        crash = raw.get("crash")
        if not isinstance(crash, bool):
            if crash not in (0, 1, None):
                self.warnings.append(f"line {number}: crash is not true/false; read as "
                                     f"{bool(crash)}")
            crash = bool(crash)
        gpu = _number(raw.get("gpu_time"))
        if raw.get("gpu_time") is not None and (gpu is None or not 0 <= gpu <= MAX_GPU_MS):
            self.warnings.append(f"line {number}: gpu_time is not a plausible time in ms; "
                                 "ignored")
            gpu = None
        loss = raw.get("accuracy_loss")
        if loss is not None and not isinstance(loss, dict):
            self.warnings.append(f"line {number}: accuracy_loss is not an object; ignored")
            loss = None
        if loss is not None:
            values: dict[str, float | None] = {}
            for name, value in loss.items():
                values[str(name)] = _number(value)
                if values[str(name)] is None and value is not None:
                    self.warnings.append(f"line {number}: the accuracy loss of an output is not a "
                                         "number; read as not measured")
            loss = values
        message = raw.get("error_message")
        record = TuningIteration(
            iter=index, build_route="" if route is None else str(route), crash=crash,
            error_message="" if message is None else str(message), accuracy_loss=loss,
            gpu_time=gpu, line=number)
        if index in self.by_iter:
            self.repeated.append(index)
        self.by_iter[index] = record

    def _finish(self) -> TuningCache:
        if not self.headers:
            raise InputError(self.source, "empty: no tuning cache header")
        for number in self.bad:
            if number == self.last_line:
                self.warnings.append(f"line {number} is cut off (an interrupted sweep?); ignored")
            else:
                self.warnings.append(f"line {number} is not JSON; skipped")
        if self.repeated:
            shown = ", ".join(map(str, sorted(set(self.repeated))[:8]))
            self.warnings.append(f"iterations run more than once (a resumed sweep): {shown}; "
                                 "the last record of each is kept")
        iterations = [self.by_iter[k] for k in sorted(self.by_iter)]
        return TuningCache(self.headers[0], self.headers, iterations, self.records, self.source,
                           self.warnings)
