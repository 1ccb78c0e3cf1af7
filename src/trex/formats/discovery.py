"""Find an engine's files from a prefix, a folder or any one of its files.

Every candidate is recognised by content through the reader registry and takes the role its
kind fills (:mod:`.roles`, the one table of file roles); a log takes the roles its content
supports (layer list, profile table, performance summary, build records). Names matter only to
group an engine's files by prefix. Files are read through an
:class:`~trex.formats.readers.InputCache`, so the plan loader that follows reads none of them
again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from . import readers, roles
from .log import LogRecord
from .readers import InputCache
from .roles import log_roles as log_roles  # its home was here: kept for callers


@dataclass
class EngineFiles(roles.RoleFiles[Path]):
    """The input files of one engine, by role: ``files.graph``, ``files.profile``,
    ``files.build_log``... (None where absent), every role discovery fills
    (:func:`trex.formats.roles.found_roles`)."""

    paths: dict[str, Path] = field(default_factory=dict)
    name: str = ""

    @property
    def has_layers(self) -> bool:
        """True when a file gives the engine's layers: the layer information, or a file of its
        fallback role (a profile's layer names)."""
        graph = roles.role(roles.GRAPH)
        return self.get(graph.name) is not None or (
            graph.fallback is not None and self.get(graph.fallback) is not None)


def engine_prefix(path: Path) -> str:
    """The file name without a known suffix (``a/x.onnx.engine.graph.json`` -> ``x.onnx.engine``):
    the roles' suffixes and the generic ones, longest first."""
    name = path.name
    for suffix in roles.suffixes():
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
        named = p if _kind(cache, p) != readers.ENGINE else None
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
    for role in roles.found_roles():
        found = _one([f for kind in role.kinds for f in groups.get(kind, [])], path)
        if found is not None:
            files.paths[role.name] = found
    _assign_logs(files, groups.get(readers.LOG, []), cache)
    if named is not None:
        _assign_named(files, named, cache)
    if files.graph is None:
        if files.has_layers:
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

    kinds = roles.engine_kinds()

    def holds_engine(where: Path) -> bool:
        return any(_kind(cache, f) in kinds for f in sorted(where.iterdir()) if f.is_file())

    if holds_engine(folder):
        return []
    return [child for child in sorted(folder.iterdir())
            if child.is_dir() and not child.name.startswith(".") and holds_engine(child)]


def _kind(cache: InputCache, path: Path) -> str:
    try:
        return cache.kind(path)
    except InputError:  # unreadable sibling: not part of the engine
        return readers.UNKNOWN


def _assign_named(files: EngineFiles, named: Path, cache: InputCache) -> None:
    """The file the user named takes every role its content supports."""
    kind = cache.kind(named)
    role = roles.of_kind(kind)
    if role is not None:
        files.paths[role.name] = named
        return
    if kind == readers.LOG:
        names = log_roles(cache.read_as(named, LogRecord))
        if not names:
            raise InputError(named, "a log with no layer list, profile table, performance "
                                    "summary or build records")
        for name in names:
            files.paths[name] = named
        return
    if kind == readers.UNKNOWN:
        raise InputError(named, "not a TensorRT export trex recognises (expected --exportLayerInfo "
                                "JSON, a profile, timings, metadata JSON or a trtexec log)"
                                + ("; the file is empty" if named.stat().st_size == 0 else ""))
    raise InputError(named, f"is {readers.describe(kind)}, not an engine export trex reads")


def _one(found: list[Path], origin: str | os.PathLike[str]) -> Path | None:
    """The file of one role among those found for it; files of several engines in a folder
    (different prefixes) are an error."""
    if len(found) > 1 and Path(origin).is_dir():
        prefixes = {engine_prefix(f) for f in found}
        if len(prefixes) > 1:
            names = ", ".join(sorted(f.name for f in found)[:4])
            raise InputError(origin, f"holds several engines ({names}); pass an engine prefix "
                                     "or one of its files")
    return found[0] if found else None


def _assign_logs(files: EngineFiles, logs: list[Path], cache: InputCache) -> None:
    """Give each trtexec log the roles its content supports (layer list, profile, summary, build);
    then a log with options only, or named like a build log, is the build's unless another log
    is or it times the engine (:func:`~.roles.plain_log_role`)."""
    plain = roles.plain_log_role()
    unused: list[Path] = []
    for log in logs:
        try:
            names = log_roles(cache.read_as(log, LogRecord))
        except InputError:
            continue
        for name in names:
            files.paths.setdefault(name, log)
        if not names or (plain is not None and plain.suffixes and log.name.endswith(plain.suffixes)):
            unused.append(log)
    if plain is None:
        return
    for log in unused:
        if files.get(plain.name) is None and log not in (files.profile_log, files.profile):
            files.paths[plain.name] = log
