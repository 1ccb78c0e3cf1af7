"""Alias of :mod:`trex.model.layer` under TREx's module name (``from trex.layer import Layer``)."""

from .model.layer import Layer, fold_no_ops
from .model.tensors import Activation

__all__ = ["Activation", "Layer", "fold_no_ops"]
