"""Options and helpers that several subtools share: which profile and run to read, engine labels."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import InputError
from ..formats.discovery import engine_prefix
from ..model.plan import EnginePlan
from ..safety import number_option


def add_profile_options(parser: argparse.ArgumentParser, what: str = "a profile file") -> None:
    """``--profile-id`` and ``--run`` (stored as ``profile_id`` and ``profile_run``)."""
    parser.add_argument("--profile-id", type=number_option(int, 0, 2**31), default=None,
                        help="optimisation profile of a multi-profile engine (default 0)")
    parser.add_argument("--run", type=number_option(int, -(2**31), 2**31), default=None,
                        dest="profile_run",
                        help=f"run to use when {what} holds several (default 0)")


def engine_labels(paths: list[str], plans: list[EnginePlan], given: str | None) -> list[str]:
    """Display names: --names, else the paths' last parts, else the plans' names, made unique."""
    if given is not None:
        names = [n.strip() for n in given.split(",")]
        if len(names) != len(plans) or len(set(names)) != len(names) or "" in names:
            raise InputError(None, f"--names needs {len(plans)} distinct names, got {given!r}")
        return names
    for names in ([engine_prefix(Path(p.rstrip("/\\") or p)) for p in paths],
                  [str(plan.name) for plan in plans]):
        if len(set(names)) == len(names):
            return names
    return [f"{plan.name}#{i + 1}" for i, plan in enumerate(plans)]
