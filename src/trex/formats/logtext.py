"""The prefix of TensorRT log lines, recognised the same way by every reader of logs.

trtexec writes ``[05/26/2022-18:09:28] [I] text`` and, for the builder's messages,
``[05/26/2022-18:09:28] [V] [TRT] text``; the Python API's logger writes
``[07/02/2026-03:30:41] [TRT] [W] text``; the timestamp is optional. Severities are
``I`` (info), ``W`` (warning), ``E`` (error), ``V`` (verbose) and ``F`` (fatal).
"""

from __future__ import annotations

import re
from typing import NamedTuple

LOG_PREFIX = re.compile(
    r"(?:\[\d[\d/:.\- T]*\] ?)?(?P<trt_first>\[TRT\] ?)?\[(?P<sev>[IWEVF])\]"
    r"(?P<trt> ?\[TRT\])?(?: |$)")


class LogLine(NamedTuple):
    """A log line split into its severity, whether TensorRT itself wrote it, and its text."""

    severity: str
    from_tensorrt: bool
    content: str


def split_log_line(line: str) -> LogLine | None:
    """Split a prefixed log line; None when the line has no log prefix."""
    match = LOG_PREFIX.match(line)
    if match is None:
        return None
    return LogLine(match["sev"], bool(match["trt"] or match["trt_first"]), line[match.end():])


def strip_log_prefix(line: str) -> str:
    """The line without its log prefix (unchanged when it has none)."""
    match = LOG_PREFIX.match(line)
    return line[match.end():] if match else line
