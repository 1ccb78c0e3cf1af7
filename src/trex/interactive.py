"""Alias of :mod:`trex.jupyter.widgets` under TREx's module name ``interactive``."""

from .jupyter.widgets import *  # noqa: F401,F403
from .jupyter.widgets import __all__  # noqa: F401
