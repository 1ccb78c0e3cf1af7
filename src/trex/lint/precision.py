"""Precision islands (FP32 or FP16 compute between reduced-precision layers) and the math
FP32 layers run (TF32 Tensor Cores)."""

from __future__ import annotations

import math

from ..compute.costs import GEMM_TYPES, MOVE_TYPES
from .base import ENGINE, Finding, Linter, by_share, r, rank

_NOT_COMPUTE = set(MOVE_TYPES) | {"shape_call", "Constant", "Unknown", "NoOp", "signal", "wait"}


class PrecisionIslandLinter(Linter):
    """Groups of higher-precision compute layers fed by and feeding reduced-precision layers."""

    name = "precision-islands"
    description = "FP32 (or FP16) islands inside a reduced-precision engine"
    error_pct = 20.0

    def check(self) -> list[Finding]:
        """One finding per group of higher-precision layers surrounded by the engine's precision."""
        facts = self.facts
        types, precisions, names = facts.types, facts.precisions, facts.names
        ranks = [rank(p) for p in precisions]
        compute = [i for i, kind in enumerate(types) if kind not in _NOT_COMPUTE
                   and ranks[i] is not None]
        if not compute:
            return []
        level = min(ranks[i] for i in compute)  # type: ignore[type-var]
        if level == 2:
            return []  # an FP32 engine has no islands
        made_by = facts.producers
        read_by = facts.consumers
        high = {i for i in compute if ranks[i] > level}  # type: ignore[operator]
        engine = "/".join(sorted({precisions[i] for i in compute  # type: ignore[misc]
                                  if ranks[i] == level}))

        def through_moves(start: list[int], step) -> set[int]:
            """Compute layers reached from ``start`` by walking over data-movement layers."""
            seen, found, todo = set(), set(), list(start)
            while todo and len(seen) < 64:
                j = todo.pop()
                if j in seen:
                    continue
                seen.add(j)
                if types[j] in _NOT_COMPUTE:
                    todo.extend(step(j))
                else:
                    found.add(j)
            return found

        def ups(j: int) -> list[int]:
            return [made_by[t] for t in facts.input_names(j) if t in made_by]

        def downs(j: int) -> list[int]:
            return [c for t in facts.output_names(j) for c in read_by.get(t, [])]

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
            if not any(ranks[j] == level for j in up) or \
                    not any(ranks[j] == level for j in down):
                continue  # at the engine's boundary, not an island
            ms = float(sum(lat[j] for j in members if j < len(lat) and not math.isnan(lat[j])))
            pct = self.share(ms)
            island = sorted({precisions[j] for j in members})
            evidence = {"layers": len(members)}
            if self.timed:
                evidence.update(latency_ms=r(ms), latency_pct=r(pct, 2))
            out.append(self.finding(
                names[members[0]],
                "warning" if math.isnan(pct) else by_share(pct, 0.0, self.error_pct),
                f"{'/'.join(island)} island inside an engine running {engine}.",
                evidence,
                "Let these layers run in the engine's precision: add Q/DQ around them (INT8) or "
                "check which layer precision constraint or unsupported op keeps them in "
                f"{'/'.join(island)}; each island costs two conversions.",
                "Islands of higher precision need reformats in and out and run slower kernels.",
                island=" | ".join(names[j] for j in members),
                precision="/".join(island), **{"engine precision": engine}))
        return out




def _matrix_kind(kind: str, subtype: str) -> bool:
    """A convolution or GEMM (by type and subtype): the layers whose math Tensor Cores can run."""
    return kind in ("Convolution", "Deconvolution", "ConvActPool", *GEMM_TYPES) or \
        subtype in GEMM_TYPES


class MathPrecisionLinter(Linter):
    """FP32 layers whose kernels run TF32 Tensor Core math (one engine finding, info): why an FP32
    engine is only about 2x slower than FP16 on Ampere and later, not 8x."""

    name = "math-precision"
    description = "FP32 layers running TF32 Tensor Core math (kernel names)"

    def check(self) -> list[Finding]:
        """One info finding when some FP32 layers run TF32, with the math of every FP32 layer."""
        facts = self.facts
        maths = self.plan.column("math_precision")  # the df's has NaN where a Layer's is None
        fp32 = [(i, m) for i, (precision, m) in enumerate(zip(facts.precisions, maths))
                if precision == "FP32" and type(m) is str
                and _matrix_kind(facts.types[i], facts.subtypes[i])]
        tf32 = [(i, m) for i, m in fp32 if m.startswith("TF32")]
        if not tf32:
            return []
        counts: dict[str, int] = {}
        for _, m in fp32:
            counts[m] = counts.get(m, 0) + 1
        ms = float(sum(self.latencies[i] for i, _ in tf32 if not math.isnan(self.latencies[i]))) \
            if self.timed else math.nan
        evidence: dict[str, object] = {"tf32_layers": len(tf32), "fp32_layers_with_math": len(fp32),
                                       **{f"math {k}": v for k, v in counts.items()}}
        if self.timed:
            evidence.update(tf32_ms=r(ms), tf32_pct=r(self.share(ms), 2))
        return [self.finding(
            ENGINE, "info",
            f"{len(tf32)} of {len(fp32)} FP32 convolutions and GEMMs run TF32 Tensor Core math.",
            evidence,
            "Expected where TF32 is allowed (TensorRT's default on Ampere and later): compare FP16 "
            "or INT8 builds with these TF32 times, not with FP32 CUDA-core rates; build with "
            "--noTF32 where FP32 accuracy is required.",
            "TF32 keeps FP32's range with a 10-bit mantissa and runs on Tensor Cores at half the "
            "FP16 rate.",
            layers=", ".join(facts.names[i] for i, _ in tf32[:5]) + (", ..." if len(tf32) > 5 else ""))]
