"""Tables of the transformer view, and stages (prefill, decode) compared side by side.

``blocks_frame`` lists a plan's blocks; ``family_latency`` splits its latency by what the layers
do (attention with its unfused chain, GEMMs, norms, RoPE, KV-cache updates, MoE, collectives,
other); ``stage_table``/``family_table`` put several plans (the optimisation profiles of one
engine, ``trex compare --profiles``) side by side; ``stage_gap`` explains, per stage, why the sum
of the layer times differs from the measured GPU time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..model.facts import engine_facts
from ..model.measurement import measured_profile
from ..model.plan import EnginePlan
from . import layer_roles as R
from .bandwidth import step_traffic
from .view import TransformerView, transformer_view

FAMILIES = ("attention", "GEMM", "norm", "RoPE", "KV cache", "MoE", "collective", "other")
_ROLE_FAMILY = {R.ATTENTION: "attention", R.GEMM: "GEMM", R.NORM: "norm",
                R.ROPE: "RoPE", R.KV_CACHE: "KV cache", R.MOE: "MoE",
                R.COLLECTIVE: "collective"}
TINY_US = 5.0  # kernels shorter than this are launch-bound (as the tiny-kernels linter says)


def _r(value: float | None, digits: int = 4) -> float | None:
    return None if value is None or not math.isfinite(value) else round(float(value), digits)


def layer_families(plan: EnginePlan) -> list[str]:
    """Per ``plan.df`` row, the family its time counts under: a decomposed attention's GEMMs and
    glue count as attention, elementwise RoPE and cache chains as RoPE and KV cache."""
    view = transformer_view(plan)
    families = [_ROLE_FAMILY.get(role, "other") for role in view.roles] or \
        ["other"] * len(plan.rows)
    for site in view.sites:
        for p in site.positions:
            families[p] = "attention"
    for block in view.blocks:
        for p in block.rope.positions:
            families[p] = "RoPE"
        for p in block.kv_cache.positions:
            families[p] = "KV cache"
    return families


def family_latency(plan: EnginePlan) -> dict[str, dict[str, float | int | None]]:
    """Per family: layers, summed average latency (ms; None when none is timed) and share (%)."""
    lat = np.asarray(plan.latency.avg, dtype="float64")
    total = float(np.nansum(lat))
    out: dict[str, dict[str, float | int | None]] = {}
    for family in FAMILIES:
        out[family] = {"layers": 0, "ms": None, "pct": None}
    for pos, family in enumerate(layer_families(plan)):
        entry = out[family]
        entry["layers"] = int(entry["layers"] or 0) + 1
        if pos < len(lat) and not math.isnan(lat[pos]):
            entry["ms"] = float(entry["ms"] or 0.0) + float(lat[pos])
    for entry in out.values():
        if entry["ms"] is not None and total > 0:
            entry["pct"] = 100.0 * float(entry["ms"]) / total
    return out


def blocks_frame(plan: EnginePlan) -> pd.DataFrame:
    """One row per block: its layers, attention (fused or decomposed) and its time, RoPE and KV
    cache (dedicated, elementwise or none) and their time, GEMMs, norms, MoE, collectives."""
    view = transformer_view(plan)
    names = plan.table.names
    rows = plan.rows
    lat = np.asarray(plan.latency.avg, dtype="float64")
    total = float(np.nansum(lat))
    records = []
    for block in view.blocks:
        site = block.sites[0]
        records.append({
            "block": block.index,
            "first layer": names[rows[block.positions[0]]],
            "last layer": names[rows[block.positions[-1]]],
            "layers": len(block.positions),
            "attention": site.kind,
            "attention layers": len(site.positions),
            "attention ms": _r(site.latency_ms),
            "Sq": site.query_len, "Skv": site.kv_len, "heads": site.heads,
            "kv heads": site.kv_heads, "head dim": site.head_dim,
            "RoPE": block.rope.kind, "RoPE ms": _r(block.rope.latency_ms),
            "KV cache": block.kv_cache.kind, "KV cache ms": _r(block.kv_cache.latency_ms),
            "GEMMs": block.gemms, "norms": block.norms, "MoE": block.moe,
            "collectives": block.collectives,
            "latency ms": _r(block.latency_ms),
            "latency %": _r(100.0 * block.latency_ms / total, 2)
            if block.latency_ms is not None and total > 0 else None,
        })
    return pd.DataFrame.from_records(records, columns=BLOCK_COLUMNS)


BLOCK_COLUMNS = ["block", "first layer", "last layer", "layers", "attention", "attention layers",
                 "attention ms", "Sq", "Skv", "heads", "kv heads", "head dim", "RoPE", "RoPE ms",
                 "KV cache", "KV cache ms", "GEMMs", "norms", "MoE", "collectives", "latency ms",
                 "latency %"]


def view_text(view: TransformerView) -> str:
    """One line: ``2 blocks (ONNX Metadata): attention fused 2, decomposed 0; RoPE dedicated 2;
    KV cache dedicated 2; decode (Sq 1, Skv 128)``."""
    blocks = view.blocks

    def kinds(attr: str) -> str:
        counts: dict[str, int] = {}
        for b in blocks:
            kind = getattr(b, attr).kind
            counts[kind] = counts.get(kind, 0) + 1
        return ", ".join(f"{k} {n}" for k, n in counts.items())

    fused = sum(b.fused for b in blocks)
    decomposed = sum(b.decomposed for b in blocks)
    text = (f"{len(blocks)} block{'s' * (len(blocks) != 1)} ({view.grouping}): attention fused "
            f"{fused}, decomposed {decomposed}; RoPE {kinds('rope')}; KV cache {kinds('kv_cache')}")
    stage = stage_shape(view)
    if stage:
        text += f"; {stage}"
    return text


def stage_shape(view: TransformerView) -> str:
    """``decode (Sq 1, Skv 128)``, ``prefill (Sq 128, Skv 128)`` or ""."""
    if not view.sites:
        return ""
    sq = {s.query_len for s in view.sites}
    skv = {s.kv_len for s in view.sites}

    def one(values: set[int | None]) -> str:
        return str(next(iter(values))) if len(values) == 1 and None not in values else "mixed"

    return f"{view.stage or 'stage unknown'} (Sq {one(sq)}, Skv {one(skv)})"


def stage_gap(plan: EnginePlan) -> dict[str, Any]:
    """The layer sum against the measured GPU time of one stage, and why they differ:
    :func:`trex.iteration_stats.layer_sum_gap` plus what a stage of many short kernels adds (launch gaps
    and their count, CUDA graphs, dynamic-shape host work)."""
    from ..iteration_stats import layer_sum_gap

    gap = layer_sum_gap(plan)
    why = list(gap.get("explanation", []))
    ran = measured_profile(plan.inference_options)
    if gap.get("measured_ms") is None and ran is not None and ran != plan.profile_id:
        why = [f"cannot compare: the measured run (timings, performance summary) is profile "
               f"{ran}'s; measure this one with trtexec --profile={plan.profile_id} "
               "--exportTimes"]
    lat = np.asarray(plan.latency.avg, dtype="float64")
    timed = lat[(lat > 0) & ~np.isnan(lat)]
    tiny = int(np.sum(timed * 1000.0 < TINY_US))
    gap["tiny_kernels"] = tiny
    gap["median_layer_us"] = float(np.median(timed)) * 1000.0 if len(timed) else None
    graphs = engine_facts(plan).profiling.get("cuda_graph")
    gap["cuda_graph"] = graphs
    if gap.get("gap_ms") is not None and gap["gap_ms"] < 0:
        idle = -gap["gap_ms"]
        per_kernel = 1000.0 * idle / max(len(timed), 1)
        gap["idle_per_kernel_us"] = per_kernel
        why.append(f"the GPU is idle {idle:.4f} ms per run between the {len(timed)} kernels, "
                   f"about {per_kernel:.2f} us each: per-layer times count only the kernels, the "
                   f"end-to-end time counts the gaps too ({tiny} kernels run under "
                   f"{TINY_US:g} us, median {gap['median_layer_us']:.2f} us)")
        if graphs is True:
            why.append("the run used CUDA graphs, so the gaps are not host launches but "
                       "dependencies and synchronisation inside the graph (per-layer times "
                       "come from reportToProfiler() after each graph launch)")
        elif graphs is False:
            why.append("the run did not use CUDA graphs: each kernel is launched by the host "
                       "and a step of short kernels waits on those launches (try CUDA graphs; "
                       "trtexec 11 uses them by default)")
        else:
            why.append("whether CUDA graphs were used is not recorded: without them each kernel "
                       "launch costs host time a step of short kernels cannot hide")
        shape_calls = sum(t == "shape_call" for t in plan.column("type"))
        if shape_calls or plan.dynamic_tensor_uses:
            why.append(f"dynamic shapes: {shape_calls} shape_call layer(s) compute shapes at run "
                       "time and synchronise with the host")
    if plan.stream_count > 1:
        why.append(f"layers on {plan.stream_count} streams overlap: kernels that run at the same "
                   "time count once end to end but once each in the layer sum")
    gap["explanation"] = list(dict.fromkeys(why))
    return gap


def stage_table(plans: Sequence[EnginePlan], names: Sequence[str]) -> pd.DataFrame:
    """One row per plan (stage): its stage and shapes, blocks, attention kinds, layer sum,
    measured time, gap and decode bandwidth."""
    records = []
    for name, plan in zip(names, plans):
        view = transformer_view(plan)
        traffic = step_traffic(plan)
        gap = stage_gap(plan)
        records.append({
            "engine": name,
            "stage": view.stage or ("–" if view else "no transformer blocks"),
            "Sq": _one({s.query_len for s in view.sites}),
            "Skv": _one({s.kv_len for s in view.sites}),
            "blocks": len(view.blocks),
            "fused attention": sum(b.fused for b in view.blocks),
            "decomposed attention": sum(b.decomposed for b in view.blocks),
            "layers": len(plan.rows),
            "layer sum ms": _r(gap.get("sum_of_layers_ms")) if gap.get("timed_layers") else None,
            "measured ms": _r(gap.get("measured_ms")),
            "gap ms": _r(gap.get("gap_ms")),
            "bandwidth": traffic.line() if traffic else "–",
        })
    return pd.DataFrame.from_records(records)


def _one(values: set[int | None]) -> int | None:
    return next(iter(values)) if len(values) == 1 else None


def family_table(plans: Sequence[EnginePlan], names: Sequence[str]) -> pd.DataFrame:
    """Latency per family, one ``ms`` and ``%`` column pair per plan (stage)."""
    data: dict[str, list[Any]] = {"family": list(FAMILIES)}
    for name, plan in zip(names, plans):
        fam = family_latency(plan)
        data[f"{name} layers"] = [fam[f]["layers"] for f in FAMILIES]
        data[f"{name} ms"] = [_r(fam[f]["ms"]) for f in FAMILIES]  # type: ignore[arg-type]
        data[f"{name} %"] = [_r(fam[f]["pct"], 2) for f in FAMILIES]  # type: ignore[arg-type]
    return pd.DataFrame(data)


def has_transformer(plans: Sequence[EnginePlan]) -> bool:
    """True when some plan has transformer blocks (the stage views apply)."""
    return any(transformer_view(plan) for plan in plans)
