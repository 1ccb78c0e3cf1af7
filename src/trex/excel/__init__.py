"""Excel workbooks of a plan (``trex[excel]``): :class:`ExcelSummary`, TREx's API.

:mod:`.workbook` lays out the sheets, :mod:`.charts` turns report figures into native Excel charts
and :mod:`.cells` writes values safely (text stays text).
"""

from .cells import cell_value, chart_text, excel_color, figure_text
from .workbook import DEFAULT_REPORTS, REPORT_SHEETS, ExcelSummary

__all__ = ["DEFAULT_REPORTS", "REPORT_SHEETS", "ExcelSummary", "cell_value", "chart_text",
           "excel_color", "figure_text"]
