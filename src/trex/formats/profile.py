"""Reader of per-layer profiles: ``--exportProfile`` JSON, Chrome traces and ``--dumpProfile`` logs.

A file may hold several JSON documents back to back (one per run); each becomes a ProfileRun.
"""

from __future__ import annotations

import math
import os
import re
import statistics
from operator import attrgetter
from typing import Any

import msgspec
import numpy as np

from ..errors import InputError
from .jsonio import fast_parser_takes, loads_documents, looks_like_json, parse_big_document
from .layer_info import clean_name
from .records import Profile, ProfileRecord, ProfileRun
from .text import Head, decode, read_bytes

KIND = "profile"
_KEYS = re.compile(r'"ph"\s*:|"timeMs"\s*:|"averageMs"\s*:|^\s*\[\s*\{\s*"count"\s*:')


def match(head: Head) -> bool:
    """A per-layer profile: ``--exportProfile`` JSON or a Chrome trace."""
    return looks_like_json(head.text) and _KEYS.search(head.text) is not None


def read_profile(path: str | os.PathLike[str]) -> Profile:
    """Read a per-layer profile from JSON (trtexec, Torch-TensorRT, Chrome trace) or a log."""
    source = os.fspath(path)
    warnings: list[str] = []
    data = read_bytes(path)
    typed = _typed_run(data, source)
    if typed is not None:  # the usual file, decoded typed in C
        return Profile([typed], source, [])
    doc = parse_big_document(data)
    if doc is not None:
        return profile_from_json([doc], source)
    text = decode(data, path, warnings)
    if looks_like_json(text):
        profile = profile_from_json(loads_documents(text, source, fast=not fast_parser_takes(data)), source)
        profile.warnings[:0] = warnings
        return profile
    from .log import parse

    log = parse(text, source, warnings)
    if log.profile is None:
        raise InputError(source, "no per-layer profile table (--dumpProfile) in this log")
    return Profile(log.profile.runs, source, log.warnings)


def is_profile_json(doc: Any) -> bool:
    """True if a parsed JSON document is a per-layer profile or a Chrome trace."""
    if not isinstance(doc, list) or not doc or not isinstance(doc[0], dict):
        return False
    first = doc[0]
    if set(first) == {"count"}:
        return True
    return ("name" in first and ("timeMs" in first or "averageMs" in first)) or _is_trace(doc)


def profile_from_json(docs: list[Any], source: str = "") -> Profile:
    """Turn parsed JSON documents into profile runs (one per document)."""
    runs: list[ProfileRun] = []
    warnings: list[str] = []
    for index, doc in enumerate(docs):
        if not is_profile_json(doc):
            raise InputError(source, f"document {index + 1} is not a per-layer profile "
                                     "(expected a list of {name, timeMs, averageMs} records)")
        run = _trace_run(doc, source) if _is_trace(doc) else _records_run(doc, source, warnings)
        runs.append(run)
    return Profile(runs, source, warnings)


def _records_run(doc: list[Any], source: str, warnings: list[str]) -> ProfileRun:
    count: int | None = None
    records: list[ProfileRecord] = []
    bad = 0
    for item in doc:
        if not isinstance(item, dict):
            bad += 1
            continue
        if "count" in item and "name" not in item:
            found = _number(item.get("count"))
            count = int(found) if found is not None and math.isfinite(found) and found >= 0 else None
            continue
        name = item.get("name")
        time_ms = _number(item.get("timeMs"))
        avg_ms = _number(item.get("averageMs"))
        if not isinstance(name, str) or (time_ms is None and avg_ms is None):
            bad += 1
            continue
        if avg_ms is None:
            avg_ms = time_ms / count if count and time_ms is not None else math.nan
        if time_ms is None:
            time_ms = avg_ms * count if count else math.nan
        records.append(ProfileRecord(
            clean_name(name), time_ms, avg_ms,
            _number(item.get("medianMs")), _number(item.get("percentage")),
        ))
    if bad:
        warnings.append(f"{source}: {bad} profile entries without a name and times were skipped")
    return ProfileRun(records, count, source)


class _Row(ProfileRecord):
    """A row as ``--exportProfile`` writes it: the leading ``{"count": N}`` is a row too."""

    name: str = ""
    time_ms: float = math.nan
    avg_ms: float = math.nan
    count: float | None = None


_ROWS = msgspec.json.Decoder(list[_Row])


def _typed_run(data: bytes, source: str) -> ProfileRun | None:
    """The run of a plain ``--exportProfile`` file ({"count": N} then rows that each have a name,
    timeMs and averageMs), decoded typed; None for anything else (the tolerant path reads it)."""
    if data[:1] != b"[":
        return None
    try:
        rows = _ROWS.decode(data)
    except (msgspec.MsgspecError, ValueError, RecursionError):
        return None
    count = None
    if rows and rows[0].count is not None and not rows[0].name:
        found = rows.pop(0).count
        count = int(found) if found is not None and math.isfinite(found) and found >= 0 else None
    # every row checked at once (in C): an odd row sends the file to the tolerant path, which
    # says what it skips
    n = len(rows)
    names = list(map(attrgetter("name"), rows))
    if list(map(attrgetter("count"), rows)).count(None) != n or "" in names:
        return None
    times = np.fromiter(map(attrgetter("time_ms"), rows), dtype=np.float64, count=n)
    averages = np.fromiter(map(attrgetter("avg_ms"), rows), dtype=np.float64, count=n)
    if np.isnan(times).any() or np.isnan(averages).any():
        return None
    joined = "".join(names)
    if "\x1e" in joined or "\x1f" in joined:
        for row in rows:
            if "\x1e" in row.name or "\x1f" in row.name:
                row.name = clean_name(row.name)
    return ProfileRun(list(rows), count, source)


def _is_trace(doc: list[Any]) -> bool:
    first = doc[0] if doc else None
    return isinstance(first, dict) and "ph" in first and "dur" in first and "name" in first


def _trace_run(doc: list[Any], source: str) -> ProfileRun:
    """Aggregate Chrome-trace complete events (durations in µs) into one record per layer."""
    durations: dict[str, list[float]] = {}
    for event in doc:
        if not isinstance(event, dict) or event.get("ph") != "X":
            continue
        dur = _number(event.get("dur"))
        name = event.get("name")
        if isinstance(name, str) and dur is not None:
            durations.setdefault(clean_name(name), []).append(dur / 1000.0)
    total = sum(sum(d) for d in durations.values())
    iterations = max((len(d) for d in durations.values()), default=0)
    records = [
        ProfileRecord(
            name, sum(d), sum(d) / len(d), statistics.median(d),
            100.0 * sum(d) / total if total else 0.0,
        )
        for name, d in durations.items()
    ]
    return ProfileRun(records, iterations or None, source)


def _number(value: Any) -> float | None:
    if type(value) is float:  # the usual case
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        return float(value)
    except (ValueError, OverflowError):  # "abc", an integer beyond float range
        return None
