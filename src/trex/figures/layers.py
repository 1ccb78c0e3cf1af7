"""Layer subsets with TREx's ``attr.*`` columns: convolutions (implicit GEMM), reformats, pointwise.

Each accepts a plan or ``plan.df`` rows (e.g. ``plan.get_layers_by_type('Convolution')``, as TREx's
report card passes them), and returns a new DataFrame. :func:`filter_by_layer` is TREx's
``get_layers_by_type``: one type's rows with its attributes renamed ``attr.*``.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from ..compute import annotate_convolutions
from ..compute.roofline import add_convolution_work
from ..model.layer import Layer
from ..model.plan import EnginePlan
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


# TREx's renaming of each layer type's attribute columns (None: the column is dropped).
LAYER_ATTRIBUTES: dict[str, dict[str, str | None]] = {
    "Convolution": {
        "subtype": "subtype", "Groups": "attr.groups", "OutMaps": "attr.out_maps",
        "Stride": "attr.stride", "Kernel": "attr.kernel", "HasBias": "attr.has_bias",
        "Activation": "attr.activation", "HasReLU": "attr.has_relu", "Dilation": "attr.dilation",
        "Weights.Type": "Weights.Type", "Weights.Count": "Weights.Count",
        "Operations": "attr.operations", "NbOperations": "attr.n_operations",
    },
    "PointWiseV2": {"Operations": "attr.operations", "NbOperations": "attr.n_operations",
                    "NbInputArgs": "attr.n_input_args"},
    "PointWise": {"Instructions": "attr.operations", "NbInstructions": "attr.n_operations",
                  "NbInputs": "attr.n_input_args"},
    "Reformat": {"Origin": "attr.origin"},
    "Pooling": {"PoolingType": "attr.pooling_type", "WindowSize": "attr.window_size",
                "PaddingMode": "attr.padding_mode", "Stride": "attr.stride"},
    "Scale": {"Mode": "attr.mode", "Shift": "attr.shift", "Scale": "attr.scale",
              "Power": "attr.power", "Activation": "attr.activation", "ChannelAxis": "attr.ch_axis"},
    "Shuffle": {"FirstTranspose": "attr.first_transpose", "SecondTranspose": "attr.second_transpose",
                "Reshape": "attr.reshape"},
    "Resize": {"ResizeMode": "attr.mode", "ResizeScales": "attr.scales", "NNRounding": "attr.scale"},
    "Slice": {"Start": "attr.start", "Stride": "attr.stride", "Size": "attr.size", "Mode": "attr.mode"},
}
_KEPT_COLUMNS = ("Name", "type", "precision", "tactic", "latency.pct_time", "latency.avg_time",
                 "total_io_size_bytes", "total_footprint_bytes", "Inputs", "Outputs", "subtype")


def filter_by_layer(df: pd.DataFrame, layer_type: str, plan: EnginePlan | None = None
                    ) -> pd.DataFrame:
    """TREx's table of one layer type: the common columns plus that type's attributes renamed
    ``attr.*``; convolutions also get TREx's ``attr.macs``, ``attr.M/N/K`` and efficiency columns.

    ``plan`` (the plan ``df`` belongs to) lets convolutions reuse its layers; without it they are
    rebuilt from the rows' tensors and attributes.
    """
    rows = df[df["type"] == layer_type] if len(df) else df
    if rows.empty:
        return rows.copy()
    kinds = ("PointWise", "PointWiseV2") if layer_type == "PointWise" else (layer_type,)
    wanted = set(_KEPT_COLUMNS)
    for kind in kinds:
        wanted |= set(LAYER_ATTRIBUTES.get(kind, {}))
    out = rows[[c for c in df.columns if c in wanted]].copy()
    if layer_type == "PointWise" and "subtype" in out.columns:  # V1 and V2 name the same things
        parts = [out[out["subtype"] == kind].rename(columns=LAYER_ATTRIBUTES[kind]) for kind in kinds]
        rest = out[~out["subtype"].isin(kinds)]
        return pd.concat([p for p in (*parts, rest) if len(p)])
    out = out.rename(columns={k: v for k, v in LAYER_ATTRIBUTES.get(layer_type, {}).items() if v})
    if layer_type == "Convolution":
        if "attr.kernel" in out.columns:
            out["attr.kernel"] = [tuple(v) if isinstance(v, list) else v for v in out["attr.kernel"]]
        add_convolution_work(out, _layers_of(rows, plan))
    return out


def _layers_of(rows: pd.DataFrame, plan: EnginePlan | None) -> list[Layer]:
    """The Layer of each row: the plan's own, or rebuilt from the row's tensors and attributes."""
    if plan is not None and len(plan.layers) == len(plan.df):
        position = {index: i for i, index in enumerate(plan.df.index)}
        return [plan.layers[position[index]] for index in rows.index]
    return [Layer(raw_from_row(row)) for row in rows.to_dict("records")]


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
            out = df.copy()
            for src, dst in LAYER_ATTRIBUTES["Convolution"].items():
                if src in out.columns and dst and dst != src:
                    out[dst] = [tuple(v) if isinstance(v, list) else v for v in out[src]]
            add_convolution_work(out, [Layer(raw_from_row(row)) for row in df.to_dict("records")])
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
