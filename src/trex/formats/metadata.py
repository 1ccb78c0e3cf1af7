"""Reader of build, profile and device metadata: TREx's JSON files or trtexec logs."""

from __future__ import annotations

import os
import re
from typing import Any

from ..errors import InputError
from .jsonio import loads_documents, looks_like_json
from .records import DeviceInfo, Metadata, as_text
from .text import Head, read_text
from .units import finite, to_bytes

PROFILE_METADATA = "profile_metadata"
BUILD_METADATA = "build_metadata"
DEVICE_METADATA = "device_metadata"
_PROFILE_KEYS = re.compile(r'"(?:performance_summary|inference_options)"\s*:')
_BUILD_KEYS = re.compile(r'"(?:model_options|build_options)"\s*:')
_DEVICE_SECTION = re.compile(r'"device_information"\s*:')
_DEVICE_ATTRIBUTES = re.compile(r'"(?:ComputeCapability|MULTIPROCESSOR_COUNT)"\s*:')
METADATA_SECTIONS = (
    "model_options", "build_options", "system_options", "inference_options",
    "reporting_options", "device_information", "performance_summary",
)


def match_profile_metadata(head: Head) -> bool:
    """``*.profile.metadata.json``: performance summary, inference options or the device only."""
    text = head.text
    return looks_like_json(text) and (
        _PROFILE_KEYS.search(text) is not None
        or (_DEVICE_SECTION.search(text) is not None and _BUILD_KEYS.search(text) is None))


def match_build_metadata(head: Head) -> bool:
    """``*.build.metadata.json``: model and build options."""
    return looks_like_json(head.text) and _BUILD_KEYS.search(head.text) is not None


def match_device_metadata(head: Head) -> bool:
    """``*.metadata.json`` of TREx's examples: a list of CUDA device attributes."""
    return looks_like_json(head.text) and _DEVICE_ATTRIBUTES.search(head.text) is not None


def read_metadata(path: str | os.PathLike[str]) -> Metadata:
    """Read ``*.profile.metadata.json``, ``*.build.metadata.json``, ``*.metadata.json`` or a log."""
    source = os.fspath(path)
    warnings: list[str] = []
    text = read_text(path, warnings)
    if looks_like_json(text):
        metadata = metadata_from_json(loads_documents(text, source)[0], source)
        metadata.warnings[:0] = warnings
        return metadata
    from .trtexec_log import looks_like_trtexec_log, parse_trtexec_log

    if not looks_like_trtexec_log(text):
        raise InputError(source, "not metadata (expected a metadata JSON file or a trtexec log)")
    metadata = parse_trtexec_log(text, source).metadata
    metadata.warnings[:0] = warnings
    return metadata


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
    clock_khz = finite(attrs.get("CLOCK_RATE"))
    mem_clock_khz = finite(attrs.get("MEMORY_CLOCK_RATE"))
    sms = finite(attrs.get("MULTIPROCESSOR_COUNT"))
    bus = finite(attrs.get("GLOBAL_MEMORY_BUS_WIDTH"))
    smem = finite(attrs.get("MAX_SHARED_MEMORY_PER_MULTIPROCESSOR"))
    ecc = attrs.get("ECC_ENABLED")
    total = finite(attrs.get("TotalMemory"))
    return DeviceInfo(
        name=as_text(attrs.get("Name")),
        compute_capability=capability,
        sms=int(sms) if sms is not None else None,
        compute_clock_ghz=clock_khz / 1e6 if clock_khz else None,
        memory_clock_ghz=mem_clock_khz / 1e6 if mem_clock_khz else None,
        global_memory_bytes=int(total) if total is not None else None,
        shared_memory_per_sm_bytes=int(smem) if smem is not None else None,
        memory_bus_width_bits=int(bus) if bus is not None else None,
        ecc_enabled=bool(ecc) if ecc is not None else None,
    )


def device_from_information(info: dict[str, Any]) -> DeviceInfo | None:
    """DeviceInfo from a trtexec ``device_information`` section (strings or numbers)."""
    if not info:
        return None
    sms = finite(info.get("SMs"))
    bus = finite(info.get("Memory Bus Width"))
    ecc_text = str(info.get("Memory Bus Width", ""))
    return DeviceInfo(
        name=as_text(info.get("Selected Device")),
        compute_capability=finite(info.get("Compute Capability")),
        sms=int(sms) if sms is not None else None,
        compute_clock_ghz=finite(info.get("Compute Clock Rate",
                                        info.get("Application Compute Clock Rate"))),
        memory_clock_ghz=finite(info.get("Memory Clock Rate",
                                       info.get("Application Memory Clock Rate"))),
        global_memory_bytes=to_bytes(info.get("Device Global Memory")),
        shared_memory_per_sm_bytes=to_bytes(info.get("Shared Memory per SM")),
        memory_bus_width_bits=int(bus) if bus is not None else None,
        ecc_enabled=("ECC enabled" in ecc_text) if "ECC" in ecc_text else None,
    )
