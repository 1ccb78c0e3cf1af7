"""Summary views of a plan: model facts, latency per type/precision, slowest layers, tactics.

Each function returns a dict or a DataFrame; the CLI and notebooks decide how to show them.
"""

from __future__ import annotations

import re
from typing import Any, Literal

import pandas as pd

from .model.facts import engine_facts, summary_dict
from .model.plan import EnginePlan

_TACTIC_HASH_RE = re.compile(r"_0x[0-9a-fA-F]+$")


def model_summary(plan: EnginePlan) -> dict[str, Any]:
    """The plan's headline facts (:func:`~trex.model.facts.engine_facts`) as plain values, with
    its device, builder configuration, performance summary and warnings; missing figures are None."""
    facts = engine_facts(plan)
    latency = facts.latency_ms
    return {
        "name": facts.name,
        "inputs": facts.inputs,
        "outputs": facts.outputs,
        "io_tensors": facts.io_tensors,
        "layers": facts.layers,
        "detailed": facts.detailed,
        "profiles": facts.profiles,
        "profile_id": facts.profile_id,
        "average_time_ms": round(latency, 6) if latency is not None else None,
        "gpu_compute_median_ms": facts.gpu_compute_median_ms,
        "latency_median_ms": facts.latency_median_ms,
        "throughput_qps": facts.throughput_qps,
        "batch_size": facts.batch_size,
        "weights_bytes": facts.weights_bytes,
        "activations_bytes": facts.activations_bytes,
        "activation_footprint_bytes": facts.activation_footprint_bytes,
        "precision_mix": facts.precision_mix,
        "streams": facts.streams,
        "profile_iterations": facts.profile_iterations,
        "tensorrt_version": facts.tensorrt_version,
        "device": plan.device_properties,
        "builder_config": plan.builder_cfg,
        "performance_summary": plan.performance_summary,
        "warnings": plan.warnings,
        "trex_summary": summary_dict(plan),
    }


def _grouped(plan: EnginePlan, column: str) -> pd.DataFrame:
    df = plan.df
    if df.empty:
        return pd.DataFrame(columns=[column, "count", "latency_ms", "latency_pct"])
    keys = df[column].fillna("None").astype(str)
    out = (
        df.assign(**{column: keys})
        .groupby(column, sort=False)
        .agg(count=("Name", "size"), latency_ms=("latency.avg_time", "sum"))
        .reset_index()
    )
    total = out["latency_ms"].sum()
    out["latency_pct"] = 100.0 * out["latency_ms"] / total if total > 0 else float("nan")
    return out.sort_values(["latency_ms", "count"], ascending=False, ignore_index=True)


def latency_by_type(plan: EnginePlan) -> pd.DataFrame:
    """Layer count, summed average latency (ms) and share of latency per layer type."""
    return _grouped(plan, "type")


def latency_by_precision(plan: EnginePlan) -> pd.DataFrame:
    """Layer count, summed average latency (ms) and share of latency per precision."""
    return _grouped(plan, "precision")


def slowest_layers(plan: EnginePlan, n: int = 10) -> pd.DataFrame:
    """The ``n`` layers with the largest average latency."""
    cols = ["Name", "type", "precision", "latency.avg_time", "latency.pct_time", "tactic"]
    df = plan.df
    if df.empty:
        return pd.DataFrame(columns=cols)
    return df.nlargest(n, "latency.avg_time")[cols].reset_index(drop=True)


def tactic_summary(
    plan: EnginePlan,
    group_tactics: bool = False,
    sort_key: Literal["count", "latency", "id"] = "count",
) -> pd.DataFrame:
    """Per tactic (kernel): layer count, summed latency (ms) and share of the total (%).

    ``latency_pct`` is the tactic's share of the summed layer latency, as in every other trex
    table. With ``group_tactics`` the ``_0x...`` hash that tells individual kernels apart is
    removed, so kernel families are counted together.
    ``sort_key``: ``count`` (most layers first), ``latency`` (slowest first) or ``id`` (engine
    order).
    """
    df = plan.df[["tactic", "latency.avg_time"]].copy()
    df["tactic"] = df["tactic"].astype(str)
    if group_tactics:
        df["tactic"] = df["tactic"].str.replace(_TACTIC_HASH_RE, "", regex=True)
    out = df.groupby("tactic", sort=False).agg(
        count=("tactic", "size"), latency_ms=("latency.avg_time", "sum")).reset_index()
    total = out["latency_ms"].sum()
    out["latency_pct"] = 100.0 * out["latency_ms"] / total if total > 0 else float("nan")
    if sort_key == "count":
        out = out.sort_values(["count", "latency_ms"], ascending=False, ignore_index=True)
    elif sort_key == "latency":
        out = out.sort_values(["latency_ms", "count"], ascending=False, ignore_index=True)
    return out
