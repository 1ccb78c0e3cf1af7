"""Reader of build, profile and device metadata: TREx's JSON files or trtexec logs."""

from __future__ import annotations

import math
import os
import re
from typing import Any

from ..errors import InputError
from .jsonio import loads_documents, looks_like_json, read_text
from .records import DeviceInfo, Metadata

METADATA_SECTIONS = (
    "model_options", "build_options", "system_options", "inference_options",
    "reporting_options", "device_information", "performance_summary",
)


def read_metadata(path: str | os.PathLike) -> Metadata:
    """Read ``*.profile.metadata.json``, ``*.build.metadata.json``, ``*.metadata.json`` or a log."""
    source = os.fspath(path)
    text = read_text(path)
    if looks_like_json(text):
        return metadata_from_json(loads_documents(text, source)[0], source)
    from .trtexec_log import looks_like_trtexec_log, parse_trtexec_log

    if not looks_like_trtexec_log(text):
        raise InputError(source, "not metadata (expected a metadata JSON file or a trtexec log)")
    log = parse_trtexec_log(text, source)
    return log.metadata


def is_metadata_json(doc: Any) -> bool:
    """True for TREx's metadata dicts or a list of CUDA device-attribute dicts."""
    if isinstance(doc, dict):
        return any(key in doc for key in METADATA_SECTIONS)
    return _is_device_list(doc)


def _is_device_list(doc: Any) -> bool:
    return (
        isinstance(doc, list) and bool(doc) and isinstance(doc[0], dict)
        and ("ComputeCapability" in doc[0] or "MULTIPROCESSOR_COUNT" in doc[0])
    )


def metadata_from_json(doc: Any, source: str = "") -> Metadata:
    """Metadata from one parsed JSON document."""
    if not is_metadata_json(doc):
        raise InputError(source, "not metadata: expected sections such as performance_summary, "
                                 "build_options or a list of device attributes")
    if _is_device_list(doc):
        device = doc[0]
        return Metadata({"device_attributes": dict(device)}, device_from_attributes(device), source)
    sections = {k: v for k, v in doc.items() if isinstance(v, dict)}
    device = device_from_information(sections.get("device_information", {}))
    return Metadata(sections, device, source)


def device_from_attributes(attrs: dict[str, Any]) -> DeviceInfo:
    """DeviceInfo from CUDA device attributes (``*.metadata.json`` of TREx's examples)."""
    cc = attrs.get("ComputeCapability")
    capability = None
    if isinstance(cc, list) and len(cc) >= 2 and all(type(v) is int and 0 <= v < 1000 for v in cc[:2]):
        capability = float(f"{cc[0]}.{cc[1]}")
    clock_khz = _num(attrs.get("CLOCK_RATE"))
    mem_clock_khz = _num(attrs.get("MEMORY_CLOCK_RATE"))
    sms = _num(attrs.get("MULTIPROCESSOR_COUNT"))
    bus = _num(attrs.get("GLOBAL_MEMORY_BUS_WIDTH"))
    smem = _num(attrs.get("MAX_SHARED_MEMORY_PER_MULTIPROCESSOR"))
    ecc = attrs.get("ECC_ENABLED")
    total = _num(attrs.get("TotalMemory"))
    return DeviceInfo(
        name=attrs.get("Name"),
        compute_capability=capability,
        sms=int(sms) if sms is not None else None,
        compute_clock_ghz=clock_khz / 1e6 if clock_khz else None,
        memory_clock_ghz=mem_clock_khz / 1e6 if mem_clock_khz else None,
        global_memory_bytes=int(total) if total is not None else None,
        shared_memory_per_sm_bytes=int(smem) if smem is not None else None,
        memory_bus_width_bits=int(bus) if bus is not None else None,
        ecc_enabled=bool(ecc) if ecc is not None else None,
    )


_UNITS = {"B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3, "KB": 1000, "MB": 1000**2,
          "GB": 1000**3}


def device_from_information(info: dict[str, Any]) -> DeviceInfo | None:
    """DeviceInfo from a trtexec ``device_information`` section (strings or numbers)."""
    if not info:
        return None
    sms = _num(info.get("SMs"))
    bus = _num(info.get("Memory Bus Width"))
    ecc_text = str(info.get("Memory Bus Width", ""))
    return DeviceInfo(
        name=info.get("Selected Device"),
        compute_capability=_num(info.get("Compute Capability")),
        sms=int(sms) if sms is not None else None,
        compute_clock_ghz=_num(info.get("Compute Clock Rate",
                                        info.get("Application Compute Clock Rate"))),
        memory_clock_ghz=_num(info.get("Memory Clock Rate",
                                       info.get("Application Memory Clock Rate"))),
        global_memory_bytes=bytes_with_unit(info.get("Device Global Memory")),
        shared_memory_per_sm_bytes=bytes_with_unit(info.get("Shared Memory per SM")),
        memory_bus_width_bits=int(bus) if bus is not None else None,
        ecc_enabled=("ECC enabled" in ecc_text) if "ECC" in ecc_text else None,
    )


def bytes_with_unit(value: Any) -> int | None:
    """``"24217 MiB"`` -> bytes; numbers are taken as bytes."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = _num(value)
        return int(number) if number is not None else None
    match = re.match(r"\s*(\d+(?:\.\d*)?)\s*([KMG]i?B|B)\b", str(value or ""))
    if not match:
        return None
    number = _num(float(match.group(1)) * _UNITS[match.group(2)])
    return int(number) if number is not None else None


def _num(value: Any) -> float | None:
    """A finite number from a number or the start of a string, else None (NaN, inf, "abc")."""
    if isinstance(value, bool):
        return None
    if not isinstance(value, (int, float)):
        match = re.match(r"\s*(-?[\d.]+)", str(value or ""))
        value = match.group(1) if match else None
    try:
        number = float(value) if value is not None else None
    except (ValueError, OverflowError):  # "1.2.3", an integer beyond float range
        return None
    return number if number is not None and math.isfinite(number) else None
