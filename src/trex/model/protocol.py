"""What "anything plan-like" means: a whole plan or a selection of its layers (``beam``, ``query``)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import pandas as pd

from .layer import Layer
from .tensors import Activation


@runtime_checkable
class PlanLike(Protocol):
    """The graph API that drawings, linters and exports need from a plan or a subgraph."""

    name: str
    detailed: bool
    all_layers: list[Layer]
    layers: list[Layer]
    constants: list[Layer]
    sync_layers: list[Layer]
    bindings: list[str]

    @property
    def df(self) -> pd.DataFrame:
        """One row per layer (``EnginePlan.df``)."""

    def get_bindings(self) -> tuple[list[Activation], list[Activation]]:
        """(input bindings, output bindings) as Activations."""
