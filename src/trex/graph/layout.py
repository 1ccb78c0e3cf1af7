"""A layered (Sugiyama-style) layout for large graphs, near-linear in nodes and edges.

Layers by longest path in topological order (cycles broken at the earliest remaining node),
dummy nodes on edges spanning several layers (within a budget), barycentric ordering sweeps, then
x coordinates by isotonic regression so that chains stay straight and nodes never overlap.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

LAYER_GAP = 40.0  # vertical space between layers
NODE_GAP = 24.0  # horizontal space between neighbours in a layer
DUMMY_WIDTH = 8.0
MAX_SPAN_WITH_DUMMIES = 64  # longer edges are drawn straight, without dummy nodes
DUMMY_BUDGET_FACTOR = 4  # at most this many dummies per real node
ORDER_SWEEPS = 4
PLACEMENT_SWEEPS = 4


@dataclass
class Layout:
    """Node centres, canvas size and one polyline (list of points) per input edge."""

    x: list[float]
    y: list[float]
    width: float
    height: float
    routes: list[list[tuple[float, float]]]
    layers: list[int]
    dummies: int


def _topological_layers(n: int, edges: Sequence[tuple[int, int]]) -> tuple[list[int], list[bool]]:
    """Longest-path layer of each node and, per edge, whether it goes forward (not a back edge)."""
    succ: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    for i, (s, t) in enumerate(edges):
        if s != t:
            succ[s].append(i)
            indeg[t] += 1
    layer = [0] * n
    done = [False] * n
    forward = [False] * len(edges)
    queue = deque(v for v in range(n) if indeg[v] == 0)
    scan = 0
    processed = 0
    while processed < n:
        if not queue:
            # A cycle: release the earliest unprocessed node; its remaining in-edges become back edges.
            while done[scan]:
                scan += 1
            queue.append(scan)
            indeg[scan] = 0
        v = queue.popleft()
        if done[v]:
            continue
        done[v] = True
        processed += 1
        for i in succ[v]:
            t = edges[i][1]
            if done[t]:
                continue
            forward[i] = True
            if layer[v] + 1 > layer[t]:
                layer[t] = layer[v] + 1
            indeg[t] -= 1
            if indeg[t] == 0:
                queue.append(t)
    # Pull sources (inputs, constants) down next to their first consumer.
    has_pred = [False] * n
    for i, (_, t) in enumerate(edges):
        if forward[i]:
            has_pred[t] = True
    for v in range(n):
        if not has_pred[v]:
            below = [layer[edges[i][1]] for i in succ[v] if forward[i]]
            if below:
                layer[v] = max(layer[v], min(below) - 1)
    # Isolated nodes sit beside the node before them in input (execution) order.
    connected = [False] * n
    for s, t in edges:
        connected[s] = connected[t] = True
    previous = 0
    for v in range(n):
        if connected[v]:
            previous = layer[v]
        else:
            layer[v] = previous
    return layer, forward


def _isotonic(targets: list[float]) -> list[float]:
    """Non-decreasing sequence closest (least squares) to ``targets`` (pool adjacent violators)."""
    sums: list[float] = []
    counts: list[int] = []
    for t in targets:
        s, c = t, 1
        while sums and sums[-1] / counts[-1] > s / c:
            s += sums.pop()
            c += counts.pop()
        sums.append(s)
        counts.append(c)
    out: list[float] = []
    for s, c in zip(sums, counts):
        out.extend([s / c] * c)
    return out


def layered_layout(widths: Sequence[float], heights: Sequence[float],
                   edges: Sequence[tuple[int, int]]) -> Layout:
    """Lay out nodes of the given sizes top-down; ``edges`` are (source, target) indices."""
    n = len(widths)
    if n == 0:
        return Layout([], [], 0.0, 0.0, [[] for _ in edges], [], 0)
    layer, forward = _topological_layers(n, edges)
    width = list(widths)
    layer_of = list(layer)
    up: list[list[int]] = [[] for _ in range(n)]  # neighbours in the layer above
    down: list[list[int]] = [[] for _ in range(n)]  # neighbours in the layer below
    chains: list[list[int] | None] = [None] * len(edges)
    budget = DUMMY_BUDGET_FACTOR * n + 1000
    for i, (s, t) in enumerate(edges):
        if s == t or not forward[i]:
            continue
        span = layer_of[t] - layer_of[s]
        if span == 1:
            down[s].append(t)
            up[t].append(s)
            chains[i] = [s, t]
        elif 1 < span <= MAX_SPAN_WITH_DUMMIES and budget >= span - 1:
            budget -= span - 1
            chain = [s]
            prev = s
            for k in range(1, span):
                d = len(layer_of)
                layer_of.append(layer_of[s] + k)
                width.append(DUMMY_WIDTH)
                up.append([prev])
                down.append([])
                down[prev].append(d)
                chain.append(d)
                prev = d
            down[prev].append(t)
            up[t].append(prev)
            chain.append(t)
            chains[i] = chain
    total = len(layer_of)
    nlayers = max(layer_of) + 1
    rows: list[list[int]] = [[] for _ in range(nlayers)]
    for v in range(total):  # real nodes in input order, then dummies: a sensible start
        rows[layer_of[v]].append(v)
    pos = [0.0] * total
    for row in rows:
        for i, v in enumerate(row):
            pos[v] = float(i)

    def sweep(layers: range, adj: list[list[int]]) -> None:
        for li in layers:
            row = rows[li]
            keys = []
            for v in row:
                nb = adj[v]
                keys.append((sum(pos[u] for u in nb) / len(nb) if nb else pos[v], pos[v], v))
            keys.sort()
            row[:] = [k[2] for k in keys]
            for i, v in enumerate(row):
                pos[v] = float(i)

    for k in range(ORDER_SWEEPS):
        if k % 2 == 0:
            sweep(range(1, nlayers), up)
        else:
            sweep(range(nlayers - 2, -1, -1), down)

    # x coordinates: pack each layer, then pull nodes towards their neighbours.
    x = [0.0] * total
    for row in rows:
        cursor = 0.0
        for v in row:
            x[v] = cursor + width[v] / 2
            cursor += width[v] + NODE_GAP
        shift = (cursor - NODE_GAP) / 2
        for v in row:
            x[v] -= shift

    def place(row: list[int], desired: list[float]) -> None:
        offsets = [0.0] * len(row)
        for i in range(1, len(row)):
            offsets[i] = offsets[i - 1] + (width[row[i - 1]] + width[row[i]]) / 2 + NODE_GAP
        fitted = _isotonic([d - o for d, o in zip(desired, offsets)])
        for v, f, o in zip(row, fitted, offsets):
            x[v] = f + o

    def relax(layers: range, adjs: tuple[list[list[int]], ...]) -> None:
        for li in layers:
            row = rows[li]
            desired = []
            for v in row:
                total_x, count = 0.0, 0
                for adj in adjs:
                    for u in adj[v]:
                        total_x += x[u]
                        count += 1
                desired.append(total_x / count if count else x[v])
            place(row, desired)

    for k in range(PLACEMENT_SWEEPS):
        if k % 2 == 0:
            relax(range(1, nlayers), (up,))
        else:
            relax(range(nlayers - 2, -1, -1), (down,))
    relax(range(nlayers), (up, down))

    # y coordinates: each layer as tall as its tallest node.
    layer_height = [0.0] * nlayers
    for v in range(n):
        layer_height[layer_of[v]] = max(layer_height[layer_of[v]], heights[v])
    top = [0.0] * nlayers
    cursor = 0.0
    for li in range(nlayers):
        top[li] = cursor
        cursor += layer_height[li] + LAYER_GAP
    y = [top[layer_of[v]] + layer_height[layer_of[v]] / 2 for v in range(total)]

    margin = 20.0
    min_x = min(x[v] - width[v] / 2 for v in range(total))
    max_x = max(x[v] + width[v] / 2 for v in range(total))
    dx = margin - min_x
    x = [value + dx for value in x]
    y = [value + margin for value in y]
    canvas_w = max_x - min_x + 2 * margin
    canvas_h = cursor - LAYER_GAP + 2 * margin

    routes: list[list[tuple[float, float]]] = []
    for i, (s, t) in enumerate(edges):
        chain = chains[i]
        start = (x[s], y[s] + heights[s] / 2)
        end = (x[t], y[t] - heights[t] / 2)
        if s == t:
            routes.append([])
        elif chain is None:
            routes.append([start, end])
        else:
            routes.append([start, *((x[d], y[d]) for d in chain[1:-1]), end])
    return Layout(x[:n], y[:n], canvas_w, canvas_h, routes, layer_of[:n], total - n)
