"""``trex report PATH [PATH ...] -o report.html``: one self-contained HTML report (offline)."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from ..errors import InputError
from ..outputs import default_name, output_name, safe_filename
from ..safety import terminal_text
from .engine_args import EngineArgs
from .options import add_output_options, output_path
from .output import warn, warn_plan
from .progress import progress

ENGINES = EngineArgs(many=True, profiles=True, names=True, loose=True, labels="path")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``trex report``."""
    parser = subparsers.add_parser(
        "report", help="write one self-contained HTML report (several engines: with a comparison)",
        description="Write one HTML file that opens offline from file:// (no server, no network): "
                    "header, charts, a searchable layer table, the interactive engine graph, "
                    "linter findings and, with several engines, their comparison (the first is "
                    "the baseline). Each PATH is an engine prefix, a folder or any of its files; a "
                    "folder of engine folders stands for each of them, in name order.")
    ENGINES.add_to(parser)
    add_output_options(parser, "output file", "<folder>.<engine>.report.html, or "
                                              "<label>-vs-<label>....report.html for several "
                                              "engines,")
    parser.add_argument("--title", default=None, help="the report's title")
    parser.add_argument("--gpu", default=None,
                        help="GPU whose peaks the roofline uses (default: from the device metadata)")
    parser.set_defaults(run=run)


def default_output(plans: list[Any], labels: list[str]) -> str:
    """One engine: ``<folder>.<engine>.report.html``; several: their labels joined by ``-vs-``."""
    if len(plans) == 1:
        return default_name(plans[0], ".report.html")
    return output_name(["-vs-".join(safe_filename(label, default="") for label in labels)],
                       ".report.html")


def run(args: argparse.Namespace) -> int:
    from ..perf import gc_paused

    # The whole command without the cyclic collector: its passes over a big plan's objects cost
    # more than the report (one collection runs when the process ends anyway).
    with gc_paused():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from ..compare import engine_mismatches
    from ..html_report import write_report

    start = time.perf_counter()
    with progress("trex report") as shown:
        engines = ENGINES.load(args, lambda path: shown.step(f"loading {path}"))
        plans, paths, labels = engines.plans, engines.paths, engines.labels
        shown.layers(sum(len(plan.rows) for plan in plans))
        shown.clear()
        for mismatch in engine_mismatches(plans, labels):
            warn("trex report", mismatch)
        for label, plan in zip(labels, plans):
            warn_plan(label, plan)
        output = output_path(args, lambda: default_output(plans, labels))
        try:
            result = write_report(plans, output, labels=labels, title=args.title, gpu=args.gpu,
                                  exact_matching=not args.loose, paths=paths, progress=shown)
        except ImportError as exc:
            raise InputError(None, str(exc)) from None
    for note in result.notes:
        print(terminal_text(f"note: {note}"), file=sys.stderr)
    what = f"{result.engines} engines" if result.engines > 1 else "1 engine"
    print(terminal_text(f"Created file://{result.path} ({what}, {result.layers} layers, "
                        f"{result.bytes / 1e6:.1f} MB, {time.perf_counter() - start:.2f} s)"))
    return 0
