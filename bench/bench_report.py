"""Benchmark at LLM scale: load, draw, ``trex report`` and the report in Chromium, beside TREx.

``python bench/bench_report.py [--copies 14 150 750 2778] [--runs 5] [--no-trex] [--trex-timeout 120]``

The engines are the issue's plan shape: trex-mobilenet-qat (TREx's own test engine) repeated in
series 14, 150, 750 and 2,778 times, i.e. 1,008, 10,800, 54,000 and 200,016 layers
(``generate.py --series``). For each, in fresh processes (median of ``--runs``):

* parse floor: reading the graph and profile JSON into Python objects and nothing else, with
  orjson and with msgspec (the decoder trex's reader uses), the garbage collector paused as in a
  load: what no loader of these files can beat;
* load: ``EnginePlan`` of the engine's files after ``import trex``, and its peak RSS (VmHWM);
* summary: the wall time of ``trex summary ENGINE`` (interpreter start included);
* draw: after loading, the SVG drawing ``trex draw`` makes (``graph.draw_plan``);
* report: the wall time of ``trex report ENGINE -o out.html`` (interpreter start included) and
  the page's size; the time of each of its steps comes from its progress callback;
* interactive: Chromium (Playwright, a new profile per run, ``file://``) from navigation until a
  search of the layer table found one layer, its row was clicked and its details and graph
  selection are shown; opening on the overview and on ``#tab=layers`` (the worse is checked).

Draw, report and the browser are left out above ``BIG_LAYERS`` (the targets there are load,
memory and summary; ``--all-steps`` measures them too).

NVIDIA's TREx is measured in the same run (load and its to_dot/render_dot drawing, one run each,
a drawing stopped after ``--trex-timeout`` s) in a venv built once under bench/data
(``trex_reference.py`` says which release and why). The issue's targets are printed as met or
missed; the exit code is 0 either way.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import generate
import trex_reference
from common import compile_trex, layer_names, text_table

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
# The issues' targets by layer count: seconds, MB (issue 21: load, report, summary at 200,000;
# the earlier ones, "as now or better": memory at 10,800, report size, interactive).
TARGETS: dict[int, dict[str, float]] = {
    10800: {"load": 0.15, "peak": 200.0, "report": 1.5, "size": 8.0, "interactive": 2.0},
    54000: {"load": 0.6, "report": 6.0, "size": 30.0},
    200016: {"load": 2.5, "peak": 1000.0, "summary": 4.0},
}
BIG_LAYERS = 100_000  # above: load, memory and summary only (unless --all-steps)
DEFAULT_COPIES = (*generate.SERIES_COPIES, 2778)


# ------------------------------------------------------------------ the parse floor
def floor_worker(prefix: str) -> dict:
    """Seconds to decode the graph and profile JSON into Python objects (orjson, msgspec)."""
    import gc

    import msgspec
    import orjson

    blobs = [Path(f"{prefix}.{kind}.json").read_bytes() for kind in ("graph", "profile")]
    gc.disable()  # as EnginePlan's load does
    out = {}
    for name, decode in (("orjson", orjson.loads), ("msgspec", msgspec.json.decode)):
        start = time.perf_counter()
        decoded = [decode(blob) for blob in blobs]
        out[name] = time.perf_counter() - start
        del decoded
    return out


def floor_times(prefix: str, runs: int) -> dict:
    found = [json.loads(subprocess.run([sys.executable, __file__, "--floor", prefix],
                                       capture_output=True, text=True, check=True).stdout)
             for _ in range(runs)]
    return {f"floor_{k}": statistics.median(r[k] for r in found) for k in ("orjson", "msgspec")}


def summary_times(prefix: str, runs: int) -> dict:
    walls = []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "trex", "summary", prefix],
                              capture_output=True, text=True)
        walls.append(time.perf_counter() - start)
        if proc.returncode != 0:
            raise RuntimeError(f"trex summary failed: {proc.stderr.strip()[-500:]}")
    return {"summary": statistics.median(walls)}


# ------------------------------------------------------------------ trex, in fresh processes
def worker(prefix: str, draw_to: str | None) -> dict:
    """Load (and draw) one engine in this fresh process."""
    import warnings

    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    import trex

    t1, c1 = time.perf_counter(), time.process_time()
    plan = trex.EnginePlan.from_path(prefix)
    t2 = time.perf_counter()
    # the peak first: counting the layers through plan.df would build the DataFrame, which a
    # load does not (and which would then be most of the peak)
    result = {"import": t1 - t0, "load": t2 - t1, "load_cpu": time.process_time() - c1,
              "peak": _peak_mb()}
    result["layers"] = len(plan.column("Name"))
    if draw_to:
        from trex.graph import draw_plan

        drawn = draw_plan(plan, draw_to, "svg", display_forking_regions=True,
                          display_region_reuse=True, display_edge_details=False)
        result.update(draw=time.perf_counter() - t2, method=drawn.method)
    return result


def _peak_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _run_worker(prefix: str, draw_to: str | None) -> dict:
    args = [sys.executable, __file__, "--worker", prefix] + (["--draw-to", draw_to] if draw_to else [])
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"worker failed on {prefix}: {proc.stderr.strip()[-500:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _report_steps(prefix: str, out: str) -> dict:
    """Seconds per step of one report (its progress callback), in this fresh process."""
    import warnings

    warnings.simplefilter("ignore")
    marks = [("import", time.perf_counter())]
    from trex.html_report import write_report

    marks.append(("load", time.perf_counter()))
    write_report([prefix], out, progress=lambda step: marks.append((step, time.perf_counter())))
    marks.append(("end", time.perf_counter()))
    return {name: round(marks[i + 1][1] - t, 3) for i, (name, t) in enumerate(marks[:-1])}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def report_times(prefix: str, out: str, runs: int) -> dict:
    walls, cpus = [], []
    for _ in range(runs):
        start, cpu = time.perf_counter(), _children_cpu()
        proc = subprocess.run([sys.executable, "-m", "trex", "report", prefix, "-o", out],
                              capture_output=True, text=True)
        walls.append(time.perf_counter() - start)
        cpus.append(_children_cpu() - cpu)
        if proc.returncode != 0:
            raise RuntimeError(f"trex report failed: {proc.stderr.strip()[-500:]}")
    steps = subprocess.run([sys.executable, __file__, "--steps", prefix, "--out", out + ".w.html"],
                           capture_output=True, text=True, check=True)
    return {"report": statistics.median(walls), "report_cpu": statistics.median(cpus),
            "size": os.path.getsize(out) / 1e6,
            "steps": json.loads(steps.stdout.strip().splitlines()[-1])}


# ------------------------------------------------------------------ the browser
def _poll(page, expression: str, arg=None, timeout: float = 120.0):
    """Wait until ``expression`` is truthy (page.wait_for_function uses eval, which the page's
    Content-Security-Policy forbids)."""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(expression, arg)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(expression)
        time.sleep(0.01)


def open_and_interact(browser, path: Path, tab: str, name: str, row: int) -> dict:
    """Open the report in a new profile; time its first view and a first interaction."""
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    start = time.perf_counter()
    page.goto(path.as_uri() + f"#tab={tab}", wait_until="commit")
    _poll(page, "() => !!window.trexReady")
    ready = page.evaluate("() => window.trexReady") / 1000.0
    if tab != "layers":
        page.click("#tabbtn-layers")
    page.fill("#layer-search", name)
    _poll(page, "() => document.getElementById('layer-count').getAttribute('data-count') === '1'")
    page.click(f"#layer-table .vt-row[data-item='{row}']")
    _poll(page, """(row) => { const d = document.getElementById('details-name'),
        s = document.getElementById('graph-selection');
        return d && s && s.getAttribute('data-layer') === String(row); }""", row)
    interactive = time.perf_counter() - start
    context.close()
    return {"ready": ready, "interactive": interactive, "errors": len(errors)}


def browser_times(path: Path, prefix: str, runs: int, chromium: str) -> dict:
    from playwright.sync_api import sync_playwright

    names = layer_names(prefix)
    row = len(names) * 2 // 3  # a layer deep in the engine
    samples: dict[str, list[dict]] = {"overview": [], "layers": []}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        version = browser.version
        for _ in range(runs):
            for tab, found in samples.items():
                found.append(open_and_interact(browser, path, tab, names[row], row))
        browser.close()
    out: dict = {"chromium": version}
    for tab, found in samples.items():
        out[f"{tab}_ready"] = statistics.median(s["ready"] for s in found)
        out[f"{tab}_interactive"] = statistics.median(s["interactive"] for s in found)
        out["errors"] = out.get("errors", 0) + max(s["errors"] for s in found)
    out["interactive"] = max(out["overview_interactive"], out["layers_interactive"])
    return out


# ------------------------------------------------------------------ one size, the table
def measure(copies: int, args: argparse.Namespace, trex_python: Path | None, tmp: str) -> dict:
    prefix = str(args.data / generate.series_name(copies))
    name = generate.series_name(copies)
    print(f"{name}: parse floor, load, summary ...", flush=True)
    loads = [_run_worker(prefix, None) for _ in range(args.runs)]
    result = {"layers": loads[0]["layers"], "load": statistics.median(r["load"] for r in loads),
              "load_cpu": statistics.median(r["load_cpu"] for r in loads),
              "peak": max(r["peak"] for r in loads)}
    result.update(floor_times(prefix, args.runs))
    result.update(summary_times(prefix, args.runs))
    every_step = args.all_steps or result["layers"] <= BIG_LAYERS
    if every_step:
        draws = [_run_worker(prefix, os.path.join(tmp, f"s{copies}.svg")) for _ in range(args.runs)]
        result.update(draw=statistics.median(r["draw"] for r in draws), method=draws[0]["method"])
        print(f"{name}: trex report ...", flush=True)
        out = os.path.join(tmp, f"s{copies}.html")
        result.update(report_times(prefix, out, args.runs))
    if every_step and not args.no_browser:
        print(f"{generate.series_name(copies)}: Chromium ...", flush=True)
        result.update(browser_times(Path(out), prefix, args.runs, args.chromium))
    if trex_python is not None:
        print(f"{generate.series_name(copies)}: {trex_reference.LABEL} ...", flush=True)
        result["TREx"] = trex_reference.measure(trex_python, prefix, every_step,
                                                os.path.join(tmp, f"trex{copies}"), args.trex_timeout)
    return result


def _cell(value: float | None, unit: str, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f} {unit}"


def _digits(value: float, unit: str) -> int:
    return (3 if value < 1 else 2) if unit == "s" else 1


def _ratio(theirs: float | None, ours: float | None, floor: bool = False) -> str:
    if theirs is None or not ours:
        return "-"
    return f"{'>= ' if floor else ''}{theirs / ours:.1f}x"


def table(results: list[dict], trex_note: str) -> str:
    head = ("layers", "measure", "trex", "(CPU)", "TREx", "TREx / trex", "target", "")
    rows = []
    for r in results:
        ref = r.get("TREx") or {}
        targets = TARGETS.get(r["layers"], {})
        timeout = ref.get("draw_timeout")
        theirs_draw = ref.get("draw") if not timeout else timeout
        cpu = {"load": r["load_cpu"], "report": r.get("report_cpu")}
        lines = [
            ("parse floor: orjson", r["floor_orjson"], "s", None, None, False),
            ("parse floor: msgspec", r["floor_msgspec"], "s", None, None, False),
            ("load (after import)", r["load"], "s", ref.get("load"), "load", False),
            ("peak memory of a load", r["peak"], "MB", ref.get("peak_mb"), "peak", False),
            ("trex summary (end to end)", r["summary"], "s", None, "summary", False),
        ]
        if "draw" in r:
            lines += [
                (f"draw SVG ({r['method']})", r["draw"], "s", theirs_draw, None, bool(timeout)),
                ("trex report (end to end)", r["report"], "s", None, "report", False),
                ("report size", r["size"], "MB", None, "size", False),
            ]
        if "interactive" in r:
            lines.append(("interactive in Chromium", r["interactive"], "s", None, "interactive", False))
        for k, (what, ours, unit, theirs, key, floor) in enumerate(lines):
            used = cpu.get(key or "")
            target = targets.get(key) if key else None
            verdict = "" if target is None else ("met" if ours <= target else "MISSED")
            theirs_text = "-" if theirs is None else (f"> {theirs:.0f} s (stopped)" if floor
                                                      else _cell(theirs, unit, _digits(theirs, unit)))
            if key == "load" and ref.get("load_cpu") is not None:
                theirs_text += f" (CPU {ref['load_cpu']:.2f} s)"
            rows.append((f"{r['layers']:,}" if k == 0 else "", what, _cell(ours, unit, _digits(ours, unit)),
                         "" if used is None else _cell(used, "s", _digits(used, "s")), theirs_text,
                         _ratio(theirs, ours, floor) if unit == "s" or key == "peak" else "-",
                         "-" if target is None else f"<= {target:g} {unit}", verdict))
    title = (f"trex vs {trex_reference.LABEL if not trex_note else 'TREx (skipped)'}: "
             f"trex-mobilenet-qat repeated in series, median of the runs, {os.cpu_count()} CPUs")
    note = ("(CPU): user + system seconds of the same processes: on a busy machine the wall times "
            "grow, the CPU times much less; targets are checked on the wall times.")
    return text_table(title, head, rows) + f"\n{note}" + (f"\n{trex_note}" if trex_note else "")


def details(results: list[dict]) -> str:
    lines = []
    for r in results:
        steps = ", ".join(f"{k} {v:.2f}" for k, v in r.get("steps", {}).items())
        lines.append(f"{r['layers']:,} layers: load {r['load'] / r['floor_orjson']:.1f}x the orjson "
                     f"parse floor, {r['load'] / r['floor_msgspec']:.1f}x msgspec's")
        if steps:
            lines.append(f"{r['layers']:,} layers, trex report steps (s): {steps}")
        if "interactive" in r:
            lines.append(f"{r['layers']:,} layers, Chromium {r['chromium']}: ready "
                         f"{r['overview_ready']:.2f} / {r['layers_ready']:.2f} s, interactive "
                         f"{r['overview_interactive']:.2f} / {r['layers_interactive']:.2f} s "
                         f"(opened on the overview / the layer table), {r['errors']} page errors")
        ref = r.get("TREx") or {}
        if "error" in ref:
            lines.append(f"{r['layers']:,} layers: TREx failed: {ref['error']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, nargs="+", default=list(DEFAULT_COPIES))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--all-steps", action="store_true",
                        help=f"draw, report and browser above {BIG_LAYERS:,} layers too")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--chromium", default=os.environ.get("TREX_CHROMIUM", "/usr/bin/chromium"))
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--no-trex", action="store_true", help="do not measure NVIDIA's TREx")
    parser.add_argument("--trex-timeout", type=float, default=120.0,
                        help="seconds for one TREx load and drawing (default 120)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--floor", help=argparse.SUPPRESS)
    parser.add_argument("--steps", help=argparse.SUPPRESS)
    parser.add_argument("--draw-to", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.draw_to)))
        return 0
    if args.floor:
        print(json.dumps(floor_worker(args.floor)))
        return 0
    if args.steps:
        print(json.dumps(_report_steps(args.steps, args.out)))
        return 0
    compile_trex()
    generate.ensure_series(args.copies, args.data, log=lambda m: print(m, flush=True))
    trex_python, note = (None, "TREx skipped (--no-trex)") if args.no_trex else \
        trex_reference.ensure(args.data, log=lambda m: print(m, flush=True))
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for copies in args.copies:
            results.append(measure(copies, args, trex_python, tmp))
    print()
    print(table(results, note))
    print(details(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
