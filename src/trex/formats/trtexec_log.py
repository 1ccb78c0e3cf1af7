"""Reader of ``trtexec`` text logs (TensorRT 7.x-10.x): options, device, performance, profiles.

One pass over the lines: ``=== X ===`` sections become ``key: value`` dicts (warning, verbose and
``[TRT]`` lines inside a section are skipped, not taken as its end), ``--dumpProfile`` tables become
ProfileRuns, and the performance summary and device figures are converted as TREx converts them.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError, cap_line
from .logtext import split_log_line
from .records import DeviceInfo, Metadata, ProfileRecord, ProfileRun
from .text import iter_lines, unix_newlines
from .units import NUMBER as _NUM
from .units import NUMBER_UNIT, TO_GHZ, TO_MS, TO_S, number_unit, to_bytes

__all__ = ["TrtexecLog", "looks_like_trtexec_log", "parse_trtexec_log", "read_trtexec_log"]

_SNIFF = re.compile(
    r"^(?:&&&& [A-Z]+ TensorRT\.trtexec|\[\d\d/\d\d/\d{4}-\d\d:\d\d:\d\d\] \[[IWEVF]\]|\[I\] )",
    re.MULTILINE,
)
_SNIFF_LIMIT = 1 << 20
_BANNER = re.compile(r"&&&& (?P<status>[A-Z]+)\b(?P<rest>.*?)(?: # (?P<command>.*))?$")
_BANNER_VERSION = re.compile(r"\[TensorRT v(?P<code>\d{3,8})\]")
_VERSION_LINE = re.compile(r"TensorRT version:\s*v?(?P<version>\d{1,4}(?:\.\d{1,6}){0,3})\b")
_HEADER = re.compile(r"===+ (?P<title>[^=].*?) ===+$")
_PROFILE_TITLE = re.compile(r"Profile\s*\((?P<count>\d{1,15})\s+iterations?\s*\)", re.IGNORECASE)
_KV_NO_SPACE = re.compile(r"(?P<key>[^:\s][^:]{0,79}):(?!//)(?P<value>\S.*)$")
_PERCENTILE = re.compile(r"percentile\s*\(\s*(?P<p>[\d.]+)\s*%\s*\)", re.IGNORECASE)
_ECC = re.compile(r"ECC\s+(?P<state>enabled|disabled)", re.IGNORECASE)
# Lines that name the engine's I/O tensors: trtexec's bindings (8.2: "Created input binding for
# x with ...", 8.6+: "Input binding for x with ...") and the ONNX parser's verbose lines.
_BINDING = re.compile(r"^(?:Created )?(?P<mode>[Ii]nput|[Oo]utput) binding for (?P<name>.+?) "
                      r"with dimensions\b")
_NETWORK_INPUT = re.compile(r"^Adding network input: (?P<name>.+?) with dtype\b")
_MARKED_OUTPUT = re.compile(r"^Marking .+ as output: (?P<name>.+?)\s*$")

_SKIPPED_SECTIONS = {"trace_details", "explanations_of_the_performance_metrics"}
_FLOAT_VALUES = {"Throughput"}
_SECONDS_VALUES = {"Total Host Walltime", "Total GPU Compute Time"}
_CLOCKS = {
    "Compute Clock Rate", "Memory Clock Rate",
    "Application Compute Clock Rate", "Application Memory Clock Rate",
}
@dataclass
class TrtexecLog:
    """Everything read from one trtexec log; ``warnings`` lists this reader's findings."""

    source: str = ""
    version: str | None = None
    command: str | None = None
    metadata: Metadata = field(default_factory=Metadata)
    device: DeviceInfo | None = None
    profile_runs: list[ProfileRun] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    log_warnings: list[str] = field(default_factory=list)  # the log's own [W]/[E]/[F] lines
    inputs: list[str] = field(default_factory=list)  # I/O tensors the log names (bindings, or
    outputs: list[str] = field(default_factory=list)  # the parser's network inputs and outputs)


def looks_like_trtexec_log(text: str) -> bool:
    """True if the text has a trtexec banner or ``[I]``-style log lines near its start."""
    if not isinstance(text, str):
        return False
    return _SNIFF.search(text, 0, _SNIFF_LIMIT) is not None


def parse_trtexec_log(text: str, source: str = "") -> TrtexecLog:
    """Parse the text of a trtexec log; unknown or garbled lines are skipped."""
    if not isinstance(text, str):
        raise InputError(source or None, f"expected log text, got {type(text).__name__}")
    parser = TrtexecLogParser(str(source))
    for line in unix_newlines(text).split("\n"):
        parser.feed(line)
    return parser.finish()


def read_trtexec_log(path: str | os.PathLike[str]) -> TrtexecLog:
    """Read and parse a trtexec log file; InputError names the file if it is not one."""
    try:
        source = os.fspath(path)
    except TypeError:
        raise InputError(None, f"expected a file path, got {type(path).__name__}") from None
    warnings: list[str] = []
    parser = TrtexecLogParser(source)
    head: list[str] = []
    size = 0
    for line in iter_lines(source, warnings):  # read as it is parsed: memory is the records'
        if size < _SNIFF_LIMIT:
            head.append(line)
            size += len(line) + 1
        parser.feed(line)
    if not looks_like_trtexec_log("\n".join(head)):
        raise InputError(source, "not a trtexec log (no '&&&& RUNNING TensorRT.trtexec' banner "
                                 "and no '[I]' log lines)")
    log = parser.finish()
    log.warnings[:0] = warnings
    return log


class _Table:
    """State of one ``--dumpProfile`` table while its rows are read."""

    def __init__(self, count: int | None):
        self.count = count
        self.records: list[ProfileRecord] = []
        self.columns: list[str] | None = None  # field per numeric column, in order
        self.name_last = False
        self.row: re.Pattern[str] | None = None
        self.total: list[float] | None = None
        self.skipped = 0

    def set_header(self, header: str) -> bool:
        """Read the column header (8.2: name first; 8.4+/10.x: name last); False if not one."""
        words = header.split()
        if not words or "Layer" not in (words[0], words[-1]):
            return False
        self.name_last = words[-1] == "Layer" and words[0] != "Layer"
        titles = header.replace("Layer", " ").strip()
        columns = [_column(t) for t in re.split(r"\s{2,}", titles) if t]
        if "time_ms" not in columns or "avg_ms" not in columns:
            columns = (["time_ms", "avg_ms", "median_ms", "percentage"] if self.name_last
                       else ["time_ms", "avg_ms", "percentage"])
        self.columns = columns
        nums = r"\s+".join(f"({_NUM})" for _ in columns)
        if self.name_last:
            self.row = re.compile(rf"\s*{nums}[ \t]{{1,3}}(?P<name>.*)$")
        else:
            self.row = re.compile(rf"(?P<name>.*\S)\s+{nums}\s*$")
        return True

    def add_row(self, content: str) -> bool | None:
        """Add one row; True after the Total row, None if the line is not a row."""
        match = self.row.match(content) if self.row else None
        if match is None:
            return None
        groups = match.groups()
        numbers = groups[:-1] if self.name_last else groups[1:]
        values = dict(zip(self.columns or [], map(float, numbers), strict=True))
        name = match["name"] if self.name_last else match["name"].lstrip()
        if name.strip() == "Total":
            self.total = [values.get("time_ms", math.nan), values.get("avg_ms", math.nan)]
            return True
        if not name:
            self.skipped += 1
            return False
        self.records.append(ProfileRecord(
            name, values.get("time_ms", math.nan), values.get("avg_ms", math.nan),
            values.get("median_ms"), values.get("percentage"),
        ))
        return False

    def check(self, warnings: list[str]) -> None:
        where = f"profile table ({self.count} iterations)" if self.count else "profile table"
        if self.skipped:
            warnings.append(f"{where}: skipped {self.skipped} rows without a layer name")
        if self.total is None:
            warnings.append(f"{where}: no Total row (log truncated?); kept "
                            f"{len(self.records)} rows")
            return
        total = self.total[0]
        summed = math.fsum(r.time_ms for r in self.records)
        tolerance = max(0.006 * len(self.records) + 0.01, 1e-3 * abs(total))
        if math.isfinite(total) and math.isfinite(summed) and abs(summed - total) > tolerance:
            warnings.append(f"{where}: layer times sum to {summed:.2f} ms but the Total row "
                            f"says {total:.2f} ms")


def _column(title: str) -> str:
    title = title.lower()
    if "median" in title:
        return "median_ms"
    if "avg" in title or "average" in title or "mean" in title:
        return "avg_ms"
    if "%" in title or "percent" in title:
        return "percentage"
    if "time" in title:
        return "time_ms"
    return "unknown"


class TrtexecLogParser:
    """Line-by-line state machine behind parse_trtexec_log: ``feed`` each line, then ``finish``."""

    def __init__(self, source: str):
        self.source = source
        self.banner_version: str | None = None
        self.line_version: str | None = None
        self.command: str | None = None
        self.sections: dict[str, dict[str, Any]] = {}
        self.current: dict[str, Any] | None = None
        self.table: _Table | None = None
        self.runs: list[ProfileRun] = []
        self.warnings: list[str] = []
        self.log_warnings: list[str] = []
        self.io: dict[str, dict[str, None]] = {"input": {}, "output": {}}

    def feed(self, line: str) -> None:
        """Read one line of the log."""
        if line.startswith("&&&&"):
            self._banner(line)
            return
        parsed = split_log_line(line)
        if parsed is None:  # unprefixed text (layer lists, tool output): neither entry nor end
            return
        severity, from_tensorrt, content = parsed
        if "binding for" in content or "network input" in content or "as output:" in content:
            self._io_line(content.strip())
        if severity != "I":
            if severity in "WEF":
                tag = " [TRT]" if from_tensorrt else ""
                self.log_warnings.append(f"[{severity}]{tag} {content}")
            return
        if from_tensorrt:
            return
        if self.table is not None:
            if self._table_line(content):
                return
        stripped = content.strip()
        header = _HEADER.match(stripped)
        if header:
            self._open(header["title"])
            return
        if self.current is not None:
            entry = _split_entry(stripped)
            if entry is not None:
                self.current[entry[0]] = entry[1]
                if entry[0] == "TensorRT version":
                    self._version_line(stripped)
                return
            self.current = None
        if stripped.startswith("TensorRT version"):
            self._version_line(stripped)

    def _io_line(self, text: str) -> None:
        """Record an I/O tensor the line names (a binding, a network input or a marked output)."""
        match = _BINDING.match(text)
        if match:
            self.io[match["mode"].lower()][match["name"]] = None
            return
        match = _NETWORK_INPUT.match(text)
        if match:
            self.io["input"][match["name"]] = None
            return
        match = _MARKED_OUTPUT.match(text)
        if match:
            self.io["output"][match["name"]] = None

    def _banner(self, line: str) -> None:
        self._close()
        match = _BANNER.match(line.strip())
        if match is None:
            return
        code = _BANNER_VERSION.search(match["rest"])
        if code and self.banner_version is None:
            self.banner_version = _version_from_code(code["code"])
        command = (match["command"] or "").strip() or None
        if command and self.command is None:  # RUNNING comes first; PASSED if the top is cut
            self.command = command

    def _version_line(self, text: str) -> None:
        match = _VERSION_LINE.match(text)
        if match:
            self.line_version = match["version"]

    def _open(self, title: str) -> None:
        self._close()
        profile = _PROFILE_TITLE.fullmatch(title.strip())
        if profile:
            self.table = _Table(int(profile["count"]))
            return
        if title.strip().lower() == "profile":
            self.table = _Table(None)
            return
        key = re.sub(r"[^0-9a-z]+", "_", title.lower()).strip("_") or "section"
        if key in _SKIPPED_SECTIONS:
            self.current = {}
            return
        if key in self.sections:
            self.warnings.append(f"section '{title}' appears again; the later one is kept")
        self.current = self.sections[key] = {}

    def _close(self) -> None:
        self.current = None
        if self.table is not None:
            self._end_table()

    def _table_line(self, content: str) -> bool:
        """Feed an info line to the open table; False if the table ended before this line."""
        table = self.table
        assert table is not None
        if table.columns is None:
            if table.set_header(content.strip()):
                return True
            self.warnings.append("profile table without a column header; ignored")
            self.table = None
            return False
        done = table.add_row(content)
        if done is None:
            self._end_table()
            return False
        if done:
            self._end_table()
        return True

    def _end_table(self) -> None:
        table, self.table = self.table, None
        if table is None or table.columns is None:
            return
        table.check(self.warnings)
        self.runs.append(ProfileRun(table.records, table.count, self.source))

    def finish(self) -> TrtexecLog:
        """The log's options, device, performance summary and profile tables."""
        self._close()
        sections = self.sections
        device: DeviceInfo | None = None
        if "performance_summary" in sections:
            _convert_performance(sections["performance_summary"], self.warnings)
        if "device_information" in sections:
            device = _convert_device(sections["device_information"], self.warnings)
        version = self.line_version or self.banner_version
        if self.line_version and self.banner_version and not _same_version(
                self.line_version, self.banner_version):
            self.warnings.append(f"banner says TensorRT {self.banner_version} but the log says "
                                 f"TensorRT version: {self.line_version}; using the latter")
        metadata = Metadata(sections, device, self.source, list(self.warnings))
        return TrtexecLog(self.source, version, self.command, metadata, device, self.runs,
                          self.warnings, self.log_warnings, list(self.io["input"]),
                          list(self.io["output"]))


def _split_entry(text: str) -> tuple[str, str] | None:
    """Split ``key: value`` at the first ``": "``; None for lines that are not entries."""
    index = text.find(": ")
    if index > 0:
        return text[:index].strip(), text[index + 2:].strip()
    if text.endswith(":") and len(text) > 1:
        return text[:-1].strip(), ""
    match = _KV_NO_SPACE.match(text)  # "Dump refittable layers:Disabled"
    if match:
        return match["key"].strip(), match["value"].strip()
    return None


def _version_from_code(code: str) -> str | None:
    """``8204`` -> ``8.2.4``, ``101601`` -> ``10.16.1`` (NV_TENSORRT_VERSION encodings)."""
    number = int(code)
    if len(code) >= 6:
        major, minor, patch = number // 10000, number // 100 % 100, number % 100
    elif len(code) >= 4:
        major, minor, patch = number // 1000, number // 100 % 10, number % 100
    else:
        major, minor, patch = number // 100, number // 10 % 10, number % 10
    return f"{major}.{minor}.{patch}"


def _same_version(a: str, b: str) -> bool:
    return a.split(".")[:3] == b.split(".")[:3]


def _stats(value: str) -> tuple[list[float], dict[str, float]] | None:
    """``min = 1 ms, ..., percentile(99%) = 3 ms`` -> ([min, max, mean, median, p...], named)."""
    if "=" not in value:
        return None
    named: dict[str, float] = {}
    percentiles: list[str] = []
    for part in value.split(","):  # split first: a single regex over the line can go quadratic
        name, _, number = part.partition("=")
        name = name.strip()
        match = NUMBER_UNIT.fullmatch(number.strip())
        if match is None:
            continue
        unit = (match["unit"] or "ms").lower()
        if not name or unit not in TO_MS:
            continue
        pct = _PERCENTILE.fullmatch(name)
        if pct:
            name = f"p{pct['p']}"
            percentiles.append(name)
        else:
            name = name.lower()
        named[name] = float(match["num"]) * TO_MS[unit]
    ordered = [named[k] for k in ("min", "max", "mean", "median") if k in named]
    ordered += [named[k] for k in dict.fromkeys(percentiles)]
    return (ordered, named) if ordered else None


def _convert_performance(summary: dict[str, Any], warnings: list[str]) -> None:
    """Convert the performance summary in place to TREx's shapes and add ``percentiles``."""
    named_stats: dict[str, dict[str, float]] = {}
    for key, value in list(summary.items()):
        if not isinstance(value, str):
            continue
        if key in _FLOAT_VALUES or key in _SECONDS_VALUES:
            parsed = number_unit(value)
            if parsed is None:
                warnings.append(f"performance summary: cannot read {key}: {cap_line(value, 200)!r}")
                continue
            number, unit = parsed
            summary[key] = number * TO_S.get(unit, 1.0) if key in _SECONDS_VALUES else number
            continue
        stats = _stats(value)
        if stats is not None:
            summary[key], named_stats[key] = stats
    if named_stats:
        summary["percentiles"] = named_stats


def _convert_device(info: dict[str, Any], warnings: list[str]) -> DeviceInfo:
    """Convert device figures in place (as TREx) and return them as a DeviceInfo."""
    raw = dict(info)
    for key in ("Compute Capability", "SMs", "Memory Bus Width", *_CLOCKS):
        value = info.get(key)
        if not isinstance(value, str):
            continue
        parsed = number_unit(value)
        if parsed is None:
            warnings.append(f"device information: cannot read {key}: {cap_line(value, 200)!r}")
            continue
        number, unit = parsed
        info[key] = number * TO_GHZ.get(unit, 1.0) if key in _CLOCKS else number

    def num(*keys: str) -> float | None:
        for key in keys:
            value = info.get(key)
            if isinstance(value, float) and math.isfinite(value):
                return value
        return None

    def integer(*keys: str) -> int | None:
        value = num(*keys)
        return int(value) if value is not None else None

    ecc = _ECC.search(str(raw.get("Memory Bus Width", "")))
    name = raw.get("Selected Device")
    return DeviceInfo(
        name=name if isinstance(name, str) and name else None,
        compute_capability=num("Compute Capability"),
        sms=integer("SMs"),
        compute_clock_ghz=num("Compute Clock Rate", "Application Compute Clock Rate"),
        memory_clock_ghz=num("Memory Clock Rate", "Application Memory Clock Rate"),
        global_memory_bytes=to_bytes(raw.get("Device Global Memory")),
        shared_memory_per_sm_bytes=to_bytes(raw.get("Shared Memory per SM")),
        memory_bus_width_bits=integer("Memory Bus Width"),
        ecc_enabled=None if ecc is None else ecc["state"].lower() == "enabled",
    )
