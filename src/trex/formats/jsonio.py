"""Lenient JSON reading for TensorRT exports.

trtexec writes names without escaping, so a quote, backslash or control character inside a layer
name can make a file invalid JSON; scripts also append several documents to one file. These
helpers read such files anyway, or fail with the file name and the position of the problem.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from ..errors import InputError

_DECODER = json.JSONDecoder(strict=False)
_VALID_ESCAPES = set('"\\/bfnrtu')
_CLOSERS = set(",:}]")


def loads_documents(text: str, source: str = "", fast: bool = True) -> list[Any]:
    """Parse one or more JSON documents written back to back; repair unescaped strings if needed.

    ``fast=False`` skips the strict parser on the text as it is (it already refused the bytes)."""
    try:
        return _documents(text, fast)
    except json.JSONDecodeError as first_error:
        repaired = repair_strings(text)
        if repaired != text:
            try:
                return _documents(repaired)
            except json.JSONDecodeError:
                pass
        raise InputError(
            source or None,
            f"invalid JSON at line {first_error.lineno} column {first_error.colno}: "
            f"{first_error.msg}",
        ) from None


def parse_big_document(data: bytes) -> Any | None:
    """A big file's bytes parsed as one strict JSON document straight from UTF-8 (orjson), with
    no decoded copy of the text; None for anything else, which the lenient text path reads."""
    if _FAST is None or not fast_parser_takes(data):
        return None
    try:
        return _FAST(data)
    except (ValueError, RecursionError):  # not UTF-8, several documents, NaN, a log, ...
        return None


def fast_parser_takes(data: bytes) -> bool:
    """Whether :func:`parse_big_document` tries these bytes (big, plain UTF-8 JSON, orjson here)."""
    return _FAST is not None and len(data) > 1 << 16 and data[:1] in (b"{", b"[")


def looks_like_json(text: str) -> bool:
    """True when the text starts like a JSON object or array."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped[:1] == "{":
        return True
    # "[TensorRT] ..." or "[05/26/2022-18:09:28] [I]" start logs, not JSON arrays.
    return bool(re.match(r"\[\s*(?:[\[{\"\]]|-?[\d.eE+-]+\s*[,\]]|true|false|null)", stripped))


def _fast_parser() -> Callable[[str | bytes], Any] | None:
    """orjson's ``loads`` when installed (``trex-explorer[fast]``): about twice as fast on big
    layer files, but strict, so anything it refuses is parsed again by the lenient path."""
    try:
        import orjson
    except ImportError:
        return None
    return orjson.loads


_FAST = _fast_parser()


def _documents(text: str, fast: bool = True) -> list[Any]:
    if fast and _FAST is not None and len(text) > 1 << 16:
        try:
            return [_FAST(text)]  # one strict document: the common case of a big file
        except (ValueError, RecursionError):  # several documents, control characters, NaN, ...
            pass
    docs: list[Any] = []
    pos, end = 0, len(text)
    while True:
        while pos < end and text[pos] in " \t\r\n\ufeff":
            pos += 1
        if pos >= end:
            break
        try:
            doc, pos = _DECODER.raw_decode(text, pos)
        except RecursionError:
            raise json.JSONDecodeError("nested too deeply", text, pos) from None
        except json.JSONDecodeError:
            raise
        except ValueError as exc:  # an integer of more than 4300 digits
            raise json.JSONDecodeError(str(exc).split(";")[0], text, pos) from None
        docs.append(doc)
    if not docs:
        raise json.JSONDecodeError("empty document", text, 0)
    return docs


def repair_strings(text: str) -> str:
    """Escape quotes and backslashes that trtexec left unescaped inside JSON strings.

    Inside a string, a quote ends the string only if the next non-blank character can follow a
    string in JSON (``,`` ``:`` ``}`` ``]`` or the end); any other quote is part of the name.
    """
    out: list[str] = []
    in_string = False
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if not in_string:
            out.append(ch)
            if ch == '"':
                in_string = True
            i += 1
            continue
        if ch == "\\":
            nxt = text[i + 1] if i + 1 < n else ""
            if nxt in _VALID_ESCAPES and nxt:
                out.append(ch + nxt)
                i += 2
            else:
                out.append("\\\\")
                i += 1
            continue
        if ch == '"':
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j >= n or text[j] in _CLOSERS:
                in_string = False
                out.append(ch)
            else:
                out.append('\\"')
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)
