"""Alias of :mod:`trex.jupyter` under TREx's module name (``from trex.notebook import *``)."""

from .jupyter import *  # noqa: F401,F403
from .jupyter import __all__  # noqa: F401
