"""A toy export format, written as a real reader module is, for tests/test_roles.py: adding a
format must be this module plus one row of the file-role table (trex.formats.roles).

Two formats live here, each with its kind, ``match`` (by content) and ``read``:

- a memory report (``{"toyMemoryReport": 1, "peakBytes": N}``), a new role of its own;
- a per-layer profile as CSV (``layer,avg_ms`` then one line per layer), a second format for the
  existing profile role: it reads the same ``Profile`` record as ``--exportProfile`` JSON.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from trex.errors import InputError
from trex.formats.readers import Reader
from trex.formats.records import Profile, ProfileRecord, ProfileRun
from trex.formats.text import Head, read_text

MEMORY_KIND = "toy_memory_report"
CSV_PROFILE_KIND = "toy_csv_profile"
_MEMORY_KEY = '{"toyMemoryReport"'
_CSV_HEADER = "layer,avg_ms"


@dataclass
class MemoryReport:
    """The record of a memory report: the engine's peak device memory."""

    peak_bytes: int
    source: str


def match_memory(head: Head) -> bool:
    """A memory report starts with its own key."""
    return head.text.lstrip("\ufeff \t\r\n").startswith(_MEMORY_KEY)


def read_memory(path: str | os.PathLike[str]) -> MemoryReport:
    """The report's peak bytes; a report without them is bad input naming the file."""
    try:
        data = json.loads(read_text(path))
        return MemoryReport(int(data["peakBytes"]), os.fspath(path))
    except (ValueError, KeyError, TypeError):
        raise InputError(path, "not a toy memory report (no peakBytes)") from None


def match_csv_profile(head: Head) -> bool:
    """A CSV profile starts with its header line."""
    return head.text.lstrip("\ufeff").startswith(_CSV_HEADER + "\n")


def read_csv_profile(path: str | os.PathLike[str]) -> Profile:
    """One run of per-layer average times (ms), as the profile role's record."""
    source = os.fspath(path)
    records = []
    for line in read_text(path).splitlines()[1:]:
        name, _, ms = line.rpartition(",")
        if name:
            records.append(ProfileRecord(name, float(ms), float(ms)))
    return Profile([ProfileRun(records, None, source)], source)


MEMORY_READER = Reader(MEMORY_KIND, "toy memory report JSON", match_memory, read_memory,
                       MemoryReport)
CSV_PROFILE_READER = Reader(CSV_PROFILE_KIND, "toy per-layer profile CSV", match_csv_profile,
                            read_csv_profile, Profile)


def csv_profile_text(profile: Profile) -> str:
    """A CSV profile holding the first run of ``profile`` (to compare the two formats)."""
    lines = [_CSV_HEADER, *(f"{r.name},{r.avg_ms!r}" for r in profile.runs[0].records)]
    return "\n".join(lines) + "\n"
