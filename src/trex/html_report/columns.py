"""The report's column encodings: plain lists, and compact JSON for the big string columns.

Plain columns are lists (:func:`floats` with NaN as ``None``, :func:`ints`, :func:`strings`). A
10,000-layer engine repeats a few types, precisions, tactics, attribute sets, tensor shapes and
linter texts thousands of times. A *coded* column is written ``{"values": [distinct...], "codes":
[i, ...]}`` (``codes`` of a list column are lists); the page decodes it once
(``assets/js/20-data.js``). Such columns are :class:`Compact` objects: Python reads them as plain
sequences (``columns["precision"] == df["precision"].tolist()``) and
:func:`trex.html_report.page.json_for_script` writes their compact form (``__json__``)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd


def text(value: Any) -> str:
    """A cell as text: missing values (None, NaN, NA) become ``""``."""
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return ""
    return value if isinstance(value, str) else str(value)


def floats(values: Any, digits: int | None = None) -> list[float | None]:
    """A float column as a list, NaN/inf -> None, optionally rounded."""
    array = np.asarray(values, dtype="float64")
    if digits is not None:
        array = np.round(array, digits)
    finite = np.isfinite(array)
    out: list[float | None] = array.tolist()
    if not finite.all():
        for i in np.flatnonzero(~finite).tolist():
            out[i] = None
    return out


def ints(values: Any) -> list[int]:
    """An integer column as a list of Python ints (a missing value is an error, not a 0)."""
    out: list[int] = np.asarray(values, dtype="int64").tolist()
    return out


def strings(values: Iterable[Any]) -> list[str]:
    """A column as strings; missing values become ``""``."""
    return ["" if v is None or (isinstance(v, float) and v != v) else str(v) for v in values]


def coded(values: Iterable[Any]) -> Codes:
    """A string column, coded (missing values are ``""``), in one vectorised pass."""
    series = pd.Series(list(values) if not isinstance(values, pd.Series) else values, dtype=object)
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    names = [text(v) for v in uniques.tolist()]
    if (codes < 0).any():  # missing -> ""
        if "" not in names:
            names.append("")
        codes = np.where(codes < 0, names.index(""), codes)
    if len(set(names)) != len(names):  # e.g. 1 and "1" both became "1"
        table = Interner()
        remap = np.asarray([table(n) for n in names], dtype="int64")
        codes, names = remap[codes] if len(codes) else codes, table.values
    return Codes(names, np.asarray(codes, dtype="int64").tolist())


def coded_lists(lists: Iterable[Sequence[Any]]) -> CodeLists:
    """A column of string lists, coded."""
    table = Interner()
    index = table.index  # a string's text is itself: found without a call
    codes = [[index[v] if type(v) is str and v in index else table(text(v)) for v in row]
             for row in lists]
    return CodeLists(table.values, codes)


def decode(column: Any) -> list[Any]:
    """The plain column of a coded one, from its JSON (``{"values", "codes"}``) or the object."""
    if isinstance(column, Compact):
        return list(column)
    values = column["values"]
    return [[values[i] for i in c] if isinstance(c, list) else values[c] for c in column["codes"]]


class Interner:
    """Distinct values in first-seen order; calling it returns a value's index."""

    def __init__(self) -> None:
        self.values: list[Any] = []
        self.index: dict[Hashable, int] = {}

    def __call__(self, value: Any, key: Hashable | None = None) -> int:
        key = value if key is None else key
        found = self.index.get(key)
        if found is None:
            found = self.index[key] = len(self.values)
            self.values.append(value)
        return found

    def __len__(self) -> int:
        return len(self.values)


class Compact(Sequence):
    """A read-only sequence that writes a compact JSON form of itself (``__json__``)."""

    def __json__(self) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple, Compact)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


def plain(value: Any) -> Any:
    """``value`` with every :class:`Compact` inside replaced by its JSON form (for generic cleaners)."""
    if isinstance(value, Compact):
        return plain(value.__json__())
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


class Codes(Compact):
    """A string column that reads as a list of strings and writes ``{"values", "codes"}``."""

    def __init__(self, values: list[str], codes: list[int]):
        self.values = values
        self.codes = codes

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self.values[c] for c in self.codes[i]]
        return self.values[self.codes[i]]

    def __json__(self) -> dict[str, list[Any]]:
        return {"values": self.values, "codes": self.codes}


class CodeLists(Compact):
    """A column of string lists that reads as lists and writes ``{"values", "codes": [[...]]}``."""

    def __init__(self, values: list[str], codes: list[list[int]]):
        self.values = values
        self.codes = codes

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [[self.values[c] for c in row] for row in self.codes[i]]
        return [self.values[c] for c in self.codes[i]]

    def __json__(self) -> dict[str, list[Any]]:
        return {"values": self.values, "codes": self.codes}
