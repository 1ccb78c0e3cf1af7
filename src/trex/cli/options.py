"""Options and helpers that several subtools share: which profile and run to read, engine labels."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from ..errors import InputError, cap_line
from ..formats.discovery import engine_folders, engine_prefix
from ..model.plan import EnginePlan
from ..outputs import check_replace, folder_of, origin_of
from ..safety import terminal_text
from . import numbers


def add_profile_options(parser: argparse.ArgumentParser, what: str = "a profile file") -> None:
    """``--profile-id`` and ``--run`` (stored as ``profile_id`` and ``profile_run``)."""
    parser.add_argument("--profile-id", type=numbers.PROFILE_ID, default=None,
                        help="optimisation profile of a multi-profile engine (default 0)")
    parser.add_argument("--run", type=numbers.RUN, default=None,
                        dest="profile_run",
                        help=f"run to use when {what} holds several (default 0)")


def add_output_options(parser: argparse.ArgumentParser, what: str, default: str) -> None:
    """``--output/-o`` and ``--force``: a default-named output never replaces a file this run did
    not write (another engine's drawing, a user's file) unless ``--force``."""
    parser.add_argument("--output", "-o", default=None,
                        help=f"{what} (default: {default} in the current folder, e.g. "
                             "a100-resnet18-fp32.resnet.onnx.engine for the engine "
                             "resnet.onnx.engine in the folder a100-resnet18-fp32)")
    parser.add_argument("--force", action="store_true",
                        help="let the default-named output replace an existing file (an "
                             "explicit --output always may)")


def output_path(args: argparse.Namespace, default: Callable[[], str]) -> str:
    """The output file: ``--output``, else ``default()``, which may replace an existing file
    only with ``--force`` (or when this run wrote it)."""
    if args.output:
        return str(args.output)
    path = default()
    check_replace(path, args.force)
    return path


def add_profiles_option(parser: argparse.ArgumentParser) -> None:
    """``--profiles``: every optimisation profile of each engine, compared as engines of their own."""
    parser.add_argument("--profiles", action="store_true", dest="each_profile",
                        help="use every optimisation profile of each engine as an engine of its "
                             "own (e.g. the prefill and decode profiles of one LLM engine)")


def expand_engine_folders(paths: list[str]) -> tuple[list[str], list[str]]:
    """The paths with each folder of engine folders replaced by its engines (in name order), and
    one note per folder so replaced: ``summary``, ``lint``, ``compare`` and ``report`` take each."""
    expanded: list[str] = []
    notes: list[str] = []
    for path in paths:
        inside = engine_folders(path)
        if not inside:
            expanded.append(path)
            continue
        expanded += [str(folder) for folder in inside]
        notes.append(f"{path} is a folder of {len(inside)} engine folders; each is used, in name "
                     f"order: {', '.join(folder.name for folder in inside)}")
    return expanded, notes


def print_notes(notes: list[str]) -> None:
    """``note: ...`` lines on standard error, control characters shown as escapes."""
    for note in notes:
        print(terminal_text(f"note: {note}"), file=sys.stderr)


def load_plans(paths: list[str], args: argparse.Namespace,
               on_path: Callable[[str], object] | None = None) -> tuple[list[EnginePlan], list[str]]:
    """The plans the user named (every profile of each with ``--profiles``) and each one's path;
    ``on_path`` is told each path before it loads (a progress line)."""
    plans: list[EnginePlan] = []
    origins: list[str] = []
    for path in paths:
        if on_path is not None:
            on_path(path)
        if getattr(args, "each_profile", False):
            if args.profile_id is not None:
                raise InputError(None, "--profiles and --profile-id exclude each other")
            found = EnginePlan.each_profile(path, profile_run=args.profile_run)
        else:
            found = [EnginePlan.from_path(path, profile_id=args.profile_id,
                                          profile_run=args.profile_run)]
        plans += found
        origins += [path] * len(found)
    return plans, origins


def heading_labels(plans: list[EnginePlan]) -> list[str]:
    """What heads each engine's section (``trex summary``, ``trex lint``): its name, or
    ``<folder>/<name>`` where names repeat (``trex summary fp32/ fp16/``), numbered if still
    alike; each cut to the length of a warning line."""
    names = [str(plan.name) for plan in plans]
    seen = Counter(names)
    labels = [f"{folder_of(origin_of(plan)) or '.'}/{name}" if seen[name] > 1 else name
              for plan, name in zip(plans, names)]
    again = Counter(labels)
    labels = [f"{label} #{i + 1}" if again[label] > 1 else label for i, label in enumerate(labels)]
    return [cap_line(label) for label in labels]


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
