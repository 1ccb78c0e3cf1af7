"""Loading and drawing big plans without the cyclic garbage collector's passes.

A plan of 50,000 layers is millions of small, long-lived objects, and none is part of a reference
cycle (a dropped plan is freed by reference counting alone). Scanning them while they are built
only costs time, and so does the first young-generation pass after the collector is back on:
:func:`gc_paused` hands them straight to the oldest generation instead, where they are looked at
only when Python next runs a full collection, as any long-lived data is.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


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
