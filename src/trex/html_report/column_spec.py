"""What a report column declaration is, and what follows from a list of them.

A :class:`Column` names one per-layer fact of the plan (:class:`Fact`: a ``plan.df`` column, an
attribute of each layer, or a column of a per-layer table such as the ONNX mapping), its JSON
encoding (:data:`Encoding`) and, when the layer table shows it, its presentation (:class:`Show`:
label, widths, alignment, whether it stays in view, and the named kinds of its cell text, sort key
and hover text). The report's list is :data:`trex.html_report.layer_columns.LAYER_COLUMNS`; from it
follow, so that a new column is one declaration:

- the payload's ``layers`` block (:func:`encode`): one entry per column, in declaration order;
- the spec the page decodes those columns and builds its layer table from (:func:`spec`, shipped
  as ``layer_columns`` in the data); each kind is implemented once in
  ``assets/js/35-layer-columns.js``;
- the TypeScript declarations the page's script is checked against (:func:`typescript`), written
  to ``assets/js/layer-columns.d.ts`` by ``make js-types``; a test checks that file is current.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from ..model.plan import EnginePlan
from .columns import coded, coded_lists, floats, ints, strings

Encoding = Literal["row", "text", "coded", "coded_lists", "floats", "ints"]
"""How a column is written: ``row`` is the row's position (nothing written, the page counts it),
``text`` a list of strings, ``coded``/``coded_lists`` strings or string lists written once per
distinct value (:mod:`~trex.html_report.columns`), ``floats`` numbers with ``null`` for missing,
``ints`` integers."""
TextKind = Literal["plain", "precision", "ms", "fixed2", "bytes", "list"]
"""A cell's text: the value as text, a precision (``unknown`` in names-only exports), milliseconds,
two decimals, bytes in binary units, a list joined by commas."""
SortKind = Literal["value", "text", "lower"]
"""What a column sorts by: the value, its cell text, or that text in lower case."""
TitleKind = Literal["text", "lines", "detail", "flow"]
"""A cell's hover text: its text, a list one item a line, ``text (other)`` when the ``other``
column has a value, ``in text → out other``."""

# Per encoding: the TypeScript type of the column as written, and as the page decodes it.
TS_TYPES: dict[str, tuple[str, str]] = {
    "text": ("string[]", "string[]"),
    "coded": ("Coded", "string[]"),
    "coded_lists": ("CodedLists", "string[][]"),
    "floats": ("(number | null)[]", "(number | null)[]"),
    "ints": ("number[]", "number[]"),
}
# The kinds as (Python alias, its name here, its TypeScript name).
_KINDS: tuple[tuple[Any, str, str], ...] = (
    (Encoding, "Encoding", "ColumnEncoding"), (TextKind, "TextKind", "TextKind"),
    (SortKind, "SortKind", "SortKind"), (TitleKind, "TitleKind", "TitleKind"))
_TS_NAMES: dict[Any, str] = {alias: ts for alias, _, ts in _KINDS}
_TS_SCALARS: dict[Any, str] = {str: "string", int: "number", bool: "boolean", type(None): "null"}


def _listed(values: Any) -> list[Any]:
    """A Series or sequence as a list (string encoders iterate a list faster)."""
    return values.tolist() if isinstance(values, pd.Series) else list(values)


_ENCODERS: dict[str, Callable[[Any], Any]] = {
    "text": lambda values: strings(_listed(values)), "coded": coded,
    "coded_lists": lambda values: coded_lists(_listed(values)), "floats": floats, "ints": ints,
}
_KEY = re.compile(r"[a-z][a-z0-9_]*")
JS_TYPES_FILE = Path(__file__).parent / "assets" / "js" / "layer-columns.d.ts"


@dataclass(frozen=True)
class Fact:
    """Where a column's values come from, one per ``plan.df`` row (build one with
    :func:`df_column`, :func:`layer_attribute` or :func:`table_column`)."""

    source: Literal["df", "layer", "table"]
    name: str
    table: Callable[[EnginePlan], pd.DataFrame] | None = None

    def read(self, plan: EnginePlan, tables: dict[Any, pd.DataFrame]
             ) -> pd.Series[Any] | list[Any] | np.ndarray:
        """The values for ``plan`` (a Series, a list or an array), from the plan's columns
        (``plan.column``, ``plan.layer_values``: no DataFrame or Layer objects made where the
        model has the column); ``tables`` keeps each per-layer table computed once."""
        if self.source == "df":
            return plan.column(self.name)
        if self.source == "layer":
            return plan.layer_values(self.name)
        assert self.table is not None
        if self.table not in tables:
            tables[self.table] = self.table(plan)
        return tables[self.table][self.name]

    def describe(self) -> str:
        """Where it comes from, as code: ``plan.df["Name"]``, ``layer.stream``,
        ``layer_nodes(plan)["source"]`` (the page's type declarations say it)."""
        if self.source == "df":
            return f'plan.df["{self.name}"]'
        if self.source == "layer":
            return f"layer.{self.name}"
        return f'{getattr(self.table, "__name__", "table")}(plan)["{self.name}"]'


def df_column(name: str) -> Fact:
    """A column of ``plan.df``."""
    return Fact("df", name)


def layer_attribute(name: str) -> Fact:
    """An attribute of each of ``plan.layers`` (the model's :class:`~trex.model.layer.Layer`)."""
    return Fact("layer", name)


def table_column(table: Callable[[EnginePlan], pd.DataFrame], name: str) -> Fact:
    """A column of a table with one row per layer, computed once per plan (e.g. the ONNX mapping)."""
    return Fact("table", name, table)


@dataclass(frozen=True)
class Show:
    """A column's place in the layer table (``assets/js/35-layer-columns.js`` draws it)."""

    label: str  # the header
    width: str  # its CSS grid track: "92px", "minmax(160px, 2fr)"
    min: str | None = None  # the narrowest the track gets when fitted or squeezed
    fit: int | None = None  # fitted to its widest text, up to this many px
    tip: str = ""  # the header's hover text (else the label)
    num: bool = False  # right-aligned, sorted largest first
    keep: bool = False  # stays in view without scrolling sideways
    squeeze: bool = False  # narrows (down to min) so that every keep column is in view
    text: TextKind = "plain"
    sort: SortKind = "value"
    title: TitleKind | None = None  # no hover text when None
    other: str | None = None  # the column a "detail" or "flow" hover text adds
    blank: str | None = None  # the hover text of an empty cell


@dataclass(frozen=True)
class Column:
    """One per-layer column of the report: its key in the data, what it is, the plan fact it reads,
    how it is written and, when the layer table shows it, how."""

    key: str
    doc: str
    fact: Fact | None  # None only for the "row" encoding
    encoding: Encoding
    show: Show | None = None


def check(columns: Sequence[Column]) -> None:
    """Raise ``ValueError`` for a declaration the page could not use."""
    keys = [c.key for c in columns]
    data = {c.key for c in columns if c.encoding != "row"}
    for c in columns:
        where = f"layer column {c.key!r}"
        if not _KEY.fullmatch(c.key) or keys.count(c.key) > 1:
            raise ValueError(f"{where}: keys are distinct lower-case identifiers")
        if (c.fact is None) != (c.encoding == "row"):
            raise ValueError(f"{where}: every column but the row number reads a fact")
        if c.encoding not in typing.get_args(Encoding):
            raise ValueError(f"{where}: unknown encoding {c.encoding!r}")
        show = c.show
        if show is None:
            continue
        for kind, allowed in ((show.text, TextKind), (show.sort, SortKind),
                              (show.title, TitleKind)):
            if kind is not None and kind not in typing.get_args(allowed):
                raise ValueError(f"{where}: unknown kind {kind!r}")
        if (show.title in ("detail", "flow")) != (show.other is not None):
            raise ValueError(f"{where}: a 'detail' or 'flow' hover text (only) names its other column")
        if show.other is not None and show.other not in data:
            raise ValueError(f"{where}: {show.other!r} is not a declared data column")
    if sum(1 for c in columns if c.show and c.show.squeeze) > 1:
        raise ValueError("at most one layer table column narrows for the kept ones")


# ------------------------------------------------------------------ what follows from them
def encode(plan: EnginePlan, columns: Sequence[Column]) -> dict[str, Any]:
    """The payload's ``layers`` block: each data column's fact, encoded, in declaration order."""
    check(columns)
    tables: dict[Any, pd.DataFrame] = {}
    return {c.key: _ENCODERS[c.encoding](c.fact.read(plan, tables))
            for c in columns if c.fact is not None}


def spec(columns: Sequence[Column]) -> list[dict[str, Any]]:
    """The declaration as the page reads it (``DATA.layer_columns``): key, encoding, presentation."""
    check(columns)
    return [{"key": c.key, "encoding": c.encoding,
             "show": dataclasses.asdict(c.show) if c.show is not None else None} for c in columns]


def typescript(columns: Sequence[Column]) -> str:
    """The TypeScript declarations of the layer columns, the kinds and the spec (the text of
    ``assets/js/layer-columns.d.ts``)."""
    check(columns)
    data = [(c, c.fact) for c in columns if c.fact is not None]
    out = [
        "// GENERATED from trex/html_report/layer_columns.py by trex/html_report/column_spec.py",
        "// (`make js-types`): do not edit. tests/test_report_columns.py checks it is current.",
        "",
        "/** The layer columns as payload.layer_columns writes them: one entry per plan.df row. */",
        "interface LayerColumnsJSON {",
    ]
    for c, fact in data:
        out += [f"  /** {c.doc} ({fact.describe()}) */", f"  {c.key}: {TS_TYPES[c.encoding][0]};"]
    out += ["}", "", "/** The same columns as the page decodes them (Engine.L). */",
            "interface LayerColumns {"]
    out += [f"  {c.key}: {TS_TYPES[c.encoding][1]};" for c, _ in data]
    out += ["}", ""]
    for alias, python, ts in _KINDS:
        out += [f"/** column_spec.{python} */",
                f"type {ts} = {' | '.join(repr(v) for v in typing.get_args(alias))};"]
    out += ["", "/** A layer table column's presentation (column_spec.Show). */",
            "interface ColumnShow {"]
    hints = typing.get_type_hints(Show)
    out += [f"  {f.name}: {_ts(hints[f.name])};" for f in dataclasses.fields(Show)]
    out += ["}", "", "/** A declared layer column (column_spec.spec), DATA.layer_columns. */",
            "interface LayerColumnSpec {", "  key: string;", "  encoding: ColumnEncoding;",
            "  show: ColumnShow | null;", "}", ""]
    return "\n".join(out)


def _ts(hint: Any) -> str:
    """The TypeScript type of a field's type hint (str, int, bool, None, the kinds and unions)."""
    if hint in _TS_NAMES:
        return _TS_NAMES[hint]
    if hint in _TS_SCALARS:
        return _TS_SCALARS[hint]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return " | ".join(_ts(arg) for arg in typing.get_args(hint))
    raise TypeError(f"no TypeScript type for {hint!r}")


def write_typescript(path: Path = JS_TYPES_FILE) -> bool:
    """Write the declarations of :data:`~trex.html_report.layer_columns.LAYER_COLUMNS` to ``path``;
    True when the file changed."""
    from .layer_columns import LAYER_COLUMNS

    text = typescript(LAYER_COLUMNS)
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True

