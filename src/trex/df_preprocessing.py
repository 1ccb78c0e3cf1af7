"""Alias of :mod:`trex.report.frames` under TREx's module name ``df_preprocessing``."""

from .misc import *  # noqa: F401,F403
from .misc import __all__  # noqa: F401
