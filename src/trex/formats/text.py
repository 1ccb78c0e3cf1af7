"""One way to turn an input file's bytes into text, for every reader.

UTF-8 with or without a byte-order mark, UTF-16 with a BOM (PowerShell redirections write it),
and CRLF or CR line ends all give the same text with ``\\n`` line ends. Bytes that are not valid
UTF-8 (a Latin-1 path in a log) are replaced and reported as a warning; a file with NUL bytes and
no UTF-16 BOM is binary (an engine, an archive) and refused with an error naming it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError

HEAD_BYTES = 65536  # what content recognition looks at
_BINARY_PROBE = 4096
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_UTF8_BOM = b"\xef\xbb\xbf"


def read_bytes(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """The file's bytes (the first ``limit`` only, if given); InputError names the file."""
    p = Path(path)
    try:
        if limit is None:
            return p.read_bytes()
        with open(p, "rb") as fh:
            return fh.read(limit)
    except FileNotFoundError:
        raise InputError(path, "file not found") from None
    except IsADirectoryError:
        raise InputError(path, "is a folder, expected a file") from None
    except OSError as exc:
        raise InputError(path, f"cannot read file ({exc.strerror or exc})") from None


def is_binary(data: bytes) -> bool:
    """True for bytes that are not text in any encoding trex reads (NULs and no UTF-16 BOM)."""
    return not data.startswith(_UTF16_BOMS) and b"\x00" in data[:_BINARY_PROBE]


def decode(data: bytes, source: str | os.PathLike[str] | None = None,
           warnings: list[str] | None = None) -> str:
    """Decode a file's bytes as text with ``\\n`` line ends (see the module doc).

    Replaced bytes are reported by appending one message to ``warnings`` (if given).
    """
    if data.startswith(_UTF16_BOMS):
        text = data.decode("utf-16", errors="replace")
    elif is_binary(data):
        raise InputError(source, "binary file (an engine or archive?), expected JSON or text")
    else:
        if data.startswith(_UTF8_BOM):
            data = data[len(_UTF8_BOM):]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            text = data.decode("utf-8", errors="replace")
            if warnings is not None:
                where = f"{os.fspath(source)}: " if source is not None else ""
                warnings.append(f"{where}not UTF-8 text (first undecodable byte at offset "
                                f"{exc.start}); undecodable bytes were replaced with U+FFFD")
    return unix_newlines(text)


def unix_newlines(text: str) -> str:
    """``\r\n`` and lone ``\r`` line ends as ``\n``."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def read_text(path: str | os.PathLike[str], warnings: list[str] | None = None) -> str:
    """A whole file as text (:func:`decode`); InputError names the file when it is unreadable."""
    return decode(read_bytes(path), path, warnings)


@dataclass(frozen=True)
class Head:
    """The beginning of a file, which readers look at to decide whether the file is theirs."""

    path: str
    data: bytes  # the first HEAD_BYTES bytes
    text: str  # those bytes decoded (empty for binary files)
    size: int  # the whole file's size in bytes

    @property
    def binary(self) -> bool:
        return is_binary(self.data)


def read_head(path: str | os.PathLike[str]) -> Head:
    """The first 64 KiB of a file, as bytes and as text."""
    p = Path(path)
    if p.is_dir():
        raise InputError(path, "is a folder, expected a file")
    data = read_bytes(p, HEAD_BYTES)
    try:
        size = p.stat().st_size
    except OSError:
        size = len(data)
    text = "" if is_binary(data) else decode(data[:HEAD_BYTES], path)
    return Head(os.fspath(path), data, text, size)
