"""Recognise what an input file is from its content (real files are named .log, .txt, .trace ...)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..errors import InputError
from .jsonio import looks_like_json

LAYER_INFO = "layer_info"
PROFILE = "profile"
TIMINGS = "timings"
PROFILE_METADATA = "profile_metadata"
BUILD_METADATA = "build_metadata"
DEVICE_METADATA = "device_metadata"
LOG = "log"
ARCHIVE = "archive"
ENGINE = "engine"
UNKNOWN = "unknown"

_HEAD_BYTES = 65536
# Order matters: the first pattern found in the head of a JSON file decides its kind.
_JSON_PATTERNS = [
    (re.compile(r'"performance_summary"|"inference_options"'), PROFILE_METADATA),
    (re.compile(r'"model_options"|"build_options"'), BUILD_METADATA),
    (re.compile(r'"device_information"'), PROFILE_METADATA),
    (re.compile(r'"ComputeCapability"|"MULTIPROCESSOR_COUNT"'), DEVICE_METADATA),
    (re.compile(r'"Layers"\s*:|"I/O Tensors"\s*:|"LayerType"\s*:'), LAYER_INFO),
    (re.compile(r'"ph"\s*:|"timeMs"\s*:|"averageMs"\s*:|^\s*\[\s*\{\s*"count"\s*:'), PROFILE),
    (re.compile(r'"latencyMs"|"startEnqMs"|"endToEndMs"|"computeMs"'), TIMINGS),
]
_LAYER_LINE = re.compile(r"^(?:\[[^\]]*\]\s*)*Name: .*, LayerType: ", re.MULTILINE)
_LOG_MARKERS = re.compile(r"=== [A-Z][A-Za-z ]+ ===|&&&& RUNNING|\] \[[IWEV]\] |^\[[IWEV]\] ",
                          re.MULTILINE)


def detect_kind(path: str | os.PathLike) -> str:
    """Return the kind of input a file holds, reading only its first 64 KiB."""
    p = Path(path)
    if not p.is_file():
        raise InputError(path, "file not found")
    try:
        with open(p, "rb") as fh:
            head = fh.read(_HEAD_BYTES)
    except OSError as exc:
        raise InputError(path, f"cannot read file ({exc.strerror or exc})") from None
    if head.startswith(b"PK\x03\x04"):
        return ARCHIVE
    if b"\x00" in head[:4096]:
        return ENGINE
    text = head.decode("utf-8", errors="replace")
    return kind_of_text(text)


def kind_of_text(text: str) -> str:
    """Classify the beginning of a file's text."""
    if looks_like_json(text):
        for pattern, kind in _JSON_PATTERNS:
            if pattern.search(text):
                return kind
        return UNKNOWN
    if _LAYER_LINE.search(text):
        return LAYER_INFO
    if _LOG_MARKERS.search(text):
        return LOG
    return UNKNOWN
