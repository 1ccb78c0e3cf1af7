"""TREx's ``compare_engines``: :mod:`trex.compare` with the notebook versions of its views (an alias
declared in :mod:`trex.compat`)."""

from .compat import alias_module

__all__, __getattr__, __dir__ = alias_module("compare_engines")
