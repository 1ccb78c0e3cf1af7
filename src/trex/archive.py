"""TensorRT engine archives (``.tea``): one zip file holding an engine's files and a manifest.

:func:`write_archive` packs the files; :func:`open_archive` extracts one into a private temporary
folder for :class:`~trex.plan.EnginePlan`. Extraction checks every entry first and refuses the
whole archive if one is unsafe: absolute paths, ``..``, drive letters, backslashes, symbolic links,
devices, duplicates, too many files or too many bytes. Nothing is ever written outside the target.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any

from .errors import InputError

__all__ = ["MANIFEST", "OpenArchive", "archive_manifest", "extract_archive", "is_archive",
           "open_archive", "write_archive"]

MANIFEST = "trex-archive.json"
FORMAT = "trex engine archive"
MAX_BYTES = 8 << 30  # uncompressed bytes one archive may extract to
MAX_FILES = 10_000
_CHUNK = 1 << 20
_DRIVE = re.compile(r"^[A-Za-z]:")


@dataclass
class OpenArchive:
    """An extracted archive: its manifest and the engine files found in its private folder."""

    source: str
    directory: Path
    manifest: dict[str, Any]
    files: Any  # discovery.EngineFiles
    _tmp: tempfile.TemporaryDirectory | None = field(default=None, repr=False)

    def plan_inputs(self, profile=None, profile_metadata=None, build_metadata=None, timings=None,
                    device_metadata=None, name=None) -> tuple:
        """EnginePlan's inputs: the given ones, else the archive's files."""
        f = self.files
        return (f.graph or f.profile, profile or f.profile,
                profile_metadata or f.profile_metadata or f.profile_log,
                build_metadata or f.build_metadata or f.build_log, timings or f.timings,
                device_metadata or f.device_metadata, name or f.name)

    def close(self) -> None:
        """Delete the extracted files (also done when the object is garbage-collected)."""
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


def is_archive(path: str | os.PathLike) -> bool:
    """True for an existing zip file (``.tea`` or any name)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == b"PK\x03\x04"
    except OSError:
        return False


def write_archive(files: Iterable[str | os.PathLike] | str | os.PathLike,
                  output: str | os.PathLike, name: str | None = None,
                  extra: dict[str, Any] | None = None) -> Path:
    """Pack an engine's files (a list, a folder, or an engine prefix) into ``output``.

    Entries are stored under their base names with a ``trex-archive.json`` manifest naming each
    file's role; the archive is written to a temporary file and renamed into place.
    """
    from . import __version__
    from .formats.discovery import engine_prefix

    paths = _collect(files)
    if not paths:
        raise InputError(os.fspath(files) if isinstance(files, (str, os.PathLike)) else None,
                         "no files to archive")
    names: dict[str, Path] = {}
    for path in paths:
        if path.name in names and names[path.name].resolve() != path.resolve():
            raise InputError(path, f"two files are named {path.name!r}; archive entries must be "
                                   "unique")
        names[path.name] = path
    names.pop(MANIFEST, None)
    manifest = {
        "format": FORMAT, "version": 1,
        "name": name or engine_prefix(next(iter(names.values()))),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "trex_version": __version__,
        "files": {entry: _role(path) for entry, path in sorted(names.items())},
        **(extra or {}),
    }
    out = Path(output).absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=out.name + ".", suffix=".tmp", dir=out.parent)
    try:
        with os.fdopen(fd, "wb") as fh, zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED,
                                                         compresslevel=6) as zf:
            zf.writestr(MANIFEST, json.dumps(manifest, indent=2, ensure_ascii=False))
            for entry, path in sorted(names.items()):
                zf.write(path, entry)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return out


def _collect(files: Iterable[str | os.PathLike] | str | os.PathLike) -> list[Path]:
    if isinstance(files, (str, os.PathLike)):
        p = Path(files)
        if p.is_dir():
            return sorted(f for f in p.iterdir() if f.is_file() and not f.is_symlink())
        if p.is_file():
            return [p]
        parent = p.parent if str(p.parent) else Path(".")
        found = sorted(f for f in parent.glob(f"{glob_escape(p.name)}*")
                       if f.is_file() and f.name.startswith(p.name + ".") or f.name == p.name)
        if not found:
            raise InputError(p, "no such file, folder or engine prefix")
        return found
    out = []
    for f in files:
        p = Path(f)
        if not p.is_file():
            raise InputError(p, "file not found")
        out.append(p)
    return out


def glob_escape(text: str) -> str:
    """Escape glob wildcards in a file name."""
    return re.sub(r"([*?\[])", r"[\1]", text)


def _role(path: Path) -> str:
    from .formats import registry as detect

    if path.suffix == ".svg":
        return "drawing"
    if path.name.endswith((".cache", ".timing.cache")):
        return "timing_cache"
    try:
        kind = detect.detect_kind(path)
    except InputError:
        return "unknown"
    if kind == detect.LOG:
        return "build_log" if path.name.endswith(".build.log") else (
            "profile_log" if path.name.endswith(".profile.log") else "log")
    return kind


def archive_manifest(path: str | os.PathLike) -> dict[str, Any]:
    """The archive's manifest (``{}`` for a zip made by another tool, such as TREx)."""
    with _zip(path) as zf:
        try:
            data = zf.read(MANIFEST)
        except KeyError:
            return {}
    try:
        manifest = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise InputError(path, f"corrupt {MANIFEST}") from None
    return manifest if isinstance(manifest, dict) else {}


def _zip(path: str | os.PathLike) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except FileNotFoundError:
        raise InputError(path, "file not found") from None
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(path, f"not a readable zip archive ({exc})") from None


def _check_entry(info: zipfile.ZipInfo, seen: set[str]) -> str | None:
    """The entry's safe relative path, None for a folder; InputError-worthy problems raise."""
    name = info.filename
    mode = info.external_attr >> 16
    if "\x00" in name or "\\" in name:
        raise ValueError("contains a NUL or backslash")
    if name.startswith("/") or _DRIVE.match(name):
        raise ValueError("is an absolute path")
    parts = PurePosixPath(name).parts
    if ".." in parts:
        raise ValueError("contains '..'")
    if stat.S_ISLNK(mode):
        raise ValueError("is a symbolic link")
    if stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise ValueError("is not a regular file")
    if info.is_dir():
        return None
    clean = "/".join(p for p in parts if p not in ("", "."))
    if not clean:
        raise ValueError("has an empty name")
    if clean.lower() in seen:
        raise ValueError("appears twice")
    seen.add(clean.lower())
    return clean


def extract_archive(path: str | os.PathLike, target: str | os.PathLike,
                    max_bytes: int = MAX_BYTES, max_files: int = MAX_FILES) -> list[Path]:
    """Extract every entry under ``target`` (which must be empty or new); return the files.

    The whole archive is checked before anything is written; an unsafe entry raises InputError.
    """
    root = Path(target)
    root.mkdir(parents=True, exist_ok=True)
    root = root.resolve()
    written: list[Path] = []
    with _zip(path) as zf:
        infos = zf.infolist()
        if len(infos) > max_files:
            raise InputError(path, f"holds {len(infos):,} entries (more than {max_files:,})")
        plan: list[tuple[zipfile.ZipInfo, str]] = []
        seen: set[str] = set()
        declared = 0
        for info in infos:
            try:
                clean = _check_entry(info, seen)
            except ValueError as exc:
                raise InputError(path, f"unsafe archive entry {info.filename!r}: {exc}; "
                                       "nothing was extracted") from None
            if clean is None:
                continue
            declared += info.file_size
            plan.append((info, clean))
        if declared > max_bytes:
            raise InputError(path, f"would extract {declared:,} bytes (more than {max_bytes:,})")
        total = 0
        for info, clean in plan:
            dest = root.joinpath(*clean.split("/"))
            if not dest.resolve().is_relative_to(root) and dest.resolve() != root:
                raise InputError(path, f"unsafe archive entry {info.filename!r}: leaves the target")
            dest.parent.mkdir(parents=True, exist_ok=True)
            if not dest.parent.resolve().is_relative_to(root):
                raise InputError(path, f"unsafe archive entry {info.filename!r}: leaves the target")
            try:
                with zf.open(info) as src, open(dest, "xb") as out:
                    while chunk := src.read(_CHUNK):
                        total += len(chunk)
                        if total > max_bytes:  # sizes in the header can lie
                            raise InputError(path, f"extracts to more than {max_bytes:,} bytes")
                        out.write(chunk)
            except FileExistsError:
                raise InputError(path, f"archive entry {info.filename!r}: {dest} already exists"
                                 ) from None
            except (zipfile.BadZipFile, RuntimeError, EOFError, OSError) as exc:
                if isinstance(exc, InputError):
                    raise
                raise InputError(path, f"cannot extract {info.filename!r} ({exc})") from None
            written.append(dest)
    return written


def open_archive(path: str | os.PathLike) -> OpenArchive:
    """Extract an archive into a private temporary folder and find the engine's files in it."""
    from .formats.discovery import EngineFiles, find_engine_files

    source = os.fspath(path)
    manifest = archive_manifest(path)
    tmp = tempfile.TemporaryDirectory(prefix="trex-tea-")
    try:
        written = extract_archive(path, tmp.name)
        directory = Path(tmp.name)
        data = [f for f in written if f.name != MANIFEST]
        roles = manifest.get("files") if isinstance(manifest.get("files"), dict) else {}
        files = _files_from_roles(directory, roles) if roles else None
        if files is None or files.graph is None and files.profile is None:
            files = _discover(directory, data, find_engine_files)
        files.name = str(manifest.get("name") or files.name or Path(source).stem)
    except BaseException:
        tmp.cleanup()
        raise
    if files.graph is None and files.profile is None:
        tmp.cleanup()
        raise InputError(source, "the archive holds no layer information, profile or build log "
                                 "with an engine layer list")
    assert isinstance(files, EngineFiles)
    return OpenArchive(source, directory, manifest, files, tmp)


_ROLE_FIELDS = {
    "layer_info": "graph", "profile": "profile", "timings": "timings",
    "profile_metadata": "profile_metadata", "build_metadata": "build_metadata",
    "device_metadata": "device_metadata", "profile_log": "profile_log", "build_log": "build_log",
}


def _files_from_roles(directory: Path, roles: dict[str, Any]):
    from .formats.discovery import EngineFiles

    files = EngineFiles()
    for entry, role in roles.items():
        attr = _ROLE_FIELDS.get(str(role))
        if attr is None or "/" in str(entry) or "\\" in str(entry):
            continue
        path = directory / str(entry)
        if path.is_file() and getattr(files, attr) is None:
            setattr(files, attr, path)
    return files


def _discover(directory: Path, data: list[Path], find_engine_files):
    """Find the files by content (archives made by other tools have no manifest)."""
    from .formats import registry as detect
    from .formats.discovery import EngineFiles

    try:
        return find_engine_files(directory)
    except InputError:
        pass
    files = EngineFiles(name=directory.name)
    for f in data:
        try:
            kind = detect.detect_kind(f)
        except InputError:
            continue
        attr = _ROLE_FIELDS.get(kind)
        if attr and getattr(files, attr) is None:
            setattr(files, attr, f)
        elif kind == detect.LOG and files.build_log is None:
            files.build_log = f
    if files.graph is None and files.build_log is not None:
        from .formats.build_log import looks_like_build_log

        text = files.build_log.read_text(encoding="utf-8", errors="replace")
        if "Engine Layer Information" in text and looks_like_build_log(text):
            files.graph = files.build_log
    return files
