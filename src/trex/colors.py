"""TREx's ``colors``: :mod:`trex.graph.colors` (an alias declared in :mod:`trex.compat`)."""

from .compat import alias_module

__all__, __getattr__, __dir__ = alias_module("colors")
