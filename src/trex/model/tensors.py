"""Tensors of the plan model: a layer's view of a tensor (TREx's Activation) and the engine's I/O.

An :class:`Activation` is a tensor as one layer reads or writes it: shape, format, precision and
size in bytes (vectorised formats padded, dynamic dimensions counted as 1). An :class:`IOTensor`
is one of the engine's inputs or outputs with, for TensorRT 11 exports, its per-profile
min/opt/max shapes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..formats.tensor_format import TensorFormat, parse_format, tensor_size_bytes


class Activation:
    """A tensor as one layer sees it: name, shape, format, precision and size in bytes.

    ``raw`` is the tensor's dict as exported (TREx's), made when first asked for."""

    __slots__ = ("name", "shape", "format", "precision", "data_size", "size_bytes", "tensor_format",
                 "_raw", "is_dynamic")

    def __init__(self, raw_dict: dict[str, Any]):
        self._raw: Any = raw_dict
        self.name: str = raw_dict["Name"]
        self.shape: list[int] = raw_dict.get("Dimensions", [])
        fmt, size, dynamic = format_and_size(parse_format(raw_dict.get("Format/Datatype", "")),
                                             tuple(self.shape))
        self._set(fmt, size, dynamic)

    def _set(self, fmt: TensorFormat, size: int, dynamic: bool) -> None:
        self.is_dynamic: bool = dynamic  # some dimension is -1 (its size counts it as 1)
        self.tensor_format: TensorFormat = fmt
        self.format: str = fmt.short
        self.precision: str = fmt.precision
        self.data_size: float = fmt.data_size
        self.size_bytes: int = size

    @classmethod
    def made(cls, name: str, shape: list[int], fmt: TensorFormat, size: int, dynamic: bool,
             raw_source: Any) -> Activation:
        """An Activation of values already known (the layer table's); ``raw_source`` is the
        exported dict, or ``(raw layers, layer index, "Inputs"/"Outputs", position, location)``."""
        act = cls.__new__(cls)
        act._raw = raw_source
        act.name = name
        act.shape = shape
        act.is_dynamic = dynamic
        act.tensor_format = fmt
        act.format = fmt.short
        act.precision = fmt.precision
        act.data_size = fmt.data_size
        act.size_bytes = size
        return act

    def renamed(self, name: str) -> Activation:
        """The same view of the tensor under another name (a folded NoOp's edge, rewired)."""
        return Activation.made(name, self.shape, self.tensor_format, self.size_bytes,
                               self.is_dynamic, ("renamed", self, name))

    @property
    def raw(self) -> dict[str, Any]:
        """The tensor's dict as exported (its ``Name`` the one this view has)."""
        source = self._raw
        if type(source) is dict:
            return source
        if source[0] == "renamed":
            raw = {**source[1].raw, "Name": source[2]}
        else:
            raws, index, side, position, _ = source
            raw = raws[index][side][position]
        self._raw = raw
        return raw

    @property
    def location(self) -> str | None:
        """Where the tensor lives as exported (``Device``, ``Host``...; TensorRT 10+), or None —
        known without the exported dict for the layer table's tensors."""
        source = self._raw
        if type(source) is tuple:
            location = source[4] if source[0] != "renamed" else source[1].location
        else:
            location = source.get("Location")
        return location if isinstance(location, str) else None

    def tooltip(self) -> str:
        """The tensor's shape and format, as TREx's graph tooltips show them."""
        return "\\n".join((str(self.shape), self.format))

    def __repr__(self) -> str:
        return f"{self.name}: {self.shape}x{self.format}"


_SIZES: dict[tuple[TensorFormat, tuple[int, ...]], tuple[TensorFormat, int, bool]] = {}


def format_and_size(fmt: TensorFormat, shape: tuple[int, ...]) -> tuple[TensorFormat, int, bool]:
    """The format as stored for this shape (NHWC for an image-shaped row-major tensor), its byte
    size and whether a dimension is dynamic, memoised: big engines repeat a few tensor shapes."""
    key = (fmt, shape)
    hit = _SIZES.get(key)
    if hit is None:
        fmt = channels_last(fmt, shape)
        hit = (fmt, tensor_size_bytes(list(shape), fmt), any(d < 0 for d in shape))
        if len(_SIZES) < 65536:
            _SIZES[key] = hit
    return hit


def channels_last(fmt: TensorFormat, shape: tuple[int, ...]) -> TensorFormat:
    """A row-major 4-D tensor whose last dimension is a few channels and whose middle ones are an
    image (``[1, 224, 224, 3]``, a TensorFlow model's input) is NHWC, not TREx's default NCHW."""
    if fmt.layout != "NCHW" or len(shape) != 4 or not 0 < shape[3] <= 4 < min(shape[1], shape[2]):
        return fmt
    return replace(fmt, layout="NHWC", short=fmt.short.replace(" NCHW", " NHWC"))


@dataclass(frozen=True)
class ProfileShapes:
    """The shapes an engine input or output accepts in one optimisation profile (TensorRT 11)."""

    profile: int
    min: list[int]
    opt: list[int]
    max: list[int]
    format: str  # trex's short spelling ("FP32 NCHW"); "" when the export does not say


@dataclass
class IOTensor:
    """One engine input or output: data type, shape, location and per-profile shapes."""

    name: str
    mode: str  # "input" or "output"
    precision: str  # trex's precision vocabulary: FP32, FP16, INT8, INT64, ...
    shape: list[int]
    format: str = ""  # short format spelling, "" when unknown
    location: str | None = None  # "Device" or "Host" when the export says
    shape_io: bool = False  # a shape tensor read on the host (IsShapeInferenceIO)
    profiles: list[ProfileShapes] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """Plain values for JSON output."""
        return {
            "name": self.name, "mode": self.mode, "precision": self.precision,
            "shape": list(self.shape), "format": self.format, "location": self.location,
            "shape_io": self.shape_io,
            "profiles": [{"profile": p.profile, "min": p.min, "opt": p.opt, "max": p.max,
                          "format": p.format} for p in self.profiles],
        }


def io_tensors(raw: list[dict[str, Any]], inputs: list[Activation], outputs: list[Activation]
               ) -> list[IOTensor]:
    """The engine's I/O: TensorRT 11's ``I/O Tensors`` when the export has them, else the bindings
    as the layers see them."""
    if raw:
        return [_from_trt11(entry) for entry in raw if isinstance(entry, dict)]
    out = []
    for mode, tensors in (("input", inputs), ("output", outputs)):
        for t in tensors:
            out.append(IOTensor(t.name, mode, t.precision, list(t.shape), t.format, t.location))
    return out


def _from_trt11(entry: dict[str, Any]) -> IOTensor:
    dtype = str(entry.get("DataType", entry.get("Datatype", "")) or "")
    mode = str(entry.get("IOMode", "")).lower()
    profiles = []
    info = entry.get("ProfileInfo")
    for index, p in enumerate(info if isinstance(info, list) else []):
        if not isinstance(p, dict):
            continue
        fmt = str(p.get("Format", "") or "")
        profiles.append(ProfileShapes(index, _dims(p.get("MinShape")), _dims(p.get("OptShape")),
                                      _dims(p.get("MaxShape")), parse_format(fmt).short if fmt else ""))
    location = entry.get("Location")
    fmt_text = profiles[0].format if profiles else ""
    return IOTensor(
        name=str(entry.get("Name", "")),
        mode=mode if mode in ("input", "output") else "unknown",
        precision=parse_format(dtype).precision,
        shape=_dims(entry.get("Dimensions")),
        format=fmt_text,
        location=location if isinstance(location, str) else None,
        shape_io=entry.get("IsShapeInferenceIO") is True,
        profiles=profiles,
    )


def _dims(value: Any) -> list[int]:
    if not isinstance(value, list):
        return []
    out = []
    for d in value:
        try:
            out.append(int(d))
        except (TypeError, ValueError, OverflowError):
            out.append(-1)
    return out
