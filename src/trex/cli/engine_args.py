"""One argument group for every command that reads engines, and the one loader behind it.

Modelled on Polygraphy's argument groups: :class:`EngineArgs` declares the loading options on a
command's parser (:meth:`EngineArgs.add_to`, one titled section of ``--help``) and loads the
engines from the parsed arguments (:meth:`EngineArgs.load`). Every command that reads engines
(``summary``, ``compare``, ``draw``, ``lint``, ``timeline``, ``report``, ``routes``) declares its
group at module level, so the options are spelled, checked and honoured the same way everywhere:

- ``PATH`` (an engine prefix, a folder, any of its files; a folder of engine folders stands for
  each engine in it, with a note on standard error),
- ``--profiling-json/-pj FILE`` (TREx's ``--profiling_json`` kept): the per-layer profile to use
  instead of the one found beside the engine; every other file (device, builder configuration,
  performance summary, timings) is still found,
- ``--profile-id N`` (checked against the profiles each engine has) and ``--run N``,
- ``--profiles``, ``--names`` and ``--loose`` where a command compares or labels engines.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..errors import InputError, ProfileNotFound, cap_line
from ..formats.discovery import engine_folders, engine_prefix
from ..model.plan import EnginePlan
from ..outputs import folder_of, origin_of
from ..safety import terminal_text
from . import numbers

TITLE = "engines"
DESCRIPTION = ("Which engines to read and how (the same options in every command that reads "
               "engines).")
PJ_FLAGS = ("--profiling-json", "--profiling_json", "-pj")  # TREx's spelling kept as an alias
Labels = Literal["name", "path"]


# The engines the ``trex`` console script keeps until its process ends (:func:`trex.cli.console`),
# so that they are not freed object by object first (0.4 s for 200,000 layers); None in-process.
KEPT_FOR_EXIT: list[Engines] | None = None


@dataclass
class Engines:
    """What :meth:`EngineArgs.load` gives: the plans, the path each was loaded from (after folder
    expansion) and each one's display label, in the order the user named them."""

    plans: list[EnginePlan] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.plans)

    def __iter__(self) -> Iterator[tuple[str, EnginePlan]]:
        """``(label, plan)`` pairs."""
        return iter(zip(self.labels, self.plans))


class EngineArgs:
    """The loading options of one command and the loader behind them.

    ``many``: the command takes several ``PATH`` (``paths``), else one (``path``); ``paths=False``:
    no positional (``routes``, whose engines a sweep names). ``profiling_json``, ``profiles``,
    ``names`` and ``loose`` add those options; ``labels`` says how engines are named without
    ``--names`` (``"name"``: the engine's name, with its folder where names repeat; ``"path"``:
    the paths' last parts). ``min_engines``/``too_few``: the least a command compares;
    ``description`` heads the group's section of ``--help``.
    """

    def __init__(self, *, many: bool = True, paths: bool = True, profiling_json: bool = True,
                 profiles: bool = False, names: bool = False, loose: bool = False,
                 labels: Labels = "name", runs_of: str = "a profile file",
                 metavar: str = "PATH", min_engines: int = 1, too_few: str = "",
                 description: str = DESCRIPTION):
        self.many = many
        self.paths = paths
        self.profiling_json = profiling_json
        self.profiles = profiles
        self.names = names
        self.loose = loose
        self.label_style = labels
        self.runs_of = runs_of
        self.metavar = metavar
        self.min_engines = min_engines
        self.too_few = too_few or f"needs at least {min_engines} engines"
        self.description = description

    # ---------------------------------------------------------------------------- the options
    def add_to(self, parser: argparse.ArgumentParser, path_help: str | None = None
               ) -> argparse._ArgumentGroup:
        """Declare the options on ``parser``, in one section of its help titled ``engines``;
        ``parser``'s defaults remember the group (``engine_args``) for tests and tools."""
        group = parser.add_argument_group(TITLE, self.description)
        what = "an engine prefix, a folder or any one of the engine's files"
        if self.paths and self.many:
            group.add_argument("paths", nargs="+", metavar=self.metavar, help=path_help or (
                f"{what}; a folder of engine folders stands for each engine in it, in name "
                "order"))
        elif self.paths:
            group.add_argument("path", metavar=self.metavar, help=path_help or what)
        if self.profiling_json:
            per = ("; with several engines give it once per engine, in order" if self.many
                   else "")
            group.add_argument(*PJ_FLAGS, dest="profiling_json", action="append", default=None,
                               metavar="FILE",
                               help="per-layer profile to use instead of the one found beside "
                                    "the engine; the engine's other files (device, builder "
                                    f"configuration, performance summary, timings) still count{per}")
        group.add_argument("--profile-id", type=numbers.PROFILE_ID, default=None, metavar="N",
                           help="optimisation profile of a multi-profile engine (default 0); one "
                                "the engine does not have is an error that lists its profiles")
        group.add_argument("--run", type=numbers.RUN, default=None, dest="profile_run",
                           metavar="N",
                           help=f"run to use when {self.runs_of} holds several (default 0; "
                                "negative: from the last)")
        if self.profiles:
            group.add_argument("--profiles", action="store_true", dest="each_profile",
                               help="use every optimisation profile of each engine as an engine "
                                    "of its own (e.g. the prefill and decode profiles of one LLM "
                                    "engine)")
        if self.names:
            group.add_argument("--names", default=None, metavar="A,B,...",
                               help="comma-separated display names, one per engine (default: "
                                    "from the " + ("paths" if self.label_style == "path"
                                                   else "engines' names") + ")")
        if self.loose:
            group.add_argument("--loose", action="store_true",
                               help="align layers on their first input and output only "
                                    "(TREx's exact_matching=False)")
        parser.set_defaults(engine_args=self)
        return group

    # ---------------------------------------------------------------------------- the loader
    def given_paths(self, args: argparse.Namespace) -> list[str]:
        """The paths as the user wrote them."""
        if not self.paths:
            return []
        return list(args.paths) if self.many else [args.path]

    def expand(self, args: argparse.Namespace) -> tuple[list[str], list[str]]:
        """The engine paths, each folder of engine folders replaced by its engines, and one note
        per folder so replaced (a command that takes one engine takes a folder as it is)."""
        given = self.given_paths(args)
        return expand_engine_folders(given) if self.many else (given, [])

    def load(self, args: argparse.Namespace, on_path: Callable[[str], object] | None = None
             ) -> Engines:
        """Every engine the arguments name (each profile of each with ``--profiles``), with its
        path and label; notes on expanded folders go to standard error. ``on_path`` is told
        each path before it loads (a progress line)."""
        paths, notes = self.expand(args)
        print_notes(notes)
        files = self._profiling_files(args, len(paths))
        if len(paths) < self.min_engines and not getattr(args, "each_profile", False):
            raise InputError(None, self.too_few)  # refused before a big plan loads
        loaded = Engines()
        for path, profiling_file in zip(paths, files):
            if on_path is not None:
                on_path(path)
            found = self.load_path(path, args, profiling_file)
            loaded.plans += found
            loaded.paths += [path] * len(found)
        if len(loaded.plans) < self.min_engines:
            raise InputError(None, self.too_few)
        loaded.labels = self.labels(loaded.paths, loaded.plans, getattr(args, "names", None))
        if KEPT_FOR_EXIT is not None:
            KEPT_FOR_EXIT.append(loaded)
        return loaded

    def load_path(self, path: str | Path, args: argparse.Namespace,
                  profiling_file: str | None = None) -> list[EnginePlan]:
        """The plans of one engine path: one, or one per profile with ``--profiles``; a
        ``--profile-id`` the engine lacks is one line naming the engine and its profiles."""
        profile_id = args.profile_id
        run = args.profile_run
        if getattr(args, "each_profile", False):
            if profile_id is not None:
                raise InputError(None, "--profiles and --profile-id exclude each other")
            return EnginePlan.each_profile(path, profile_run=run, profiling_file=profiling_file)
        try:
            return [EnginePlan.from_path(path, profile_id=profile_id, profile_run=run,
                                         profiling_file=profiling_file)]
        except ProfileNotFound as exc:
            if profile_id is None or profile_id in exc.profiles:
                raise
            raise InputError(path, f"--profile-id {profile_id}: this engine has "
                                   f"{_profiles_text(exc.profiles)}") from None

    def _profiling_files(self, args: argparse.Namespace, engines: int) -> list[str | None]:
        """``-pj`` per engine: none, or exactly one per engine in order."""
        given = list(getattr(args, "profiling_json", None) or [])
        if not given:
            return [None] * engines
        if len(given) != engines:
            raise InputError(None, f"--profiling-json: {_count(len(given), 'file')} for "
                                   f"{_count(engines, 'engine')}; give one per engine, in order")
        return [str(file) for file in given]

    def labels(self, paths: list[str], plans: list[EnginePlan], given: str | None) -> list[str]:
        """Display labels: ``--names``, else by the group's style (see :class:`EngineArgs`)."""
        if given is not None:
            return given_names(given, len(plans))
        if self.label_style == "path":
            return engine_labels(paths, plans)
        return heading_labels(plans)


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _profiles_text(profiles: list[int]) -> str:
    if len(profiles) == 1:
        return f"profile {profiles[0]} only"
    return f"profiles {', '.join(map(str, profiles[:-1]))} and {profiles[-1]}"


def expand_engine_folders(paths: list[str]) -> tuple[list[str], list[str]]:
    """The paths with each folder of engine folders replaced by its engines (in name order), and
    one note per folder so replaced."""
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


def given_names(given: str, count: int) -> list[str]:
    """``--names``: ``count`` distinct, non-empty comma-separated names."""
    names = [n.strip() for n in given.split(",")]
    if len(names) != count or len(set(names)) != len(names) or "" in names:
        raise InputError(None, f"--names needs {count} distinct names, got {given!r}")
    return names


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


def engine_labels(paths: list[str], plans: list[EnginePlan]) -> list[str]:
    """Display names of compared engines: the paths' last parts, else the plans' names, made
    unique."""
    for names in ([engine_prefix(Path(p.rstrip("/\\") or p)) for p in paths],
                  [str(plan.name) for plan in plans]):
        if len(set(names)) == len(names):
            return names
    return [f"{plan.name}#{i + 1}" for i, plan in enumerate(plans)]
