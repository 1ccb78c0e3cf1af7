"""TREx's ``misc``: the DataFrame helpers of :mod:`trex.figures.frames` and ``filter_by_layer`` (an
alias declared in :mod:`trex.compat`)."""

from .compat import alias_module

__all__, __getattr__, __dir__ = alias_module("misc")
