"""Tensor formats are read by the readers: :mod:`trex.formats.tensor_format` (kept here as an alias)."""

from ..formats.tensor_format import (  # noqa: F401
    TensorFormat,
    dtype_bytes,
    padded_shape,
    parse_format,
    tensor_size_bytes,
)
