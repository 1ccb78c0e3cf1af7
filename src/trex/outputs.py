"""Writing output files: one function for every writer, and the names of default outputs.

Every file trex writes (reports, traces, workbooks, archives, drawings, ONNX, DOT, JSON) goes
through :func:`atomic_write`. The new content is written whole to a temporary file first, then
delivered by what the path is, so that nothing it points at is damaged:

* a regular file is replaced (the temporary file, beside it, renamed into place) keeping its
  mode; one with other hard links is rewritten in place, after its space is reserved, so that
  every link sees the new content;
* a symbolic link is followed: its target is written by these rules, the link stays;
* a FIFO or a device is written directly and a socket is sent the bytes: never replaced;
* a folder, a missing folder, a read-only or full file system is an :class:`OutputError` naming
  the path (exit status 2 in the CLI), and the previous file survives every failure.

Default output names come from :func:`default_name`: the engine's folder and name, so two
engines never share one; :func:`check_replace` refuses to replace a file that this run did not
write unless asked (``--force``).
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import socket
import stat
import tempfile
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any

from .errors import OutputError

__all__ = ["MAX_NAME_BYTES", "atomic_write", "check_replace", "default_name", "new_run",
           "output_name", "safe_filename", "written_by_this_run"]

_CHUNK = 1 << 20
_WRITTEN: set[str] = set()  # real paths of the files this process wrote ("this run")


@dataclass
class _Target:
    """Where the bytes go and how: ``new``, ``replace``, ``in_place``, ``direct`` or ``socket``."""

    kind: str
    path: str  # a link's target for new/replace/in_place; the path itself otherwise
    st: os.stat_result | None = None


@contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", encoding: str | None = "utf-8",
                 errors: str = "backslashreplace", what: str = "the file") -> Iterator[IO[Any]]:
    """A file handle (text for ``mode="w"``, bytes for ``"wb"``) whose content reaches ``path``
    only when the ``with`` block ends normally, by the rules of this module. A failure of the
    block (an exception, Ctrl-C) leaves ``path`` as it was; an output that cannot be written
    raises :class:`OutputError` naming it ("cannot write ``what``: why"). Text that cannot be
    encoded is written as escapes."""
    if mode not in ("w", "wt", "wb"):
        raise ValueError(f"atomic_write writes ('w' or 'wb'), not mode {mode!r}")
    shown = os.fspath(path)
    if not shown:
        raise OutputError(None, "the output file name is empty")
    target = _target(shown, what)
    fd, tmp = _temporary(shown, target, what)
    try:
        binary = "b" in mode
        with os.fdopen(fd, "wb" if binary else "w", encoding=None if binary else encoding,
                       errors=None if binary else errors) as handle:
            yield handle
        _deliver(tmp, target)
    except OSError as exc:
        if exc.filename not in (None, tmp, target.path, shown):
            raise  # a file the writer reads (an archive's member), not the output
        raise OutputError(shown, f"cannot write {what}: {exc.strerror or exc}") from None
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
    _WRITTEN.add(_real(shown))


def new_run() -> None:
    """Forget what was written so far: a new command starts (``trex.cli.main``)."""
    _WRITTEN.clear()


def written_by_this_run(path: str | os.PathLike) -> bool:
    """True if :func:`atomic_write` wrote ``path`` in this process."""
    return _real(os.fspath(path)) in _WRITTEN


def check_replace(path: str | os.PathLike, force: bool = False) -> None:
    """Refuse to replace an existing file this run did not write (a default-named output that
    would overwrite another engine's, or a user's own file), unless ``force``."""
    shown = os.fspath(path)
    if force or not os.path.lexists(shown) or written_by_this_run(shown):
        return
    raise OutputError(shown, "already exists and this run did not write it: pass --force to "
                             "replace it, or -o to name another file")


# ------------------------------------------------------------------------------ file names
# Unicode categories a terminal may act on and a file name must not hold: controls (C0, DEL, C1
# incl. CSI/OSC introducers), format characters (bidi overrides and isolates, zero-width
# joiners), line/paragraph separators, and lone surrogates (undecodable bytes).
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
MAX_NAME_BYTES = 120  # leaves room for suffixes such as ".report.html" under the usual 255
_UNSAFE_NAME_CHARS = re.compile(r'[<>:"|?*]')
_DOTS = re.compile(r"\.{2,}")
_RESERVED = re.compile(r"^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$", re.IGNORECASE)


def safe_filename(text: Any, default: str = "engine", max_bytes: int = MAX_NAME_BYTES) -> str:
    """A bare file name made from data: its last path part, without separators, ``..``, control
    characters or characters Windows forbids, at most ``max_bytes`` UTF-8 bytes, never empty.

    Linear in the text: cut to ``max_bytes`` characters first (each takes a byte or more), then
    encoded once."""
    name = str(text if text is not None else "").rstrip("/\\")
    name = name[max(name.rfind("/"), name.rfind("\\")) + 1:]
    name = _DOTS.sub(".", name.lstrip(" ."))[:max_bytes]
    if not name.isprintable():
        name = "".join("_" if unicodedata.category(c) in HIDDEN_CATEGORIES else c for c in name)
    name = _UNSAFE_NAME_CHARS.sub("_", name).strip(" .")
    if name.startswith("-"):
        name = "_" + name[1:]
    if _RESERVED.match(name):
        name = "_" + name
    data = name.encode("utf-8")  # no surrogate is left: they are hidden characters
    if len(data) > max_bytes:
        name = data[:max_bytes].decode("utf-8", "ignore").rstrip(" .")
    return name or default


def output_name(parts: Sequence[Any], suffix: str, max_bytes: int = MAX_NAME_BYTES) -> str:
    """A bare file name ``<part>.<part>...<suffix>``: each part made safe by
    :func:`~trex.safety.safe_filename`, empty parts and a part the next one starts with left out;
    cut to ``max_bytes`` (before the suffix) with ``~`` and a digest of the whole when too long,
    so that names cut alike stay apart."""
    safe = [s for s in (safe_filename(p, default="") for p in parts) if s]
    kept = [s for i, s in enumerate(safe)
            if i + 1 == len(safe) or not (safe[i + 1] == s or safe[i + 1].startswith(s + "."))]
    base = ".".join(kept) or "engine"
    data = base.encode("utf-8")
    if len(data) > max_bytes:
        digest = hashlib.sha256(data).hexdigest()[:8]
        head = data[:max_bytes - 9].decode("utf-8", "ignore").rstrip(" .")
        base = f"{head}~{digest}"
    return base + suffix


def default_name(plan: Any, suffix: str) -> str:
    """``<folder>.<engine><suffix>`` in the current folder for a plan (or a beam/query of one):
    the folder holding its files (an archive's folder) and the engine's name, e.g.
    ``a100-resnet18-fp32.resnet.onnx.engine.svg``."""
    return output_name([folder_of(origin_of(plan)), getattr(plan, "name", "") or ""], suffix)


def origin_of(plan: Any) -> str | None:
    """The file a plan was read from: its archive, else its layer information (a beam or query:
    its plan's)."""
    while getattr(plan, "parent", None) is not None and not hasattr(plan, "graph_file"):
        plan = plan.parent
    archive = getattr(plan, "archive", None)
    source = getattr(archive, "source", None) or getattr(plan, "graph_file", None)
    return os.fspath(source) if source else None


def folder_of(path: str | os.PathLike | None) -> str:
    """The name of the folder holding ``path`` (``path`` itself if it is a folder), resolved so
    that ``.`` gives the folder's real name; empty for the root or None."""
    if path is None:
        return ""
    text = os.fspath(path)
    real = os.path.realpath(text)
    folder = real if os.path.isdir(real) else os.path.dirname(real)
    return os.path.basename(folder)


# ------------------------------------------------------------------------------ the rules
def _target(shown: str, what: str) -> _Target:
    """What ``shown`` is, and so how it is written (see the module's rules)."""
    path = os.path.abspath(shown)
    try:
        st = os.stat(path)  # follows links
    except FileNotFoundError:
        real = os.path.realpath(path)  # a dangling link: its target is created
        folder = os.path.dirname(real)
        if not os.path.isdir(folder):
            raise OutputError(shown, f"cannot write {what}: " + (
                "its folder does not exist" if not os.path.lexists(folder)
                else "a part of the path is not a folder")) from None
        return _Target("new", real)
    except NotADirectoryError:
        raise OutputError(shown, f"cannot write {what}: a part of the path is not a folder"
                          ) from None
    except OSError as exc:  # a link loop, no permission to look
        raise OutputError(shown, f"cannot write {what}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise OutputError(shown, f"cannot write {what}: it is a folder; name a file")
    if stat.S_ISSOCK(st.st_mode):
        return _Target("socket", path, st)
    if not stat.S_ISREG(st.st_mode):
        return _Target("direct", path, st)  # a FIFO or a device
    real = os.path.realpath(path)
    try:
        same = os.path.samestat(os.stat(real), st)
    except OSError:
        same = False
    if not same:  # a link that names no path (/proc/self/fd/1): written through
        return _Target("direct", path, st)
    return _Target("in_place" if st.st_nlink > 1 else "replace", real, st)


def _temporary(shown: str, target: _Target, what: str) -> tuple[int, str]:
    """A new temporary file: beside the target when it is renamed or rewritten (the same file
    system: a full disk shows before the target changes), else in the system's folder."""
    if target.kind in ("direct", "socket"):
        return tempfile.mkstemp(prefix=".trex-output.", suffix=".tmp")
    name = os.path.basename(target.path)[:40]
    try:
        return tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp",
                                dir=os.path.dirname(target.path))
    except PermissionError:
        if target.st is not None and os.access(target.path, os.W_OK):
            target.kind = "in_place"  # a writable file in a folder we may not change
            return tempfile.mkstemp(prefix=".trex-output.", suffix=".tmp")
        raise OutputError(shown, f"cannot write {what}: permission denied") from None
    except OSError as exc:
        raise OutputError(shown, f"cannot write {what}: {exc.strerror or exc}") from None


def _deliver(tmp: str, target: _Target) -> None:
    """Move the complete temporary file's content to the target, by its kind."""
    if target.kind in ("new", "replace"):
        st = target.st
        os.chmod(tmp, st.st_mode & 0o777 if st is not None else 0o666 & ~_umask())
        if st is not None and (st.st_uid, st.st_gid) != _owner(tmp):
            try:
                os.chown(tmp, st.st_uid, st.st_gid)
            except OSError:  # not ours to give away: the file becomes the writer's
                pass
        os.replace(tmp, target.path)
    elif target.kind == "in_place":
        _rewrite(tmp, target)
    elif target.kind == "socket":
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock, open(tmp, "rb") as src:
            sock.connect(target.path)
            while chunk := src.read(_CHUNK):
                sock.sendall(chunk)
    else:
        regular = target.st is not None and stat.S_ISREG(target.st.st_mode)
        fd = os.open(target.path, os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC
                     | (os.O_TRUNC if regular else 0))
        try:
            _copy(tmp, fd)
        finally:
            os.close(fd)


def _rewrite(tmp: str, target: _Target) -> None:
    """Write a hard-linked file in place: its space reserved first (a full disk fails before
    anything changes), then the new bytes, then its length."""
    size = os.path.getsize(tmp)
    fd = os.open(target.path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        old = os.fstat(fd).st_size
        if size > old:
            try:
                os.posix_fallocate(fd, 0, size)
            except OSError as exc:
                os.ftruncate(fd, old)
                if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):
                    raise OSError(exc.errno, exc.strerror, target.path) from None
        _copy(tmp, fd)
        os.ftruncate(fd, size)
    finally:
        os.close(fd)


def _copy(tmp: str, fd: int) -> None:
    with open(tmp, "rb") as src:
        while chunk := src.read(_CHUNK):
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view):]


def _owner(path: str) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_uid, st.st_gid


def _real(path: str) -> str:
    return os.path.realpath(os.path.abspath(path))


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
