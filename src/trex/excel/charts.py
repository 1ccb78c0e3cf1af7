"""Report figures as native Excel charts (bar, column, pie, scatter), beside their data.

:class:`FigureCharts` is mixed into :class:`~trex.excel.workbook.ExcelSummary`: it writes a
plotly figure's data as a table and draws Excel's own chart of it, so no image renderer is needed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .cells import cell_value, chart_text, excel_color, figure_text

MAX_CHART_POINTS = 32000  # points per series Excel 2007 draws
CHART_SIZE = {"x_scale": 1.5, "y_scale": 1.25}  # 720 x 360 px
CHART_ROWS = 20


class FigureCharts:
    """Figures to sheets: the data as a table, the chart beside it.

    Mixed into :class:`~trex.excel.workbook.ExcelSummary`, which provides the workbook, the cell
    formats and ``write_cell``/``write_table``/``_worksheet``.
    """

    book: Any
    bold: Any
    title: Any
    header: Any
    max_chart_points: int

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
