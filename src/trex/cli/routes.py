"""``trex routes CACHE.jsonl [...]``: a TensorRT 11.1 build-route sweep, route by route.

Reads trtexec's tuning cache (``--tuningCacheFile``) and prints every route with its GPU time,
speedup over the default route, accuracy loss against the threshold, crashes, knob values and
the best route that passes; with the iterations' exports, what changed between the default and
the best route (the engine comparison, optionally as the HTML report).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from .. import routes as views
from ..errors import InputError
from ..safety import terminal_text
from . import numbers
from .engine_args import EngineArgs
from .output import (
    add_format_options,
    csv_options,
    csv_text,
    stdout_for,
    text_table,
    to_json,
    warn,
    warn_plan,
)

_EPILOG = """\
status of a route:
  ok                 built, timed, within the accuracy threshold (or no threshold to judge)
  over threshold     an output's accuracy loss is above the threshold (or not finite)
  loss not measured  a threshold applies but the iteration has no loss for every output
  crashed            the build or the run failed (error message shown)
  no GPU time        no time was recorded
only "ok" routes can be the best; speedup = default route's GPU time / the route's.

exit status: 0 shown, 2 bad input
"""


# The iterations' engines are named by the sweep, not by paths: the profile, run and alignment
# options of the group apply to them.
ENGINES = EngineArgs(paths=False, profiling_json=False, loose=True,
                     description="How the iterations' engines (--engines) are read and aligned "
                                 "(the same options as in every command that reads engines).")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``trex routes``."""
    parser = subparsers.add_parser(
        "routes", help="a TensorRT 11.1 build-route sweep (trtexec --tuningCacheFile)",
        description="Show a build-route sweep from trtexec's tuning cache (--tuneBuildRoutes "
                    "--tuningCacheFile=CACHE.jsonl): every route with its GPU time, speedup over "
                    "the default route, accuracy loss per output against the threshold, "
                    "crashes, which knob values helped, and the best route that passes the "
                    "accuracy check. With the iterations' exports (a FOLDER of "
                    "<engine>.iter<N> files as `trex process <engine>.iter<N> FOLDER -p` writes "
                    "them), compare the default and the best route.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", metavar="CACHE",
                        help="tuning cache files; a folder here is taken as --engines")
    parser.add_argument("--engines", "-e", default=None, metavar="FOLDER",
                        help="folder holding the iterations' exports (<engine>.iter<N>.*)")
    parser.add_argument("--iterations", "-i", default=None, metavar="N,M",
                        help="iterations to compare (default: the default and the best route)")
    parser.add_argument("--report", "-r", default=None, metavar="HTML",
                        help="also write the comparison as an HTML report (needs --engines)")
    parser.add_argument("--accuracy-threshold", type=numbers.LOSS, default=None,
                        metavar="X",
                        help="judge losses against X instead of the sweep's --accuracyThreshold")
    parser.add_argument("--top", "-n", type=numbers.COUNT, default=10,
                        help="layers listed in the comparison (0: all; default 10)")
    ENGINES.add_to(parser)
    add_format_options(parser)
    parser.set_defaults(run=run)


def _iterations(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        picked = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise InputError(None, f"--iterations takes iteration numbers like 0,3, not {text!r}"
                         ) from None
    if len(picked) < 2 or min(picked) < 0:
        raise InputError(None, "--iterations needs two or more iteration numbers")
    return picked


def run(args: argparse.Namespace) -> int:
    """Print the sweep(s); compare iterations when their exports are given."""
    caches = [p for p in args.paths if not Path(p).is_dir()]
    folders = [p for p in args.paths if Path(p).is_dir()]
    if args.engines is not None:
        folders.append(args.engines)
    if not caches:
        raise InputError(args.paths[0], "is a folder: name the tuning cache too "
                                        "(trex routes CACHE.jsonl FOLDER)")
    if len(folders) > 1 or (folders and len(caches) > 1):
        raise InputError(None, "compare iterations of one sweep at a time: one tuning cache and "
                               "one folder of exports")
    threshold = args.accuracy_threshold
    if threshold is not None and (not math.isfinite(threshold) or threshold < 0):
        raise InputError(None, f"--accuracy-threshold must be a finite number >= 0, not {threshold}")
    if args.report and not folders:
        raise InputError(None, "--report needs the iterations' exports (--engines FOLDER)")
    picked = _iterations(args.iterations)
    analyses = [views.analyse(path, threshold) for path in caches]
    comparison = None
    if folders:
        comparison = _compare(analyses[0], folders[0], picked, args)
    out = stdout_for(args.format)
    if args.format == "json":
        data = [views.route_json(a) for a in analyses]
        if comparison is not None:
            data[0]["comparison"] = {k: v for k, v in comparison.items() if k != "plans"}
        out.write(to_json(data[0] if len(data) == 1 else data) + "\n")
    elif args.format == "csv":
        for analysis in analyses:
            prefix = f"{terminal_text(analysis.cache.source)}: " if len(analyses) > 1 else ""
            out.write(f"# {prefix}routes\n{csv_text(views.route_table(analysis), **csv_options(args))}")
            out.write(f"# {prefix}knobs\n{csv_text(views.knob_table(analysis), **csv_options(args))}")
        if comparison is not None:
            for key in ("summary", "by_type", "layers"):
                out.write(f"# comparison {key}\n{csv_text(comparison[key], **csv_options(args))}")
    else:
        for k, analysis in enumerate(analyses):
            if k:
                out.write("\n")
            out.write(_text(analysis))
        if comparison is not None:
            out.write(_comparison_text(comparison))
    for analysis in analyses:
        for warning in analysis.cache.warnings:
            warn(analysis.cache.source, warning)
    if comparison is not None:
        for label, plan in zip(comparison["labels"], comparison["plans"]):
            warn_plan(label, plan)
        if comparison.get("report"):
            print(f"Created file://{comparison['report']}", file=sys.stderr if
                  args.format != "table" else sys.stdout)
    return 0


def _compare(analysis: views.RouteAnalysis, folder: str, picked: list[int] | None,
             args: argparse.Namespace) -> dict[str, Any]:
    from .. import compare

    plans, labels, prefixes = views.route_plans(
        analysis, folder, picked, lambda path: ENGINES.load_path(path, args)[0])
    top = args.top if args.top > 0 else None
    layers = compare.compare_layers(plans, labels, exact_matching=not args.loose)
    layers = layers.sort_values("delta ms", kind="stable", ignore_index=True)  # savings first
    result: dict[str, Any] = {
        "engines": [{"label": label, "iter": int(Path(p).name.rsplit(".iter", 1)[1]),
                     "prefix": str(p), **compare.engine_facts(plan).as_dict()}
                    for label, p, plan in zip(labels, prefixes, plans)],
        "labels": labels, "plans": plans,
        "summary": compare.summary_table(plans, labels),
        "by_type": compare.compare_by_type(plans, labels),
        "layers": layers.head(top) if top is not None else layers,
        "aligned_rows": len(layers),
        "report": None,
    }
    if args.report:
        from ..html_report import write_report

        try:
            done = write_report(plans, args.report, labels=labels,
                                title=f"Build routes: {' vs '.join(labels)}",
                                exact_matching=not args.loose,
                                paths=[str(p) for p in prefixes])
        except ImportError as exc:
            raise InputError(None, str(exc)) from None
        result["report"] = done.path
    return result


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f} ms"


def _text(analysis: views.RouteAnalysis) -> str:
    cache, header = analysis.cache, analysis.cache.header
    crashed = [r for r in analysis.routes if r.status == views.CRASHED]
    over = [r for r in analysis.routes if r.status == views.OVER_THRESHOLD]
    lines = [f"Tuning cache: {cache.source} (tuner {header.tuner_version}, search "
             f"{header.searching_algorithm or '?'}, {len(analysis.routes)} iterations, "
             f"{len(crashed)} crashed, {len(over)} over the accuracy threshold)"]
    if header.tuning_expr:
        lines.append(f"Routes swept: {header.tuning_expr}")
    if analysis.threshold is not None:
        algorithm = header.accuracy_algorithm or "?"
        lines.append(f"Accuracy: {algorithm} loss per output ({', '.join(analysis.outputs) or '-'}"
                     f") <= {analysis.threshold:g} ({analysis.threshold_source})")
    default = analysis.default
    shown = f'"{header.default_build_route}"' if header.default_build_route else "(all defaults)"
    lines.append(f"Default route {shown}: " + (
        f"iteration {default.iter}, {_ms(default.gpu_time)}, {default.status}"
        if default is not None else "not run"))
    best = analysis.best
    if best is not None:
        speed = f", {best.speedup:.2f}x the default's speed" if best.speedup else ""
        loss = f", max loss {best.max_loss:.4g}" if best.max_loss is not None else ""
        lines.append(f"Best route: iteration {best.iter}, {_ms(best.gpu_time)}{speed}{loss}")
        lines.append(f"  {best.build_route or '(all defaults)'}")
    else:
        lines.append("Best route: none passes")
    for note in analysis.notes:
        lines.append(f"note: {note}")
    table = views.route_table(analysis).drop(columns=["error_message"])
    table = table.rename(columns={"gpu_time_ms": "GPU ms", "max_loss": "max loss",
                                  "build_route": "build route"})
    lines += ["", "Routes:", text_table(table, max_width=70)]
    knobs = views.knob_table(analysis)
    if len(knobs):
        knobs = knobs.assign(in_best=knobs["in_best"].map({True: "yes", False: ""}))
        knobs = knobs.rename(columns={"median_gpu_time_ms": "median GPU ms",
                                      "over_threshold": "over threshold", "in_best": "best"})
        lines += ["", "Knob values (median GPU time of the timed routes that set them; speedup vs "
                      "the default route):", text_table(knobs, max_width=40)]
    if crashed:
        rows = pd.DataFrame({"iter": [r.iter for r in crashed],
                             "build route": [r.build_route for r in crashed],
                             "error message": [r.iteration.error_message for r in crashed]})
        lines += ["", "Crashes:", text_table(rows, max_width=100)]
    return "\n".join(lines) + "\n"


def _comparison_text(result: dict[str, Any]) -> str:
    labels = result["labels"]
    first, last = labels[0], labels[-1]
    lines = ["", f"What changed between {' and '.join(labels)}:"]
    for engine in result["engines"]:
        lines.append(f"  {engine['label']}: {engine['prefix']}")
    layers = result["layers"]
    cols = ["type", "match", f"{first} name", *[f"{n} ms" for n in labels], f"{last} name",
            "delta ms", "speedup"]
    for title, df in (("Summary", result["summary"]),
                      (f"Latency by layer type (ms; speedup = {first} / engine)", result["by_type"]),
                      (f"Aligned layers, largest savings first ({last} vs {first}; {len(layers)} "
                       f"of {result['aligned_rows']} rows)", layers[cols])):
        lines += ["", f"{title}:", text_table(df, max_width=60)]
    return "\n".join(lines) + "\n"
