"""TREx's ``plotting``: its plotly wrappers (:mod:`trex.jupyter.cards` shows their figure) and
colour tables (an alias declared in :mod:`trex.compat`)."""

from .compat import alias_module

__all__, __getattr__, __dir__ = alias_module("plotting")
