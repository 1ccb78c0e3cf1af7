"""Progress of long commands (``trex report``, ``draw``, ``compare``) on stderr, for people only.

One line, rewritten in place, shows the current step and the time so far, and is erased when the
command is done. It is written only when stderr is a terminal: loading shows at once, the later
steps only when the engines are big (over ``MIN_LAYERS`` layers in all). Pipes, files and
``2>/dev/null`` get nothing.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

MIN_LAYERS = 5000


class Progress:
    """``step("laying out the graph")`` shows a step; ``layers(n)`` says how big the work is."""

    def __init__(self, command: str, stream: TextIO | None = None, min_layers: int = MIN_LAYERS):
        self.command = command
        self.stream = stream if stream is not None else sys.stderr
        self.min_layers = min_layers
        self.terminal = _is_terminal(self.stream)
        self.big: bool | None = None  # unknown until layers() is told
        self.start = time.perf_counter()
        self.width = 0

    def layers(self, count: int) -> None:
        """The number of layers the command works on; small work shows no more steps."""
        self.big = count > self.min_layers
        if not self.big:
            self.clear()

    def step(self, what: str) -> None:
        """Show ``what`` is being done (loading shows before the size is known)."""
        if not self.terminal or self.big is False:
            return
        line = f"{self.command}: {what} ... {time.perf_counter() - self.start:.1f} s"
        self._write("\r" + line.ljust(self.width))
        self.width = len(line)

    def clear(self) -> None:
        """Erase the progress line (before the command prints its result)."""
        if self.width:
            self._write("\r" + " " * self.width + "\r")
            self.width = 0

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken terminal: progress is optional
            self.terminal = False

    def __call__(self, what: str) -> None:
        self.step(what)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


@contextmanager
def progress(command: str, stream: TextIO | None = None) -> Iterator[Progress]:
    """A :class:`Progress` whose line is erased however the block ends."""
    shown = Progress(command, stream)
    try:
        yield shown
    finally:
        shown.clear()
