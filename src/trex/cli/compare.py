"""``trex compare A B [C ...]``: engines side by side, aligned layers, and a regression gate."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import pandas as pd

from .. import compare as views
from ..errors import InputError
from ..model.plan import EnginePlan
from ..safety import markdown_text, terminal_text
from ..text_forms import bytes_text, throughput_text
from . import markdown, numbers
from .engine_args import EngineArgs
from .output import (
    FORMATS,
    add_format_options,
    csv_options,
    csv_text,
    stdout_for,
    text_table,
    to_json,
    warn,
    warn_plan,
)
from .progress import progress

_SHORT = 12  # longer display names become the engines' letters in text tables
_EPILOG = """\
metrics for --fail-if-slower (the last engine against the first):
  total        sum of the layers' average latencies (per-layer profile; the default)
  gpu-compute  median GPU compute time of trtexec's performance summary
  latency      median end-to-end latency of trtexec's performance summary
  throughput   trtexec's throughput; "slower" means 1/throughput grew

exit status: 0 compared (gate passed), 1 gate failed, 2 bad input
"""


ENGINES = EngineArgs(many=True, profiles=True, names=True, loose=True, labels="path",
                     metavar="ENGINE", min_engines=2,
                     too_few="compare needs at least two engines (or --profiles on an engine "
                             "with several optimisation profiles)")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``trex compare``."""
    parser = subparsers.add_parser(
        "compare", help="compare two or more engines (layers aligned, regression gate)",
        description="Compare engines side by side: summary, latency per layer type and precision, "
                    "aligned layers (largest regressions first) and ONNX nodes. Each ENGINE is an "
                    "engine prefix, a folder or any of its files (a folder of engine folders "
                    "stands for each of them, in name order); the first is the baseline.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    ENGINES.add_to(parser, "an engine prefix, a folder or any one of the engine's files; a "
                           "folder of engine folders stands for each engine in it, in name "
                           "order; the first engine is the baseline")
    parser.add_argument("--top", "-n", type=numbers.COUNT, default=10,
                        help="aligned layers and ONNX nodes to list (0: all; default 10)")
    parser.add_argument("--fail-if-slower", type=numbers.PERCENT, default=None,
                        metavar="PCT",
                        help="exit 1 if the last engine is more than PCT %% slower than the first "
                             "(a finite number >= 0)")
    parser.add_argument("--metric", choices=list(views.METRICS), default="total",
                        help="what --fail-if-slower compares (default: total)")
    parser.add_argument("--onnx-ops", action="store_true",
                        help="add the ONNX operators of the first and last engine paired across "
                             "exports whose node names differ (FP16 vs Q/DQ), with a confidence "
                             "per pair, and their time per operator type")
    parser.add_argument("--onnx", type=_onnx_files, default=None, metavar="A.onnx,B.onnx",
                        help="the ONNX file of each engine, comma-separated (an empty entry "
                             "skips one): op types, weight shapes and neighbours for --onnx-ops "
                             "(implies it; needs the onnx package)")
    add_format_options(parser, (*FORMATS, "markdown"))
    parser.set_defaults(run=run)


def _onnx_files(text: str) -> list[str]:
    """``a.onnx,b.onnx`` -> the paths (an empty entry: no file for that engine)."""
    return [part.strip() for part in text.split(",")]


def _onnx_ops(plans: list[EnginePlan], names: list[str], args: argparse.Namespace,
              top: int | None, alignment: pd.DataFrame) -> dict[str, Any]:
    """``--onnx-ops``: the operators paired across exports (largest regressions first, then the
    unpaired ones) and their totals per op type."""
    ops = views.compare_onnx_ops(plans, names, args.onnx, not args.loose, alignment)
    rows = ops.sort_values("delta ms", ascending=False, kind="stable", na_position="last",
                           ignore_index=True)
    return {"onnx_ops": rows.head(top) if top is not None else rows,
            "onnx_ops_total": len(ops),
            "onnx_op_types": views.compare_onnx_op_types(plans, names, ops=ops),
            "onnx_files": ops.attrs["onnx_files"]}


def _report(plans: list[EnginePlan], names: list[str], args: argparse.Namespace
            ) -> dict[str, Any]:
    top = args.top if args.top > 0 else None
    alignment = views.align_plans(plans, not args.loose, names)
    onnx = views.compare_onnx_nodes(plans, names)
    onnx_rows = onnx.sort_values("delta ms", ascending=False, kind="stable", ignore_index=True)
    extra = _onnx_ops(plans, names, args, top, alignment) if args.onnx_ops or args.onnx else {}
    return {
        "summary": views.summary_table(plans, names),
        "by_type": views.compare_by_type(plans, names),
        "by_precision": views.compare_by_precision(plans, names, alignment),
        "alignment": views.link_counts(alignment, names),
        "layers": views.layer_regressions(plans, names, top, alignment=alignment),
        "aligned_rows": len(alignment),
        "onnx_nodes": onnx_rows.head(top) if top is not None else onnx_rows,
        "onnx_without_metadata": onnx.attrs["without_metadata"],
        "gate": None,
        **extra,
        **_stages(plans, names),
    }


def _stages(plans: list[EnginePlan], names: list[str]) -> dict[str, Any]:
    """Transformer engines (the prefill and decode profiles of one LLM, with --profiles): each
    stage's shapes, blocks, time and bandwidth, latency per family, and why each stage's layer
    sum differs from its measured time. Nothing for engines without transformer blocks."""
    from ..transformer import family_table, has_transformer, stage_gap, stage_table

    if not has_transformer(plans):
        return {}
    return {"stages": stage_table(plans, names), "families": family_table(plans, names),
            "stage_gaps": {name: stage_gap(plan) for name, plan in zip(names, plans)}}


def _layers_for_text(df: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """The diff's text columns: first and last layer names, every engine's latency, delta."""
    first, last = names[0], names[-1]
    cols = ["type", "match", "confidence", f"{first} name", *[f"{n} ms" for n in names],
            f"{last} name", "delta ms", "speedup"]
    return df[cols]


_BYTES_ROWS = {"weights (bytes)": "weights", "activations (bytes, per layer I/O)":
               "activations (per layer I/O)", "activation footprint (bytes)": "activation footprint"}


def _summary_for_text(df: pd.DataFrame) -> pd.DataFrame:
    """The summary's rows as text shows them in every command: byte counts grouped with their
    unit, throughput with two decimals (JSON and CSV keep the numbers)."""
    out = df.copy()
    for i, label in enumerate(out["attribute"]):
        values = out.iloc[i, 1:]
        if label in _BYTES_ROWS:
            out.iloc[i, 1:] = [bytes_text(v) for v in values]
            out.iloc[i, 0] = _BYTES_ROWS[label]
        elif label.startswith("throughput"):
            out.iloc[i, 1:] = [throughput_text(v) for v in values]
    return out


def _onnx_note(missing: list[str], names: list[str], ops_shown: bool) -> str:
    if not missing:
        return ""
    other = ("the ONNX operators above are paired from the layers' fused names instead" if ops_shown
             else "--onnx-ops pairs them operator by operator from the layers' fused names")
    if len(missing) == len(names):
        return ("no engine lists ONNX node names in its layers' Metadata (TensorRT 8.6+ with "
                f"--profilingVerbosity=detailed), which the per-node table needs; {other}")
    return (f"{', '.join(missing)}: no ONNX node names in the layers (Metadata needs TensorRT "
            "8.6+ with --profilingVerbosity=detailed); their columns are empty")


def _engines_table(labels: list[str], paths: list[str], plans: list[EnginePlan],
                   letters: bool = True) -> pd.DataFrame:
    """Which engine each column is: its letter (the text tables' short names), label, path."""
    head = {"": [views.engine_letter(k) for k in range(len(plans))]} if letters else {}
    return pd.DataFrame({**head, "name": labels, "engine": [p.name for p in plans], "path": paths})


def _sections(report: dict[str, Any], names: list[str]) -> list[tuple[str, pd.DataFrame]]:
    """The comparison's tables with their titles, as the table and Markdown formats show them."""
    sections = [
        ("Summary", _summary_for_text(report["summary"])),
        (f"Latency by layer type (ms; speedup = {names[0]} / engine)", report["by_type"]),
        (f"Latency by precision (ms; speedup = {names[0]} / engine over aligned layers in "
         "that precision in both, of which 'pairs')", report["by_precision"]),
        ("Layer alignment of consecutive engines (pairs per match kind)", report["alignment"]),
        (f"Aligned layers, largest regressions first ({names[-1]} vs {names[0]}; "
         f"{len(report['layers'])} of {report['aligned_rows']} rows)",
         _layers_for_text(report["layers"], names)),
    ]
    if "stages" in report:
        sections.append(("Stages (transformer view per engine or optimisation profile)",
                         report["stages"]))
        sections.append(("Latency by family per stage (ms, % of the stage's layer sum)",
                         report["families"]))
        sections.append(("Layer sum vs measured GPU time per stage", _gap_table(report)))
    if len(report["onnx_nodes"]):
        sections.append((f"ONNX nodes, largest regressions first ({names[-1]} vs {names[0]}; a "
                         "fused layer counts for each of its nodes)", report["onnx_nodes"]))
    if "onnx_ops" in report:
        first, last = names[0], names[-1]
        ops = report["onnx_ops"]
        cols = ["op", "match", "confidence", f"{first} node", f"{first} ms", f"{last} node",
                f"{last} ms", "delta ms", "speedup", "evidence"]
        sections.append((f"ONNX operators paired across exports, largest regressions first "
                         f"({last} vs {first}; {len(ops)} of {report['onnx_ops_total']} rows; "
                         "a fused layer's time goes to its Conv/Gemm/MatMul; speedup = "
                         f"{first} / {last})", ops[cols]))
        sections.append((f"ONNX operators by type (ms; speedup = {first} / {last}; "
                         "(TensorRT): the layers TensorRT added)", report["onnx_op_types"]))
    return sections


def _gap_table(report: dict[str, Any]) -> pd.DataFrame:
    """One row per stage: layer sum, measured time, gap and why (the explanation's sentences)."""
    rows = []
    for name, gap in report["stage_gaps"].items():
        rows.append({"engine": name,
                     "layer sum ms": gap.get("sum_of_layers_ms") if gap.get("timed_layers") else None,
                     "measured ms": gap.get("measured_ms"), "gap ms": gap.get("gap_ms"),
                     "why": " ".join(f"{w}." for w in gap.get("explanation", []))})
    return pd.DataFrame(rows)


def _markdown(report: dict[str, Any], names: list[str], paths: list[str],
              plans: list[EnginePlan], note: str) -> str:
    """The comparison in Markdown, the gate's verdict first (what a CI reader looks for)."""
    gate = report["gate"]
    parts = [markdown.heading(3, f"trex compare: {' vs '.join(names)}"), ""]
    if gate is not None:
        verdict = "❌ **Regression gate failed**" if gate.failed else "✅ **Regression gate passed**"
        parts += [f"{verdict}: {markdown_text(gate.message)}", ""]
    parts += [markdown.section("Engines (the first is the baseline)",
                               markdown.table(_engines_table(names, paths, plans, False)))]
    parts += [markdown.section(title, markdown.table(df)) for title, df in _sections(report, names)]
    if note:
        parts.append(f"ONNX nodes: {markdown_text(note)}\n")
    return "\n".join(parts)


def run(args: argparse.Namespace) -> int:
    """Print the comparison; 1 if the regression gate fails."""
    _, notes = ENGINES.expand(args)
    if notes and args.fail_if_slower is not None:
        raise InputError(None, f"{notes[0].split(' is a folder', 1)[0]} is a folder of engine "
                               "folders: the gate needs the baseline and the candidate in order, "
                               "so name them (trex compare BASE NEW --fail-if-slower PCT)")
    with progress("trex compare") as shown:
        engines = ENGINES.load(args, lambda path: shown.step(f"loading {path}"))
        plans, paths, labels = engines.plans, engines.paths, engines.labels
        shown.layers(sum(len(plan.rows) for plan in plans))
        mismatches = views.engine_mismatches(plans, labels)
        if mismatches:  # first: the figures below compare unlike engines
            shown.clear()
            for mismatch in mismatches:
                warn("trex compare", mismatch)
        names = labels
        if args.format == "table" and max(len(n) for n in labels) > _SHORT:
            names = [views.engine_letter(k) for k in range(len(plans))]  # the legend maps them
        shown.step(f"aligning the layers of {len(plans)} engines")
        report = _report(plans, names, args)
        if args.fail_if_slower is not None:
            report["gate"] = views.check_regression(plans, args.fail_if_slower, args.metric, labels)
    gate = report["gate"]
    out = stdout_for(args.format)
    note = _onnx_note(report["onnx_without_metadata"], names, "onnx_ops" in report)

    if args.format == "json":
        data = {
            "engines": [{"label": n, "path": p, **views.engine_facts(plan).as_dict()}
                        for n, p, plan in zip(labels, paths, plans)],
            "warnings": mismatches,
            **{k: report[k] for k in ("summary", "by_type", "by_precision", "alignment", "layers",
                                      "aligned_rows", "onnx_nodes", "onnx_without_metadata",
                                      "onnx_ops", "onnx_ops_total", "onnx_op_types",
                                      "onnx_files", "stages", "families", "stage_gaps")
                   if k in report},
            "gate": None if gate is None else {**vars(gate), "message": gate.message},
        }
        out.write(to_json(data) + "\n")
    elif args.format == "csv":
        for key in ("summary", "by_type", "by_precision", "alignment", "layers", "onnx_nodes",
                    "onnx_ops", "onnx_op_types", "stages", "families"):
            if key not in report:
                continue
            out.write(f"# {key}\n{csv_text(report[key], **csv_options(args))}")
    elif args.format == "markdown":
        out.write(_markdown(report, names, paths, plans, note))
    else:
        out.write("Engines (first = baseline):\n")
        out.write(text_table(_engines_table(labels, paths, plans)) + "\n")
        for title, df in _sections(report, names):
            whys = df.pop("why").tolist() if "why" in df.columns else []
            out.write(f"\n{title}:\n{text_table(df, max_width=60)}\n")
            for engine, why in zip(df["engine"].tolist() if whys else [], whys):
                out.write(f"  {engine}: {why}\n")
        if note:
            out.write(f"\nONNX nodes: {note}\n")
        if gate is not None:
            out.write(f"\nRegression gate: {gate.message}\n")
    if args.format != "table" and gate is not None:
        print(terminal_text(f"trex compare: {gate.message}"), file=sys.stderr)
    for name, plan in zip(labels, plans):
        warn_plan(name, plan)
    return 1 if gate is not None and gate.failed else 0
