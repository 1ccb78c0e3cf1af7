"""Optimisation profiles of multi-profile engines: which layers belong to profile N.

Layers and tensors of profile N >= 1 carry a `` [profile N]`` suffix, but Myelin layers of those
profiles may not (only some of their tensors do, or none). Profiles are laid out one after the other,
so a layer without any suffix belongs to the profile of the layer before it.
"""

from __future__ import annotations

import re
from typing import Any

PROFILE_RE = re.compile(r" ?\[profile (\d{1,9})\]")


def profile_of_name(name: str) -> int | None:
    """The profile number in a name's ``[profile N]`` suffix, or None."""
    if "[profile " not in name:
        return None
    match = PROFILE_RE.search(name)
    return int(match.group(1)) if match else None


def strip_profile(name: str) -> str:
    """The name without its ``[profile N]`` suffix."""
    return PROFILE_RE.sub("", name) if "[profile " in name else name


def assign_profiles(layers: list[dict[str, Any]]) -> list[int]:
    """Return the profile number of each raw layer (0 for single-profile engines)."""
    result: list[int] = []
    current = 0
    for layer in layers:
        found = profile_of_name(layer.get("Name", ""))
        if found is None:
            for tensor in (*layer.get("Inputs", ()), *layer.get("Outputs", ())):
                found = profile_of_name(tensor.get("Name", ""))
                if found is not None:
                    break
        if found is not None:
            current = found
        result.append(current)
    return result


def select_profile(
    layers: list[dict[str, Any]], profile_id: int | None
) -> tuple[list[dict[str, Any]], list[int]]:
    """Keep the layers of one profile (None means profile 0); also return the profiles present."""
    if not any("[profile " in layer["Name"] for layer in layers):  # readers give str names
        # Single-profile engine: layers of profile N >= 1 always have some suffixed names.
        return (list(layers) if not profile_id else []), [0]
    profiles = assign_profiles(layers)
    present = sorted(set(profiles))
    wanted = profile_id or 0
    return [layer for layer, p in zip(layers, profiles) if p == wanted], present
