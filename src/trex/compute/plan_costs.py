"""The cost of every layer of a plan (:func:`~trex.compute.costs.layer_cost`), from its layer table.

A cost depends on the layer's kind, its tensors' shapes and formats (and which inputs are
weights), its weights and the attributes its formula reads (:func:`attribute_keys`): layers
alike in all of these — a network repeats a few geometries — are costed once, from a light view
of one table row (no TREx Layer objects, no raw dicts decoded). Computed once per plan; the
roofline, the linters and the layer details read it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import msgspec
import numpy as np
import pandas as pd

from ..model.plan import EnginePlan
from ..model.table import LayerTable
from ..model.tensors import Activation
from .costs import Cost, attribute_keys, layer_cost

_CACHE = "_plan_costs"  # the plan's attribute that keeps them


class RowLayer:
    """One row of a layer table as the cost formulas read a Layer: kinds, tensors (the table's
    Activations), weights and typed attributes."""

    __slots__ = ("_table", "_i", "type", "subtype", "inputs", "outputs", "activation_inputs",
                 "weights_cnt", "weights_size")

    def __init__(self, table: LayerTable, i: int):
        self._table, self._i = table, i
        self.type: str = table.types[i]
        self.subtype: str = table.subtypes[i]
        self.inputs: list[Activation] = table.inputs(i)
        self.outputs: list[Activation] = table.outputs(i)
        constants = table.constant_inputs(i)
        self.activation_inputs: list[Activation] = self.inputs if not constants else \
            [t for t in self.inputs if t not in constants]
        self.weights_cnt: int = table.weights_count[i]
        self.weights_size: int = table.weights_size(i)

    def attribute(self, key: str, default: Any = None) -> Any:
        """One attribute as exported (:meth:`~trex.model.table.LayerTable.attribute`)."""
        return self._table.attribute(self._i, key, default)


@dataclass
class PlanCosts:
    """Per ``plan.df`` row, its :class:`~trex.compute.costs.Cost`: ``index[k]`` into ``costs``
    (the distinct ones)."""

    costs: list[Cost]
    index: np.ndarray

    def __len__(self) -> int:
        return len(self.index)

    def cost(self, k: int) -> Cost:
        """Row k's cost (a copy: the caller may change it)."""
        return dataclasses.replace(self.costs[int(self.index[k])])

    def column(self, field: str) -> list[Any]:
        """One field of every row's cost (``model``, ``macs``, ``bytes``, ...)."""
        values = [getattr(c, field) for c in self.costs]
        return [values[j] for j in self.index.tolist()]

    def ints(self, field: str) -> pd.arrays.IntegerArray:
        """An int field that may be None (``macs``, ``m``, ``n``, ``k``) as an Int64 array."""
        values = [getattr(c, field) for c in self.costs]
        mask = np.array([v is None for v in values], dtype=bool)
        data = np.array([0 if v is None else v for v in values], dtype="int64")
        return pd.arrays.IntegerArray(data[self.index], mask[self.index])

    def numbers(self, field: str, dtype: str) -> np.ndarray:
        """A numeric field (None as NaN for floats) as an array of ``dtype``."""
        values = [getattr(c, field) for c in self.costs]
        if dtype == "float64":
            values = [np.nan if v is None else v for v in values]
        array: np.ndarray = np.array(values, dtype=dtype)[self.index]
        return array


def plan_costs(plan: EnginePlan) -> PlanCosts:
    """The cost of each of ``plan``'s df rows, computed once per plan."""
    found = plan.__dict__.get(_CACHE)
    if found is None:
        found = plan.__dict__[_CACHE] = table_costs(plan.table, plan.rows)
    return found


def row_cost(plan: EnginePlan, k: int) -> Cost:
    """The cost of ``plan.df``'s row k (a copy): from :func:`plan_costs` once made, else of the
    row alone (a linter asking for a few rows)."""
    found = plan.__dict__.get(_CACHE)
    if found is not None:
        return found.cost(k)
    return layer_cost(RowLayer(plan.table, plan.rows[k]))  # type: ignore[arg-type]


def table_costs(table: LayerTable, rows: list[int]) -> PlanCosts:
    """:func:`~trex.compute.costs.layer_cost` of each of ``rows``, once per distinct signature
    (kind, subtype, each tensor's (format, shape) and weight flag, weights, attributes read)."""
    starts = table.use_starts
    codes = (table.view_shape * 2 + table.constant).tolist()
    types, subtypes, count, weights, bias = (table.types, table.subtypes, table.weights_count,
                                             table.weights_bytes, table.bias_bytes)
    records = table.attribute_records
    getters: dict[tuple[str, str], Any] = {}
    memo: dict[tuple[Any, ...], int] = {}
    costs: list[Cost] = []
    index = np.empty(len(rows), dtype=np.int64)
    for k, i in enumerate(rows):
        kind, sub = types[i], subtypes[i]
        getter = getters.get((kind, sub))
        if getter is None and (kind, sub) not in getters:
            getter = getters[(kind, sub)] = _getter(table, kind, sub)
        a, b = starts[2 * i], starts[2 * i + 1]
        attributes = _encode(getter(records[i])) if getter is not None else b""
        key = (kind, sub, tuple(codes[a:starts[2 * i + 2]]), b - a, count[i],
               weights[i] + bias[i], attributes)
        j = memo.get(key) if b"null" not in attributes else None
        if j is None:
            j = len(costs)
            costs.append(layer_cost(RowLayer(table, i)))  # type: ignore[arg-type]
            if b"null" not in attributes:  # null: None, NaN or infinity, which formulas tell apart
                memo[key] = j
        index[k] = j
    return PlanCosts(costs, index)


# The attributes as JSON text (the memo key; an absent one, UNSET, as a text no file holds).
_encode = msgspec.json.Encoder(enc_hook=lambda value: "\x00absent").encode


def _getter(table: LayerTable, kind: str, sub: str) -> Any:
    keys = attribute_keys(kind, sub)
    return table.attribute_getter(keys) if keys else None
