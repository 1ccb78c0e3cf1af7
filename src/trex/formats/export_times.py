"""Reader of per-iteration timings (``trtexec --exportTimes``), 7.x and 8.x+ keys alike."""

from __future__ import annotations

import os
import re
from typing import Any

from ..errors import InputError
from .jsonio import loads_documents, looks_like_json
from .records import Timings
from .text import Head, read_text

KIND = "timings"
# Keys that identify a timing record: 8.x+ (H2D/compute/D2H) and 7.x (in/out, endToEnd).
TIMING_KEYS = {"latencyMs", "computeMs", "startEnqMs", "endToEndMs", "startComputeMs"}
_KEYS = re.compile(r'"(?:latencyMs|startEnqMs|endToEndMs|computeMs)"\s*:')


def match(head: Head) -> bool:
    """``--exportTimes`` JSON (8.x+ or 7.x keys)."""
    return looks_like_json(head.text) and _KEYS.search(head.text) is not None


def read_timings(path: str | os.PathLike[str]) -> Timings:
    """Read an ``--exportTimes`` JSON file; every field of every record is kept."""
    source = os.fspath(path)
    text = read_text(path)
    if not looks_like_json(text):
        raise InputError(source, "not a timing file (expected --exportTimes JSON)")
    return timings_from_json(loads_documents(text, source), source)


def is_timings_json(doc: Any) -> bool:
    """True if a parsed JSON document is a list of per-iteration timing records."""
    return (
        isinstance(doc, list)
        and bool(doc)
        and isinstance(doc[0], dict)
        and bool(TIMING_KEYS & set(doc[0]))
    )


def timings_from_json(docs: list[Any], source: str = "") -> Timings:
    """Keep the numeric fields of each record of each document."""
    runs = []
    for index, doc in enumerate(docs):
        if not is_timings_json(doc):
            raise InputError(source, f"document {index + 1} is not a list of timing records")
        runs.append([_numbers(rec) for rec in doc if isinstance(rec, dict)])
    return Timings(runs, source)


def _numbers(record: dict[str, Any]) -> dict[str, float]:
    """The record's numeric fields as floats (integers beyond float range are dropped)."""
    out = {}
    for key, value in record.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            try:
                out[key] = float(value)
            except OverflowError:
                continue
    return out
