"""A verbose build log's ``Engine Layer Information`` list, read as layer information.

Each line is ``Layer(Type): name, Tactic: 0x..., a (Float[1,3,224,224]) -> b (Half[...])`` (8.6+),
or ``name[Half(1,256,180,180)]`` tensors with decimal tactics (8.2/8.5). The layers become TREx
raw layer dicts: tensors with formats inferred from their vector widths, kernel names from the
autotuning records, ONNX nodes from the log's ForeignNode and 'Parsing node' lines.
"""

from __future__ import annotations

import re
from typing import Any

from .build_records import BuildLog, EngineLayer, EngineTensor, tactic_key
from .layer_dump import parse_layer_line
from .layer_info import normalise
from .records import LayerInfo

_ENGINE_LAYER = re.compile(r"Layer\((?P<type>[^)]*)\): (?P<rest>.*)$")
_TENSOR_DESC = re.compile(r" \((?P<dtype>[A-Za-z][A-Za-z0-9]*)\[(?P<dims>[-\d,: ]*)\]\)(?:, |$)")
# 8.2/8.5 form of the same list: ``name[Half(1,256,180,180)]`` (dims in parentheses).
_TENSOR_DESC_82 = re.compile(r"\[(?P<dtype>[A-Za-z][A-Za-z0-9]*)\((?P<dims>[-\d,: ]*)\)\](?:, |$)")


def _parse_tensors(text: str, pattern: re.Pattern[str] = _TENSOR_DESC) -> list[EngineTensor]:
    """``a (Float[1,3]), b c (Int8[1,32:32,7,7])`` -> tensors (names may hold commas).

    This form writes every vector width (``Half[-1,64:8,14,14]``): a tensor without one is not
    vectorised. The 8.2/8.5 form may print none: there a missing width is unknown."""
    printed_always = pattern is _TENSOR_DESC
    tensors = []
    start = 0
    for match in pattern.finditer(text):
        name = text[start:match.start()]
        start = match.end()
        dims, vector, axis = [], 1, None
        for i, part in enumerate(match["dims"].split(",")):
            if not part.strip():
                continue
            size, _, width = part.partition(":")
            dims.append(_to_int(size, -1))
            if width:
                vector, axis = _to_int(width, 1), i
        tensors.append(EngineTensor(name, match["dtype"], dims, vector, axis,
                                    printed_always or axis is not None))
    return tensors


def _parse_tensors_82(text: str) -> list[EngineTensor]:
    """``a[Float(1,3)], b, c[Int8(1,32,7,7)]`` (8.2/8.5) -> tensors (names may hold commas, brackets)."""
    return _parse_tensors(text, _TENSOR_DESC_82)


def parse_engine_layer(content: str) -> EngineLayer | None:
    """One ``Layer(Type): name, Tactic: ..., inputs -> outputs`` line (None if it is not one)."""
    match = _ENGINE_LAYER.match(content)
    if match is None:
        return None
    rest = match["rest"]
    marker = rest.find(", Tactic: ")
    if marker < 0:
        return None
    name = rest[:marker]
    after = rest[marker + len(", Tactic: "):]
    tactic, _, io = after.partition(", ")
    old = io.find(")] -> ")
    new = io.find("]) -> ")
    if old >= 0 and (new < 0 or old < new) or (new < 0 and io.endswith(")]")):
        parse, arrow = _parse_tensors_82, old  # 8.2/8.5: name[Dtype(dims)]
    else:
        parse, arrow = _parse_tensors, new
    if arrow >= 0:
        inputs, outputs = io[:arrow + 2], io[arrow + 6:]
    elif io.startswith("-> "):
        inputs, outputs = "", io[3:]
    else:
        inputs, _, outputs = io.partition(" -> ")
    return EngineLayer(name, match["type"], tactic.strip() or None, parse(inputs), parse(outputs))


def dumped_layer(line: str) -> tuple[EngineLayer, tuple[list[str], list[str]]] | None:
    """A ``--dumpLayerInfo`` line (``Name: X, LayerType: Y, Inputs: [...], TacticValue: ...``) as
    an engine layer, with its tensors' ``Format/Datatype`` as printed (the words tell the layout);
    None if the line is not one."""
    if ", LayerType: " not in line:
        return None
    raw = parse_layer_line(line)
    if raw is None or not isinstance(raw.get("Name"), str):
        return None
    tensors = [[t for t in raw[key] if isinstance(t, dict)] for key in ("Inputs", "Outputs")]
    formats = [[str(t.get("Format/Datatype", "")) for t in side] for side in tensors]
    tactic = raw.get("TacticValue")
    layer = EngineLayer(raw["Name"], str(raw.get("LayerType", "")),
                        str(tactic) if tactic not in (None, "") else None,
                        [_dumped_tensor(t) for t in tensors[0]],
                        [_dumped_tensor(t) for t in tensors[1]])
    return layer, (formats[0], formats[1])


def _dumped_tensor(tensor: dict[str, Any]) -> EngineTensor:
    dims = tensor.get("Dimensions")
    return EngineTensor(str(tensor.get("Name", "")), str(tensor.get("Format/Datatype", "")),
                        [d for d in dims if isinstance(d, int)] if isinstance(dims, list) else [],
                        vector_printed=False)


def _to_int(text: str, default: int) -> int:
    try:
        return int(text.strip())
    except ValueError:
        return default


# The logical kind (JSON's ParameterType) an implementation names: ``CaskConvolution``,
# ``PointWiseV2``, ``TiledPooling``. Myelin's own layers (``MyelinReformat``, kgen, gemm) have no
# ParameterType in JSON exports, so they get none here either.
_KINDS = ("Deconvolution", "ConvActPool", "Convolution", "Pooling", "SoftMax", "PointWise",
          "Reformat", "Normalization", "Reduce")


def parameter_type(layer_type: str) -> str | None:
    """The ParameterType a JSON export gives a layer the log names only by its implementation."""
    if layer_type.startswith("Myelin"):
        return None
    return next((kind for kind in _KINDS if kind in layer_type), None)


def engine_layer_info(log: BuildLog) -> LayerInfo:
    """The engine layers of a build log as TREx raw layer dicts (tactic names from autotuning)."""
    names = _tactic_names(log)
    layers = []
    for layer in log.engine_layers:
        raw: dict[str, Any] = {
            "Name": layer.name,
            "LayerType": layer.type,
            "Inputs": [_tensor_dict(t) for t in layer.inputs],
            "Outputs": [_tensor_dict(t) for t in layer.outputs],
        }
        kind = parameter_type(layer.type)
        if kind is not None:
            raw["ParameterType"] = kind
        if layer.tactic is not None:
            raw["TacticValue"] = layer.tactic
            key = tactic_key(layer.tactic)
            name = names.get((layer.name, key)) or names.get((None, key))
            if name:
                raw["TacticName"] = name
        members = log.foreign_nodes.get(layer.name) or _nodes_in_name(layer.name, log.onnx_nodes)
        if members:
            raw["Metadata"] = list(members)
        layers.append(raw)
    info = normalise(layers, [], source=log.source)
    info.has_weights = False
    info.warnings.append("layer information read from the log's 'Engine Layer Information' "
                         "list: no weights, parameters or bindings; tensor layouts inferred from "
                         "vector widths")
    return info


def _nodes_in_name(name: str, known: dict[str, str]) -> list[str]:
    """The parsed ONNX nodes a (fused) layer name is made of: ``a + PWN(b, c)`` -> a, b, c.

    Reformats TensorRT inserts are named after the layer they feed and implement no node."""
    if not known or name.startswith("Reformatting CopyNode for "):
        return []
    parts = re.split(r" \+ |, |PWN\(|\)", name)
    return [p for p in dict.fromkeys(part.strip() for part in parts) if p in known]


def _tensor_dict(tensor: EngineTensor) -> dict[str, Any]:
    dtype = tensor.dtype
    if tensor.vector > 1:
        # The log prints only the vector width: Half x8 is HWC8, the rest CHW<width>.
        layout = "HWC8" if tensor.vector == 8 and dtype in ("Half", "BFloat16") else f"CHW{tensor.vector}"
        fmt = f"{dtype} (k{layout})"
    else:
        fmt = f"Row major linear {dtype} format" if len(tensor.dims) >= 3 else dtype
    return {"Name": tensor.name, "Dimensions": list(tensor.dims), "Format/Datatype": fmt,
            "Location": "Device"}


def _tactic_names(log: BuildLog) -> dict[tuple[str | None, int | None], str]:
    """Kernel names by (layer, tactic id) and by (None, tactic id): a tactic id names one kernel,
    so a layer whose timings TensorRT reused silently gets the name timed for another layer."""
    names: dict[tuple[str | None, int | None], str] = {}
    chosen = log.chosen_pass
    for t in log.tactics:
        if not t.tactic_name:
            continue
        key = tactic_key(t.tactic)
        if t.build_pass == chosen or (t.layer, key) not in names:
            names[(t.layer, key)] = t.tactic_name
        names.setdefault((None, key), t.tactic_name)
    return names
