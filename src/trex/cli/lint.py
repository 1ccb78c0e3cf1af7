"""``trex lint PATH...``: run the linters; ``--fail-on`` turns findings into exit status 1 for CI."""

from __future__ import annotations

import argparse

import pandas as pd

from ..lint import LINTERS, SEVERITIES, lint_report, severity_at_least
from ..lint.base import findings_frame
from ..safety import terminal_text
from ..text_forms import bytes_text, is_bytes_key
from . import markdown
from .engine_args import EngineArgs
from .output import (
    FORMATS,
    add_format_options,
    csv_options,
    csv_text,
    format_value,
    stdout_for,
    text_table,
    to_json,
)

ENGINES = EngineArgs(many=True, profiles=True, names=True)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "lint", help="find performance hazards in one or more engines",
        description="Run trex's linters on engines. PATH is an engine prefix, a folder, or any of "
                    "its files; a folder of engine folders stands for each of them. Exit status: "
                    "0, or 1 when --fail-on finds a finding at or above "
                    "that severity, 2 on bad input.")
    ENGINES.add_to(parser)
    add_format_options(parser, (*FORMATS, "markdown"))
    parser.add_argument("--fail-on", choices=("warning", "error"), default=None,
                        help="exit 1 if a finding of this severity or worse exists")
    parser.add_argument("--min-severity", choices=SEVERITIES, default="info",
                        help="show findings of this severity or worse (default: all)")
    parser.add_argument("--linter", "-l", action="append", choices=list(LINTERS), default=None,
                        metavar="NAME", help=f"run only this linter (repeatable): {', '.join(LINTERS)}")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="table format: add the mitigation and help columns")
    parser.set_defaults(run=run)


def _evidence(evidence: dict) -> str:
    """``key=value`` pairs; byte counts grouped with their unit, as every command shows them."""
    def text(key: str, value: object) -> str:
        if is_bytes_key(key):
            return bytes_text(value)
        return format_value(value) if isinstance(value, float) else str(value)

    return ", ".join(f"{k}={text(k, v)}" for k, v in evidence.items())


def run(args: argparse.Namespace) -> int:
    engines = ENGINES.load(args)
    reports = [lint_report(plan, args.linter) for plan in engines.plans]
    failed = bool(args.fail_on) and any(report.fails(args.fail_on) for report in reports)
    labels = engines.labels
    out = stdout_for(args.format)
    if args.format == "json":
        out.write(to_json([{
            "engine": report.plan_name,
            "label": label,
            "counts": report.counts(),
            "worst": report.worst(),
            "findings": [f.as_dict() for f in report.findings
                         if severity_at_least(f.severity, args.min_severity)],
            "notes": report.notes,
        } for label, report in zip(labels, reports)]))
        out.write("\n")
        return 1 if failed else 0
    if args.format == "csv":  # one table: every shown finding of every engine
        frames = []
        for label, report in zip(labels, reports):
            df = findings_frame([f for f in report.findings
                                 if severity_at_least(f.severity, args.min_severity)])
            df["evidence"] = [_evidence(e) for e in df["evidence"]]
            frames.append(df.assign(engine=label)[["engine", *df.columns]])
        out.write(csv_text(pd.concat(frames, ignore_index=True), **csv_options(args)))
        return 1 if failed else 0
    if args.format == "markdown" and args.fail_on:
        verdict = "❌ **Lint gate failed**" if failed else "✅ **Lint gate passed**"
        out.write(f"{verdict}: {'a' if failed else 'no'} finding at {args.fail_on} or worse "
                  f"(--fail-on {args.fail_on})\n\n")
    for label, report in zip(labels, reports):
        shown = [f for f in report.findings if severity_at_least(f.severity, args.min_severity)]
        by_level = {level: sum(f.severity == level for f in report.findings) for level in SEVERITIES}
        title = (f"{label}: {len(report.findings)} findings "
                 f"({', '.join(f'{v} {k}' for k, v in reversed(by_level.items()))})")
        columns = ["severity", "linter", "layer", "hazard", "evidence"]
        if args.verbose:
            columns += ["mitigation", "help"]
        df = findings_frame(sorted(shown, key=lambda f: -SEVERITIES.index(f.severity)))
        df["evidence"] = [_evidence(e) for e in df["evidence"]]
        if args.format == "markdown":
            out.write(f"{markdown.heading(3, title)}\n\n")
            if shown:
                out.write(markdown.table(df[columns], max_width=200 if args.verbose else 120) + "\n")
            if report.notes:
                out.write("\n" + markdown.bullet_list(report.notes, "note: ") + "\n")
            out.write("\n")
            continue
        out.write(f"== {title} ==\n")
        if shown:
            out.write(text_table(df[columns], max_width=200 if args.verbose else 60) + "\n")
        for note in report.notes:
            out.write(f"note: {terminal_text(note)}\n")
        out.write("\n")
    return 1 if failed else 0
