"""Alias of :mod:`trex.model.plan` under TREx's module name (``from trex.engine_plan import EnginePlan``)."""

from .model.facts import summary_dict
from .model.plan import EnginePlan

__all__ = ["EnginePlan", "summary_dict"]
