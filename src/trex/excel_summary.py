"""Alias of :mod:`trex.excel` under TREx's module name (``from trex.excel_summary import ExcelSummary``)."""

from .excel import *  # noqa: F401,F403
from .excel import __all__  # noqa: F401
