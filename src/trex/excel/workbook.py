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

import io
import os
import re
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from ..figures.frames import clean_for_display
from ..model.plan import EnginePlan
from ..safety import atomic_write, is_formula_like, well_formed
from .cells import MAX_SHEET_NAME, cell_value
from .charts import MAX_CHART_POINTS, FigureCharts

_BAD_SHEET_CHARS = re.compile(r"[\[\]:*?/\\]")


def _report_builders() -> dict[str, Callable[[EnginePlan], dict[str, Callable[..., Any]]]]:
    from ..figures import (
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


class ExcelSummary(FigureCharts):
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
        base = _BAD_SHEET_CHARS.sub("_", well_formed(str(name))).strip("'") or "Sheet"
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
        from ..summary import model_summary

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
        from ..summary import latency_by_precision, latency_by_type

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
        """The percentile table of the timed iterations, then latency per iteration with
        p50/p90/p95/p99 (its data and a chart; the warm-up iterations a series of their own)."""
        if self.plan.timings is None or self.plan.timings.empty:
            return None
        from ..figures import engine_timings_figure
        from ..iteration_stats import latency_percentiles

        ws = self._worksheet("Timings")
        self.write_cell(ws, 0, 0, "Timings", self.title)
        stats = latency_percentiles(self.plan)
        warmup = self.plan.warmup
        self.write_cell(ws, 2, 0, f"Percentiles (ms) of the timed iterations; the {warmup.iterations} "
                                  f"in trtexec's {warmup.ms:g} ms warm-up left out", self.bold)
        self.write_table(ws, stats, 3, 0)
        row = 3 + len(stats) + 3
        self.write_cell(ws, row, 0, "Engine timing samples", self.bold)
        self.add_figure(ws, engine_timings_figure(self.plan), row + 1, 0, "Engine timing samples")
        return ws

    def add_lint(self) -> Any:
        """Every linter finding (layer, linter, severity, hazard, evidence, mitigation), and the notes."""
        from ..lint import lint_report

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
            with atomic_write(self.path, "wb", what="the workbook") as fh:
                fh.write(self._buffer.getvalue())
            self._saved = True
            self._buffer = io.BytesIO()
        return self.path
