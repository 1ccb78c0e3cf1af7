"""Optimisation profiles of multi-profile engines: which layers belong to profile N.

Layers and tensors of profile N >= 1 carry a `` [profile N]`` suffix, but Myelin layers of those
profiles may not (only some of their tensors do, or none). Profiles are laid out one after the other,
so a layer without any suffix belongs to the profile of the layer before it.
"""

from __future__ import annotations

import re

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
