"""The stand-in trtexec's TensorRT 11 layer JSON, derived from a real 10.x detailed export.

TensorRT 11 replaces ``Bindings`` with ``"I/O Tensors"`` (Name, IOMode, DataType, Dimensions,
Location, IsShapeInferenceIO, ProfileInfo with MinShape/OptShape/MaxShape/Format per profile) and
splits each layer tensor's ``Format/Datatype`` into ``DataType`` and ``Format``, format strings
carrying the enum suffix (``(kLINEAR)``) where the public TensorFormat enum has one (FORMATS.md).
"""

import re

_DTYPE = re.compile(r"(?<![A-Za-z0-9])(FP32|Float|FP16|Half|BF16|BFloat16|FP8|Int8|INT8|Int32|"
                    r"INT32|Int64|INT64|Bool|Int4|FP4)(?![A-Za-z0-9])")
_DATA_TYPES = {"FP32": "Float", "Float": "Float", "FP16": "Half", "Half": "Half",
               "BF16": "BFloat16", "BFloat16": "BFloat16", "FP8": "FP8", "Int8": "Int8",
               "INT8": "Int8", "Int32": "Int32", "INT32": "Int32", "Int64": "Int64",
               "INT64": "Int64", "Bool": "Bool", "Int4": "Int4", "FP4": "FP4"}
_WORDS = {"FP32": "FP32", "Float": "FP32", "Half": "FP16", "BFloat16": "BF16", "Int8": "Int8",
          "Int32": "Int32", "Int64": "Int64", "Bool": "Bool", "FP8": "FP8", "Int4": "Int4",
          "FP4": "FP4"}
_VECTORS = {"Two": 2, "Four": 4, "Sixteen": 16, "Thirty-two": 32}


def enum_suffix(description):
    """The TensorFormat enum of an English format description, or None when there is no public one."""
    vector = re.match(r"(\S+) wide channel vectorized", description)
    if vector and vector.group(1) in _VECTORS:
        width = _VECTORS[vector.group(1)]
        return f"kCDHW{width}" if "3 spatial" in description else f"kCHW{width}"
    if description.startswith("Channel major"):
        mod = re.search(r"channel % (\d+) == 0", description)
        if mod is None:
            return "kHWC"
        return f"kHWC{mod.group(1)}" if mod.group(1) in ("8", "16") else None
    if description.startswith("Row major"):
        return "kLINEAR"
    return None


def split_format(text):
    """``Format/Datatype`` -> (DataType, Format or None); a bare dtype (Myelin) has no Format."""
    text = str(text or "")
    match = _DTYPE.search(text)
    dtype = _DATA_TYPES[match.group(1)] if match else "Float"
    if " " not in text.strip():
        return dtype, None
    suffix = enum_suffix(text)
    return dtype, (f"{text} ({suffix})" if suffix else text)


def parse_shapes(value):
    """``a:1x3x224x224,b:2`` -> {"a": [1, 3, 224, 224], "b": [2]}."""
    shapes = {}
    for entry in (value or "").split(","):
        name, sep, dims = entry.rpartition(":")
        if sep and name:
            try:
                shapes[name.strip("'")] = [int(d) for d in dims.split("x") if d]
            except ValueError:
                continue
    return shapes


def as_trt11(graph, shapes):
    """Rewrite a 10.x detailed layer JSON (parsed) in TensorRT 11's form, in place.

    ``shapes`` maps "min"/"opt"/"max" to {tensor: dims} from --minShapes/--optShapes/--maxShapes
    (or --shapes for all three); tensors not listed keep their dimensions as a static profile.
    """
    found, produced = {}, set()
    for layer in graph.get("Layers", []):
        for key in ("Inputs", "Outputs"):
            for tensor in layer.get(key, []):
                fmt = tensor.pop("Format/Datatype", "")
                found.setdefault(tensor["Name"], (key, list(tensor.get("Dimensions", [])), fmt))
                tensor["DataType"], form = split_format(fmt)
                if form is not None:
                    tensor["Format"] = form
                if key == "Outputs":
                    produced.add(tensor["Name"])
    io = []
    for name in graph.pop("Bindings", []):
        _, dims, fmt = found.get(name, ("Inputs", [], "Float"))
        dtype, form = split_format(fmt)
        if form is None:
            form = f"Row major linear {_WORDS.get(dtype, dtype)} format (kLINEAR)"
        low = shapes.get("min", {}).get(name, dims)
        opt = shapes.get("opt", {}).get(name, dims)
        high = shapes.get("max", {}).get(name, dims)
        dynamic = [d if lo == hi else -1 for d, lo, hi in zip(opt, low, high)]
        io.append({"Name": name, "IOMode": "Output" if name in produced else "Input",
                   "DataType": dtype, "Dimensions": dynamic, "Location": "Device",
                   "IsShapeInferenceIO": False,
                   "ProfileInfo": [{"MinShape": low, "OptShape": opt, "MaxShape": high,
                                    "Format": form}]})
    graph["I/O Tensors"] = io
    return graph
