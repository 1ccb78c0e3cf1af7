"""Find an engine's files from a prefix, a folder or any one of its files.

Every candidate is recognised by content through the reader registry; a log takes the roles its
content supports (layer list, profile table, performance summary, build records). Files are read
through an :class:`~trex.formats.registry.InputCache`, so the plan loader that follows reads none
of them again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from . import registry
from .log import LogRecord
from .registry import InputCache

# TREx's file names: X.graph.json, X.profile.json, X.timing.json, X.profile.metadata.json, ...
SUFFIXES = (
    ".profile.metadata.json", ".build.metadata.json", ".metadata.json", ".graph.json",
    ".profile.json", ".timing.json", ".build.log", ".profile.log", ".graph.json.svg",
    ".layers.json", ".times.json", ".log", ".json", ".trace", ".txt",
)
_JSON_ROLES = {
    registry.LAYER_INFO: "graph", registry.PROFILE: "profile", registry.TIMINGS: "timings",
    registry.PROFILE_METADATA: "profile_metadata", registry.BUILD_METADATA: "build_metadata",
    registry.DEVICE_METADATA: "device_metadata",
}


@dataclass
class EngineFiles:
    """The input files of one engine (None where absent)."""

    graph: Path | None = None
    profile: Path | None = None
    timings: Path | None = None
    profile_metadata: Path | None = None
    build_metadata: Path | None = None
    device_metadata: Path | None = None
    profile_log: Path | None = None
    build_log: Path | None = None
    name: str = ""


def engine_prefix(path: Path) -> str:
    """The file name without TREx's known suffixes (``a/x.onnx.engine.graph.json`` -> ``x.onnx.engine``)."""
    name = path.name
    for suffix in SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def find_engine_files(path: str | os.PathLike[str], cache: InputCache | None = None) -> EngineFiles:
    """Classify the files that belong to the engine at ``path`` (prefix, folder or file).

    A file named explicitly must be an input trex recognises, and it is used for every role its
    content supports (never replaced by a sibling of the same kind).
    """
    cache = cache or InputCache()
    p = Path(path)
    named: Path | None = None
    if p.is_dir():
        candidates = sorted(f for f in p.iterdir() if f.is_file())
        prefix = None
    elif p.is_file():
        # A named export takes its roles; a named engine (binary) or unknown file stands for its
        # prefix only when it is not an export itself.
        named = p if _kind(cache, p) != registry.ENGINE else None
        prefix = engine_prefix(p)
        candidates = sorted(f for f in p.parent.iterdir()
                            if f.is_file() and f != p and engine_prefix(f) == prefix)
    else:
        parent = p.parent if str(p.parent) else Path(".")
        if not parent.is_dir():
            raise InputError(path, "no such file, folder or engine prefix")
        prefix = p.name
        candidates = sorted(f for f in parent.iterdir()
                            if f.is_file() and f.name.startswith(prefix + "."))
        if not candidates:
            raise InputError(path, "no such file, folder or engine prefix")
    files = EngineFiles(name=prefix or p.name)
    groups: dict[str, list[Path]] = {}
    for candidate in candidates:
        groups.setdefault(_kind(cache, candidate), []).append(candidate)
    for kind, attr in _JSON_ROLES.items():
        setattr(files, attr, _one(groups, kind, path))
    _assign_logs(files, groups.get(registry.LOG, []), cache)
    if named is not None:
        _assign_named(files, named, cache)
    if files.graph is None:
        if files.profile is not None:
            return files  # a profile alone still gives a names-only plan
        inside = engine_folders(p, cache) if p.is_dir() else []
        if inside:
            shown = ", ".join(f.name for f in inside[:4]) + (", ..." if len(inside) > 4 else "")
            raise InputError(path, f"is a folder of {len(inside)} engine folders ({shown}), not "
                                   f"an engine: name one of them ({inside[0]})")
        raise InputError(path, "no layer-information file (--exportLayerInfo JSON) found")
    if prefix is None:
        files.name = engine_prefix(files.graph)
    return files


def engine_folders(path: str | os.PathLike[str], cache: InputCache | None = None) -> list[Path]:
    """The sub-folders of ``path`` that each hold an engine, in name order (``[]`` when none do,
    or when ``path`` is itself an engine's folder): what a folder of engine folders contains."""
    folder = Path(path)
    if not folder.is_dir():
        return []
    cache = cache or InputCache()

    def holds_engine(where: Path) -> bool:
        return any(_kind(cache, f) in (registry.LAYER_INFO, registry.PROFILE, registry.LOG)
                   for f in sorted(where.iterdir()) if f.is_file())

    if holds_engine(folder):
        return []
    return [child for child in sorted(folder.iterdir())
            if child.is_dir() and not child.name.startswith(".") and holds_engine(child)]


def _kind(cache: InputCache, path: Path) -> str:
    try:
        return cache.kind(path)
    except InputError:  # unreadable sibling: not part of the engine
        return registry.UNKNOWN


def _assign_named(files: EngineFiles, named: Path, cache: InputCache) -> None:
    """The file the user named takes every role its content supports."""
    kind = cache.kind(named)
    if kind in _JSON_ROLES:
        setattr(files, _JSON_ROLES[kind], named)
        return
    if kind == registry.LOG:
        record = cache.read(named)
        for role in log_roles(record):
            setattr(files, role, named)
        if not log_roles(record):
            raise InputError(named, "a log with no layer list, profile table, performance "
                                    "summary or build records")
        return
    if kind == registry.UNKNOWN:
        raise InputError(named, "not a TensorRT export trex recognises (expected --exportLayerInfo "
                                "JSON, a profile, timings, metadata JSON or a trtexec log)"
                                + ("; the file is empty" if named.stat().st_size == 0 else ""))
    raise InputError(named, f"is {registry.describe(kind)}, not an engine export trex reads")


def log_roles(record: LogRecord) -> list[str]:
    """The EngineFiles fields a log can fill."""
    roles = []
    if record.layer_info is not None:
        roles.append("graph")
    if record.profile is not None:
        roles.append("profile")
    if record.has_performance_summary or record.profile is not None:
        roles.append("profile_log")
    if record.is_build_log:
        roles.append("build_log")
    return roles


def _one(groups: dict[str, list[Path]], kind: str, origin: str | os.PathLike[str]) -> Path | None:
    found = groups.get(kind, [])
    if len(found) > 1 and Path(origin).is_dir():
        prefixes = {engine_prefix(f) for f in found}
        if len(prefixes) > 1:
            names = ", ".join(sorted(f.name for f in found)[:4])
            raise InputError(origin, f"holds several engines ({names}); pass an engine prefix "
                                     "or one of its files")
    return found[0] if found else None


def _assign_logs(files: EngineFiles, logs: list[Path], cache: InputCache) -> None:
    """Give each trtexec log the roles its content supports (layer list, profile, summary, build)."""
    unused: list[Path] = []
    for log in logs:
        try:
            roles = log_roles(cache.read(log))
        except InputError:
            continue
        for role in roles:
            if getattr(files, role) is None:
                setattr(files, role, log)
        if not roles or log.name.endswith(".build.log"):
            unused.append(log)
    for log in unused:  # a log with options only: the build's, unless another log is
        if files.build_log is None and log not in (files.profile_log, files.profile):
            files.build_log = log
