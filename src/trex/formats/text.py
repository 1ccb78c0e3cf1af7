"""One way to turn an input file's bytes into text, for every reader, within size limits.

UTF-8 with or without a byte-order mark, UTF-16 with a BOM (PowerShell redirections write it),
and CRLF or CR line ends all give the same text with ``\\n`` line ends. Bytes that are not valid
UTF-8 (a Latin-1 path in a log) are replaced and reported as a warning; a file with NUL bytes and
no UTF-16 BOM is binary (an engine, an archive) and refused with an error naming it.

A file read whole (JSON) may hold at most ``TREX_MAX_JSON_BYTES`` (2 GiB); a log, read line by
line (:func:`iter_lines`), at most ``TREX_MAX_LOG_BYTES`` (8 GiB): far above any real export, and
checked before reading, so that a 20 GiB sparse file or ``/dev/zero`` is a clear error.
"""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..errors import InputError

HEAD_BYTES = 65536  # what content recognition looks at
MAX_JSON_BYTES = 2 << 30
MAX_LOG_BYTES = 8 << 30
ENV_MAX_JSON_BYTES = "TREX_MAX_JSON_BYTES"
ENV_MAX_LOG_BYTES = "TREX_MAX_LOG_BYTES"
_CHUNK = 1 << 20
_BINARY_PROBE = 4096
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_UTF8_BOM = b"\xef\xbb\xbf"


def max_bytes(log: bool = False) -> int:
    """The size limit of an input read whole (JSON) or line by line (``log``): the environment's
    ``TREX_MAX_JSON_BYTES``/``TREX_MAX_LOG_BYTES`` if set to a positive number of bytes."""
    name, default = (ENV_MAX_LOG_BYTES, MAX_LOG_BYTES) if log else (ENV_MAX_JSON_BYTES,
                                                                    MAX_JSON_BYTES)
    try:
        value = int(os.environ.get(name, "") or default)
    except ValueError:
        return default
    return value if value > 0 else default


def read_bytes(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """The file's bytes (the first ``limit`` only, if given); InputError names the file, and a
    file beyond :func:`max_bytes` is refused before it is read."""
    try:
        with open_input(path, check=limit is None) as fh:
            if limit is not None:
                return fh.read(limit)
            most = max_bytes()
            data = fh.read(most + 1)  # a FIFO or device has no size to check beforehand
            if len(data) > most:
                raise InputError(path, _too_big(most + 1, most, log=False, at_least=True))
            return data
    except InputError:
        raise
    except OSError as exc:
        raise InputError(path, f"cannot read file ({exc.strerror or exc})") from None


def open_input(path: str | os.PathLike[str], log: bool = False, check: bool = True
               ) -> IO[bytes]:
    """The file opened for reading; InputError when it is missing, a folder, or (``check``) a
    regular file beyond :func:`max_bytes` (``log``: the limit of files read line by line)."""
    try:
        fh = open(path, "rb")  # noqa: SIM115 - the caller closes it
    except FileNotFoundError:
        raise InputError(path, "file not found") from None
    except IsADirectoryError:
        raise InputError(path, "is a folder, expected a file") from None
    except OSError as exc:
        raise InputError(path, f"cannot read file ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fh.fileno())
        most = max_bytes(log)
        if check and stat.S_ISREG(st.st_mode) and st.st_size > most:
            raise InputError(path, _too_big(st.st_size, most, log))
    except BaseException:
        fh.close()
        raise
    return fh


def _too_big(size: int, most: int, log: bool, at_least: bool = False) -> str:
    env = ENV_MAX_LOG_BYTES if log else ENV_MAX_JSON_BYTES
    return (f"{'more than' if at_least else 'is'} {_gib(size)}, beyond the {_gib(most)} trex "
            f"reads of {'a log' if log else 'a JSON file'}; set {env} (bytes) to read it")


def _gib(size: int) -> str:
    return f"{size / (1 << 30):.1f} GiB" if size >= 1 << 30 else f"{size:,} bytes"


def iter_lines(path: str | os.PathLike[str], warnings: list[str] | None = None
               ) -> Iterator[str]:
    """The lines :func:`read_text` would give (``text.split("\\n")``), decoded as the file is
    read: memory follows the longest line, not the file (logs up to ``TREX_MAX_LOG_BYTES``)."""
    with open_input(path, log=True) as fh:
        chunk = fh.read(_CHUNK)
        if chunk.startswith(_UTF16_BOMS):
            decoder = codecs.getincrementaldecoder("utf-16")("replace")
        elif is_binary(chunk):
            raise InputError(path, "binary file (an engine or archive?), expected JSON or text")
        else:
            if chunk.startswith(_UTF8_BOM):
                chunk = chunk[len(_UTF8_BOM):]
            decoder = codecs.getincrementaldecoder("utf-8")("strict")
        pending, offset = "", 0
        while True:
            final = not chunk
            try:
                text = decoder.decode(chunk, final)
            except UnicodeDecodeError as exc:
                buffered = len(decoder.getstate()[0])
                if warnings is not None:
                    warnings.append(f"{os.fspath(path)}: not UTF-8 text (first undecodable byte "
                                    f"at offset {offset - buffered + exc.start}); undecodable "
                                    "bytes were replaced with U+FFFD")
                decoder.errors = "replace"
                text = decoder.decode(chunk, final)
            offset += len(chunk)
            text = pending + text
            held = "\r" if not final and text.endswith("\r") else ""  # maybe half of a CRLF
            lines = unix_newlines(text[:len(text) - len(held)]).split("\n")
            if final:
                yield from lines
                return
            pending = lines.pop() + held
            yield from lines
            chunk = fh.read(_CHUNK)


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
