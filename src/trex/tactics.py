"""Build-log views: tactics tried per layer, chosen vs fastest, fusions, memory, builder passes.

Every function takes a :class:`~trex.formats.build_log.BuildLog` or the path of a verbose build
log (read with :func:`~trex.formats.build_log.read_build_log`) and returns a DataFrame or a dict.
"""

from __future__ import annotations

import math
import os
import re
from collections import defaultdict
from typing import Any

import pandas as pd

from .formats.build_log import BuildLog, read_build_log
from .tactic_choice import AMBIGUOUS, NOT_TUNED, LayerTuning, layer_tunings, runner_of

__all__ = [
    "build_passes", "build_summary", "fused_layers", "fusions", "layer_tactics", "load_build_log",
    "memory_changes", "myelin_tactics", "tactic_timings",
]

Source = BuildLog | str | os.PathLike

LAYER_COLUMNS = [
    "layer", "type", "in_engine", "combinations", "tactics_timed", "tactics_cached",
    "tactics_skipped", "runners", "chosen_runner", "chosen_tactic", "chosen_tactic_name",
    "chosen_combination", "combination_from", "chosen_ms", "fastest_in_combination_tactic",
    "fastest_in_combination_tactic_name", "fastest_in_combination_ms", "combination_slowdown",
    "chosen_is_fastest", "fastest_tactic", "fastest_tactic_name", "fastest_combination",
    "fastest_ms", "gap_ms", "slowdown", "faster_elsewhere", "autotune_s", "autotune_s_all_passes",
    "timings_from",
]
TACTIC_COLUMNS = [
    "build_pass", "strategy", "profile", "layer", "combination", "runner", "runner_id", "tactic",
    "tactic_name", "time_ms", "status", "reformat", "runner_choice", "in_engine",
]


def load_build_log(source: Source) -> BuildLog:
    """The parsed log (``source`` may already be one)."""
    return source if isinstance(source, BuildLog) else read_build_log(source)


def tactic_timings(source: Source, all_passes: bool = False) -> pd.DataFrame:
    """One row per tactic timed, cached or skipped; ``in_engine`` marks the timing of the engine's
    tactic in the format combination the engine layer runs (one row per engine layer at most)."""
    log = load_build_log(source)
    chosen = log.chosen_pass
    strategies = {p.index: p.strategy for p in log.passes}
    picked = {(c.build_pass, c.layer, c.combination): c.tactic for c in log.choices}
    engine = {id(t.chosen) for t in layer_tunings(log) if t.chosen is not None and t.own_records}
    rows = []
    for t in log.tactics:
        if not all_passes and t.build_pass != chosen:
            continue
        rows.append({
            "build_pass": t.build_pass, "strategy": strategies.get(t.build_pass),
            "profile": t.profile, "layer": t.layer, "combination": t.combination,
            "runner": t.runner, "runner_id": t.runner_id, "tactic": t.tactic,
            "tactic_name": t.tactic_name, "time_ms": t.time_ms, "status": t.status,
            "reformat": t.reformat,
            "runner_choice": picked.get((t.build_pass, t.layer, t.combination)) == t.tactic,
            "in_engine": id(t) in engine,
        })
    return pd.DataFrame(rows, columns=TACTIC_COLUMNS)


def layer_tactics(source: Source) -> pd.DataFrame:
    """Per layer of the kept pass: combinations and tactics tried, chosen vs fastest, tuning time.

    The verdict compares like with like, in the format combination the engine layer runs (read
    from the engine's layer information, see :mod:`trex.tactic_choice`; ``combination_from`` says
    how it was found): ``chosen_is_fastest`` and ``combination_slowdown`` judge the chosen tactic
    against the tactics timed in that combination (the builder picks the fastest of each
    combination, then weighs the reformats around the layer between combinations).
    ``faster_elsewhere`` says that a tactic of another combination was faster; ``fastest_*``,
    ``gap_ms`` and ``slowdown`` describe the fastest tactic of any combination. Where the
    combination cannot be told (``combination_from`` ambiguous, or the engine's formats were
    never autotuned) or the engine's tactic has no timing in it, the verdict is left empty.
    ``autotune_s`` is NaN where the log prints no profiling time for the layer. Layers are in
    engine order, then autotuned layers that did not reach the engine; a layer whose timings were
    reused from an identical earlier layer names it in ``timings_from``.
    """
    log = load_build_log(source)
    chosen = log.chosen_pass
    seconds: dict[tuple[int, str], float] = defaultdict(float)
    for r in log.runners:
        if not r.reformat and math.isfinite(r.seconds):
            seconds[(r.build_pass, r.layer)] += r.seconds
    all_seconds: dict[str, float] = defaultdict(float)
    for (_, layer), s in seconds.items():
        all_seconds[layer] += s
    names = {t.tactic: t.tactic_name for t in log.tactics if t.tactic_name}  # same id, same kernel
    rows = [_layer_row(t, seconds.get((chosen, t.name), math.nan),
                       all_seconds.get(t.name, math.nan), names)
            for t in layer_tunings(log)]
    return pd.DataFrame(rows, columns=LAYER_COLUMNS)


def _layer_row(tuning: LayerTuning, tuned_s: float, all_s: float,
               names: dict[str, str]) -> dict[str, Any]:
    records = tuning.records
    usable = [t for t in records if t.status != "skipped" and math.isfinite(t.time_ms)]
    fastest = min(usable, key=lambda t: t.time_ms, default=None)
    pick, combination = tuning.chosen, tuning.combination
    own = min((t for t in usable if combination is not None and t.combination == combination),
              key=lambda t: t.time_ms, default=None)
    other = min((t for t in usable if combination is not None and t.combination != combination),
                key=lambda t: t.time_ms, default=None)
    chosen_ms = pick.time_ms if pick else math.nan
    fastest_ms = fastest.time_ms if fastest else math.nan
    own_ms = own.time_ms if own else math.nan
    judged = pick is not None and own is not None
    combos = set(tuning.combinations) or {t.combination for t in records if t.combination}
    return {
        "layer": tuning.name, "type": tuning.type, "in_engine": tuning.in_engine,
        "combinations": len(combos),
        "tactics_timed": sum(t.status == "timed" for t in records) if tuning.own_records else 0,
        "tactics_cached": sum(t.status == "cached" for t in records) if tuning.own_records else 0,
        "tactics_skipped": sum(t.status == "skipped" for t in records) if tuning.own_records else 0,
        "runners": len({t.runner for t in records}),
        "chosen_runner": runner_of(tuning), "chosen_tactic": tuning.tactic,
        "chosen_tactic_name": names.get(tuning.tactic) if tuning.tactic else None,
        "chosen_combination": combination, "combination_from": tuning.combination_from,
        "chosen_ms": chosen_ms,
        "fastest_in_combination_tactic": own.tactic if own else None,
        "fastest_in_combination_tactic_name": names.get(own.tactic) if own else None,
        "fastest_in_combination_ms": own_ms,
        "combination_slowdown": chosen_ms / own_ms if judged and own_ms else math.nan,
        "chosen_is_fastest": bool(chosen_ms <= own_ms) if judged else None,
        "fastest_tactic": fastest.tactic if fastest else None,
        "fastest_tactic_name": names.get(fastest.tactic) if fastest else None,
        "fastest_combination": fastest.combination if fastest else None, "fastest_ms": fastest_ms,
        "gap_ms": chosen_ms - fastest_ms,
        "slowdown": chosen_ms / fastest_ms if pick and fastest_ms else math.nan,
        "faster_elsewhere": bool(other.time_ms < chosen_ms) if pick and other else
        (False if pick else None),
        "autotune_s": tuned_s, "autotune_s_all_passes": all_s, "timings_from": tuning.donor,
    }


# --------------------------------------------------------------------------- fusions
def fusions(source: Source, all_passes: bool = False) -> pd.DataFrame:
    """The fusion and removal steps, in order (``result`` is the fused layer's name)."""
    log = load_build_log(source)
    first_pass = _fusion_pass(log)
    rows = [{"build_pass": f.build_pass, "kind": f.kind, "rule": f.rule, "first": f.first,
             "second": f.second, "result": f.result}
            for f in log.fusions if all_passes or f.build_pass == first_pass]
    return pd.DataFrame(rows, columns=["build_pass", "kind", "rule", "first", "second", "result"])


def _fusion_pass(log: BuildLog) -> int | None:
    """The kept pass if it fused anything, else the first pass that did."""
    chosen = log.chosen_pass
    passes = [f.build_pass for f in log.fusions]
    if chosen in passes or not passes:
        return chosen
    return passes[0]


def fused_layers(source: Source) -> pd.DataFrame:
    """Per engine layer: the network (ONNX) layers it holds and the fusion rules that merged them."""
    log = load_build_log(source)
    members: dict[str, list[str]] = {}
    rules: dict[str, list[str]] = {}
    for step in log.fusions:
        if step.kind != "fuse":
            continue
        a, b = _resolve(step.first, members, log), _resolve(step.second, members, log)
        members[step.result] = list(dict.fromkeys(a + b))
        rules[step.result] = list(dict.fromkeys(
            _rules(step.first, rules) + _rules(step.second, rules) + [step.rule]))
    names = ([(x.name, x.type) for x in log.engine_layers] if log.engine_layers else
             [(name, None) for p, name in log.autotuned if p == log.chosen_pass])
    rows = []
    for name, layer_type in names:
        builder = name.startswith(("Reformatting CopyNode", "Reformatted "))
        network = [] if builder else _resolve(name, members, log)
        rows.append({"layer": name, "type": layer_type, "network_layers": network,
                     "count": len(network), "rules": [] if builder else _rules(name, rules),
                     "origin": "builder" if builder else ("fused" if len(network) > 1 else
                                                          "network")})
    return pd.DataFrame(rows, columns=["layer", "type", "network_layers", "count", "rules", "origin"])


def _rules(name: str, rules: dict[str, list[str]]) -> list[str]:
    if name in rules:
        return rules[name]
    out: list[str] = []
    for part in _split_plus(_unwrap(name)):
        out += rules.get(part, []) + rules.get(_unwrap(part), [])
    return list(dict.fromkeys(out))


_FOREIGN = re.compile(r"^\{ForeignNode\[(?P<inner>.*)\]\}$")


def _unwrap(name: str) -> str:
    if name.startswith("PWN(") and name.endswith(")"):
        return name[4:-1]
    return name


def _resolve(name: str, members: dict[str, list[str]], log: BuildLog, depth: int = 0) -> list[str]:
    if name in members:
        return members[name]
    if name in log.foreign_nodes:
        return list(log.foreign_nodes[name])
    if depth > 20:
        return [name]
    foreign = _FOREIGN.match(name)
    if foreign:
        return [part for part in foreign["inner"].split("...") if part]
    inner = _unwrap(name)
    parts = _split_plus(inner)
    if len(parts) == 1 and inner == name:
        return [name]
    out: list[str] = []
    for part in parts:
        out += _resolve(part, members, log, depth + 1)
    return list(dict.fromkeys(out))


def _split_plus(name: str) -> list[str]:
    """Split ``A + PWN(B + C) + D`` at top-level `` + `` only."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(name):
        ch = name[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0 and name.startswith(" + ", i):
            parts.append(name[start:i])
            start = i + 3
            i += 3
            continue
        i += 1
    parts.append(name[start:])
    return [p for p in parts if p]


# --------------------------------------------------------------------------- memory and passes
def memory_changes(source: Source) -> pd.DataFrame:
    """``[MemUsageChange]`` lines: event, CPU/GPU change and totals in MiB."""
    log = load_build_log(source)
    rows = [{"build_pass": m.build_pass, "event": m.event, "cpu_delta_mib": m.cpu_delta_mib,
             "gpu_delta_mib": m.gpu_delta_mib, "cpu_mib": m.cpu_mib, "gpu_mib": m.gpu_mib,
             "line": m.line} for m in log.memory]
    df = pd.DataFrame(rows, columns=["build_pass", "event", "cpu_delta_mib", "gpu_delta_mib",
                                     "cpu_mib", "gpu_mib", "line"])
    df["build_pass"] = df["build_pass"].astype("Int64")
    return df


def build_passes(source: Source) -> pd.DataFrame:
    """One row per builder pass: strategy, kept or not, estimate, times, layer counts, memory.

    ``estimated_ms``, ``tactic_selection_s`` and ``generation_s`` are the log's own figures;
    ``autotune_s`` sums the pass's ``profiling completed in`` lines (NaN if it printed none)."""
    log = load_build_log(source)
    tuned: dict[int, float] = {}  # passes without profiling lines stay unknown (NaN), not 0 s
    for r in log.runners:
        if math.isfinite(r.seconds):
            tuned[r.build_pass] = tuned.get(r.build_pass, 0.0) + r.seconds
    counts: dict[int, int] = defaultdict(int)
    for t in log.tactics:
        counts[t.build_pass] += t.status == "timed"
    rows = []
    chosen = log.chosen_pass
    for p in log.passes:
        rows.append({
            "build_pass": p.index, "strategy": p.strategy, "kept": p.index == chosen,
            "estimated_ms": p.estimated_ms,
            "layers_after_fusion": p.layer_counts.get("vertical fusions"),
            "layers_after_reformats": p.layer_counts.get("reformat layers"),
            "autotuned_layers": sum(1 for q, _ in log.autotuned if q == p.index),
            "tactics_timed": counts[p.index], "autotune_s": tuned.get(p.index, math.nan),
            "tactic_selection_s": p.tactic_selection_s, "generation_s": p.generation_s,
            "activation_bytes": p.memory.get("Total Activation Memory"),
            "weights_bytes": p.memory.get("Total Weights Memory"),
            "streams": p.streams, "reformats_added": len(p.reformats_added),
        })
    return pd.DataFrame(rows)


def myelin_tactics(source: Source, all_passes: bool = False) -> pd.DataFrame:
    """Rows of Myelin's sorted tables of evaluated kernels (TensorRT 10 ``foreignNode`` lines)."""
    log = load_build_log(source)
    chosen = log.chosen_pass
    rows = [{"build_pass": m.build_pass, "layer": m.layer, "op": m.op, "tactic_id": m.tactic_id,
             "cost_ms": m.cost_ms, "ratio": m.ratio, "kernel": m.kernel,
             "tactic_hash": m.tactic_hash}
            for m in log.myelin if all_passes or m.build_pass == chosen]
    return pd.DataFrame(rows, columns=["build_pass", "layer", "op", "tactic_id", "cost_ms", "ratio",
                                       "kernel", "tactic_hash"])


def _timing_cache(log: BuildLog) -> dict[str, Any]:
    """The timing cache as the log reports it: global (a file) or local, and its
    ``Deleting timing cache: N entries, M hits`` lines (None where the log prints none).

    ``timing_cache_hits`` adds the hits of every cache deleted (each line counts the lookups one
    cache served); ``timing_cache_entries`` is the largest cache's size."""
    stats = log.timing_caches
    return {
        "timing_cache": log.timing_cache,
        "timing_cache_entries": max((c.entries for c in stats), default=None),
        "timing_cache_hits": sum(c.hits for c in stats) if stats else None,
        "timing_cache_deletions": [{"build_pass": c.build_pass, "entries": c.entries,
                                    "hits": c.hits, "line": c.line} for c in stats],
    }


def build_summary(source: Source) -> dict[str, Any]:
    """Headline figures of a build: version, passes, layers, tactics, tuning time, memory, fusions."""
    log = load_build_log(source)
    chosen = log.chosen_pass
    kept = next((p for p in log.passes if p.index == chosen), None)
    layers = layer_tactics(log)
    engine_rows = layers[[True if v is None or v != v else bool(v) for v in layers["in_engine"]]]
    compared = engine_rows.dropna(subset=["chosen_ms", "fastest_in_combination_ms"])
    elsewhere = compared[compared["faster_elsewhere"].astype(bool)]
    timed_runs = [r for r in log.runners if math.isfinite(r.seconds)]
    tuned_all = sum(r.seconds for r in timed_runs) if timed_runs else None
    kept_runs = [r.seconds for r in timed_runs if r.build_pass == chosen]
    tuned_kept = sum(kept_runs) if kept_runs else None
    fusion_steps = [f for f in log.fusions if f.build_pass == _fusion_pass(log)]
    return {
        "file": log.source,
        "tensorrt_version": log.version,
        "build_passes": len(log.passes),
        "kept_pass": chosen,
        "kept_strategy": kept.strategy if kept else None,
        "engine_layers": len(log.engine_layers),
        "autotuned_layers": sum(1 for p, _ in log.autotuned if p == chosen),
        "layers_with_tactics": int((engine_rows["tactics_timed"] + engine_rows["tactics_cached"]
                                    > 0).sum()),
        "format_combinations": int(layers["combinations"].sum()),
        "tactics_timed": sum(t.status == "timed" for t in log.tactics if t.build_pass == chosen),
        "tactics_cached": sum(t.status == "cached" for t in log.tactics if t.build_pass == chosen),
        "tactics_timed_all_passes": sum(t.status == "timed" for t in log.tactics),
        "layers_compared": int(len(compared)),
        # engine layers left without a verdict: their format combination cannot be told
        "layers_combination_unknown": int(engine_rows["combination_from"].isin(
            (AMBIGUOUS, NOT_TUNED)).sum()),
        "layers_not_fastest": int((~compared["chosen_is_fastest"].astype(bool)).sum()),
        "max_combination_slowdown": float(compared["combination_slowdown"].max())
        if len(compared) else math.nan,
        "layers_faster_elsewhere": int(len(elsewhere)),
        "max_slowdown": float(elsewhere["slowdown"].max()) if len(elsewhere) else math.nan,
        "autotune_s": tuned_kept,
        "autotune_s_all_passes": tuned_all,
        **_timing_cache(log),
        "fusions": sum(f.kind == "fuse" for f in fusion_steps),
        "removals": sum(f.kind == "remove" for f in fusion_steps),
        "engine_built_s": log.engine_built_s,
        "engine_size_mib": log.engine_size_mib,
        "activation_bytes": kept.memory.get("Total Activation Memory") if kept else None,
        "weights_bytes": kept.memory.get("Total Weights Memory") if kept else None,
        "peak_gpu_mib": max((m.gpu_mib for m in log.memory), default=None),
        "warnings": list(log.warnings),
    }
