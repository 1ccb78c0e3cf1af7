"""TensorRT engine archives (``.tea``): one zip file holding an engine's files and a manifest.

:func:`write_archive` packs the files; :func:`open_archive` extracts one into a private temporary
folder for :class:`~trex.model.plan.EnginePlan`. Extraction checks every entry first and refuses the
whole archive if one is unsafe: absolute paths, ``..``, drive letters, backslashes, symbolic links,
devices, duplicates, over-long paths, a name that is both a file and a folder, too many files, too
many bytes (512 MiB by default) or a compression ratio beyond 200:1 (a "zip bomb"). Sizes declared
in the archive can lie, so the bytes actually written are counted too. Nothing is ever written
outside the target. The limits are arguments of :func:`extract_archive`/:func:`open_archive`, or
the environment variables ``TREX_ARCHIVE_MAX_BYTES`` and ``TREX_ARCHIVE_MAX_RATIO``.
"""

from __future__ import annotations

import contextlib
import glob
import json
import math
import os
import re
import stat
import tempfile
import zipfile
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any

from ..errors import InputError
from ..jsonable import json_value
from ..safety import atomic_write
from . import roles
from .discovery import EngineFiles

__all__ = ["MANIFEST", "OpenArchive", "archive_manifest", "extract_archive", "is_archive",
           "open_archive", "write_archive"]

MANIFEST = "trex-archive.json"
FORMAT = "trex engine archive"
MAX_BYTES = 512 << 20  # uncompressed bytes one archive may extract to
MAX_RATIO = 200.0  # uncompressed / compressed size of one entry
RATIO_FREE_BYTES = 1 << 20  # entries up to this size may compress better (tiny files)
MAX_FILES = 10_000
MAX_PATH_BYTES = 1024  # an entry's path, and ...
MAX_PART_BYTES = 200  # ... each of its parts (most file systems allow 255 bytes)
MAX_MANIFEST_BYTES = 1 << 20
ENV_MAX_BYTES = "TREX_ARCHIVE_MAX_BYTES"
ENV_MAX_RATIO = "TREX_ARCHIVE_MAX_RATIO"
_CHUNK = 1 << 20
_DRIVE = re.compile(r"^[A-Za-z]:")


@dataclass
class OpenArchive:
    """An extracted archive: its manifest and the engine files found in its private folder."""

    source: str
    directory: Path
    manifest: dict[str, Any]
    files: EngineFiles
    _tmp: tempfile.TemporaryDirectory[str] | None = field(default=None, repr=False)

    def close(self) -> None:
        """Delete the extracted files (also done when the object is garbage-collected)."""
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


def is_archive(path: str | os.PathLike[str]) -> bool:
    """True for an existing zip file (``.tea`` or any name)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == b"PK\x03\x04"
    except OSError:
        return False


def write_archive(files: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
                  output: str | os.PathLike[str], name: str | None = None,
                  extra: dict[str, Any] | None = None) -> Path:
    """Pack an engine's files (a list, a folder, or an engine prefix) into ``output``.

    Entries are stored under their base names with a ``trex-archive.json`` manifest naming each
    file's role (:func:`_role`); the archive is written to a temporary file and renamed into place.
    """
    from .. import __version__
    from .discovery import engine_prefix

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
    with atomic_write(out, "wb", what="the archive") as fh, \
            zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        zf.writestr(MANIFEST, json.dumps(json_value(manifest), indent=2, ensure_ascii=False,
                                         allow_nan=False))
        for entry, path in sorted(names.items()):
            zf.write(path, entry)
    return out


def _collect(files: Iterable[str | os.PathLike[str]] | str | os.PathLike[str]) -> list[Path]:
    if isinstance(files, (str, os.PathLike)):
        p = Path(files)
        if p.is_dir():
            return sorted(f for f in p.iterdir() if f.is_file() and not f.is_symlink())
        if p.is_file():
            return [p]
        parent = p.parent if str(p.parent) else Path(".")
        found = sorted(f for f in parent.glob(f"{glob.escape(p.name)}*")
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


def _role(path: Path) -> str:
    """What the manifest calls a file: the manifest field of its role (:mod:`.roles`), found by
    name for a file no reader reads (a drawing, a timing cache), else by content; a log's is the
    log role its name says (``X.build.log``: a role only logs fill); a file of no role is named
    by its kind (``log``, ``engine``, ``tuning_cache``, ``unknown``...)."""
    from . import readers

    named = roles.by_name(path.name, tuple(r for r in roles.ROLES if not r.found and r.manifest))
    if named is not None and named.manifest:
        return named.manifest
    try:
        kind = readers.detect_kind(path)
    except InputError:
        return readers.UNKNOWN
    role = roles.of_kind(kind)
    if kind == readers.LOG:
        role = roles.by_name(path.name, tuple(r for r in roles.ROLES
                                              if r.from_log is not None and not r.kinds))
    return role.manifest if role is not None and role.manifest else kind


def archive_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The archive's manifest (``{}`` for a zip made by another tool, such as TREx)."""
    with _zip(path) as zf:
        try:
            info = zf.getinfo(MANIFEST)
        except KeyError:
            return {}
        if info.file_size > MAX_MANIFEST_BYTES:
            raise InputError(path, f"{MANIFEST} is {info.file_size:,} bytes (a manifest is small)")
        try:
            with zf.open(info) as fh:
                data = fh.read(MAX_MANIFEST_BYTES + 1)
        except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError, OSError,
                zlib.error) as exc:
            raise InputError(path, f"cannot read {MANIFEST} ({exc})") from None
    if len(data) > MAX_MANIFEST_BYTES:
        raise InputError(path, f"{MANIFEST} inflates beyond {MAX_MANIFEST_BYTES:,} bytes")
    try:
        manifest = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise InputError(path, f"corrupt {MANIFEST}") from None
    return manifest if isinstance(manifest, dict) else {}


def _zip(path: str | os.PathLike[str]) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except FileNotFoundError:
        raise InputError(path, "file not found") from None
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(path, f"not a readable zip archive ({exc})") from None


def archive_limits(max_bytes: int | None = None, max_ratio: float | None = None
                   ) -> tuple[int, float]:
    """The limits in force: the arguments, else ``$TREX_ARCHIVE_MAX_BYTES`` and
    ``$TREX_ARCHIVE_MAX_RATIO``, else 512 MiB and 200:1."""
    return (int(_limit(max_bytes, ENV_MAX_BYTES, MAX_BYTES)),
            float(_limit(max_ratio, ENV_MAX_RATIO, MAX_RATIO)))


def _limit(value: float | None, env: str, default: float) -> float:
    source = "limit"
    if value is None:
        text = os.environ.get(env, "").strip()
        if not text:
            return default
        source = f"${env}"
        try:
            value = float(text)
        except ValueError:
            value = math.nan
    if not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise InputError(None, f"archive {source} must be a positive number, not {value!r}")
    return value


def _check_entry(info: zipfile.ZipInfo, seen: set[str]) -> str | None:
    """The entry's safe relative path, None for a folder; a problem raises ValueError."""
    name = info.filename
    mode = info.external_attr >> 16
    if "\x00" in name or "\\" in name:
        raise ValueError("contains a NUL or backslash")
    if name.startswith("/") or _DRIVE.match(name):
        raise ValueError("is an absolute path")
    parts = PurePosixPath(name).parts
    if ".." in parts:
        raise ValueError("contains '..'")
    if len(name.encode("utf-8", "surrogatepass")) > MAX_PATH_BYTES:
        raise ValueError(f"has a path longer than {MAX_PATH_BYTES} bytes")
    if any(len(p.encode("utf-8", "surrogatepass")) > MAX_PART_BYTES for p in parts):
        raise ValueError(f"has a file or folder name longer than {MAX_PART_BYTES} bytes")
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


def _folders(name: str) -> list[str]:
    """The folders an entry's path goes through (``a/b/c`` -> ``a``, ``a/b``)."""
    parts = name.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def _check_sizes(path: str | os.PathLike[str], plan: list[tuple[zipfile.ZipInfo, str]],
                 max_bytes: int, max_ratio: float) -> None:
    """Refuse, before writing anything, an archive whose declared sizes are beyond the limits."""
    declared = sum(info.file_size for info, _ in plan)
    if declared > max_bytes:
        raise InputError(path, f"would extract {declared:,} bytes (more than {max_bytes:,}); "
                               f"nothing was extracted (${ENV_MAX_BYTES} sets the limit)")
    for info, clean in plan:
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > RATIO_FREE_BYTES and ratio > max_ratio:
            raise InputError(path, f"archive entry {clean!r} would inflate {ratio:,.0f}:1 "
                                   f"({info.file_size:,} bytes; more than {max_ratio:g}:1); nothing "
                                   f"was extracted (${ENV_MAX_RATIO} sets the limit)")


def extract_archive(path: str | os.PathLike[str], target: str | os.PathLike[str],
                    max_bytes: int | None = None, max_files: int = MAX_FILES,
                    max_ratio: float | None = None) -> list[Path]:
    """Extract every entry under ``target`` (which must be empty or new); return the files.

    The whole archive is checked before anything is written (names, count, declared sizes and
    compression ratios); while extracting, the bytes actually written are checked again. Any
    problem raises InputError and removes what was written."""
    max_bytes, max_ratio = archive_limits(max_bytes, max_ratio)
    root = Path(target)
    root.mkdir(parents=True, exist_ok=True)
    root = root.resolve()
    written: list[Path] = []
    folders: list[Path] = []
    try:
        with _zip(path) as zf:
            plan = _plan(path, zf.infolist(), max_files)
            _check_sizes(path, plan, max_bytes, max_ratio)
            total = 0
            for info, clean in plan:
                dest = _destination(path, root, info, clean, folders)
                total = _extract_one(path, zf, info, clean, dest, total, max_bytes, max_ratio,
                                     written)
    except BaseException:
        for f in written:
            f.unlink(missing_ok=True)
        for d in reversed(folders):
            with contextlib.suppress(OSError):
                d.rmdir()
        raise
    return written


def _plan(path: str | os.PathLike[str], infos: list[zipfile.ZipInfo], max_files: int
          ) -> list[tuple[zipfile.ZipInfo, str]]:
    """The entries to write, each with its safe path; an unsafe archive raises InputError."""
    if len(infos) > max_files:
        raise InputError(path, f"holds {len(infos):,} entries (more than {max_files:,})")
    plan: list[tuple[zipfile.ZipInfo, str]] = []
    seen: set[str] = set()
    folders: dict[str, zipfile.ZipInfo] = {}
    for info in infos:
        try:
            clean = _check_entry(info, seen)
        except ValueError as exc:
            raise InputError(path, f"unsafe archive entry {info.filename!r}: {exc}; "
                                   "nothing was extracted") from None
        if clean is not None:
            plan.append((info, clean))
            for folder in _folders(clean):
                folders.setdefault(folder.lower(), info)
        else:
            name = "/".join(p for p in PurePosixPath(info.filename).parts if p not in ("", "."))
            for folder in [*_folders(name), name]:
                folders.setdefault(folder.lower(), info)
    for info, clean in plan:
        if clean.lower() in folders:
            raise InputError(path, f"unsafe archive entry {info.filename!r}: {clean!r} is both a "
                                   "file and a folder; nothing was extracted")
    return plan


def _destination(path: str | os.PathLike[str], root: Path, info: zipfile.ZipInfo, clean: str,
                 folders: list[Path]) -> Path:
    dest = root.joinpath(*clean.split("/"))
    for folder in reversed(dest.relative_to(root).parents[:-1]):
        d = root / folder
        if not d.exists():
            try:
                d.mkdir()
            except OSError as exc:
                raise InputError(path, f"cannot extract {info.filename!r} ({exc.strerror})"
                                 ) from None
            folders.append(d)
    if not dest.parent.resolve().is_relative_to(root):
        raise InputError(path, f"unsafe archive entry {info.filename!r}: leaves the target")
    return dest


def _extract_one(path: str | os.PathLike[str], zf: zipfile.ZipFile, info: zipfile.ZipInfo, clean: str,
                 dest: Path, total: int, max_bytes: int, max_ratio: float, written: list[Path]
                 ) -> int:
    """Copy one entry (added to ``written`` once created), counting the bytes really written;
    return the archive's running total."""
    size = 0
    try:
        with zf.open(info) as src, open(dest, "xb") as out:
            written.append(dest)
            while chunk := src.read(_CHUNK):
                size += len(chunk)
                total += len(chunk)
                if size > info.file_size:
                    raise InputError(path, f"archive entry {clean!r} inflates beyond its declared "
                                           f"size of {info.file_size:,} bytes")
                if total > max_bytes:
                    raise InputError(path, f"extracts to more than {max_bytes:,} bytes "
                                           f"(${ENV_MAX_BYTES} sets the limit)")
                if size > RATIO_FREE_BYTES and size / max(info.compress_size, 1) > max_ratio:
                    raise InputError(path, f"archive entry {clean!r} inflates beyond "
                                           f"{max_ratio:g}:1 (${ENV_MAX_RATIO} sets the limit)")
                out.write(chunk)
    except FileExistsError:
        raise InputError(path, f"archive entry {info.filename!r}: {dest} already exists") from None
    except InputError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, EOFError,
            OSError, ValueError, zlib.error) as exc:
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise InputError(path, f"cannot extract {info.filename!r} ({detail})") from None
    return total


def open_archive(path: str | os.PathLike[str], max_bytes: int | None = None,
                 max_ratio: float | None = None) -> OpenArchive:
    """Extract an archive into a private temporary folder and find the engine's files in it
    (limits: see :func:`archive_limits`)."""
    from .discovery import find_engine_files

    source = os.fspath(path)
    manifest = archive_manifest(path)
    tmp = tempfile.TemporaryDirectory(prefix="trex-tea-")
    try:
        extract_archive(path, tmp.name, max_bytes=max_bytes, max_ratio=max_ratio)
        directory = Path(tmp.name)
        listed = manifest.get("files") if isinstance(manifest.get("files"), dict) else {}
        files = _files_from_roles(directory, listed) if listed else None
        if files is None or not files.has_layers:
            try:  # by content: archives made by other tools
                files = find_engine_files(directory)
            except InputError as exc:
                what = ("holds several engines" if "several engines" in str(exc) else
                        "holds no layer information, profile or build log with an engine layer "
                        "list")
                raise InputError(source, f"the archive {what}") from None
        files.name = str(manifest.get("name") or files.name or Path(source).stem)
    except BaseException:
        tmp.cleanup()
        raise
    if not files.has_layers:
        tmp.cleanup()
        raise InputError(source, "the archive holds no layer information, profile or build log "
                                 "with an engine layer list")
    assert isinstance(files, EngineFiles)
    return OpenArchive(source, directory, manifest, files, tmp)


def _files_from_roles(directory: Path, manifest_roles: dict[str, Any]) -> EngineFiles:
    """The engine's files by the manifest's roles (fields of roles that are not read, such as a
    drawing, and entries in sub-folders are left out)."""
    files = EngineFiles()
    for entry, field_name in manifest_roles.items():
        role = roles.by_manifest(str(field_name))
        if role is None or not EngineFiles.holds(role.name) or "/" in str(entry) or "\\" in str(entry):
            continue
        path = directory / str(entry)
        if path.is_file() and files.get(role.name) is None:
            files.paths[role.name] = path
    return files
