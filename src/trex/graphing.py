"""TREx's module name for engine graphs: ``from trex.graphing import to_dot, ...`` still works."""

from .graph import *  # noqa: F401,F403
