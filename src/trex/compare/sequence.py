"""Order-preserving diffs of two key sequences, near-linear on long, mostly similar sequences.

Trimmed common ends, unique anchors kept in order by a longest increasing subsequence (patience
diff), an exact heaviest common subsequence on small gaps and a windowed resynchronising walk on
large ones. Keys are ints (:func:`interned`); a match of key ``k`` weighs ``weight[k]``.
"""

from __future__ import annotations

import bisect
import itertools
from collections import Counter
from collections.abc import Hashable, Sequence

_DP_CELLS = 40_000  # exact LCS below this many cells
_GRAM = 3  # keys that must agree to resynchronise a windowed walk
_WINDOWS = (32, 128, 512, 2048)

Pair = tuple[int, int]


def interned(keys_a: list, keys_b: list) -> tuple[list[int], list[int], list[int]]:
    """Keys as ints shared by both lists (None: a fresh negative int matching nothing), and each
    int's weight: 1 for a Reformat, 2 for any other layer."""
    ids: dict[Hashable, int] = {}
    weight: list[int] = []
    fresh = itertools.count(-1, -1)

    def intern(keys: list) -> list[int]:
        out = []
        for key in keys:
            if key is None:
                out.append(next(fresh))
                continue
            k = ids.get(key)
            if k is None:
                k = ids[key] = len(weight)
                kind = key[0] if isinstance(key, tuple) else key
                weight.append(1 if kind == "Reformat" else 2)
            out.append(k)
        return out

    return intern(keys_a), intern(keys_b), weight


def lis(pairs: list[Pair]) -> list[Pair]:
    """The longest subsequence of ``pairs`` (sorted by first item) increasing in the second."""
    tails: list[int] = []
    tail_at: list[int] = []
    back = [-1] * len(pairs)
    for i, (_, b) in enumerate(pairs):
        k = bisect.bisect_left(tails, b)
        if k == len(tails):
            tails.append(b)
            tail_at.append(i)
        else:
            tails[k] = b
            tail_at[k] = i
        back[i] = tail_at[k - 1] if k else -1
    out: list[Pair] = []
    i = tail_at[-1] if tail_at else -1
    while i >= 0:
        out.append(pairs[i])
        i = back[i]
    return out[::-1]


def _unique_anchors(ka: Sequence[int], kb: Sequence[int], a0: int, a1: int, b0: int, b1: int
                    ) -> list[Pair]:
    """Keys found once in each range, paired, kept where they agree in order (patience diff)."""
    ca = Counter(ka[a0:a1])
    cb = Counter(kb[b0:b1])
    where = {kb[j]: j for j in range(b0, b1) if cb[kb[j]] == 1 and ca.get(kb[j]) == 1}
    return lis([(i, where[ka[i]]) for i in range(a0, a1) if ka[i] in where])


def _lcs(ka: Sequence[int], kb: Sequence[int], a0: int, a1: int, b0: int, b1: int,
         weight: Sequence[int] | None = None) -> list[Pair]:
    """An exact heaviest common subsequence (a match of key k weighs ``weight[k]``, default 1),
    computed on the positions whose key occurs on both sides (the others never match)."""
    common = set(ka[a0:a1]).intersection(kb[b0:b1])
    if not common:
        return []
    rows_a = [i for i in range(a0, a1) if ka[i] in common]
    rows_b = [j for j in range(b0, b1) if kb[j] in common]
    a, b = [ka[i] for i in rows_a], [kb[j] for j in rows_b]
    n, m = len(a), len(b)
    w = [1 if weight is None or k < 0 else weight[k] for k in a]
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below, ai, wi = table[i], table[i + 1], a[i], w[i]
        for j in range(m - 1, -1, -1):
            best = below[j] if below[j] >= row[j + 1] else row[j + 1]
            if ai == b[j] and below[j + 1] + wi > best:
                best = below[j + 1] + wi
            row[j] = best
    out: list[Pair] = []
    i = j = 0
    while i < n and j < m:
        if a[i] == b[j] and table[i][j] == table[i + 1][j + 1] + w[i]:
            out.append((rows_a[i], rows_b[j]))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


def _resync(ka: Sequence[int], kb: Sequence[int], i: int, a1: int, j: int, b1: int
            ) -> Pair | None:
    """The nearest (i + da, j + db) where the next few keys of both sequences agree."""
    for window in _WINDOWS:
        grams: dict[tuple[int, ...], int] = {}
        for y in range(j, min(j + window, b1)):
            grams.setdefault(tuple(kb[y:min(y + _GRAM, b1)]), y)
        best: Pair | None = None
        for x in range(i, min(i + window, a1)):
            if best is not None and x - i >= best[0] - i + best[1] - j:
                break
            y = grams.get(tuple(ka[x:min(x + _GRAM, a1)]))
            if y is not None and (best is None or x - i + y - j < best[0] - i + best[1] - j):
                best = (x, y)
        if best is not None:
            return best
        if window >= a1 - i and window >= b1 - j:
            return None
    return None


def _windowed(ka: Sequence[int], kb: Sequence[int], a0: int, a1: int, b0: int, b1: int,
              ) -> tuple[list[Pair], list[tuple[int, int, int, int]]]:
    """Walk both ranges matching equal keys; after a mismatch jump to the nearest agreement."""
    matches: list[Pair] = []
    gaps: list[tuple[int, int, int, int]] = []
    i, j = a0, b0
    while i < a1 and j < b1:
        if ka[i] == kb[j]:
            matches.append((i, j))
            i, j = i + 1, j + 1
            continue
        hit = _resync(ka, kb, i, a1, j, b1)
        if hit is None:
            break  # the rest stays for the next pass
        gaps.append((i, hit[0], j, hit[1]))
        i, j = hit
    return matches, gaps


def diff(ka: Sequence[int], kb: Sequence[int], weight: Sequence[int] | None = None) -> list[Pair]:
    """Order-preserving pairs of equal keys, near-linear on long, mostly similar sequences;
    ``weight[k]`` (default 1) makes small gaps prefer matching heavier keys."""
    out: list[Pair] = []
    stack = [(0, len(ka), 0, len(kb))]
    budget = 16 * (len(ka) + len(kb)) + 4096  # work allowed for the anchor recursion
    while stack:
        a0, a1, b0, b1 = stack.pop()
        while a0 < a1 and b0 < b1 and ka[a0] == kb[b0]:
            out.append((a0, b0))
            a0, b0 = a0 + 1, b0 + 1
        while a0 < a1 and b0 < b1 and ka[a1 - 1] == kb[b1 - 1]:
            a1, b1 = a1 - 1, b1 - 1
            out.append((a1, b1))
        if a0 == a1 or b0 == b1:
            continue
        if (a1 - a0) * (b1 - b0) <= _DP_CELLS:
            out.extend(_lcs(ka, kb, a0, a1, b0, b1, weight))
            continue
        anchors: list[Pair] = []
        if budget > 0:
            budget -= (a1 - a0) + (b1 - b0)
            anchors = _unique_anchors(ka, kb, a0, a1, b0, b1)
        if anchors:
            out.extend(anchors)
            pa, pb = a0, b0
            for x, y in anchors:
                stack.append((pa, x, pb, y))
                pa, pb = x + 1, y + 1
            stack.append((pa, a1, pb, b1))
            continue
        matches, gaps = _windowed(ka, kb, a0, a1, b0, b1)
        out.extend(matches)
        stack.extend(gaps)
    out.sort()
    return out
