"""``trex timeline PATH -o trace.json``: timings and layer averages as a Chrome/Perfetto trace."""

from __future__ import annotations

import argparse
import os

import pandas as pd

from .. import timeline
from ..errors import InputError
from ..model.plan import EnginePlan
from ..outputs import default_name, folder_of, output_name
from ..safety import terminal_text
from . import numbers
from .engine_args import EngineArgs
from .options import add_output_options, output_path
from .output import warn

ENGINES = EngineArgs(many=False, runs_of="a timing/profile file")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "timeline", help="export timings as a Chrome/Perfetto trace",
        description="Write per-iteration timings (--exportTimes) and per-layer average latencies "
                    "laid out in execution order, on their CUDA streams, as Trace Event JSON for "
                    "ui.perfetto.dev or chrome://tracing. PATH is an engine prefix, a folder, any "
                    "of its files, or a bare --exportTimes file.")
    ENGINES.add_to(parser, "an engine prefix, a folder, any one of the engine's files, or a "
                           "bare --exportTimes file")
    add_output_options(parser, "trace file", "<folder>.<engine>.trace.json")
    parser.add_argument("--max-iterations", type=numbers.COUNT, default=None, metavar="N",
                        help="draw only the first N iterations")
    parser.add_argument("--no-layers", dest="layers", action="store_false",
                        help="leave out the per-layer track")
    parser.add_argument("--no-iterations", dest="iterations", action="store_false",
                        help="leave out the per-iteration tracks")
    parser.add_argument("--latency-type", default="avg_time",
                        choices=["avg_time", "median_time", "time"],
                        help="layer latency to draw (default avg_time)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    source: EnginePlan | pd.DataFrame | None = timeline.bare_timings(args.path, args.profile_run)
    if source is not None and args.profiling_json:
        raise InputError(args.path, "is a bare --exportTimes file: --profiling-json needs the "
                                    "engine's layer information beside it")
    if source is None:
        (source,) = ENGINES.load(args).plans
    name = source.name if isinstance(source, EnginePlan) else "timings"
    if isinstance(source, EnginePlan):
        for warning in source.warnings:
            warn(name, warning)
    output = output_path(args, lambda: default_name(source, ".trace.json")
                         if isinstance(source, EnginePlan) else
                         output_name([folder_of(args.path), os.path.basename(args.path)],
                                     ".trace.json"))
    trace = timeline.chrome_trace(source, iterations=args.iterations, layers=args.layers,
                                  max_iterations=args.max_iterations, latency=args.latency_type)
    path = timeline.write_trace(trace, output)
    info = trace["otherData"]
    print(terminal_text(f"Created file://{path} ({len(trace['traceEvents']):,} events: "
                        f"{info['iterations']:,} iterations, {info['layers']:,} layers); open it "
                        "in ui.perfetto.dev or chrome://tracing"))
    return 0
