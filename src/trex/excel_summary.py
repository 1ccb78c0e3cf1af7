"""TREx's ``excel_summary``: :mod:`trex.excel` (an alias declared in :mod:`trex.compat`)."""

from .compat import alias_module

__all__, __getattr__, __dir__ = alias_module("excel_summary")
