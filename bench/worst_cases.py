"""Generated worst-case engine exports: transformer-shaped graphs with hub tensors, huge names.

A transformer-like plan is N blocks of TensorRT 10 Myelin layers (layer dicts copied from the real
``trt10.4-alexnet-fp16`` export, so every key is one TensorRT writes): layer norm, QKV GEMM,
attention (reading the ``attention_mask`` binding: one tensor feeding every block), projection,
residual add, layer norm, two FFN GEMMs and a second residual add; the residual adds are the short
skip connections. The tests and the benchmarks import it (stdlib only, no trex import).
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

TEMPLATE = "trt10.4-alexnet-fp16"
MASK = "attention_mask"
# (name, template layer type, inputs as block-local names; "x" is the block input, "mask" the hub)
BLOCK = (
    ("ln1", "kgen", ("x",)),
    ("qkv", "gemm", ("ln1",)),
    ("attn", "kgen", ("qkv", "mask")),
    ("proj", "gemm", ("attn",)),
    ("add1", "kgen", ("proj", "x")),
    ("ln2", "kgen", ("add1",)),
    ("ff1", "gemm", ("ln2",)),
    ("ff2", "gemm", ("ff1",)),
    ("add2", "kgen", ("ff2", "add1")),
)


def template_layers(engines: Path) -> dict[str, dict[str, Any]]:
    """The first real layer of each Myelin type (``kgen``, ``gemm``) of the template export."""
    folder = engines / TEMPLATE
    graph = json.loads(next(folder.glob("*.graph.json")).read_text(encoding="utf-8"))
    found: dict[str, dict[str, Any]] = {}
    for layer in graph["Layers"]:
        if isinstance(layer, dict) and layer.get("LayerType") in ("kgen", "gemm"):
            found.setdefault(layer["LayerType"], layer)
    return found


def _tensor(template: dict[str, Any], name: str) -> dict[str, Any]:
    return dict(template, Name=name, Dimensions=[1, 128, 768])


def transformer_graph(blocks: int, engines: Path, block: tuple = BLOCK,
                      name_of: Any = None, hubs: tuple[str, ...] = (MASK,)) -> dict[str, Any]:
    """Layer JSON (``{"Layers", "Bindings"}``) of ``blocks`` transformer blocks sharing one mask
    (``hubs``: the bindings every attention reads, e.g. also position ids and a rotary table)."""
    templates = template_layers(engines)
    name_of = name_of or (lambda b, local: f"/model/layers.{b}/{local}")
    layers = []
    x = "input_embeds"
    for b in range(blocks):
        local = {"x": x}
        for name, kind, inputs in block:
            if "mask" in inputs:
                inputs = tuple(i for i in inputs if i != "mask") + hubs
            src = templates[kind]
            tensor = src["Outputs"][0]
            layer = copy.deepcopy(src)
            layer["Name"] = name_of(b, name)
            layer["Metadata"] = f"[ONNX Layer: /model/layers.{b}/{name}]"
            layer["Inputs"] = [_tensor(tensor, local.get(i, i)) for i in inputs]
            out = f"{layer['Name']}_output_0"
            layer["Outputs"] = [_tensor(tensor, out)]
            local[name] = out
            layers.append(layer)
        x = local[block[-1][0]]
    return {"Layers": layers, "Bindings": ["input_embeds", *hubs, x]}


def fan_graph(width: int, engines: Path) -> dict[str, Any]:
    """One tensor read by ``width`` parallel heads whose outputs one layer concatenates: a wide
    fan-out and fan-in within two layers (no hub: every branch is one layer long)."""
    templates = template_layers(engines)
    tensor = templates["kgen"]["Outputs"][0]

    def layer(kind: str, name: str, inputs: list[str]) -> dict[str, Any]:
        out = copy.deepcopy(templates[kind])
        out.update(Name=name, Metadata=f"[ONNX Layer: {name}]",
                   Inputs=[_tensor(tensor, i) for i in inputs],
                   Outputs=[_tensor(tensor, f"{name}_output_0")])
        return out

    heads = [layer("gemm", f"/head.{k}", ["input"]) for k in range(width)]
    concat = layer("kgen", "/concat", [h["Outputs"][0]["Name"] for h in heads])
    return {"Layers": [*heads, concat], "Bindings": ["input", "/concat_output_0"]}


def write_graph(folder: Path, name: str, graph: dict[str, Any]) -> Path:
    """Write ``folder/<name>.graph.json``; return the engine prefix."""
    folder.mkdir(parents=True, exist_ok=True)
    prefix = folder / name
    Path(f"{prefix}.graph.json").write_text(json.dumps(graph), encoding="utf-8")
    return prefix


def write_transformer(folder: Path, blocks: int, engines: Path, **kwargs: Any) -> Path:
    """Write ``folder/transformer<N>.graph.json``; return the engine prefix."""
    return write_graph(folder, f"transformer{blocks}", transformer_graph(blocks, engines, **kwargs))


# ----------------------------------------------------------------------------- hostile inputs
MB = 1 << 20
REAL = "trt8.6-resnet50-int8"  # graph, profile, timing, metadata and its trtexec profile log


def hostile_names() -> list[str]:
    """1 MB layer names shaped against each name parser (ONNX suffixes, `` + `` splits, ``PWN(``,
    Myelin, TensorRT's own names)."""
    return [
        "Conv" + "_1" * (MB // 2) + "y",
        "a" + " " * MB + "+ b",
        "PWN(" * (MB // 4),
        "{ForeignNode[" + "/x" * (MB // 2),
        "Reformatting CopyNode for Input Tensor 0 to " + "x, " * (MB // 3),
    ]


def _real_files(engines: Path) -> dict[str, Path]:
    return {p.name.split(".engine.", 1)[1]: p for p in (engines / REAL).iterdir()}


def long_names_engine(folder: Path, engines: Path) -> Path:
    """The real ``trt8.6-resnet50-int8`` export with 1 MB layer names (its profile rows renamed
    too), a 1 MB tensor name and 1 MB ONNX metadata; returns the engine prefix."""
    files = _real_files(engines)
    graph = json.loads(files["graph.json"].read_text(encoding="utf-8"))
    profile = json.loads(files["profile.json"].read_text(encoding="utf-8"))
    renamed = {}
    for layer, name in zip(graph["Layers"][1:], hostile_names()):
        renamed[layer["Name"]] = name
        layer["Name"] = name
    for row in profile:
        if isinstance(row, dict) and row.get("name") in renamed:
            row["name"] = renamed[row["name"]]
    first = graph["Layers"][1]
    tensor = first["Outputs"][0]["Name"]
    for layer in graph["Layers"]:
        for t in (*layer.get("Inputs", []), *layer.get("Outputs", [])):
            if t["Name"] == tensor:
                t["Name"] = "t" * MB
    graph["Layers"][2]["Metadata"] = "[ONNX Layer: " * (MB // 13)
    graph["Layers"][3]["Metadata"] = "[ONNX Layer: /" + "m" * MB + "]"
    prefix = folder / "names.engine"
    folder.mkdir(parents=True, exist_ok=True)
    Path(f"{prefix}.graph.json").write_text(json.dumps(graph), encoding="utf-8")
    Path(f"{prefix}.profile.json").write_text(json.dumps(profile), encoding="utf-8")
    for suffix in ("timing.json", "profile.metadata.json"):
        Path(f"{prefix}.{suffix}").write_bytes(files[suffix].read_bytes())
    return prefix


def dla_fused_name(nodes: int = 120) -> str:
    """A DLA subgraph's layer name as some TensorRT builds write it: every fused ONNX node, comma
    separated inside ``{ForeignNode[...]}`` (no `` + ``, so one label row), about 36 characters
    a node."""
    parts = [f"/model.{i // 3}/m.{i % 3}/cv{i % 2 + 1}/conv/Conv" for i in range(nodes)]
    return "{ForeignNode[" + ",".join(parts) + "]}"


def dla_names_engine(folder: Path, engines: Path, nodes: int = 120) -> Path:
    """The real ``trt8.6-resnet50-int8`` export whose second layer has :func:`dla_fused_name`
    (its profile row renamed too); returns the engine prefix."""
    files = _real_files(engines)
    graph = json.loads(files["graph.json"].read_text(encoding="utf-8"))
    profile = json.loads(files["profile.json"].read_text(encoding="utf-8"))
    layer = graph["Layers"][1]
    old, layer["Name"] = layer["Name"], dla_fused_name(nodes)
    for row in profile:
        if isinstance(row, dict) and row.get("name") == old:
            row["name"] = layer["Name"]
    prefix = folder / "dla.engine"
    folder.mkdir(parents=True, exist_ok=True)
    Path(f"{prefix}.graph.json").write_text(json.dumps(graph), encoding="utf-8")
    Path(f"{prefix}.profile.json").write_text(json.dumps(profile), encoding="utf-8")
    return prefix


def long_metadata_engine(folder: Path, engines: Path) -> Path:
    """The real export with 1 MB values in its profile metadata (device name, options, a
    performance figure) and a build metadata file of 1 MB values; returns the engine prefix."""
    files = _real_files(engines)
    meta = json.loads(files["profile.metadata.json"].read_text(encoding="utf-8"))
    meta.setdefault("device_information", {})["Selected Device"] = "GPU " * (MB // 4)
    meta.setdefault("inference_options", {})["Batch"] = "[W] " * (MB // 4)
    meta.setdefault("performance_summary", {})["Throughput"] = "1" * MB
    build = {"model_options": {"Model": "m" * MB},
             "build_options": {"Precision": "FP16+" * (MB // 5), "minTiming": "9" * MB}}
    prefix = folder / "meta.engine"
    folder.mkdir(parents=True, exist_ok=True)
    for suffix in ("graph.json", "profile.json", "timing.json"):
        Path(f"{prefix}.{suffix}").write_bytes(files[suffix].read_bytes())
    Path(f"{prefix}.profile.metadata.json").write_text(json.dumps(meta), encoding="utf-8")
    Path(f"{prefix}.build.metadata.json").write_text(json.dumps(build), encoding="utf-8")
    return prefix


def hub_chain_graph(length: int, engines: Path) -> dict[str, Any]:
    """``length`` layers in a chain, every one also reading the ``attention_mask`` binding: one
    tensor with a ``length``-way fan-out spread over the whole graph."""
    block = (("layer", "kgen", ("x", "mask")),)
    return transformer_graph(length, engines, block=block,
                             name_of=lambda b, local: f"/model/layers.{b}/{local}")


def real_log(engines: Path, kind: str = "profile") -> Path:
    """A real trtexec log: ``profile`` (trt8.6-resnet50-int8) or ``build`` (verbose build log)."""
    if kind == "build":
        return next((engines / "trt8.6-mobilenetv2-int8-build").glob("*.build.log"))
    return next((engines / REAL).glob("*.profile.log"))


def single_line_log(path: Path, size: int = 100 * MB, prefix: str = "[E] [TRT] Error: ") -> Path:
    """A log that is one line of ``size`` bytes (a trtexec error message gone wrong)."""
    chunk = ("x" * (MB - 1) + " ").encode()
    with open(path, "wb") as f:
        f.write(prefix.encode())
        for _ in range(size // MB):
            f.write(chunk)
        f.write(b"\n")
    return path


def big_log_engine(folder: Path, engines: Path, log: Path) -> Path:
    """The real export whose trtexec profile log is ``log`` (linked, not copied): without the
    profile metadata JSON, so that the log is read for the device and performance summary."""
    files = _real_files(engines)
    prefix = folder / "biglog.engine"
    folder.mkdir(parents=True, exist_ok=True)
    for suffix in ("graph.json", "profile.json", "timing.json"):
        Path(f"{prefix}.{suffix}").write_bytes(files[suffix].read_bytes())
    Path(f"{prefix}.profile.log").symlink_to(log)
    return prefix


def log_with_long_line(path: Path, source: Path, size: int = 100 * MB,
                       prefix: str = "[02/02/2024-10:00:00] [W] [TRT] ") -> Path:
    """The real log ``source`` with one ``size``-byte line (``prefix`` + text) in the middle."""
    lines = source.read_bytes().splitlines(keepends=True)
    half = len(lines) // 2
    chunk = ("x" * (MB - 1) + " ").encode()
    with open(path, "wb") as f:
        f.writelines(lines[:half])
        f.write(prefix.encode())
        for _ in range(size // MB):
            f.write(chunk)
        f.write(b"\n")
        f.writelines(lines[half:])
    return path


def log_with_long_value(path: Path, source: Path, key: str = "Throughput:",
                        size: int = 100 * MB) -> Path:
    """The real log ``source`` with the value after ``key`` (e.g. the performance summary's
    throughput) replaced by ``size`` bytes of text: a value trex cannot read and must not echo."""
    text = source.read_bytes()
    start = text.index(key.encode()) + len(key)
    end = text.index(b"\n", start)
    with open(path, "wb") as f:
        f.write(text[:start] + b" ")
        chunk = b"q" * MB
        for _ in range(size // MB):
            f.write(chunk)
        f.write(text[end:])
    return path


def hostile_tuning_cache(path: Path) -> Path:
    """A trtexec tuning cache (``--tuningCacheFile``, JSON Lines) whose header is followed by
    hostile lines: 100,000 nested brackets, 100,000 record openings, a 1 MB build-route value."""
    header = {"tuner_version": 1, "search_space": "route", "command": "trtexec " + "-x " * (MB // 3)}
    lines = [json.dumps(header), '{"iter": [' * 100_000, '{"iter": 1, "a": ' * 100_000,
             json.dumps({"iter": 0, "build_route": {"k": "v" * MB}, "gpu_time_ms": 1.0})]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def nested_attributes_engine(folder: Path, engines: Path, layers: int = 2000, keys: int = 200,
                             nested: bool = True) -> Path:
    """The real MobileNet QAT engine repeated in series to ``layers`` layers, each with ``keys``
    attribute keys no other layer has: inside one dict attribute (``nested``) or at the top
    level; about 7 MB at 2,000 x 200. Returns the engine prefix."""
    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    from generate import SERIES_SOURCE, series, series_name

    source = next(p for p in (engines / SERIES_SOURCE).iterdir() if p.name.endswith(".graph.json"))
    per_copy = len(json.loads(source.read_text(encoding="utf-8"))["Layers"])
    copies = -(-layers // per_copy)
    series(copies, folder, engines)
    graph_path = folder / f"{series_name(copies)}.graph.json"
    graph = json.loads(graph_path.read_text(encoding="utf-8"))
    for i, layer in enumerate(graph["Layers"][:layers]):
        extra = {f"k{i}_{j}": j for j in range(keys)}
        if nested:
            layer["Extra"] = extra
        else:
            layer.update(extra)
    graph_path.write_text(json.dumps(graph), encoding="utf-8")
    return folder / series_name(copies)
