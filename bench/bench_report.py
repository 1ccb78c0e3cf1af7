"""Benchmark ``trex report`` on generated engines: generation time and time to interactive in Chromium.

``python bench/bench_report.py [--sizes 1000 10000] [--runs 3] [--chromium /usr/bin/chromium]``

For each size:

* generation: the wall time of ``trex report ENGINE -o out.html`` in a fresh process (interpreter
  start, imports, loading, graph layout, linters, roofline, figures, writing), and its stages
  measured in a worker process;
* browser (Chromium through Playwright, a new profile per run, the page opened from ``file://``):
  ``ready`` is when the page has drawn its first view (its own timestamp, from navigation start);
  ``interactive`` is the wall time from navigation until a first interaction has completed: search
  the layer table for a layer's name, click its row, see its details and its node selected in the
  graph. It is measured opening the report on the overview (the default: plotly.js runs there at
  once for its charts) and on the layer table and graph (``#tab=layers``).

Targets (the issue): 10,000 layers generated in <= 10 s and interactive within 5 s of opening.
Missing engines are generated first (``generate.py``). The exit code is 0 even when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import generate
from common import layer_names, prefix, text_table, timed_cli, worker_runs

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
DEFAULT_SIZES = (1000, 10000)
GENERATE_TARGET = {10000: 10.0}  # seconds, end to end
INTERACTIVE_TARGET = {10000: 5.0}  # seconds from navigation
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]


def worker(n: int, data: Path, out: str) -> dict:
    """Time each stage of one report in this (fresh) process."""
    t0 = time.perf_counter()
    import warnings

    import trex
    from trex.html_report import payload as P
    from trex.html_report.figures import engine_figures
    from trex.html_report.graphdata import graph_payload
    from trex.html_report.page import render_html

    warnings.simplefilter("ignore")
    t1 = time.perf_counter()
    plan = trex.EnginePlan.from_path(prefix(data, n))
    t2 = time.perf_counter()
    stages = {}
    index = {name: i for i, name in enumerate(plan.df["Name"])}
    for key, fn in (("graph", lambda: graph_payload(plan)),
                    ("lint", lambda: P.lint_payload(plan, index)),
                    ("roofline", lambda: P.roofline_payload(plan)),
                    ("figures", lambda: engine_figures(plan)),
                    ("columns", lambda: P.layer_columns(plan)),
                    ("details", lambda: P.layer_details(plan))):
        start = time.perf_counter()
        fn()
        stages[key] = time.perf_counter() - start
    t3 = time.perf_counter()
    payload, details = P.report_payload([plan])
    t4 = time.perf_counter()
    text = render_html(payload, details)
    Path(out).write_text(text, encoding="utf-8")
    t5 = time.perf_counter()
    return {"layers": len(plan.df), "import": t1 - t0, "load": t2 - t1, "payload": t4 - t3,
            "render": t5 - t4, **stages}


def generation(n: int, data: Path, runs: int, out: str) -> dict:
    ends = [timed_cli("report", prefix(data, n), "-o", out) for _ in range(runs)]
    stages = worker_runs(__file__, n, data, out + ".worker.html", runs)
    result = {key: statistics.median(s[key] for s in stages) for key in stages[0] if key != "layers"}
    result.update(layers=stages[0]["layers"], end_to_end=statistics.median(ends),
                  html_mb=os.path.getsize(out) / 1e6)
    return result


def _poll(page, expression: str, arg=None, timeout: float = 60.0):
    """Wait until ``expression`` is truthy (each evaluation also waits for the page's main thread;
    page.wait_for_function cannot be used: the report's Content-Security-Policy forbids eval)."""
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
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    start = time.perf_counter()
    page.goto(path.as_uri() + f"#tab={tab}", wait_until="commit")
    _poll(page, "() => !!window.trexReady")
    responsive = time.perf_counter() - start
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
    return {"ready": ready, "responsive": responsive, "interactive": interactive,
            "errors": len(errors)}


def browser_times(path: Path, n: int, data: Path, runs: int, chromium: str) -> dict:
    from playwright.sync_api import sync_playwright

    names = layer_names(prefix(data, n))
    row = len(names) * 2 // 3  # a layer deep in the engine
    out: dict[str, list[dict]] = {"overview": [], "layers": []}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        version = browser.version
        for _ in range(runs):
            for tab in out:
                out[tab].append(open_and_interact(browser, path, tab, names[row], row))
        browser.close()
    result = {"chromium": version}
    for tab, samples in out.items():
        for key in ("ready", "responsive", "interactive"):
            result[f"{tab}_{key}"] = statistics.median(s[key] for s in samples)
        result[f"{tab}_errors"] = max(s["errors"] for s in samples)
    return result


def table(results: list[dict], runs: int, chromium: str) -> str:
    head = ("layers", "HTML MB", "load s", "graph s", "lint s", "figures s", "render s",
            "generate s", "target", "ready s", "interactive s (overview / layers)", "target",
            "verdict")
    rows = []
    for r in results:
        g_target = GENERATE_TARGET.get(r["layers"])
        i_target = INTERACTIVE_TARGET.get(r["layers"])
        worst = max(r["overview_interactive"], r["layers_interactive"])
        ok = ((g_target is None or r["end_to_end"] <= g_target)
              and (i_target is None or worst <= i_target)
              and not r["overview_errors"] and not r["layers_errors"])
        rows.append((f"{r['layers']:,}", f"{r['html_mb']:.1f}", f"{r['load']:.2f}",
                     f"{r['graph']:.2f}", f"{r['lint']:.2f}", f"{r['figures']:.2f}",
                     f"{r['render']:.2f}", f"{r['end_to_end']:.2f}",
                     f"<= {g_target:g} s" if g_target else "-",
                     f"{min(r['overview_ready'], r['layers_ready']):.2f}",
                     f"{r['overview_interactive']:.2f} / {r['layers_interactive']:.2f}",
                     f"<= {i_target:g} s" if i_target else "-", "ok" if ok else "MISSED"))
    return text_table(f"trex report -> HTML, then Chromium {results[0].get('chromium', '?')} "
                      f"({chromium}), median of {runs} run(s), {os.cpu_count()} CPUs", head, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--chromium", default=os.environ.get("TREX_CHROMIUM", "/usr/bin/chromium"))
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.data, args.out)))
        return 0
    generate.ensure(args.sizes, args.data, log=lambda m: print(m, flush=True))
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            out = os.path.join(tmp, f"bench{n}.report.html")
            print(f"bench{n}: generating the report ...", flush=True)
            result = generation(n, args.data, args.runs, out)
            print(f"bench{n}: opening it in Chromium ...", flush=True)
            result.update(browser_times(Path(out), n, args.data, args.runs, args.chromium))
            results.append(result)
    print(table(results, args.runs, args.chromium))
    return 0


if __name__ == "__main__":
    sys.exit(main())
