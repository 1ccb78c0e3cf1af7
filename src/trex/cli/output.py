"""Render DataFrames and dicts as aligned text tables, JSON or CSV for the CLI."""

from __future__ import annotations

import io
import json
import math
from typing import Any

import pandas as pd

from ..jsonable import json_value

FORMATS = ("table", "json", "csv")


def format_value(value: Any) -> str:
    """A cell as short text: floats to 4 significant decimals, NaN as empty."""
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        return f"{value:.4f}" if abs(value) < 1e6 else f"{value:.0f}"
    if value is None:
        return ""
    return str(value)


def text_table(df: pd.DataFrame, max_width: int = 70) -> str:
    """An aligned plain-text table; long cells are cut with an ellipsis."""
    headers = [str(c) for c in df.columns]
    rows = [[_cut(format_value(v), max_width) for v in row] for row in df.itertuples(index=False)]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    numeric = [pd.api.types.is_numeric_dtype(df[c]) for c in df.columns]

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if num else c.ljust(w)
                         for c, w, num in zip(cells, widths, numeric)).rstrip()

    out = [line(headers), "  ".join("-" * w for w in widths)]
    out.extend(line(r) for r in rows)
    return "\n".join(out)


def kv_table(d: dict[str, Any]) -> str:
    """``key: value`` lines, keys aligned."""
    if not d:
        return "(none)"
    width = max(len(str(k)) for k in d)
    return "\n".join(f"{str(k).ljust(width)}  {v:.6g}" if isinstance(v, float)
                     else f"{str(k).ljust(width)}  {format_value(v)}" for k, v in d.items())


def csv_text(df: pd.DataFrame) -> str:
    buf = io.StringIO()
    df.to_csv(buf, index=False)
    return buf.getvalue()


def to_json(obj: Any) -> str:
    """JSON text of dicts/lists/DataFrames (NaN becomes null)."""
    return json.dumps(json_value(obj), indent=2, ensure_ascii=False)


def _cut(text: str, width: int) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"
