"""Values made JSON-ready for every JSON the views write (CLI output, the HTML report's data)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd


def json_value(value: Any) -> Any:
    """``value`` as JSON values: NaN/inf -> None, numpy scalars and arrays -> Python, tuples -> lists,
    DataFrames -> lists of records; anything else unknown -> its text."""
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, pd.DataFrame):
        return json_value(value.to_dict(orient="records"))
    if isinstance(value, np.ndarray):
        return [json_value(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return json_value(value.item())
    if value is pd.NA or value is pd.NaT:
        return None
    return str(value)
