"""Render DataFrames and dicts as aligned text tables, JSON or CSV for the CLI.

Every cell is data from an engine's files: tables show control characters as visible escapes
(:func:`trex.safety.terminal_text`), CSV cells that a spreadsheet would read as formulas are
prefixed with ``'`` (:func:`trex.safety.spreadsheet_cell`; ``--raw-csv`` turns that off) and JSON
is strict (NaN and infinities become null).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys
from typing import Any, TextIO

import pandas as pd

from ..errors import cap_line
from ..jsonable import json_value
from ..model.facts import MISSING
from ..safety import json_inert, spreadsheet_cell, terminal_text, well_formed
from ..text_forms import cut_text, fit_column

FORMATS = ("table", "json", "csv")


def add_format_options(parser: argparse.ArgumentParser, formats: tuple[str, ...] = FORMATS) -> None:
    """``--format/-f`` and, with csv, ``--raw-csv``."""
    parser.add_argument("--format", "-f", choices=formats, default="table")
    if "csv" in formats:
        parser.add_argument("--raw-csv", action="store_true",
                            help="csv format: write text cells exactly as in the data (by default a "
                                 "cell starting with = + - @ TAB or CR gets a leading ' so that "
                                 "spreadsheets do not run it as a formula)")



def format_value(value: Any) -> str:
    """A cell as short text: floats to 4 significant decimals, missing values (NaN, None) as "–"."""
    if isinstance(value, float):
        if math.isnan(value):
            return MISSING
        if math.isinf(value):
            return str(value)
        return f"{value:.4f}" if abs(value) < 1e6 else f"{value:.0f}" if abs(value) < 1e21 \
            else f"{value:.4g}"
    if value is None:
        return MISSING
    return str(value)


def text_table(df: pd.DataFrame, max_width: int = 70) -> str:
    """An aligned plain-text table; long cells are cut with an ellipsis (never inside a number,
    keeping what tells a column's values apart: :func:`trex.text_forms.fit_column`), control
    characters shown as escapes (``\\x1b``) so that no cell can move the cursor, recolour or
    retitle the terminal."""
    headers = [terminal_text(c) for c in df.columns]
    columns = [fit_column([terminal_text(format_value(v)) for v in df.iloc[:, i]], max_width)
               for i in range(len(df.columns))]
    rows = [list(cells) for cells in zip(*columns)] if columns else []
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    numeric = [pd.api.types.is_numeric_dtype(df.iloc[:, i]) for i in range(len(df.columns))]

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if num else c.ljust(w)
                         for c, w, num in zip(cells, widths, numeric)).rstrip()

    out = [line(headers), "  ".join("-" * w for w in widths)]
    out.extend(line(r) for r in rows)
    return "\n".join(out)


MAX_KEY_CHARS = 60  # keys and values read from files are cut in tables (the file keeps them)
MAX_VALUE_CHARS = 300


def kv_table(d: dict[str, Any]) -> str:
    """``key: value`` lines, keys aligned; control characters shown as escapes, long keys and
    values cut with an ellipsis."""
    if not d:
        return "(none)"
    keys = [terminal_text(_cut(str(k), MAX_KEY_CHARS)) for k in d]
    width = max(len(k) for k in keys)
    return "\n".join(f"{k.ljust(width)}  {v:.6g}" if isinstance(v, float)
                     else f"{k.ljust(width)}  {terminal_text(_cut(format_value(v), MAX_VALUE_CHARS))}"
                     for k, v in zip(keys, d.values()))


def csv_text(df: pd.DataFrame, raw: bool = False, terminal: bool = False) -> str:
    """CSV text of ``df``: text cells (and headers) neutralised for spreadsheets unless ``raw``;
    numbers stay numbers. ``terminal``: control characters shown as escapes (output to a tty).
    Lone surrogates are always escaped (``\\udce9``): the text must encode as UTF-8."""
    def cell(value: Any) -> Any:
        if isinstance(value, str):
            value = terminal_text(value) if terminal else well_formed(value)
        return value if raw else spreadsheet_cell(value)

    df = df.copy()
    df.columns = [cell(str(c)) for c in df.columns]
    for i in range(len(df.columns)):
        column = df.iloc[:, i]
        if not pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
            df.isetitem(i, column.map(cell))
    # Python's csv quotes a field holding CR only when CR ends lines: a bare CR would start a new
    # row in a spreadsheet (a row that could begin with "="), so text is then always quoted.
    cr = any("\r" in str(c) for c in df.columns) or any(
        df.iloc[:, i].map(lambda v: isinstance(v, str) and "\r" in v).any()
        for i in range(len(df.columns)) if not pd.api.types.is_numeric_dtype(df.iloc[:, i]))
    buf = io.StringIO()
    df.to_csv(buf, index=False, lineterminator="\n",
              quoting=csv.QUOTE_NONNUMERIC if cr else csv.QUOTE_MINIMAL)
    return buf.getvalue()


def csv_options(args: argparse.Namespace) -> dict[str, bool]:
    """``csv_text`` keyword arguments for the command line's options and standard output."""
    return {"raw": bool(getattr(args, "raw_csv", False)), "terminal": _isatty(sys.stdout)}


def to_json(obj: Any) -> str:
    """Strict JSON text of dicts/lists/DataFrames (NaN and infinities become null); control,
    bidi and lone-surrogate characters in its strings written as ``\\u`` escapes."""
    return json_inert(json.dumps(json_value(obj), indent=2, ensure_ascii=False, allow_nan=False))


class TerminalWriter:
    """A text stream that shows control characters of what it writes as escapes, newlines kept:
    the table format's headings and notes hold engine and layer names too."""

    def __init__(self, stream: TextIO):
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(terminal_text(text, keep_newlines=True))

    def flush(self) -> None:
        self.stream.flush()


def stdout_for(fmt: str) -> Any:
    """Where a subtool writes: standard output, through :class:`TerminalWriter` for tables (and
    for CSV shown on a terminal)."""
    if fmt == "table" or (fmt == "csv" and _isatty(sys.stdout)):
        return TerminalWriter(sys.stdout)
    return sys.stdout


def warn(source: Any, message: Any) -> None:
    """``warning: SOURCE: MESSAGE`` on standard error, control characters shown as escapes, the
    source (an engine's name: data) and the line each cut to the documented length."""
    print(terminal_text(cap_line(f"warning: {cap_line(source, 200)}: {message}")),
          file=sys.stderr)


def warn_plan(label: Any, plan: Any) -> None:
    """An engine's warnings, then its notes (known conditions, ``note: ...``), once each."""
    for message in plan.warnings:
        warn(label, message)
    for message in getattr(plan, "notes", ()):
        print(terminal_text(cap_line(f"note: {cap_line(label, 200)}: {message}")), file=sys.stderr)


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _cut(text: str, width: int) -> str:
    """Shorten in the middle, never inside a number (:func:`trex.text_forms.cut_text`)."""
    return cut_text(text, width)
