"""Find an engine's files from a prefix, a folder or any one of its files."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .errors import InputError
from .formats import detect

# TREx's file names: X.graph.json, X.profile.json, X.timing.json, X.profile.metadata.json, ...
SUFFIXES = (
    ".profile.metadata.json", ".build.metadata.json", ".metadata.json", ".graph.json",
    ".profile.json", ".timing.json", ".build.log", ".profile.log", ".graph.json.svg",
    ".layers.json", ".times.json", ".log", ".json", ".trace", ".txt",
)


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


def find_engine_files(path: str | os.PathLike) -> EngineFiles:
    """Classify the files that belong to the engine at ``path`` (prefix, folder or file)."""
    p = Path(path)
    if p.is_dir():
        candidates = sorted(f for f in p.iterdir() if f.is_file())
        prefix = None
    elif p.is_file():
        prefix = engine_prefix(p)
        candidates = sorted(f for f in p.parent.iterdir() if f.is_file()
                            and engine_prefix(f) == prefix)
        if p not in candidates:
            candidates.insert(0, p)
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
        kind = detect.detect_kind(candidate)
        groups.setdefault(kind, []).append(candidate)
    if p.is_file():
        # The file the user named wins its kind.
        kind = detect.detect_kind(p)
        groups[kind] = [p] + [f for f in groups.get(kind, []) if f != p]
    files.graph = _one(groups, detect.LAYER_INFO, path)
    files.profile = _one(groups, detect.PROFILE, path)
    files.timings = _one(groups, detect.TIMINGS, path)
    files.profile_metadata = _one(groups, detect.PROFILE_METADATA, path)
    files.build_metadata = _one(groups, detect.BUILD_METADATA, path)
    files.device_metadata = _one(groups, detect.DEVICE_METADATA, path)
    _assign_logs(files, groups.get(detect.LOG, []))
    if files.graph is None:
        if files.profile is not None:
            return files  # a profile alone still gives a names-only plan
        raise InputError(path, "no layer-information file (--exportLayerInfo JSON) found")
    if prefix is None and files.graph is not None:
        files.name = engine_prefix(files.graph)
    return files


def _one(groups: dict[str, list[Path]], kind: str, origin: str | os.PathLike) -> Path | None:
    found = groups.get(kind, [])
    if len(found) > 1 and Path(origin).is_dir():
        prefixes = {engine_prefix(f) for f in found}
        if len(prefixes) > 1:
            names = ", ".join(sorted(f.name for f in found)[:4])
            raise InputError(origin, f"holds several engines ({names}); pass an engine prefix "
                                     "or one of its files")
    return found[0] if found else None


def _assign_logs(files: EngineFiles, logs: list[Path]) -> None:
    """Give each trtexec log the roles its content supports (profile table, summary, build)."""
    for log in logs:
        try:
            text = log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if files.profile is None and "=== Profile (" in text:
            files.profile = log
        if "=== Performance summary ===" in text or "=== Profile (" in text:
            files.profile_log = files.profile_log or log
        if files.graph is None and "Engine Layer Information" in text and "\nLayer(" in text:
            files.graph = log  # no layer JSON: the layer list of a verbose build log
        if "Engine built in" in text or log.name.endswith(".build.log"):
            files.build_log = files.build_log or log
    for log in logs:
        if files.build_log is None and log not in (files.profile_log, files.profile):
            files.build_log = log
