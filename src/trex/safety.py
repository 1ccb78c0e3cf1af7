"""Untrusted text made safe for each place it is shown, and files written whole.

Everything read from an engine's files is data: a layer name may hold terminal escape sequences,
spreadsheet formulas, plotly markup or path separators. One function per destination:

* :func:`terminal_text`: control characters, ESC/OSC sequences and bidi overrides made visible;
* :func:`spreadsheet_cell`: a leading ``= + - @ TAB CR`` neutralised with ``'`` (OWASP CSV injection);
* :func:`plotly_text` (and :func:`escape_figure` for a figure's traces): plotly's HTML subset escaped;
* :func:`markdown_text`: Markdown and HTML punctuation escaped, mentions broken, one line (CI summaries);
* :func:`safe_filename`: a bare, bounded file name from data;
* :func:`atomic_write`: a temporary file in the same folder renamed into place (never a truncated file);
* :func:`number_option`: argparse types for finite numbers in a range.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import tempfile
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

__all__ = ["atomic_write", "escape_figure", "markdown_text", "number_option", "plotly_text",
           "safe_filename", "spreadsheet_cell", "terminal_text"]

# ------------------------------------------------------------------------------------ terminals
# Unicode categories a terminal may act on: controls (C0, DEL, C1 incl. CSI/OSC introducers),
# format characters (bidi overrides and isolates, zero-width joiners), line/paragraph separators,
# and lone surrogates (undecodable bytes) that would not even encode.
_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})


def _visible(char: str) -> str:
    code = ord(char)
    if char in "\t\n\r":
        return {"\t": "\\t", "\n": "\\n", "\r": "\\r"}[char]
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def terminal_text(value: Any, keep_newlines: bool = False) -> str:
    """``value`` as text a terminal shows and never acts on: ESC, CR, NUL, C1, bidi overrides ...
    written as visible escapes (``\\x1b``, ``\\r``, ``\\u202e``); ``keep_newlines`` keeps ``\\n``."""
    text = value if isinstance(value, str) else str(value)
    if text.isprintable():
        return text
    out = []
    for char in text:
        if char == "\n" and keep_newlines:
            out.append(char)
        elif unicodedata.category(char) in _HIDDEN:
            out.append(_visible(char))
        else:
            out.append(char)
    return "".join(out)


# ------------------------------------------------------------------------------------ Markdown
# The characters that start Markdown (GitHub's) constructs inside a line: links and images,
# emphasis, code, HTML and entities, table cells, strikethrough, math and headings. A backslash
# makes each literal (CommonMark escapes any ASCII punctuation).
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_\[\]()<>#!|~&{}$])")


def markdown_text(value: Any) -> str:
    """``value`` as literal text inside Markdown (a GitHub job summary, a pull-request comment, a
    table cell): control characters shown as escapes (:func:`terminal_text`, so a newline cannot
    end a table row), ASCII punctuation backslash-escaped (no link, image, HTML, emphasis or
    ``|``), and ``@`` followed by a word joiner so that a name never mentions anyone."""
    text = terminal_text(value)
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", text).replace("@", "@\u2060")


# --------------------------------------------------------------------------------- spreadsheets
# OWASP's list, plus the full-width forms some spreadsheet programs also read as operators.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def spreadsheet_cell(value: Any) -> Any:
    """A text cell that a spreadsheet could read as a formula (``=cmd|' /C calc'!A0``, ``+1``,
    ``@SUM(A1)``) prefixed with ``'``; numbers and every other value unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def is_formula_like(value: Any) -> bool:
    """True for text :func:`spreadsheet_cell` would prefix."""
    return isinstance(value, str) and value.startswith(FORMULA_STARTS)


# ------------------------------------------------------------------------------------- plotly
# plotly.js renders <a>, <b>, <br>, <span style>, <img>... inside any text it draws, and a text
# between $ signs as LaTeX where MathJax is loaded (Jupyter). Entities show as their characters.
_PLOTLY = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "$": "&#36;"})


def plotly_text(value: Any) -> Any:
    """A string (or the strings of a list, tuple or array) escaped for plotly: shown literally,
    never as markup. Numbers and other values are returned unchanged."""
    if isinstance(value, str):
        return value.translate(_PLOTLY)
    if isinstance(value, (list, tuple)):
        return type(value)(plotly_text(v) for v in value)
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    if kind in ("O", "U", "S") and hasattr(value, "tolist"):
        import numpy as np

        return np.asarray(plotly_text(value.tolist()), dtype=object)
    return value


# Trace properties that carry data shown by plotly (as labels, categories, ticks or hover text).
FIGURE_DATA_KEYS = ("x", "y", "z", "labels", "ids", "parents", "text", "hovertext", "customdata",
                    "name", "legendgroup")


def escape_figure(fig: Any) -> Any:
    """Escape (once) the data strings of every trace of a plotly figure with :func:`plotly_text`.

    Layout text (titles, axis and legend titles, subplot titles, category orders) mixes the
    builder's own words with data and is escaped where the builder composes it."""
    for trace in fig.data:
        if getattr(trace, "_trex_escaped", False):
            continue
        for key in FIGURE_DATA_KEYS:
            value = getattr(trace, key, None) if key in trace else None
            if value is None:
                continue
            escaped = plotly_text(value)
            if escaped is not value:
                trace[key] = escaped
        trace._trex_escaped = True
    return fig


# ----------------------------------------------------------------------------------- file names
MAX_NAME_BYTES = 120  # leaves room for suffixes such as ".report.html" under the usual 255
_UNSAFE_NAME_CHARS = re.compile(r'[<>:"|?*]')
_DOTS = re.compile(r"\.{2,}")
_RESERVED = re.compile(r"^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$", re.IGNORECASE)


def safe_filename(text: Any, default: str = "engine", max_bytes: int = MAX_NAME_BYTES) -> str:
    """A bare file name made from data: its last path part, without separators, ``..``, control
    characters or characters Windows forbids, at most ``max_bytes`` UTF-8 bytes, never empty."""
    name = str(text if text is not None else "")
    name = re.split(r"[/\\]", name.rstrip("/\\"))[-1]
    name = "".join("_" if unicodedata.category(c) in _HIDDEN else c for c in name)
    name = _DOTS.sub(".", _UNSAFE_NAME_CHARS.sub("_", name)).strip(" .")
    if name.startswith("-"):
        name = "_" + name[1:]
    if _RESERVED.match(name):
        name = "_" + name
    while len(name.encode("utf-8", "surrogatepass")) > max_bytes:
        name = name[:-1]
    name = name.rstrip(" .")
    return name or default


# -------------------------------------------------------------------------------------- writes
@contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", encoding: str | None = "utf-8"
                 ) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path`` for writing; on success it replaces ``path``, on any
    failure (an exception, Ctrl-C) it is deleted, so ``path`` is never left half-written."""
    target = Path(path).absolute()
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:40]}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else encoding) as handle:
            yield handle
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# ------------------------------------------------------------------------------ numeric options
def number_option(kind: type = float, minimum: float | None = None, maximum: float | None = None,
                  above: float | None = None) -> Callable[[str], Any]:
    """An argparse ``type=``: a finite ``kind`` (int or float) ``>= minimum``, ``> above`` and
    ``<= maximum``; anything else (``nan``, ``inf``, ``-5``, ``x``) is a clear usage error."""
    parts = [f"> {above:g}" if above is not None else "",
             f">= {minimum:g}" if minimum is not None else "",
             f"<= {maximum:g}" if maximum is not None else ""]
    rule = " and ".join(p for p in parts if p)
    what = "an integer" if kind is int else "a finite number"
    expected = f"{what}{' ' + rule if rule else ''}"

    def parse(text: str) -> Any:
        try:
            value = kind(text.strip())
        except (TypeError, ValueError, OverflowError):
            raise argparse.ArgumentTypeError(f"expected {expected}, not {text!r}") from None
        if kind is float and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"expected {expected}, not {text!r}")
        if ((minimum is not None and value < minimum) or (above is not None and value <= above)
                or (maximum is not None and value > maximum)):
            raise argparse.ArgumentTypeError(f"expected {expected}, not {text!r}")
        return value

    parse.__name__ = kind.__name__
    return parse
