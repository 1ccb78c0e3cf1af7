"""Alias of :mod:`trex.graph` under TREx's module name ``graphing``."""

from .graph import *  # noqa: F401,F403
