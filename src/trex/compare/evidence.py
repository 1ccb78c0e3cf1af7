"""Structural evidence for layer alignment: weights counts, graph neighbours, shapes, confidence.

Names change between builds of one network (``quant_`` prefixes, Q/DQ nodes fused in, ONNX
renumbering) and fused names share components (a block-closing Add/ReLU fused into one conv in
FP16 and into another in INT8). What the graph says does not change: a layer's weights count, its
shapes and which layers feed it. Reformats (and Q/DQ layers, which are Reformats in engines) are
transparent here: they come and go with precisions, so neighbours are looked up through them.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

WEIGHTED_TYPES = frozenset({"Convolution", "ConvActPool", "Deconvolution", "gemm",
                            "MatrixMultiply", "FullyConnected"})
TRANSPARENT_TYPES = frozenset({"Reformat"})
ROOT, SINK = -1, -2  # virtual neighbours: what reads the network inputs / writes its outputs
CONFIDENCE = ("high", "medium", "low")
_MAX_CHAIN = 16  # reformats followed in a row when looking for neighbours


def weights_key(layer) -> int | None:
    """The weights count of a weighted layer (ConvActPool's ``ConvWeights`` included), else None.

    A count does not change with precision (FP32, FP16 and INT8 builds store the same number of
    weights), unlike the weights' bytes."""
    if layer.type not in WEIGHTED_TYPES:
        return None
    return int(layer.weights_cnt) if layer.weights_cnt else None


def node_key(layer) -> Hashable | None:
    """What identifies a layer among its neighbours: its weights count, else its type and output
    shapes without the batch dimension; None for transparent and unknown layers."""
    if layer.type in TRANSPARENT_TYPES or layer.type == "Unknown":
        return None
    weights = weights_key(layer)
    if weights is not None:
        return ("weights", weights)
    if not layer.outputs:
        return None
    return (layer.type, tuple(tuple(t.shape[1:]) for t in layer.outputs))


class Graph:
    """Data links between layers, looked up through transparent layers.

    A weighted layer's data input is its first input: the others are fused element-wise operands
    (the residual of a fused Add), and which convolution a block's Add fuses into changes between
    builds. Other layers read every input as data."""

    def __init__(self, layers: Sequence):
        n = len(layers)
        producer: dict[str, int] = {}
        for i, layer in enumerate(layers):
            for t in layer.outputs:
                producer.setdefault(t.name, i)
        pred: list[list[int]] = [[] for _ in range(n)]
        succ: list[list[int]] = [[] for _ in range(n)]
        for i, layer in enumerate(layers):
            for t in (layer.inputs[:1] if layer.type in WEIGHTED_TYPES else layer.inputs):
                k = producer.get(t.name)
                if k is not None and k != i:
                    pred[i].append(k)
                    succ[k].append(i)
        self._direct = (succ, pred)
        self._transparent = [layer.type in TRANSPARENT_TYPES for layer in layers]
        self._through: tuple[dict[int, list[int]], dict[int, list[int]]] = ({}, {})
        self._links: tuple[list[list[int] | None], list[list[int] | None]] = ([None] * n,
                                                                              [None] * n)
        self._ends: dict[int, list[int]] = {}

    def successors(self, i: int) -> list[int]:
        """Non-transparent layers reading what layer ``i`` writes (through reformats); for ROOT,
        the layers that read only network inputs; SINK has none."""
        if i < 0:
            return self._ends_of(ROOT) if i == ROOT else []
        return self._linked(i, 0)

    def predecessors(self, i: int) -> list[int]:
        """Non-transparent layers whose output layer ``i`` reads (through reformats); for SINK,
        the layers whose outputs nothing reads."""
        if i < 0:
            return self._ends_of(SINK) if i == SINK else []
        return self._linked(i, 1)

    def neighbours(self, i: int) -> list[int]:
        return self.successors(i) + self.predecessors(i)

    def _linked(self, i: int, side: int) -> list[int]:
        cached = self._links[side][i]
        if cached is None:
            out: list[int] = []
            for k in self._direct[side][i]:
                if self._transparent[k]:
                    out.extend(x for x in self._through_transparent(k, side, 0) if x != i)
                else:
                    out.append(k)
            cached = self._links[side][i] = list(dict.fromkeys(out))
        return cached

    def _through_transparent(self, k: int, side: int, depth: int) -> list[int]:
        """The non-transparent layers a transparent layer leads to, on one side (memoised)."""
        memo = self._through[side]
        if k not in memo:
            out: list[int] = []
            memo[k] = out  # a cycle of reformats ends here
            if depth < _MAX_CHAIN:
                for x in self._direct[side][k]:
                    out.extend(self._through_transparent(x, side, depth + 1)
                               if self._transparent[x] else [x])
        return memo[k]

    def _ends_of(self, end: int) -> list[int]:
        """ROOT's successors (layers without data predecessors) or SINK's predecessors."""
        if end not in self._ends:
            side = 1 if end == ROOT else 0
            self._ends[end] = [k for k in range(len(self._transparent))
                               if not self._transparent[k] and not self._linked(k, side)]
        return self._ends[end]


def propagate(graph_a: Graph, graph_b: Graph, keys_a: Sequence, keys_b: Sequence,
              matched: dict[int, int], taken_b: set[int]) -> list[tuple[int, int]]:
    """Pairs found by walking the graphs from matched pairs (and from the network inputs and
    outputs): among the free neighbours of a pair, layers whose key occurs once on each side."""
    found: list[tuple[int, int]] = []
    queue = deque([(ROOT, ROOT), (SINK, SINK), *matched.items()])
    left = min(len(keys_a) - len(matched), len(keys_b) - len(taken_b))
    while queue and left > len(found):
        i, j = queue.popleft()
        for side_a, side_b in ((graph_a.successors(i), graph_b.successors(j)),
                               (graph_a.predecessors(i), graph_b.predecessors(j))):
            free_a = [x for x in side_a if x not in matched and keys_a[x] is not None]
            if not free_a:
                continue
            free_b = [y for y in side_b if y not in taken_b and keys_b[y] is not None]
            if not free_b:
                continue
            if len(free_a) == 1 and len(free_b) == 1:  # the common case: a chain
                x, y = free_a[0], free_b[0]
                if keys_a[x] == keys_b[y]:
                    matched[x] = y
                    taken_b.add(y)
                    found.append((x, y))
                    queue.append((x, y))
                continue
            count_a = Counter(keys_a[x] for x in free_a)
            count_b = Counter(keys_b[y] for y in free_b)
            where = {keys_b[y]: y for y in free_b if count_b[keys_b[y]] == 1}
            for x in free_a:
                key = keys_a[x]
                y = where.get(key)
                if y is None or count_a[key] != 1 or y in taken_b:
                    continue
                matched[x] = y
                taken_b.add(y)
                found.append((x, y))
                queue.append((x, y))
    return found


def neighbours_agree(x: int, y: int, graph_a: Graph, graph_b: Graph, matched: dict[int, int],
                     taken_b: set[int]) -> bool | None:
    """Do the matched neighbours of ``x`` (in A) correspond to matched neighbours of ``y`` (in B)?
    The network's inputs and outputs count as matched neighbours; None when either side has no
    matched neighbour to compare."""
    around = _with_ends(graph_a, x)
    mapped = {n for n in around if n < 0} | {matched[n] for n in around if n >= 0 and n in matched}
    seen = {n for n in _with_ends(graph_b, y) if n < 0 or n in taken_b}
    if not mapped or not seen:
        return None
    return bool(mapped & seen)


def _with_ends(graph: Graph, i: int) -> list[int]:
    """Neighbours of ``i``, with ROOT when it reads only network inputs and SINK when nothing reads
    its outputs."""
    succ, pred = graph.successors(i), graph.predecessors(i)
    return [*succ, *pred, *([ROOT] if not pred else []), *([SINK] if not succ else [])]


@dataclass
class PairEvidence:
    """What supports (and contradicts) one pair of aligned layers."""

    onnx: bool = False
    name: bool = False
    identity: bool = False  # the same ONNX node set or the same layer name
    names_differ: bool = False  # a shared fragment, but each layer holds its own part of one kind
    weights: bool | None = None  # equal weights counts (None: not both weighted)
    shapes: bool = False  # same type and tensor shapes (without the batch dimension)
    neighbours: bool | None = None  # matched neighbours correspond (None: none to compare)
    types: bool = True  # the same layer type (an Unknown type of names-only exports agrees)

    def facts(self) -> list[str]:
        """The evidence as words: ``["weights", "shapes", "neighbours"]``, contradictions marked."""
        out = []
        if self.onnx:
            out.append("onnx nodes")
        if self.names_differ:
            out.append("names differ")
        elif self.name:
            out.append("same name" if self.identity and not self.onnx else "name")
        for label, value in (("weights", self.weights), ("neighbours", self.neighbours)):
            if value is True:
                out.append(label)
            elif value is False:
                out.append(f"{label} differ")
        if self.shapes:
            out.append("shapes")
        if not self.types:
            out.append("types differ")
        return out

    def confidence(self) -> str:
        """``high``: an identity, or two independent facts (weights, shapes, neighbours, a name
        fragment) and no contradiction; ``medium``: one fact; ``low``: a contradiction (weights,
        neighbours, layer types or names that differ), or only the position in the graph order."""
        if (self.weights is False or self.neighbours is False or not self.types
                or self.names_differ):
            return "low"
        structural = sum(bool(v) for v in (self.weights, self.shapes, self.neighbours))
        if self.identity or structural + (self.onnx or self.name) >= 2:
            return "high"
        if structural or self.onnx or self.name:
            return "medium"
        return "low"
