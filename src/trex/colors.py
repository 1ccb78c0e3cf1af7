"""TREx's module name for graph colour tables: ``from trex.colors import ...`` still works."""

from .graph.colors import *  # noqa: F401,F403
