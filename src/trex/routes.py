"""Build-route sweeps of TensorRT 11.1+ (``trtexec --tuneBuildRoutes``): what ``trex routes`` shows.

From a tuning cache (``formats/tuning_cache.py``): every route with its GPU time, its speedup
over the default route (the header's ``default_build_route``), its accuracy loss per output
against the sweep's ``--accuracyThreshold``, crashes, which knob values helped (median GPU time
per value), and the best route, the fastest one that did not crash and passes the accuracy check.
With the iterations' exports (``<engine>.iter<N>`` profiled by ``trex process``) the default and
best routes feed the engine comparison and the HTML report.

    analysis = trex.routes.analyse("routes.jsonl")
    analysis.best.build_route, analysis.best.speedup
    trex.routes.route_table(analysis)          # one row per iteration
    trex.routes.knob_table(analysis)           # one row per knob value
"""

from __future__ import annotations

import math
import os
import re
import shlex
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import InputError
from .formats.tuning_cache import TuningCache, TuningIteration, read_tuning_cache

if TYPE_CHECKING:
    import pandas as pd

    from .model.plan import EnginePlan

__all__ = ["CRASHED", "NO_TIME", "NOT_MEASURED", "OK", "OVER_THRESHOLD", "Route",
           "RouteAnalysis", "analyse", "best_route", "default_route", "find_iteration_exports",
           "knob_table", "parse_route", "read_tuning_cache", "route_json", "route_plans",
           "route_table"]

OK = "ok"
CRASHED = "crashed"
NO_TIME = "no GPU time"
OVER_THRESHOLD = "over threshold"
NOT_MEASURED = "loss not measured"
DEFAULT_VALUE = "(default)"  # a knob the route leaves at its default
_EXPORT = re.compile(r"^(?P<engine>.+)\.iter(?P<iter>\d+)\.(?P<rest>[^/\\]+)$")


def parse_route(route: str | None) -> dict[str, str]:
    """``"-knob=a -other=b"`` -> ``{"knob": "a", "other": "b"}`` (a bare ``-flag`` maps to "")."""
    try:
        tokens = shlex.split(route or "")
    except ValueError:
        tokens = (route or "").split()
    knobs: dict[str, str] = {}
    for token in tokens:
        name, _, value = token.lstrip("-").partition("=")
        if name:
            knobs[name] = value
    return knobs


@dataclass
class Route:
    """One iteration judged: its effective knob values, status, speedup and worst loss."""

    iteration: TuningIteration
    knobs: dict[str, str]  # every knob's value, the default route's where the route sets none
    status: str  # OK, CRASHED, NO_TIME, OVER_THRESHOLD or NOT_MEASURED
    max_loss: float | None = None  # the worst output's loss
    speedup: float | None = None  # default route's GPU time / this one's
    is_default: bool = False

    @property
    def iter(self) -> int:
        """The iteration number in the tuning cache."""
        return self.iteration.iter

    @property
    def build_route(self) -> str:
        """The route's ``-knob=value`` tokens."""
        return self.iteration.build_route

    @property
    def gpu_time(self) -> float | None:
        """GPU time in ms, None when not recorded."""
        return self.iteration.gpu_time

    @property
    def passes(self) -> bool:
        """Built, timed and within the accuracy threshold: it may be the best route."""
        return self.status == OK


@dataclass
class RouteAnalysis:
    """Every route of one sweep judged once; the tables and JSON are views of it."""

    cache: TuningCache
    threshold: float | None
    threshold_source: str  # "--accuracyThreshold", "given" or "" (none: losses not judged)
    outputs: list[str]
    routes: list[Route]
    default: Route | None
    best: Route | None
    notes: list[str] = field(default_factory=list)

    @property
    def algorithm(self) -> str | None:
        """The sweep's accuracy algorithm (``l2``, ``cos``, ...), None if not given."""
        return self.cache.header.accuracy_algorithm

    def route(self, iteration: int) -> Route | None:
        """The route of one iteration, or None."""
        return next((r for r in self.routes if r.iter == iteration), None)


def analyse(source: TuningCache | str | os.PathLike,
            threshold: float | None = None) -> RouteAnalysis:
    """Judge every route of a tuning cache (a path or a read TuningCache).

    ``threshold`` overrides the sweep's ``--accuracyThreshold``; without either, losses are shown
    but not judged. Crashed routes, routes without a GPU time, over the threshold or without a
    measured loss (when judged) can never be the best.
    """
    cache = source if isinstance(source, TuningCache) else read_tuning_cache(source)
    header = cache.header
    notes: list[str] = []
    if threshold is not None:
        if not math.isfinite(threshold) or threshold < 0:
            raise InputError(None, f"the accuracy threshold must be a finite number >= 0, "
                                   f"not {threshold}")
        where = "given"
    elif header.accuracy_threshold is not None:
        threshold, where = header.accuracy_threshold, "--accuracyThreshold"
    else:
        where = ""
    outputs = _outputs(cache)
    if threshold is None and outputs:
        notes.append("accuracy not judged: no --accuracyThreshold in the sweep's command line "
                     "(give one with --accuracy-threshold)")
    base = parse_route(header.default_build_route)
    routes = []
    for it in cache.iterations:
        knobs = {**base, **parse_route(it.build_route)}
        status, worst = _judge(it, threshold)
        routes.append(Route(it, knobs, status, worst))
    default = _find_default(routes, header.default_build_route, notes)
    if default is not None and default.gpu_time:
        for route in routes:
            if route.gpu_time:
                route.speedup = default.gpu_time / route.gpu_time
    names = sorted({k for r in routes for k in r.knobs})
    for route in routes:
        for name in names:
            route.knobs.setdefault(name, DEFAULT_VALUE)
    passing = [r for r in routes if r.passes]
    best = min(passing, key=lambda r: (r.gpu_time, r.iter)) if passing else None
    if best is None and routes:
        notes.append("no route passes: every iteration crashed, has no GPU time or fails the "
                     "accuracy check")
    if not routes:
        notes.append("no iteration in the cache (the sweep stopped before the first one ended)")
    return RouteAnalysis(cache, threshold, where, outputs, routes, default, best, notes)


def _outputs(cache: TuningCache) -> list[str]:
    names: dict[str, None] = {}
    refs = cache.header.files.get("ref_outputs")
    if isinstance(refs, dict):
        names.update(dict.fromkeys(map(str, refs)))
    for it in cache.iterations:
        names.update(dict.fromkeys(it.accuracy_loss or {}))
    return list(names)


def _judge(it: TuningIteration, threshold: float | None) -> tuple[str, float | None]:
    losses = list((it.accuracy_loss or {}).values())
    measured = [v for v in losses if v is not None]
    worst = None
    if measured:
        worst = math.inf if any(not math.isfinite(v) for v in measured) else max(measured)
    if it.crash:
        return CRASHED, worst
    if it.gpu_time is None:
        return NO_TIME, worst
    if threshold is None:
        return OK, worst
    if worst is not None and worst > threshold:
        return OVER_THRESHOLD, worst
    if not losses or len(measured) < len(losses):
        return NOT_MEASURED, worst
    return OK, worst


def _find_default(routes: list[Route], default_route: str | None,
                  notes: list[str]) -> Route | None:
    if default_route is None:
        notes.append("the header names no default build route: speedups are not computed")
        return None
    wanted = parse_route(default_route)
    found = [r for r in routes if parse_route(r.build_route) == wanted]
    shown = f'"{default_route}"' if default_route else "(every knob at its default)"
    if not found:
        notes.append(f"no iteration ran the default route {shown}: speedups are not computed")
        return None
    timed = [r for r in found if r.gpu_time is not None]
    default = (timed or found)[-1]
    default.is_default = True
    if default.gpu_time is None:
        notes.append(f"the default route (iteration {default.iter}) has no GPU time: speedups "
                     "are not computed")
    return default


def _analysis(source: RouteAnalysis | TuningCache | str | os.PathLike,
              threshold: float | None) -> RouteAnalysis:
    return source if isinstance(source, RouteAnalysis) else analyse(source, threshold)


def best_route(source: RouteAnalysis | TuningCache | str | os.PathLike,
               threshold: float | None = None) -> Route | None:
    """The fastest route that did not crash and passes the accuracy check (None if none does)."""
    return _analysis(source, threshold).best


def default_route(source: RouteAnalysis | TuningCache | str | os.PathLike) -> Route | None:
    """The iteration that ran the header's default build route (None if none did)."""
    return _analysis(source, None).default


def _role(analysis: RouteAnalysis, route: Route) -> str:
    roles = [r for r, on in (("default", route.is_default), ("best", route is analysis.best))
             if on]
    return "+".join(roles)


def route_table(source: RouteAnalysis | TuningCache | str | os.PathLike,
                threshold: float | None = None) -> pd.DataFrame:
    """One row per iteration: role, status, GPU time, speedup, losses per output, route, error."""
    import pandas as pd

    analysis = _analysis(source, threshold)
    rows = []
    for route in analysis.routes:
        it = route.iteration
        row: dict[str, Any] = {
            "iter": it.iter, "role": _role(analysis, route), "status": route.status,
            "gpu_time_ms": it.gpu_time, "speedup": route.speedup, "max_loss": route.max_loss,
        }
        for name in analysis.outputs:
            row[f"loss {name}"] = (it.accuracy_loss or {}).get(name)
        row["build_route"] = it.build_route
        row["error_message"] = it.error_message
        rows.append(row)
    columns = ["iter", "role", "status", "gpu_time_ms", "speedup", "max_loss",
               *[f"loss {n}" for n in analysis.outputs], "build_route", "error_message"]
    df = pd.DataFrame(rows, columns=columns)
    for column in ("gpu_time_ms", "speedup", "max_loss", *[f"loss {n}" for n in analysis.outputs]):
        df[column] = pd.to_numeric(df[column], errors="coerce").astype("float64")
    return df


def knob_table(source: RouteAnalysis | TuningCache | str | os.PathLike,
               threshold: float | None = None, varied_only: bool = True) -> pd.DataFrame:
    """One row per knob value: routes, crashes, accuracy failures, median GPU time, speedup.

    ``median_gpu_time_ms`` is over the routes with that value that produced a time; ``speedup``
    is the default route's time over it. Knobs with one value in the whole sweep are left out
    unless ``varied_only`` is False.
    """
    import pandas as pd

    analysis = _analysis(source, threshold)
    default_time = analysis.default.gpu_time if analysis.default else None
    rows = []
    names = sorted({k for r in analysis.routes for k in r.knobs})
    for name in names:
        values: dict[str, list[Route]] = {}
        for route in analysis.routes:
            values.setdefault(route.knobs[name], []).append(route)
        if varied_only and len(values) < 2:
            continue
        for value, routes in values.items():
            times = [r.gpu_time for r in routes if r.gpu_time is not None and not r.iteration.crash]
            median = statistics.median(times) if times else None
            rows.append({
                "knob": name, "value": value, "routes": len(routes), "timed": len(times),
                "crashed": sum(r.status == CRASHED for r in routes),
                "over_threshold": sum(r.status == OVER_THRESHOLD for r in routes),
                "median_gpu_time_ms": median,
                "speedup": default_time / median if default_time and median else None,
                "in_best": analysis.best is not None and analysis.best.knobs.get(name) == value,
            })
    columns = ["knob", "value", "routes", "timed", "crashed", "over_threshold",
               "median_gpu_time_ms", "speedup", "in_best"]
    df = pd.DataFrame(rows, columns=columns)
    for column in ("median_gpu_time_ms", "speedup"):
        df[column] = pd.to_numeric(df[column], errors="coerce").astype("float64")
    return df.sort_values(["knob", "median_gpu_time_ms"], kind="stable", ignore_index=True)


def route_dict(analysis: RouteAnalysis, route: Route | None) -> dict[str, Any] | None:
    """One route as plain values (the JSON output's ``best``, ``default`` and ``iterations``)."""
    if route is None:
        return None
    it = route.iteration
    return {"iter": it.iter, "build_route": it.build_route, "role": _role(analysis, route),
            "status": route.status, "passes": route.passes, "crash": it.crash,
            "error_message": it.error_message, "gpu_time_ms": it.gpu_time,
            "speedup": route.speedup, "accuracy_loss": it.accuracy_loss,
            "max_loss": route.max_loss, "knobs": route.knobs, "line": it.line}


def route_json(analysis: RouteAnalysis) -> dict[str, Any]:
    """The whole analysis as plain values: ``best``, ``default``, ``iterations``, knobs, notes."""
    header = analysis.cache.header
    return {
        "file": analysis.cache.source,
        "header": {"tuner_version": header.tuner_version,
                   "accuracy_algorithm": header.accuracy_algorithm,
                   "accuracy_parameter": header.accuracy_parameter,
                   "searching_algorithm": header.searching_algorithm,
                   "default_build_route": header.default_build_route,
                   "tuning_expr": header.tuning_expr, "files": header.files,
                   "command_line": header.command_line},
        "accuracy_threshold": analysis.threshold,
        "accuracy_threshold_source": analysis.threshold_source or None,
        "outputs": analysis.outputs,
        "best": route_dict(analysis, analysis.best),
        "default": route_dict(analysis, analysis.default),
        "iterations": [route_dict(analysis, r) for r in analysis.routes],
        "knobs": knob_table(analysis).to_dict("records"),
        "headers": len(analysis.cache.headers),
        "records": analysis.cache.records,
        "notes": analysis.notes,
        "warnings": analysis.cache.warnings,
    }


# ------------------------------------------------------------------ the iterations' exports
def find_iteration_exports(folder: str | os.PathLike,
                           analysis: RouteAnalysis | None = None) -> dict[int, Path]:
    """Iteration number -> engine prefix (``folder/<engine>.iter<N>``) of the exports found.

    Exports are the files ``trex process <engine>.iter<N> OUT -p`` writes (``X.iter<N>.graph.json``,
    ``.profile.json``, ...). When the folder holds several engines' exports, the one the sweep
    saved (the header's ``files.save_engine``) is chosen.
    """
    root = Path(folder)
    if not root.is_dir():
        raise InputError(folder, "not a folder of iteration exports (<engine>.iter<N>.graph.json)")
    found: dict[str, dict[int, Path]] = {}
    for entry in sorted(root.iterdir()):
        match = _EXPORT.match(entry.name)
        if match and entry.is_file():
            found.setdefault(match["engine"], {})[int(match["iter"])] = root / (
                f"{match['engine']}.iter{match['iter']}")
    if not found:
        raise InputError(folder, "holds no iteration exports (<engine>.iter<N>.graph.json, as "
                                 "`trex process <engine>.iter<N> OUT -p` writes them)")
    saved = None
    if analysis is not None:
        engine = analysis.cache.header.files.get("save_engine")
        saved = Path(str(engine)).name if engine else None
    if saved in found:
        return found[saved]
    if len(found) == 1:
        return next(iter(found.values()))
    raise InputError(folder, f"holds exports of several engines ({', '.join(sorted(found)[:4])})"
                             "; keep one engine's iterations per folder")


def route_plans(analysis: RouteAnalysis, folder: str | os.PathLike,
                iterations: Sequence[int] | None = None,
                load: Callable[[Path], EnginePlan] | None = None
                ) -> tuple[list[EnginePlan], list[str], list[Path]]:
    """Plans, labels and prefixes of the iterations to compare (default: default, then best);
    ``load`` reads one iteration's exports (default :meth:`EnginePlan.from_path`)."""
    from .model.plan import EnginePlan

    load = load or EnginePlan.from_path
    exports = find_iteration_exports(folder, analysis)
    if iterations is None:
        chosen = [r for r in (analysis.default, analysis.best) if r is not None]
        chosen = list({id(r): r for r in chosen}.values())
        if len(chosen) < 2:
            raise InputError(folder, "nothing to compare: the sweep needs a default route and a "
                                     "different best route (or pick iterations with --iterations)")
        picked = [r.iter for r in chosen]
    else:
        picked = list(dict.fromkeys(iterations))
    missing = [i for i in picked if i not in exports]
    if missing:
        have = ", ".join(map(str, sorted(exports))) or "none"
        raise InputError(folder, f"no exports of iteration {', '.join(map(str, missing))} "
                                 f"(found iterations: {have})")
    labels = []
    for i in picked:
        route = analysis.route(i)
        role = _role(analysis, route) if route is not None else ""
        labels.append(f"{role} (iter {i})" if role else f"iter {i}")
    plans = [load(exports[i]) for i in picked]
    return plans, labels, [exports[i] for i in picked]
