"""Tables that compare engines side by side: summary, per type, per precision, per layer, per ONNX node.

Every function takes plans (and optional display names) and returns a DataFrame; nothing prints.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..model.facts import engine_facts, has_onnx_metadata, summary_dict
from ..model.plan import EnginePlan
from ..text_forms import capability_text
from .align import align_plans, get_plans_names


def _names(plans: Sequence[EnginePlan], names: Sequence[str] | None) -> list[str]:
    names = list(names) if names is not None else get_plans_names(plans)
    if len(names) != len(plans) or len(set(names)) != len(names):
        raise ValueError(f"need {len(plans)} distinct names, got {names}")
    return names


def _ratio(num: float | None, den: float | None) -> float:
    """num / den, NaN when either is missing or den is 0."""
    if num is None or den is None or math.isnan(num) or math.isnan(den) or den == 0:
        return math.nan
    return num / den


_SUMMARY_ROWS = {
    "engine": "engine",
    "latency_ms": "latency (ms, sum of layers)",
    "speedup": "speedup vs first (sum of layers)",
    "gpu_compute_median_ms": "GPU compute median (ms, trtexec)",
    "latency_median_ms": "latency median (ms, trtexec)",
    "throughput_qps": "throughput (qps, trtexec)",
    "batch_size": "batch size",
    "layers": "layers",
    "weights_bytes": "weights (bytes)",
    "activations_bytes": "activations (bytes, per layer I/O)",
    "activation_footprint_bytes": "activation footprint (bytes)",
    "precision_mix": "precision mix (layers)",
    "math_mix": "math precision mix (layers)",
    "onnx_metadata": "ONNX node names (Metadata)",
    "device": "device",
    "compute_capability": "compute capability",
}


def summary_table(plans: Sequence[EnginePlan], names: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per attribute (latency, throughput, sizes, precision mix, device, builder config);
    a figure an engine's inputs do not provide is None."""
    names = _names(plans, names)
    facts = [engine_facts(plan).as_dict() for plan in plans]
    first = facts[0]["latency_ms"] if facts else None
    for f in facts:
        f["speedup"] = _ratio(first, f["latency_ms"])
        f["engine"] = f["name"]
        cc = f["compute_capability"]
        f["compute_capability"] = capability_text(cc) if cc is not None else None
    builder_keys = list(dict.fromkeys(k for f in facts for k in f["builder_config"]))
    rows = [[label, *[f[key] for f in facts]] for key, label in _SUMMARY_ROWS.items()]
    rows += [[f"builder: {k}", *[f["builder_config"].get(k, "") for f in facts]]
             for k in builder_keys]
    return pd.DataFrame(rows, columns=["attribute", *names], dtype=object)


def _grouped(plans: Sequence[EnginePlan], names: list[str], column: str, speedup: bool = True
             ) -> pd.DataFrame:
    parts = []
    for plan in plans:
        df = plan.df
        keys = df[column].fillna("None").astype(str) if len(df) else pd.Series([], dtype=object)
        grouped = pd.DataFrame({"key": keys, "ms": df["latency.avg_time"].to_numpy()}) \
            .groupby("key", sort=False)["ms"]
        # An engine without a per-layer profile has no latency per type: NaN, not 0.
        parts.append(pd.DataFrame({"sum": grouped.sum(min_count=1), "size": grouped.size()}))
    keys = list(dict.fromkeys(k for part in parts for k in part.index))
    columns: dict[str, Any] = {column: keys}
    for name, part in zip(names, parts):
        columns[f"{name} ms"] = part["sum"].reindex(keys).to_numpy(dtype=float)
    for name, part in zip(names, parts):
        columns[f"{name} layers"] = part["size"].reindex(keys).fillna(0).to_numpy(dtype="int64")
    if speedup:
        for name in names[1:]:
            columns[f"{name} speedup"] = columns[f"{names[0]} ms"] / columns[f"{name} ms"]
    out = pd.DataFrame(columns)  # built at once: column by column fragments it (27+ engines)
    ms_cols = [f"{name} ms" for name in names]
    return out.sort_values(ms_cols, ascending=False, na_position="last", ignore_index=True)


def compare_by_type(plans: Sequence[EnginePlan], names: Sequence[str] | None = None) -> pd.DataFrame:
    """Per layer type: summed latency and layer count per engine, speedup of each vs the first."""
    return _grouped(plans, _names(plans, names), "type")


def compare_by_precision(plans: Sequence[EnginePlan], names: Sequence[str] | None = None,
                         alignment: pd.DataFrame | None = None, exact_matching: bool = True
                         ) -> pd.DataFrame:
    """Per precision (a layer's first input): latency and layer count per engine, and speedups that
    compare like with like.

    ``<name> speedup`` is the first engine's time over this engine's, summed over aligned
    counterparts that run in this precision in both engines (``<name> pairs`` of them); NaN (not
    comparable) when there is none. The totals of a precision are not compared: FP32 in an FP32
    engine and the one FP32 reformat left in an FP16 engine are unrelated layers."""
    names = _names(plans, names)
    out = _grouped(plans, names, "precision", speedup=False)
    if len(plans) < 2:
        return out
    if alignment is None:
        alignment = align_plans(plans, exact_matching, names)
    keys = out["precision"].tolist()
    precisions = [plan.df["precision"].fillna("None").astype(str).to_numpy() if len(plan.df)
                  else np.array([], dtype=object) for plan in plans]
    latencies = [plan.df["latency.avg_time"].to_numpy(dtype="float64") for plan in plans]
    first = alignment[names[0]]
    speedups: dict[str, list[float]] = {}
    pairs: dict[str, Any] = {}
    for k, name in enumerate(names[1:], start=1):
        both = (first.notna() & alignment[name].notna()).to_numpy()
        rows_a = first[both].to_numpy(dtype="int64")
        rows_b = alignment[name][both].to_numpy(dtype="int64")
        prec_a, prec_b = precisions[0][rows_a], precisions[k][rows_b]
        ratios, counts = [], []
        for key in keys:
            same = (prec_a == key) & (prec_b == key)
            ms_a, ms_b = latencies[0][rows_a[same]], latencies[k][rows_b[same]]
            timed = ~(np.isnan(ms_a) | np.isnan(ms_b))
            counts.append(int(same.sum()))
            total_b = float(ms_b[timed].sum())
            ratios.append(float(ms_a[timed].sum()) / total_b if timed.any() and total_b > 0
                          else math.nan)
        speedups[f"{name} speedup"] = ratios
        pairs[f"{name} pairs"] = pd.array(counts, dtype="int64")
    return pd.concat([out, pd.DataFrame({**speedups, **pairs}, index=out.index)], axis=1)


def compare_layers(plans: Sequence[EnginePlan], names: Sequence[str] | None = None,
                   exact_matching: bool = True, alignment: pd.DataFrame | None = None
                   ) -> pd.DataFrame:
    """Per aligned layer: name, latency, precision per engine; ``delta ms`` = last - first (a missing
    layer counts 0 ms), ``speedup`` = first / last and the alignment's ``confidence``."""
    names = _names(plans, names)
    if alignment is None:
        alignment = align_plans(plans, exact_matching, names)
    columns: dict[str, Any] = {}
    for plan, name in zip(plans, names):
        rows = alignment[name]
        present = rows.notna().to_numpy()
        pos = rows.fillna(0).to_numpy(dtype="int64")
        df = plan.df

        def pick(column: str, fill: Any, df=df, pos=pos, present=present) -> list:
            values = df[column].to_numpy()
            return [values[p] if ok else fill for p, ok in zip(pos, present)]

        columns[f"{name} name"] = pick("Name", "")
        columns[f"{name} ms"] = pd.array(pick("latency.avg_time", math.nan), dtype="float64")
        columns[f"{name} precision"] = [p if isinstance(p, str) else ""
                                        for p in pick("precision", "")]
    kept = alignment[[c for c in ("type", "match", "confidence") if c in alignment]]
    out = pd.concat([kept, pd.DataFrame(columns, index=alignment.index)], axis=1)
    first, last = out[f"{names[0]} ms"], out[f"{names[-1]} ms"]
    return out.assign(**{"delta ms": last.fillna(0.0) - first.fillna(0.0),
                         "speedup": first / last.where(last != 0)})


def layer_regressions(plans: Sequence[EnginePlan], names: Sequence[str] | None = None,
                      top: int | None = None, exact_matching: bool = True,
                      alignment: pd.DataFrame | None = None) -> pd.DataFrame:
    """:func:`compare_layers` rows of the first or last engine, largest regression (last vs
    first ``delta ms``) first."""
    names = _names(plans, names)
    df = compare_layers(plans, names, exact_matching, alignment)
    ends = df[f"{names[0]} name"].ne("") | df[f"{names[-1]} name"].ne("")
    df = df[ends].sort_values("delta ms", ascending=False, kind="stable", ignore_index=True)
    return df.head(top) if top is not None else df


def compare_onnx_nodes(plans: Sequence[EnginePlan], names: Sequence[str] | None = None
                       ) -> pd.DataFrame:
    """Per ONNX node: its latency in each engine, a fused layer's time split between its nodes as
    in :func:`trex.onnx_map.latency_by_onnx_node` (NaN where no layer of it is timed), and the
    layers that implement it; ``attrs["without_metadata"]`` names engines whose layers list no
    ONNX nodes in ``Metadata`` (pre-8.6: nodes come from the fused layer names)."""
    from ..onnx_map import TENSORRT, latency_by_onnx_node

    names = _names(plans, names)
    tables = []
    missing = []
    for plan, name in zip(plans, names):
        if not has_onnx_metadata(plan):
            missing.append(name)
        table = latency_by_onnx_node(plan)
        tables.append(table[table["onnx_node"] != TENSORRT].set_index("onnx_node"))
    nodes = list(dict.fromkeys(node for table in tables for node in table.index))
    columns: dict[str, Any] = {"onnx_node": pd.Series(nodes, dtype=object)}
    for name, table in zip(names, tables):
        columns[f"{name} ms"] = pd.Series(table["latency_ms"].reindex(nodes).to_numpy(
            dtype="float64"), dtype="float64")
    for name, table in zip(names, tables):
        columns[f"{name} layers"] = pd.array(table["layers"].reindex(nodes).fillna(0).to_numpy(
            dtype="int64"), dtype="int64")
    for name in names[1:]:
        columns[f"{name} speedup"] = columns[f"{names[0]} ms"] / columns[f"{name} ms"]
    columns["delta ms"] = (columns[f"{names[-1]} ms"].fillna(0.0)
                           - columns[f"{names[0]} ms"].fillna(0.0))
    out = pd.DataFrame(columns)
    out.attrs["without_metadata"] = missing
    return out


# --------------------------------------------------------------------------- TREx's tables
def compare_engines_summaries_tbl(plans: Sequence[EnginePlan], orientation: str = "vertical"
                                  ) -> pd.DataFrame:
    """TREx's table of summaries, performance, device and builder settings: one row per attribute,
    or per engine with ``orientation="horizontal"``."""
    names = get_plans_names(plans)
    merged: dict[str, list[Any]] = {}
    for dicts in ([summary_dict(p) for p in plans], [p.performance_summary for p in plans],
                  [p.device_properties for p in plans], [p.builder_cfg for p in plans]):
        for key in dict.fromkeys(k for d in dicts for k in d):
            merged[key] = [d.get(key, "") for d in dicts]
    if orientation == "vertical":
        df = pd.DataFrame.from_dict(merged, orient="index", columns=names, dtype=object)
        df.insert(0, "attribute", list(merged))
        return df
    df = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in merged.items()})
    df.insert(0, "plan", names)
    return df


def _io_precisions(layer: Any) -> tuple[str, str]:
    if layer is None:
        return "", ""
    return (", ".join(t.precision for t in layer.inputs),
            ", ".join(t.precision for t in layer.outputs))


def _io_formats(layer: Any) -> str:
    ins = ", ".join(f"{t.format}:{t.shape}" for t in layer.inputs)
    outs = ", ".join(f"{t.format}:{t.shape}" for t in layer.outputs)
    return f"in: {ins}\tout: {outs}"


def _pairs(matched_indices_pairs: Any) -> list[tuple[Any, Any, str]]:
    """(row 1, row 2, match) from match_layers' list or align_layers' DataFrame."""
    if isinstance(matched_indices_pairs, pd.DataFrame):
        a = matched_indices_pairs["a"].astype(object).where(matched_indices_pairs["a"].notna(), None)
        b = matched_indices_pairs["b"].astype(object).where(matched_indices_pairs["b"].notna(), None)
        return list(zip(a, b, matched_indices_pairs["match"]))
    return [(a, b, "") for a, b in matched_indices_pairs]


def aligned_merge_plans(plan1: EnginePlan, plan2: EnginePlan, matched_indices_pairs: Any
                        ) -> pd.DataFrame:
    """TREx's merged table of two aligned plans (latencies, speedup, precisions, tactics, formats)
    from :func:`match_layers`' pairs, or :func:`align_layers`' frame (adds ``match``)."""
    rows = []
    time1, time2 = plan1.df["latency.avg_time"].to_numpy(), plan2.df["latency.avg_time"].to_numpy()
    tactic1, tactic2 = plan1.df["tactic"].to_numpy(), plan2.df["tactic"].to_numpy()
    for a, b, kind in _pairs(matched_indices_pairs):
        l1 = plan1.layers[a] if a is not None else None
        l2 = plan2.layers[b] if b is not None else None
        t1 = float(time1[a]) if a is not None else 0.0
        t2 = float(time2[b]) if b is not None else 0.0
        p1_in, p1_out = _io_precisions(l1)
        p2_in, p2_out = _io_precisions(l2)
        rows.append((
            l1.type if l1 is not None else l2.type, t1, t2,
            t1 / t2 if l1 is not None and l2 is not None and t2 else math.nan,
            p1_in, p2_in, p1_out, p2_out,
            tactic1[a] if a is not None else "",
            tactic2[b] if b is not None else "",
            _io_formats(l1) if l1 is not None else "",
            _io_formats(l2) if l2 is not None else "",
            l1.name if l1 is not None else "", l2.name if l2 is not None else "", kind))
    n1, n2 = (plan1.name, plan2.name) if plan1.name != plan2.name else (f"{plan1.name}.0",
                                                                        f"{plan2.name}.1")
    columns = ["type", "avg_time (1)", "avg_time (2)", "speedup (2)", "in-p (1)", "in-p (2)",
               "out-p (1)", "out-p (2)", "tactic (1)", "tactic (2)", "formats (1)", "formats (2)",
               n1, n2, "match"]
    df = pd.DataFrame(rows, columns=columns)
    if not isinstance(matched_indices_pairs, pd.DataFrame):
        df = df.drop(columns="match")
    return df


def aligned_layers(plan1: EnginePlan, plan2: EnginePlan, matched_indices_pairs: Any,
                   layer_type: str | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """TREx's two aligned layer tables (id, name, type, latency) with blank rows where one lacks a layer."""
    tbl1: list[tuple] = []
    tbl2: list[tuple] = []
    cols = ("Name", "type", "latency.avg_time")
    data1 = [plan1.df[c].tolist() for c in cols]
    data2 = [plan2.df[c].tolist() for c in cols]

    def add(tbl: list[tuple], data: list[list] | None, row: Any) -> None:
        if row is None:
            tbl.append((len(tbl), "", "", 0.0))
        else:
            tbl.append((len(tbl), data[0][row], data[1][row], data[2][row]))

    for a, b, _ in _pairs(matched_indices_pairs):
        type_a = data1[1][a] if a is not None else None
        type_b = data2[1][b] if b is not None else None
        if a is not None and b is not None:
            if layer_type is None or type_a == layer_type:
                add(tbl1, data1, a)
                add(tbl2, data2, b)
            continue
        if a is not None and (layer_type is None or type_a == layer_type):
            add(tbl2, None, None)
            add(tbl1, data1, a)
        if b is not None and (layer_type is None or type_b == layer_type):
            add(tbl1, None, None)
            add(tbl2, data2, b)
    columns = ("id", "name", "type", "latency.avg_time")
    return pd.DataFrame(tbl1, columns=columns), pd.DataFrame(tbl2, columns=columns)


def compare_engines_layer_details(plan1: EnginePlan, plan2: EnginePlan, row: int,
                                  exact_matching: bool = True) -> pd.DataFrame:
    """TREx's side-by-side details of row ``row`` of :func:`aligned_merge_plans` (name, time, ...)."""
    from .align import align_layers

    merged = aligned_merge_plans(plan1, plan2, align_layers(plan1, plan2, exact_matching))
    r = merged.iloc[row]
    n1, n2 = merged.columns[12], merged.columns[13]

    def same(x: str, y: str) -> str:
        return "Same" if r[x] == r[y] else "Different"

    return pd.DataFrame({
        "attribute": ["name", "avg_time", "tactic", "input precision", "output precision",
                      "formats", "match"],
        n1: [r[n1], r["avg_time (1)"], r["tactic (1)"], r["in-p (1)"], r["out-p (1)"],
             r["formats (1)"], r["match"]],
        n2: [r[n2], r["avg_time (2)"], r["tactic (2)"], r["in-p (2)"], r["out-p (2)"],
             r["formats (2)"], r["match"]],
        "comparison": ["", _ratio(r["avg_time (1)"], r["avg_time (2)"]),
                       same("tactic (1)", "tactic (2)"), same("in-p (1)", "in-p (2)"),
                       same("out-p (1)", "out-p (2)"), same("formats (1)", "formats (2)"), ""],
    }, dtype=object)
