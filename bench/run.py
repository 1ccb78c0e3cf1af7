"""Benchmark trex's EnginePlan on generated engines and print a table with the issue's targets.

``python bench/run.py [--sizes 1000 10000 50000] [--runs 3] [--profile N]``

Each measurement runs in a fresh subprocess, so the reported memory is that of one load:
``import trex`` time, the time of ``EnginePlan(graph, profile, profile_metadata,
build_metadata, timing_file=timing)``, the subprocess's peak RSS (``VmHWM``, i.e. ``ru_maxrss``
without what Linux carries over from the parent across exec) and the RSS the load adds (peak
RSS after the load minus the current RSS before it).  Missing data is generated
first (see ``generate.py``).  The exit code is 0 even when a target is missed: this is a report.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import generate
from common import compile_trex

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / "data"
DEFAULT_SIZES = (1000, 10000, 50000)
# From the issue: (max load seconds, max peak RSS MB or None), with profile and timings.
TARGETS: dict[int, tuple[float, float | None]] = {10000: (0.5, 300.0), 50000: (3.0, None)}
MB = 1024 * 1024


def _engine_files(data: Path, n: int) -> dict[str, str]:
    prefix = data / f"bench{n}"
    return {key: f"{prefix}.{key}.json"
            for key in ("graph", "profile", "profile.metadata", "build.metadata", "timing")}


def _rss_bytes() -> int:
    """Current resident set size of this process."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return _peak_rss_bytes()


def _peak_rss_bytes() -> int:
    """Peak resident set size of this process.

    Linux keeps ``ru_maxrss`` across exec, so a child of a big parent inherits the parent's
    peak; ``VmHWM`` (the same high-water mark, per address space) starts afresh at exec.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return peak if sys.platform == "darwin" else peak * 1024


def worker(n: int, data: Path) -> dict:
    """One measurement in this (fresh) process: import trex, then load the engine once."""
    import warnings

    warnings.simplefilter("ignore")
    start = time.perf_counter()
    import trex

    import_s = time.perf_counter() - start
    files = _engine_files(data, n)
    rss_before = _rss_bytes()
    start = time.perf_counter()
    plan = trex.EnginePlan(files["graph"], files["profile"], files["profile.metadata"],
                           files["build.metadata"], timing_file=files["timing"])
    load_s = time.perf_counter() - start
    peak = _peak_rss_bytes()
    return {"size": n, "layers": len(plan.df), "timings": len(plan.timings),
            "import_s": import_s, "load_s": load_s, "peak_rss_mb": peak / MB,
            "load_rss_mb": (peak - rss_before) / MB, "warnings": plan.warnings}


def _python() -> str:
    """An interpreter that can import trex: this one, else the repository's .venv."""
    venv = ROOT / ".venv" / "bin" / "python"
    if importlib.util.find_spec("trex") is None and venv.exists():
        return str(venv)
    return sys.executable


def measure(n: int, data: Path, runs: int) -> dict:
    """Run ``runs`` fresh worker processes; best time, worst memory."""
    results = []
    for _ in range(runs):
        proc = subprocess.run([_python(), __file__, "--worker", str(n), "--data", str(data)],
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"worker for {n} layers failed:\n{proc.stderr}")
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    best = min(results, key=lambda r: r["load_s"])
    return {**best,
            "import_s": min(r["import_s"] for r in results),
            "peak_rss_mb": max(r["peak_rss_mb"] for r in results),
            "load_rss_mb": max(r["load_rss_mb"] for r in results)}


def verdict(result: dict) -> tuple[str, str]:
    """(target text, PASS/FAIL with the missed targets) for one size."""
    target = TARGETS.get(result["size"])
    if target is None:
        return "-", "n/a"
    max_s, max_mb = target
    text = f"<= {max_s:g} s" + (f", <= {max_mb:g} MB" if max_mb is not None else "")
    missed = []
    if result["load_s"] > max_s:
        missed.append("time")
    if max_mb is not None and result["peak_rss_mb"] > max_mb:
        missed.append("memory")
    return text, ("FAIL (" + ", ".join(missed) + ")") if missed else "PASS"


def table(results: list[dict], runs: int) -> str:
    """The benchmark table as plain text."""
    header = ["size", "layers in df", f"load s (best of {runs})", "peak RSS MB",
              "load +RSS MB", "import s", "target", "pass/fail"]
    rows = []
    for r in results:
        target, ok = verdict(r)
        rows.append([f"{r['size']:,}", f"{r['layers']:,}", f"{r['load_s']:.3f}",
                     f"{r['peak_rss_mb']:.0f}", f"{r['load_rss_mb']:.0f}",
                     f"{r['import_s']:.3f}", target, ok])
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [" | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
             for row in [header, *rows]]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def profile(n: int, data: Path, top: int = 10) -> str:
    """cProfile one load; the ``top`` functions of the trex package by cumulative time."""
    import cProfile
    import pstats
    import warnings

    warnings.simplefilter("ignore")
    import trex

    package = os.path.dirname(trex.__file__)
    files = _engine_files(data, n)
    profiler = cProfile.Profile()
    profiler.enable()
    trex.EnginePlan(files["graph"], files["profile"], files["profile.metadata"],
                    files["build.metadata"], timing_file=files["timing"])
    profiler.disable()
    stats = pstats.Stats(profiler).stats
    total = max(ct for (_, _, _, ct, _) in stats.values())
    ours = [(ct, tt, nc, f"{os.path.relpath(fn, package)}:{line}({func})")
            for (fn, line, func), (_, nc, tt, ct, _) in stats.items()
            if fn.startswith(package + os.sep)]
    ours.sort(reverse=True)
    lines = [f"cProfile of one {n:,}-layer load ({total:.3f} s under the profiler); "
             f"top {top} trex functions by cumulative time:",
             f"{'cumtime s':>9}  {'tottime s':>9}  {'calls':>8}  function"]
    lines += [f"{ct:9.3f}  {tt:9.3f}  {nc:8d}  {name}" for ct, tt, nc, name in ours[:top]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES))
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per size")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--profile", type=int, metavar="N",
                        help="also print a cProfile of loading the N-layer engine")
    parser.add_argument("--worker", type=int, metavar="N", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker is not None:
        print(json.dumps(worker(args.worker, args.data)))
        return 0
    compile_trex()

    sizes = sorted(set(args.sizes) | ({args.profile} if args.profile else set()))
    generate.ensure(sizes, args.data, log=lambda m: print(m, flush=True))
    results = []
    for n in args.sizes:
        results.append(measure(n, args.data, args.runs))
        print(f"measured {n:,} layers", file=sys.stderr, flush=True)
    print()
    print(table(results, args.runs))
    print(f"\npeak RSS = VmHWM (ru_maxrss) of the worker process (worst of {args.runs}); "
          "load +RSS = peak RSS minus RSS just before the load; targets apply to peak RSS.")
    for r in results:
        if r["warnings"]:
            print(f"{r['size']:,} layers: trex warnings: " + "; ".join(r["warnings"]))
    if args.profile:
        print()
        print(profile(args.profile, args.data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
