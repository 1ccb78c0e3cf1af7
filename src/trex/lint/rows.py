"""The per-layer facts the linters read, from the plan's layer table (no TREx Layer objects).

Row ``k`` is ``plan.layers[k]`` (``plan.df``'s row k): its name, kinds, precisions, tactic and
origin, its first input and output tensors (shape, format, size, name) as a Layer's
``inputs[0]``/``outputs[0]`` give them, and the graph's producers and consumers by tensor. Made
once per plan (several linters read the same facts).
"""

from __future__ import annotations

import math
from functools import cached_property
from operator import attrgetter, itemgetter
from typing import Any

import numpy as np
from msgspec import UNSET

from ..formats.layer_records import ATTRIBUTE_FIELDS
from ..model.plan import EnginePlan
from ..model.table import LayerTable, is_reformat

_CACHE = "_lint_rows"


class LintRows:
    """Columns of ``plan.layers``' facts, each a list indexed by the layer's position k."""

    def __init__(self, plan: EnginePlan):
        table: LayerTable = plan.table
        rows = plan.rows
        self._plan = plan
        self.table = table
        self.rows = rows
        self.names: list[str] = _take(table.names, rows)
        self.types: list[str] = _take(table.types, rows)
        self.subtypes: list[str] = _take(table.subtypes, rows)
        self.precisions: list[str | None] = _take(table.precisions, rows)
        self.output_precisions: list[str] = _take(table.output_precisions, rows)
        self.tactic_names: list[str | None] = _take(table.tactic_names, rows)
        self.origins: list[str | None] = _take(table.origins, rows)
        self.in_bytes_of: list[int] = _take(table.in_bytes, rows)  # inputs_size_bytes
        self.out_bytes_of: list[int] = _take(table.out_bytes, rows)  # outputs_size_bytes
        # average latency (ms) of each layer, NaN when unprofiled
        self.latencies: np.ndarray = np.asarray(plan.column("latency.avg_time"), dtype="float64")
        self._timings: dict[int, dict[str, float]] = {}
        starts = np.asarray(table.use_starts, dtype=np.int64)
        at = 2 * np.asarray(rows, dtype=np.int64)
        a, b, c = starts[at], starts[at + 1], starts[at + 2]
        # Each layer's inputs[0] and outputs[0] as uses (-1: none)
        self.first_in: list[int] = np.where(a < b, a, -1).tolist()
        self.first_out: list[int] = np.where(b < c, b, -1).tolist()
        self._spans = (a.tolist(), b.tolist(), c.tolist())
        self._shape: list[int] = table.view_shape.tolist()
        self._name: list[int] = table.use_name.tolist()

    def __len__(self) -> int:
        return len(self.rows)


    # ------------------------------------------------------------------ tensors
    def inputs(self, k: int) -> range:
        """The uses of layer k's inputs (constants included), in order."""
        return range(self._spans[0][k], self._spans[1][k])

    def outputs(self, k: int) -> range:
        """The uses of layer k's outputs, in order."""
        return range(self._spans[1][k], self._spans[2][k])

    def first_input(self, k: int) -> int | None:
        """Layer k's ``inputs[0]`` (a use), None without inputs."""
        use = self.first_in[k]
        return use if use >= 0 else None

    def first_output(self, k: int) -> int | None:
        """Layer k's ``outputs[0]`` (a use), None without outputs."""
        use = self.first_out[k]
        return use if use >= 0 else None

    def dims(self, use: int) -> tuple[int, ...]:
        """The use's shape as a tuple (read, not kept)."""
        return self.table.shapes[self._shape[use]][1]

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
        return self.in_bytes_of[k]

    def out_bytes(self, k: int) -> int:
        """Layer k's ``outputs_size_bytes``."""
        return self.out_bytes_of[k]

    def attribute(self, k: int, key: str, default: Any = None) -> Any:
        """One attribute of layer k as exported (:meth:`~trex.model.table.LayerTable.attribute`)."""
        return self.table.attribute(self.rows[k], key, default)

    def attributes(self, positions: list[int], key: str) -> list[Any]:
        """One typed attribute of each of the layers ``positions`` (None where absent)."""
        table, rows = self.table, self.rows
        field = ATTRIBUTE_FIELDS.get(key)
        if field is None:
            return [table.attribute(rows[k], key) for k in positions]
        records = table.attribute_records
        return [None if value is UNSET else value
                for value in map(attrgetter(field), [records[rows[k]] for k in positions])]

    @cached_property
    def reformats(self) -> list[int]:
        """The layers whose ``is_reformat`` is True (TensorRT's and Myelin's reformats)."""
        return [k for k, (kind, sub) in enumerate(zip(self.types, self.subtypes))
                if is_reformat(kind, sub)]

    def timing(self, k: int) -> dict[str, float]:
        """Layer k's latency evidence (:meth:`~trex.lint.base.Linter.layer_timing`), made once;
        shared, not to be changed."""
        found = self._timings.get(k)
        if found is None:
            found = self._timings[k] = self._timing(k)
        return found

    def _timing(self, k: int) -> dict[str, float]:
        if k >= len(self._latency_values) or not self.total_ms > 0:
            return {}
        ms = self._latency_values[k]
        if math.isnan(ms):
            return {}
        return {"latency_ms": round(ms, 4), "latency_pct": round(self.share(ms), 2)}

    def share(self, ms: float) -> float:
        """``ms`` as a percentage of the engine's summed layer latency (NaN without a profile)."""
        total = self.total_ms
        return 100.0 * ms / total if total > 0 and not math.isnan(ms) else math.nan

    @cached_property
    def _latency_values(self) -> list[float]:
        values: list[float] = self.latencies.tolist()
        return values

    @cached_property
    def total_ms(self) -> float:
        """Summed average latency of the layers in ms (0 without a profile)."""
        return float(np.nansum(self.latencies)) if len(self.latencies) else 0.0

    @cached_property
    def engine_io(self) -> tuple[set[str], set[str]]:
        """(engine input tensor names, engine output tensor names) as the layers see them."""
        inputs, outputs = self._plan.get_bindings()
        return {t.name for t in inputs}, {t.name for t in outputs}

    @cached_property
    def converts_engine_io(self) -> list[bool]:
        """Per layer: it reads an engine input (its first input) or writes an engine output."""
        inputs, outputs = self.engine_io
        names = self.table.tensor_names
        is_input = np.asarray([n in inputs for n in names] or [False], dtype=bool)
        is_output = np.asarray([n in outputs for n in names] or [False], dtype=bool)
        table, use_name = self.table, self.table.use_name
        first = self.first_in_array
        reads = np.zeros(len(first), dtype=bool)
        has = first >= 0
        reads[has] = is_input[use_name[first[has]]]
        position = np.full(len(table), -1, dtype=np.int64)  # table row -> layer k
        position[np.asarray(self.rows, dtype=np.int64)] = np.arange(len(self.rows))
        outs = table.row_uses(self.rows, True)
        outs = outs[is_output[use_name[outs]]]
        written = np.zeros(len(first), dtype=bool)
        written[position[table.use_row[outs]]] = True
        found: list[bool] = (reads | written).tolist()
        return found

    # ------------------------------------------------------------------ as arrays
    @cached_property
    def type_array(self) -> np.ndarray:
        """:attr:`types` as an object array (masks by type)."""
        return np.asarray(self.types, dtype=object)

    @cached_property
    def precision_array(self) -> np.ndarray:
        """:attr:`precisions` as an object array."""
        return np.asarray(self.precisions, dtype=object)

    @cached_property
    def output_precision_array(self) -> np.ndarray:
        """:attr:`output_precisions` as an object array."""
        return np.asarray(self.output_precisions, dtype=object)

    @cached_property
    def first_in_array(self) -> np.ndarray:
        """:attr:`first_in` as an array (-1: no inputs)."""
        return np.asarray(self.first_in, dtype=np.int64)

    @cached_property
    def first_out_array(self) -> np.ndarray:
        """:attr:`first_out` as an array (-1: no outputs)."""
        return np.asarray(self.first_out, dtype=np.int64)

    def second_dims(self, uses: np.ndarray, rank: int) -> tuple[np.ndarray, np.ndarray]:
        """(axis 1 of each use's shape, whether it has one: a use (not -1) whose shape has at
        least ``rank`` dimensions)."""
        shapes = self.table.shapes
        sizes = np.asarray([len(d) for _, d in shapes], dtype=np.int64)
        axis1 = np.asarray([d[1] if len(d) > 1 else 0 for _, d in shapes], dtype=np.int64)
        shape = np.asarray(self._shape, dtype=np.int64)
        sid = shape[np.where(uses >= 0, uses, 0)] if len(shape) else np.zeros(len(uses), np.int64)
        valid = (uses >= 0) & (sizes[sid] >= rank) if len(shapes) else np.zeros(len(uses), bool)
        return np.where(valid, axis1[sid] if len(shapes) else 0, 0), valid

    # ------------------------------------------------------------------ the graph
    @cached_property
    def producers(self) -> dict[int, int]:
        """Tensor (name id) -> the first layer k that writes it."""
        out: dict[int, int] = {}
        names = self._name
        _, b, c = self._spans
        for k, (start, end) in enumerate(zip(b, c)):
            for use in range(start, end):
                out.setdefault(names[use], k)
        return out

    @cached_property
    def consumers(self) -> dict[int, list[int]]:
        """Tensor (name id) -> the layers k that read it, in order (once per input)."""
        out: dict[int, list[int]] = {}
        names = self._name
        a, b, _ = self._spans
        for k, (start, end) in enumerate(zip(a, b)):
            for use in range(start, end):
                out.setdefault(names[use], []).append(k)
        return out

    def input_names(self, k: int) -> list[int]:
        """Layer k's input tensors (name ids), in order."""
        return self._name[self._spans[0][k]:self._spans[1][k]]

    def output_names(self, k: int) -> list[int]:
        """Layer k's output tensors (name ids), in order."""
        return self._name[self._spans[1][k]:self._spans[2][k]]


def _take(values: list[Any], rows: list[int]) -> list[Any]:
    """``[values[i] for i in rows]``, picked in C."""
    if not rows:
        return []
    if len(rows) == 1:
        return [values[rows[0]]]
    return list(itemgetter(*rows)(values))


def lint_rows(plan: EnginePlan) -> LintRows:
    """The plan's :class:`LintRows`, made once per plan."""
    found = plan.__dict__.get(_CACHE)
    if found is None:
        found = plan.__dict__[_CACHE] = LintRows(plan)
    return found


