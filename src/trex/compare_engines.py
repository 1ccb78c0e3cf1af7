"""Alias of :mod:`trex.compare` (and its notebook views) under TREx's module name ``compare_engines``."""

from .compare import *  # noqa: F401,F403

# TREx's notebook versions (they show their dropdowns in Jupyter; same results otherwise).
from .jupyter import (  # noqa: E402,F401
    compare_engines_layer_details,
    compare_engines_layer_latencies,
    compare_engines_overview,
)
