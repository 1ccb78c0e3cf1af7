"""From input files to the records the plan model is built from, each file read once.

A plan's inputs are paths by role (layer information, profile, metadata, timings); any of them
may be JSON or a log, and the content decides (:mod:`trex.formats.registry`). These functions ask
the shared :class:`~trex.formats.registry.InputCache` for a file's record and take from it the
role asked for, or fail with one line naming the file and what it is instead.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..formats import registry
from ..formats.discovery import EngineFiles, log_roles
from ..formats.layer_info import names_only, read_layer_info
from ..formats.log import LogRecord
from ..formats.metadata import read_metadata
from ..formats.profile import read_profile
from ..formats.records import LayerInfo, Metadata, Profile, Timings
from ..formats.registry import InputCache
from ..formats.timings import read_timings

Path_ = str | os.PathLike[str]
_METADATA_KINDS = (registry.PROFILE_METADATA, registry.BUILD_METADATA, registry.DEVICE_METADATA)


@dataclass
class PlanInputs:
    """The files one plan is read from, by role (None where absent)."""

    graph: Path_ | None = None
    profile: Path_ | None = None
    profile_metadata: Path_ | None = None
    build_metadata: Path_ | None = None
    timings: Path_ | None = None
    device_metadata: Path_ | None = None
    name: str | None = None

    @classmethod
    def from_files(cls, files: EngineFiles) -> PlanInputs:
        """The roles of discovered files (a log stands in for a missing metadata JSON)."""
        return cls(files.graph or files.profile, files.profile,
                   files.profile_metadata or files.profile_log,
                   files.build_metadata or files.build_log, files.timings, files.device_metadata,
                   files.name or None)


def layer_info(path: Path_, cache: InputCache) -> LayerInfo:
    """Layer information from a layer file, a log's layer list, or the names of a profile alone."""
    kind = cache.kind(path)
    if kind == registry.LAYER_INFO:
        return cache.read_as(path, LayerInfo)
    if kind == registry.LOG:
        record = cache.read_as(path, LogRecord)
        if record.layer_info is not None:
            return record.layer_info
        if record.profile is None:
            raise InputError(path, "a log without a layer list (--dumpLayerInfo, or a verbose "
                                   "build's 'Engine Layer Information') or a profile table")
        return _from_profile(record.profile, path)
    if kind == registry.PROFILE:
        return _from_profile(cache.read_as(path, Profile), path)
    if kind == registry.UNKNOWN:
        return read_layer_info(path)  # says what is wrong (invalid JSON at line ...)
    raise InputError(path, f"is {registry.describe(kind)}, not layer information "
                           "(--exportLayerInfo JSON)")


def _from_profile(profile: Profile, path: Path_) -> LayerInfo:
    info = names_only([r.name for r in profile.runs[0].records], [], source=os.fspath(path))
    info.warnings.append("no layer information: layers taken from the profile")
    return info


def profile(path: Path_, cache: InputCache) -> Profile:
    """The per-layer profile of a profile file or a log's ``--dumpProfile`` tables."""
    kind = cache.kind(path)
    if kind == registry.PROFILE:
        return cache.read_as(path, Profile)
    if kind == registry.LOG:
        found = cache.read_as(path, LogRecord).profile
        if found is None:
            raise InputError(path, "no per-layer profile table (--dumpProfile) in this log")
        return found
    if kind == registry.UNKNOWN:
        return read_profile(path)
    raise InputError(path, f"is {registry.describe(kind)}, not a per-layer profile "
                           "(--exportProfile JSON)")


def metadata(path: Path_ | None, cache: InputCache) -> tuple[Metadata, list[str]]:
    """(metadata, warnings) of a metadata JSON file or of a log's option sections."""
    if not path:
        return Metadata(), []
    kind = cache.kind(path)
    if kind in _METADATA_KINDS:
        found = cache.read_as(path, Metadata)
        return found, list(found.warnings)
    if kind == registry.LOG:
        record = cache.read_as(path, LogRecord)
        return record.metadata, list(record.warnings)
    if kind == registry.UNKNOWN:
        found = read_metadata(path)
        return found, list(found.warnings)
    raise InputError(path, f"is {registry.describe(kind)}, not metadata (a metadata JSON file "
                           "or a trtexec log)")


def timings(path: Path_, cache: InputCache) -> Timings:
    """The per-iteration records of an ``--exportTimes`` file."""
    kind = cache.kind(path)
    if kind == registry.TIMINGS:
        return cache.read_as(path, Timings)
    if kind == registry.UNKNOWN:
        return read_timings(path)
    raise InputError(path, f"is {registry.describe(kind)}, not per-iteration timings "
                           "(--exportTimes JSON)")


def pick_run(path: Path_, count: int, index: int | None) -> int:
    """The run to use of a file holding ``count`` runs (``index`` None: the first)."""
    if index is None:
        return 0
    if not -count <= index < count:
        raise InputError(path, f"has {count} runs; profile_run={index} is out of range")
    return index % count


def with_log_roles(inputs: PlanInputs, cache: InputCache) -> PlanInputs:
    """Fill the roles the given files can also play: a profile given as the layer input also
    times the layers, and a log gives its profile table, performance summary and options where no
    other file was given for them (the same file, read once)."""
    found = PlanInputs(**vars(inputs))
    graph = found.graph
    if graph is None or not Path(graph).is_file():
        return found
    kind = cache.kind(graph)
    if kind == registry.PROFILE and found.profile is None:
        found.profile = graph
    for path in (graph, found.profile, found.profile_metadata, found.build_metadata):
        if not path or not Path(path).is_file() or cache.kind(path) != registry.LOG:
            continue
        roles = log_roles(cache.read_as(path, LogRecord))
        if found.profile is None and "profile" in roles:
            found.profile = path
        if found.profile_metadata is None and "profile_log" in roles:
            found.profile_metadata = path
        if found.build_metadata is None and ("build_log" in roles or not roles):
            found.build_metadata = path
    return found


def logged_io(inputs: PlanInputs, cache: InputCache) -> list[str]:
    """The engine's I/O tensor names a log among the inputs names (trtexec's binding lines, the
    ONNX parser's network inputs and marked outputs): the layer file's log first."""
    for path in (inputs.graph, inputs.profile, inputs.profile_metadata, inputs.build_metadata):
        if not path or not Path(path).is_file() or cache.kind(path) != registry.LOG:
            continue
        log = cache.read_as(path, LogRecord).trtexec
        if log.outputs:  # inputs alone would leave the outputs to guess
            return [*log.inputs, *log.outputs]
    return []


def is_archive(path: object, cache: InputCache) -> bool:
    """True for an existing file that is a ``.tea`` archive (by content)."""
    return (isinstance(path, (str, os.PathLike)) and Path(path).is_file()
            and cache.kind(path) == registry.ARCHIVE)
