"""The per-layer facts the linters read, from the plan's layer table (no TREx Layer objects).

Row ``k`` is ``plan.layers[k]`` (``plan.df``'s row k): its name, kinds, precisions, tactic and
origin, its first input and output tensors (shape, format, size, name) as a Layer's
``inputs[0]``/``outputs[0]`` give them, and the graph's producers and consumers by tensor. Made
once per plan (several linters read the same facts).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from ..model.plan import EnginePlan
from ..model.table import LayerTable

_CACHE = "_lint_rows"


class LintRows:
    """Columns of ``plan.layers``' facts, each a list indexed by the layer's position k."""

    def __init__(self, plan: EnginePlan):
        table: LayerTable = plan.table
        rows = plan.rows
        self.table = table
        self.rows = rows
        self.names: list[str] = [table.names[i] for i in rows]
        self.types: list[str] = [table.types[i] for i in rows]
        self.subtypes: list[str] = [table.subtypes[i] for i in rows]
        precisions, outputs = table.precisions, table.output_precisions
        self.precisions: list[str | None] = [precisions[i] for i in rows]
        self.output_precisions: list[str] = [outputs[i] for i in rows]
        self.tactic_names: list[str | None] = [table.tactic_names[i] for i in rows]
        self.origins: list[str | None] = [table.origins[i] for i in rows]
        starts = table.use_starts
        self._inputs = [(starts[2 * i], starts[2 * i + 1]) for i in rows]
        self._outputs = [(starts[2 * i + 1], starts[2 * i + 2]) for i in rows]
        self._shape: list[int] = table.view_shape.tolist()
        self._name: list[int] = table.use_name.tolist()

    def __len__(self) -> int:
        return len(self.rows)

    # ------------------------------------------------------------------ tensors
    def inputs(self, k: int) -> range:
        """The uses of layer k's inputs (constants included), in order."""
        return range(*self._inputs[k])

    def outputs(self, k: int) -> range:
        """The uses of layer k's outputs, in order."""
        return range(*self._outputs[k])

    def first_input(self, k: int) -> int | None:
        """Layer k's ``inputs[0]`` (a use), None without inputs."""
        a, b = self._inputs[k]
        return a if a < b else None

    def first_output(self, k: int) -> int | None:
        """Layer k's ``outputs[0]`` (a use), None without outputs."""
        a, b = self._outputs[k]
        return a if a < b else None

    def shape(self, use: int) -> list[int]:
        """The use's shape (an Activation's ``shape``)."""
        return list(self.table.shapes[self._shape[use]][1])

    def rank(self, use: int) -> int:
        """How many dimensions the use's shape has."""
        return len(self.table.shapes[self._shape[use]][1])

    def dim(self, use: int, axis: int) -> int:
        """One dimension of the use's shape."""
        return self.table.shapes[self._shape[use]][1][axis]

    def format(self, use: int) -> str:
        """The use's format as an Activation's ``format`` gives it."""
        return self.table.shapes[self._shape[use]][0].short

    def precision(self, use: int) -> str:
        """The use's data type (an Activation's ``precision``)."""
        return self.table.shapes[self._shape[use]][0].precision

    def bits(self, use: int) -> Any:
        """Bits per element of the use's format (``tensor_format.bits``)."""
        return self.table.shapes[self._shape[use]][0].bits

    def size_bytes(self, use: int) -> int:
        """The use's size in bytes (an Activation's ``size_bytes``)."""
        return self.table.shape_size[self._shape[use]]

    def name_id(self, use: int) -> int:
        """The use's tensor, as an index into the table's ``tensor_names``."""
        return self._name[use]

    def tensor_name(self, use: int) -> str:
        """The use's tensor name (an Activation's ``name``)."""
        return self.table.tensor_names[self._name[use]]

    def in_bytes(self, k: int) -> int:
        """Layer k's ``inputs_size_bytes`` (constants left out)."""
        return self.table.in_bytes[self.rows[k]]

    def out_bytes(self, k: int) -> int:
        """Layer k's ``outputs_size_bytes``."""
        return self.table.out_bytes[self.rows[k]]

    def attribute(self, k: int, key: str, default: Any = None) -> Any:
        """One attribute of layer k as exported (:meth:`~trex.model.table.LayerTable.attribute`)."""
        return self.table.attribute(self.rows[k], key, default)

    # ------------------------------------------------------------------ the graph
    @cached_property
    def producers(self) -> dict[int, int]:
        """Tensor (name id) -> the first layer k that writes it."""
        out: dict[int, int] = {}
        names = self._name
        for k, (a, b) in enumerate(self._outputs):
            for use in range(a, b):
                out.setdefault(names[use], k)
        return out

    @cached_property
    def consumers(self) -> dict[int, list[int]]:
        """Tensor (name id) -> the layers k that read it, in order (once per input)."""
        out: dict[int, list[int]] = {}
        names = self._name
        for k, (a, b) in enumerate(self._inputs):
            for use in range(a, b):
                out.setdefault(names[use], []).append(k)
        return out

    def input_names(self, k: int) -> list[int]:
        """Layer k's input tensors (name ids), in order."""
        a, b = self._inputs[k]
        return self._name[a:b]

    def output_names(self, k: int) -> list[int]:
        """Layer k's output tensors (name ids), in order."""
        a, b = self._outputs[k]
        return self._name[a:b]


def lint_rows(plan: EnginePlan) -> LintRows:
    """The plan's :class:`LintRows`, made once per plan."""
    found = plan.__dict__.get(_CACHE)
    if found is None:
        found = plan.__dict__[_CACHE] = LintRows(plan)
    return found

