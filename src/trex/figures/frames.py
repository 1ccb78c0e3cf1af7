"""DataFrame helpers (TREx's ``misc`` and ``df_preprocessing``): grouping, stacking, display cleaning.

Everything here takes and returns pandas objects; nothing is shown or printed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from ..model.tensors import Activation

__all__ = ["COMMON_COLUMNS", "HIDDEN_COLUMNS", "change_col_order", "clean_df", "clean_for_display",
           "clean_io", "create_activations", "drop_columns", "group_count", "group_mean_attr",
           "group_sum_attr", "hashable", "shape_to_str", "stack_dataframes", "stack_dicts",
           "tensors_text"]

# Columns TREx moves to the front of a displayed table, and the ones it leaves out.
COMMON_COLUMNS = ("Name", "type", "Inputs", "Outputs", "latency.avg_time", "latency.pct_time",
                  "total_footprint_bytes", "tactic")
HIDDEN_COLUMNS = ("subtype", "TacticValue", "precision", "total_io_size_bytes")


def hashable(values: pd.Series) -> pd.Series:
    """``values`` with list/dict cells turned into tuples/strings, so they can be grouped or coloured."""
    if values.dtype != object:
        return values

    def fix(v: Any) -> Any:
        if isinstance(v, list):
            return tuple(fix(x) for x in v)
        if isinstance(v, dict):
            return str(v)
        return v

    return values.map(fix)


def _grouper(df: pd.DataFrame, grouping_attr: str) -> pd.Series:
    return hashable(df[grouping_attr]).rename(grouping_attr)


def group_count(df: pd.DataFrame, grouping_attr: str) -> pd.DataFrame:
    """Number of rows per value of ``grouping_attr`` (columns: ``grouping_attr``, ``count``)."""
    if df.empty:
        return pd.DataFrame({grouping_attr: [], "count": pd.Series([], dtype="int64")})
    return (df.groupby(_grouper(df, grouping_attr), dropna=False).size()
            .reset_index(name="count"))


def group_sum_attr(df: pd.DataFrame, grouping_attr: str, reduced_attr: str | list[str]
                   ) -> pd.DataFrame:
    """Sum of ``reduced_attr`` per value of ``grouping_attr``."""
    return _reduce(df, grouping_attr, reduced_attr, "sum")


def group_mean_attr(df: pd.DataFrame, grouping_attr: str, reduced_attr: str | list[str]
                    ) -> pd.DataFrame:
    """Mean of ``reduced_attr`` per value of ``grouping_attr``."""
    return _reduce(df, grouping_attr, reduced_attr, "mean")


def _reduce(df: pd.DataFrame, grouping_attr: str, reduced_attr: str | list[str], how: str
            ) -> pd.DataFrame:
    cols = [reduced_attr] if isinstance(reduced_attr, str) else list(reduced_attr)
    if df.empty:
        return pd.DataFrame({c: [] for c in [grouping_attr, *cols]})
    grouped = df[cols].groupby(_grouper(df, grouping_attr), dropna=False)
    return getattr(grouped, how)().reset_index()


def shape_to_str(shape: Iterable[Any]) -> str:
    """``[1,3,224,224]``: a shape without spaces (TREx's format)."""
    return "[" + ",".join(str(dim) for dim in shape) + "]"


def stack_dicts(dict_list: Sequence[dict], empty_placeholder: Any = 0) -> dict[Any, list[Any]]:
    """Key -> its value in each dict (``empty_placeholder`` where a dict lacks it), first-seen order."""
    keys = list(dict.fromkeys(k for d in dict_list for k in d))
    return {k: [d.get(k, empty_placeholder) for d in dict_list] for k in keys}


def stack_dataframes(df_list: Sequence[pd.DataFrame], names_col: str, values_col: str,
                     empty_placeholder: Any = 0) -> dict[Any, list[Any]]:
    """Name -> its value in each DataFrame (``empty_placeholder`` where missing)."""
    return stack_dicts([dict(zip(df[names_col], df[values_col])) for df in df_list],
                       empty_placeholder)


def create_activations(layer: pd.Series | dict) -> tuple[list[Activation], list[Activation]]:
    """A ``plan.df`` row's inputs and outputs as :class:`~trex.layer.Activation` objects."""
    def tensors(value: Any) -> list[Activation]:
        return [Activation(t) for t in value] if isinstance(value, (list, tuple)) else []

    return tensors(layer["Inputs"]), tensors(layer["Outputs"])


def tensors_text(tensors: Any) -> Any:
    """``FP32 NCHW [1,3,224,224], ...``: a cell of ``Inputs``/``Outputs`` as text (other values kept)."""
    if not isinstance(tensors, (list, tuple)):
        return tensors
    return ", ".join(f"{a.format} {shape_to_str(a.shape)}" for a in (Activation(t) for t in tensors))


def clean_io(df: pd.DataFrame) -> pd.DataFrame:
    """Replace the tensor lists of ``Inputs`` and ``Outputs`` by short text, in place."""
    for col in ("Inputs", "Outputs"):
        if col in df.columns:
            df[col] = [tensors_text(v) for v in df[col]]
    return df


def drop_columns(df: pd.DataFrame, columns: Iterable[str]) -> pd.DataFrame:
    """Drop the listed columns that exist, in place."""
    for col in [c for c in columns if c in df.columns]:
        del df[col]
    return df


def change_col_order(df: pd.DataFrame) -> pd.DataFrame:
    """TREx's common columns first, the others after in their order."""
    front = [c for c in COMMON_COLUMNS if c in df.columns]
    return df[front + [c for c in df.columns if c not in front]]


def _empty(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    return isinstance(value, (list, tuple, dict, str)) and not value


def clean_df(df: pd.DataFrame, inplace: bool = True) -> pd.DataFrame:
    """TREx's ``clean_df``: tensors as text, empty cells as 0 (on ``df`` itself unless ``inplace=False``)."""
    out = df if inplace else df.copy()
    clean_io(out)
    for col in out.columns:
        if not pd.api.types.is_numeric_dtype(out[col]):
            out[col] = pd.Series([0 if _empty(v) else v for v in out[col]], index=out.index,
                                 dtype=object)
        elif out[col].isna().any():
            out[col] = out[col].fillna(0)
    return out


def clean_for_display(df: pd.DataFrame) -> pd.DataFrame:
    """A copy for tables: tensors as text, attribute columns empty in every row dropped, key columns first."""
    out = df.copy()
    clean_io(out)
    empty = [c for c in out.columns if c not in COMMON_COLUMNS
             and all(_empty(v) for v in out[c].tolist())]
    drop_columns(out, empty)
    for col in out.columns:  # lists and dicts (Metadata, Kernel, ...) as text
        if out[col].dtype == object:
            out[col] = [v if not isinstance(v, (list, tuple, dict)) else
                        ("" if not v else str(list(v) if isinstance(v, tuple) else v))
                        for v in out[col]]
    out = change_col_order(out)
    drop_columns(out, HIDDEN_COLUMNS)
    return out.reset_index(drop=True)


