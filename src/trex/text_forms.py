"""One text form per quantity for every command's tables and Markdown: bytes, compute capability,
throughput, linter evidence; and names cut so that what tells them apart stays.

The figures themselves stay numbers in JSON and CSV; these are only how text shows them, so that
``trex summary``, ``trex compare`` and ``trex lint`` print the same quantity the same way.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from typing import Any

from .model.facts import MISSING

ELLIPSIS = "…"


def bytes_text(value: Any) -> str:
    """A byte count grouped by thousands with its unit (``46,738,848 B``); "–" when unknown."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            (isinstance(value, float) and not math.isfinite(value)):
        return MISSING if value is None or isinstance(value, float) else str(value)
    return f"{int(value):,} B"


def capability_text(value: Any) -> str:
    """A compute capability with one decimal (``8.0``, ``8.6``); "–" when unknown."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return value
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return f"{value:.1f}"
    return MISSING


def throughput_text(value: Any) -> str:
    """Inferences per second with two decimals (``1130.01``), as the summary's header shows it."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return f"{value:.2f}"
    return MISSING


def is_bytes_key(key: str) -> bool:
    """A linter evidence key that holds a byte count (``bytes``, ``bytes_in``, ``output_bytes``)."""
    return "bytes" in key.lower().split("_")


# ----------------------------------------------------------------------------- cutting long text
def _number_char(text: str, k: int) -> bool:
    """Whether ``text[k]`` belongs to a number: a digit, or a ``.``/``,`` between two digits."""
    char = text[k]
    if char.isdigit():
        return True
    return char in ".," and 0 < k < len(text) - 1 and text[k - 1].isdigit() and text[k + 1].isdigit()


def _inside_number(text: str, p: int) -> bool:
    """Whether a cut between ``text[p - 1]`` and ``text[p]`` would split a number."""
    return 0 < p < len(text) and _number_char(text, p - 1) and _number_char(text, p)


def _split_cost(text: str, p: int) -> float:
    """How much a cut at ``p`` hurts reading: nothing between words (spaces, ``+``, ``.``), a
    little at a ``_`` (inside a kernel or layer name), more inside a run of letters and digits,
    most at either end (the whole head or tail lost)."""
    if p <= 0 or p >= len(text):
        return 1.0
    before, after = text[p - 1], text[p]
    if before.isalnum() and after.isalnum():
        return 0.5
    if "_" in (before, after) and (before.isalnum() or after.isalnum()):
        return 0.25
    return 0.0


def items_text(items: list[str], width: int) -> str:
    """``items`` joined by ", " in at most about ``width`` characters, cut between items (never in
    the middle of one, such as a tensor's shape) with how many were left out."""
    text = ", ".join(items)
    if len(text) <= width or len(items) < 2:
        return text
    kept: list[str] = []
    used = 0
    for item in items:
        more = f", … (+{len(items) - len(kept)} more)"
        if kept and used + 2 + len(item) + len(more) > width:
            break
        kept.append(item)
        used += len(item) + (2 if used else 0)
    return ", ".join(kept) + f", … (+{len(items) - len(kept)} more)"


def cut_text(text: str, width: int, keep: tuple[int, int] | None = None) -> str:
    """``text`` in at most ``width`` characters: one span replaced by "…", never inside a number.

    The span is chosen to remove as little of ``keep`` (the part that tells this text from its
    neighbours, default all of it) as possible, then to fall between words, then to keep about
    two fifths of the room for the head and the rest for the tail (layer suffixes, tile sizes).
    """
    if len(text) <= width:
        return text
    if width < 2:
        return text[:width]
    start, end = keep if keep is not None else (0, len(text))
    removed = len(text) - width + 1
    target = (width - 1) * 2 // 5
    best: tuple[float, int] | None = None
    best_i = 0
    for i in range(0, width):
        j = i + removed
        cost = 10.0 * max(0, min(j, end) - max(i, start))
        if _inside_number(text, i) or _inside_number(text, j):
            cost += 1e6
        cost += _split_cost(text, i) + _split_cost(text, j)
        rank = (cost, abs(i - target))
        if best is None or rank < best:
            best, best_i = rank, i
    return text[:best_i] + ELLIPSIS + text[best_i + removed:]


def _cut_twice(text: str, width: int, start: int) -> str | None:
    """``head…middle…tail`` with the middle from ``start`` (where alike texts begin to differ,
    backed up to the word it is in), numbers whole; None when that needs no second cut."""
    while start > 0 and (_inside_number(text, start) or
                         (_split_cost(text, start) > 0 and text[start - 1] not in "/_.:")):
        start -= 1  # show the differing word whole (``act2``, ``tilesize256x64``), not its end
    room = width - 2
    tail = min(room // 3, len(text) - start - 1)
    head = min(room // 4, start)
    stop = min(start + room - head - tail, len(text) - tail)
    head = min(start, room - tail - (stop - start))
    while stop > start and _inside_number(text, stop):
        stop -= 1
    while head > 0 and _inside_number(text, head):
        head -= 1
    while tail > 0 and _inside_number(text, len(text) - tail):
        tail -= 1
    if head >= start or stop >= len(text) - tail or stop <= start or tail == 0:
        return None
    return text[:head] + ELLIPSIS + text[start:stop] + ELLIPSIS + text[len(text) - tail:]


def fit_column(values: Sequence[str], width: int) -> list[str]:
    """Each value cut to about ``width`` so that distinct values stay distinct: what all long
    values of the column share (a kernel family's prefix) goes first, what differs stays; when
    no cut at ``width`` tells them apart, the column gets wider until one does (up to four
    times ``width``: names alike over longer stretches than that are not names to read)."""
    longest = min(max((len(v) for v in values), default=0), 4 * width)
    while True:
        shown = _fit(values, width)
        if width >= longest or len(set(shown)) == len(set(values)):
            return shown
        width = min(longest, width + max(4, width // 8))


def _fit(values: Sequence[str], width: int) -> list[str]:
    """:func:`fit_column` at one width (values may still read alike)."""
    long = [v for v in dict.fromkeys(values) if len(v) > width]
    if not long:
        return list(values)
    cut = _cut_group(long, width)
    if _alike(long, cut):  # some read the same: drop the words they all share instead
        shared = set.intersection(*(set(_words(v)) for v in long))
        words = {v: _keep_differences(v, shared, width) for v in long}
        shown = {v: words[v] or cut[v] for v in long}
        if len(set(shown.values())) > len(set(cut.values())):
            cut = shown
    for _ in range(8):  # values shown alike: keep where they start to differ, between two cuts
        groups = _alike(long, cut)
        if not groups:
            break
        shown = dict(cut)
        for group in groups:
            differ = len(os.path.commonprefix(group))
            shown.update({v: _cut_twice(v, width, differ) or cut[v] for v in group})
        if len(set(shown.values())) <= len(set(cut.values())):
            break  # no better: keep the previous texts
        cut = shown
    return [cut.get(v, v) for v in values]


_TOKEN_RE = re.compile(r"[^_/ ]*(?:[_/ ]+|$)")


def _words(text: str) -> list[str]:
    """``text`` in words, each with the separators (``_``, ``/``, space) that follow it."""
    return [w for w in _TOKEN_RE.findall(text) if w]


def _keep_differences(text: str, shared: set[str], width: int) -> str | None:
    """``text`` without the ``shared`` words (the ones every long text of the column has; each
    run of them becomes "…"), its first and last word kept:
    ``sm80_…i8f16_…tilesize128x128x64_stage4_warpsize2x2x1_…t1r3s3``. None when that is still
    wider than ``width`` or drops nothing."""
    words = _words(text)
    out: list[str] = []
    for k, word in enumerate(words):
        if 0 < k < len(words) - 1 and word in shared:
            if not out or out[-1] != ELLIPSIS:
                out.append(ELLIPSIS)
        else:
            out.append(word)
    shown = "".join(out)
    return shown if ELLIPSIS in shown and len(shown) <= width else None


def _alike(values: list[str], shown: dict[str, str]) -> list[list[str]]:
    """Groups of values whose shown texts are the same."""
    groups: dict[str, list[str]] = {}
    for value in values:
        groups.setdefault(shown[value], []).append(value)
    return [same for same in groups.values() if len(same) > 1]


def _cut_group(values: list[str], width: int) -> dict[str, str]:
    """Each value cut once, sparing what lies between the group's common prefix and suffix."""
    if len(values) == 1:
        return {values[0]: cut_text(values[0], width)}
    prefix = len(os.path.commonprefix(values))
    suffix = len(os.path.commonprefix([v[::-1] for v in values]))
    out = {}
    for value in values:
        tail = min(suffix, len(value) - prefix)
        out[value] = cut_text(value, width, (prefix, len(value) - tail))
    return out
