"""Reader of TensorRT text logs: one pass gives everything a log can hold.

A trtexec log may carry several of an engine's inputs at once: the options and device sections and
the performance summary (metadata), ``--dumpProfile`` tables (a profile), ``--dumpLayerInfo``
output or a verbose build's ``Engine Layer Information`` (layer information) and the builder's
autotuning records. :func:`read` reads the file once and returns a :class:`LogRecord` that says
which of these roles it can play; the plan loader and folder discovery ask it instead of reading
the text again.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from .build_log import (
    BuildLog,
    BuildLogParser,
    engine_layer_info,
    looks_like_build_log,
    with_trtexec,
)
from .jsonio import looks_like_json
from .layer_dump import LayerDumpParser, dump_info, looks_like_layer_dump
from .records import LayerInfo, Metadata, Profile
from .text import Head, iter_lines, unix_newlines
from .trtexec_log import TrtexecLog, TrtexecLogParser

KIND = "log"
_LAYER_LINE = re.compile(r"^(?:\[[^\]\n]*\] ?)*Name: .*, LayerType: ", re.MULTILINE)
_LOG_MARKERS = re.compile(r"=== [A-Z][A-Za-z ]+ ===|&&&& RUNNING|\] \[[IWEV]\] |^\[[IWEV]\] |"
                          r"\[TRT\] \[[IWEV]\] ", re.MULTILINE)


@dataclass
class LogRecord:
    """What one log holds; ``None``/empty where the log does not have it."""

    source: str
    trtexec: TrtexecLog
    build: BuildLog | None = None
    layer_info: LayerInfo | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def metadata(self) -> Metadata:
        """Options, device and performance sections (as TREx's metadata JSON files hold them)."""
        return self.trtexec.metadata

    @property
    def profile(self) -> Profile | None:
        """The ``--dumpProfile`` tables, one run each, or None if the log has none."""
        if not self.trtexec.profile_runs:
            return None
        return Profile(list(self.trtexec.profile_runs), self.source, [])

    @property
    def has_performance_summary(self) -> bool:
        """True if the log holds trtexec's ``=== Performance summary ===``."""
        return "performance_summary" in self.trtexec.metadata.sections

    @property
    def is_build_log(self) -> bool:
        """True for the log of an engine build (``Engine built in``, autotuning or fusions)."""
        b = self.build
        return b is not None and bool(b.engine_built_s is not None or b.tactics or b.fusions
                                      or b.autotuned or b.engine_layers)


def match(head: Head) -> bool:
    """A text file (not JSON) with TensorRT log lines, a trtexec banner or a layer dump."""
    text = head.text
    if not text or head.binary or looks_like_json(text):
        return False
    return bool(_LAYER_LINE.search(text) or _LOG_MARKERS.search(text)
                or looks_like_layer_dump(text) or looks_like_build_log(text))


def read(path: str | os.PathLike[str]) -> LogRecord:
    """Parse a log once, line by line as it is read (memory is the records', not the file's):
    options and profiles, build records and layer lists when present."""
    source = os.fspath(path)
    warnings: list[str] = []
    return _scan(iter_lines(path, warnings), source, warnings)


def parse(text: str, source: str = "", warnings: list[str] | None = None) -> LogRecord:
    """The :class:`LogRecord` of a log's text."""
    return _scan(unix_newlines(text).split("\n"), source, list(warnings or []))


def _scan(lines: Iterable[str], source: str, warnings: list[str]) -> LogRecord:
    """Every parser a log can feed, fed each line once; ``warnings`` may grow while the lines
    are read (undecodable bytes)."""
    trtexec, build, dump = TrtexecLogParser(source), BuildLogParser(source), LayerDumpParser()
    building = False
    for number, line in enumerate(lines, 1):
        trtexec.feed(line)
        build.feed(line, number)
        dump.feed(line)
        if not building and looks_like_build_log(line):
            building = True
    info = trtexec.finish()
    record = LogRecord(source, info, warnings=warnings)
    record.warnings += info.warnings
    if building:
        record.build = with_trtexec(build.finish(), info)  # its warnings stay with it
    if dump.seen:
        record.layer_info = dump_info(dump.finish(), source)
    elif record.build is not None and record.build.engine_layers:
        record.layer_info = engine_layer_info(record.build)
    return record
