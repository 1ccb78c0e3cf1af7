"""Align the layers of engines: ONNX node names, then layer names, then signatures, then position.

Every pass is linear or ``O(n log n)``: identity keys that are unique in both engines, then
order-preserving diffs (trimmed ends, unique anchors with a longest increasing subsequence, an
exact LCS on small gaps and a windowed resynchronising walk on large ones).
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from ..model.plan import EnginePlan

MATCH_KINDS = ("onnx", "name", "signature", "position")
_STRENGTH = {kind: i for i, kind in enumerate(MATCH_KINDS)}
_ELEMENTWISE = {"PointWise", "ElementWise"}
_DP_CELLS = 40_000  # exact LCS below this many cells
_GRAM = 3  # keys that must agree to resynchronise a windowed walk
_WINDOWS = (32, 128, 512, 2048)
_AUTO_PART = re.compile(r"^(?:[A-Za-z]\w*_\d+|PWN\(.*|\(Unnamed Layer\*.*)$")

Pair = tuple[int, int]


def engine_letter(k: int) -> str:
    """``A``, ``B``, ... ``Z``, ``AA``: how alignments name the k-th engine."""
    letters = ""
    k += 1
    while k:
        k, r = divmod(k - 1, 26)
        letters = chr(65 + r) + letters
    return letters


def get_plans_names(plans: Sequence[EnginePlan]) -> list[str]:
    """TREx's unique engine names: the plan names, each suffixed with its index if two collide."""
    names = [plan.name for plan in plans]
    if len(set(names)) != len(names):
        names = [f"{name}{i}" for i, name in enumerate(names)]
    return names


# --------------------------------------------------------------------------- layer keys
def _onnx_nodes(plan: EnginePlan) -> list[tuple[str, ...]]:
    """The ONNX node names of each df row (TensorRT 8.6+ ``Metadata``), empty tuples if none."""
    return [tuple(layer.onnx_nodes) for layer in plan.layers]


def _signature(layer, exact: bool) -> Hashable | None:
    """Type and tensor shapes without the batch dimension (TREx's signature); None if no tensors."""
    ins = [tuple(t.shape[1:]) for t in layer.inputs]
    outs = [tuple(t.shape[1:]) for t in layer.outputs]
    if not ins and not outs:
        return None
    if not exact:
        ins, outs = ins[:1], outs[:1]
    if layer.type in _ELEMENTWISE:
        ins = sorted(ins)  # a commutative layer may take its inputs in either order
    return (layer.type, tuple(ins), tuple(outs))


def _interned(keys_a: list, keys_b: list) -> tuple[list[int], list[int], list[int]]:
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


# --------------------------------------------------------------------------- sequence diff
def _lis(pairs: list[Pair]) -> list[Pair]:
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
    return _lis([(i, where[ka[i]]) for i in range(a0, a1) if ka[i] in where])


def _lcs(ka: Sequence[int], kb: Sequence[int], a0: int, a1: int, b0: int, b1: int,
         weight: Sequence[int] | None = None) -> list[Pair]:
    """An exact heaviest common subsequence (a match of key k weighs ``weight[k]``, default 1)."""
    a, b = ka[a0:a1], kb[b0:b1]
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
            out.append((a0 + i, b0 + j))
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


# --------------------------------------------------------------------------- passes
def _unique_identity_pairs(keys_a: list, keys_b: list, free_a: list[int], free_b: list[int]
                           ) -> list[Pair]:
    """Pairs of free layers whose (non-None) key occurs exactly once among the free layers of each."""
    ca = Counter(keys_a[i] for i in free_a if keys_a[i] is not None)
    cb = Counter(keys_b[j] for j in free_b if keys_b[j] is not None)
    where = {keys_b[j]: j for j in free_b if keys_b[j] is not None and cb[keys_b[j]] == 1}
    return [(i, where[keys_a[i]]) for i in free_a
            if keys_a[i] is not None and ca[keys_a[i]] == 1 and keys_a[i] in where]


def _overlap_pairs(parts_a: list[tuple[str, ...]], parts_b: list[tuple[str, ...]],
                   free_a: list[int], free_b: list[int], types_a: list[str], types_b: list[str]
                   ) -> list[Pair]:
    """Layers fused differently: mutual best partners sharing unique parts (same type first,
    then the most parts shared)."""
    owners_a: dict[str, list[int]] = defaultdict(list)
    owners_b: dict[str, list[int]] = defaultdict(list)
    for i in free_a:
        for part in set(parts_a[i]):
            owners_a[part].append(i)
    for j in free_b:
        for part in set(parts_b[j]):
            owners_b[part].append(j)
    shared: Counter[Pair] = Counter()
    for part, la in owners_a.items():
        lb = owners_b.get(part)
        if lb and len(la) == 1 and len(lb) == 1:
            shared[(la[0], lb[0])] += 1
    score = {(i, j): (types_a[i] == types_b[j], n) for (i, j), n in shared.items()}
    best_a: dict[int, Pair] = {}
    best_b: dict[int, Pair] = {}
    for pair in sorted(score):
        i, j = pair
        if i not in best_a or score[pair] > score[best_a[i]]:
            best_a[i] = pair
        if j not in best_b or score[pair] > score[best_b[j]]:
            best_b[j] = pair
    return sorted(p for p in best_a.values() if best_b[p[1]] == p)


def _name_parts(name: str) -> tuple[str, ...]:
    """Parts of a fused name that survive re-export (``layer2.0.conv2.weight``), not auto-numbered
    nodes (``Conv_84``), ``PWN(...)``, unnamed layers or reformats."""
    if name.startswith("Reformatting CopyNode"):
        return ()
    return tuple(p for p in (part.strip() for part in name.split(" + "))
                 if p and not _AUTO_PART.match(p))


def _keys(layers: list, rows: list[int], exact: bool) -> tuple[dict, dict, dict]:
    """Signature, first-tensors signature and type key of the given layers; Reformats (made for
    the formats an engine chose) and Unknown layers (names-only exports) get no type key."""
    sig, loose, kind = {}, {}, {}
    for i in rows:
        layer = layers[i]
        sig[i] = _signature(layer, exact)
        loose[i] = sig[i] if not exact else _signature(layer, False)
        kind[i] = None if layer.type in ("Reformat", "Unknown") else layer.type
    return sig, loose, kind


def _types_compatible(ta: str, tb: str) -> bool:
    return ta == tb or "Unknown" in (ta, tb)


def _match(plan_a: EnginePlan, plan_b: EnginePlan, exact: bool) -> dict[int, tuple[int, str]]:
    """``{row in A: (row in B, how)}`` for every matched pair of layers."""
    layers_a, layers_b = plan_a.layers, plan_b.layers
    matched: dict[int, tuple[int, str]] = {}
    taken_b: set[int] = set()

    def free() -> tuple[list[int], list[int]]:
        return ([i for i in range(len(layers_a)) if i not in matched],
                [j for j in range(len(layers_b)) if j not in taken_b])

    def record(pairs: list[Pair], kind: str) -> None:
        for i, j in pairs:
            matched[i] = (j, kind)
            taken_b.add(j)

    types_a = [layer.type for layer in layers_a]
    types_b = [layer.type for layer in layers_b]
    # 1. ONNX nodes: identical node sets, then differently fused layers sharing nodes.
    nodes_a, nodes_b = _onnx_nodes(plan_a), _onnx_nodes(plan_b)
    if any(nodes_a) and any(nodes_b):
        sets_a = [frozenset(n) if n else None for n in nodes_a]
        sets_b = [frozenset(n) if n else None for n in nodes_b]
        record(_unique_identity_pairs(sets_a, sets_b, *free()), "onnx")
        record(_overlap_pairs(nodes_a, nodes_b, *free(), types_a, types_b), "onnx")
    # 2. Layer names (unique within a plan) if the types agree, then stable parts of fused names.
    names_a = [layer.name for layer in layers_a]
    names_b = [layer.name for layer in layers_b]
    record([(i, j) for i, j in _unique_identity_pairs(names_a, names_b, *free())
            if _types_compatible(types_a[i], types_b[j])], "name")
    free_a, free_b = free()
    parts_a: list[tuple[str, ...]] = [()] * len(layers_a)
    parts_b: list[tuple[str, ...]] = [()] * len(layers_b)
    for i in free_a:
        parts_a[i] = _name_parts(names_a[i])
    for j in free_b:
        parts_b[j] = _name_parts(names_b[j])
    record(_overlap_pairs(parts_a, parts_b, free_a, free_b, types_a, types_b), "name")

    # Identity matches may cross; those in a common order cut both plans into segments.
    skeleton = _lis(sorted((i, j) for i, (j, _) in matched.items()))
    cut_a = [i for i, _ in skeleton]
    cut_b = [j for _, j in skeleton]
    seg_a: dict[int, list[int]] = defaultdict(list)
    seg_b: dict[int, list[int]] = defaultdict(list)
    free_a, free_b = free()
    for i in free_a:
        seg_a[bisect.bisect_left(cut_a, i)].append(i)
    for j in free_b:
        seg_b[bisect.bisect_left(cut_b, j)].append(j)

    # 3. Signatures, in order within each segment; in what is left between two matches, first
    # input and output shapes (any order), then 4. layer types (in order).
    sig_a, loose_a, type_a = _keys(layers_a, free_a, exact)
    sig_b, loose_b, type_b = _keys(layers_b, free_b, exact)
    for seg in sorted(seg_a.keys() & seg_b.keys()):
        rows_a, rows_b = seg_a[seg], seg_b[seg]
        ka, kb, weight = _interned([sig_a[i] for i in rows_a], [sig_b[j] for j in rows_b])
        pairs = diff(ka, kb, weight)
        record([(rows_a[x], rows_b[y]) for x, y in pairs], "signature")
        ends = [(-1, -1), *pairs, (len(rows_a), len(rows_b))]
        for (x0, y0), (x1, y1) in itertools.pairwise(ends):
            if x1 - x0 > 1 and y1 - y0 > 1:
                gap_a, gap_b = rows_a[x0 + 1:x1], rows_b[y0 + 1:y1]
                record(_unique_identity_pairs(loose_a, loose_b, gap_a, gap_b), "signature")
                gap_a = [i for i in gap_a if i not in matched]
                gap_b = [j for j in gap_b if j not in taken_b]
                ka, kb, weight = _interned([type_a[i] for i in gap_a], [type_b[j] for j in gap_b])
                record([(gap_a[x], gap_b[y]) for x, y in diff(ka, kb, weight)], "position")
    return matched


def _merged(matched: dict[int, tuple[int, str]], n_a: int, n_b: int
            ) -> list[tuple[int | None, int | None, str]]:
    """All layers of both plans in one graph order: (row A or None, row B or None, match)."""
    b_to_a = {j: i for i, (j, _) in matched.items()}
    out: list[tuple[int | None, int | None, str]] = []
    next_b = 0

    def flush(upto: int) -> None:
        nonlocal next_b
        while next_b < upto:
            if next_b not in b_to_a:
                out.append((None, next_b, "only-in-B"))
            next_b += 1

    for i in range(n_a):
        if i in matched:
            j, kind = matched[i]
            flush(j)
            out.append((i, j, kind))
        else:
            out.append((i, None, "only-in-A"))
    flush(n_b)
    return out


# --------------------------------------------------------------------------- public API
def align_layers(plan1: EnginePlan, plan2: EnginePlan, exact_matching: bool = True) -> pd.DataFrame:
    """One row per layer of either plan, in graph order: ``df`` rows ``a``/``b`` and ``match`` (onnx,
    name, signature, position for a pair; only-in-A or only-in-B), ``type``, ``name_a``/``name_b``."""
    matched = _match(plan1, plan2, exact_matching)
    rows = _merged(matched, len(plan1.layers), len(plan2.layers))
    types_a, types_b = plan1.df["type"].tolist(), plan2.df["type"].tolist()
    names_a, names_b = plan1.df["Name"].tolist(), plan2.df["Name"].tolist()
    return pd.DataFrame({
        "a": pd.array([a for a, _, _ in rows], dtype="Int64"),
        "b": pd.array([b for _, b, _ in rows], dtype="Int64"),
        "match": [kind for _, _, kind in rows],
        "type": [types_a[a] if a is not None else types_b[b] for a, b, _ in rows],
        "name_a": [names_a[a] if a is not None else "" for a, _, _ in rows],
        "name_b": [names_b[b] if b is not None else "" for _, b, _ in rows],
    })


def match_layers(plan1: EnginePlan, plan2: EnginePlan, exact_matching: bool = True
                 ) -> list[tuple[int | None, int | None]]:
    """TREx's alignment: ``(row in plan1 | None, row in plan2 | None)`` for every layer, in order;
    ``exact_matching=False`` compares only the first input and output shapes."""
    matched = _match(plan1, plan2, exact_matching)
    return [(a, b) for a, b, _ in _merged(matched, len(plan1.layers), len(plan2.layers))]


def match_counts(alignment: pd.DataFrame) -> dict[str, int]:
    """Rows per match kind of an alignment (every kind listed), then the only-in-X counts."""
    counts = alignment["match"].value_counts()
    only = sorted(k for k in counts.index if k not in MATCH_KINDS and k)
    return {kind: int(counts.get(kind, 0)) for kind in (*MATCH_KINDS, *only)}


def align_plans(plans: Sequence[EnginePlan], exact_matching: bool = True,
                names: Sequence[str] | None = None) -> pd.DataFrame:
    """N-way alignment of consecutive engines: per engine its ``df`` row (or NA) and ``<name> match``
    (link to the previous one); ``match`` is the row's weakest link, or only-in-<letter>."""
    if not plans:
        return pd.DataFrame()
    names = list(names) if names is not None else get_plans_names(plans)
    cells: list[list[int | None]] = []
    links: list[list[str]] = []
    row_of: list[dict[int, int]] = [{} for _ in plans]

    def new_row(k: int, layer: int) -> int:
        cells.append([None] * len(plans))
        links.append([""] * len(plans))
        cells[-1][k] = layer
        row_of[k][layer] = len(cells) - 1
        return len(cells) - 1

    order = [new_row(0, i) for i in range(len(plans[0].layers))]
    for k in range(1, len(plans)):
        prev, plan = plans[k - 1], plans[k]
        merged = _merged(_match(prev, plan, exact_matching), len(prev.layers), len(plan.layers))
        inserted: dict[int | None, list[int]] = defaultdict(list)
        last: int | None = None
        for a, b, kind in merged:
            if a is not None:
                last = row_of[k - 1][a]
                if b is not None:
                    cells[last][k] = b
                    links[last][k] = kind
                    row_of[k][b] = last
            elif b is not None:
                inserted[last].append(new_row(k, b))
        order = [*inserted.get(None, []),
                 *itertools.chain.from_iterable([r, *inserted.get(r, [])] for r in order)]

    types = [plan.df["type"].tolist() for plan in plans]
    data: dict[str, object] = {}
    data["type"] = [next(types[k][c] for k, c in enumerate(cells[r]) if c is not None)
                    for r in order]
    data["match"] = [_row_match(cells[r], links[r]) for r in order]
    for k, name in enumerate(names):
        data[name] = pd.array([cells[r][k] for r in order], dtype="Int64")
    for k, name in enumerate(names[1:], start=1):
        data[f"{name} match"] = [links[r][k] for r in order]
    return pd.DataFrame(data)


def _row_match(cells: list[int | None], links: list[str]) -> str:
    present = [k for k, c in enumerate(cells) if c is not None]
    if len(present) == 1:
        return f"only-in-{engine_letter(present[0])}"
    kinds = [kind for kind in links if kind]
    return max(kinds, key=_STRENGTH.__getitem__) if kinds else ""


def link_counts(alignment: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    """Per pair of consecutive engines in an :func:`align_plans` frame: pairs per match kind and
    layers found in only one of the two."""
    rows = []
    for prev, name in itertools.pairwise(names):
        kinds = alignment[f"{name} match"]
        has_prev, has_next = alignment[prev].notna(), alignment[name].notna()
        linked = kinds != ""
        rows.append({"from": prev, "to": name,
                     **{kind: int((kinds == kind).sum()) for kind in MATCH_KINDS},
                     "only in from": int((has_prev & ~linked).sum()),
                     "only in to": int((has_next & ~linked).sum())})
    return pd.DataFrame(rows, columns=["from", "to", *MATCH_KINDS, "only in from", "only in to"])
