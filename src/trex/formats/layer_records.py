"""Typed layer records: what every layer reader hands the model, decoded straight from the bytes.

A layer file is decoded twice, both times in C (msgspec): once into :class:`LayerRecord` structs —
the fields the model reads, typed, with each tensor's format parsed into a
:class:`~trex.formats.tensor_format.TensorFormat` value — and once into one raw slice per layer,
which costs nothing until TREx's ``raw_dict`` or ``plan.df``'s attribute columns ask for that
layer as exported (:class:`RawLayers`). A file whose values do not fit the types (a number where
a name belongs, a string dimension) is read by the tolerant path instead: parsed to dicts,
normalised (:mod:`trex.formats.layer_info`) and converted to the same records.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Literal

import msgspec
import numpy as np

from .tensor_format import TensorFormat, parse_format

MAX_DIMENSION = 1 << 48  # no tensor dimension is larger; beyond this a file is corrupt
# The {Type, Count} attributes the records read typed; a layer with others (its raw slice names
# "Count" more often) is measured from its raw dict instead (``extra_weights``).
WEIGHT_KEYS = ("Weights", "Bias", "ConvWeights", "ConvBias", "Scale", "Shift", "Power")
# The records are decoded data (no record can reach itself), so they are kept out of the cyclic
# garbage collector (``gc=False``): decoding 54,000 layers with the collector on takes 0.36 s instead
# of 0.61 s, and later full collections do not walk the plan's millions of fields.


class TensorRecord(msgspec.Struct, gc=False, rename={
        "name": "Name", "dims": "Dimensions", "lower_dims": "dimensions",
        "text": "Format/Datatype", "data_type": "DataType", "data_type_lower": "Datatype",
        "format_text": "Format", "location": "Location"}):
    """One tensor as a layer reads or writes it: name, shape and format (as a value)."""

    name: str = ""
    dims: tuple[int, ...] = ()
    lower_dims: tuple[int, ...] | None = None  # 8.6 Constant layers spell it in lower case
    text: str | None = None  # "Format/Datatype" up to 10.x
    data_type: str | None = None  # TensorRT 11 splits it: DataType/Datatype and Format
    data_type_lower: str | None = None
    format_text: str | None = None
    location: str | None = None

    def format_key(self) -> str:
        """The format as one text (TensorRT 11's split keys joined as 10.x spells them)."""
        if self.text is not None:
            return self.text
        dtype = self.data_type if self.data_type is not None else self.data_type_lower or ""
        fmt = self.format_text or ""
        return f"{fmt} {dtype}".strip() if dtype not in fmt else fmt


class WeightsRecord(msgspec.Struct, gc=False, rename={"type": "Type", "count": "Count"}):
    """A ``{Type, Count}`` attribute (weights, bias, scales): the element type and how many."""

    type: Any = msgspec.UNSET  # UNSET: the key is absent
    count: Any = msgspec.UNSET


# Layer attributes the records hold typed (exported key -> LayerRecord field): the convolution
# geometry, ConvActPool's, pooling windows and the LLM layers' counts the compute model and the
# linters read for every layer (the raw dict of a layer is decoded only when asked for).
ATTRIBUTE_FIELDS = {
    "Kernel": "kernel", "Groups": "groups", "OutMaps": "out_maps", "Stride": "stride",
    "Dilation": "dilation", "PrePadding": "pre_padding", "PostPadding": "post_padding",
    "ConvKernel": "conv_kernel", "ConvGroups": "conv_groups", "ConvOutMaps": "conv_out_maps",
    "ConvStride": "conv_stride", "ConvDilation": "conv_dilation",
    "ConvPrePadding": "conv_pre_padding", "ConvPostPadding": "conv_post_padding",
    "PoolingWindowSize": "pooling_window_size", "WindowSize": "window_size",
    "NbOperations": "nb_operations", "NumExperts": "num_experts", "TopK": "top_k",
    "CollectiveOperation": "collective_operation", "Ranks": "ranks", "WorldSize": "world_size"}

# The typed {Type, Count} fields of a LayerRecord: (field, JSON key, bias or not).
WEIGHT_FIELDS = (("weights", "Weights", False), ("bias", "Bias", True),
                 ("conv_weights", "ConvWeights", False), ("conv_bias", "ConvBias", True),
                 ("scale", "Scale", False), ("shift", "Shift", False), ("power", "Power", False))


class LayerRecord(msgspec.Struct, gc=False, rename={
        "name": "Name", "layer_type": "LayerType", "parameter_type": "ParameterType",
        "inputs": "Inputs", "outputs": "Outputs", "tactic_name": "TacticName",
        "tactic_value": "TacticValue", "metadata": "Metadata", "stream": "StreamId",
        "origin": "Origin", "parameter_sub_type": "ParameterSubType", "activation": "Activation",
        "padding_mode": "PaddingMode", "pooling_type": "PoolingType", "weights": "Weights",
        "bias": "Bias", "conv_weights": "ConvWeights",
        "conv_bias": "ConvBias", "scale": "Scale", "shift": "Shift", "power": "Power"}):
    """One engine layer: what the model needs of it, typed (the rest stays in its raw dict)."""

    name: str
    layer_type: str = "Unknown"
    parameter_type: str | None = None
    inputs: tuple[TensorRecord, ...] = ()
    outputs: tuple[TensorRecord, ...] = ()
    tactic_name: str | None = None
    tactic_value: str | int | None = None
    metadata: str | list[str] | None = None
    stream: Any = None
    origin: str | None = None
    # text attributes typed only so that a file with a number or list there takes the tolerant
    # path, which reads them as text with a warning
    parameter_sub_type: str | None = None
    activation: str | None = None
    padding_mode: str | None = None
    pooling_type: str | None = None
    weights: WeightsRecord | None = None
    bias: WeightsRecord | None = None
    conv_weights: WeightsRecord | None = None
    conv_bias: WeightsRecord | None = None
    scale: WeightsRecord | None = None
    shift: WeightsRecord | None = None
    power: WeightsRecord | None = None
    extra_weights: bool = False  # set by the reader: {Type, Count} attributes beyond WEIGHT_KEYS

class LayerAttributes(msgspec.Struct, gc=False,
                      rename={field: key for key, field in ATTRIBUTE_FIELDS.items()}):
    """The attributes the compute model and the linters read for every layer
    (:data:`ATTRIBUTE_FIELDS`), as exported: any JSON value (UNSET: absent). Decoded from the
    file only when an analysis first asks (:meth:`RawLayers.attributes`): a load that does not
    need them keeps neither their time nor their memory (200,000 layers: 0.3 s, 120 MB)."""

    kernel: Any = msgspec.UNSET
    groups: Any = msgspec.UNSET
    out_maps: Any = msgspec.UNSET
    stride: Any = msgspec.UNSET
    dilation: Any = msgspec.UNSET
    pre_padding: Any = msgspec.UNSET
    post_padding: Any = msgspec.UNSET
    conv_kernel: Any = msgspec.UNSET
    conv_groups: Any = msgspec.UNSET
    conv_out_maps: Any = msgspec.UNSET
    conv_stride: Any = msgspec.UNSET
    conv_dilation: Any = msgspec.UNSET
    conv_pre_padding: Any = msgspec.UNSET
    conv_post_padding: Any = msgspec.UNSET
    pooling_window_size: Any = msgspec.UNSET
    window_size: Any = msgspec.UNSET
    nb_operations: Any = msgspec.UNSET
    num_experts: Any = msgspec.UNSET
    top_k: Any = msgspec.UNSET
    collective_operation: Any = msgspec.UNSET
    ranks: Any = msgspec.UNSET
    world_size: Any = msgspec.UNSET


class _DeviceOrHostTensor(TensorRecord, gc=False):
    """A tensor at one of TensorRT's two locations, decoded as shared constants (not a string per
    tensor: 117,000 of them at 54,000 layers). A file with another value is decoded as
    :class:`TensorRecord`, which keeps it as text."""

    location: Literal["Device", "Host"] | None = None


class _DeviceOrHostLayer(LayerRecord, gc=False):
    inputs: tuple[_DeviceOrHostTensor, ...] = ()
    outputs: tuple[_DeviceOrHostTensor, ...] = ()


def _document_of(layer: type[LayerRecord]) -> Any:
    """A layer file's top level (``Layers``, ``Bindings``, TensorRT 11's ``I/O Tensors``), its
    layers decoded as ``layer``; a file may be a bare list of layers too."""
    top = msgspec.defstruct(f"{layer.__name__}Document", [
        ("Layers", list[layer] | None, None),  # type: ignore[valid-type]
        ("Bindings", list[str | int] | None, None), ("io", list[Any] | None, None)],
        rename={"io": "I/O Tensors"})
    return top | list[layer]  # type: ignore[valid-type]


class _RawDocument(msgspec.Struct):
    Layers: list[msgspec.Raw] | None = None


class _AttributesDocument(msgspec.Struct):
    Layers: list[LayerAttributes] | None = None


_DOCUMENT = msgspec.json.Decoder(_document_of(_DeviceOrHostLayer))
_ANY_LOCATION_DOCUMENT = msgspec.json.Decoder(_document_of(LayerRecord))
_RAW_DOCUMENT = msgspec.json.Decoder(_RawDocument | list[msgspec.Raw])
_RAW_LAYER = msgspec.json.Decoder()
_ATTRIBUTES_DOCUMENT = msgspec.json.Decoder(_AttributesDocument | list[LayerAttributes])
_ATTRIBUTES = msgspec.json.Decoder(LayerAttributes)
_RECORDS = list[LayerRecord]
_RAW_FIELDS = msgspec.json.Decoder(dict[str, msgspec.Raw])  # each field's JSON text, undecoded
_ENCODE_RAW = msgspec.json.Encoder().encode
_TENSORS = ("Inputs", "Outputs")
_TENSOR_KEYS = ("Name", "Inputs", "Outputs")


class RawLayers(Sequence[dict[str, Any]]):
    """The layers as exported, one dict each, decoded (and normalised) when first asked for.

    From a file's bytes (``data``), the layers' JSON slices are found on first use too: a load
    that never reads an attribute never pays for them."""

    def __init__(self, raws: Sequence[Any] | None, decode: bool, data: bytes | None = None,
                 count: int = 0):
        self._given = raws  # dicts already normalised (decode=False), else Raw slices or None
        self._data = data
        self._count = len(raws) if raws is not None else count
        self._decode = decode
        self._done: dict[int, dict[str, Any]] = {}
        self._attributes: list[LayerAttributes] | None = None

    @property
    def _raws(self) -> Sequence[Any]:
        if self._given is None:
            raw = _RAW_DOCUMENT.decode(self._data or b"[]")
            slices = raw if isinstance(raw, list) else raw.Layers or []
            if len(slices) != self._count:  # cannot be: the same bytes decoded typed first
                raise ValueError("the layer file's layers changed between two decodes")
            self._given, self._data = slices, None
        return self._given

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: int) -> dict[str, Any]:  # type: ignore[override]
        if not self._decode:
            layer: dict[str, Any] = self._raws[index]
            return layer
        found = self._done.get(index)
        if found is None:
            from .layer_info import normalise_layer

            found = self._done[index] = normalise_layer(_RAW_LAYER.decode(self._raws[index]))
        return found

    def fields_key(self, index: int) -> bytes | None:
        """A text equal for two layers exactly when their fields but ``Name``, ``Inputs`` and
        ``Outputs`` are exported alike, byte for byte (their values' JSON texts, in order): the
        layers whose :meth:`fields` are equal without decoding them. None for layers given as
        dicts."""
        if not self._decode:
            return None
        found = self._done.get(index)
        if found is not None:  # decoded already (and maybe normalised): its values decide
            return None
        fields = _RAW_FIELDS.decode(self._raws[index])
        for key in _TENSOR_KEYS:
            fields.pop(key, None)
        return _ENCODE_RAW(fields)

    def fields(self, index: int) -> dict[str, Any]:
        """The layer's fields as :meth:`__getitem__` gives them, without ``Inputs`` and
        ``Outputs`` (a new dict; the tensors are not normalised for it)."""
        found = self._done.get(index)
        if found is None and self._decode:
            from .layer_info import normalise_layer

            raw = _RAW_LAYER.decode(self._raws[index])
            found = normalise_layer({k: v for k, v in raw.items() if k not in _TENSORS})
        elif found is None:
            found = self._raws[index]
        return {k: v for k, v in found.items() if k not in _TENSORS}

    def attributes(self) -> list[LayerAttributes]:
        """Every layer's :class:`LayerAttributes`, decoded in C when first asked for: from the
        file's bytes while the load keeps them, else from each layer's raw slice or dict."""
        if self._attributes is None:
            if self._given is None:
                doc = _ATTRIBUTES_DOCUMENT.decode(self._data or b"[]")
                found = doc if isinstance(doc, list) else doc.Layers or []
            elif self._decode:
                found = [_ATTRIBUTES.decode(raw) for raw in self._given]
            else:
                found = [_attributes_of(layer) for layer in self._given]
            if len(found) != self._count:  # cannot be: the same bytes decoded typed first
                raise ValueError("the layer file's layers changed between two decodes")
            self._attributes = found
        return self._attributes

    def counts(self, index: int) -> int:
        """How often the layer's raw text names ``"Count"`` (its {Type, Count} attributes)."""
        raw = self._raws[index]
        if self._decode:
            return bytes(raw).count(b'"Count"')
        return sum(1 for v in raw.values() if type(v) is dict and "Count" in v)


def _attributes_of(layer: dict[str, Any]) -> LayerAttributes:
    """The attributes of a layer dict (any value fits; a layer that is not a dict has none)."""
    try:
        return msgspec.convert(layer, LayerAttributes, strict=False)
    except (msgspec.ValidationError, RecursionError):
        return LayerAttributes()


def decode_layers(data: bytes) -> tuple[list[LayerRecord], RawLayers, list[str], list[Any],
                                        TypedWeights] | None:
    """(records, raw layers, bindings, TensorRT 11 I/O tensors, typed weights) of a detailed
    layer file's bytes, decoded typed; None when the file is not one whose values fit (names
    only, odd values, not UTF-8, several documents): the tolerant path reads those."""
    if data[:1] not in (b"{", b"["):
        return None
    try:
        try:
            doc = _DOCUMENT.decode(data)
        except msgspec.ValidationError as error:  # a Location other than TensorRT's two?
            if "Location" not in str(error):
                raise
            doc = _ANY_LOCATION_DOCUMENT.decode(data)
    except (msgspec.MsgspecError, ValueError, RecursionError):  # UnicodeDecodeError too
        return None
    io: list[Any] = []
    if isinstance(doc, list):
        records, bindings = doc, []
    else:
        if doc.Layers is None:
            return None
        io = [t for t in doc.io or [] if isinstance(t, dict)]
        records = doc.Layers
        bindings = [str(b) for b in doc.Bindings] if doc.Bindings is not None else \
            [str(t.get("Name", "")) for t in io]
    if not records:
        return None
    raw_layers = RawLayers(None, decode=True, data=data, count=len(records))
    weights = typed_weights(records)
    typed = sum(len(rows) for rows, _ in weights.values())
    if data.count(b'"Count"') > typed:  # some layer has other {Type, Count} attributes: which?
        for index, record in enumerate(records):
            if raw_layers.counts(index) > _typed_weights(record):
                record.extra_weights = True
    return records, raw_layers, bindings, io, weights


# Per typed {Type, Count} field: (indices of the records that have it, every record's value).
TypedWeights = dict[str, tuple[list[int], list[Any]]]


def typed_weights(records: Sequence[LayerRecord]) -> TypedWeights:
    """Per typed {Type, Count} field, (indices of the records that have it, every record's value
    or None). Fields no record has (most of them) cost one pass in C."""
    out = {}
    n = len(records)
    for field, _, _ in WEIGHT_FIELDS:
        values = list(map(attrgetter(field), records))
        missing = values.count(None)
        rows = [] if missing == n else list(range(n)) if not missing else \
            [i for i, v in enumerate(values) if v is not None]
        out[field] = (rows, values)
    return out


def _typed_weights(record: LayerRecord) -> int:
    return sum(getattr(record, field) is not None for field, _, _ in WEIGHT_FIELDS)


def records_from_dicts(layers: list[dict[str, Any]]) -> list[LayerRecord]:
    """Records of normalised layer dicts (the tolerant path, logs, dumps); a field whose value
    does not fit its type (a list where the weights' dict belongs) is left out of the record —
    the raw dict keeps it."""
    try:
        records = msgspec.convert(layers, _RECORDS, strict=False)
    except (msgspec.ValidationError, RecursionError):
        records = [_record_of(layer) for layer in layers]
    for record, layer in zip(records, layers):
        if sum(1 for v in layer.values() if type(v) is dict and "Count" in v) > \
                _typed_weights(record):
            record.extra_weights = True
    return records


_FIELDS = {name: encoded for name, encoded in zip(LayerRecord.__struct_fields__,
                                                  LayerRecord.__struct_encode_fields__)}


def _record_of(layer: dict[str, Any]) -> LayerRecord:
    """One layer's record, dropping the fields whose values do not fit."""
    try:
        return msgspec.convert(layer, LayerRecord, strict=False)
    except (msgspec.ValidationError, RecursionError):
        pass
    kept: dict[str, Any] = {"Name": str(layer.get("Name", ""))}
    for encoded in _FIELDS.values():
        if encoded in layer and encoded != "Name":
            try:
                msgspec.convert({"Name": "", encoded: layer[encoded]}, LayerRecord, strict=False)
            except (msgspec.ValidationError, RecursionError):
                continue
            kept[encoded] = layer[encoded]
    return msgspec.convert(kept, LayerRecord, strict=False)


@dataclass
class TensorUses:
    """Every tensor use of the layers — each input and output of each record, in record order,
    inputs before outputs — as columns: the record, the side, the place in its list, and the
    tensor's name and (format, shape) as indices into ``names`` and ``shapes``."""

    row: np.ndarray  # int64: the record
    output: np.ndarray  # bool: an output (else an input)
    position: np.ndarray  # int64: its place in the record's Inputs or Outputs
    name: np.ndarray  # int64 into names
    shape: np.ndarray  # int64 into shapes
    names: list[str]
    shapes: list[tuple[TensorFormat, tuple[int, ...]]]  # (format value, dimensions)

    def __len__(self) -> int:
        return len(self.name)


def tensor_uses(records: list[LayerRecord]) -> tuple[TensorUses, list[str]]:
    """The tensor uses of ``records``, each format parsed into its value once per distinct text;
    also the names of layers with a dimension that is not a size (made -1: dynamic)."""
    name_ids: dict[str, int] = {}
    shape_ids: dict[tuple[Any, ...], int] = {}
    formats: dict[str, TensorFormat] = {}
    shapes: list[tuple[TensorFormat, tuple[int, ...]]] = []
    names: list[str] = []
    nids: list[int] = []
    sids: list[int] = []
    counts: list[int] = []
    odd: list[str] = []
    odd_shape: list[bool] = []  # per shape: a dimension was not a size
    get_name, get_shape = name_ids.get, shape_ids.get
    for record in records:
        for tensors in (record.inputs, record.outputs):
            counts.append(len(tensors))
            for t in tensors:
                name = t.name
                nid = get_name(name)
                if nid is None:
                    nid = name_ids[name] = len(names)
                    names.append(name)
                nids.append(nid)
                text = t.text if t.text is not None else t.format_key()
                dims = t.dims if t.dims or not t.lower_dims else t.lower_dims
                key = (text, dims)
                sid = get_shape(key)
                if sid is None:
                    sid = shape_ids[key] = len(shapes)
                    fmt = formats.get(text)
                    if fmt is None:
                        fmt = formats[text] = parse_format(text)
                    bad = bool(dims) and (min(dims) < -1 or max(dims) > MAX_DIMENSION)
                    if bad:
                        dims = tuple(d if -1 <= d <= MAX_DIMENSION else -1 for d in dims)
                    shapes.append((fmt, tuple(dims)))
                    odd_shape.append(bad)
                if odd_shape[sid]:
                    odd.append(record.name)
                sids.append(sid)
    count = np.asarray(counts, dtype=np.int64)
    sides = len(count)
    output = np.repeat(np.arange(sides) % 2 == 1, count)
    row = np.repeat(np.arange(sides) // 2, count)
    starts = np.repeat(np.cumsum(count) - count, count)
    position = np.arange(len(nids), dtype=np.int64) - starts
    uses = TensorUses(row, output, position, np.asarray(nids, dtype=np.int64),
                      np.asarray(sids, dtype=np.int64), names, shapes)
    return uses, odd


def finite_count(value: Any) -> int | None:
    """A weights ``Count`` as an int (None for a corrupt value)."""
    try:
        count = int(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return count if not isinstance(value, float) or math.isfinite(value) else None
