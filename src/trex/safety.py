"""Untrusted text made safe for each place it is shown, and files written whole.

Everything read from an engine's files is data: a layer name may hold terminal escape sequences,
spreadsheet formulas, plotly markup or path separators. One function per destination:

* :func:`terminal_text`: control characters, ESC/OSC sequences and bidi overrides made visible;
* :func:`well_formed`: lone surrogates escaped, so that any text encodes as UTF-8, and
  :func:`json_inert`: JSON text whose strings hold no control, bidi or surrogate character;
* :func:`spreadsheet_cell`: a leading ``= + - @ TAB CR`` neutralised with ``'`` (OWASP CSV injection);
* :func:`plotly_text` (and :func:`escape_figure` for a figure's traces): plotly's HTML subset escaped;
* :func:`markdown_text`: Markdown and HTML punctuation escaped, mentions broken, one line (CI summaries);
* :func:`safe_filename`: a bare, bounded file name from data, and :func:`atomic_write`: every
  output file written whole, never replacing what it must not (both from :mod:`trex.outputs`);
* :func:`number_option`: argparse types for finite numbers in a range.
"""

from __future__ import annotations

import argparse
import math
import re
import unicodedata
from collections.abc import Callable
from typing import Any

from .outputs import HIDDEN_CATEGORIES, MAX_NAME_BYTES, atomic_write, safe_filename

__all__ = ["MAX_NAME_BYTES", "atomic_write", "escape_figure", "json_inert", "markdown_text",
           "number_option", "plotly_text", "safe_filename", "spreadsheet_cell", "terminal_text",
           "well_formed"]

# ------------------------------------------------------------------------------------ terminals
_HIDDEN = HIDDEN_CATEGORIES


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


# ------------------------------------------------------------------------------ encodable text
def well_formed(text: str) -> str:
    """``text`` that UTF-8 can encode: a lone surrogate (an undecodable byte of a path, a
    ``"\\ud800"`` in JSON) written as its escape (``\\udce9``); other text unchanged."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _escape_surrogates(text)
    return text


def _escape_surrogates(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" if "\ud800" <= c <= "\udfff" else c for c in text)


_NOT_PLAIN = re.compile(r"[^\x20-\x7e\n\r\t]+")


def json_inert(text: str) -> str:
    """JSON text whose strings hold no character a terminal acts on or UTF-8 cannot encode: DEL
    and C1 controls, format characters (bidi overrides), line separators and lone surrogates
    become ``\\u`` escapes, as tables show them (``json.dumps`` escapes C0 itself)."""
    return _NOT_PLAIN.sub(_json_escapes, text)


def _json_escapes(match: re.Match[str]) -> str:
    run = match.group(0)
    if run.isprintable():  # letters of any script: kept as they are
        return run
    return "".join(_json_escape(c) if unicodedata.category(c) in _HIDDEN else c for c in run)


def _json_escape(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


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


# ------------------------------------------------------------------------------ numeric options
# The longest time a child process can be waited for: subprocess waits in poll(), whose
# timeout is a C int of milliseconds (about 24.8 days).
MAX_TIMEOUT_SECONDS = (2**31 - 1) // 1000
def number_option(kind: type = float, minimum: float | None = None, maximum: float | None = None,
                  above: float | None = None) -> Callable[[str], Any]:
    """An argparse ``type=``: a finite ``kind`` (int or float) ``>= minimum``, ``> above`` and
    ``<= maximum``; anything else (``nan``, ``inf``, ``-5``, ``x``) is a clear usage error."""
    def shown(bound: float) -> str:
        return f"{int(bound):,}" if float(bound).is_integer() else f"{bound:g}"

    parts = [f"> {shown(above)}" if above is not None else "",
             f">= {shown(minimum)}" if minimum is not None else "",
             f"<= {shown(maximum)}" if maximum is not None else ""]
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
