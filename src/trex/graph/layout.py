"""A layered (Sugiyama-style) layout for large graphs, linear in nodes and edges (bar sorting).

Layers by longest path in topological order (cycles broken at the earliest remaining node; a loop's
back-edges left out), dummy nodes on edges spanning several layers (within a budget), barycentric
ordering sweeps, then x coordinates by isotonic regression so that chains stay straight and nodes
never overlap. A hub's edges (see :mod:`trex.graph.hubs`) share one bus: a chain of dummies beside
the graph with one tap per layer of the hub's consumers, so the hub costs O(layers it spans) and
its fan of long edges becomes one line with short branches. Every step is one pass over nodes and
edges, or a sort of one layer's row: O((V + E) log V) overall.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

import numpy as np

LAYER_GAP = 40.0  # vertical space between layers
NODE_GAP = 24.0  # horizontal space between neighbours in a layer
DUMMY_WIDTH = 8.0
MAX_SPAN_WITH_DUMMIES = 64  # longer edges are drawn straight, without dummy nodes
DUMMY_BUDGET_FACTOR = 4  # at most this many dummies per real node
ORDER_SWEEPS = 4
PLACEMENT_SWEEPS = 4
BACK_EDGE_OFFSET = 30.0  # how far right of its ends a loop's back-edge curves

Point = tuple[float, float]


@dataclass
class Bus:
    """Edges drawn as one bus: ``edges`` (indices) all leave ``node`` (``out``) or enter it (``in``)."""

    node: int
    edges: list[int]
    direction: str = "out"


@dataclass
class Layout:
    """Node centres, canvas size, one polyline (list of points) per input edge and one per bus.

    An edge on a bus is routed as its short branch between the bus and its other end."""

    x: list[float]
    y: list[float]
    width: float
    height: float
    routes: list[list[Point]]
    layers: list[int]
    dummies: int
    buses: list[list[Point]] = field(default_factory=list)


def topological_layers(n: int, edges: Sequence[tuple[int, int]],
                       back: Collection[int] = ()) -> tuple[list[int], list[bool]]:
    """Longest-path layer of each node and, per edge, whether it goes forward (not a back edge).

    Edges whose index is in ``back`` (a loop's back-edges) are left out of the layering."""
    succ: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    skip = set(back)
    for i, (s, t) in enumerate(edges):
        if s != t and i not in skip:
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
    for i, (s, t) in enumerate(edges):
        if i not in skip:
            connected[s] = connected[t] = True
    previous = 0
    for v in range(n):
        if connected[v]:
            previous = layer[v]
        else:
            layer[v] = previous
    return layer, forward


_topological_layers = topological_layers  # the name before buses existed


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


def _mean_of(x: list[float], first: list[int], second: Sequence[int], default: float) -> float:
    """The mean x of the nodes ``first`` then ``second`` (summed in that order), else ``default``."""
    total_x, count = 0.0, 0
    for u in first:
        total_x += x[u]
        count += 1
    for u in second:
        total_x += x[u]
        count += 1
    return total_x / count if count else default


def layered_layout(widths: Sequence[float], heights: Sequence[float],
                   edges: Sequence[tuple[int, int]], buses: Sequence[Bus] = (),
                   back: Collection[int] = (),
                   layering: tuple[list[int], list[bool]] | None = None) -> Layout:
    """Lay out nodes of the given sizes top-down; ``edges`` are (source, target) indices.

    ``buses`` group a hub's edges onto one bus; ``back`` are a loop's back-edges (routed up the
    right side); ``layering`` is :func:`topological_layers`'s result when the caller has it."""
    n = len(widths)
    if n == 0:
        return Layout([], [], 0.0, 0.0, [[] for _ in edges], [], 0, [[] for _ in buses])
    layer, forward = layering if layering is not None else topological_layers(n, edges, back)
    width = list(widths)
    layer_of = list(layer)
    up: list[list[int]] = [[] for _ in range(n)]  # neighbours in the layer above
    down: list[list[int]] = [[] for _ in range(n)]  # neighbours in the layer below
    chains: list[list[int] | None] = [None] * len(edges)
    budget = DUMMY_BUDGET_FACTOR * n + 1000

    def dummy(at_layer: int) -> int:
        d = len(layer_of)
        layer_of.append(at_layer)
        width.append(DUMMY_WIDTH)
        up.append([])
        down.append([])
        return d

    def connect(a: int, b: int, force: bool = False) -> list[int] | None:
        """Link ``a`` to ``b`` (a lower layer) through dummies and return them; None when the
        edge is too long for dummies (linked directly only when ``force``)."""
        nonlocal budget
        span = layer_of[b] - layer_of[a]
        inner: list[int] = []
        if 1 < span <= MAX_SPAN_WITH_DUMMIES and budget >= span - 1:
            budget -= span - 1
            inner = [dummy(layer_of[a] + k) for k in range(1, span)]
        elif span != 1 and not force:
            return None
        for u, v in zip([a, *inner], [*inner, b]):
            down[u].append(v)
            up[v].append(u)
        return inner

    taps: dict[int, tuple[int, bool]] = {}  # bussed edge -> (bus node of its branch, outgoing)
    paths = [_bus_path(bus, edges, forward, layer_of, dummy, connect, taps) for bus in buses]
    for i, (s, t) in enumerate(edges):
        if s == t or not forward[i] or i in taps:
            continue
        if layer_of[t] - layer_of[s] == 1:  # connect's usual case: no dummies
            down[s].append(t)
            up[t].append(s)
            chains[i] = [s, t]
            continue
        inner = connect(s, t)
        if inner is not None:
            chains[i] = [s, *inner, t]
    total = len(layer_of)
    nlayers = max(layer_of) + 1
    rows: list[list[int]] = [[] for _ in range(nlayers)]
    for v in range(total):  # real nodes in input order, then dummies: a sensible start
        rows[layer_of[v]].append(v)
    pos = [0.0] * total
    for row in rows:
        for i, v in enumerate(row):
            pos[v] = float(i)

    # Rows of one node are neither re-ordered nor packed: the passes visit the others only.
    multi = [li for li in range(nlayers) if len(rows[li]) > 1]

    def sweep(layers: list[int], adj: list[list[int]]) -> None:
        """Order each row by the mean position of its neighbours in ``adj`` (ties: as it was)."""
        for li in layers:
            row = rows[li]
            keys = []
            for v in row:
                nb = adj[v]
                if not nb:
                    keys.append((pos[v], pos[v], v))
                elif len(nb) == 1:
                    keys.append((pos[nb[0]] / 1, pos[v], v))  # sum([p]) / 1: p
                else:
                    keys.append((sum([pos[u] for u in nb]) / len(nb), pos[v], v))
            if len(keys) == 2:
                if keys[1] < keys[0]:
                    row[0], row[1] = row[1], row[0]
                    pos[row[0]], pos[row[1]] = 0.0, 1.0
                continue
            keys.sort()
            row[:] = [k[2] for k in keys]
            for i, v in enumerate(row):
                pos[v] = float(i)

    for k in range(ORDER_SWEEPS):
        if k % 2 == 0:
            sweep([li for li in multi if li >= 1], up)
        else:
            sweep([li for li in reversed(multi) if li <= nlayers - 2], down)

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
    # each row's packed offsets (the rows keep their order from here on)
    offsets_of: list[list[float] | None] = [None] * nlayers
    for li, row in enumerate(rows):
        if len(row) > 1:
            offsets = [0.0] * len(row)
            for i in range(1, len(row)):
                offsets[i] = offsets[i - 1] + (width[row[i - 1]] + width[row[i]]) / 2 + NODE_GAP
            offsets_of[li] = offsets

    single = [row[0] if len(row) == 1 else -1 for row in rows]  # a layer's one node

    def relax(layers: range, adj: list[list[int]]) -> None:
        """Each node to the mean x of its neighbours in ``adj``, a row kept in order and apart
        (isotonic regression of the wanted positions less the packed offsets)."""
        for li in layers:
            v = single[li]
            if v >= 0:  # a node alone in its layer goes where its neighbours want it
                nb = adj[v]
                if nb:
                    total_x = 0.0
                    for u in nb:
                        total_x += x[u]
                    x[v] = total_x / len(nb) + 0.0
                else:
                    x[v] += 0.0
                continue
            row = rows[li]
            desired = []
            for v in row:
                nb = adj[v]
                if nb:
                    total_x = 0.0
                    for u in nb:
                        total_x += x[u]
                    desired.append(total_x / len(nb))
                else:
                    desired.append(x[v])
            _fit(row, desired, offsets_of[li])

    def relax_both(layers: range) -> None:
        """:func:`relax` towards the neighbours above and below."""
        for li in layers:
            v = single[li]
            if v >= 0:
                x[v] = _mean_of(x, up[v], down[v], x[v]) + 0.0
                continue
            row = rows[li]
            _fit(row, [_mean_of(x, up[v], down[v], x[v]) for v in row], offsets_of[li])

    def _fit(row: list[int], desired: list[float], offsets: list[float] | None) -> None:
        if offsets is None:  # an empty layer
            return
        if len(row) == 2:  # pool adjacent violators on two values
            first, second = desired[0], desired[1] - offsets[1]
            if first > second:
                first = second = (second + first) / 2
            x[row[0]] = first + offsets[0]
            x[row[1]] = second + offsets[1]
            return
        fitted = _isotonic([d - o for d, o in zip(desired, offsets)])
        for v, f, o in zip(row, fitted, offsets):
            x[v] = f + o

    for k in range(PLACEMENT_SWEEPS):
        if k % 2 == 0:
            relax(range(1, nlayers), up)
        else:
            relax(range(nlayers - 2, -1, -1), down)
    relax_both(range(nlayers))

    # y coordinates: each layer as tall as its tallest node.
    margin = 20.0
    layer_at = np.asarray(layer_of, dtype=np.int64)
    layer_height = np.zeros(nlayers)
    np.maximum.at(layer_height, layer_at[:n], np.asarray(heights, dtype=np.float64))
    bottoms = np.cumsum(layer_height + LAYER_GAP)  # added in order, as a running sum would
    layer_top = np.concatenate(([0.0], bottoms[:-1]))
    cursor = float(bottoms[-1])
    y = (layer_top[layer_at] + layer_height[layer_at] / 2 + margin).tolist()

    half = np.asarray(width, dtype=np.float64) / 2
    xs = np.asarray(x, dtype=np.float64)
    min_x = float((xs - half).min())
    max_x = float((xs + half).max())
    dx = margin - min_x
    x = (xs + dx).tolist()
    canvas_w = max_x - min_x + 2 * margin
    canvas_h = cursor - LAYER_GAP + 2 * margin

    def top(v: int) -> Point:
        return (x[v], y[v] - heights[v] / 2) if v < n else (x[v], y[v])

    def bottom(v: int) -> Point:
        return (x[v], y[v] + heights[v] / 2) if v < n else (x[v], y[v])

    back_set = set(back)
    routes: list[list[Point]] = []
    for i, (s, t) in enumerate(edges):
        chain = chains[i]
        if s == t:
            routes.append([])
        elif i in taps:
            tap, outgoing = taps[i]
            routes.append([bottom(tap), top(t)] if outgoing else [bottom(s), top(tap)])
        elif i in back_set:
            right = max(x[s] + width[s] / 2, x[t] + width[t] / 2) + BACK_EDGE_OFFSET
            routes.append([(x[s] + width[s] / 2, y[s]), (right, (y[s] + y[t]) / 2),
                           (x[t] + width[t] / 2, y[t])])
        elif chain is None or len(chain) == 2:
            routes.append([(x[s], y[s] + heights[s] / 2), (x[t], y[t] - heights[t] / 2)])
        else:
            route = [(x[s], y[s] + heights[s] / 2)]
            route.extend([(x[d], y[d]) for d in chain[1:-1]])
            route.append((x[t], y[t] - heights[t] / 2))
            routes.append(route)
    bus_routes = []
    for bus, path in zip(buses, paths):
        if len(path) < 2:
            bus_routes.append([])
        elif bus.direction == "in":
            bus_routes.append([*((x[d], y[d]) for d in path[:-1]), top(path[-1])])
        else:
            bus_routes.append([bottom(path[0]), *((x[d], y[d]) for d in path[1:])])
    return Layout(x[:n], y[:n], canvas_w, canvas_h, routes, layer_of[:n], total - n, bus_routes)


def _bus_path(bus: Bus, edges: Sequence[tuple[int, int]], forward: list[bool], layer_of: list[int],
              dummy: Callable[[int], int], connect: Callable[..., list[int] | None],
              taps: dict[int, tuple[int, bool]]) -> list[int]:
    """Build one bus: a tap per layer of the hub's other ends, chained; returns the bus's nodes
    from top to bottom (the hub first for ``out``, last for ``in``) and fills ``taps``."""
    hub = bus.node
    outgoing = bus.direction != "in"
    by_layer: dict[int, list[int]] = {}
    for i in bus.edges:
        s, t = edges[i]
        if not forward[i] or (s if outgoing else t) != hub or s == t:
            continue
        other = t if outgoing else s
        by_layer.setdefault(layer_of[other], []).append(i)
    path = [hub] if outgoing else []
    prev = hub if outgoing else None
    for other_layer in sorted(by_layer):
        tap_layer = other_layer - 1 if outgoing else other_layer + 1
        if tap_layer == layer_of[hub]:
            tap = hub
        else:
            tap = dummy(tap_layer)
            if prev is not None:
                path.extend(connect(prev, tap, True) or ())
            path.append(tap)
        for i in by_layer[other_layer]:
            s, t = edges[i]
            if outgoing:
                connect(tap, t)
            else:
                connect(s, tap)
            taps[i] = (tap, outgoing)
        prev = tap
    if not outgoing and by_layer:
        if prev != hub:
            path.extend(connect(prev, hub, True) or ())
        path.append(hub)
    return path
