"""``--format markdown``: GitHub-flavoured Markdown for a CI job summary or a pull-request comment.

Text from an engine's files is escaped (:func:`trex.safety.markdown_text`), numbers are written as
the text tables write them (:func:`trex.cli.output.format_value`) and long cells are cut like the
text tables' (:func:`trex.text_forms.fit_column`), so nothing in a name can break the page.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..safety import markdown_text
from ..text_forms import fit_column
from .output import format_value

MAX_CELL = 120  # characters of a cell before it is cut (names, tactics, evidence)


def table(df: pd.DataFrame, max_width: int = MAX_CELL) -> str:
    """A pipe table: numbers right-aligned as the text tables write them, text escaped."""
    if df.empty:
        return "_(none)_"
    numeric = [pd.api.types.is_numeric_dtype(df.iloc[:, i]) and not
               pd.api.types.is_bool_dtype(df.iloc[:, i]) for i in range(len(df.columns))]
    columns = []
    for i, is_number in enumerate(numeric):
        texts = fit_column([format_value(v) for v in df.iloc[:, i]], max_width)
        columns.append(texts if is_number else [markdown_text(t) for t in texts])
    header = "| " + " | ".join(markdown_text(c) or " " for c in df.columns) + " |"
    rule = "|" + "|".join("---:" if n else "---" for n in numeric) + "|"
    rows = ["| " + " | ".join(cells) + " |" for cells in zip(*columns)]
    return "\n".join([header, rule, *rows])


def pairs(rows: dict[str, Any]) -> str:
    """``label: value`` rows as a two-column table without a header line of its own."""
    df = pd.DataFrame({"": [str(k) for k in rows], " ": [format_value(v) for v in rows.values()]})
    return table(df.astype(object))


def heading(level: int, text: Any) -> str:
    """A Markdown heading of escaped text."""
    return f"{'#' * level} {markdown_text(text)}"


def section(title: str, body: str, level: int = 4) -> str:
    """A titled block: heading, blank line, body."""
    return f"{heading(level, title)}\n\n{body}\n"


def bullet_list(items: list[str], prefix: str = "") -> str:
    """Escaped items as a list, each starting with ``prefix`` (e.g. ``warning: ``)."""
    return "\n".join(f"- {prefix}{markdown_text(item)}" for item in items)
