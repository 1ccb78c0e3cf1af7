"""``trex summary PATH...``: model facts, latency per type and precision, slowest layers, tactics."""

from __future__ import annotations

import argparse

from .. import summary as views
from ..model.plan import EnginePlan
from ..safety import terminal_text
from . import numbers
from .options import add_profile_options, heading_labels
from .output import add_format_options, csv_options, csv_text, kv_table, stdout_for, text_table, to_json, warn


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "summary", help="summarize one or more engines",
        description="Summarize engines. PATH is an engine prefix, a folder, or any of its files "
                    "(layer JSON, profile, metadata, log).")
    parser.add_argument("paths", nargs="+", metavar="PATH")
    parser.add_argument("--profiling_json", "-pj", default=None,
                        help="profile JSON to use (default: found next to the layer file)")
    add_profile_options(parser)
    parser.add_argument("--sort_key", "-sk", choices=["count", "latency", "id"], default="count",
                        help="how to sort the tactic summary")
    parser.add_argument("--group_tactics", "-gt", action="store_true",
                        help="group tactics by kernel family (drop the _0x... hash)")
    parser.add_argument("--top", "-n", type=numbers.COUNT, default=10,
                        help="number of slowest layers")
    add_format_options(parser)
    parser.set_defaults(run=run)


def load(path: str, args: argparse.Namespace) -> EnginePlan:
    """Load one engine as the user pointed at it."""
    plan = EnginePlan.from_path(path, profile_id=args.profile_id, profile_run=args.profile_run)
    if args.profiling_json:
        plan = EnginePlan(plan.graph_file, args.profiling_json, name=plan.name,
                          profile_id=args.profile_id, profile_run=args.profile_run)
    return plan


def run(args: argparse.Namespace) -> int:
    sections = []
    for path in args.paths:
        plan = load(path, args)
        sections.append((plan, {
            "by_type": views.latency_by_type(plan),
            "by_precision": views.latency_by_precision(plan),
            "slowest": views.slowest_layers(plan, args.top),
            "tactics": views.tactic_summary(plan, args.group_tactics, args.sort_key),
        }))
    out = stdout_for(args.format)
    labels = heading_labels([plan for plan, _ in sections])
    if args.format == "json":
        out.write(to_json([{"label": label, **views.model_summary(plan), **tables}
                           for label, (plan, tables) in zip(labels, sections)]))
        out.write("\n")
        return 0
    for label, (plan, tables) in zip(labels, sections):
        if args.format == "csv":
            for title, df in tables.items():
                out.write(f"# {terminal_text(label)}: {title}\n{csv_text(df, **csv_options(args))}")
            continue
        out.write(f"== {terminal_text(label)} ==\n")
        out.write(kv_table(views.headline_rows(plan)) + "\n")
        for title, section in (("Device", views.device_rows(plan)),
                               ("Builder configuration", plan.builder_cfg),
                               ("Performance summary (trtexec)", views.performance_rows(plan))):
            if section:
                out.write(f"\n{title}:\n{kv_table(section)}\n")
        for title, df in (("Latency by type", tables["by_type"]),
                          ("Latency by precision", tables["by_precision"]),
                          (f"Slowest {args.top} layers", tables["slowest"]),
                          ("Tactics", tables["tactics"])):
            out.write(f"\n{title}:\n{text_table(df)}\n")
        for warning in plan.warnings:
            warn(label, warning)
        out.write("\n")
    return 0
