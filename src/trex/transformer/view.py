"""The transformer view of a plan: attention sites, RoPE and KV-cache updates, and the blocks.

An attention *site* is either one fused attention layer (or a run of adjacent ones:
``AttentionInput`` + ``AttentionOutput``) or a decomposed chain ``MatMul -> [glue] -> Softmax ->
[glue] -> MatMul`` whose two GEMMs both multiply activations (Q.K^T and P.V; a classifier's
softmax after a weight GEMM is not attention), found through the tensors that connect the layers.
From each site the Q, K and V inputs are followed back through elementwise and data-movement
layers: a ``RotaryEmbedding`` layer met there is dedicated RoPE, elementwise layers rotating Q
(an elementwise layer with two activation inputs on the Q path, or names saying rotary/cos/sin)
are RoPE done by a chain; a ``KVCacheUpdate`` layer is a dedicated cache update, a concatenation
or scatter reading an engine input or writing an engine output (or named past/present/cache) is a
cache update done by a chain. Blocks group the layers around each site: by the block index the
ONNX node names give (``/model/layers.3/...``) when every site has one, else by structure (from
the last norm before a site to the layer before the next block's).

Positions are rows of ``plan.df`` (``plan.rows``); needs detailed layer information (tensors).
"""

from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from ..model.plan import EnginePlan
from . import layer_roles as R
from .layer_roles import LayerRole, layer_role

MAX_HOPS = 4  # glue layers between a softmax and its GEMMs
MAX_PATH = 12  # glue layers followed back from an attention input
_ELEMENTWISE = frozenset({"PointWise", "PointWiseV2", "ElementWise", "kgen", "Activation", "Unary",
                          "Scale", "Myelin"})
_CACHE_KINDS = frozenset({"Concatenation", "Scatter", "Slice", "ElementWise", "PointWise", "Copy",
                          "kgen", "Myelin", "Gather", "Select", "Reformat"})
_NAMED = ("attention", "attn", "kvcache", "kv_cache", "rotary")  # names that say attention
# Kinds whose kernels may compute softmax or fused attention inside (Myelin, plugins, unknown).
_OPAQUE = frozenset({"kgen", "gemm", "myelin", "customlayer", "pluginv2", "pluginv3", "plugin",
                     "unknown", "foreignnode"})


@dataclass(frozen=True)
class AttentionSite:
    """One attention: fused (its layers) or decomposed (the MatMul..Softmax..MatMul chain)."""

    kind: str  # "fused" or "decomposed"
    positions: tuple[int, ...]  # plan.df rows, engine order
    anchor: int  # the fused layer or the softmax
    query_len: int | None  # Sq: 1 in a decode step
    kv_len: int | None  # Skv: the cache length attended over
    heads: int | None
    kv_heads: int | None
    head_dim: int | None
    kv_tensors: tuple[str, ...]  # the K and V tensors read (the cache where one is found)
    kv_bytes: int  # their bytes
    latency_ms: float | None


@dataclass(frozen=True)
class Chain:
    """Layers doing one job (RoPE or a KV-cache update) for one site: dedicated or elementwise."""

    kind: str  # "dedicated", "elementwise" or "none"
    positions: tuple[int, ...] = ()
    latency_ms: float | None = None


@dataclass(frozen=True)
class Block:
    """One transformer block: its layers, attention sites, RoPE and cache updates, GEMMs, norms."""

    index: int
    positions: tuple[int, ...]
    sites: tuple[AttentionSite, ...]
    rope: Chain
    kv_cache: Chain
    gemms: int  # GEMMs outside attention (projections, MLP)
    norms: int
    moe: int
    collectives: int
    latency_ms: float | None

    @property
    def fused(self) -> int:
        """Fused attention sites in the block."""
        return sum(s.kind == "fused" for s in self.sites)

    @property
    def decomposed(self) -> int:
        """Decomposed (MatMul->Softmax->MatMul) attention sites in the block."""
        return sum(s.kind == "decomposed" for s in self.sites)


@dataclass
class TransformerView:
    """What :func:`transformer_view` found; empty ``blocks`` for a network without attention."""

    blocks: list[Block] = field(default_factory=list)
    sites: list[AttentionSite] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)  # per plan.df row
    grouping: str = ""  # "ONNX Metadata" or "structure": how blocks were delimited
    stage: str | None = None  # "prefill", "decode" or None (mixed or unknown)
    note: str = ""  # why nothing could be found

    def __bool__(self) -> bool:
        return bool(self.blocks)


def transformer_view(plan: EnginePlan) -> TransformerView:
    """The plan's :class:`TransformerView` (computed on first use, then kept with the plan)."""
    cached = plan.__dict__.get("_transformer_view")
    if cached is None:
        cached = plan.__dict__["_transformer_view"] = _view(plan)
    return cached


# ------------------------------------------------------------------ the plan's dataflow
class _Flow:
    """Per df row: non-constant input and output tensor ids, producers, consumers, sizes."""

    def __init__(self, plan: EnginePlan):
        table, rows = plan.table, plan.rows
        self.table = table
        place = np.full(len(table), -1, dtype=np.int64)
        place[np.asarray(rows, dtype=np.int64)] = np.arange(len(rows))
        k = place[table.use_row]
        keep = (k >= 0) & ~table.constant
        self.ins: list[list[int]] = [[] for _ in rows]
        self.outs: list[list[int]] = [[] for _ in rows]
        self.shape: dict[int, int] = {}  # tensor id -> shape id of its largest view
        sizes = table.shape_size
        for pos, out, name, sid in zip(k[keep].tolist(), table.use_output[keep].tolist(),
                                       table.use_name[keep].tolist(),
                                       table.use_shape[keep].tolist()):
            (self.outs if out else self.ins)[pos].append(name)
            if sizes[sid] > sizes[self.shape.get(name, sid)] or name not in self.shape:
                self.shape[name] = sid
        self.producer: dict[int, int] = {}
        self.consumers: dict[int, list[int]] = {}
        for pos, outs in enumerate(self.outs):
            for t in outs:
                self.producer[t] = pos
        for pos, ins in enumerate(self.ins):
            for t in ins:
                self.consumers.setdefault(t, []).append(pos)
        in_names, out_names = plan.get_bindings()
        index = {n: i for i, n in enumerate(table.tensor_names)}
        self.engine_in = {index[t.name] for t in in_names if t.name in index}
        self.engine_out = {index[t.name] for t in out_names if t.name in index}
        self.engine_in |= {t for ins in self.ins for t in ins if t not in self.producer}

    def dims(self, tensor: int) -> tuple[int, ...]:
        return tuple(self.table.shapes[self.shape[tensor]][1]) if tensor in self.shape else ()

    def size(self, tensor: int) -> int:
        return self.table.shape_size[self.shape[tensor]] if tensor in self.shape else 0

    def name(self, tensor: int) -> str:
        return self.table.tensor_names[tensor]

    def touches_cache(self, pos: int) -> bool:
        """The layer writes an engine output, or reads an engine input shaped like its output
        but along one axis (a cache before the new tokens are added)."""
        if any(t in self.engine_out for t in self.outs[pos]):
            return True
        outs = [self.dims(t) for t in self.outs[pos]]
        for t in self.ins[pos]:
            if t not in self.engine_in:
                continue
            dims = self.dims(t)
            if any(len(o) == len(dims) >= 3 and sum(a != b for a, b in zip(o, dims)) == 1
                   for o in outs):
                return True
        return False

    def source_of(self, tensor: int, pos: int) -> int:
        """The input of ``pos`` that ``tensor`` (one of its outputs) comes from: the input at
        the same place when the layer has as many inputs as outputs (a Myelin kernel expanding
        K and V together), else the largest."""
        ins, outs = self.ins[pos], self.outs[pos]
        if len(ins) == len(outs) and tensor in outs:
            return ins[outs.index(tensor)]
        return max(ins, key=self.size)


# ------------------------------------------------------------------ finding the sites
def _view(plan: EnginePlan) -> TransformerView:
    if not _maybe_attention(plan, strict=not plan.detailed):
        return TransformerView()
    if not plan.detailed:
        return TransformerView(note="the layer names suggest attention, but finding it needs "
                                    "detailed layer information (tensors connect the layers): "
                                    "build with --profilingVerbosity=detailed")
    table, rows = plan.table, plan.rows
    role_of = [layer_role(table.types[i], table.subtypes[i], table.names[i],
                          table.tactic_names[i], table.onnx_nodes[i]) for i in rows]
    roles = [r.role for r in role_of]
    flow = _Flow(plan)
    lat = np.asarray(plan.latency.avg, dtype="float64")
    types = [table.types[i] for i in rows]
    sites = _fused_sites(roles, role_of, flow, lat, types) + \
        _decomposed_sites(roles, flow, lat, types)
    sites.sort(key=lambda s: s.anchor)
    view = TransformerView(sites=sites, roles=roles)
    if not sites:
        return view
    chains = [_chains(site, roles, role_of, flow, lat, types) for site in sites]
    view.blocks, view.grouping = _blocks(sites, chains, roles, role_of, lat)
    lengths = {s.query_len for s in sites}
    if lengths == {1}:
        view.stage = "decode"
    elif lengths and None not in lengths and min(lengths) > 1:  # type: ignore[type-var]
        view.stage = "prefill"
    return view


def _maybe_attention(plan: EnginePlan, strict: bool = False) -> bool:
    """A cheap look for anything attention-like before the per-layer work (big CNNs skip it);
    ``strict`` (names only, nothing to check it by): attention named, or several softmaxes."""
    table = plan.table
    distinct = set(table.types) | set(table.subtypes)
    kinds = {R._key(k) for k in distinct}
    if any(R._DEDICATED.get(k) in (R.ATTENTION, R.KV_CACHE, R.ROPE) for k in kinds):
        return True
    if not strict and any(R._DEDICATED.get(k) == R.SOFTMAX for k in kinds):
        return True
    rows = range(len(table))
    if not strict:  # a softmax or fused attention can only hide in Myelin or plugin kernels
        hiding = {k for k in distinct if R._key(k) in _OPAQUE}
        if not hiding:
            return False
        rows = [i for i in rows if table.types[i] in hiding or table.subtypes[i] in hiding]
    text = "\n".join((*(table.names[i] for i in rows),
                      *(table.tactic_names[i] or "" for i in rows),
                      *(n for i in rows for n in table.onnx_nodes[i]))).lower()
    named = any(word in text for word in _NAMED)  # substring search: a regex is 10x slower
    if not strict:
        return named or "softmax" in text or "mha" in text
    return named or text.count("softmax") >= 2


def _ms(lat: np.ndarray, positions: Iterable[int]) -> float | None:
    values = [lat[p] for p in positions if p < len(lat) and not math.isnan(lat[p])]
    return float(sum(values)) if values else None


def _qkv(flow: _Flow, pos: int) -> list[int]:
    return flow.ins[pos]


def _fused_sites(roles: list[str], role_of: list[LayerRole], flow: _Flow, lat: np.ndarray,
                 types: list[str]) -> list[AttentionSite]:
    runs: list[list[int]] = []
    for pos, role in enumerate(roles):
        if role != R.ATTENTION:
            continue
        if runs and runs[-1][-1] == pos - 1 and role_of[pos].block == role_of[pos - 1].block:
            runs[-1].append(pos)
        else:
            runs.append([pos])
    sites = []
    for run in runs:
        main = max(run, key=lambda p: len(flow.ins[p]))  # the layer that reads Q, K and V
        ins = flow.ins[main]
        q = ins[0] if ins else None
        k = ins[1] if len(ins) > 1 else None
        v = ins[2] if len(ins) > 2 else None
        qd = flow.dims(q) if q is not None else ()
        kd = flow.dims(k) if k is not None else ()
        kv = [_cache_tensor(t, roles, flow, types) for t in (k, v) if t is not None]
        sites.append(AttentionSite(
            "fused", tuple(run), main, _dim(qd, -2), _dim(kd, -2), _dim(qd, -3), _dim(kd, -3),
            _dim(qd, -1), tuple(flow.name(t) for t in kv), sum(flow.size(t) for t in kv),
            _ms(lat, run)))
    return sites


def _dim(dims: tuple[int, ...], axis: int) -> int | None:
    if len(dims) < (3 if axis == -2 else 4 if axis == -3 else 1) or len(dims) < -axis:
        return None
    value = int(dims[axis])
    return value if value > 0 else None


def _is_activation_gemm(pos: int, roles: list[str], flow: _Flow) -> bool:
    return roles[pos] == R.GEMM and len(flow.ins[pos]) >= 2


def _walk(start: list[int], step, accept, through, limit: int) -> list[int] | None:
    """Breadth-first from the positions ``start`` over ``step(pos)`` through positions
    ``through`` accepts, up to ``limit`` hops; the path (start..found) to the first ``accept``."""
    queue = deque((p, (p,)) for p in start)
    seen = set(start)
    while queue:
        pos, path = queue.popleft()
        if accept(pos):
            return list(path)
        if len(path) > limit or not through(pos):
            continue
        for nxt in step(pos):
            if nxt not in seen:
                seen.add(nxt)
                queue.append((nxt, (*path, nxt)))
    return None


def _decomposed_sites(roles: list[str], flow: _Flow, lat: np.ndarray, types: list[str]
                      ) -> list[AttentionSite]:
    def back(pos: int) -> list[int]:
        return [flow.producer[t] for t in flow.ins[pos] if t in flow.producer]

    def forward(pos: int) -> list[int]:
        return [c for t in flow.outs[pos] for c in flow.consumers.get(t, ())]

    def gemm(pos: int) -> bool:
        return _is_activation_gemm(pos, roles, flow)

    def glue(pos: int) -> bool:
        return roles[pos] in (R.GLUE, R.OTHER)

    sites = []
    for s, role in enumerate(roles):
        if role != R.SOFTMAX:
            continue
        up = _walk(back(s), back, gemm, glue, MAX_HOPS)
        down = _walk(forward(s), forward, gemm, glue, MAX_HOPS)
        if not up or not down:
            continue
        g1, g2 = up[-1], down[-1]
        positions = tuple(sorted({*up, s, *down}))
        out = flow.dims(flow.outs[g1][0]) if flow.outs[g1] else ()
        q, k = flow.ins[g1][0], flow.ins[g1][1]
        on_path = {t for p in positions for t in flow.outs[p]}
        v = next((t for t in flow.ins[g2] if t not in on_path), flow.ins[g2][-1])
        qd = flow.dims(q)
        kv = [_cache_tensor(t, roles, flow, types) for t in (k, v)]
        vd = flow.dims(kv[1])  # the cache's heads (GQA), not those of an expanded copy
        sites.append(AttentionSite(
            "decomposed", positions, s, _dim(out, -2), _dim(out, -1), _dim(qd, -3),
            _dim(vd, -3), _dim(vd, -1), tuple(flow.name(t) for t in kv),
            sum(flow.size(t) for t in kv), _ms(lat, positions)))
    return sites


def _cache_tensor(tensor: int, roles: list[str], flow: _Flow, types: list[str]) -> int:
    """The KV cache behind an attention's K or V input: the output of the cache update (dedicated
    or a concatenation that reads or writes the engine's cache) found back through data movement;
    else the input itself."""
    seen: set[int] = set()
    current = tensor
    for _ in range(MAX_PATH):
        pos = flow.producer.get(current)
        if pos is None or pos in seen:
            break
        seen.add(pos)
        if roles[pos] == R.KV_CACHE or (roles[pos] == R.GLUE and types[pos] in _CACHE_KINDS
                                        and flow.touches_cache(pos)):
            outs = flow.outs[pos]
            return max(outs, key=flow.size) if outs else current
        if roles[pos] not in (R.GLUE, R.OTHER) or not flow.ins[pos]:
            break
        current = flow.source_of(current, pos)
    return tensor


def _path_back(tensor: int | None, roles: list[str], flow: _Flow) -> list[int]:
    """Positions met following ``tensor`` back through glue, RoPE and cache-update layers."""
    out: list[int] = []
    if tensor is None:
        return out
    queue, seen = deque([tensor]), set()
    while queue and len(out) < MAX_PATH:
        pos = flow.producer.get(queue.popleft())
        if pos is None or pos in seen:
            continue
        seen.add(pos)
        if roles[pos] not in (R.GLUE, R.OTHER, R.ROPE, R.KV_CACHE):
            continue
        out.append(pos)
        queue.extend(flow.ins[pos])
    return out


def _chains(site: AttentionSite, roles: list[str], role_of: list[LayerRole], flow: _Flow,
            lat: np.ndarray, types: list[str]) -> tuple[Chain, Chain]:
    """(RoPE, KV-cache update) of one site."""
    if site.kind == "fused":
        ins = flow.ins[site.anchor]
        first_gemm = None
    else:
        first_gemm = next(p for p in site.positions if roles[p] == R.GEMM)
        ins = flow.ins[first_gemm]
        second = [p for p in site.positions if roles[p] == R.GEMM][-1]
        on_path = {t for p in site.positions for t in flow.outs[p]}
        ins = ins[:2] + [t for t in flow.ins[second] if t not in on_path][:1]
    q_path = _path_back(ins[0] if ins else None, roles, flow)
    kv_paths = [p for t in ins[1:3] for p in _path_back(t, roles, flow)]
    inside = set(site.positions)
    q_path = [p for p in q_path if p not in inside]
    kv_paths = [p for p in kv_paths if p not in inside]
    cache_dedicated = [p for p in kv_paths if roles[p] == R.KV_CACHE]
    cache_chain = [p for p in kv_paths if roles[p] == R.GLUE and types[p] in _CACHE_KINDS
                   and (flow.touches_cache(p) or role_of[p].cache_hint)]
    kv = _chain(cache_dedicated, cache_chain, lat)
    cache = set(cache_dedicated) | set(cache_chain)
    rope_dedicated = [p for p in (*q_path, *kv_paths) if roles[p] == R.ROPE]
    candidates = [p for p in dict.fromkeys((*q_path, *kv_paths)) if roles[p] == R.GLUE
                  and p not in cache and not role_of[p].movement]
    rotates = any(role_of[p].rope_hint for p in candidates) or any(
        types[p] in _ELEMENTWISE and len(flow.ins[p]) >= 2 for p in q_path if p in candidates)
    rope = _chain(rope_dedicated, candidates if rotates and not rope_dedicated else [], lat)
    return rope, kv


def _chain(dedicated: list[int], elementwise: list[int], lat: np.ndarray) -> Chain:
    if dedicated:
        positions = tuple(sorted(set(dedicated)))
        return Chain("dedicated", positions, _ms(lat, positions))
    if elementwise:
        positions = tuple(sorted(set(elementwise)))
        return Chain("elementwise", positions, _ms(lat, positions))
    return Chain("none")


# ------------------------------------------------------------------ blocks
def _blocks(sites: list[AttentionSite], chains: list[tuple[Chain, Chain]], roles: list[str],
            role_of: list[LayerRole], lat: np.ndarray) -> tuple[list[Block], str]:
    indices = [_site_block(site, role_of) for site in sites]
    members = Counter(r.block for r in role_of if r.block is not None)
    if all(i is not None for i in indices) and len(set(indices)) == len(sites) and \
            indices == sorted(indices) and all(members[i] >= 3 for i in indices):  # type: ignore[type-var]
        spans = _metadata_spans(indices, role_of)  # type: ignore[arg-type]
        grouping = "ONNX Metadata"
    else:
        spans = _structural_spans(sites, roles)
        indices = list(range(len(sites)))
        grouping = "structure"
    blocks = []
    for n, (site, (rope, kv), positions) in enumerate(zip(sites, chains, spans)):
        inside = set(site.positions)
        blocks.append(Block(
            index=int(indices[n]) if indices[n] is not None else n,
            positions=positions, sites=(site,), rope=rope, kv_cache=kv,
            gemms=sum(roles[p] == R.GEMM and p not in inside for p in positions),
            norms=_runs(p for p in positions if roles[p] == R.NORM),
            moe=sum(roles[p] == R.MOE for p in positions),
            collectives=sum(roles[p] == R.COLLECTIVE for p in positions),
            latency_ms=_ms(lat, positions)))
    return blocks, grouping


def _runs(positions: Iterable[int]) -> int:
    """Runs of consecutive positions (a norm split into reduce + pointwise layers is one norm)."""
    count, last = 0, -2
    for p in positions:
        count += p != last + 1
        last = p
    return count


def _site_block(site: AttentionSite, role_of: list[LayerRole]) -> int | None:
    for p in (site.anchor, *site.positions):
        if role_of[p].block is not None:
            return role_of[p].block
    return None


def _metadata_spans(indices: list[int], role_of: list[LayerRole]) -> list[tuple[int, ...]]:
    members: dict[int, list[int]] = {i: [] for i in indices}
    for pos, role in enumerate(role_of):
        if role.block in members:
            members[role.block].append(pos)
    spans = []
    for i in indices:
        first, last = members[i][0], members[i][-1]
        spans.append(tuple(range(first, last + 1)))
    return spans


def _structural_spans(sites: list[AttentionSite], roles: list[str]) -> list[tuple[int, ...]]:
    """Block k: from the last norm before site k (after site k-1) to the layer before block k+1's
    start; the last block ends where the norms after it exceed the per-block count (the final
    norm before the head), else at the last layer."""
    starts = []
    previous_end = -1
    for site in sites:
        first = min(site.positions)
        norms = [p for p in range(previous_end + 1, first) if roles[p] == R.NORM]
        start = norms[-1] if norms else previous_end + 1
        while norms and start - 1 > previous_end and roles[start - 1] == R.NORM:
            start -= 1  # a norm made of several layers starts at its first
        starts.append(start)
        previous_end = max(site.positions)
    n = len(roles)
    ends = [s - 1 for s in starts[1:]]
    last = max(sites[-1].positions)
    per_block = _runs(p for p in range(starts[0], starts[1]) if roles[p] == R.NORM) \
        if len(starts) > 1 else 2
    after = [p for p in range(last + 1, n) if roles[p] == R.NORM]
    end = n - 1
    if per_block >= 1 and _runs(after) >= per_block:  # a final norm: the block ends before it
        run_starts = [p for p in after if p - 1 not in after]
        end = run_starts[per_block - 1] - 1
    ends.append(end)
    return [tuple(range(s, e + 1)) for s, e in zip(starts, ends)]
