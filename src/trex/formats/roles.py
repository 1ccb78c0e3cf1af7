"""The roles an engine's files play, in one table: which readers fill each, how such files are
named, what a ``.tea`` manifest and ``trex process`` call them.

A role is what a file is to an engine (its layer information, its profile, its build log, its
drawing...), whatever format holds it. :data:`ROLES` has one :class:`Role` row per role, and every
place that deals in roles reads it and keeps no list of its own: folder discovery
(:mod:`.discovery`), ``.tea`` archives (:mod:`.archive`), the plan loader
(:mod:`trex.model.loader`) and :class:`~trex.model.plan.EnginePlan`, and ``trex process``
(:class:`~trex.process.commands.ProcessPaths`). Adding an export format is one reader module
(registered in :data:`.registry.READERS`) and one row here; a second reader for an existing role
is one more kind in that role's row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from . import export_times, layer_info, log, metadata, profile
from .log import LogRecord

P = TypeVar("P")


@dataclass(frozen=True)
class Role:
    """One role a file can play for an engine (one row of :data:`ROLES`)."""

    name: str  # the attribute: EngineFiles.graph, PlanInputs.graph, ProcessPaths.graph, plan.sources
    what: str  # the role in words, for messages ("layer information (--exportLayerInfo JSON)")
    kinds: tuple[str, ...] = ()  # the readers (by kind) whose files fill it, preferred first
    from_log: Callable[[LogRecord], bool] | None = None  # a trtexec log fills it when this holds
    suffixes: tuple[str, ...] = ()  # the names TREx, trtexec and trex give such files
    manifest: str | None = None  # what a .tea manifest calls it (None: its reader's kind)
    output: str | None = None  # the suffix `trex process` writes it under (X.engine<output>)
    fallback: str | None = None  # the role whose file stands in for it when none is found
    plan: bool = True  # read by the plan (False: found only to stand in for another role)
    plain_logs: bool = False  # a log with options only fills it when no log with content does

    @property
    def found(self) -> bool:
        """True for a role discovery fills (a reader or a log can), False for a role only named
        (a drawing, a timing cache: files trex writes or archives but never reads)."""
        return bool(self.kinds) or self.from_log is not None


# The engine's layers: every plan has this role (or its fallback's file in its place).
GRAPH = "graph"

ROLES: tuple[Role, ...] = (
    Role(GRAPH, "layer information (--exportLayerInfo JSON)", (layer_info.KIND,),
         lambda r: r.layer_info is not None, (".graph.json", ".layers.json"),
         manifest="layer_info", output=".graph.json", fallback="profile"),
    Role("profile", "a per-layer profile (--exportProfile JSON)", (profile.KIND,),
         lambda r: r.profile is not None, (".profile.json", ".trace"), manifest="profile",
         output=".profile.json"),
    Role("timings", "per-iteration timings (--exportTimes JSON)", (export_times.KIND,),
         suffixes=(".timing.json", ".times.json"), manifest="timings", output=".timing.json"),
    Role("profile_metadata", "profile metadata (performance summary, device)",
         (metadata.PROFILE_METADATA,), suffixes=(".profile.metadata.json",),
         manifest="profile_metadata", output=".profile.metadata.json", fallback="profile_log"),
    Role("build_metadata", "build metadata (model and build options)", (metadata.BUILD_METADATA,),
         suffixes=(".build.metadata.json",), manifest="build_metadata",
         output=".build.metadata.json", fallback="build_log"),
    Role("device_metadata", "device attributes JSON", (metadata.DEVICE_METADATA,),
         suffixes=(".metadata.json",), manifest="device_metadata"),
    Role("profile_log", "trtexec's profiling log (performance summary, --dumpProfile)",
         from_log=lambda r: r.has_performance_summary or r.profile is not None,
         suffixes=(".profile.log",), manifest="profile_log", output=".profile.log", plan=False),
    Role("build_log", "trtexec's build log", from_log=lambda r: r.is_build_log,
         suffixes=(".build.log",), manifest="build_log", output=".build.log", plan=False,
         plain_logs=True),
    Role("drawing", "the drawn graph (SVG)", suffixes=(".graph.json.svg", ".svg"),
         manifest="drawing", output=".graph.json.svg"),
    Role("gpu_monitor", "GPU samples of trex process --monitor", output=".gpu.json"),
    Role("timing_cache", "trtexec's timing cache", suffixes=(".cache",), manifest="timing_cache"),
    Role("archive", "a .tea archive of the engine's files (trex process --archive)", output=".tea"),
)

# Names any export may have: discovery strips them too to find an engine's prefix.
GENERIC_SUFFIXES = (".json", ".log", ".txt")


def get(name: str) -> Role | None:
    """The row of a role, by name (None for a name that is no role)."""
    return next((role for role in ROLES if role.name == name), None)


def role(name: str) -> Role:
    """The row of a role that must exist (a KeyError names it otherwise)."""
    found = get(name)
    if found is None:
        raise KeyError(f"no file role {name!r} (trex.formats.roles.ROLES)")
    return found


def found_roles() -> tuple[Role, ...]:
    """The roles discovery fills (by a reader's kind or a log's content), in table order."""
    return tuple(r for r in ROLES if r.found)


def plan_roles() -> tuple[Role, ...]:
    """The roles a plan reads (its inputs), in table order."""
    return tuple(r for r in ROLES if r.found and r.plan)


def output_roles() -> tuple[Role, ...]:
    """The roles of the files ``trex process`` writes under the engine's name."""
    return tuple(r for r in ROLES if r.output)


def of_kind(kind: str) -> Role | None:
    """The role a file of this reader kind fills (None: no role, e.g. a log, which fills the
    roles its content supports, or a tuning cache)."""
    return next((r for r in ROLES if kind in r.kinds), None)


def log_roles(record: LogRecord) -> list[str]:
    """The roles a log fills by its content (layer list, profile table, summary, build records)."""
    return [r.name for r in ROLES if r.from_log is not None and r.from_log(record)]


def plain_log_role() -> Role | None:
    """The role a log with options only fills when no log with content does (the build log)."""
    return next((r for r in ROLES if r.plain_logs), None)


def plan_role_for(name: str) -> str | None:
    """The plan role a found role feeds: itself, or the plan role it stands in for (a profiling
    log for the profile metadata); None when it feeds none."""
    rows = plan_roles()
    if any(r.name == name for r in rows):
        return name
    return next((r.name for r in rows if r.fallback == name), None)


def by_manifest(field_name: str) -> Role | None:
    """The role a ``.tea`` manifest's field names (``layer_info`` -> graph), or None."""
    return next((r for r in ROLES if r.manifest is not None and r.manifest == field_name), None)


def by_name(file_name: str, rows: tuple[Role, ...] | None = None) -> Role | None:
    """The first role (of ``rows``, default all) one of whose suffixes ends ``file_name``."""
    return next((r for r in (ROLES if rows is None else rows)
                 if r.suffixes and file_name.endswith(r.suffixes)), None)


def suffixes() -> tuple[str, ...]:
    """Every known suffix, longest first: :func:`~.discovery.engine_prefix` strips the first that
    ends a name (``x.profile.metadata.json`` -> ``x``, never ``x.profile``)."""
    known = {s for r in ROLES for s in r.suffixes} | set(GENERIC_SUFFIXES)
    return tuple(sorted(known, key=lambda s: (-len(s), s)))


def engine_kinds() -> frozenset[str]:
    """The kinds of file that make an engine on their own: those of the layer role and of its
    fallback (a profile), and a log when it can fill either."""
    rows = [role(GRAPH)]
    if rows[0].fallback:
        rows.append(role(rows[0].fallback))
    kinds = {k for r in rows for k in r.kinds}
    if any(r.from_log is not None for r in rows):
        kinds.add(log.KIND)
    return frozenset(kinds)


def check(rows: tuple[Role, ...] | None = None) -> None:
    """Raise ValueError when a table is inconsistent: a name twice or clashing with an attribute,
    a kind in two roles, a manifest field twice, a fallback that is no role."""
    rows = ROLES if rows is None else rows
    names = [r.name for r in rows]
    problems = [f"role {n!r} twice" for n in set(names) if names.count(n) > 1]
    problems += [f"role {n!r} is a reserved attribute" for n in names
                 if n.startswith("_") or n in _RESERVED or not n.isidentifier()]
    kinds = [k for r in rows for k in r.kinds]
    problems += [f"kind {k!r} fills two roles" for k in set(kinds) if kinds.count(k) > 1]
    fields = [r.manifest for r in rows if r.manifest]
    problems += [f"manifest field {f!r} twice" for f in set(fields) if fields.count(f) > 1]
    problems += [f"{r.name}: fallback {r.fallback!r} is no role" for r in rows
                 if r.fallback is not None and r.fallback not in names]
    if problems:
        raise ValueError("file-role table: " + "; ".join(sorted(problems)))


class RoleFiles(Generic[P]):
    """Files by role: ``files.paths`` maps a role's name to its file, and each role the collection
    holds (:meth:`roles`) is an attribute too: ``files.graph``, None where no file has the role.

    Subclasses are dataclasses with a ``paths`` field (:class:`~.discovery.EngineFiles`,
    :class:`~trex.model.loader.PlanInputs`); a role added to :data:`ROLES` is an attribute of
    theirs at once.
    """

    paths: dict[str, P]

    @classmethod
    def roles(cls) -> tuple[Role, ...]:
        """The roles this kind of collection holds (the roles discovery fills)."""
        return found_roles()

    @classmethod
    def holds(cls, name: str) -> bool:
        """True when ``name`` is one of :meth:`roles`."""
        return any(r.name == name for r in cls.roles())

    def __post_init__(self) -> None:
        unknown = [name for name in self.paths if not self.holds(name)]
        if unknown:
            raise ValueError(f"{type(self).__name__}: no such role: {', '.join(map(str, unknown))}")
        self.paths = {name: p for name, p in self.paths.items() if p is not None}

    def get(self, name: str) -> P | None:
        """The file with this role, or None."""
        return self.paths.get(name)

    def items(self) -> list[tuple[str, P]]:
        """(role, file) pairs, in table order."""
        order = {r.name: i for i, r in enumerate(ROLES)}
        return sorted(self.paths.items(), key=lambda item: order.get(item[0], len(order)))

    def __getattr__(self, name: str) -> P | None:
        paths = self.__dict__.get("paths")
        if paths is None or name.startswith("_") or not self.holds(name):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        value: P | None = paths.get(name)
        return value

    def __setattr__(self, name: str, value: object) -> None:
        if name.startswith("_") or name in _RESERVED or not self.holds(name):
            object.__setattr__(self, name, value)
        elif value is None:
            self.paths.pop(name, None)
        else:
            self.paths[name] = cast(P, value)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *(r.name for r in self.roles())})


# Attributes of RoleFiles and its subclasses that no role may be named.
_RESERVED = frozenset({"paths", "name", "get", "items", "holds", "roles"})

check()
