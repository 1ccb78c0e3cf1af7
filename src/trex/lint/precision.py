"""Precision islands: FP32 (or FP16) compute between reduced-precision layers."""

from __future__ import annotations

import math

from ..compute.model import MOVE_TYPES
from .base import Finding, Linter, by_share, consumers, producers, r, rank

_NOT_COMPUTE = set(MOVE_TYPES) | {"shape_call", "Constant", "Unknown", "NoOp", "signal", "wait"}


class PrecisionIslandLinter(Linter):
    """Groups of higher-precision compute layers fed by and feeding reduced-precision layers."""

    name = "precision-islands"
    description = "FP32 (or FP16) islands inside a reduced-precision engine"
    error_pct = 20.0

    def check(self) -> list[Finding]:
        """One finding per group of higher-precision layers surrounded by the engine's precision."""
        layers = self.plan.layers
        compute = [i for i, layer in enumerate(layers) if layer.type not in _NOT_COMPUTE
                   and rank(layer.precision) is not None]
        if not compute:
            return []
        level = min(rank(layers[i].precision) for i in compute)
        if level == 2:
            return []  # an FP32 engine has no islands
        made_by = producers(layers)
        read_by = consumers(layers)
        high = {i for i in compute if rank(layers[i].precision) > level}
        engine = "/".join(sorted({layers[i].precision for i in compute
                                  if rank(layers[i].precision) == level}))

        def through_moves(start: list[int], step) -> set[int]:
            """Compute layers reached from ``start`` by walking over data-movement layers."""
            seen, found, todo = set(), set(), list(start)
            while todo and len(seen) < 64:
                j = todo.pop()
                if j in seen:
                    continue
                seen.add(j)
                if layers[j].type in _NOT_COMPUTE:
                    todo.extend(step(j))
                else:
                    found.add(j)
            return found

        def ups(j: int) -> list[int]:
            return [made_by[t.name] for t in layers[j].inputs if t.name in made_by]

        def downs(j: int) -> list[int]:
            return [c for t in layers[j].outputs for c in read_by.get(t.name, [])]

        # Union the high-precision layers connected (directly or over reformats) into islands.
        parent = {i: i for i in high}

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        neighbours: dict[int, tuple[set[int], set[int]]] = {}
        for i in high:
            up, down = through_moves(ups(i), ups), through_moves(downs(i), downs)
            neighbours[i] = (up, down)
            for j in up | down:
                if j in high:
                    parent[find(j)] = find(i)
        groups: dict[int, list[int]] = {}
        for i in sorted(high):
            groups.setdefault(find(i), []).append(i)

        lat = self.latencies
        out = []
        for members in groups.values():
            if 2 * len(members) > len(compute):
                continue  # most of the engine runs like this: its main precision, not an island
            inside = set(members)
            up = set().union(*(neighbours[i][0] for i in members)) - inside
            down = set().union(*(neighbours[i][1] for i in members)) - inside
            if not any(rank(layers[j].precision) == level for j in up) or \
                    not any(rank(layers[j].precision) == level for j in down):
                continue  # at the engine's boundary, not an island
            ms = float(sum(lat[j] for j in members if j < len(lat) and not math.isnan(lat[j])))
            pct = self.share(ms)
            precisions = sorted({layers[j].precision for j in members})
            evidence = {"layers": len(members)}
            if self.timed:
                evidence.update(latency_ms=r(ms), latency_pct=r(pct, 2))
            out.append(self.finding(
                layers[members[0]].name,
                "warning" if math.isnan(pct) else by_share(pct, 0.0, self.error_pct),
                f"{'/'.join(precisions)} island inside an engine running {engine}.",
                evidence,
                "Let these layers run in the engine's precision: add Q/DQ around them (INT8) or "
                "check which layer precision constraint or unsupported op keeps them in "
                f"{'/'.join(precisions)}; each island costs two conversions.",
                "Islands of higher precision need reformats in and out and run slower kernels.",
                island=" | ".join(layers[j].name for j in members),
                precision="/".join(precisions), **{"engine precision": engine}))
        return out


