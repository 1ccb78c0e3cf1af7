"""SIGTERM and SIGHUP handled like Ctrl-C while ``trex process`` runs, with cleanups that finish.

CI runners stop jobs with SIGTERM, closed terminals send SIGHUP. Under ``terminate_on_signals()``
either raises :class:`Terminated` in the main thread, so the same ``finally``/``with`` paths as
Ctrl-C stop trtexec and restore GPU clocks. Code inside ``deferred_signals()`` (those cleanups)
is never cut short: a signal arriving there is raised when the block ends, and signals after the
first are ignored while the cleanups run.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["Terminated", "deferred_signals", "terminate_on_signals"]


class Terminated(BaseException):
    """A termination signal arrived (raised like KeyboardInterrupt, not caught by ``except Exception``)."""

    def __init__(self, signum: int):
        self.signum = signum
        self.exit_code = 128 + signum
        super().__init__(f"terminated by {signal.Signals(signum).name}")


class _State:
    depth = 0  # nesting of deferred_signals blocks
    pending: int | None = None  # a signal that arrived inside one
    stopping = False  # the first signal was raised; cleanups are running


_state = _State()


def _raise_for(signum: int) -> None:
    _state.stopping = True
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signum)


def _handler(signum: int, frame: object) -> None:
    if _state.stopping:
        return  # already stopping: let the cleanups finish
    if _state.depth:
        _state.pending = signum
        return
    _raise_for(signum)


@contextmanager
def deferred_signals() -> Iterator[None]:
    """Run a cleanup without being interrupted; a signal that arrived meanwhile is raised after."""
    _state.depth += 1
    try:
        yield
    finally:
        _state.depth -= 1
        if _state.depth == 0 and _state.pending is not None and not _state.stopping:
            signum, _state.pending = _state.pending, None
            _raise_for(signum)


@contextmanager
def terminate_on_signals(signums: tuple[int, ...] | None = None) -> Iterator[None]:
    """Turn SIGTERM, SIGHUP (and Ctrl-C) into exceptions for the duration of the block.

    Does nothing outside the main thread (Python delivers signals there only). The previous
    handlers come back at the end.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    wanted = signums or tuple(s for s in (getattr(signal, "SIGTERM", None),
                                          getattr(signal, "SIGHUP", None), signal.SIGINT)
                              if s is not None)
    previous = {s: signal.signal(s, _handler) for s in wanted}
    _state.stopping, _state.pending = False, None
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        _state.stopping, _state.pending = False, None
