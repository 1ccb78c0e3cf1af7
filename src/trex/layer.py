"""TREx's ``layer``: ``Layer``, ``Activation`` and ``fold_no_ops`` (an alias declared in
:mod:`trex.compat`)."""

from .compat import alias_module

__all__, __getattr__, __dir__ = alias_module("layer")
