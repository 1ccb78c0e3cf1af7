"""Plain typed records that the format readers return (no pandas, no UI)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import msgspec


def as_text(value: Any) -> str | None:
    """A field that holds text in every real export, as text: a number or boolean where the
    text belongs (a corrupt or hostile file) becomes its digits, anything else (null, a list, a
    dict, NaN) None, for the reader to drop with a warning."""
    if type(value) is str:
        return value
    if isinstance(value, bool) or (isinstance(value, int)) or (
            isinstance(value, float) and math.isfinite(value)):
        return str(value)
    return None


@dataclass
class LayerInfo:
    """The layer graph of one engine as the readers hand it over.

    ``records`` are typed :class:`~trex.formats.layer_records.LayerRecord` values (name, kinds,
    tensors with shape and format values, tactic, ONNX nodes, stream, weights); ``raws`` the same
    layers as exported, dicts in TREx's raw schema decoded on demand (``layers`` lists them all).
    Names-only exports give records whose LayerType is ``"Unknown"`` and no tensors.
    """

    records: list[Any]
    bindings: list[str]
    detailed: bool = True
    io_tensors: list[dict[str, Any]] = field(default_factory=list)
    source: str = ""
    warnings: list[str] = field(default_factory=list)
    has_weights: bool = True  # False when the source never lists weights (a build log's layers)
    raws: Any = None  # RawLayers: the exported dicts, one per record
    uses: Any = None  # TensorUses: every input and output of every record, as columns
    weights: Any = None  # TypedWeights: per {Type, Count} field, the records that have it

    @property
    def layers(self) -> list[dict[str, Any]]:
        """Every layer as an exported (normalised) dict: TREx's raw schema."""
        return list(self.raws) if self.raws is not None else []


class ProfileRecord(msgspec.Struct, gc=False, rename={"time_ms": "timeMs", "avg_ms": "averageMs",
                                              "median_ms": "medianMs"}):
    """One layer's row of a per-layer profile; times in milliseconds (decoded typed from
    ``--exportProfile`` JSON, whose keys it names)."""

    name: str
    time_ms: float
    avg_ms: float
    median_ms: float | None = None
    percentage: float | None = None


@dataclass
class ProfileRun:
    """One profiling run: the records of one JSON document or one log table."""

    records: list[ProfileRecord]
    count: int | None = None  # profiled iterations (the ``{"count": N}`` header), if known
    source: str = ""


@dataclass
class Profile:
    """All runs found in one profile input (most files hold exactly one)."""

    runs: list[ProfileRun]
    source: str = ""
    warnings: list[str] = field(default_factory=list)


@dataclass
class DeviceInfo:
    """GPU properties as numbers with explicit units (None when unknown)."""

    name: str | None = None
    compute_capability: float | None = None
    sms: int | None = None
    compute_clock_ghz: float | None = None
    memory_clock_ghz: float | None = None
    global_memory_bytes: int | None = None
    shared_memory_per_sm_bytes: int | None = None
    memory_bus_width_bits: int | None = None
    ecc_enabled: bool | None = None


@dataclass
class Metadata:
    """Build/profile/device metadata, in the section dicts of TREx's metadata JSON files."""

    sections: dict[str, dict[str, Any]] = field(default_factory=dict)
    device: DeviceInfo | None = None
    source: str = ""
    warnings: list[str] = field(default_factory=list)

    def section(self, name: str) -> dict[str, Any]:
        """One section of the metadata (``performance_summary``, ``build_options``...), or {}."""
        return self.sections.get(name, {})


@dataclass
class Timings:
    """Per-iteration timing records (``--exportTimes``), one list per JSON document, all in ms."""

    runs: list[list[dict[str, float]]]
    source: str = ""
