"""TREx's module name for engine comparison: ``from trex.compare_engines import ...`` still works."""

from .compare import *  # noqa: F401,F403

# TREx's notebook versions (they show their dropdowns in Jupyter; same results otherwise).
from .notebook import (  # noqa: E402,F401
    compare_engines_layer_details,
    compare_engines_layer_latencies,
    compare_engines_overview,
)
