"""trex: explore TensorRT engine plans and their profiling data (successor of NVIDIA's TREx).

``import trex`` loads only the core (pandas and numpy); views with heavier dependencies are
imported on first use.
"""

from __future__ import annotations

from .errors import InputError, TrexError, TrexWarning
from .layer import Activation, Layer
from .plan import EnginePlan, summary_dict

__version__ = "0.3.0"

__all__ = [
    "Activation",
    "EnginePlan",
    "InputError",
    "Layer",
    "TrexError",
    "TrexWarning",
    "summary_dict",
    "__version__",
]
