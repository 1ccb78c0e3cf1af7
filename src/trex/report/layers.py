"""Layer subsets with TREx's ``attr.*`` columns: convolutions (implicit GEMM), reformats, pointwise.

Each accepts a plan or ``plan.df`` rows (e.g. ``plan.get_layers_by_type('Convolution')``, as TREx's
report card passes them), and returns a new DataFrame.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import pandas as pd

from ..compute import annotate_convolutions
from ..layer import Layer
from ..plan import EnginePlan
from ._common import Source

# plan.df columns computed from a layer, not read from its raw attributes.
_DERIVED = {"type", "subtype", "tactic", "precision", "output_precision", "total_io_size_bytes",
            "weights_size", "bias_size", "total_footprint_bytes", "profile"}


def raw_from_row(row: dict[str, Any]) -> dict[str, Any]:
    """The layer-information dict of a ``plan.df`` row (``Weights.Count`` back under ``Weights``)."""
    raw: dict[str, Any] = {"Name": row.get("Name", ""), "LayerType": row.get("subtype") or "Unknown",
                           "ParameterType": row.get("type"), "TacticName": row.get("tactic")}
    for key, value in row.items():
        if key in _DERIVED or key in raw or key.startswith(("latency.", "attr.")):
            continue
        if isinstance(value, float) and math.isnan(value):
            continue
        head, dot, sub = key.partition(".")
        if dot:
            raw.setdefault(head, {})[sub] = value
        else:
            raw[key] = value
    return raw


# The attribute columns the convolution views use: present even when no layer has them.
CONV_ATTRIBUTES = ("attr.groups", "attr.kernel", "attr.out_maps", "attr.stride", "attr.dilation")


def conv_layers(source: Source) -> pd.DataFrame:
    """Convolution rows with ``attr.macs``, ``attr.M/N/K``, intensity and efficiencies (TREx's columns)."""
    if isinstance(source, EnginePlan):
        out = annotate_convolutions(source)
    else:
        df = source[source["type"] == "Convolution"] if "type" in source.columns else source
        if "attr.macs" in df.columns:
            out = df.copy()
        else:
            layers = [Layer(raw_from_row(row)) for row in df.to_dict("records")]
            out = annotate_convolutions(SimpleNamespace(df=df, layers=layers))  # type: ignore[arg-type]
    for col in CONV_ATTRIBUTES:
        if col not in out.columns:
            out[col] = pd.Series([None] * len(out), index=out.index, dtype=object)
    return out


def reformat_layers(source: Source) -> pd.DataFrame:
    """Reformat rows with ``attr.origin`` (why TensorRT inserted the layer; ``unknown`` if not exported)."""
    df = source.df if isinstance(source, EnginePlan) else source
    out = df[df["type"] == "Reformat"].copy()
    if "attr.origin" not in out.columns:
        origin = out["Origin"] if "Origin" in out.columns else pd.Series(index=out.index,
                                                                         dtype=object)
        out["attr.origin"] = origin.where(origin.notna(), "unknown").astype(str)
    return out


def _first(row: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        value = row.get(key)
        if value is not None and not (isinstance(value, float) and math.isnan(value)):
            return value
    return None


def pointwise_layers(source: Source) -> pd.DataFrame:
    """PointWise rows with ``attr.operations``/``attr.n_operations`` (V1 Instructions, V2 Operations)."""
    df = source.df if isinstance(source, EnginePlan) else source
    out = df[df["type"] == "PointWise"].copy()
    ops, counts = [], []
    for row in out.to_dict("records"):
        operations = _first(row, "attr.operations", "Operations", "Instructions")
        operations = list(operations) if isinstance(operations, (list, tuple)) else []
        n = _first(row, "attr.n_operations", "NbOperations", "NbInstructions")
        ops.append(operations)
        counts.append(int(n) if n is not None else len(operations))
    out["attr.operations"] = ops
    out["attr.n_operations"] = pd.array(counts, dtype="int64")
    return out
