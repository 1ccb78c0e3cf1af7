"""TREx's module name for DataFrame helpers: ``from trex.df_preprocessing import ...`` still works."""

from .misc import *  # noqa: F401,F403
