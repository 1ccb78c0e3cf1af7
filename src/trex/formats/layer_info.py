"""Reader of engine layer information: ``--exportLayerInfo`` / IEngineInspector output.

Accepts every known shape (see FORMATS.md): ``{"Layers": [...], "Bindings": [...]}`` with detailed
dicts or names only, TensorRT 11's ``"I/O Tensors"``, a bare list of layers (Torch-TensorRT), and
the one-line text dump inside logs. Returns a LayerInfo whose layers follow TREx's raw schema.
"""

from __future__ import annotations

import os
import re
from operator import attrgetter
from typing import Any

from ..errors import InputError
from .jsonio import fast_parser_takes, loads_documents, looks_like_json, parse_big_document
from .layer_records import (
    MAX_DIMENSION,
    LayerRecord,
    RawLayers,
    TypedWeights,
    decode_layers,
    records_from_dicts,
    tensor_uses,
    typed_weights,
)
from .records import LayerInfo, as_text
from .text import Head, decode, read_bytes

KIND = "layer_info"
SEPARATORS = ("\x1e", "\x1f")
_KEYS = re.compile(r'"Layers"\s*:|"I/O Tensors"\s*:|"LayerType"\s*:')
_ONNX_RE = re.compile(r"^\[ONNX Layer: (.*)\]$", re.DOTALL)
_ONNX_SPLIT_RE = re.compile(r"[\x1e\x1f]|(?<=\])(?=\[ONNX Layer: )")
_TENSOR_KEYS = ("Name", "Dimensions", "Format/Datatype")
# Attributes every real export writes as text: a number, boolean or container there (a corrupt
# or hostile file) is read as its digits, or dropped, with one warning.
TEXT_KEYS = frozenset({
    "TacticName", "TacticValue", "ParameterType", "ParameterSubType", "Origin", "Activation",
    "PaddingMode", "PoolingType", "ConvActivation", "ConvPaddingMode", "ConvParameterType",
    "PoolingPaddingMode", "PoolingParameterType", "PoolingPoolingType"})
_TENSOR_TEXT_KEYS = ("Location", "DataType", "Datatype", "Format")


def match(head: Head) -> bool:
    """Layer information JSON: ``Layers``, TensorRT 11's ``I/O Tensors`` or a list of layers."""
    return looks_like_json(head.text) and _KEYS.search(head.text) is not None


def read_layer_info(path: str | os.PathLike[str]) -> LayerInfo:
    """Read a layer-information file (JSON of any version, or a log holding the text dump)."""
    from .layer_dump import dump_layer_info, looks_like_layer_dump

    source = os.fspath(path)
    warnings: list[str] = []
    data = read_bytes(path)
    typed = decode_layers(data)
    if typed is not None:  # the fast path: typed records and raw slices, decoded in C
        records, raws, bindings, io, weights = typed
        return finished(records, raws, [clean_name(b) for b in bindings], io, source,
                        separators=b"\\" in data and b"\\u001" in data,  # \u001e, \u001f, kin
                        weights=weights)  # (a backslash looked for first: by memchr, 10x faster)
    doc = parse_big_document(data)
    if doc is not None:
        return layer_info_from_json(doc, source)
    text = decode(data, path, warnings)
    info = None
    if looks_like_json(text):
        docs = loads_documents(text, source, fast=not fast_parser_takes(data))
        info = layer_info_from_json(docs[0], source)
    elif looks_like_layer_dump(text):
        info = dump_layer_info(text, source)
    if info is not None:
        info.warnings[:0] = warnings
        return info
    raise InputError(source, "not layer information (expected --exportLayerInfo JSON or a log "
                             "with a --dumpLayerInfo layer list)")


def is_layer_info_json(doc: Any) -> bool:
    """True if a parsed JSON document is layer information."""
    if isinstance(doc, dict):
        return isinstance(doc.get("Layers"), list) or "I/O Tensors" in doc
    if isinstance(doc, list) and doc:
        first = doc[0]
        return isinstance(first, dict) and "LayerType" in first and "Name" in first
    return False


def layer_info_from_json(doc: Any, source: str = "") -> LayerInfo:
    """Build LayerInfo from one parsed JSON document."""
    if not is_layer_info_json(doc):
        raise InputError(source, "not layer information: expected {\"Layers\": [...]} or a list "
                                 "of layer objects")
    io_tensors: list[dict[str, Any]] = []
    if isinstance(doc, list):
        raw_layers, bindings = doc, []
    else:
        raw_layers = doc.get("Layers")
        if not isinstance(raw_layers, list):  # a TensorRT 11 file may lack Layers
            raw_layers = []
        bindings = doc.get("Bindings")
        io = doc.get("I/O Tensors")
        if isinstance(io, list):
            io_tensors = [t for t in io if isinstance(t, dict)]
            if bindings is None:
                bindings = [str(t.get("Name", "")) for t in io_tensors]
        if not isinstance(bindings, list):
            bindings = []
    bindings = [clean_name(str(b)) for b in bindings if isinstance(b, (str, int))]
    if raw_layers and all(isinstance(layer, str) for layer in raw_layers):
        return names_only(raw_layers, bindings, io_tensors, source)
    return normalise(raw_layers, bindings, io_tensors, source)


def names_only(names: list[str], bindings: list[str], io_tensors: list[dict[str, Any]] | None = None,
               source: str = "") -> LayerInfo:
    """LayerInfo of a names-only export (``--profilingVerbosity=layer_names_only``)."""
    layers = [{"Name": clean_name(name), "LayerType": "Unknown", "Inputs": [], "Outputs": []}
              for name in names]
    records = [LayerRecord(str(layer["Name"])) for layer in layers]
    return LayerInfo(records, [clean_name(b) for b in bindings], detailed=False,
                     io_tensors=list(io_tensors or []), source=source,
                     raws=RawLayers(layers, decode=False), uses=tensor_uses(records)[0])


def finished(records: list[LayerRecord], raws: RawLayers, bindings: list[str],
             io_tensors: list[Any], source: str, warnings: list[str] | None = None,
             separators: bool = False, weights: TypedWeights | None = None) -> LayerInfo:
    """LayerInfo of typed records: names cleaned (``separators``: some name may hold TensorRT's
    record separators), ONNX nodes split, tensor formats parsed into values (once per distinct
    text), implausible dimensions made dynamic with a warning; ``weights``: the records' typed
    weights if the decoder has them already."""
    warnings = list(warnings or [])
    metadata = list(map(attrgetter("metadata"), records))
    if metadata.count(None) != len(metadata):  # TensorRT 10+: the ONNX nodes, as a list
        for record, text in zip(records, metadata):
            if text is not None and type(text) is not list:
                record.metadata = onnx_nodes(text)
    if separators:
        for record in records:
            record.name = clean_name(record.name)
            for tensors in (record.inputs, record.outputs):
                for tensor in tensors:
                    tensor.name = clean_name(tensor.name)
    uses, odd_dims = tensor_uses(records)
    if odd_dims:
        shown = ", ".join(repr(n[:80]) for n in list(dict.fromkeys(odd_dims))[:3])
        warnings.append(f"{source}: {len(odd_dims)} tensors have a dimension that is not a size "
                        f"(below -1, above 2**48 or not a number), treated as dynamic (-1): "
                        f"layers {shown}")
    return LayerInfo(records, bindings, True, [t for t in io_tensors if isinstance(t, dict)],
                     source, warnings, raws=raws, uses=uses,
                     weights=weights if weights is not None else typed_weights(records))


def normalise(
    raw_layers: list[Any],
    bindings: list[str],
    io_tensors: list[dict[str, Any]] | None = None,
    source: str = "",
) -> LayerInfo:
    """Bring detailed layer dicts to one schema and typed records; collect what had to be fixed
    as warnings."""
    layers: list[dict[str, Any]] = []
    warnings: list[str] = []
    skipped = 0
    odd_dims: list[str] = []  # layers with a dimension that is not a plausible size
    odd_text: dict[str, int] = {}  # text fields that held something else: key -> layers
    for raw in raw_layers:
        if isinstance(raw, str):
            raw = {"Name": raw, "LayerType": "Unknown"}
        if not isinstance(raw, dict) or "Name" not in raw:
            skipped += 1
            continue
        layers.append(normalise_layer(raw, odd_dims, odd_text))
    if skipped:
        warnings.append(f"{skipped} layer entries were not objects with a Name and were skipped")
    if odd_dims:
        shown = ", ".join(repr(n[:80]) for n in list(dict.fromkeys(odd_dims))[:3])
        warnings.append(f"{source}: {len(odd_dims)} tensors have a dimension that is not a size "
                        f"(below -1, above 2**48 or not a number), treated as dynamic (-1): "
                        f"layers {shown}")
    if odd_text:
        shown = ", ".join(f"{key} ({n})" for key, n in sorted(odd_text.items()))
        warnings.append(f"{source}: fields that hold text held a number, boolean, list or null: "
                        f"{shown}; numbers and booleans read as text, the others left out")
    bindings = [clean_name(b) for b in bindings]
    records = records_from_dicts(layers)
    return finished(records, RawLayers(layers, decode=False), bindings, list(io_tensors or []),
                    source, warnings)


def normalise_layer(raw: dict[str, Any], odd_dims: list[str] | None = None,
                    odd_text: dict[str, int] | None = None) -> dict[str, Any]:
    """One layer dict in TREx's schema (normalised in place: parsed JSON we own, no copies of big
    plans): a clean name, a LayerType, text fields as text, tensors normalised, Metadata as the
    list of ONNX nodes, lower-case ``weights`` as ``Weights``."""
    layer = raw
    layer["Name"] = clean_name(str(layer["Name"]))
    layer["LayerType"] = as_text(layer.get("LayerType")) or "Unknown"
    for key in TEXT_KEYS.intersection(layer):
        if type(layer[key]) is not str:
            _text_field(layer, key, odd_text)
    for key in ("Inputs", "Outputs"):
        tensors = layer.get(key)
        if not isinstance(tensors, list):
            tensors = []
        layer[key] = [normalise_tensor(t, odd_dims, layer["Name"], odd_text) for t in tensors
                      if isinstance(t, dict)]
    if "Metadata" in layer:
        layer["Metadata"] = onnx_nodes(layer["Metadata"])
    if "weights" in layer and "Weights" not in layer and isinstance(layer["weights"], dict):
        layer["Weights"] = layer["weights"]
    return layer


def _text_field(record: dict[str, Any], key: str, odd: dict[str, int] | None) -> None:
    """``record[key]`` as text (:func:`as_text`), or removed; counted in ``odd``."""
    text = as_text(record[key])
    if text is None:
        del record[key]
    else:
        record[key] = text
    if odd is not None:
        odd[key] = odd.get(key, 0) + 1


def normalise_tensor(tensor: dict[str, Any], odd: list[str] | None = None, layer: str = "",
                     odd_text: dict[str, int] | None = None) -> dict[str, Any]:
    """Give a tensor dict ``Name``, ``Dimensions`` and one ``Format/Datatype`` string.

    A dimension that is not a size (below -1, beyond 2**48, not a number) becomes -1 (dynamic) and
    the layer's name is appended to ``odd``; a text field holding something else is read as
    text or dropped (counted in ``odd_text``)."""
    out = tensor  # normalised in place, written only where it changes (big plans: 100,000s)
    for key in _TENSOR_TEXT_KEYS:
        if key in out and type(out[key]) is not str:
            _text_field(out, key, odd_text)
    name = out.get("Name")
    if type(name) is not str:
        out["Name"] = clean_name("" if "Name" not in out else str(name))
    elif "\x1e" in name or "\x1f" in name:
        out["Name"] = clean_name(name)
    dims = out.get("Dimensions")
    if not isinstance(dims, list):
        lower = out.get("dimensions")
        dims = lower if isinstance(lower, list) else []
    if not _plausible_dims(dims):
        clean = [_to_int(d) for d in dims]
        clean = [d if -1 <= d <= MAX_DIMENSION else -1 for d in clean]
        if odd is not None and clean != dims:
            odd.append(layer)
        dims = clean
    if out.get("Dimensions") is not dims:
        out["Dimensions"] = dims
    if "Format/Datatype" not in out:
        # TensorRT 11 splits the key: DataType (or Datatype) and Format.
        dtype = str(out.get("DataType", out.get("Datatype", "")) or "")
        fmt = str(out.get("Format", "") or "")
        out["Format/Datatype"] = f"{fmt} {dtype}".strip() if dtype not in fmt else fmt
    elif type(out["Format/Datatype"]) is not str:
        out["Format/Datatype"] = str(out["Format/Datatype"])
    return out


def _plausible_dims(dims: list[Any]) -> bool:
    """Every dimension an int between -1 (dynamic) and MAX_DIMENSION (a loop: this runs per
    tensor of big plans)."""
    for d in dims:
        if type(d) is not int or d < -1 or d > MAX_DIMENSION:
            return False
    return True


def onnx_nodes(metadata: Any) -> list[str]:
    """Split a layer's Metadata into the ONNX node names it lists."""
    if isinstance(metadata, list):
        return [str(m) for m in metadata]
    if not isinstance(metadata, str) or not metadata.strip():
        return []
    nodes = []
    for part in _ONNX_SPLIT_RE.split(metadata):
        part = part.strip()
        if not part:
            continue
        match = _ONNX_RE.match(part)
        nodes.append(match.group(1) if match else part)
    return nodes


def clean_name(name: str) -> str:
    """Replace the record/unit separators TensorRT 8.6+ leaves in names with ``+`` (as TREx)."""
    if "\x1e" in name or "\x1f" in name:
        name = name.replace("\x1e", "+").replace("\x1f", "+")
    return name


def _to_int(value: Any) -> int:
    if isinstance(value, bool):
        return -1
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):  # None, "abc", NaN, inf
        return -1
