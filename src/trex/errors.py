"""Error and warning types: bad input becomes one clear line naming the file and the problem."""

from __future__ import annotations

import os


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


class TrexWarning(UserWarning):
    """A recoverable oddity in the inputs (also collected in ``EnginePlan.warnings``)."""
