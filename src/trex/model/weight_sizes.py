"""Weights sizes from the exported ``{Type, Count}`` attributes: elements and bytes per layer
(weights and bias apart), from the typed records or, for a layer with other such attributes,
from its raw dict."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from msgspec import UNSET

from ..formats.layer_records import LayerRecord, TypedWeights, typed_weights
from ..formats.tensor_format import dtype_bytes


def weight_sizes(weight_dicts: Sequence[tuple[str, Any]]) -> tuple[int, int, int]:
    """(weights count, weights bytes, bias bytes) over ``{Type, Count}`` attributes of any dtype
    (FP8, INT4, BF16, FP4 included); a key with "bias" in its name is bias."""
    count = weights = bias = 0
    for key, value in weight_dicts:
        if type(value) is not dict or "Count" not in value or "Type" not in value:
            continue
        n = value["Count"]
        if type(n) is not int:
            try:
                n = int(n)
            except (TypeError, ValueError, OverflowError):  # None, "abc", NaN, inf
                continue
        dtype = value["Type"]
        size = _bytes_of(dtype if type(dtype) is str else str(dtype), n)
        if "bias" in key.lower():
            bias += size
        else:
            count += n
            weights += size
    return count, weights, bias


def weight_columns(records: Sequence[LayerRecord], raws: Any, positions: Sequence[int],
                   typed: TypedWeights | None = None) -> tuple[list[int], list[int], list[int]]:
    """Per record: weights count, weights bytes (bias left out) and bias bytes — from the typed
    {Type, Count} fields, or from the raw dict of a record with other such attributes.
    ``typed``: the reader's typed weights of every record (used when ``records`` are all)."""
    n = len(records)
    count, weights, bias = [0] * n, [0] * n, [0] * n
    sizes: dict[tuple[Any, Any], tuple[int, int] | None] = {}
    if typed is None or len(raws if raws is not None else ()) != n:  # another profile's rows
        typed = typed_weights(records)
    for field, (rows, values) in typed.items():
        is_bias = "bias" in field
        for i in rows:
            value = values[i]
            key = (value.type, value.count)
            try:
                size = sizes[key]
            except KeyError:
                size = sizes[key] = _count_and_bytes(*key)
            except TypeError:  # an unhashable Type or Count (a list): not a {Type, Count} pair
                size = _count_and_bytes(*key)
            if size is None:
                continue
            if is_bias:
                bias[i] += size[1]
            else:
                count[i] += size[0]
                weights[i] += size[1]
    for i, record in enumerate(records):
        if record.extra_weights:  # other {Type, Count} attributes: the raw dict has them all
            count[i], weights[i], bias[i] = weight_sizes(list(raws[positions[i]].items()))
    return count, weights, bias


def _count_and_bytes(dtype: Any, count: Any) -> tuple[int, int] | None:
    """(elements, bytes) of a typed {Type, Count} value; None when either is absent or the count
    is not a number."""
    if dtype is UNSET or count is UNSET:
        return None
    if type(count) is not int:
        try:
            count = int(count)
        except (TypeError, ValueError, OverflowError):  # None, "abc", NaN, inf
            return None
    return count, _bytes_of(dtype if type(dtype) is str else str(dtype), count)


@lru_cache(maxsize=4096)
def _bytes_of(dtype: str, n: int) -> int:
    """Bytes of ``n`` elements of a weights ``Type`` (memoised: layers repeat a few shapes)."""
    element_bytes = dtype_bytes(dtype)
    try:
        return int(round(n * element_bytes))
    except OverflowError:  # a count beyond float range: exact integer arithmetic
        return n * int(element_bytes * 8) // 8
