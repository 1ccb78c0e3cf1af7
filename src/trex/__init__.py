"""trex: explore TensorRT engine plans and their profiling data (successor of NVIDIA's TREx).

``import trex`` loads only the core (pandas and numpy); views with heavier dependencies are
imported on first use. ``from trex import *`` gives every name of TREx's notebooks (report card,
plotting, linters, graphs, engine comparison, ``partial``), each imported from its module then.
"""

from __future__ import annotations

import importlib
from typing import Any

from . import compat, errors
from .errors import InputError, TrexError, TrexNote, TrexWarning
from .model import Activation, EnginePlan, Layer, summary_dict

__version__ = "0.3.0"
errors.show_plainly()  # trex's warnings and notes as one line each, in notebooks too
compat.keep_renamed_modules()  # old module names (report, timings) stay importable

__all__ = [
    "Activation",
    "EnginePlan",
    "InputError",
    "Layer",
    "TrexError",
    "TrexNote",
    "TrexWarning",
    "summary_dict",
    "__version__",
]

# TREx's star-import names and module names, declared in trex.compat.
_LAZY: dict[str, str] = compat.STAR_NAMES
_MODULES = {name: f"trex.{name}" for name in compat.STAR_MODULES}

# Subpackages reachable as attributes without importing them first (not star-imported).
_SUBMODULES = {"compare", "compare_engines", "compute", "figures", "graph", "iteration_stats", "lint",
               "onnx_map", "report", "routes", "summary", "timings"}

__all__ += [*_LAZY, *_MODULES]

def __getattr__(name: str) -> Any:
    """Import a lazily provided name (or module) on first use."""
    if name in _MODULES:
        value = importlib.import_module(_MODULES[name])
    elif name in _LAZY:
        value = compat.resolve(name, _LAZY[name])
    elif name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value

def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | set(_MODULES) | _SUBMODULES)
