"""Generate large, realistic TensorRT engine exports for benchmarking trex.

Layers are copies of the layers of real detailed graph exports (read from the shared engines
folder at generation time), chained block after block: every layer and tensor of copy ``k`` gets
the suffix ``.blk{k}``, and the graph input of each copy is fed by the previous copy's output, so
the tensor graph stays a valid DAG.  NoOp, Constant and signal/wait layers are skipped, so every
generated layer is a row of ``EnginePlan.df``.  Profile and timing values are derived from the
real per-layer profiles with seeded noise.  This module does not import trex.

Usage: ``python bench/generate.py [--sizes 1000 10000 50000] [--out bench/data] [--force]``;
``--series 14 150 750`` writes trex-mobilenet-qat repeated in series instead (:func:`series`).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if str(Path(__file__).resolve().parent) not in sys.path:  # also when loaded by path (tests, run.py)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from shared_engines import find_engines_dir  # noqa: E402

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "data"
DEFAULT_SIZES = (1000, 10000, 50000)
# The real exports, found as the tests find them (shared_engines.py).
DEFAULT_ENGINES = find_engines_dir() or HERE.parent.parent / "shared" / "engines"
# Real detailed exports to replicate: INT8 QAT with Q/DQ reformats, TRT 8.6 ResNet50 (StreamId,
# ConvActPool, SoftMax), TRT 10.4 AlexNet (Myelin kgen/gemm/shape_call), ResNet18 QAT-residual.
DEFAULT_SOURCES = (
    "trex-mobilenet-qat",
    "trt8.6-resnet50-int8",
    "trt10.4-alexnet-fp16",
    "a100-resnet18-qat-residual",
)
SKIPPED_TYPES = {"NoOp", "Constant", "signal", "wait"}
ITERATIONS = 2000  # --exportTimes records
PROFILE_COUNT = 6610  # profiling iterations reported in the profile's first record
PROFILING_OVERHEAD = 1.15  # per-layer profiling is slower than the end-to-end run (trex warns at 1.25)
SEED = 20240611
SUFFIXES = ("graph.json", "profile.json", "timing.json", "profile.metadata.json",
            "build.metadata.json")


@dataclass
class Template:
    """One real engine's layers, with its graph input/output tensors and per-layer times."""

    name: str
    layers: list[dict[str, Any]]
    input: str
    output: str
    avg_ms: dict[str, float] = field(default_factory=dict)


def _only(folder: Path, suffix: str) -> Path | None:
    found = sorted(folder.glob(f"*{suffix}"))
    return found[0] if found else None


def load_template(folder: Path) -> Template:
    """Read a real detailed graph (and its profile) and drop the layers trex keeps out of df."""
    graph_path = _only(folder, ".graph.json")
    if graph_path is None:
        raise FileNotFoundError(f"no .graph.json in {folder}")
    with open(graph_path, encoding="utf-8") as f:
        graph = json.load(f, strict=False)
    raw = [layer for layer in graph["Layers"] if isinstance(layer, dict)]
    # A skipped NoOp's consumers read its input instead.
    alias = {layer["Outputs"][0]["Name"]: layer["Inputs"][0]["Name"]
             for layer in raw if layer.get("LayerType") == "NoOp"
             and layer.get("Inputs") and layer.get("Outputs")}

    def resolve(name: str) -> str:
        while name in alias:
            name = alias[name]
        return name

    layers = []
    for layer in raw:
        if layer.get("LayerType") in SKIPPED_TYPES:
            continue
        layer = dict(layer)
        layer["Inputs"] = [dict(t, Name=resolve(t["Name"])) for t in layer.get("Inputs", [])]
        layer["Outputs"] = [dict(t) for t in layer.get("Outputs", [])]
        layers.append(layer)
    produced = {t["Name"] for layer in layers for t in layer["Outputs"]}
    consumed = {t["Name"] for layer in layers for t in layer["Inputs"]}
    bindings = graph.get("Bindings") or []
    inputs = [b for b in bindings if b in consumed and b not in produced]
    outputs = [resolve(b) for b in bindings if resolve(b) in produced]
    if not inputs or not outputs:
        raise ValueError(f"{graph_path}: cannot find the graph input and output bindings")

    avg_ms: dict[str, float] = {}
    profile_path = _only(folder, ".profile.json")
    if profile_path is not None:
        with open(profile_path, encoding="utf-8") as f:
            rows = json.load(f, strict=False)
        avg_ms = {r["name"]: float(r["averageMs"]) for r in rows
                  if isinstance(r, dict) and "name" in r and "averageMs" in r}
    return Template(folder.name, layers, inputs[0], outputs[-1], avg_ms)


def build_layers(n: int, templates: list[Template], rng: random.Random,
                 ) -> tuple[list[dict[str, Any]], list[str], list[float]]:
    """Chain renamed template copies until there are ``n`` layers; return layers, bindings, avgs."""
    layers: list[dict[str, Any]] = []
    avgs: list[float] = []
    graph_input = ""
    previous_output = ""
    block = 0
    while len(layers) < n:
        tpl = templates[block % len(templates)]
        suffix = f".blk{block}"
        feed = {tpl.input: previous_output} if previous_output else {}

        copied = tpl.layers[: n - len(layers)]
        for src in copied:
            layer = dict(src)
            layer["Name"] = src["Name"] + suffix
            layer["Inputs"] = [dict(t, Name=feed.get(t["Name"], t["Name"] + suffix)) for t in src["Inputs"]]
            layer["Outputs"] = [dict(t, Name=t["Name"] + suffix) for t in src["Outputs"]]
            layers.append(layer)
            base = tpl.avg_ms.get(src["Name"]) or rng.lognormvariate(math.log(0.01), 0.8)
            avgs.append(base * rng.lognormvariate(0.0, 0.15))
        if not graph_input:
            graph_input = tpl.input + suffix
        if len(copied) == len(tpl.layers):
            previous_output = tpl.output + suffix
        else:  # a truncated last copy ends the graph at its last produced tensor
            previous_output = next(layer["Outputs"][0]["Name"] for layer in reversed(layers)
                                   if layer["Outputs"])
        block += 1
    return layers, [graph_input, previous_output], avgs


def profile_records(layers: list[dict[str, Any]], avgs: list[float], rng: random.Random,
                    ) -> list[dict[str, Any]]:
    """``--exportProfile`` rows: one per layer, named as the layer."""
    total = sum(avgs) * PROFILE_COUNT
    rows: list[dict[str, Any]] = [{"count": PROFILE_COUNT}]
    for layer, avg in zip(layers, avgs, strict=True):
        time_ms = avg * PROFILE_COUNT
        rows.append({"name": layer["Name"], "timeMs": time_ms, "averageMs": avg,
                     "medianMs": avg * rng.uniform(0.96, 1.01),
                     "percentage": 100.0 * time_ms / total})
    return rows


def timing_records(compute_ms: float, rng: random.Random) -> list[dict[str, float]]:
    """``--exportTimes`` records of back-to-back inferences around ``compute_ms``."""
    records = []
    clock = 200.0 + rng.uniform(0.0, 5.0)  # after the warm-up
    for _ in range(ITERATIONS):
        start_enq = clock
        end_enq = start_enq + rng.uniform(0.01, 0.03)
        start_h2d = end_enq + rng.uniform(0.001, 0.01)
        h2d = rng.uniform(0.02, 0.04)
        compute = compute_ms * rng.lognormvariate(0.0, 0.02)
        d2h = rng.uniform(0.005, 0.01)
        start_compute = start_h2d + h2d
        start_d2h = start_compute + compute
        records.append({
            "startEnqMs": start_enq, "endEnqMs": end_enq,
            "startH2dMs": start_h2d, "endH2dMs": start_compute,
            "startComputeMs": start_compute, "endComputeMs": start_d2h,
            "startD2hMs": start_d2h, "endD2hMs": start_d2h + d2h,
            "h2dMs": h2d, "computeMs": compute, "d2hMs": d2h,
            "latencyMs": h2d + compute + d2h,
        })
        clock = start_d2h + d2h + rng.uniform(0.001, 0.005)
    return records


def _stats(values: list[float]) -> list[float]:
    """trtexec's [min, max, mean, median, p90, p95, p99]."""
    ordered = sorted(values)

    def pct(p: float) -> float:
        return ordered[min(len(ordered) - 1, int(math.ceil(p / 100 * len(ordered))) - 1)]

    return [ordered[0], ordered[-1], statistics.fmean(ordered), statistics.median(ordered),
            pct(90), pct(95), pct(99)]


def profile_metadata(times: list[dict[str, float]]) -> dict[str, Any]:
    """``--exportProfile`` metadata (trex-mobilenet-qat shape), consistent with the timings."""
    wall_s = (times[-1]["endD2hMs"] - times[0]["startEnqMs"]) / 1000.0
    gpu_s = sum(t["computeMs"] for t in times) / 1000.0
    return {
        "performance_summary": {
            "Throughput": round(len(times) / wall_s, 2),
            "Latency": _stats([t["latencyMs"] for t in times]),
            "Enqueue Time": _stats([t["endEnqMs"] - t["startEnqMs"] for t in times]),
            "H2D Latency": _stats([t["h2dMs"] for t in times]),
            "GPU Compute Time": _stats([t["computeMs"] for t in times]),
            "D2H Latency": _stats([t["d2hMs"] for t in times]),
            "Total Host Walltime": wall_s,
            "Total GPU Compute Time": gpu_s,
        },
        "inference_options": {
            "Batch": "1", "Input inference shapes": "model", "Iterations": str(ITERATIONS),
            "Duration": "3s (+ 200ms warm up)", "Sleep time": "0ms", "Idle time": "0ms",
            "Streams": "1", "ExposeDMA": "Disabled", "Data transfers": "Enabled",
            "Spin-wait": "Enabled", "Multithreading": "Disabled", "CUDA Graph": "Enabled",
            "Separate profiling": "Enabled", "Time Deserialize": "Disabled",
            "Time Refit": "Disabled",
        },
        "device_information": {
            "Selected Device": "NVIDIA A100-SXM4-40GB", "Compute Capability": 8.0, "SMs": 108.0,
            "Compute Clock Rate": 1.41, "Device Global Memory": "40354 MiB",
            "Shared Memory per SM": "164 KiB", "Memory Bus Width": 5120.0,
            "Memory Clock Rate": 1.215,
        },
    }


def build_metadata(name: str) -> dict[str, Any]:
    """``--exportLayerInfo`` build metadata (trex-mobilenet-qat shape)."""
    return {
        "model_options": {"Format": "ONNX", "Model": f"{name}.onnx"},
        "build_options": {"Max batch": "explicit batch", "Memory Pools": "workspace",
                          "minTiming": "1", "avgTiming": "8", "Precision": "FP32+FP16+INT8"},
    }


def _value(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return json.dumps(value)


def _record(record: dict[str, Any]) -> str:
    """One record the way trtexec prints it: ``{ "key" : value, ... }``."""
    return "{ " + ", ".join(f"{json.dumps(k)} : {_value(v)}" for k, v in record.items()) + " }"


def write_records(path: Path, records: list[dict[str, Any]]) -> None:
    """A trtexec-style JSON array, one record per line."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("[\n  " + "\n, ".join(_record(r) for r in records) + "\n]\n")


def write_graph(path: Path, layers: list[dict[str, Any]], bindings: list[str]) -> None:
    """``--exportLayerInfo`` JSON, one layer per line."""
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"Layers": [')
        f.write(",\n".join(json.dumps(layer, separators=(",", ":")) for layer in layers))
        f.write('],\n"Bindings": ' + json.dumps(bindings) + "}\n")


def paths(out: Path, name: str) -> dict[str, Path]:
    """The five files of engine ``name``, keyed by suffix."""
    return {suffix: out / f"{name}.{suffix}" for suffix in SUFFIXES}


def engine_name(n: int) -> str:
    """File name prefix of the generated engine with ``n`` layers."""
    return f"bench{n}"


def is_complete(out: Path, n: int) -> bool:
    """All five files exist and the graph has ``n`` layers (one per line, as written)."""
    files = paths(out, engine_name(n))
    if not all(p.is_file() for p in files.values()):
        return False
    lines = 0
    last = ""
    with open(files["graph.json"], encoding="utf-8") as f:
        for line in f:  # streamed: a 50,000-layer graph is 50 MB
            lines += 1
            last = line
    return lines == n + 1 and last.startswith('"Bindings"')


def generate(n: int, out: Path = DEFAULT_OUT, engines: Path = DEFAULT_ENGINES,
             sources: tuple[str, ...] = DEFAULT_SOURCES, seed: int = SEED) -> dict[str, Path]:
    """Write the five files of an ``n``-layer engine into ``out``; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    templates = [load_template(engines / s) for s in sources]
    rng = random.Random(seed + n)
    layers, bindings, avgs = build_layers(n, templates, rng)
    name = engine_name(n)
    files = paths(out, name)
    times = timing_records(sum(avgs) / PROFILING_OVERHEAD, rng)
    write_records(files["profile.json"], profile_records(layers, avgs, rng))
    write_records(files["timing.json"], times)
    for key, data in (("profile.metadata.json", profile_metadata(times)),
                      ("build.metadata.json", build_metadata(name))):
        files[key].write_text(json.dumps(data, indent=4) + "\n", encoding="utf-8")
    # The graph last: is_complete() checks it.
    write_graph(files["graph.json"], layers, bindings)
    return files


# The plan shape: one real engine repeated in series (TREx's own test engine, 72 df rows
# and one NoOp per copy): 14, 150 and 750 copies are 1,008, 10,800 and 54,000 layers.
SERIES_SOURCE = "trex-mobilenet-qat"
SERIES_COPIES = (14, 150, 750)
SERIES_SUFFIXES = ("graph.json", "profile.json", "profile.metadata.json", "build.metadata.json")


def series_name(copies: int) -> str:
    """File name prefix of the engine made of ``copies`` copies of SERIES_SOURCE."""
    return f"series{copies}"


def _renamed(name: str, k: int, feed: dict[str, str]) -> str:
    return feed.get(name, f"{name}.r{k}")


def series(copies: int, out: Path = DEFAULT_OUT, engines: Path = DEFAULT_ENGINES,
           source: str = SERIES_SOURCE) -> dict[str, Path]:
    """Write ``source`` repeated ``copies`` times in series; return the files' paths.

    Every layer (NoOps too) and tensor of copy ``k`` is renamed ``NAME.r{k}`` and copy ``k``'s
    input is copy ``k-1``'s output (the first copy keeps the engine's input binding). The profile
    repeats the real per-layer rows, renamed (percentages divided by ``copies``); the profile and
    build metadata are the real files.
    """
    folder = engines / source
    graph_path, profile_path = _only(folder, ".graph.json"), _only(folder, ".profile.json")
    if graph_path is None or profile_path is None:
        raise FileNotFoundError(f"{folder}: needs a .graph.json and a .profile.json")
    with open(graph_path, encoding="utf-8") as f:
        graph = json.load(f, strict=False)
    with open(profile_path, encoding="utf-8") as f:
        profile = json.load(f, strict=False)
    first, last = graph["Bindings"][0], graph["Bindings"][-1]
    layers: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = [r for r in profile if "name" not in r]  # {"count": N}
    for k in range(copies):
        feed = {first: first if k == 0 else f"{last}.r{k - 1}"}
        for src in graph["Layers"]:
            layer = dict(src, Name=f"{src['Name']}.r{k}")
            for key in ("Inputs", "Outputs"):
                layer[key] = [dict(t, Name=_renamed(t["Name"], k, feed)) for t in src.get(key, [])]
            layers.append(layer)
        rows.extend(dict(r, name=f"{r['name']}.r{k}", percentage=r.get("percentage", 0.0) / copies)
                    for r in profile if "name" in r)
    out.mkdir(parents=True, exist_ok=True)
    files = {suffix: out / f"{series_name(copies)}.{suffix}" for suffix in SERIES_SUFFIXES}
    write_records(files["profile.json"], rows)
    for suffix in ("profile.metadata.json", "build.metadata.json"):
        real = _only(folder, "." + suffix)
        if real is not None:
            files[suffix].write_bytes(real.read_bytes())
        else:
            files.pop(suffix)
    write_graph(files["graph.json"], layers, [first, f"{last}.r{copies - 1}"])  # last: is_complete
    return files


def ensure_series(copies: list[int], out: Path = DEFAULT_OUT, engines: Path = DEFAULT_ENGINES,
                  force: bool = False, log: Any = print) -> dict[int, str]:
    """Generate the series engines that are missing; return their path prefixes."""
    result = {}
    for n in copies:
        graph = out / f"{series_name(n)}.graph.json"
        if force or not graph.is_file() or not _graph_complete(graph):
            log(f"{series_name(n)}: generating {n} copies of {SERIES_SOURCE} in {out}")
            series(n, out, engines)
        result[n] = str(out / series_name(n))
    return result


def _graph_complete(graph: Path) -> bool:
    """The graph file was written to its end (its last line holds the bindings)."""
    with open(graph, "rb") as f:
        f.seek(max(0, graph.stat().st_size - 4096))
        return b'"Bindings"' in f.read()


def ensure(sizes: list[int], out: Path = DEFAULT_OUT, engines: Path = DEFAULT_ENGINES,
           force: bool = False, log: Any = print) -> dict[int, dict[str, Path]]:
    """Generate the engines that are missing (or all with ``force``); return all paths."""
    result = {}
    for n in sizes:
        if not force and is_complete(out, n):
            log(f"{engine_name(n)}: up to date in {out}")
        else:
            log(f"{engine_name(n)}: generating {n} layers in {out}")
            generate(n, out, engines)
        result[n] = paths(out, engine_name(n))
    return result


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES))
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--engines", type=Path, default=DEFAULT_ENGINES,
                        help="folder of real exports to replicate (default: $TREX_ENGINES_DIR "
                             "or ../shared/engines)")
    parser.add_argument("--series", type=int, nargs="*", default=None, metavar="COPIES",
                        help=f"instead: {SERIES_SOURCE} repeated COPIES times in series "
                             f"(default {' '.join(map(str, SERIES_COPIES))})")
    parser.add_argument("--force", action="store_true", help="regenerate existing files")
    args = parser.parse_args(argv)
    if any(n < 1 for n in args.sizes + (args.series or [])):
        parser.error("sizes must be positive")
    if args.series is not None:
        ensure_series(args.series or list(SERIES_COPIES), args.out, args.engines, args.force)
    else:
        ensure(args.sizes, args.out, args.engines, args.force)
    return 0


if __name__ == "__main__":
    sys.exit(main())
