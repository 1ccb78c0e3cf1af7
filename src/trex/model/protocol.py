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
    bindings: list[str]

    @property
    def all_layers(self) -> list[Layer]:
        """Every layer, in engine order."""

    @property
    def layers(self) -> list[Layer]:
        """The layers of ``df``'s rows."""

    @property
    def constants(self) -> list[Layer]:
        """The Constant layers."""

    @property
    def sync_layers(self) -> list[Layer]:
        """The signal/wait layers."""

    @property
    def df(self) -> pd.DataFrame:
        """One row per layer (``EnginePlan.df``)."""

    def get_bindings(self) -> tuple[list[Activation], list[Activation]]:
        """(input bindings, output bindings) as Activations."""
