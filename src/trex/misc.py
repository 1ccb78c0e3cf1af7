"""Alias of :mod:`trex.report.frames` (and ``filter_by_layer``) under TREx's module name ``misc``."""

from .report.frames import *  # noqa: F401,F403
from .report.frames import __all__ as _frames_all
from .report.layers import LAYER_ATTRIBUTES, filter_by_layer

__all__ = [*_frames_all, "LAYER_ATTRIBUTES", "filter_by_layer"]
