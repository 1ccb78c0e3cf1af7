"""Error and warning types: bad input becomes one clear line naming the file and the problem."""

from __future__ import annotations

import os
import warnings


class TrexError(Exception):
    """Base class of every error trex raises on purpose."""


class InputError(TrexError, ValueError):
    """An input file is missing, of the wrong kind, or corrupt.

    Subclasses ValueError so that code written for TREx (which raised ValueError) still works.
    """

    def __init__(self, path: str | os.PathLike | None, problem: str):
        self.path = None if path is None else os.fspath(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}" if self.path else problem)


class ProfileNotFound(InputError):
    """An optimisation profile the engine does not have was asked for (``profile_id``);
    ``profiles`` are the ones it has, for a message that offers them."""

    def __init__(self, path: str | os.PathLike | None, profile_id: int | None,
                 profiles: list[int]):
        self.profile_id = profile_id
        self.profiles = list(profiles)
        super().__init__(path, f"no layers for profile {profile_id} (profiles present: "
                               f"{', '.join(map(str, self.profiles))})")


class OutputError(TrexError):
    """An output cannot be written where it was asked: a folder, a missing folder, a read-only or
    full file system, a file trex would replace without ``--force``. Names the path."""

    def __init__(self, path: str | os.PathLike | None, problem: str):
        self.path = None if path is None else os.fspath(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}" if self.path else problem)


class TrexWarning(UserWarning):
    """A recoverable oddity in the inputs (also collected in ``EnginePlan.warnings``)."""


class TrexNote(TrexWarning):
    """A known condition worth knowing once, not an oddity (``EnginePlan.notes``): per-layer
    profiling's overhead makes the layers' summed time exceed the measured GPU time."""


def show_plainly() -> None:
    """Show trex's warnings and notes as one line each (``note: engine: ...``), without the
    file, line number and source line of trex's code that Python adds (noise in a notebook);
    other warnings keep Python's format. Called once on ``import trex``."""
    original = warnings.formatwarning
    if getattr(original, "_trex", False):
        return

    def plain(message: Warning | str, category: type[Warning], filename: str, lineno: int,
              line: str | None = None) -> str:
        if isinstance(category, type) and issubclass(category, TrexWarning):
            return f"{'note' if issubclass(category, TrexNote) else 'warning'}: {message}\n"
        return original(message, category, filename, lineno, line)

    plain._trex = True  # type: ignore[attr-defined]
    warnings.formatwarning = plain


MAX_MESSAGE_CHARS = 2000


def cap_line(text: object, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``text`` for a warning or error line, at most about ``limit`` characters: a log line or a
    name can be megabytes long, so the middle is cut (the start says what, the end usually why;
    the input file keeps the full text)."""
    text = str(text)
    if len(text) <= limit:
        return text
    tail = limit // 4
    head = limit - tail
    return f"{text[:head]}\u2026 ({len(text) - limit:,} more characters) \u2026{text[-tail:]}"
