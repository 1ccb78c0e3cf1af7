"""TREx's module name for engine comparison: ``from trex.compare_engines import ...`` still works."""

from .compare import *  # noqa: F401,F403
