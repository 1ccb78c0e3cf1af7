"""``trex summary PATH...``: model facts, latency per type and precision, slowest layers, tactics."""

from __future__ import annotations

import argparse
from typing import Any

import pandas as pd

from .. import summary as views
from ..model.facts import engine_facts
from ..model.plan import EnginePlan
from ..safety import terminal_text
from ..text_forms import items_text
from . import markdown, numbers
from .engine_args import EngineArgs
from .output import (
    FORMATS,
    MAX_VALUE_CHARS,
    add_format_options,
    csv_options,
    csv_text,
    kv_table,
    stdout_for,
    text_table,
    to_json,
    warn_plan,
)

ENGINES = EngineArgs(many=True, profiles=True, names=True)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "summary", help="summarize one or more engines",
        description="Summarize engines. PATH is an engine prefix, a folder, or any of its files "
                    "(layer JSON, profile, metadata, log); a folder of engine folders stands for "
                    "each of them.")
    ENGINES.add_to(parser)
    parser.add_argument("--sort_key", "-sk", choices=["count", "latency", "id"], default="count",
                        help="how to sort the tactic summary")
    parser.add_argument("--group_tactics", "-gt", action="store_true",
                        help="group tactics by kernel family (drop the _0x... hash)")
    parser.add_argument("--top", "-n", type=numbers.COUNT, default=10,
                        help="number of slowest layers")
    add_format_options(parser, (*FORMATS, "markdown"))
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    engines = ENGINES.load(args)
    sections = [(plan, {
        "by_type": views.latency_by_type(plan),
        "by_precision": views.latency_by_precision(plan),
        "by_math_precision": views.latency_by_math_precision(plan),
        "slowest": views.slowest_layers(plan, args.top),
        "tactics": views.tactic_summary(plan, args.group_tactics, args.sort_key),
    }) for plan in engines.plans]
    out = stdout_for(args.format)
    labels = engines.labels
    if args.format == "markdown":
        out.write("\n".join(_markdown(label, plan, tables, args.top)
                             for label, (plan, tables) in zip(labels, sections)))
        return 0
    if args.format == "json":
        out.write(to_json([{"label": label, **views.model_summary(plan), **tables,
                            **_transformer_json(plan)}
                           for label, (plan, tables) in zip(labels, sections)]))
        out.write("\n")
        return 0
    for label, (plan, tables) in zip(labels, sections):
        if args.format == "csv":
            for title, df in tables.items():
                out.write(f"# {terminal_text(label)}: {title}\n{csv_text(df, **csv_options(args))}")
            continue
        out.write(f"== {terminal_text(label)} ==\n")
        rows = views.headline_rows(plan)
        facts = engine_facts(plan)
        for key, tensors in (("Inputs", facts.inputs), ("Outputs", facts.outputs)):
            if tensors:  # long lists cut between tensors, not inside one (-f json has them all)
                rows[key] = items_text(tensors, MAX_VALUE_CHARS)
        out.write(kv_table(rows) + "\n")
        for title, section in (("Device", views.device_rows(plan)),
                               ("Builder configuration", plan.builder_cfg),
                               ("Performance summary (trtexec)", views.performance_rows(plan))):
            if section:
                out.write(f"\n{title}:\n{kv_table(section)}\n")
        for title, df in (("Latency by type", tables["by_type"]),
                          ("Latency by precision", tables["by_precision"]),
                          ("Latency by math precision", tables["by_math_precision"]),
                          *_transformer_tables(plan),
                          (f"Slowest {args.top} layers", tables["slowest"]),
                          ("Tactics", tables["tactics"])):
            if title.startswith("Slowest") and df.empty:
                out.write(f"\n{title}: – (no layer has a time: --exportProfile)\n")
                continue
            out.write(f"\n{title}:\n{text_table(df)}\n")
        warn_plan(label, plan)
        out.write("\n")
    return 0


def _markdown(label: str, plan: EnginePlan, tables: dict, top: int) -> str:
    """One engine's summary in Markdown: the header facts, then each table, then warnings."""
    parts = [markdown.heading(3, label), "", markdown.pairs(views.headline_rows(plan)), ""]
    for title, section in (("Device", views.device_rows(plan)),
                           ("Builder configuration", plan.builder_cfg),
                           ("Performance summary (trtexec)", views.performance_rows(plan))):
        if section:
            parts.append(markdown.section(title, markdown.pairs(section)))
    for title, df in (("Latency by type", tables["by_type"]),
                      ("Latency by precision", tables["by_precision"]),
                      *_transformer_tables(plan),
                      (f"Slowest {top} layers", tables["slowest"]),
                      ("Tactics", tables["tactics"])):
        parts.append(markdown.section(title, markdown.table(df)))
    if plan.warnings:
        parts.append(markdown.bullet_list(plan.warnings, "warning: ") + "\n")
    if plan.notes:
        parts.append(markdown.bullet_list(plan.notes, "note: ") + "\n")
    return "\n".join(parts)


_BLOCK_TEXT_COLUMNS = ["block", "layers", "attention", "attention ms", "Sq", "Skv", "RoPE",
                       "RoPE ms", "KV cache", "KV cache ms", "GEMMs", "norms", "MoE",
                       "collectives", "latency ms", "latency %"]


def _transformer_tables(plan: EnginePlan) -> list[tuple[str, pd.DataFrame]]:
    """The transformer blocks and the latency per family (none without transformer blocks)."""
    from ..transformer import blocks_frame, family_table, transformer_view

    if not transformer_view(plan):
        return []
    return [("Transformer blocks", blocks_frame(plan)[_BLOCK_TEXT_COLUMNS]),
            ("Latency by family (transformer)", family_table([plan], ["engine"]).rename(
                columns=lambda c: c.replace("engine ", "")))]


def _transformer_json(plan: EnginePlan) -> dict[str, Any]:
    found = views.transformer_summary(plan)
    return {} if found is None else {"transformer": found}
