"""From input files to the records the plan model is built from, each file read once.

A plan's inputs are paths by role (layer information, profile, metadata, timings...: the plan
roles of :mod:`trex.formats.roles`); any of them may be JSON or a log, and the content decides
(:mod:`trex.formats.readers`). These functions ask the shared
:class:`~trex.formats.readers.InputCache` for a file's record and take from it the role asked
for, or fail with one line naming the file and what it is instead. Any reader whose record is of
the type a role needs may fill it (a second profile format is a second ``Profile`` reader).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..formats import readers, roles
from ..formats.discovery import EngineFiles
from ..formats.export_times import read_timings
from ..formats.layer_info import names_only, read_layer_info
from ..formats.log import LogRecord
from ..formats.metadata import read_metadata
from ..formats.profile import read_profile
from ..formats.readers import InputCache
from ..formats.records import LayerInfo, Metadata, Profile, Timings
from ..formats.roles import Role, RoleFiles

Path_ = str | os.PathLike[str]


@dataclass
class PlanInputs(RoleFiles[Path_]):
    """The files one plan is read from, by plan role (:func:`trex.formats.roles.plan_roles`):
    ``inputs.graph``, ``inputs.profile``... (None where absent), and the plan's name."""

    paths: dict[str, Path_] = field(default_factory=dict)
    name: str | None = None

    @classmethod
    def roles(cls) -> tuple[Role, ...]:
        """The roles a plan reads."""
        return roles.plan_roles()

    @classmethod
    def from_files(cls, files: EngineFiles) -> PlanInputs:
        """The plan roles of discovered files: each role's file, else its fallback's (a log stands
        in for a missing metadata JSON, a profile for missing layer information)."""
        paths: dict[str, Path_] = {}
        for role in roles.plan_roles():
            path = files.get(role.name) or (files.get(role.fallback) if role.fallback else None)
            if path is not None:
                paths[role.name] = path
        return cls(paths, files.name or None)


def layer_info(path: Path_, cache: InputCache) -> LayerInfo:
    """Layer information from a layer file, a log's layer list, or the names of a profile alone."""
    kind = cache.kind(path)
    if kind in readers.kinds_reading(LayerInfo):
        return cache.read_as(path, LayerInfo)
    if kind == readers.LOG:
        record = cache.read_as(path, LogRecord)
        if record.layer_info is not None:
            return record.layer_info
        if record.profile is None:
            raise InputError(path, "a log without a layer list (--dumpLayerInfo, or a verbose "
                                   "build's 'Engine Layer Information') or a profile table")
        return _from_profile(record.profile, path)
    if kind in readers.kinds_reading(Profile):
        return _from_profile(cache.read_as(path, Profile), path)
    if kind == readers.UNKNOWN:
        return read_layer_info(path)  # says what is wrong (invalid JSON at line ...)
    raise InputError(path, f"is {readers.describe(kind)}, not {roles.role(roles.GRAPH).what}")


def _from_profile(profile: Profile, path: Path_) -> LayerInfo:
    info = names_only([r.name for r in profile.runs[0].records], [], source=os.fspath(path))
    info.warnings.append("no layer information: layers taken from the profile")
    return info


def profile(path: Path_, cache: InputCache) -> Profile:
    """The per-layer profile of a profile file or a log's ``--dumpProfile`` tables."""
    kind = cache.kind(path)
    if kind in readers.kinds_reading(Profile):
        return cache.read_as(path, Profile)
    if kind == readers.LOG:
        found = cache.read_as(path, LogRecord).profile
        if found is None:
            raise InputError(path, "no per-layer profile table (--dumpProfile) in this log")
        return found
    if kind == readers.UNKNOWN:
        return read_profile(path)
    raise InputError(path, f"is {readers.describe(kind)}, not a per-layer profile "
                           "(--exportProfile JSON)")


def metadata(path: Path_ | None, cache: InputCache) -> tuple[Metadata, list[str]]:
    """(metadata, warnings) of a metadata JSON file or of a log's option sections."""
    if not path:
        return Metadata(), []
    kind = cache.kind(path)
    if kind in readers.kinds_reading(Metadata):
        found = cache.read_as(path, Metadata)
        return found, list(found.warnings)
    if kind == readers.LOG:
        record = cache.read_as(path, LogRecord)
        return record.metadata, list(record.warnings)
    if kind == readers.UNKNOWN:
        found = read_metadata(path)
        return found, list(found.warnings)
    raise InputError(path, f"is {readers.describe(kind)}, not metadata (a metadata JSON file "
                           "or a trtexec log)")


def timings(path: Path_, cache: InputCache) -> Timings:
    """The per-iteration records of an ``--exportTimes`` file."""
    kind = cache.kind(path)
    if kind in readers.kinds_reading(Timings):
        return cache.read_as(path, Timings)
    if kind == readers.UNKNOWN:
        return read_timings(path)
    raise InputError(path, f"is {readers.describe(kind)}, not per-iteration timings "
                           "(--exportTimes JSON)")


def pick_run(path: Path_, count: int, index: int | None) -> int:
    """The run to use of a file holding ``count`` runs (``index`` None: the first)."""
    if index is None:
        return 0
    if not -count <= index < count:
        raise InputError(path, f"has {count} runs; profile_run={index} is out of range")
    return index % count


def role_record(role: str, path: Path_, cache: InputCache) -> Any:
    """The record of the file given for a role the model has no reader function for: its
    reader's record, or the :class:`~trex.formats.log.LogRecord` of a log that can fill it."""
    row = roles.role(role)
    kind = cache.kind(path)
    if kind in row.kinds or (kind == readers.LOG and row.from_log is not None):
        return cache.read(path)
    reader = readers.reader_of(row.kinds[0]) if row.kinds and kind == readers.UNKNOWN else None
    if reader is not None:
        return reader.read(os.fspath(path))  # says what is wrong
    raise InputError(path, f"is {readers.describe(kind)}, not {row.what}")


def with_log_roles(inputs: PlanInputs, cache: InputCache) -> PlanInputs:
    """Fill the roles the given files can also play: a profile given as the layer input also
    times the layers (a role's fallback file fills the fallback role too), and a log gives its
    profile table, performance summary and options where no other file was given for them (the
    same file, read once)."""
    found = PlanInputs(dict(inputs.paths), inputs.name)
    graph = found.graph
    if graph is None or not Path(graph).is_file():
        return found
    for role in roles.plan_roles():
        path = found.get(role.name)
        if path is None or role.fallback is None or not found.holds(role.fallback):
            continue
        if found.get(role.fallback) is None and Path(path).is_file() \
                and cache.kind(path) in roles.role(role.fallback).kinds:
            found.paths[role.fallback] = path
    plain = roles.plain_log_role()
    given = [found.get(role.name) for role in roles.plan_roles()]
    for path in given:
        if not path or not Path(path).is_file() or cache.kind(path) != readers.LOG:
            continue
        names = roles.log_roles(cache.read_as(path, LogRecord))
        if not names and plain is not None:
            names = [plain.name]  # a log with options only: the build's
        for name in names:
            target = roles.plan_role_for(name)
            if target is not None:
                found.paths.setdefault(target, path)
    return found


def logged_io(inputs: PlanInputs, cache: InputCache) -> list[str]:
    """The engine's I/O tensor names a log among the inputs names (trtexec's binding lines, the
    ONNX parser's network inputs and marked outputs): the layer file's log first."""
    for path in (inputs.graph, inputs.profile, inputs.profile_metadata, inputs.build_metadata):
        if not path or not Path(path).is_file() or cache.kind(path) != readers.LOG:
            continue
        log = cache.read_as(path, LogRecord).trtexec
        if log.outputs:  # inputs alone would leave the outputs to guess
            return [*log.inputs, *log.outputs]
    return []


def is_archive(path: object, cache: InputCache) -> bool:
    """True for an existing file that is a ``.tea`` archive (by content)."""
    return (isinstance(path, (str, os.PathLike)) and Path(path).is_file()
            and cache.kind(path) == readers.ARCHIVE)
