"""Loading and drawing big plans without the cyclic garbage collector's passes, and work beside.

A plan of 50,000 layers is millions of small, long-lived objects, and none is part of a reference
cycle (a dropped plan is freed by reference counting alone). Scanning them while they are built
only costs time, and so does the first young-generation pass after the collector is back on:
:func:`gc_paused` hands them straight to the oldest generation instead, where they are looked at
only when Python next runs a full collection, as any long-lived data is.
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import sys
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, TypeVar

T = TypeVar("T")


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic collector for a block; what the block built goes to the oldest generation."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.freeze()  # every tracked object to the permanent generation (an O(1) splice) ...
            gc.unfreeze()  # ... then to the oldest one: no young pass over the new objects
            gc.enable()


def beside(work: Callable[[], T]) -> Callable[[], T]:
    """Start ``work`` in a forked copy of this process, beside what the caller does next (on a
    second core); the returned function waits for its result. Only where forking is safe: Linux,
    and no other thread (a notebook's kernel has some); elsewhere, or when the copy fails, ``work``
    runs here when the result is asked for. The answer is the same either way: the copy computes
    it from the same state. A result never asked for ends the copy when it is dropped."""
    if sys.platform != "linux" or threading.active_count() > 1:
        return work
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:  # no process to spare
        os.close(read_end)
        os.close(write_end)
        return work
    if pid == 0:  # the copy: compute, hand the result over, and leave without any cleanup
        code = 1
        try:
            os.close(read_end)
            blob = pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_end, "wb") as out:
                out.write(blob)
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    return _Beside(pid, os.fdopen(read_end, "rb"), work)


class _Beside:
    """The result of :func:`beside`'s forked copy, read when asked for."""

    def __init__(self, pid: int, pipe: Any, work: Callable[[], Any]):
        self._pipe, self._work = pipe, work
        self._ending = weakref.finalize(self, _end, pid, pipe)  # dropped unread: the copy goes

    def __call__(self) -> Any:
        ending = self._ending.detach()
        if ending is None:  # asked for twice
            return self._work()
        _, _, (pid, pipe), _ = ending
        status = None
        try:
            with pipe:
                blob = pipe.read()
            _, status = os.waitpid(pid, 0)
        finally:
            if status is None:  # Ctrl-C while waiting: the copy goes too
                _end(pid, pipe)
        if status == 0 and blob:
            return pickle.loads(blob)
        return self._work()


def _end(pid: int, pipe: Any) -> None:
    """Stop a forked copy not yet waited for, and reap it."""
    pipe.close()
    with suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    with suppress(OSError):
        os.waitpid(pid, 0)
