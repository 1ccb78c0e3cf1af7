"""TREx's ``graphing``: :mod:`trex.graph` (an alias declared in :mod:`trex.compat`)."""

from .compat import alias_module

__all__, __getattr__, __dir__ = alias_module("graphing")
