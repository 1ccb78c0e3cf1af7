"""What the report's layer details say beyond the exported fields: each type's family and what it
does (:mod:`trex.model.vocabulary`), the cost figures of the LLM-era layers (:mod:`trex.compute.costs`:
KV bytes an attention reads, bytes a KV-cache update writes, experts an MoE reads, bytes a
collective exchanges) and, for a Myelin kernel, its region's ONNX operators and time
(:func:`trex.onnx_map.myelin_regions`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from .compute.costs import ATTENTION_TYPES, Cost, layer_cost
from .compute.plan_costs import plan_costs
from .model.plan import EnginePlan
from .model.vocabulary import DESCRIPTIONS, family
from .onnx_map import myelin_regions

_COSTED = (*ATTENTION_TYPES, "KVCacheUpdate", "MoE", "DistCollective")


def type_kinds(types: Iterable[str]) -> dict[str, dict[str, str]]:
    """Per layer type: ``{"family": ..., "about": ...}`` (``about`` empty where none is written)."""
    return {t: {"family": family(t), "about": DESCRIPTIONS.get(t, "")}
            for t in sorted({str(t) for t in types})}


def _bytes(n: float) -> str:
    return f"{n:,.0f} B"


def _cost_facts(cost: Cost, attribute: Callable[[str], Any]) -> list[list[str]]:
    """The figures of a layer's cost worth saying (``attribute``: the layer's attribute by key)."""
    if cost.model == "attention":
        return [["FLOPs (4·B·H·Sq·Skv·D)", f"{cost.flops:,.0f}"],
                ["Sq × Skv × D", f"{cost.m:,} × {cost.n:,} × {cost.k:,}"],
                ["KV bytes read", _bytes(cost.bytes_kv)]]
    if cost.model == "kv-cache":
        return [["Bytes written into the cache", _bytes(cost.bytes_out)]]
    if cost.model == "moe":
        experts = attribute("NumExperts")
        return [["FLOPs (active experts' GEMMs)", f"{cost.flops:,.0f}"],
                ["Token × expert pairs", f"{cost.m:,}" + (f" (of {experts} experts)"
                                                         if experts else "")],
                ["Expert weights read", _bytes(cost.bytes_weights)]]
    if cost.model == "collective":
        operation = attribute("CollectiveOperation") or "ALL_REDUCE"
        return [["Collective", str(operation)],
                ["Bytes exchanged per rank", _bytes(cost.bytes_link)]]
    return []


def layer_facts(plan: EnginePlan) -> dict[int, list[list[str]]]:
    """Per layer index (``plan.layers``) with something to say: ``[[label, text], ...]``."""
    facts: dict[int, list[list[str]]] = {}
    if isinstance(plan, EnginePlan):  # the plan's costs, from its layer table
        table, rows = plan.table, plan.rows
        for index, kind in enumerate(plan.column("type")):
            if kind in _COSTED:
                row = rows[index]
                found = _cost_facts(plan_costs(plan).cost(index),
                                    lambda key, row=row: table.attribute(row, key))
                if found:
                    facts[index] = found
    else:  # a selection of layers
        for index, layer in enumerate(plan.layers):
            if layer.type in _COSTED:
                found = _cost_facts(layer_cost(layer), layer.attribute)
                if found:
                    facts[index] = found
    for region in myelin_regions(plan):
        timed = "" if math.isnan(region.latency_ms) else f", {region.latency_ms:.4f} ms"
        about = [["Myelin region", f"{region.label}: {len(region.rows)} kernel"
                  f"{'s' if len(region.rows) != 1 else ''}{timed} (the region's kernels' time; "
                  "Myelin does not time the operators inside them)"],
                 ["Region's ONNX operators", f"{len(region.nodes)} nodes: {region.ops_text()}"
                  if region.nodes else "none listed (no Metadata)"]]
        for index in region.rows:
            facts.setdefault(index, []).extend(about)
    return facts
