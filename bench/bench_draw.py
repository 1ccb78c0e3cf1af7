"""Benchmark ``trex draw`` on generated engines and print a table with the issue's targets.

``python bench/bench_draw.py [--sizes 1000 10000 50000] [--runs 3]``

For each size: the end-to-end wall time of ``trex draw ENGINE -o out.svg`` in a fresh process
(interpreter start, imports, loading, graph, layout, writing), its breakdown measured in a
worker process, and a check that the SVG parses and names every layer. Missing engines are
generated first (``generate.py``). The exit code is 0 even when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import generate
from common import layer_names, prefix, text_table, timed_cli, worker_runs

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
DEFAULT_SIZES = (1000, 10000, 50000)
TARGETS = {1000: 2.0, 10000: 15.0}  # seconds, end to end, complete SVG
# trex draw's defaults (TREx's draw command but every layer kept): forking regions shown, edge
# details hidden.
OPTIONS = dict(display_forking_regions=True, display_region_reuse=True,
               display_edge_details=False)


def worker(n: int, data: Path, out: str) -> dict:
    """Time each stage of one drawing in this (fresh) process."""
    t0 = time.perf_counter()
    import warnings

    import trex
    from trex.graph import DotGraph, layer_type_formatter
    from trex.graph.dot import render_source
    from trex.graph.drawing import choose_method, dot_cost, gc_paused
    from trex.graph.svg import graph_to_svg

    warnings.simplefilter("ignore")
    t1 = time.perf_counter()
    plan = trex.EnginePlan.from_path(prefix(data, n))
    t2 = time.perf_counter()
    with gc_paused():  # as draw_plan does
        graph = DotGraph(plan, layer_type_formatter, **OPTIONS)
        source = graph.source
        t3 = time.perf_counter()
        method = choose_method(dot_cost(graph), "svg")
        if method == "layered":
            Path(out).write_text(graph_to_svg(graph, plan.name), encoding="utf-8")
        else:
            render_source(source, out, "svg")
    t4 = time.perf_counter()
    return {"layers": len(plan.layers), "nodes": len(graph.nodes), "edges": len(graph.edges),
            "method": method, "import": t1 - t0, "load": t2 - t1, "graph": t3 - t2,
            "render": t4 - t3}


def complete(svg: str, names: list[str]) -> bool:
    """The SVG parses as XML and every layer name is among its titles and texts."""
    text = []
    for _, element in ET.iterparse(svg):
        if element.text:
            text.append(element.text)
        text.extend(v for k, v in element.attrib.items() if k.endswith("title"))
    joined = "\n".join(text)
    return all(name in joined for name in names)


def measure(n: int, data: Path, runs: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.svg")
        ends = [timed_cli("draw", prefix(data, n), "-o", out) for _ in range(runs)]
        size = os.path.getsize(out)
        ok = complete(out, layer_names(prefix(data, n)))
        stages = worker_runs(__file__, n, data, os.path.join(tmp, "w.svg"), runs)
    result = {key: statistics.median(s[key] for s in stages)
              for key in ("import", "load", "graph", "render")}
    result.update({k: stages[0][k] for k in ("layers", "nodes", "edges", "method")})
    result.update(end_to_end=statistics.median(ends), svg_mb=size / 1e6, complete=ok)
    return result


def table(results: list[dict], runs: int) -> str:
    head = ("layers", "nodes", "edges", "renderer", "import s", "load s", "graph s", "render s",
            "end-to-end s", "SVG MB", "complete", "target", "verdict")
    rows = []
    for r in results:
        target = TARGETS.get(r["layers"])
        ok = r["complete"] and (target is None or r["end_to_end"] <= target)
        rows.append((f"{r['layers']:,}", f"{r['nodes']:,}", f"{r['edges']:,}",
                     "Graphviz dot" if r["method"] == "dot" else "trex layered",
                     f"{r['import']:.2f}", f"{r['load']:.2f}", f"{r['graph']:.2f}",
                     f"{r['render']:.2f}", f"{r['end_to_end']:.2f}", f"{r['svg_mb']:.1f}",
                     "yes" if r["complete"] else "NO", f"<= {target:g} s" if target else "-",
                     ("ok" if ok else "MISSED") if target else ("ok" if ok else "INCOMPLETE")))
    return text_table(f"trex draw -> SVG, median of {runs} run(s), {os.cpu_count()} CPUs", head, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.data, args.out)))
        return 0
    generate.ensure(args.sizes, args.data, log=lambda m: print(m, flush=True))
    results = []
    for n in args.sizes:
        print(f"bench{n}: drawing ...", flush=True)
        results.append(measure(n, args.data, args.runs))
    print(table(results, args.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
