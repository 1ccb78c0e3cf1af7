"""Alias of :mod:`trex.graph.colors` under TREx's module name ``colors``."""

from .graph.colors import *  # noqa: F401,F403
