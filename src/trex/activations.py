"""Alias of :mod:`trex.model.tensors` under TREx's module name (``trex.activations.Activation``)."""

from .model.tensors import Activation

__all__ = ["Activation"]
