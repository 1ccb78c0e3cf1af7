"""What a report shows, as plain JSON-ready values, computed by trex's own views (never re-parsed).

Per engine: headline facts (model, device, builder configuration, latency, throughput, sizes,
warnings), the layer columns :mod:`~trex.html_report.layer_columns` declares (the declaration
itself is shipped once, as ``layer_columns``, for the page's table), the laid-out graph, linter
findings, roofline figures, per-iteration timings, ONNX op latencies and a few report-card figures;
per layer, the details shown on selection (attributes and tensors) go into a separate list that
the page parses only when a layer is first opened. With several engines, the comparison views of
:mod:`trex.compare` are added.

Numbers that are NaN or infinite become ``None`` (JSON has no NaN); anything that is not a JSON
value becomes its ``str``. Columns that repeat a few values are coded and the details and findings
are de-duplicated (:mod:`~trex.html_report.columns`, :mod:`~trex.html_report.details`): the page's
JSDoc types (``assets/js/00-types.js``, and ``layer-columns.d.ts`` generated from the declaration)
describe the JSON.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..compare.align import engine_letter
from ..jsonable import json_value as clean
from ..model.facts import engine_facts
from ..model.plan import EnginePlan
from . import layer_columns as _layer_columns
from .column_spec import encode, spec
from .columns import coded, floats, strings
from .details import FINDING_COLUMNS, Findings, LayerDetails
from .figures import report_colors

SCHEMA_VERSION = 3  # 3: the layer columns' declaration is shipped (``layer_columns``)
Progress = Callable[[str], None]  # told each step of a long report (``trex report`` shows them)


def _quiet(_step: str) -> None:
    """No progress shown."""


def _prefixed(progress: Progress, label: str, step: str) -> None:
    progress(f"{label}: {step}")


# ------------------------------------------------------------------ JSON-ready values
def frame(df: pd.DataFrame, columns: Sequence[str] | None = None) -> dict[str, Any]:
    """A DataFrame as ``{"columns": [...], "rows": [[...], ...]}`` of JSON values."""
    if columns is not None:
        df = df[[c for c in columns if c in df.columns]]
    rows = [[clean(v) for v in row] for row in df.itertuples(index=False, name=None)]
    return {"columns": [str(c) for c in df.columns], "rows": rows}


# ------------------------------------------------------------------ one engine
def layer_columns(plan: EnginePlan) -> dict[str, Any]:
    """The per-layer columns of the table, the charts and the search (one entry per ``plan.df``
    row): each column :data:`~trex.html_report.layer_columns.LAYER_COLUMNS` declares, read from
    the plan's facts and encoded as declared (:func:`~trex.html_report.column_spec.encode`)."""
    return encode(plan, _layer_columns.LAYER_COLUMNS)


def layer_details(plan: EnginePlan) -> LayerDetails:
    """Per layer ``[attributes, inputs, outputs]`` (see :class:`~trex.html_report.details.LayerDetails`)."""
    return LayerDetails(plan)


def headline(plan: EnginePlan) -> dict[str, Any]:
    """The header's facts: :func:`trex.summary.model_summary` (built on the engine's facts), and
    the same labelled text rows ``trex summary`` prints (units, named statistics, "–"), with the
    wording the header shows: the precision mix (``unknown`` for names-only exports), where the
    ONNX node names come from, and the caution of a profile of few iterations."""
    from ..onnx_map import onnx_sources_text, plan_onnx_nodes
    from ..summary import device_rows, headline_rows, model_summary, performance_rows

    summary = model_summary(plan)
    keep = ("layers", "detailed", "profiles", "profile_id", "average_time_ms", "weights_bytes",
            "weights_not_exported",
            "activations_bytes", "activation_footprint_bytes", "streams", "profile_iterations",
            "inputs", "outputs", "io_tensors", "gpu_compute_median_ms", "latency_median_ms",
            "throughput_qps", "batch_size", "precision_mix", "tensorrt_version", "trex_summary")
    facts = engine_facts(plan)
    out = {key: summary[key] for key in keep}
    out["onnx_metadata"] = facts.onnx_metadata
    out["onnx_sources"] = onnx_sources_text([source for _, source in plan_onnx_nodes(plan)])
    out["precision_text"] = facts.precision_text
    out["rows"] = headline_rows(plan)
    out["profile_caution"] = out["rows"].get("Caution", "")
    out["device_rows"] = device_rows(plan)
    out["performance_rows"] = performance_rows(plan)
    return clean(out)


def lint_payload(plan: EnginePlan, names: list[str]) -> dict[str, Any]:
    """Linter findings (``trex.lint.lint``) with the row of the layer each names (or None)."""
    from ..lint import lint_report

    report = lint_report(plan)  # lint()'s findings and notes, without its DataFrame
    return {"columns": FINDING_COLUMNS, "rows": Findings.of(report.findings, names),
            "notes": [str(n) for n in report.notes]}


def roofline_payload(plan: EnginePlan, gpu: str | None = None) -> dict[str, Any]:
    """:func:`trex.compute.roofline` for the layers with a compute model, and the peaks used."""
    from ..compute import roofline

    df = roofline(plan, gpu)
    flops = df["flops"].to_numpy(dtype="float64")
    total = df["bytes"].to_numpy(dtype="float64")
    keep = np.flatnonzero(np.isfinite(flops) & (flops > 0) & (total > 0))
    sub = df.iloc[keep]
    peaks: dict[str, float] = {}  # one roof per kind of math the plotted layers run
    for roof, peak in zip(sub["roof"].tolist(), sub["peak_tflops"].tolist()):
        if peak == peak and peak is not None:
            peaks.setdefault(str(roof), float(peak))
    bandwidth = float(df["peak_gbps"].iloc[0]) if len(df) else math.nan
    return {
        "gpu": df.attrs.get("gpu"),
        "source": str(df.attrs.get("peaks_source", "")),
        "bandwidth_gbps": bandwidth if math.isfinite(bandwidth) else None,
        "peaks_tflops": peaks,
        "row": keep.tolist(),
        "model": coded(sub["model"]),
        "roof": coded(sub["roof"]),
        "macs": [None if v is pd.NA else int(v) for v in sub["macs"].tolist()],
        "flops": floats(sub["flops"]),
        "bytes": sub["bytes"].astype("int64").tolist(),
        "intensity": floats(sub["arithmetic_intensity"], 6),
        "tflops": floats(sub["achieved_tflops"], 6),
        "gbps": floats(sub["achieved_gbps"], 4),
        "attainable": floats(sub["attainable_tflops"], 6),
        "bound": coded(sub["bound"]),
        "pct_roofline": floats(sub["pct_of_roofline"], 3),
        "notes": strings(sub["roof_note"].tolist()),
        "M": [None if v is pd.NA else int(v) for v in sub["M"].tolist()],
        "N": [None if v is pd.NA else int(v) for v in sub["N"].tolist()],
        "K": [None if v is pd.NA else int(v) for v in sub["K"].tolist()],
    }


def transformer_payload(plan: EnginePlan, gpu: str | None = None) -> dict[str, Any] | None:
    """The transformer view (:mod:`trex.transformer`): the one-line text, stage, blocks, latency
    per family, the step's traffic against the peak bandwidth and the layer-sum gap explained;
    None for an engine without transformer blocks."""
    from ..transformer import (
        blocks_frame,
        family_table,
        stage_gap,
        step_traffic,
        transformer_view,
        view_text,
    )

    view = transformer_view(plan)
    if not view:
        return None
    traffic = step_traffic(plan, gpu)
    families = family_table([plan], ["engine"]).rename(
        columns=lambda c: c.replace("engine ", ""))
    blocks = blocks_frame(plan).drop(columns=["first layer", "last layer"])  # names: the lint tab
    return clean({"text": view_text(view), "stage": view.stage, "grouping": view.grouping,
                  "blocks": frame(blocks), "families": frame(families),
                  "bandwidth": traffic.as_dict() if traffic is not None else None,
                  "gap": stage_gap(plan)})


def timings_payload(plan: EnginePlan) -> dict[str, Any]:
    """Per-iteration latency and GPU compute (every record; the first ``warmup_iterations`` are
    trtexec's warm-up), trtexec-rule percentiles of the timed ones and the timing analysis."""
    from ..iteration_stats import latency_percentiles, timing_analysis, timing_records

    analysis = timing_analysis(plan)
    out: dict[str, Any] = {"available": bool(analysis.get("available")),
                           "iterations": analysis.get("iterations", 0),
                           "warmup_iterations": analysis.get("warmup_iterations", 0),
                           "warmup_ms": analysis.get("warmup_ms"),
                           "flags": [str(f) for f in analysis.get("flags", [])],
                           "layer_gap": clean(analysis.get("layer_gap", {}))}
    if not out["available"]:
        return out
    records = timing_records(plan)
    out["latency"] = floats(records["latency_ms"], 6)
    out["compute"] = floats(records["compute_ms"], 6)
    out["percentiles"] = frame(latency_percentiles(plan))
    out["summary"] = clean({k: analysis.get(k) for k in (
        "throughput_qps", "gpu_utilization_pct", "h2d_pct", "d2h_pct", "enqueue_to_compute",
        "host_bound", "unstable")})
    return out


def engine_payload(plan: EnginePlan, label: str, path: str = "", gpu: str | None = None,
                   figures: bool = True, progress: Progress | None = None
                   ) -> tuple[dict[str, Any], LayerDetails]:
    """(the engine's page data, its per-layer details); ``progress`` is told each step."""
    step = progress or _quiet
    from ..onnx_map import latency_by_onnx_op
    from ..summary import latency_by_precision, latency_by_type, tactic_summary
    from .graphdata import start_graph_payload

    names = strings(plan.column("Name"))
    step("summary and layer columns")
    # the drawing first: where Graphviz lays it out (a graph of up to a few thousand layers), it
    # runs in its own process beside the steps below, and the graph step waits for it
    graph = start_graph_payload(plan)
    data: dict[str, Any] = {
        "name": str(plan.name),
        "label": str(label),
        "path": str(path),
        "detailed": bool(plan.detailed),
        "headline": headline(plan),
        "device": clean(plan.device_properties),
        "builder": clean(plan.builder_cfg),
        "performance": clean(plan.performance_summary),
        "inference": clean(plan.inference_options),
        "warnings": [str(w) for w in plan.warnings],
        "layers": layer_columns(plan),
        "by_type": frame(latency_by_type(plan)),
        "by_precision": frame(latency_by_precision(plan)),
        "tactics": frame(tactic_summary(plan, group_tactics=True, sort_key="latency")),
        "onnx_ops": frame(latency_by_onnx_op(plan)),
    }
    data["graph"] = {}  # its place in the page's data; made below, when Graphviz has had time
    step("linters")
    data["lint"] = lint_payload(plan, names)
    step("roofline and timings")
    data["roofline"] = roofline_payload(plan, gpu)
    data["timings"] = timings_payload(plan)
    found = transformer_payload(plan, gpu)
    if found is not None:  # only engines with transformer blocks have the key
        data["transformer"] = found
        if found["bandwidth"] is not None:
            data["roofline"]["step"] = found["bandwidth"]
    step(f"laying out the graph of {len(names):,} layers")
    data["graph"] = graph()
    data["figures"] = {}
    if figures:
        from .figures import engine_figures

        step("charts")
        data["figures"] = engine_figures(plan)
    step("layer details")
    return data, layer_details(plan)


# ------------------------------------------------------------------ several engines
def _ops_columns(first: str, last: str) -> list[str]:
    """The ONNX-operator pairs' columns the compare tab shows."""
    return ["op", "match", "confidence", f"{first} node", f"{first} ms", f"{last} node",
            f"{last} ms", "delta ms", "speedup", "evidence", f"{first} layer", f"{last} layer"]


def comparison_payload(plans: Sequence[EnginePlan], names: Sequence[str], exact_matching: bool = True,
                       figures: bool = True, progress: Progress | None = None) -> dict[str, Any]:
    """The comparison views of :mod:`trex.compare` for the engines, in order (the first is the base)."""
    from .. import compare

    names = list(names)
    (progress or _quiet)(f"comparing {len(plans)} engines")
    alignment = compare.align_plans(plans, exact_matching, names)
    layers = compare.compare_layers(plans, names, exact_matching, alignment)
    onnx = compare.compare_onnx_nodes(plans, names)
    ops = compare.compare_onnx_ops(plans, names, exact_matching=exact_matching, alignment=alignment)
    first, last = names[0], names[-1]
    rows = [[None if v is pd.NA else int(v) for v in alignment[name].tolist()] for name in names]
    # A row the first or the last engine lacks has no difference (its absence is not 0 ms).
    paired = [a is not None and z is not None for a, z in zip(rows[0], rows[-1])]
    aligned = {
        "type": strings(layers["type"].tolist()),
        "match": strings(layers["match"].tolist()),
        "rows": rows,
        "ms": [floats(layers[f"{name} ms"]) for name in names],
        "delta": [d if ok else None for d, ok in zip(floats(layers["delta ms"]), paired)],
        "speedup": floats(layers["speedup"]),
    }
    data = {
        "names": names,
        "summary": frame(compare.summary_table(plans, names)),
        "by_type": frame(compare.compare_by_type(plans, names)),
        "by_precision": frame(compare.compare_by_precision(plans, names, alignment)),
        "links": frame(compare.link_counts(alignment, names)),
        "aligned": aligned,
        "onnx": frame(onnx.sort_values("delta ms", ascending=False, kind="stable",
                                       ignore_index=True)),
        "onnx_without_metadata": [str(n) for n in onnx.attrs.get("without_metadata", [])],
        # ONNX operators of the first and last engine paired across exports (names may differ)
        "onnx_ops": frame(ops.sort_values("delta ms", ascending=False, kind="stable",
                                          na_position="last", ignore_index=True), _ops_columns(
            first, last)),
        "onnx_op_types": frame(compare.compare_onnx_op_types(plans, names, ops=ops)),
        "figures": {},
    }
    from ..transformer import family_table, has_transformer, stage_gap, stage_table

    if has_transformer(plans):  # prefill vs decode: only engines with transformer blocks
        letters = [engine_letter(k) for k in range(len(plans))]  # short column names
        data["stages"] = {
            "table": frame(stage_table(plans, names)),
            "families": frame(family_table(plans, letters)),
            "gaps": [clean({"engine": name, **stage_gap(plan)})
                     for name, plan in zip(names, plans)]}
    if figures:
        from .figures import comparison_figures

        data["figures"] = comparison_figures(plans, names)
    return data


def report_payload(plans: Sequence[EnginePlan], labels: Sequence[str] | None = None,
                   paths: Sequence[str] | None = None, title: str | None = None,
                   gpu: str | None = None, exact_matching: bool = True, figures: bool = True,
                   progress: Progress | None = None) -> tuple[dict[str, Any], list[LayerDetails]]:
    """(page data, per-engine layer details) for one engine or a comparison of several."""
    from .. import __version__

    if not plans:
        raise ValueError("a report needs at least one engine")
    labels = list(labels) if labels is not None else _default_labels(plans)
    if len(labels) != len(plans) or len(set(labels)) != len(labels):
        raise ValueError(f"need {len(plans)} distinct labels, got {labels}")
    paths = list(paths) if paths is not None else [getattr(p, "graph_file", "") for p in plans]
    engines, details = [], []
    for k, (plan, label, path) in enumerate(zip(plans, labels, paths)):
        tell = progress
        if progress is not None and len(plans) > 1:
            tell = functools.partial(_prefixed, progress, label)
        data, det = engine_payload(plan, label, path, gpu, figures, tell)
        data["letter"] = engine_letter(k)  # A ... Z, AA, AB: the comparison tables' names
        engines.append(data)
        details.append(det)
    payload: dict[str, Any] = {
        "schema": SCHEMA_VERSION,
        "generator": f"trex {__version__}",
        "title": title or (labels[0] if len(labels) == 1 else " vs ".join(labels)),
        "engines": engines,
        "comparison": comparison_payload(plans, labels, exact_matching, figures, progress)
        if len(plans) > 1 else None,
        "colors": report_colors(plans),
        "layer_columns": spec(_layer_columns.LAYER_COLUMNS),
    }
    return payload, details


def _default_labels(plans: Sequence[EnginePlan]) -> list[str]:
    names = [str(p.name) for p in plans]
    if len(set(names)) == len(names):
        return names
    return [f"{name}#{i + 1}" for i, name in enumerate(names)]
