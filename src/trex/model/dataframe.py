"""Build ``plan.df``: one row per layer with TREx's column names and meanings.

Columns: ``Name, type, subtype, tactic, Inputs, Outputs, precision, output_precision,
math_precision, total_io_size_bytes, weights_size, total_footprint_bytes, latency.*``, then the
raw attributes of the layer-information file (``math_precision`` is trex's: the math the kernel
runs, e.g. ``TF32 HMMA`` for an FP32 layer on Tensor Cores). Small dicts of scalars (``Weights``,
``Bias``) are flattened into ``Weights.Type``/``Weights.Count`` so that
``df.groupby("type").sum()`` works on pandas 2 and 3; any other nested value stays one cell (a
dict as its JSON text), and rare keys of a file with hundreds of them share one
``other_attributes`` column: memory follows the file's size.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..jsonable import json_value
from .latency import latency_shares
from .layer import math_precision
from .table import INT64_MAX, LayerTable, int64

LATENCY_COLUMNS = ("latency.time", "latency.avg_time", "latency.median_time", "latency.pct_time")
SIZE_COLUMNS = ("total_io_size_bytes", "weights_size", "bias_size", "total_footprint_bytes")
# Raw keys whose meaning moved to a TREx column, so they are not repeated as attributes.
_CONSUMED = {"Name", "LayerType", "ParameterType", "TacticName", "Inputs", "Outputs", "Metadata"}
# TREx turned these attribute columns into integers with 0 for "absent".
MAX_COLUMNS = 256  # attribute keys that always get a column (real exports have up to about 60)
SPARSE = 16  # beyond MAX_COLUMNS, a key needs to be in 1/SPARSE of the layers to get a column
OTHER_ATTRIBUTES = "other_attributes"
_FLAT_KEYS = 8
_INT_COLUMNS = ("Groups", "OutMaps", "HasBias", "HasReLU", "AllowSparse", "NbInputArgs",
                "NbOutputVars", "NbParams", "NbLiterals")


@dataclass(frozen=True)
class LayerLatency:
    """The per-layer profile joined to ``df``'s rows: time, average, median (ms) and share (%),
    NaN where a layer has no profile row (:mod:`.latency` defines the share)."""

    time: np.ndarray
    avg: np.ndarray
    median: np.ndarray
    pct: np.ndarray

    @classmethod
    def unknown(cls, n: int) -> LayerLatency:
        """No per-layer profile: every figure NaN."""
        nan = np.full(n, math.nan)
        return cls(nan, nan, nan, nan)

    @classmethod
    def of(cls, time: list[float], avg: list[float], median: list[float]) -> LayerLatency:
        """From the joined profile rows; the share computed once, here."""
        avg_array = np.asarray(avg, dtype="float64")
        return cls(np.asarray(time, dtype="float64"), avg_array,
                   np.asarray(median, dtype="float64"), latency_shares(avg_array))


def table_dataframe(table: LayerTable, rows: list[int], latency: LayerLatency) -> pd.DataFrame:
    """One row per layer of ``rows``, built column by column from the plan's columns; the raw
    attribute columns from the layers as exported (decoded now, if they were not yet)."""
    n = len(rows)
    names, types, subtypes, tactics = table.names, table.types, table.subtypes, table.tactic_names
    precisions = table.precisions
    precision = [precisions[i] for i in rows]
    columns: dict[str, Any] = {
        "Name": [names[i] for i in rows],
        "type": [types[i] for i in rows],
        "subtype": [subtypes[i] for i in rows],
        "tactic": [tactics[i] or "TensorRT" for i in rows],
        # The tensors as exported (a folded NoOp's edge rewired to the producer's name).
        "Inputs": [table.exported_tensors(i, False) for i in rows],
        "Outputs": [table.exported_tensors(i, True) for i in rows],
        "precision": precision,
        "output_precision": [table.output_precisions[i] for i in rows],
        "math_precision": [math_precision(tactics[i], subtypes[i], p)
                           for i, p in zip(rows, precision)],
        # Numbers as typed arrays: pandas need not infer their type (int64 sizes are clamped;
        # latencies are floats or NaN).
        **{name: size_column(table, rows, name) for name in SIZE_COLUMNS},
        "latency.time": latency.time,
        "latency.avg_time": latency.avg,
        "latency.median_time": latency.median,
        "latency.pct_time": latency.pct,
        "Metadata": [table.onnx_nodes[i] for i in rows],
    }
    raws, index = table.raws, table.raw_index
    attributes, other = _attribute_columns([raws[index[i]] for i in rows])
    for key, values in attributes.items():
        if key not in columns:
            columns[key] = values
    if other is not None:
        columns[OTHER_ATTRIBUTES] = other
    df: pd.DataFrame = pd.DataFrame(columns if n else {c: [] for c in _empty_columns()})
    for col in _INT_COLUMNS:
        if col in df.columns:
            df[col] = _int_column(df[col])
    for col in SIZE_COLUMNS:
        df[col] = df[col].astype("int64")
    for col in LATENCY_COLUMNS:
        df[col] = df[col].astype("float64")
    return df


def size_column(table: LayerTable, rows: list[int], name: str) -> np.ndarray:
    """One of the byte columns (:data:`SIZE_COLUMNS`) of ``rows`` as int64 (clamped, see
    :func:`~trex.model.table.int64`): ``plan.df`` and ``plan.column`` both read it here."""
    parts = {"total_io_size_bytes": (table.in_bytes, table.out_bytes),
             "weights_size": (table.weights_bytes, table.bias_bytes), "bias_size": (table.bias_bytes,),
             "total_footprint_bytes": (table.in_bytes, table.out_bytes, table.weights_bytes,
                                       table.bias_bytes)}[name]
    if all(min(part, default=0) >= 0 for part in parts) and \
            sum(max(part, default=0) for part in parts) <= INT64_MAX:  # no clamp can apply
        picked = np.asarray(rows, dtype=np.int64)
        out = np.zeros(len(rows), dtype=np.int64)
        for part in parts:
            out += np.asarray(part, dtype=np.int64)[picked]
        return out
    if name == "total_io_size_bytes":
        return _int64s(table.io_bytes(i) for i in rows)
    if name == "weights_size":
        return _int64s(table.weights_size(i) for i in rows)
    if name == "bias_size":
        return _int64s(int64(table.bias_bytes[i]) for i in rows)
    if name == "total_footprint_bytes":
        return _int64s(int64(table.io_bytes(i) + table.weights_size(i)) for i in rows)
    raise KeyError(name)


def _int_column(values: pd.Series) -> pd.Series:
    """TREx's integer attribute columns: numbers as int64, 0 for absent, text, infinite or out of
    int64's range (a corrupt file's 10**400)."""
    if values.dtype == object:
        values = values.map(lambda v: v if not isinstance(v, int) or -2**63 < v < 2**63
                            else math.nan)
    numbers = pd.to_numeric(values, errors="coerce")
    numbers = numbers.where(numbers.abs() < 2**63, 0)  # inf or out of range: as missing
    out: pd.Series = numbers.fillna(0).astype("int64")
    return out


def _int64s(values: Iterable[int]) -> np.ndarray:
    return np.fromiter(values, dtype=np.int64)


def _floats(values: Iterable[float]) -> np.ndarray:
    return np.fromiter(values, dtype=np.float64)


def _attribute_columns(layers: list[dict[str, Any]]
                       ) -> tuple[dict[str, list[Any]], list[Any] | None]:
    """The raw attributes as columns (first seen first), and the ``other_attributes`` column
    (None when every key has a column of its own).

    A small dict of scalars (``Weights``: ``{Type, Count}``) gives a column per key as TREx's
    flattening did; any other dict is one cell, its JSON text. When there are more than
    ``MAX_COLUMNS`` keys, only those in at least 1/``SPARSE`` of the layers get a column and the
    others go together into ``other_attributes``: a column costs a cell per layer, so memory
    stays a small multiple of the file's size (2,000 layers with 200 keys of their own each
    would otherwise be 400,000 columns)."""
    n = len(layers)
    counts: Counter[str] = Counter()
    for layer in layers:
        for key, value in layer.items():
            if key in _CONSUMED:
                continue
            if type(value) is dict and _flattened(value):
                counts.update(f"{key}.{sub}" for sub in value)
            else:
                counts[key] += 1
    kept = set(counts) if len(counts) <= MAX_COLUMNS else {
        key for key, count in counts.items() if count * SPARSE >= n}
    columns: dict[str, list[Any]] = {key: [] for key in counts if key in kept}
    for key in columns:
        columns[key] = [math.nan] * n
    other: list[Any] | None = [math.nan] * n if len(kept) < len(counts) else None
    for index, layer in enumerate(layers):
        rest: dict[str, Any] = {}
        for key, value in layer.items():
            if key in _CONSUMED:
                continue
            if type(value) is dict:
                if _flattened(value):
                    for sub, subvalue in value.items():
                        name = f"{key}.{sub}"
                        if name in kept:
                            columns[name][index] = subvalue
                        else:
                            rest[name] = subvalue
                    continue
                value = _json_text(value)
            if key in kept:
                columns[key][index] = value
            else:
                rest[key] = value
        if rest and other is not None:
            other[index] = _json_text(rest)
    return columns, other


def _flattened(value: dict[Any, Any]) -> bool:
    """A dict that becomes a column per key: a few scalars (``Weights``: ``{Type, Count}``)."""
    return len(value) <= _FLAT_KEYS and all(type(v) not in (dict, list) for v in value.values())


def _json_text(value: Any) -> str:
    """A nested value as compact JSON text (values JSON cannot hold as their text; nesting cut
    at ``jsonable.MAX_DEPTH`` when it is deeper than Python's encoder goes)."""
    try:
        return json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))
    except (RecursionError, ValueError):
        return json.dumps(json_value(value), ensure_ascii=False, separators=(",", ":"))


def _empty_columns() -> list[str]:
    return ["Name", "type", "subtype", "tactic", "Inputs", "Outputs", "precision",
            "output_precision", "math_precision", "total_io_size_bytes", "weights_size", "bias_size",
            "total_footprint_bytes", *LATENCY_COLUMNS, "Metadata"]
