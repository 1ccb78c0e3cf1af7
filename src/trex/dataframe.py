"""Build ``plan.df``: one row per layer with TREx's column names and meanings.

Columns: ``Name, type, subtype, tactic, Inputs, Outputs, precision, output_precision,
total_io_size_bytes, weights_size, total_footprint_bytes, latency.*``, then the raw attributes of
the layer-information file. Dict-valued attributes (``Weights``, ``Bias``) are flattened into
``Weights.Type``/``Weights.Count`` so that ``df.groupby("type").sum()`` works on pandas 2 and 3.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from .layer import Layer

LATENCY_COLUMNS = ("latency.time", "latency.avg_time", "latency.median_time", "latency.pct_time")
# Raw keys whose meaning moved to a TREx column, so they are not repeated as attributes.
_CONSUMED = {"Name", "LayerType", "ParameterType", "TacticName", "Inputs", "Outputs", "Metadata"}
# TREx turned these attribute columns into integers with 0 for "absent".
_INT_COLUMNS = ("Groups", "OutMaps", "HasBias", "HasReLU", "AllowSparse", "NbInputArgs",
                "NbOutputVars", "NbParams", "NbLiterals")


def layers_dataframe(
    layers: list[Layer],
    latencies: list[tuple[float, float, float, float] | None],
    profile_ids: list[int] | None = None,
) -> pd.DataFrame:
    """One row per layer; ``latencies[i]`` is (time, avg, median, pct) or None if unprofiled."""
    rows: list[dict[str, Any]] = []
    nan = math.nan
    for index, layer in enumerate(layers):
        raw = layer.raw_dict
        lat = latencies[index] if index < len(latencies) else None
        row: dict[str, Any] = {
            "Name": layer.name,
            "type": layer.type,
            "subtype": layer.subtype,
            "tactic": raw.get("TacticName") or "TensorRT",
            "Inputs": [t.raw for t in layer.inputs],
            "Outputs": [t.raw for t in layer.outputs],
            "precision": layer.precision,
            "output_precision": layer.output_precision,
            "total_io_size_bytes": layer.total_io_size_bytes,
            "weights_size": layer.weights_size,
            "bias_size": layer.bias_size,
            "total_footprint_bytes": layer.total_footprint_bytes,
            "latency.time": lat[0] if lat else nan,
            "latency.avg_time": lat[1] if lat else nan,
            "latency.median_time": lat[2] if lat else nan,
            "latency.pct_time": lat[3] if lat else nan,
            "Metadata": list(layer.metadata) if isinstance(layer.metadata, list) else [],
        }
        if profile_ids is not None:
            row["profile"] = profile_ids[index]
        for key, value in raw.items():
            if key in _CONSUMED:
                continue
            if isinstance(value, dict):
                for sub, subvalue in value.items():
                    row[f"{key}.{sub}"] = subvalue
            else:
                row[key] = value
        rows.append(row)
    df = pd.DataFrame.from_records(rows) if rows else pd.DataFrame(columns=_empty_columns())
    for col in _INT_COLUMNS:
        if col in df.columns:
            df[col] = pd.to_numeric(df[col], errors="coerce").fillna(0).astype("int64")
    for col in ("total_io_size_bytes", "weights_size", "bias_size", "total_footprint_bytes"):
        df[col] = df[col].astype("int64")
    for col in LATENCY_COLUMNS:
        df[col] = df[col].astype("float64")
    return df


def _empty_columns() -> list[str]:
    return ["Name", "type", "subtype", "tactic", "Inputs", "Outputs", "precision",
            "output_precision", "total_io_size_bytes", "weights_size", "bias_size",
            "total_footprint_bytes", *LATENCY_COLUMNS, "Metadata"]
