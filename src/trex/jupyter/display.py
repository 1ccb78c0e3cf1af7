"""Notebook page helpers and tables: banners, wide display, interactive tables, engine choosers.

Tables are interactive without a server: itables when it is installed, else a self-contained HTML
table that sorts, searches and filters (:mod:`trex.figures.html_table`).
"""

from __future__ import annotations

import html as _html
import os
from collections.abc import Callable
from typing import Any

import pandas as pd

from ..figures import html_table
from . import widgets as interactive


def section_header(title: str) -> Any:
    """A green banner with ``title`` (TREx's section header), as an HTML object."""
    style = "text-align:center;background:#76b900;padding:20px;color:#ffffff;font-size:2em;"
    return interactive.html(f'<div style="{style}">{_html.escape(title)}</div>')


def set_wide_display(width_pct: int = 90) -> None:
    """Let notebook cells use ``width_pct`` % of the window (wide tables and graphs)."""
    if interactive.in_notebook():
        interactive.show(interactive.html(
            f"<style>.container {{width:{int(width_pct)}% !important;}}</style>"))


# ----------------------------------------------------------------------------- tables
def display_df_html(df: pd.DataFrame, max_rows: int = html_table.MAX_ROWS, precision: int = 4,
                    **kwargs: Any) -> None:
    """Show ``df`` as trex's self-contained table (click to sort, search, per-column filters)."""
    interactive.show(interactive.html(html_table.html_table(df, max_rows, precision)))


def display_df_itables(df: pd.DataFrame, **kwargs: Any) -> None:
    """Show ``df`` with itables (offline DataTables: sort, search, paging)."""
    from itables import show as itables_show

    itables_show(df, **kwargs)


def display_df_plain(df: pd.DataFrame, **kwargs: Any) -> None:
    """Show ``df`` as Jupyter's static HTML table."""
    interactive.show(df)


def _default_backend(df: pd.DataFrame, **kwargs: Any) -> None:
    try:
        import itables  # noqa: F401
    except ImportError:
        display_df_html(df, **kwargs)
        return
    display_df_itables(df)


table_display_backend: Callable[..., Any] = _default_backend


def set_table_display_backend(tbl_display_fn: Callable[..., Any] | None) -> None:
    """Choose how :func:`display_df` shows tables (None: itables if installed, else trex's HTML table)."""
    global table_display_backend
    table_display_backend = tbl_display_fn or _default_backend


def display_df(df: pd.DataFrame, **kwargs: Any) -> None:
    """Show a table with the chosen backend (options it does not take are dropped)."""
    if isinstance(df, pd.Series):
        df = df.to_frame()
    try:
        table_display_backend(df, **kwargs)
    except TypeError:
        table_display_backend(df)


def display_filechooser(rootdir: str | os.PathLike = ".", pattern: str = "*.engine*") -> Any:
    """Show a chooser of the engines under ``rootdir``; ``.selected`` is the chosen engine's prefix."""
    try:
        from ipyfilechooser import FileChooser
    except ImportError:
        chooser: Any = EngineChooser(rootdir, pattern)
    else:
        chooser = FileChooser(os.fspath(rootdir))
        chooser.filter_pattern = pattern
        chooser.title = "Press Select to choose an engine file"
    if interactive.in_notebook():
        interactive.show(chooser.widget if isinstance(chooser, EngineChooser) else chooser)
    return chooser


class EngineChooser:
    """A dropdown of the engines under ``rootdir`` (ipyfilechooser's ``selected`` API).

    Each entry is an engine's prefix (``dir/model.onnx.engine``): what TREx's notebooks extend with
    ``.graph.json`` and what :meth:`EnginePlan.from_path` takes."""

    def __init__(self, rootdir: str | os.PathLike = ".", pattern: str = "*.engine*"):
        from pathlib import Path

        prefixes = set()
        for path in Path(rootdir).rglob(pattern):
            if path.is_file():
                name = str(path)
                cut = name.rfind(".engine")
                prefixes.add(name[:cut + len(".engine")] if cut >= 0 else name)
        self.files = sorted(prefixes)
        self.widget: Any = None
        self._value = self.files[0] if self.files else None
        if interactive.have_widgets():
            import ipywidgets as widgets

            self.widget = widgets.Dropdown(options=self.files, value=self._value,
                                           description="Engine:", layout={"width": "80%"})

    @property
    def selected(self) -> str | None:
        """The chosen engine's prefix."""
        return self.widget.value if self.widget is not None else self._value

    @property
    def selected_path(self) -> str | None:
        """The folder of the chosen engine."""
        return os.path.dirname(self.selected) if self.selected else None

    @property
    def selected_filename(self) -> str | None:
        """The file name of the chosen engine's prefix."""
        return os.path.basename(self.selected) if self.selected else None
