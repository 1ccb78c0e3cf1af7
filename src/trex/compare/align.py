"""Align the layers of engines: identities first, then structure, then names, then order.

1. The same ONNX node set (TensorRT 8.6+ ``Metadata``), the same layer name, or the same name
   but for quantisation prefixes and suffixes (``quant_conv1``, ``conv1_quant``: :mod:`.names`).
2. Graph structure (:mod:`.structure`): from matched pairs and from the network's inputs and
   outputs, neighbours whose weights count (or type and output shapes) occurs once on each side.
3. Shared fragments (ONNX nodes, stable parts of fused names) unless structure or the names
   contradict them: weights counts that differ, matched neighbours that do not correspond, or
   each layer holding its own part of one kind (two convolutions joined by a fused Add/ReLU).
4. In graph order between matched pairs: signatures (type and shapes), then first input and output
   shapes, then types (:mod:`.sequence`, near-linear).

Each pair's ``match`` is its strongest evidence (onnx, name, signature, position) and
``confidence`` (high, medium, low) says how much supports it; ``evidence`` lists it. Different
layer types, names that contradict each other, weights counts or neighbours that differ make a
pair ``low``.
"""

from __future__ import annotations

import bisect
import itertools
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence
from functools import cached_property
from typing import TYPE_CHECKING

import pandas as pd

from ..model.profiles import strip_profile
from .evidence import (
    CONFIDENCE,
    WEIGHTED_TYPES,
    Graph,
    PairEvidence,
    neighbours_agree,
    node_key,
    propagate,
    weights_key,
)
from .names import name_parts, names_conflict, unquantised
from .sequence import diff, interned, lis

if TYPE_CHECKING:
    from ..model.plan import EnginePlan

MATCH_KINDS = ("onnx", "name", "signature", "position")
_STRENGTH = {kind: i for i, kind in enumerate(MATCH_KINDS)}
_ELEMENTWISE = {"PointWise", "ElementWise"}
_FRAGMENT_ROUNDS = 16  # rounds of fragment matching, each checked against the previous ones

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
                   free_a: list[int], free_b: list[int], types_a: list[str], types_b: list[str],
                   allowed: Callable[[int, int], bool] = lambda i, j: True) -> list[Pair]:
    """Layers fused differently: mutual best partners sharing unique parts (same type first,
    then the most parts shared) among the pairs that ``allowed`` does not veto."""
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
    score = {(i, j): (types_a[i] == types_b[j], n) for (i, j), n in shared.items()
             if allowed(i, j)}
    best_a: dict[int, Pair] = {}
    best_b: dict[int, Pair] = {}
    for pair in sorted(score):
        i, j = pair
        if i not in best_a or score[pair] > score[best_a[i]]:
            best_a[i] = pair
        if j not in best_b or score[pair] > score[best_b[j]]:
            best_b[j] = pair
    return sorted(p for p in best_a.values() if best_b[p[1]] == p)


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
    return ta == tb or "Unknown" in (ta, tb) or (ta in WEIGHTED_TYPES and tb in WEIGHTED_TYPES)


class _Matcher:
    """One alignment of two plans: the passes, then the evidence of every pair."""

    def __init__(self, plan_a: EnginePlan, plan_b: EnginePlan, exact: bool):
        self.plan_a, self.plan_b, self.exact = plan_a, plan_b, exact
        self.layers_a, self.layers_b = plan_a.layers, plan_b.layers
        self.types_a = [layer.type for layer in self.layers_a]
        self.types_b = [layer.type for layer in self.layers_b]
        self.weights_a = [weights_key(layer) for layer in self.layers_a]
        self.weights_b = [weights_key(layer) for layer in self.layers_b]
        self.nodes_a, self.nodes_b = _onnx_nodes(plan_a), _onnx_nodes(plan_b)
        self.matched: dict[int, int] = {}  # row in A -> row in B
        self.taken_b: set[int] = set()
        self.identity: set[int] = set()  # rows of A paired by ONNX node set or layer name

    # ------------------------------------------------------------------ helpers
    @cached_property
    def graph_a(self) -> Graph:
        return Graph(self.layers_a)

    @cached_property
    def graph_b(self) -> Graph:
        return Graph(self.layers_b)

    def all_matched(self) -> bool:
        return len(self.matched) == len(self.layers_a) or len(self.taken_b) == len(self.layers_b)

    def free(self) -> tuple[list[int], list[int]]:
        return ([i for i in range(len(self.layers_a)) if i not in self.matched],
                [j for j in range(len(self.layers_b)) if j not in self.taken_b])

    def record(self, pairs: Iterable[Pair]) -> int:
        added = 0
        for i, j in pairs:
            if i not in self.matched and j not in self.taken_b and self.compatible(i, j):
                self.matched[i] = j
                self.taken_b.add(j)
                added += 1
        return added

    def compatible(self, i: int, j: int) -> bool:
        """Structure vetoes a pair: known weights counts that differ, or incompatible types."""
        wa, wb = self.weights_a[i], self.weights_b[j]
        if wa is not None and wb is not None and wa != wb:
            return False
        return _types_compatible(self.types_a[i], self.types_b[j])

    def fragments(self, parts_a: list[tuple[str, ...]], parts_b: list[tuple[str, ...]]) -> None:
        """Pairs sharing fragments, accepted in rounds while their matched neighbours correspond
        (or none is matched yet): each round's pairs give the next round neighbours to check."""
        def allowed(i: int, j: int) -> bool:
            return self.compatible(i, j) and not names_conflict(parts_a[i], parts_b[j])

        for _ in range(_FRAGMENT_ROUNDS):
            if self.all_matched():
                return
            free_a, free_b = self.free()
            pairs = _overlap_pairs(parts_a, parts_b, free_a, free_b, self.types_a, self.types_b,
                                   allowed)
            agreed = [(i, j) for i, j in pairs
                      if neighbours_agree(i, j, self.graph_a, self.graph_b, self.matched,
                                          self.taken_b) is not False]
            if not self.record(agreed):
                return

    # ------------------------------------------------------------------ passes
    def run(self) -> dict[int, int]:
        nodes_a, nodes_b = self.nodes_a, self.nodes_b
        with_onnx = any(nodes_a) and any(nodes_b)
        # 1. Identities: the same ONNX node set, then the same layer name.
        if with_onnx:
            sets_a = [frozenset(n) if n else None for n in nodes_a]
            sets_b = [frozenset(n) if n else None for n in nodes_b]
            self.record(_unique_identity_pairs(sets_a, sets_b, *self.free()))
        # A layer's name without its "[profile N]" suffix: profiles of one engine pair by name.
        names_a = [strip_profile(layer.name) for layer in self.layers_a]
        names_b = [strip_profile(layer.name) for layer in self.layers_b]
        self.record(_unique_identity_pairs(names_a, names_b, *self.free()))
        self.record(_unique_identity_pairs([unquantised(n) for n in names_a],
                                           [unquantised(n) for n in names_b], *self.free()))
        self.identity = set(self.matched)
        if self.all_matched():
            return self.matched
        # 2. Structure: neighbours of matched pairs (and of the network's inputs and outputs)
        # whose weights count, or type and output shapes, occur once on each side.
        keys_a = [node_key(layer) for layer in self.layers_a]
        keys_b = [node_key(layer) for layer in self.layers_b]
        propagate(self.graph_a, self.graph_b, keys_a, keys_b, self.matched, self.taken_b)
        # 3. Shared fragments (ONNX nodes, stable parts of fused names) where structure agrees.
        if with_onnx:
            self.fragments(nodes_a, nodes_b)
        free_a, free_b = self.free()
        parts_a: list[tuple[str, ...]] = [()] * len(self.layers_a)
        parts_b: list[tuple[str, ...]] = [()] * len(self.layers_b)
        for i in free_a:
            parts_a[i] = name_parts(names_a[i])
        for j in free_b:
            parts_b[j] = name_parts(names_b[j])
        self.fragments(parts_a, parts_b)
        self._ordered_passes()
        return self.matched

    def _ordered_passes(self) -> None:
        """What is left, in order between matched pairs: signatures, then first input and output
        shapes (any order), then layer types."""
        skeleton = lis(sorted(self.matched.items()))
        cut_a = [i for i, _ in skeleton]
        cut_b = [j for _, j in skeleton]
        seg_a: dict[int, list[int]] = defaultdict(list)
        seg_b: dict[int, list[int]] = defaultdict(list)
        free_a, free_b = self.free()
        for i in free_a:
            seg_a[bisect.bisect_left(cut_a, i)].append(i)
        for j in free_b:
            seg_b[bisect.bisect_left(cut_b, j)].append(j)
        sig_a, loose_a, type_a = _keys(self.layers_a, free_a, self.exact)
        sig_b, loose_b, type_b = _keys(self.layers_b, free_b, self.exact)
        for seg in sorted(seg_a.keys() & seg_b.keys()):
            rows_a, rows_b = seg_a[seg], seg_b[seg]
            ka, kb, weight = interned([sig_a[i] for i in rows_a], [sig_b[j] for j in rows_b])
            pairs = diff(ka, kb, weight)
            self.record((rows_a[x], rows_b[y]) for x, y in pairs)
            ends = [(-1, -1), *pairs, (len(rows_a), len(rows_b))]
            for (x0, y0), (x1, y1) in itertools.pairwise(ends):
                if x1 - x0 > 1 and y1 - y0 > 1:
                    gap_a, gap_b = rows_a[x0 + 1:x1], rows_b[y0 + 1:y1]
                    self.record(_unique_identity_pairs(loose_a, loose_b, gap_a, gap_b))
                    gap_a = [i for i in gap_a if i not in self.matched]
                    gap_b = [j for j in gap_b if j not in self.taken_b]
                    ka, kb, weight = interned([type_a[i] for i in gap_a],
                                              [type_b[j] for j in gap_b])
                    self.record((gap_a[x], gap_b[y]) for x, y in diff(ka, kb, weight))

    # ------------------------------------------------------------------ evidence
    def evidence(self) -> dict[int, PairEvidence]:
        """What supports each pair (computed once all pairs are known). Neighbours are not looked
        up for identities (the same ONNX node set or name), which weights and types still check."""
        nodes_a, nodes_b = self.nodes_a, self.nodes_b
        out: dict[int, PairEvidence] = {}
        for i, j in self.matched.items():
            la, lb = self.layers_a[i], self.layers_b[j]
            onnx = bool(nodes_a[i]) and bool(set(nodes_a[i]) & set(nodes_b[j]))
            same_name = la.name == lb.name or unquantised(la.name) == unquantised(lb.name)
            identity = i in self.identity or same_name or (
                onnx and set(nodes_a[i]) == set(nodes_b[j]))
            parts_a, parts_b = name_parts(la.name), name_parts(lb.name)
            wa, wb = self.weights_a[i], self.weights_b[j]
            sig = _signature(la, self.exact) if la.type == lb.type else None
            out[i] = PairEvidence(
                onnx=onnx,
                name=same_name or bool(set(parts_a) & set(parts_b)),
                identity=identity,
                names_differ=not identity and (names_conflict(parts_a, parts_b) or names_conflict(
                    nodes_a[i], nodes_b[j])),
                weights=None if wa is None or wb is None else wa == wb,
                shapes=sig is not None and sig == _signature(lb, self.exact),
                neighbours=None if identity else neighbours_agree(
                    i, j, self.graph_a, self.graph_b, self.matched, self.taken_b),
                types=la.type == lb.type or "Unknown" in (la.type, lb.type))
        return out


def _kind(evidence: PairEvidence) -> str:
    """A pair's match kind, its strongest evidence: ONNX nodes, names, the signature (type and
    shapes, or weights count), else the position (in the graph or in order)."""
    if evidence.onnx:
        return "onnx"
    if evidence.name:
        return "name"
    if evidence.shapes or evidence.weights:
        return "signature"
    return "position"


def _match_details(plan_a: EnginePlan, plan_b: EnginePlan, exact: bool
                   ) -> tuple[dict[int, tuple[int, str]], dict[int, PairEvidence]]:
    """The pairs with their kinds, and the evidence of each (keyed by the row in A). The cyclic
    garbage collector is paused: its passes over big plans' objects would cost more than the
    alignment, which creates no reference cycles."""
    from ..perf import gc_paused

    with gc_paused():
        matcher = _Matcher(plan_a, plan_b, exact)
        matched = matcher.run()
        evidence = matcher.evidence()
    return {i: (j, _kind(evidence[i])) for i, j in matched.items()}, evidence


def _match(plan_a: EnginePlan, plan_b: EnginePlan, exact: bool) -> dict[int, tuple[int, str]]:
    """``{row in A: (row in B, how)}`` for every matched pair of layers."""
    return _match_details(plan_a, plan_b, exact)[0]


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
    name, signature, position for a pair; only-in-A or only-in-B), ``type``, ``name_a``/``name_b``,
    ``confidence`` of a pair (high, medium, low; empty for a layer in one plan) and ``evidence``
    (what supports it: ``weights, shapes, neighbours``; contradictions as ``weights differ``)."""
    matched, evidence = _match_details(plan1, plan2, exact_matching)
    rows = _merged(matched, len(plan1.layers), len(plan2.layers))
    types_a, types_b = plan1.df["type"].tolist(), plan2.df["type"].tolist()
    names_a, names_b = plan1.df["Name"].tolist(), plan2.df["Name"].tolist()
    found = [evidence.get(a) if a is not None and b is not None else None for a, b, _ in rows]
    return pd.DataFrame({
        "a": pd.array([a for a, _, _ in rows], dtype="Int64"),
        "b": pd.array([b for _, b, _ in rows], dtype="Int64"),
        "match": [kind for _, _, kind in rows],
        "type": [types_a[a] if a is not None else types_b[b] for a, b, _ in rows],
        "name_a": [names_a[a] if a is not None else "" for a, _, _ in rows],
        "name_b": [names_b[b] if b is not None else "" for _, b, _ in rows],
        "confidence": [e.confidence() if e else "" for e in found],
        "evidence": [", ".join(e.facts()) if e else "" for e in found],
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
    """N-way alignment of consecutive engines: per engine its ``df`` row (or NA), ``<name> match``
    and ``<name> confidence`` (link to the previous one); ``match`` is the row's weakest link, or
    only-in-<letter>, and ``confidence`` its least confident link."""
    if not plans:
        return pd.DataFrame()
    names = list(names) if names is not None else get_plans_names(plans)
    cells: list[list[int | None]] = []
    links: list[list[str]] = []
    sure: list[list[str]] = []
    row_of: list[dict[int, int]] = [{} for _ in plans]

    def new_row(k: int, layer: int) -> int:
        cells.append([None] * len(plans))
        links.append([""] * len(plans))
        sure.append([""] * len(plans))
        cells[-1][k] = layer
        row_of[k][layer] = len(cells) - 1
        return len(cells) - 1

    order = [new_row(0, i) for i in range(len(plans[0].layers))]
    for k in range(1, len(plans)):
        prev, plan = plans[k - 1], plans[k]
        matched, evidence = _match_details(prev, plan, exact_matching)
        merged = _merged(matched, len(prev.layers), len(plan.layers))
        inserted: dict[int | None, list[int]] = defaultdict(list)
        last: int | None = None
        for a, b, kind in merged:
            if a is not None:
                last = row_of[k - 1][a]
                if b is not None:
                    cells[last][k] = b
                    links[last][k] = kind
                    sure[last][k] = evidence[a].confidence()
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
    data["confidence"] = [max((c for c in sure[r] if c), key=CONFIDENCE.index, default="")
                          for r in order]
    for k, name in enumerate(names):
        data[name] = pd.array([cells[r][k] for r in order], dtype="Int64")
    for k, name in enumerate(names[1:], start=1):
        data[f"{name} match"] = [links[r][k] for r in order]
        data[f"{name} confidence"] = [sure[r][k] for r in order]
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
