"""``trex tactics BUILD.log``: autotuning per layer, chosen vs fastest tactic, fusions, memory."""

from __future__ import annotations

import argparse
import re

import pandas as pd

from .. import tactics as views
from ..errors import InputError
from ..safety import number_option, terminal_text
from .output import add_format_options, csv_options, csv_text, kv_table, stdout_for, text_table, to_json, warn

VIEWS = ("summary", "layers", "tactics", "fusions", "memory", "passes", "myelin")
DEFAULT_VIEWS = ("summary", "layers", "fusions", "memory", "passes")
SORTS = {"engine": None, "slowdown": "slowdown", "gap": "gap_ms", "autotune": "autotune_s",
         "tactics": "tactics_timed"}


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "tactics", help="analyse a verbose build log: tactics, fusions, memory",
        description="Analyse a trtexec --verbose build log (TensorRT 8.x-10.x): per layer the "
                    "format combinations and tactics tried, the tactic chosen and how far it was "
                    "from the fastest one timed, autotuning time; the fusions that made each "
                    "engine layer; memory changes; the builder passes (backend strategies).")
    parser.add_argument("logs", nargs="+", metavar="BUILD_LOG")
    parser.add_argument("--show", "-s", action="append", choices=VIEWS, default=None,
                        help="what to show (repeatable; default: summary, layers, fusions, "
                             "memory, passes)")
    parser.add_argument("--layer", "-l", default=None, metavar="REGEX",
                        help="only layers whose name matches REGEX")
    parser.add_argument("--sort", choices=list(SORTS), default="engine",
                        help="order of the layer table (default: engine order)")
    parser.add_argument("--top", "-n", type=number_option(int, 0), default=None,
                        help="at most N layer rows")
    parser.add_argument("--all-passes", action="store_true",
                        help="tactics, fusions and Myelin tables of every builder pass, not only "
                             "the pass whose engine was kept")
    add_format_options(parser)
    parser.set_defaults(run=run)


def _filter(df: pd.DataFrame, column: str, pattern: re.Pattern | None) -> pd.DataFrame:
    if pattern is None or df.empty:
        return df
    return df[df[column].astype(str).str.contains(pattern)]


def tables(path: str, args: argparse.Namespace) -> tuple[dict, dict[str, pd.DataFrame]]:
    """The summary and the requested DataFrames of one log."""
    log = views.load_build_log(path)
    show = args.show or DEFAULT_VIEWS
    try:
        pattern = re.compile(args.layer) if args.layer else None
    except re.error as exc:
        raise InputError(None, f"--layer: bad regular expression ({exc})") from None
    out: dict[str, pd.DataFrame] = {}
    if "layers" in show:
        df = _filter(views.layer_tactics(log), "layer", pattern)
        key = SORTS[args.sort]
        if key:
            df = df.sort_values(key, ascending=False, na_position="last")
        out["layers"] = df.head(args.top) if args.top else df
    if "tactics" in show:
        df = _filter(views.tactic_timings(log, args.all_passes), "layer", pattern)
        out["tactics"] = df.sort_values(["build_pass", "layer", "combination", "time_ms"],
                                        kind="stable")
    if "fusions" in show:
        df = _filter(views.fused_layers(log), "layer", pattern)
        out["fusions"] = df
        out["fusion_steps"] = views.fusions(log, args.all_passes)
    if "memory" in show:
        out["memory"] = views.memory_changes(log)
    if "passes" in show:
        out["passes"] = views.build_passes(log)
    if "myelin" in show:
        out["myelin"] = _filter(views.myelin_tactics(log, args.all_passes), "layer", pattern)
    summary = views.build_summary(log) if "summary" in show or args.format == "json" else {}
    return summary, out


def run(args: argparse.Namespace) -> int:
    out = stdout_for(args.format)
    results = [(path, *tables(path, args)) for path in args.logs]
    if args.format == "json":
        out.write(to_json([{"summary": summary, **frames} for _, summary, frames in results]))
        out.write("\n")
        return 0
    for path, summary, frames in results:
        if args.format == "csv":
            for title, df in frames.items():
                out.write(f"# {terminal_text(path)}: {title}\n{csv_text(df, **csv_options(args))}")
            continue
        out.write(f"== {path} ==\n")
        if summary:
            out.write(kv_table(_summary_lines(summary)) + "\n")
        for title, df in frames.items():
            text = _render(title, df)
            if text:
                out.write(f"\n{text}\n")
        for warning in summary.get("warnings", []):
            warn(path, warning)
        out.write("\n")
    return 0


def _summary_lines(s: dict) -> dict:
    def num(value, fmt="{:,}"):
        return "-" if value is None else fmt.format(value)

    kept = f"{s['kept_pass']} of {s['build_passes']}"
    if s["kept_strategy"] is not None:
        kept += f" (backend strategy {s['kept_strategy']})"
    return {
        "TensorRT": s["tensorrt_version"] or "-",
        "Builder pass kept": kept if s["build_passes"] else "-",
        "Engine layers": s["engine_layers"],
        "Layers with tactics": f"{s['layers_with_tactics']} ({s['autotuned_layers']} autotuned)",
        "Format combinations": s["format_combinations"],
        "Tactics timed": f"{s['tactics_timed']:,} in the kept pass, {s['tactics_cached']:,} from "
                         f"the timing cache; {s['tactics_timed_all_passes']:,} in all passes",
        "Chosen vs fastest": f"{s['layers_not_fastest']} of {s['layers_compared']} layers use a "
                             f"tactic slower than the fastest timed (worst x{s['max_slowdown']:.3f})"
                             if s["layers_compared"] else "-",
        "Autotuning": f"{s['autotune_s']:.2f} s in the kept pass, "
                      f"{s['autotune_s_all_passes']:.2f} s in all passes",
        "Fusions": f"{s['fusions']} fusions, {s['removals']} removals",
        "Engine built in": num(s["engine_built_s"], "{:.2f} s"),
        "Engine size": num(s["engine_size_mib"], "{:.2f} MiB"),
        "Activation memory": num(s["activation_bytes"], "{:,} B"),
        "Weights memory": num(s["weights_bytes"], "{:,} B"),
        "Peak GPU memory": num(s["peak_gpu_mib"], "{:,} MiB"),
    }


def _render(title: str, df: pd.DataFrame) -> str:
    if title == "fusion_steps":
        return ""
    if df.empty:
        return f"{title.capitalize()}: (none)"
    if title == "layers":
        tactics = [("=" if src else "") + f"{int(t) + int(c)}" for t, c, src in
                   zip(df["tactics_timed"], df["tactics_cached"], df["timings_from"].notna())]
        show = pd.DataFrame({
            "layer": df["layer"], "type": df["type"].fillna(""),
            "combos": df["combinations"], "tactics": tactics,
            "chosen": [n or t or "" for n, t in zip(df["chosen_tactic_name"], df["chosen_tactic"])],
            "chosen_ms": df["chosen_ms"], "fastest_ms": df["fastest_ms"],
            "slowdown": df["slowdown"], "tuning_s": df["autotune_s"],
        })
        note = ("tactics: timed + cached; '=N': timings reused from an identical earlier layer "
                "(see --format csv, timings_from)")
        return f"Layers (chosen tactic vs fastest timed):\n{_table(show)}\n{note}"
    if title == "fusions":
        fused = df[df["count"] > 1]
        if fused.empty:
            return "Fusions: (no fused engine layer)"
        show = pd.DataFrame({"engine layer": fused["layer"],
                             "network layers": [", ".join(m) for m in fused["network_layers"]],
                             "rules": [", ".join(r) for r in fused["rules"]]})
        return f"Fused engine layers ({len(fused)} of {len(df)}):\n{_table(show, 60)}"
    if title == "tactics":
        show = df[["layer", "combination", "runner", "tactic", "tactic_name", "time_ms", "status",
                   "in_engine"]]
        return f"Tactics:\n{_table(show, 50)}"
    if title == "memory":
        return f"Memory changes (MiB):\n{_table(df.drop(columns=['line']))}"
    if title == "passes":
        if len(df) < 2:
            return ""
        return f"Builder passes:\n{_table(df)}"
    return f"{title.capitalize()}:\n{_table(df)}"


def _table(df: pd.DataFrame, width: int = 70) -> str:
    df = df.copy()
    for column in df.columns:
        if isinstance(df[column].dtype, pd.api.extensions.ExtensionDtype) or df[column].dtype == object:
            df[column] = df[column].astype(object).where(df[column].notna(), None)
    return text_table(df, width)
