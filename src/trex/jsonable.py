"""Values made JSON-ready for every JSON the views write (CLI output, the HTML report's data)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

MAX_DEPTH = 64  # nesting kept; deeper attribute values (a corrupt file) are cut
TOO_DEEP = "[nested too deep]"
_PLAIN = frozenset({str, int, bool, type(None)})  # JSON values as they are (no call needed)


def json_value(value: Any, _depth: int = 0) -> Any:
    """``value`` as JSON values: NaN/inf -> None, numpy scalars and arrays -> Python, tuples -> lists,
    DataFrames -> lists of records; anything else unknown -> its text. Containers nested deeper
    than ``MAX_DEPTH`` become the text ``"[nested too deep]"`` (no RecursionError)."""
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    depth = _depth + 1
    if isinstance(value, (dict, list, tuple, pd.DataFrame, np.ndarray)) and depth > MAX_DEPTH:
        return TOO_DEEP
    if isinstance(value, dict):
        return {str(k): v if type(v) in _PLAIN or (type(v) is float and math.isfinite(v))
                else json_value(v, depth) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [v if type(v) in _PLAIN else json_value(v, depth) for v in value]
    if isinstance(value, pd.DataFrame):
        return json_value(value.to_dict(orient="records"), _depth)
    if isinstance(value, np.ndarray):
        return [json_value(v, depth) for v in value.tolist()]
    if isinstance(value, np.generic):
        return json_value(value.item(), _depth)
    if value is pd.NA or value is pd.NaT:
        return None
    return str(value)
