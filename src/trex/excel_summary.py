"""An Excel workbook of a plan: its summary, layers, reports with native Excel charts, and linters.

Needs ``trex[excel]`` (xlsxwriter, imported when a workbook is created). Charts are Excel's own
(bar, column, pie, scatter) made from the report figures' data, so no image renderer is needed.
TREx's ``ExcelSummary(plan, path)`` API is kept: ``add_dataframes``, ``add_images``,
``generate_default_summary``, ``save`` and use as a context manager.

Data is stored as data: text is never turned into a formula, a hyperlink or a number, and a text
cell starting with ``= + - @ TAB CR`` is marked as text (Excel's quote prefix), so editing it does
not make it a formula either. The workbook is written whole, through a temporary file.
"""

from __future__ import annotations

import html
import io
import math
import numbers
import os
import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from .model.plan import EnginePlan
from .report.frames import clean_for_display
from .safety import atomic_write, is_formula_like, spreadsheet_cell

MAX_SHEET_NAME = 31  # Excel's limit
MAX_CELL_TEXT = 32767
MAX_CHART_POINTS = 32000  # points per series Excel 2007 draws
CHART_SIZE = {"x_scale": 1.5, "y_scale": 1.25}  # 720 x 360 px
CHART_ROWS = 20
_BAD_SHEET_CHARS = re.compile(r"[\[\]:*?/\\]")
_CSS = {"red": "#FF0000", "orange": "#FFA500", "lightgray": "#D3D3D3", "gray": "#808080",
        "grey": "#808080", "darkgray": "#A9A9A9", "darkred": "#8B0000", "deepskyblue": "#00BFFF",
        "plum": "#DDA0DD", "white": "#FFFFFF", "black": "#000000", "green": "#008000",
        "blue": "#0000FF", "cyan": "#00FFFF", "yellow": "#FFFF00", "purple": "#800080"}
_RGB = re.compile(r"rgba?\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)")


def _report_builders() -> dict[str, Callable[[EnginePlan], dict[str, Callable[..., Any]]]]:
    from .report import (
        convolutions_overview_builders,
        gemm_MNK_scatter_builders,
        memory_footprint_builders,
        perf_overview_builders,
        perf_scatter_builders,
        reformat_overview_builders,
    )
    return {
        "report_card_perf_overview": perf_overview_builders,
        "report_card_memory_footprint": memory_footprint_builders,
        "report_card_convolutions_overview": convolutions_overview_builders,
        "report_card_reformat_overview": reformat_overview_builders,
        "report_card_gemm_MNK_scatter": gemm_MNK_scatter_builders,
        "report_card_perf_scatter": perf_scatter_builders,
    }


REPORT_SHEETS = {
    "report_card_perf_overview": "Performance",
    "report_card_memory_footprint": "Memory footprint",
    "report_card_convolutions_overview": "Convolutions",
    "report_card_reformat_overview": "Reformats",
    "report_card_gemm_MNK_scatter": "GEMM MNK",
    "report_card_perf_scatter": "Convolution efficiency",
}
DEFAULT_REPORTS = ("report_card_perf_overview", "report_card_memory_footprint",
                   "report_card_convolutions_overview", "report_card_reformat_overview")


def excel_color(color: Any) -> str | None:
    """``#RRGGBB`` for a plotly colour (hex, ``rgb()``/``rgba()`` or a common CSS name), else None."""
    if not isinstance(color, str):
        return None
    text = color.strip()
    if re.fullmatch(r"#[0-9A-Fa-f]{6}", text):
        return text.upper()
    if re.fullmatch(r"#[0-9A-Fa-f]{3}", text):
        return "#" + "".join(c * 2 for c in text[1:]).upper()
    m = _RGB.match(text)
    if m:
        return "#" + "".join(f"{min(int(v), 255):02X}" for v in m.groups())
    return _CSS.get(text.lower())


def figure_text(value: Any) -> Any:
    """A figure's text as its reader sees it: plotly-escaped data (``&lt;``) back to characters."""
    return html.unescape(value) if isinstance(value, str) else value


def chart_text(value: Any) -> str:
    """A chart title or series name: xlsxwriter reads a leading ``=`` as a cell reference."""
    return spreadsheet_cell(str(figure_text(value) or ""))


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
    return text[:MAX_CELL_TEXT]


class ExcelSummary:
    """A workbook at ``path`` filled from ``plan``; :meth:`generate_default_summary` adds everything."""

    def __init__(self, plan: EnginePlan, path: str | os.PathLike = "engine_summary.xlsx",
                 max_chart_points: int = MAX_CHART_POINTS):
        try:
            import xlsxwriter
        except ImportError as exc:  # pragma: no cover - depends on the installation
            raise ImportError("Excel summaries need xlsxwriter: pip install 'trex-explorer[excel]'"
                              ) from exc
        self.plan = plan
        self.path = os.fspath(path)
        self.max_chart_points = max_chart_points
        self._buffer = io.BytesIO()  # written to self.path whole, at save()
        self.book = xlsxwriter.Workbook(self._buffer, {
            "strings_to_formulas": False, "strings_to_urls": False, "strings_to_numbers": False})
        self._names: set[str] = set()
        self._saved = False
        self._quoted: dict[int, Any] = {}
        self.bold = self._format({"bold": True})
        self.title = self._format({"bold": True, "font_size": 14, "font_color": "#76b900"})
        self.header = self._format({"bold": True, "bg_color": "#76b900", "font_color": "#FFFFFF",
                                    "border": 1})
        self._plain_quoted = self.book.add_format({"quote_prefix": True})
        self.supported_reports = dict(REPORT_SHEETS)

    def _format(self, props: dict[str, Any]) -> Any:
        """A cell format, and its twin with Excel's quote prefix for formula-like text."""
        fmt = self.book.add_format(props)
        self._quoted[id(fmt)] = self.book.add_format({**props, "quote_prefix": True})
        return fmt

    def write_cell(self, ws: Any, row: int, col: int, value: Any, fmt: Any = None) -> None:
        """Write one value: numbers as numbers, text always as text (formula-like text quoted)."""
        v = cell_value(value)
        if v is None:
            if fmt is not None:
                ws.write_blank(row, col, None, fmt)
            return
        if isinstance(v, str):
            if is_formula_like(v):
                fmt = self._quoted.get(id(fmt), self._plain_quoted) if fmt is not None \
                    else self._plain_quoted
            ws.write_string(row, col, v, fmt)
        else:
            ws.write(row, col, v, fmt)

    # ------------------------------------------------------------------ context manager
    def __enter__(self) -> ExcelSummary:
        return self

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        if exc_type is None:
            self.save()

    # ------------------------------------------------------------------ sheets
    def sheet_name(self, name: str) -> str:
        """A valid, unused sheet name made from ``name`` (at most 31 characters)."""
        base = _BAD_SHEET_CHARS.sub("_", str(name)).strip("'") or "Sheet"
        base = base[:MAX_SHEET_NAME]
        candidate, n = base, 1
        while candidate.lower() in self._names:
            n += 1
            suffix = f" ({n})"
            candidate = base[:MAX_SHEET_NAME - len(suffix)] + suffix
        self._names.add(candidate.lower())
        return candidate

    def _worksheet(self, name: str) -> Any:
        return self.book.add_worksheet(self.sheet_name(name))

    def write_table(self, ws: Any, df: pd.DataFrame, row: int = 0, col: int = 0,
                    index: bool = False) -> int:
        """Write ``df`` with a header row at (``row``, ``col``); return the number of rows written."""
        if index:
            df = df.reset_index()
        for j, name in enumerate(df.columns):
            self.write_cell(ws, row, col + j, name, self.header)
        for i, values in enumerate(df.itertuples(index=False, name=None), start=row + 1):
            for j, value in enumerate(values):
                self.write_cell(ws, i, col + j, value)
        widths = [max([len(str(c))] + [len(str(v)) for v in df[c].head(200)]) for c in df.columns]
        for j, width in enumerate(widths):
            ws.set_column(col + j, col + j, min(max(width, 8), 60))
        return len(df) + 1

    def add_dataframe(self, df: pd.DataFrame, sheet_name: str, title: str | None = None,
                      autofilter: bool = True) -> Any:
        """One sheet holding ``df`` (a title in A1, the table from row 3, filters on its header)."""
        ws = self._worksheet(sheet_name)
        self.write_cell(ws, 0, 0, title or sheet_name, self.title)
        rows = self.write_table(ws, df, 2, 0)
        if autofilter and len(df.columns):
            ws.autofilter(2, 0, 2 + rows - 1, len(df.columns) - 1)
            ws.freeze_panes(3, 0)
        return ws

    def add_dataframes(self, df_dict: Mapping[str, pd.DataFrame]) -> None:
        """One sheet per DataFrame, named by its key (TREx's API)."""
        for sheet_name, df in df_dict.items():
            self.add_dataframe(df, sheet_name)

    def add_images(self, image_dict: Mapping[str, str | os.PathLike]) -> None:
        """One sheet per image file, named by its key (TREx's API)."""
        for sheet_name, path in image_dict.items():
            self._worksheet(sheet_name).insert_image("A1", os.fspath(path))

    # ------------------------------------------------------------------ figures as Excel charts
    def add_figures(self, figures: Mapping[str, Any], sheet_name: str) -> Any:
        """One sheet with each figure's data and, where Excel has the kind, a native chart beside it."""
        ws = self._worksheet(sheet_name)
        self.write_cell(ws, 0, 0, sheet_name, self.title)
        row = 2
        for title, fig in figures.items():
            self.write_cell(ws, row, 0, title, self.bold)
            row += 1 + self.add_figure(ws, fig, row + 1, 0, title)
        return ws

    def add_figure(self, ws: Any, fig: Any, row: int, col: int, title: str = "") -> int:
        """Write one figure's data at (``row``, ``col``) and its chart to the right; return the rows used."""
        kinds = {trace.type for trace in fig.data}
        if not fig.data:
            ws.write(row, col, "(no data)")
            return 2
        if kinds <= {"bar"}:
            return self._bars(ws, fig, row, col, title)
        if kinds <= {"pie"}:
            return self._pies(ws, fig, row, col)
        if kinds <= {"histogram"}:
            return self._histogram(ws, fig, row, col, title)
        if kinds <= {"scatter", "scattergl"}:
            return self._scatter(ws, fig, row, col, title)
        if kinds <= {"sunburst"}:
            return self._sunburst(ws, fig, row, col, title)
        return self._table_only(ws, fig, row, col)

    def _insert(self, ws: Any, chart: Any, row: int, col: int, rows: int, points: int) -> int:
        if points > self.max_chart_points:
            ws.write(row, col, f"({points} points: too many for an Excel chart; data on the left)")
            return max(rows, 2)
        chart.set_size(CHART_SIZE)
        ws.insert_chart(row, col, chart)
        return max(rows, CHART_ROWS) + 1

    def _axis_titles(self, chart: Any, fig: Any, swap: bool = False) -> None:
        x = fig.layout.xaxis.title.text
        y = fig.layout.yaxis.title.text
        if swap:  # Excel's horizontal bar charts put the categories on their "x" axis
            x, y = y, x
        if x:
            chart.set_x_axis({"name": chart_text(x)})
        if y:
            chart.set_y_axis({"name": chart_text(y)})

    def _bars(self, ws: Any, fig: Any, row: int, col: int, title: str) -> int:
        traces = list(fig.data)
        horizontal = traces[0].orientation == "h"
        cat_axis = fig.layout.yaxis if horizontal else fig.layout.xaxis
        categories: list[Any] = [figure_text(c) for c in cat_axis.categoryarray or []]
        seen = set(categories)
        series: list[tuple[str, dict[Any, Any], Any, list[Any]]] = []
        for i, trace in enumerate(traces):
            cats = [figure_text(c) for c in (trace.y if horizontal else trace.x)]
            vals = list(trace.x if horizontal else trace.y)
            for c in cats:
                if c not in seen:
                    seen.add(c)
                    categories.append(c)
            series.append((figure_text(trace.name)
                           or ("value" if len(traces) == 1 else f"series {i + 1}"),
                           dict(zip(cats, vals)), trace.marker.color, cats))
        ws.write(row, col, "category", self.header)
        for j, (name, *_) in enumerate(series, start=1):
            self.write_cell(ws, row, col + j, name, self.header)
        for i, cat in enumerate(categories, start=row + 1):
            self.write_cell(ws, i, col, cat)
            for j, (_, values, *_) in enumerate(series, start=1):
                self.write_cell(ws, i, col + j, values.get(cat))
        n = len(categories)
        stacked = fig.layout.barmode == "stack" and len(series) > 1
        chart = self.book.add_chart({"type": "bar" if horizontal else "column",
                                     **({"subtype": "stacked"} if stacked else {})})
        sheet = ws.get_name()
        for j, (_, _, color, cats) in enumerate(series, start=1):
            spec: dict[str, Any] = {"name": [sheet, row, col + j],
                                    "categories": [sheet, row + 1, col, row + n, col],
                                    "values": [sheet, row + 1, col + j, row + n, col + j]}
            if isinstance(color, str) and excel_color(color):
                spec["fill"] = {"color": excel_color(color)}
            elif color is not None and len(series) == 1 and not np.issubdtype(
                    np.asarray(color).dtype, np.number):
                by_cat = dict(zip(cats, color))
                spec["points"] = [{"fill": {"color": excel_color(by_cat.get(c))}}
                                  if excel_color(by_cat.get(c)) else None for c in categories]
            if stacked:
                spec["gap"] = 50
            chart.add_series(spec)
        chart.set_title({"name": chart_text(title or fig.layout.title.text)})
        self._axis_titles(chart, fig, swap=horizontal)
        if len(series) == 1:
            chart.set_legend({"none": True})
        return self._insert(ws, chart, row, col + len(series) + 2, n + 1, n)

    def _pies(self, ws: Any, fig: Any, row: int, col: int) -> int:
        used, sheet = 0, ws.get_name()
        for trace in fig.data:
            labels, values = [figure_text(v) for v in trace.labels], list(trace.values)
            name = figure_text(trace.name)
            r = row + used
            ws.write(r, col, "label", self.header)
            self.write_cell(ws, r, col + 1, name or "value", self.header)
            for i, (lab, val) in enumerate(zip(labels, values), start=r + 1):
                self.write_cell(ws, i, col, lab)
                self.write_cell(ws, i, col + 1, val)
            chart = self.book.add_chart({"type": "doughnut" if trace.hole else "pie"})
            colors = list(trace.marker.colors or [])
            spec: dict[str, Any] = {"name": chart_text(name),
                                    "categories": [sheet, r + 1, col, r + len(labels), col],
                                    "values": [sheet, r + 1, col + 1, r + len(labels), col + 1],
                                    "data_labels": {"value": True}}
            if colors:
                spec["points"] = [{"fill": {"color": excel_color(c)}} if excel_color(c) else None
                                  for c in colors]
            chart.add_series(spec)
            chart.set_title({"name": chart_text(name or fig.layout.title.text)})
            used += self._insert(ws, chart, r, col + 3, len(labels) + 1, len(labels))
        return used

    def _histogram(self, ws: Any, fig: Any, row: int, col: int, title: str) -> int:
        traces = list(fig.data)
        arrays = [np.asarray(t.x, dtype="float64") for t in traces]
        data = np.concatenate(arrays) if arrays else np.zeros(0)
        data = data[np.isfinite(data)]
        bins = int(traces[0].nbinsx or 20)
        edges = np.histogram_bin_edges(data, bins=max(bins, 1)) if len(data) else np.array([0, 1])
        table = pd.DataFrame({"bin": [f"{a:.4g} - {b:.4g}" for a, b in zip(edges[:-1], edges[1:])]})
        for i, (trace, values) in enumerate(zip(traces, arrays)):
            counts, _ = np.histogram(values[np.isfinite(values)], bins=edges)
            table[figure_text(trace.name) or ("count" if len(traces) == 1 else f"series {i + 1}")] = \
                counts
        self.write_table(ws, table, row, col)
        chart = self.book.add_chart({"type": "column",
                                     **({"subtype": "stacked"} if len(traces) > 1 else {})})
        sheet, n = ws.get_name(), len(table)
        for j, trace in enumerate(traces, start=1):
            spec: dict[str, Any] = {"name": [sheet, row, col + j],
                                    "categories": [sheet, row + 1, col, row + n, col],
                                    "values": [sheet, row + 1, col + j, row + n, col + j],
                                    "gap": 10}
            if excel_color(trace.marker.color):
                spec["fill"] = {"color": excel_color(trace.marker.color)}
            chart.add_series(spec)
        chart.set_title({"name": chart_text(title or fig.layout.title.text)})
        self._axis_titles(chart, fig)
        return self._insert(ws, chart, row, col + len(traces) + 2, n + 1, n)

    def _scatter(self, ws: Any, fig: Any, row: int, col: int, title: str) -> int:
        chart = self.book.add_chart({"type": "scatter"})
        sheet, c, rows, points = ws.get_name(), col, 1, 0
        for trace in fig.data:
            x = [cell_value(v) for v in trace.x]
            y = [cell_value(v) for v in trace.y]
            name = figure_text(trace.name) or "y"
            self.write_cell(ws, row, c, f"{name} x", self.header)
            self.write_cell(ws, row, c + 1, name, self.header)
            for i, (a, b) in enumerate(zip(x, y), start=row + 1):
                self.write_cell(ws, i, c, figure_text(a))
                self.write_cell(ws, i, c + 1, figure_text(b))
            spec: dict[str, Any] = {"name": [sheet, row, c + 1],
                                    "categories": [sheet, row + 1, c, row + len(x), c],
                                    "values": [sheet, row + 1, c + 1, row + len(x), c + 1]}
            color = excel_color(trace.line.color if "lines" in (trace.mode or "") else
                                trace.marker.color)
            if "lines" in (trace.mode or ""):
                spec["marker"] = {"type": "none"}
                spec["line"] = {"width": 1.5, "dash_type": "dash", **({"color": color} if color else {})}
            else:
                spec["marker"] = {"type": "circle", "size": 3,
                                  **({"fill": {"color": color}, "border": {"color": color}}
                                     if color else {})}
            chart.add_series(spec)
            rows, points, c = max(rows, len(x) + 1), max(points, len(x)), c + 2
        chart.set_title({"name": chart_text(title or fig.layout.title.text)})
        self._axis_titles(chart, fig)
        return self._insert(ws, chart, row, c + 1, rows, points)

    def _sunburst(self, ws: Any, fig: Any, row: int, col: int, title: str) -> int:
        trace = fig.data[0]
        table = pd.DataFrame({"id": [figure_text(v) for v in (trace.ids or trace.labels)],
                              "label": [figure_text(v) for v in trace.labels],
                              "parent": [figure_text(v) for v in trace.parents],
                              "value": list(trace.values)})
        self.write_table(ws, table, row, col)
        roots = table.index[table["parent"] == ""].tolist()
        if len(roots) == 1:  # the ring around the centre, as a pie
            ring = table.index[table["parent"] == table.loc[roots[0], "id"]].tolist()
        else:
            ring = roots
        r0 = row + len(table) + 2
        ws.write(r0, col + 5, "ring", self.header)
        ws.write(r0, col + 6, "value", self.header)
        colors = list(trace.marker.colors or [])
        for i, k in enumerate(ring, start=r0 + 1):
            self.write_cell(ws, i, col + 5, table.loc[k, "label"])
            self.write_cell(ws, i, col + 6, table.loc[k, "value"])
        chart = self.book.add_chart({"type": "pie"})
        sheet = ws.get_name()
        spec: dict[str, Any] = {"name": chart_text(title), "data_labels": {"percentage": True},
                                "categories": [sheet, r0 + 1, col + 5, r0 + len(ring), col + 5],
                                "values": [sheet, r0 + 1, col + 6, r0 + len(ring), col + 6]}
        if colors:
            spec["points"] = [{"fill": {"color": excel_color(colors[k])}}
                              if k < len(colors) and excel_color(colors[k]) else None for k in ring]
        chart.add_series(spec)
        chart.set_title({"name": chart_text(title or fig.layout.title.text)})
        return self._insert(ws, chart, row, col + 5, len(table) + 1, len(ring))

    def _table_only(self, ws: Any, fig: Any, row: int, col: int) -> int:
        """Figures Excel cannot draw (3-D scatters): their data only."""
        trace = fig.data[0]
        columns: dict[str, Any] = {}
        for axis in ("x", "y", "z"):
            values = getattr(trace, axis, None)
            if values is not None:
                columns[axis] = [figure_text(v) for v in values]
        names = getattr(trace, "customdata", None)
        if names is not None and len(names):
            columns = {"layer": [figure_text(r[0]) for r in names], **columns}
        return self.write_table(ws, pd.DataFrame(columns), row, col) + 1

    # ------------------------------------------------------------------ reports
    def add_report(self, report_name: str) -> Any:
        """One sheet with every figure of a report (``report_card_perf_overview``, ...)."""
        builders = _report_builders()
        if report_name not in builders:
            raise ValueError(f"{report_name} is not a supported report: {list(builders)}")
        figures = {title: build(title=title) for title, build in builders[report_name](self.plan).items()}
        return self.add_figures(figures, REPORT_SHEETS[report_name])

    _add_report = add_report  # TREx's name

    def add_summary(self) -> Any:
        """The plan's headline facts, device, builder configuration and performance summary."""
        from .summary import model_summary

        facts = model_summary(self.plan)
        rows: list[tuple[str, str, Any]] = []
        for key in ("name", "layers", "average_time_ms", "weights_bytes", "activations_bytes",
                    "activation_footprint_bytes", "streams", "profile_iterations", "detailed"):
            rows.append(("Model", key, facts.get(key)))
        rows += [("Model", "inputs", "; ".join(facts["inputs"])),
                 ("Model", "outputs", "; ".join(facts["outputs"]))]
        for section, values in (("Device", self.plan.device_properties),
                                ("Builder configuration", self.plan.builder_cfg),
                                ("Performance summary", self.plan.performance_summary)):
            rows += [(section, str(k), v) for k, v in values.items()]
        rows += [("Warnings", str(i + 1), w) for i, w in enumerate(self.plan.warnings)]
        df = pd.DataFrame(rows, columns=["section", "attribute", "value"])
        return self.add_dataframe(df, "Summary", f"Engine summary: {self.plan.name}", autofilter=False)

    def add_plan(self) -> Any:
        """Every layer (TREx's ``plan.df``, cleaned for reading)."""
        return self.add_dataframe(clean_for_display(self.plan.df), "Plan", f"Layers of {self.plan.name}")

    def add_groupings(self) -> None:
        """Latency per layer type and per precision, with charts."""
        from .summary import latency_by_precision, latency_by_type

        for name, df, key in (("Latency by type", latency_by_type(self.plan), "type"),
                              ("Latency by precision", latency_by_precision(self.plan), "precision")):
            ws = self.add_dataframe(df, name, autofilter=False)
            n = len(df)
            if not n:
                continue
            sheet = ws.get_name()
            chart = self.book.add_chart({"type": "pie"})
            chart.add_series({"name": "Latency (ms)", "data_labels": {"percentage": True},
                              "categories": [sheet, 3, 0, 2 + n, 0],
                              "values": [sheet, 3, 2, 2 + n, 2]})
            chart.set_title({"name": f"Latency by {key}"})
            self._insert(ws, chart, 2, len(df.columns) + 1, n, n)

    def add_timings(self) -> Any | None:
        """Latency per iteration with p50/p90/p95/p99 (a chart) and the percentile table."""
        if self.plan.timings is None or self.plan.timings.empty:
            return None
        from .report import engine_timings_figure
        from .timings import latency_percentiles

        ws = self.add_figures({"Engine timing samples": engine_timings_figure(self.plan)}, "Timings")
        stats = latency_percentiles(self.plan)
        ws.write(0, 4, "Percentiles (ms)", self.bold)
        self.write_table(ws, stats, 1, 5)
        return ws

    def add_lint(self) -> Any:
        """Every linter finding (layer, linter, severity, hazard, evidence, mitigation), and the notes."""
        from .lint import lint_report

        report = lint_report(self.plan)
        df = report.df
        ws = self.add_dataframe(df, "Lint", f"Linter findings: {len(df)}")
        if report.notes:
            notes = pd.DataFrame({"note": report.notes})
            self.write_table(ws, notes, len(df) + 5, 0)
        return ws

    def generate_default_summary(self, save: bool = True) -> None:
        """Summary, Plan, latency groupings, the report sheets with charts, timings and linters."""
        self.add_summary()
        self.add_plan()
        self.add_groupings()
        for report in DEFAULT_REPORTS:
            self.add_report(report)
        self.add_timings()
        self.add_lint()
        if save:
            self.save()

    def save(self) -> str:
        """Write the workbook (once: a saved summary cannot be changed) and return its path.

        The file appears whole or not at all (a temporary file renamed into place)."""
        if not self._saved:
            self.book.close()
            with atomic_write(self.path, "wb") as fh:
                fh.write(self._buffer.getvalue())
            self._saved = True
            self._buffer = io.BytesIO()
        return self.path
