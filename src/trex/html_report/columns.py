"""Compact JSON for the report's big columns: each distinct string written once, referenced by index.

A 10,000-layer engine repeats a few types, precisions, tactics, attribute sets, tensor shapes and
linter texts thousands of times. A *coded* column is ``{"values": [distinct...], "codes": [i, ...]}``
(``codes`` of a list column are lists); the page decodes it once (``assets/js/20-data.js``).
Objects with a ``__json__`` method (:class:`Compact`) read as plain Python sequences and write
their compact form into the page (:func:`trex.html_report.page.json_for_script`).
"""

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


def coded(values: Iterable[Any]) -> dict[str, list[Any]]:
    """A string column as ``{"values", "codes"}`` (missing values are ``""``), in one vectorised pass."""
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
    return {"values": names, "codes": np.asarray(codes, dtype="int64").tolist()}


def coded_lists(lists: Iterable[Sequence[Any]]) -> dict[str, list[Any]]:
    """A column of string lists as ``{"values", "codes": [[i, ...], ...]}``."""
    table = Interner()
    return {"codes": [[table(text(v)) for v in row] for row in lists], "values": table.values}


def decode(column: dict[str, list[Any]]) -> list[Any]:
    """The plain column of :func:`coded` or :func:`coded_lists` (Python readers, tests)."""
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
        return value.__json__()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value
