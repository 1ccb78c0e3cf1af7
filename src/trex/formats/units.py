"""Numbers with units as TensorRT tools print them, converted one way for every reader.

Times become milliseconds (or seconds where trtexec reports seconds), clocks GHz, memory bytes.
Values that are not finite numbers, or units that are not known, give None: a caller shows them as
missing rather than as zero.
"""

from __future__ import annotations

import math
import re
from typing import Any

NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?i:nan|inf(?:inity)?)\b"
NUMBER_UNIT = re.compile(rf"(?<![A-Za-z_])(?P<num>{NUMBER})\s*(?P<unit>[A-Za-zµ]+)?")
_LEADING = re.compile(r"\s*(-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|-?\.\d+)")

PLAUSIBLE_MS = 1e12  # no time a TensorRT tool measures is longer (31 years); beyond is corruption

TO_MS = {"ms": 1.0, "s": 1e3, "sec": 1e3, "us": 1e-3, "µs": 1e-3, "ns": 1e-6}
TO_S = {"s": 1.0, "sec": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
TO_GHZ = {"ghz": 1.0, "mhz": 1e-3, "khz": 1e-6, "hz": 1e-9}
TO_BYTES = {
    "b": 1, "byte": 1, "bytes": 1,
    "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
    "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4,
}


def number_unit(text: str) -> tuple[float, str] | None:
    """The first number in ``text`` and the unit after it (lower case, ``""`` if none)."""
    match = NUMBER_UNIT.search(text)
    if match is None:
        return None
    return float(match["num"]), (match["unit"] or "").lower()


def finite(value: Any) -> float | None:
    """A finite float from a number or the number a string starts with; None otherwise."""
    if isinstance(value, bool):
        return None
    if not isinstance(value, (int, float)):
        match = _LEADING.match(str(value or ""))
        if match is None:
            return None
        value = match.group(1)
    try:
        number = float(value)
    except (ValueError, OverflowError):  # "1.2.3", an integer beyond float range
        return None
    return number if math.isfinite(number) else None


def to_bytes(value: Any) -> int | None:
    """``"24217 MiB"`` -> bytes; a plain number is taken as bytes; None when unreadable."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = finite(value)
        return int(number) if number is not None else None
    if not isinstance(value, str):
        return None
    parsed = number_unit(value)
    scale = TO_BYTES.get(parsed[1] or "b") if parsed else None
    if parsed is None or scale is None or not math.isfinite(parsed[0] * scale):
        return None
    return int(round(parsed[0] * scale))
