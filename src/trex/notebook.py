"""TREx's ``notebook``: :mod:`trex.jupyter` (an alias declared in :mod:`trex.compat`)."""

from .compat import alias_module

__all__, __getattr__, __dir__ = alias_module("notebook")
