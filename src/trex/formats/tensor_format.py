"""Tensor data types and memory formats: precision, element size and padded size in bytes.

TensorRT describes a tensor's format in English ("Thirty-two wide channel vectorized row major Int8
format"), as a bare data type (``Half``, ``BFloat16``, ``FP4``) in Myelin layers, with an enum
suffix (``(kCHW32)``) in TensorRT 11, or as split DataType/Format keys. Everything here is derived
from those words by rule rather than by a fixed table, so unseen combinations still parse.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

# (pattern, precision, bits per element, TREx's short spelling). Order matters: longer names first.
_DTYPES: list[tuple[str, str, float, str]] = [
    (r"DoubleComplex", "COMPLEX128", 128, "DoubleComplex"),
    (r"FloatComplex", "COMPLEX64", 64, "FloatComplex"),
    (r"BFloat16|BF16", "BF16", 16, "BF16"),
    (r"FP8(?:E4M3|E5M2)?|E4M3|E5M2|Float8", "FP8", 8, "FP8"),
    (r"FP4(?:E2M1)?|E2M1|NVFP4", "FP4", 4, "FP4"),
    (r"E8M0|FP8E8M0", "E8M0", 8, "E8M0"),  # MX block scales (exponent only)
    (r"UInt4|UINT4", "UINT4", 4, "UInt4"),
    (r"Int4|INT4", "INT4", 4, "Int4"),
    (r"UInt8|UINT8", "UINT8", 8, "UInt8"),
    (r"Int8|INT8", "INT8", 8, "Int8"),
    (r"UInt16|UINT16", "UINT16", 16, "UInt16"),
    (r"Int16|INT16", "INT16", 16, "Int16"),
    (r"UInt32|UINT32", "UINT32", 32, "UInt32"),
    (r"Int32|INT32", "INT32", 32, "INT32"),
    (r"UInt64|UINT64", "UINT64", 64, "UInt64"),
    (r"Int64|INT64", "INT64", 64, "Int64"),
    (r"Double|FP64", "FP64", 64, "FP64"),
    (r"FP16|Half", "FP16", 16, "FP16"),
    (r"TF32", "TF32", 32, "TF32"),
    (r"FP32|Float", "FP32", 32, "FP32"),
    (r"Bool|BOOL", "Bool", 8, "Bool"),
]
_DTYPE_RE = re.compile(
    "|".join(f"(?<![A-Za-z0-9])(?:{p})(?![A-Za-z0-9])" for p, *_ in _DTYPES)
)
_DTYPE_PARTS = [(re.compile(f"^(?:{p})$"), prec, bits, short) for p, prec, bits, short in _DTYPES]

_NUMBER_WORDS = {
    "one": 1, "two": 2, "four": 4, "eight": 8, "sixteen": 16, "thirty-two": 32, "sixty-four": 64,
}
_VECTORIZED_RE = re.compile(r"(?<![A-Za-z-])([A-Za-z-]+)\s+wide channel vectori[sz]ed",
                            re.IGNORECASE)
_CHANNEL_MOD_RE = re.compile(r"channel\s*(?:%|==)\s*(\d+)", re.IGNORECASE)
_ENUM_RE = re.compile(r"\(k([A-Z0-9_]+)\)")
_ENUM_LAYOUT_RE = re.compile(r"^(DLA_)?(LINEAR|CHW|HWC|DHWC|CDHW|HW)(\d*)$")


@dataclass(frozen=True)
class TensorFormat:
    """What a format string says about a tensor's elements and layout."""

    precision: str  # FP32, FP16, BF16, INT8, FP8, INT4, FP4, Bool, INT64, ... or "Unknown"
    bits: float  # bits per element (0 when unknown)
    layout: str  # NCHW, NHWC, NHWC8, NC/32HW32, NC32DHW, NDHWC8, ... or "" for a bare dtype
    vector: int  # channels are padded to a multiple of this (1: no padding)
    spatial_dims: int  # 2, or 3 for "with 3 spatial dimensions" formats
    short: str  # TREx's short spelling, e.g. "Int8 NC/32HW32", "FP32 NCHW", "Half"
    e5m2: bool = False  # FP8 with a 5-bit exponent (E4M3 otherwise)

    @property
    def data_size(self) -> float:
        """Bytes per element (0.5 for 4-bit types)."""
        return self.bits / 8


@lru_cache(maxsize=4096)
def parse_format(text: str) -> TensorFormat:
    """Parse a ``Format/Datatype`` string (any TensorRT version) into a TensorFormat."""
    desc = (text or "").replace(".", "").strip()
    precision, bits, dshort = "Unknown", 0.0, "Unknown"
    match = _DTYPE_RE.search(desc)
    if match:
        for regex, prec, nbits, short in _DTYPE_PARTS:
            if regex.match(match.group(0)):
                precision, bits, dshort = prec, float(nbits), short
                break
    spatial = 3 if "3 spatial" in desc else 2
    layout, vector = _layout(desc, spatial)
    if not layout:
        # A bare data type (Myelin/kgen tensors): the same spelling as in the layout forms
        # ("Half" is shown FP16, as an FP16 NCHW tensor's type is).
        short = dshort if match else "Unknown format"
    elif precision == "Bool" and layout == "NCHW":
        short = "Bool"
    else:
        short = f"{dshort} {layout}" if match else f"Unknown {layout}"
    return TensorFormat(precision, bits, layout, vector, spatial, short, "E5M2" in desc)


def _layout(desc: str, spatial: int) -> tuple[str, int]:
    """Return (layout name, channel vector) from the English description or enum suffix."""
    enum = _ENUM_RE.search(desc)
    if enum:
        parsed = _ENUM_LAYOUT_RE.match(enum.group(1))
        if parsed:
            kind, width = parsed.group(2), int(parsed.group(3) or 1)
            if kind in ("LINEAR", "HW"):
                return "NCHW", 1
            if kind == "CHW":
                return (f"NC/{width}HW{width}" if width > 1 else "NCHW"), width
            if kind == "CDHW":
                return f"NC{width}DHW", width
            if kind == "DHWC":
                return f"NDHWC{width if width > 1 else ''}", width
            return f"NHWC{width if width > 1 else ''}", width
    vectorized = _VECTORIZED_RE.search(desc)
    if vectorized:
        word = vectorized.group(1)
        width = _NUMBER_WORDS.get(word.lower()) or (int(word) if word.isdigit() else 1)
        width = width or 1
        return (f"NC{width}DHW" if spatial == 3 else f"NC/{width}HW{width}"), width
    lower = desc.lower()
    if "channel major" in lower:
        mod = _CHANNEL_MOD_RE.search(desc)
        width = int(mod.group(1)) if mod else 1
        base = "NDHWC" if spatial == 3 else "NHWC"
        return (f"{base}{width}" if mod else base), width
    if "row major" in lower or "linear" in lower:
        return ("NCDHW" if spatial == 3 else "NCHW"), 1
    return "", 1


def padded_shape(shape: list[int], fmt: TensorFormat) -> list[int]:
    """The shape as stored in memory: channels rounded up to the format's vector width."""
    dims = [max(int(d), 1) if int(d) < 0 else int(d) for d in shape]
    channel_axis = len(dims) - (fmt.spatial_dims + 1)
    if fmt.vector > 1 and channel_axis >= 0:
        c = dims[channel_axis]
        dims[channel_axis] = -(-c // fmt.vector) * fmt.vector
    return dims


def tensor_size_bytes(shape: list[int], fmt: TensorFormat) -> int:
    """Bytes the tensor occupies, with vectorised-format padding.

    A dynamic dimension (-1) counts as 1, so the size is per unit of that dimension and never
    negative.
    """
    dims = padded_shape(shape, fmt)
    # Integer arithmetic: a corrupt file's huge dimensions must not overflow a float.
    return -(-math.prod(dims) * int(fmt.bits) // 8)


@lru_cache(maxsize=256)
def dtype_bytes(type_name: str) -> float:
    """Bytes per element of a weights/bias ``Type`` (``Float``, ``Half``, ``Int8``, ``FP8``, ...)."""
    return parse_format(type_name).data_size
