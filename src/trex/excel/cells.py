"""Cells of trex's Excel workbooks: values xlsxwriter can write, colours, and figure text.

Data is stored as data: text is never turned into a formula, a hyperlink or a number, and a text
cell starting with ``= + - @ TAB CR`` is marked as text (Excel's quote prefix).
"""

from __future__ import annotations

import html
import math
import numbers
import re
from typing import Any

import numpy as np
import pandas as pd

from ..graph.colors import rgb
from ..safety import spreadsheet_cell, well_formed

MAX_SHEET_NAME = 31  # Excel's limit
MAX_CELL_TEXT = 32767
_RGB = re.compile(r"rgba?\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)")


def excel_color(color: Any) -> str | None:
    """``#RRGGBB`` for a plotly colour (hex, ``rgb()``/``rgba()`` or a CSS name), else None."""
    if not isinstance(color, str):
        return None
    m = _RGB.match(color.strip())
    channels = tuple(min(int(v), 255) for v in m.groups()) if m else rgb(color)
    return "#" + "".join(f"{c:02X}" for c in channels) if channels else None


def figure_text(value: Any) -> Any:
    """A figure's text as its reader sees it: plotly-escaped data (``&lt;``) back to characters."""
    return html.unescape(value) if isinstance(value, str) else value


def chart_text(value: Any) -> str:
    """A chart title or series name: xlsxwriter reads a leading ``=`` as a cell reference."""
    return spreadsheet_cell(well_formed(str(figure_text(value) or "")))


def cell_value(value: Any) -> Any:
    """A value xlsxwriter can write: numbers, booleans and text (lists and dicts as text)."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        value = float(value)
        if math.isnan(value):
            return None
        return value if math.isfinite(value) else str(value)
    if isinstance(value, (pd.Timestamp, pd.Timedelta)):
        return str(value)
    text = value if isinstance(value, str) else str(value)
    return well_formed(text[:MAX_CELL_TEXT])
