"""Measure Graphviz ``dot`` on generated graph families, next to trex's cost features.

``python bench/dot_cost.py [--timeout 120]``: for each family and size, the drawing's
:class:`trex.graph.cost.DotCost` (nodes, edges, virtual nodes, crossing), trex's choice, and the CPU
seconds of ``dot -Tsvg`` (child CPU time: less sensitive to other load than wall time). These
are the measurements the rule in ``src/trex/graph/cost.py`` was fitted to.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import worst_cases
from common import text_table
from generate import DEFAULT_ENGINES

OPTIONS = dict(display_forking_regions=True, display_region_reuse=True, display_edge_details=False)


def replicated(copies: int, engines: Path) -> dict:
    """trex-mobilenet-qat's layers ``copies`` times in series (a CNN with residuals)."""
    data = json.loads(next((engines / "trex-mobilenet-qat").glob("*.graph.json")).read_text())
    first_in, last_out = data["Bindings"]
    layers = []
    for k in range(copies):
        for raw in data["Layers"]:
            layer = json.loads(json.dumps(raw))
            layer["Name"] = f"{layer['Name']}.{k}"
            for t in (*layer["Inputs"], *layer["Outputs"]):
                t["Name"] = f"{last_out}.{k - 1}" if t["Name"] == first_in and k else f"{t['Name']}.{k}"
            layers.append(layer)
    return {"Layers": layers, "Bindings": [f"{first_in}.0", f"{last_out}.{copies - 1}"]}


def families(engines: Path) -> list[tuple[str, dict, dict]]:
    """(label, layer JSON, DotGraph options) of every measured graph."""
    out = []
    for n in (10, 25, 50, 75, 100, 130):
        out.append((f"transformer {n} blocks, mask bus", worst_cases.transformer_graph(n, engines), {}))
    for n in (10, 15, 20, 25, 30):
        out.append((f"transformer {n} blocks, no bus", worst_cases.transformer_graph(n, engines),
                    {"bundle_hubs": False}))
    for n in (25, 50, 100):
        hubs = (worst_cases.MASK, "position_ids", "rotary_table")
        out.append((f"transformer {n} blocks, 3 buses",
                    worst_cases.transformer_graph(n, engines, hubs=hubs), {}))
    for copies in (1, 4, 8, 16, 20):
        out.append((f"mobilenet x{copies}", replicated(copies, engines), {}))
    for copies in (1, 4, 8):
        out.append((f"mobilenet x{copies}, edge labels", replicated(copies, engines),
                    {"display_edge_details": True}))
    for width in (50, 200, 500):
        out.append((f"fan-out/fan-in {width} wide", worst_cases.fan_graph(width, engines), {}))
    return out


def dot_cpu(source: str, timeout: float) -> float | None:
    """CPU seconds of ``dot -Tsvg`` on ``source``; None when it exceeds ``timeout`` (wall)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        subprocess.run(["dot", "-Tsvg", "-o", "/dev/null"], input=source.encode(), check=True,
                       timeout=timeout, capture_output=True)
    except subprocess.TimeoutExpired:
        return None
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--engines", type=Path, default=DEFAULT_ENGINES)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    import trex
    from trex.graph import DotGraph, layer_type_formatter
    from trex.graph.cost import choose_layout, dot_cost

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, graph_json, options in families(args.engines):
            prefix = worst_cases.write_graph(Path(tmp), "g", graph_json)
            plan = trex.EnginePlan.from_path(str(prefix))
            graph = DotGraph(plan, layer_type_formatter, **{**OPTIONS, **options})
            start = time.perf_counter()
            cost = dot_cost(graph)
            seconds = time.perf_counter() - start
            cpu = dot_cpu(graph.source, args.timeout)
            rows.append((label, str(cost.nodes), str(cost.edges), str(cost.virtual),
                         str(cost.crossing), choose_layout(cost), f"{seconds * 1000:.1f}",
                         f">{args.timeout:.0f}" if cpu is None else f"{cpu:.2f}"))
            print(" | ".join(rows[-1]), file=sys.stderr, flush=True)
    print(text_table("Graphviz dot on generated graphs (CPU seconds)",
                     ("graph", "V", "E", "virtual", "crossing", "auto", "cost ms", "dot s"), rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
