"""The list of readers: which one a file belongs to is decided by its content, never its name.

Each reader owns ``match(head)`` (does the first 64 KiB look like its format?) and ``read(path)``
(the whole file as a plain record of the type it declares). :func:`detect_kind`, folder
discovery, ``.tea`` archives and the plan loader all go through this one list, in this order; the
first reader that matches wins. A reader's kind names its format, not what the file is to an
engine: :mod:`.roles` says which kinds fill which role, so two formats can fill one role.
:class:`InputCache` makes every file be read at most once while one plan is loaded.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ..errors import InputError
from . import export_times, layer_info, log, metadata, profile, tuning_cache
from .records import LayerInfo, Metadata, Profile, Timings
from .text import Head, read_head

ARCHIVE = "archive"
ENGINE = "engine"
TREX_OUTPUT = "trex_output"
LAYER_INFO = layer_info.KIND
PROFILE = profile.KIND
TIMINGS = export_times.KIND
PROFILE_METADATA = metadata.PROFILE_METADATA
BUILD_METADATA = metadata.BUILD_METADATA
DEVICE_METADATA = metadata.DEVICE_METADATA
TUNING_CACHE = tuning_cache.KIND
LOG = log.KIND
UNKNOWN = "unknown"
T = TypeVar("T")


@dataclass(frozen=True)
class Reader:
    """One input format: its kind, what it is, how to recognise it, how to read it and the type
    of record it reads (what the plan loader asks for: ``LayerInfo``, ``Profile``...)."""

    kind: str
    description: str
    match: Callable[[Head], bool]
    read: Callable[[str], Any]
    record: type[Any] = object


def _read_archive(path: str) -> Any:
    from .archive import open_archive

    return open_archive(path)


# A trace ``trex timeline`` wrote: its first key says so (trex.timeline.chrome_trace).
_TREX_TRACE = re.compile(r'\A\ufeff?\s*\{\s*"otherData"\s*:\s*\{\s*"generator"\s*:\s*"trex"')


def _is_trex_output(head: Head) -> bool:
    return _TREX_TRACE.match(head.text) is not None


def _read_trex_output(path: str) -> Any:
    raise InputError(path, "is a trace trex wrote (trex timeline), not a TensorRT export")


def _read_engine(path: str) -> Any:
    raise InputError(path, "is a binary file (a serialized engine?): trex reads what trtexec "
                           "exports for it (--exportLayerInfo, --exportProfile, logs)")


READERS: tuple[Reader, ...] = (
    Reader(ARCHIVE, "trex engine archive (.tea, a zip)", lambda h: h.data.startswith(b"PK\x03\x04"),
           _read_archive),
    Reader(ENGINE, "binary file (a serialized engine)", lambda h: h.binary, _read_engine),
    Reader(TREX_OUTPUT, "a trace trex timeline wrote", _is_trex_output, _read_trex_output),
    Reader(TUNING_CACHE, "trtexec build-route tuning cache (JSON Lines, TensorRT 11.1+)",
           tuning_cache.match, tuning_cache.read, tuning_cache.TuningCache),
    Reader(PROFILE_METADATA, "profile metadata JSON (performance summary, device)",
           metadata.match_profile_metadata, metadata.read_metadata, Metadata),
    Reader(BUILD_METADATA, "build metadata JSON (model and build options)",
           metadata.match_build_metadata, metadata.read_metadata, Metadata),
    Reader(DEVICE_METADATA, "device attributes JSON", metadata.match_device_metadata,
           metadata.read_metadata, Metadata),
    Reader(LAYER_INFO, "layer information JSON (--exportLayerInfo, IEngineInspector)",
           layer_info.match, layer_info.read_layer_info, LayerInfo),
    Reader(PROFILE, "per-layer profile JSON (--exportProfile, Chrome trace)", profile.match,
           profile.read_profile, Profile),
    Reader(TIMINGS, "per-iteration timings JSON (--exportTimes)", export_times.match,
           export_times.read_timings, Timings),
    Reader(LOG, "TensorRT text log (trtexec, builder, --dumpLayerInfo, --dumpProfile)", log.match,
           log.read, log.LogRecord),
)


def reader_for(head: Head) -> Reader | None:
    """The first reader whose ``match`` accepts this head, or None."""
    for reader in READERS:
        if reader.match(head):
            return reader
    return None


def detect_kind(path: str | os.PathLike[str]) -> str:
    """The kind of input a file holds (a reader's kind, or ``"unknown"``), from its first 64 KiB."""
    if not Path(path).is_file():
        raise InputError(path, "file not found" if not Path(path).exists() else
                         "is not a regular file")
    reader = reader_for(read_head(path))
    return reader.kind if reader else UNKNOWN


def reader_of(kind: str) -> Reader | None:
    """The reader of a kind, or None (``"unknown"``)."""
    return next((reader for reader in READERS if reader.kind == kind), None)


def kinds_reading(record_type: type[Any]) -> tuple[str, ...]:
    """The kinds whose reader reads a ``record_type`` (every format that gives a ``Profile``...)."""
    return tuple(r.kind for r in READERS
                 if r.record is not object and issubclass(r.record, record_type))


def describe(kind: str) -> str:
    """What a kind of input is, in words."""
    reader = reader_of(kind)
    return reader.description if reader else "a file trex does not recognise"


class InputCache:
    """Kinds and records of files, each file recognised and read at most once."""

    def __init__(self) -> None:
        self._kinds: dict[str, str] = {}
        self._records: dict[str, Any] = {}

    @staticmethod
    def _key(path: str | os.PathLike[str]) -> str:
        return os.path.abspath(os.fspath(path))

    def kind(self, path: str | os.PathLike[str]) -> str:
        """:func:`detect_kind`, remembered."""
        key = self._key(path)
        if key not in self._kinds:
            self._kinds[key] = detect_kind(path)
        return self._kinds[key]

    def read(self, path: str | os.PathLike[str]) -> Any:
        """The record of the reader of this file's kind; InputError for unknown files."""
        key = self._key(path)
        if key not in self._records:
            kind = self.kind(path)
            reader = reader_of(kind)
            if reader is None:
                raise InputError(path, "not a TensorRT export trex recognises (layer information, "
                                       "profile, timings, metadata JSON or a trtexec log)"
                                 + (": the file is empty" if _empty(path) else ""))
            self._records[key] = reader.read(os.fspath(path))
        return self._records[key]


    def read_as(self, path: str | os.PathLike[str], record_type: type[T]) -> T:
        """:meth:`read`, checked to be a ``record_type`` (what the file's kind promises)."""
        record = self.read(path)
        if not isinstance(record, record_type):  # pragma: no cover - a reader broke its promise
            raise InputError(path, f"read as {type(record).__name__}, not {record_type.__name__}")
        return record


def _empty(path: str | os.PathLike[str]) -> bool:
    try:
        return Path(path).stat().st_size == 0
    except OSError:
        return False
