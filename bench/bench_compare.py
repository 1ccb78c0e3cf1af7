"""Benchmark layer alignment (``trex.compare.align_layers``) on large engines and print a table.

``python bench/bench_compare.py [--sizes 1000 10000] [--runs 3]``

Engine A is ``bench/data/bench<N>.graph.json`` (written by ``bench/generate.py``) or, when that
is missing, real layers replicated in memory. Engine B is A transformed the way real engine
pairs differ, written to a temporary folder (never into the repository):

- ``identical``  the same layers (every pair found by name)
- ``onnx``       layers renamed, ONNX node names (``Metadata``) kept unique, 1 reformat in 3 gone
- ``qdq-fix``    layers renamed, no Metadata, every other reformat removed (signatures, in order)
- ``resized``    layers renamed, no Metadata, spatial dimensions doubled (types and position only)
- ``reversed``   layers renamed and in reverse order (nothing aligns in order: the worst case)

The target is 2 s for two 10,000-layer plans. Times are wall clock after a ``gc.collect()``, so
that the garbage collection owed by loading B is not counted as alignment. The exit code is 0
even when the target is missed.
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from shared_engines import find_engines_dir

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
ENGINES = find_engines_dir() or HERE.parent.parent / "shared" / "engines"
SOURCES = ("trex-mobilenet-qat", "trt8.6-resnet50-int8", "a100-resnet18-qat-residual")
TARGET_S = {10000: 2.0}

Layers = list[dict[str, Any]]


def _graph(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        return json.load(f, strict=False)


def replicate(n: int) -> dict[str, Any]:
    """A graph of ``n`` real layers: copies of the source engines, renamed ``.blk<k>``."""
    templates = []
    for name in SOURCES:
        found = sorted((ENGINES / name).glob("*.graph.json"))
        if found:
            layers = [x for x in _graph(found[0])["Layers"] if isinstance(x, dict)
                      and x.get("LayerType") not in ("NoOp", "Constant", "signal", "wait")]
            templates.append(layers)
    if not templates:
        sys.exit(f"no engines in {ENGINES} and no {DATA}/bench{n}.graph.json")
    layers: Layers = []
    block = 0
    while len(layers) < n:
        for src in templates[block % len(templates)][: n - len(layers)]:
            layer = copy.deepcopy(src)
            layer["Name"] = f"{src['Name']}.blk{block}"
            for t in (*layer.get("Inputs", []), *layer.get("Outputs", [])):
                t["Name"] = f"{t['Name']}.blk{block}"
            layers.append(layer)
        block += 1
    return {"Layers": layers, "Bindings": []}


def load_a(n: int) -> tuple[dict[str, Any], str]:
    path = DATA / f"bench{n}.graph.json"
    if path.is_file():
        return _graph(path), f"bench/data/{path.name}"
    return replicate(n), "replicated in memory"


def _renamed(layers: Layers) -> Layers:
    out = copy.deepcopy(layers)
    for i, layer in enumerate(out):
        layer["Name"] = f"layer{i}"
    return out


def _without_reformats(layers: Layers, every: int) -> Layers:
    """Drop every ``every``-th reformat; its consumers read the reformat's input instead."""
    alias: dict[str, str] = {}
    kept: Layers = []
    seen = 0
    for layer in layers:
        if layer.get("LayerType") == "Reformat" and layer.get("Inputs") and layer.get("Outputs"):
            seen += 1
            if seen % every == 0:
                alias[layer["Outputs"][0]["Name"]] = alias.get(layer["Inputs"][0]["Name"],
                                                               layer["Inputs"][0]["Name"])
                continue
        for t in layer.get("Inputs", []):
            t["Name"] = alias.get(t["Name"], t["Name"])
        kept.append(layer)
    return kept


def _strip_metadata(layers: Layers) -> Layers:
    for layer in layers:
        layer.pop("Metadata", None)
    return layers


def _unique_metadata(layers: Layers) -> Layers:
    """Suffix ONNX node names with the copy's ``.blk<k>``, as a real large model's are unique."""
    for layer in layers:
        block = layer["Name"].rsplit(".blk", 1)[-1]
        meta = layer.get("Metadata")
        if isinstance(meta, str) and meta:
            layer["Metadata"] = "\x1e".join(f"{part}.blk{block}" for part in meta.split("\x1e"))
        elif isinstance(meta, list):
            layer["Metadata"] = [f"{part}.blk{block}" for part in meta]
    return layers


def _resized(layers: Layers) -> Layers:
    for layer in layers:
        for t in (*layer.get("Inputs", []), *layer.get("Outputs", [])):
            dims = t.get("Dimensions", [])
            t["Dimensions"] = [d * 2 if i >= 2 and d > 1 else d for i, d in enumerate(dims)]
    return layers


SCENARIOS: dict[str, Callable[[Layers], Layers]] = {
    "identical": lambda layers: copy.deepcopy(layers),
    "onnx": lambda layers: _without_reformats(_renamed(layers), 3),
    "qdq-fix": lambda layers: _without_reformats(_strip_metadata(_renamed(layers)), 2),
    "resized": lambda layers: _resized(_strip_metadata(_renamed(layers))),
    "reversed": lambda layers: _strip_metadata(_renamed(layers[::-1])),
}


def _plan(graph: dict[str, Any], folder: Path, name: str):
    from trex import EnginePlan

    path = folder / f"{name}.graph.json"
    with open(path, "w", encoding="utf-8") as f:
        json.dump(graph, f)
    return EnginePlan(path, name=name)


def measure(n: int, runs: int) -> list[dict[str, Any]]:
    from trex.compare import align_layers, match_counts

    graph_a, source = load_a(n)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        layers_a = _unique_metadata([x for x in graph_a["Layers"] if isinstance(x, dict)])
        graph_a = {"Layers": layers_a, "Bindings": graph_a.get("Bindings", [])}
        plan_a = _plan(graph_a, folder, "A")
        for scenario, transform in SCENARIOS.items():
            graph_b = {"Layers": transform(graph_a["Layers"]), "Bindings": graph_a["Bindings"]}
            plan_b = _plan(graph_b, folder, scenario)
            gc.collect()  # the full collection the loads owe would otherwise land in the timing
            times = []
            for _ in range(runs):
                start = time.perf_counter()
                alignment = align_layers(plan_a, plan_b)
                times.append(time.perf_counter() - start)
            counts = match_counts(alignment)
            target = TARGET_S.get(n)
            best = min(times)
            rows.append({
                "layers": n, "scenario": scenario, "layers B": len(plan_b.layers),
                "best s": best, "median s": statistics.median(times),
                **{k: counts.get(k, 0) for k in ("onnx", "name", "signature", "position",
                                                  "only-in-A", "only-in-B")},
                "target": "-" if target is None else ("ok" if best <= target else "MISSED"),
                "source": source,
            })
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(HERE.parent / "src"))
    warnings.simplefilter("ignore")
    import pandas as pd

    from trex.cli.output import text_table

    rows = [row for n in args.sizes for row in measure(n, args.runs)]
    print(text_table(pd.DataFrame(rows)))
    print("\nalign_layers(A, B) wall time; target: two 10,000-layer plans in <= 2 s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
