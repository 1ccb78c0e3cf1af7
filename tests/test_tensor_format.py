"""Tensor formats of every TensorRT version: precision, element size, layout and padding."""

from __future__ import annotations

import pytest

from trex.formats.tensor_format import parse_format, tensor_size_bytes


@pytest.mark.parametrize("text,precision,bits,short", [
    ("Row major linear FP32", "FP32", 32, "FP32 NCHW"),
    ("Row major linear FP16 format", "FP16", 16, "FP16 NCHW"),
    ("Four wide channel vectorized row major Int8 format", "INT8", 8, "Int8 NC/4HW4"),
    ("Thirty-two wide channel vectorized row major Int8 format", "INT8", 8, "Int8 NC/32HW32"),
    ("Channel major FP16 format where channel % 8 == 0", "FP16", 16, "FP16 NHWC8"),
    ("Channel major INT8 format where channel == 4 and column stride % 32 == 0", "INT8", 8,
     "Int8 NHWC4"),
    ("Row major linear BFloat16 format", "BF16", 16, "BF16 NCHW"),
    ("Row major linear FP8 format", "FP8", 8, "FP8 NCHW"),
    ("Row major linear Int64 format", "INT64", 64, "Int64 NCHW"),
    ("Row major linear BOOL", "Bool", 8, "Bool"),
    ("Row major linear UInt8 format", "UINT8", 8, "UInt8 NCHW"),
    # Bare data types (Myelin tensors) are spelled as in the layout forms: one vocabulary.
    ("Half", "FP16", 16, "FP16"),
    ("Float", "FP32", 32, "FP32"),
    ("BFloat16", "BF16", 16, "BF16"),
    ("Int4", "INT4", 4, "Int4"),
    ("FP4", "FP4", 4, "FP4"),
    ("Bool", "Bool", 8, "Bool"),
    ("Row major linear FP32 format (kLINEAR)", "FP32", 32, "FP32 NCHW"),
    ("Channel major FP16 format where channel % 8 == 0 (kHWC8)", "FP16", 16, "FP16 NHWC8"),
])
def test_formats(text, precision, bits, short):
    fmt = parse_format(text)
    assert (fmt.precision, fmt.bits, fmt.short) == (precision, bits, short)


def test_trt11_enum_only_and_split_dtype():
    fmt = parse_format("Thirty-two wide channel vectorized (kCHW32) Int8")
    assert fmt.vector == 32 and fmt.precision == "INT8"
    assert parse_format("(kCHW4) Half").layout == "NC/4HW4"


def test_vectorised_padding_and_dynamic_dims():
    int8_32 = parse_format("Thirty-two wide channel vectorized row major Int8 format")
    assert tensor_size_bytes([1, 3, 10, 10], int8_32) == 32 * 100
    assert tensor_size_bytes([1, 64, 10, 10], int8_32) == 64 * 100
    fp16_hwc8 = parse_format("Channel major FP16 format where channel % 8 == 0")
    assert tensor_size_bytes([2, 3, 4, 4], fp16_hwc8) == 2 * 8 * 16 * 2
    half = parse_format("Half")
    assert tensor_size_bytes([-1, 64, 7, 7], half) == 64 * 49 * 2  # -1 counts as 1
    assert tensor_size_bytes([3, 5], parse_format("FP4")) == 8  # 15 half-bytes, rounded up
    assert tensor_size_bytes([], parse_format("Float")) == 4  # a scalar
    assert tensor_size_bytes([4], parse_format("Unknown format")) == 0


def test_channels_last_image_input_is_nhwc():
    """A TensorFlow model's [1, 224, 224, 3] row-major input is NHWC; TREx called it NCHW."""
    from trex.model.tensors import Activation

    fmt = "Row major linear FP32 format"
    tf_input = Activation({"Name": "x", "Dimensions": [1, 224, 224, 3], "Format/Datatype": fmt})
    assert (tf_input.format, tf_input.size_bytes) == ("FP32 NHWC", 224 * 224 * 3 * 4)
    torch_input = Activation({"Name": "x", "Dimensions": [1, 3, 224, 224], "Format/Datatype": fmt})
    assert torch_input.format == "FP32 NCHW"
    feature_map = Activation({"Name": "x", "Dimensions": [1, 64, 56, 56], "Format/Datatype": fmt})
    assert feature_map.format == "FP32 NCHW"
