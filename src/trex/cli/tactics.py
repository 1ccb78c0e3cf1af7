"""``trex tactics BUILD.log``: autotuning per layer, chosen vs fastest tactic, fusions, memory."""

from __future__ import annotations

import argparse
import re

import pandas as pd

from .. import tactics as views
from ..errors import InputError
from ..safety import terminal_text
from ..tactic_choice import AMBIGUOUS, NOT_TUNED
from . import numbers
from .output import add_format_options, csv_options, csv_text, kv_table, stdout_for, text_table, to_json, warn

VIEWS = ("summary", "layers", "tactics", "fusions", "memory", "passes", "myelin")
DEFAULT_VIEWS = ("summary", "layers", "fusions", "memory", "passes")
UNJUDGED = (AMBIGUOUS, NOT_TUNED)  # the engine's combination could not be told: no verdict
SORTS = {"engine": None, "slowdown": "slowdown", "gap": "gap_ms", "autotune": "autotune_s",
         "tactics": "tactics_timed"}


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "tactics", help="analyse a verbose build log: tactics, fusions, memory",
        description="Analyse a trtexec --verbose build log (TensorRT 8.x-10.x): per layer the "
                    "format combinations and tactics tried, the tactic chosen against the fastest "
                    "of its own format combination, faster tactics that ran in other format "
                    "combinations, autotuning time; the fusions that made each engine layer; "
                    "memory changes; the builder passes (backend strategies). Times are printed "
                    "as the log writes them.")
    parser.add_argument("logs", nargs="+", metavar="BUILD_LOG")
    parser.add_argument("--show", "-s", action="append", choices=VIEWS, default=None,
                        help="what to show (repeatable; default: summary, layers, fusions, "
                             "memory, passes)")
    parser.add_argument("--layer", "-l", default=None, metavar="REGEX",
                        help="only layers whose name matches REGEX")
    parser.add_argument("--sort", choices=list(SORTS), default="engine",
                        help="order of the layer table (default: engine order)")
    parser.add_argument("--top", "-n", type=numbers.COUNT, default=None,
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

    compared = s["layers_compared"]
    verdict = "-"
    if compared:
        verdict = (f"{s['layers_not_fastest']} of {compared} layers use a tactic slower than the "
                   "fastest timed in its own format combination")
        if s["layers_not_fastest"]:
            verdict += f" (worst x{s['max_combination_slowdown']:.3f})"
    if s["layers_combination_unknown"]:
        verdict = ("" if verdict == "-" else verdict + "; ") + (
            f"{s['layers_combination_unknown']} layers without a verdict (the format combination "
            "they run cannot be told from the engine's formats)")
    elsewhere = "-"
    if compared:
        elsewhere = (f"{s['layers_faster_elsewhere']} of {compared} layers: a faster tactic ran in "
                     "another format combination")
        if s["layers_faster_elsewhere"]:
            elsewhere += (f" (up to x{s['max_slowdown']:.3f}; the builder weighs the reformats "
                          "around the layer)")
    autotuning = "-"
    if s["autotune_s"] is not None:
        autotuning = (f"{s['autotune_s']:.2f} s in the kept pass, "
                      f"{s['autotune_s_all_passes']:.2f} s in all passes (sum of profiling times)")

    cache = "-"
    if s["timing_cache_hits"] is not None:
        cache = f"{s['timing_cache_entries']:,} entries, {s['timing_cache_hits']:,} hits"
        deleted = s["timing_cache_deletions"]
        if len(deleted) > 1:
            cache += (f" ({len(deleted)} caches deleted, hits "
                      + " + ".join(f"{d['hits']:,}" for d in deleted) + ")")
    if s["timing_cache"]:
        cache = f"{s['timing_cache']}; {cache}" if cache != "-" else s["timing_cache"]

    kept = f"{s['kept_pass']} of {s['build_passes']}"
    if s["kept_strategy"] is not None:
        kept += f" (backend strategy {s['kept_strategy']})"
    return {
        "TensorRT": s["tensorrt_version"] or "-",
        "Builder pass kept": kept if s["build_passes"] else "-",
        "Engine layers": s["engine_layers"],
        "Layers with tactics": f"{s['layers_with_tactics']} ({s['autotuned_layers']} autotuned)",
        "Format combinations": s["format_combinations"],
        "Tactics timed": f"{s['tactics_timed']:,} in the kept pass, {s['tactics_cached']:,} printed "
                         f"as cached results; {s['tactics_timed_all_passes']:,} in all passes",
        "Chosen vs fastest": verdict,
        "Faster elsewhere": elsewhere,
        "Autotuning": autotuning,
        "Timing cache": cache,
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
            "chosen": _tactic_labels(df["chosen_tactic_name"], df["chosen_tactic"]),
            "chosen_ms": _figures(df["chosen_ms"]),
            "best_in_combo_ms": _figures(df["fastest_in_combination_ms"]),
            "fastest": _verdicts(df),
            "tuning_s": _figures(df["autotune_s"], exact=False),
        })
        note = ("best_in_combo_ms: fastest tactic timed in the format combination the engine layer "
                "runs (from its formats in the engine's layer information); "
                "tactics: timed + cached; '=N': timings reused from an identical earlier layer "
                "(see --format csv, timings_from); tuning_s: sum of the layer's profiling times")
        text = f"Layers (chosen tactic vs the fastest of its format combination):\n{_table(show)}\n{note}"
        elsewhere = _elsewhere(df)
        return text + (f"\n\n{elsewhere}" if elsewhere else "")
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
                   "in_engine"]].copy()
        show["time_ms"] = _figures(show["time_ms"])
        return f"Tactics:\n{_table(show, 50)}"
    if title == "memory":
        return f"Memory changes (MiB):\n{_table(df.drop(columns=['line']))}"
    if title == "passes":
        if len(df) < 2:
            return ""
        show = df.drop(columns=["autotune_s"])
        for column in ("estimated_ms", "tactic_selection_s", "generation_s"):
            show[column] = _figures(df[column])
        for column in ("streams", "layers_after_fusion", "layers_after_reformats"):
            show[column] = pd.array([None if pd.isna(v) else int(v) for v in df[column]],
                                    dtype="Int64")
        note = "estimated_ms, tactic_selection_s, generation_s: as the log prints them"
        return f"Builder passes:\n{_table(show)}\n{note}"
    return f"{title.capitalize()}:\n{_table(df)}"


def _figures(values: pd.Series, exact: bool = True) -> list[str]:
    """Numbers read from the log as the log writes them (shortest round-trip text: 7.70415, not
    7.7042); ``exact=False`` for derived sums (4 decimals). Missing values stay empty."""
    out = []
    for value in values:
        if value is None or pd.isna(value):
            out.append("")
        elif exact:
            number = float(value)
            out.append(str(int(number)) if number.is_integer() and abs(number) < 1e15
                       else repr(number))
        else:
            out.append(f"{float(value):.4f}")
    return out


def _tactic_labels(names: pd.Series, tactics: pd.Series) -> list[str]:
    """The kernel name where the log gives one, else the tactic id."""
    return [n if isinstance(n, str) and n else t if isinstance(t, str) else ""
            for n, t in zip(names, tactics)]


def _verdicts(df: pd.DataFrame) -> list[str]:
    """Per layer: is the chosen tactic the fastest of its combination, and did another format
    combination time a faster one."""
    out = []
    for own, elsewhere, found in zip(df["chosen_is_fastest"], df["faster_elsewhere"],
                                     df["combination_from"]):
        if own is None or pd.isna(own):
            out.append(f"? ({found})" if found in UNJUDGED else "")
            continue
        text = "yes" if own else "NO"
        if elsewhere is True:
            text += "; faster in another combination"
        out.append(text)
    return out


def _elsewhere(df: pd.DataFrame) -> str:
    """The layers whose fastest tactic ran in another format combination, both combinations."""
    rows = df[df["faster_elsewhere"].map(lambda v: v is True)]
    if rows.empty:
        return ""
    show = pd.DataFrame({
        "layer": rows["layer"],
        "chosen combination": rows["chosen_combination"],
        "chosen_ms": _figures(rows["chosen_ms"]),
        "faster combination": rows["fastest_combination"],
        "faster tactic": _tactic_labels(rows["fastest_tactic_name"], rows["fastest_tactic"]),
        "faster_ms": _figures(rows["fastest_ms"]),
    })
    return ("Faster tactics in another format combination (the builder chose the combination "
            f"with the reformats around the layer in mind):\n{_table(show, 60)}")


def _table(df: pd.DataFrame, width: int = 70) -> str:
    df = df.copy()
    for column in df.columns:
        if isinstance(df[column].dtype, pd.api.extensions.ExtensionDtype) or df[column].dtype == object:
            df[column] = df[column].astype(object).where(df[column].notna(), None)
    return text_table(df, width)
