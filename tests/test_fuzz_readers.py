"""Fuzz tests: for ANY input bytes, every reader returns normally or raises trex's own TrexError.

The inputs are real TensorRT exports (through the ``engines`` fixture) mutated three ways:

* byte level: truncation, byte flips, insertions, deletions, duplicated slices;
* JSON structure: keys deleted, values replaced with values of other types (None, huge or negative
  numbers, NaN/inf, nested containers), names with quotes, backslashes, control characters,
  ``[profile N]`` suffixes and unicode, lists shuffled or emptied; written back as JSON or, like
  trtexec, without escaping strings;
* line level for logs and the one-line layer dump: lines dropped, duplicated, swapped, cut, joined
  and junk lines inserted.

Each mutated input is written to a temporary file and read back by every reader, by the full
``EnginePlan`` pipeline and by ``EnginePlan.from_path``. A failing example is printed by hypothesis
(and replayed from its database); each test has a fixed seed so CI runs the same examples.
"""

from __future__ import annotations

import codecs
import copy
import json
import os
import shutil
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, currently_in_test_context, event, given, seed, settings
from hypothesis import strategies as st

import trex
from trex.errors import InputError, TrexError, TrexWarning
from trex.formats import detect_kind
from trex.formats.export_times import read_timings
from trex.formats.jsonio import loads_documents
from trex.formats.layer_info import read_layer_info
from trex.formats.metadata import read_metadata
from trex.formats.profile import read_profile

try:  # imported defensively: the log reader was written alongside these tests
    from trex.formats.trtexec_log import read_trtexec_log
except ImportError:  # pragma: no cover
    read_trtexec_log = None

# --------------------------------------------------------------------------------------- samples
# Small, representative real files (relative to the engines folder).
FILES = {
    "mobilenet_graph": "trex-mobilenet-qat/mobilenet.qat.onnx.engine.graph.json",
    "mobilenet_profile": "trex-mobilenet-qat/mobilenet.qat.onnx.engine.profile.json",
    "mobilenet_profile_meta": "trex-mobilenet-qat/mobilenet.qat.onnx.engine.profile.metadata.json",
    "mobilenet_build_meta": "trex-mobilenet-qat/mobilenet.qat.onnx.engine.build.metadata.json",
    "a100_graph": "a100-resnet18-qat/resnet-qat.onnx.engine.graph.json",
    "a100_profile": "a100-resnet18-qat/resnet-qat.onnx.engine.profile.json",
    "a100_device_meta": "a100-resnet18-qat/resnet-qat.onnx.engine.metadata.json",
    "alexnet10_graph": "trt10.4-alexnet-fp16/alexnet_fp16.graph.json",
    "alexnet10_profile": "trt10.4-alexnet-fp16/alexnet_fp16.profile.json",
    "alexnet10_profile_meta": "trt10.4-alexnet-fp16/alexnet_fp16.profile.metadata.json",
    "alexnet10_build_meta": "trt10.4-alexnet-fp16/alexnet_fp16.build.metadata.json",
    "resnet50_graph": "trt8.6-resnet50-int8/resnet50-int8.engine.graph.json",
    "resnet50_profile": "trt8.6-resnet50-int8/resnet50-int8.engine.profile.json",
    "resnet50_profile_meta": "trt8.6-resnet50-int8/resnet50-int8.engine.profile.metadata.json",
    "torchtrt_graph": "torchtrt-alexnet-fp16/_run_on_acc_0_engine_layer_information.json",
    "torchtrt_trace": "torchtrt-alexnet-fp16/_run_on_acc_0_engine_engine_exectuion_profile.trace",
    "detr_graph": "trt10-detr-int8-names-only/detr-layer-info.json",
    "oneline_log": "trt10.16-multiprofile-oneline/log-main.py.log",
    "googlenet_profile": "trt7-googlenet-int8-concatenated/profile_googlenet_None_int8_10.json",
    "levit_graph": "trt8.2-levit-fp32-names-only/detailed_report.txt",
    "levit_log": "trt8.2-levit-fp32-names-only/result-FP32.txt",
}
# Timing files are megabytes; the fuzz uses their first records, rewritten the way trtexec writes.
TIMING_FILES = {
    "mobilenet_timing": ("trex-mobilenet-qat/mobilenet.qat.onnx.engine.timing.json", 1, 12),
    "googlenet_timing": ("trt7-googlenet-int8-concatenated/times_googlenet_None_int8_10.json", 3, 5),
}
# No real TensorRT 11 export is at hand: its layout is derived from the 10.4 AlexNet graph.
DERIVED = ["trt11_graph"]
JSON_SAMPLES = sorted(
    [k for k in FILES if k not in ("oneline_log", "levit_log")] + list(TIMING_FILES) + DERIVED)
TEXT_SAMPLES = ["oneline_log", "levit_log"]
ALL_SAMPLES = sorted(FILES) + sorted(TIMING_FILES) + DERIVED

# Input sets of the pipeline test: role -> sample (roles are EnginePlan's arguments).
PLANS = {
    "mobilenet": {"graph": "mobilenet_graph", "profile": "mobilenet_profile",
                  "profile_meta": "mobilenet_profile_meta", "build_meta": "mobilenet_build_meta",
                  "timing": "mobilenet_timing"},
    "a100": {"graph": "a100_graph", "profile": "a100_profile", "device_meta": "a100_device_meta"},
    "alexnet10": {"graph": "alexnet10_graph", "profile": "alexnet10_profile",
                  "profile_meta": "alexnet10_profile_meta", "build_meta": "alexnet10_build_meta"},
    "resnet50": {"graph": "resnet50_graph", "profile": "resnet50_profile",
                 "profile_meta": "resnet50_profile_meta"},
    "torchtrt": {"graph": "torchtrt_graph", "profile": "torchtrt_trace"},
    "detr": {"graph": "detr_graph", "profile": "googlenet_profile"},
    "oneline": {"graph": "oneline_log"},
    "trt11": {"graph": "trt11_graph", "profile": "alexnet10_profile"},
    "googlenet": {"graph": "googlenet_profile", "timing": "googlenet_timing"},
    "levit": {"graph": "levit_graph", "profile": "levit_log", "profile_meta": "levit_log",
              "build_meta": "levit_log"},
}


def _raw_documents(text: str) -> list[Any]:
    decoder = json.JSONDecoder(strict=False)
    docs, pos = [], 0
    while True:
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        if pos >= len(text):
            return docs
        doc, pos = decoder.raw_decode(text, pos)
        docs.append(doc)


def _as_trt11(graph: dict[str, Any]) -> dict[str, Any]:
    """A 10.x graph in TensorRT 11's layout: split DataType/Format keys and "I/O Tensors"."""
    tensors: dict[str, dict[str, Any]] = {}
    for layer in graph["Layers"]:
        for io in ("Inputs", "Outputs"):
            for tensor in layer.get(io, []):
                fmt = tensor.pop("Format/Datatype", "")
                tensor["Format"], tensor["DataType"] = fmt, "Half" if "16" in fmt else "Float"
                tensors.setdefault(tensor["Name"], tensor)
    graph["I/O Tensors"] = [
        {"Name": name, "IOMode": "Input" if i == 0 else "Output", "Location": "Device",
         "DataType": tensors.get(name, {}).get("DataType", "Half"),
         "Dimensions": tensors.get(name, {}).get("Dimensions", [])}
        for i, name in enumerate(graph.pop("Bindings", []))
    ]
    return graph


def _trtexec_records(docs: list[list[dict[str, Any]]]) -> str:
    """Records written as trtexec writes them: ``[\\n  { "k" : v, ... }\\n, {...}\\n]``."""
    out = []
    for doc in docs:
        rows = ["{ " + ", ".join(f'"{k}" : {json.dumps(v)}' for k, v in rec.items()) + " }"
                for rec in doc]
        out.append("[\n  " + "\n, ".join(rows) + "\n]\n")
    return "".join(out)


class Samples:
    """The sample files' bytes and parsed JSON, loaded once per session."""

    def __init__(self, engines: Path):
        self.raw: dict[str, bytes] = {}
        self.path: dict[str, Path] = {}
        for key, rel in FILES.items():
            self.path[key] = engines / rel
            self.raw[key] = (engines / rel).read_bytes()
        for key, (rel, n_docs, n_records) in TIMING_FILES.items():
            docs = _raw_documents((engines / rel).read_text())[:n_docs]
            self.raw[key] = _trtexec_records([doc[:n_records] for doc in docs]).encode()
        alexnet = loads_documents(self.raw["alexnet10_graph"].decode("utf-8"))[0]
        self.raw["trt11_graph"] = json.dumps(_as_trt11(alexnet), indent=2).encode()
        self._json: dict[str, str] = {}  # canonical JSON of the list of documents, to copy fast
        for key in JSON_SAMPLES:
            docs = loads_documents(self.raw[key].decode("utf-8"), key)
            self._json[key] = json.dumps(docs)

    def documents(self, key: str) -> list[Any]:
        """A fresh, mutable copy of the sample's JSON documents."""
        return json.loads(self._json[key])

    def filename(self, key: str) -> str:
        return Path(FILES[key]).name if key in FILES else f"{key}.json"


@pytest.fixture(scope="session")
def samples(engines: Path) -> Samples:
    return Samples(engines)


@pytest.fixture(scope="session")
def fuzz_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


# ------------------------------------------------------------------------------ the contract
def _readers() -> list[Any]:
    readers = [read_layer_info, read_profile, read_timings, read_metadata, detect_kind]
    if read_trtexec_log is not None:
        readers.append(read_trtexec_log)
    return readers


def _obeys_contract(call: Any, *args: Any, files: tuple[Path, ...] = (), **kwargs: Any) -> Any:
    """Run ``call``: a result or a TrexError whose message is one line naming one of ``files``.

    Any other exception propagates, so hypothesis reports (and shrinks) the input.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrexWarning)
        try:
            result = call(*args, **kwargs)
        except Exception as exc:
            if not isinstance(exc, TrexError):
                raise
            message = str(exc)
            assert "\n" not in message, f"multi-line error message: {message!r}"
            if isinstance(exc, InputError) and files:
                assert any(os.fspath(f) in message for f in files), (
                    f"error does not name the file: {message!r}")
            _event(call, type(exc).__name__)
            return exc
    _event(call, "ok")
    return result


def _event(call: Any, outcome: str) -> None:
    """Count outcomes per reader (``pytest --hypothesis-show-statistics`` shows them)."""
    if currently_in_test_context():
        event(f"{getattr(call, '__qualname__', call)}: {outcome}")


def _read_with_every_reader(path: Path) -> None:
    results = [_obeys_contract(reader, path, files=(path,)) for reader in _readers()[:4]]
    _obeys_contract(detect_kind, path, files=(path,))
    if read_trtexec_log is not None:
        _obeys_contract(read_trtexec_log, path, files=(path,))
    event("read by some reader" if any(not isinstance(r, TrexError) for r in results)
          else "rejected by every reader")


# ---------------------------------------------------------------------------- byte mutations
INTERESTING_BYTES = [
    b'"', b"\\", b"{", b"}", b"[", b"]", b",", b":", b"\x00", b"\xff", b"\xfe\xff", b"\xff\xfe",
    b"\xef\xbb\xbf", b"\xc3", b"\xed\xa0\x80", b"\n", b"\r\n", b"\t", b"\x1e", b"\x1f", b"NaN",
    b"-Infinity", b"1e999", b"-1", b"0", b"null", b"true", b'""', b"{}", b"[]", b"9" * 5000,
    b"[" * 3000, b'{"a":' * 1500, b"[[[[[[[[", b" [profile 12]", b"&&&& RUNNING TensorRT.trtexec",
    b"[I] ", b"=== Profile (3 iterations ) ===", b"Name: x, LayerType: y, Inputs: [ {",
]
INSERT_BYTES = st.one_of(st.binary(min_size=1, max_size=16), st.sampled_from(INTERESTING_BYTES))
BYTE_OPS = ["truncate", "flip", "insert", "delete", "duplicate", "overwrite"]


def mutate_bytes(data: st.DataObject, raw: bytes) -> bytes:
    buf = bytearray(raw)
    for _ in range(data.draw(st.integers(1, 4), label="byte ops")):
        op = data.draw(st.sampled_from(BYTE_OPS), label="byte op")
        pos = data.draw(st.integers(0, len(buf)), label="offset")
        if op == "truncate":
            del buf[pos:]
        elif op == "flip" and pos < len(buf):
            buf[pos] ^= data.draw(st.integers(1, 255), label="xor")
        elif op == "insert":
            buf[pos:pos] = data.draw(INSERT_BYTES, label="inserted")
        elif op == "delete":
            del buf[pos:pos + data.draw(st.integers(1, 256), label="length")]
        elif op == "duplicate":
            chunk = buf[pos:pos + data.draw(st.integers(1, 4096), label="length")]
            dest = data.draw(st.integers(0, len(buf)), label="dest")
            buf[dest:dest] = chunk
        elif op == "overwrite":
            new = data.draw(INSERT_BYTES, label="overwrite")
            buf[pos:pos + len(new)] = new
    return bytes(buf)


# ----------------------------------------------------------------------- JSON mutations
class Raw:
    """A value written verbatim (not always valid JSON: huge numbers, deep nesting, C's nan)."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return f"Raw({self.text[:40]!r}{'...' if len(self.text) > 40 else ''})"


FRAGMENTS = [
    '"', "\\", "\\u", "\\x41", "\\'", "\x00", "\x01", "\x07", "\x1b", "\x1e", "\x1f", "\n", "\r",
    "\t", " [profile 12]", " [profile 1]", "[profile 0]", " [profile 99999999999]", "[ONNX Layer: a]",
    "{", "}", "[", "]", ",", ":", ": ", ", Name: ", ", LayerType: ", "Reformatting CopyNode ",
    "{ForeignNode[", "]}", "é", "名前", "\ufeff", "\u2028", "\U0001f600", "\ud800", "Total",
    "Layer", "-1", "1e999", "nan", "Half", "Int8", "Thirty-two wide channel vectorized", "(kCHW32)",
    "channel == 4", "x" * 200, "",
]
KEYS = [
    "Name", "LayerType", "Inputs", "Outputs", "Dimensions", "Format/Datatype", "ParameterType",
    "Weights", "Bias", "ConvWeights", "Count", "Type", "Metadata", "StreamId", "TacticName", "Layers",
    "Bindings", "I/O Tensors", "DataType", "Datatype", "Format", "dimensions", "weights", "Groups",
    "OutMaps", "HasBias", "NbInputArgs", "name", "timeMs", "averageMs", "medianMs", "percentage",
    "count", "ph", "dur", "ts", "performance_summary", "inference_options", "device_information",
    "build_options", "model_options", "ComputeCapability", "MULTIPROCESSOR_COUNT", "CLOCK_RATE",
    "TotalMemory", "GPU Compute Time", "SMs", "Device Global Memory", "Compute Capability",
    "Shared Memory per SM", "Memory Bus Width", "Compute Clock Rate", "Selected Device",
    "latencyMs", "computeMs", "startEnqMs", "endToEndMs", "TacticValue", "Origin", "Location",
    "type", "Inputs.0", "latency.time", "total_io_size_bytes", "Weights.Count",
]
SUFFIXES = [" [profile 12]", " [profile 1]", "\x1e[ONNX Layer: x]", "\\", '"', '", "x": "', "\x00"]

EVIL_TEXT = st.one_of(
    st.text(max_size=20),
    st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=6).map("".join),
    st.builds(str.__add__, st.text(max_size=8), st.sampled_from(SUFFIXES)),
)
NUMBERS = st.one_of(
    st.integers(-(2**70), 2**70),
    st.sampled_from([0, -1, 1, 2**31, 2**63, -(2**63), 2**64, 10**30, 10**400, 0.5, -0.0, 1e308,
                     float("nan"), float("inf"), float("-inf")]),
    st.floats(allow_nan=True, allow_infinity=True),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, EVIL_TEXT)
# Values that make the document invalid JSON or hit the parser's limits (a rare op of their own).
RAW_VALUES = st.sampled_from([
    Raw("9" * 5000), Raw("1e999"), Raw("-1e999"), Raw("nan"), Raw("-nan"), Raw("inf"),
    Raw("1" * 400), Raw("[" * 3000 + "]" * 3000), Raw('{"a":' * 2000 + "1" + "}" * 2000),
    Raw("[" * 500 + "]" * 500), Raw("{}"), Raw("[]"), Raw('""'), Raw("'x'"), Raw(""),
])
EVIL_VALUES = st.recursive(
    st.one_of(SCALARS, st.builds(list), st.builds(dict)),
    lambda children: st.one_of(
        st.lists(children, min_size=1, max_size=3),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), EVIL_TEXT), children, min_size=1,
                        max_size=3),
    ),
    max_leaves=6,
)
JSON_OPS = ["delete", "replace", "retype", "string", "number", "list", "dict", "wrap", "copy"] * 3
JSON_OPS.append("raw")


class Place:
    """One value in the parsed tree: ``container[key]``, and the key that names it (for list
    items, the key of the list: the items of ``"Dimensions"`` are named ``"Dimensions"``)."""

    __slots__ = ("container", "key", "name")

    def __init__(self, container: Any, key: Any, name: Any):
        self.container, self.key, self.name = container, key, name

    @property
    def value(self) -> Any:
        return self.container[self.key]

    def exists(self) -> bool:
        if isinstance(self.container, dict):
            return self.key in self.container
        return 0 <= self.key < len(self.container)


def _places(root: list[Any]) -> list[Place]:
    """Every value in the tree (the documents themselves included), parents before children."""
    found: list[Place] = []
    stack: list[tuple[Any, Any]] = [(root, None)]
    while stack:
        node, name = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in list(items):
            place = Place(node, key, key if isinstance(key, str) else name)
            found.append(place)
            if isinstance(value, (dict, list)):
                stack.append((value, place.name))
    return found


# Which values each operation applies to.
_OP_TARGETS = {
    "delete": lambda v: True,
    "replace": lambda v: True,
    "retype": lambda v: True,
    "raw": lambda v: True,
    "wrap": lambda v: True,
    "copy": lambda v: True,
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "list": lambda v: isinstance(v, list),
    "dict": lambda v: isinstance(v, dict),
}


def mutate_json(data: st.DataObject, docs: list[Any]) -> list[Any]:
    """Apply 1-5 operations, each to a value it fits (half the time one with a known key)."""
    for _ in range(data.draw(st.integers(1, 5), label="json ops")):
        places = _places(docs)
        op = data.draw(st.sampled_from(JSON_OPS), label="json op")
        fits = [p for p in places if _OP_TARGETS[op](p.value)]
        named = [p for p in fits if p.name in KEYS]
        pool = named if named and data.draw(st.booleans(), label="named") else fits
        if not pool:
            docs.append(data.draw(EVIL_VALUES, label="new document"))
            continue
        place = pool[data.draw(st.integers(0, len(pool) - 1), label="place")]
        container, key, value = place.container, place.key, place.value
        if op == "delete":
            del container[key]
        elif op == "replace":
            container[key] = data.draw(EVIL_VALUES, label="value")
        elif op == "retype":
            container[key] = data.draw(SCALARS, label="scalar")
        elif op == "raw":
            container[key] = data.draw(RAW_VALUES, label="raw")
        elif op == "number":
            container[key] = data.draw(NUMBERS, label="number")
        elif op == "string":
            at = data.draw(st.integers(0, len(value)), label="at")
            piece = data.draw(EVIL_TEXT, label="piece")
            container[key] = data.draw(st.sampled_from([
                value[:at] + piece + value[at:], value + piece, piece, value[:at]]), label="string")
        elif op == "list":
            how = data.draw(st.sampled_from(["shuffle", "empty", "dup", "reverse", "cut", "add"]))
            if how == "shuffle":
                data.draw(st.randoms(use_true_random=False), label="rng").shuffle(value)
            elif how == "empty":
                value.clear()
            elif how == "dup" and value:
                value.extend(copy.deepcopy(value[: data.draw(st.integers(1, 3))]))
            elif how == "reverse":
                value.reverse()
            elif how == "cut":
                del value[data.draw(st.integers(0, len(value))):]
            else:
                value.insert(data.draw(st.integers(0, len(value))), data.draw(EVIL_VALUES))
        elif op == "dict":
            how = data.draw(st.sampled_from(["add", "add", "rename", "clear"]))
            if how == "add":
                value[data.draw(st.sampled_from(KEYS))] = data.draw(EVIL_VALUES, label="value")
            elif how == "rename" and value:
                old = data.draw(st.sampled_from(sorted(value)), label="old key")
                value[data.draw(st.one_of(st.sampled_from(KEYS), EVIL_TEXT))] = value.pop(old)
            else:
                value.clear()
        elif op == "wrap":
            container[key] = data.draw(st.sampled_from([[value], {"x": value}, [[value]]]))
        elif op == "copy":
            other = places[data.draw(st.integers(0, len(places) - 1))]
            if other.exists():
                container[key] = copy.deepcopy(other.value)
    return docs


def dump(value: Any, escape: bool, ascii_only: bool) -> str:
    """JSON text of a value; with ``escape=False`` strings are written raw, as trtexec does."""
    if isinstance(value, Raw):
        return value.text
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if escape or value == value and abs(value) != float("inf"):
            return json.dumps(value)
        return "nan" if value != value else ("inf" if value > 0 else "-inf")  # C++ iostream
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=ascii_only) if escape else f'"{value}"'
    if isinstance(value, list):
        return "[" + "\n, ".join(dump(v, escape, ascii_only) for v in value) + "]"
    return "{" + ", ".join(f"{dump(str(k), escape, ascii_only)} : {dump(v, escape, ascii_only)}"
                           for k, v in value.items()) + "}"


def write_json(data: st.DataObject, docs: list[Any]) -> bytes:
    escape = data.draw(st.sampled_from([True, True, True, False]), label="escape strings")
    ascii_only = data.draw(st.booleans(), label="ascii")
    text = "\n".join(dump(doc, escape, ascii_only) for doc in docs)
    return text.encode("utf-8", "surrogatepass")


def _surrogates(exc: UnicodeError) -> tuple[bytes, int]:
    """Encode escaped undecodable bytes back as themselves and lone surrogates as UTF-8 would."""
    assert isinstance(exc, UnicodeEncodeError)
    out = b"".join(bytes([ord(c) - 0xDC00]) if 0xDC80 <= ord(c) <= 0xDCFF
                   else c.encode("utf-8", "surrogatepass") for c in exc.object[exc.start:exc.end])
    return out, exc.end


codecs.register_error("trex-fuzz", _surrogates)


# ----------------------------------------------------------------------- line mutations
PREFIXES = ["", "[I] ", "[05/26/2022-18:09:34] [I] ", "[W] ", "[E] ", "[V] ", "[I] [TRT] ",
            "[07/02/2026-03:30:41] [TRT] [W] ", "[TensorRT] "]
JUNK_BODIES = [
    "=== Profile (5 iterations ) ===", "=== Profile ===", "=== Profile (99999999999999999999 "
    "iterations ) ===", "=== Performance summary ===", "=== Device Information ===", "=== ===",
    "=== Model Options ===", "Layer   Time (ms)   Avg. Time (ms)   Median Time (ms)   Time %",
    "   Time (ms)   Avg. Time (ms)   Median Time (ms)   Time %   Layer", "Layer",
    "Total   1.0  0.5  100.0", "   1.0   0.5   0.4   50.0   layer x", "   nan   inf   -inf   1e999   y",
    "x  1e999  1e999  1e999",
    "GPU Compute Time: min = 1 ms, max = nan ms, mean = inf ms, median = 1e999 ms, "
    "percentile(99%) = 2 ms", "Latency: min = ms, percentile(%) = 1", "Throughput: nan qps",
    "Total Host Walltime: 1e999 s", "Compute Capability: 1e999", "SMs: inf", "SMs: -nan",
    "Device Global Memory: 1e999 MiB", "Device Global Memory: ... MiB", "Memory Clock Rate: -inf GHz",
    "Memory Bus Width: 9999999999999999999999 bits (ECC enabled)", "Selected Device: ",
    "TensorRT version: 99999.1.2.3", "TensorRT version: 8.6", ": ", ":", "key:value",
    "Name: x, LayerType: y", "Name: , LayerType: ", "Name: x, LayerType: y, Inputs: [",
    "Name: a, LayerType: b, Inputs: [ { Name: t, Dimensions: [1e999,-1], Format/Datatype: Half }], "
    "Outputs: [ { Name: u, Dimensions: [99999999999999999999,3], Format/Datatype: Int8 }]",
    "Layers:", "Bindings:", "x [profile 1]", "Engine information (txt format):",
    "Device Global Memory: 1.7e308 TiB", "Shared Memory per SM: 1e308 GiB", "SMs: 1e308",
]
# Lines that hit parser limits: deep nesting, 5000-digit numbers.
PATHOLOGICAL_BODIES = [
    "Name: a, LayerType: b, Metadata: " + "[" * 3000 + "]" * 3000,
    "Name: a, LayerType: b, Inputs: [ {" + " Inputs: [ {" * 1500,
    "Name: a, LayerType: b, Inputs: [ { Name: t, Dimensions: [" + "9" * 5000 + "] }]",
    "Name: a, LayerType: b, Inputs: [ { Name: t, Dimensions: [" + "9" * 400 + ",2] }], Outputs: []",
    "Name: a, LayerType: b, Inputs: [], Outputs: [], Weights: {\"Type\": \"Half\", \"Count\": "
    + "9" * 400 + "}",
    "Name: a, LayerType: b, Inputs: [], Outputs: [], StreamId: [1], Groups: 1e999",
    "=== Profile (" + "9" * 5000 + " iterations ) ===", "   " + "9" * 5000 + "   1.0   0.5   x",
    "GPU Compute Time: min = " + "9" * 5000 + " ms", "TensorRT version: " + "9" * 5000,
]
JUNK_LINES = st.one_of(
    st.builds(str.__add__, st.sampled_from(PREFIXES), st.sampled_from(JUNK_BODIES)),
    st.builds(str.__add__, st.sampled_from(PREFIXES), st.sampled_from(PATHOLOGICAL_BODIES)),
    st.builds(str.__add__, st.sampled_from(PREFIXES), EVIL_TEXT),
    st.sampled_from(["&&&& RUNNING TensorRT.trtexec [TensorRT v99999999] # trtexec --x",
                     "&&&& PASSED TensorRT.trtexec [TensorRT v8204]", "&&&&", "\x00", "\ufeff"]),
)
LINE_OPS = ["drop", "duplicate", "swap", "cut", "join", "insert", "edit", "truncate", "move"]


def mutate_lines(data: st.DataObject, raw: bytes) -> bytes:
    lines = raw.decode("utf-8", "surrogateescape").splitlines(keepends=True) or [""]
    for _ in range(data.draw(st.integers(1, 6), label="line ops")):
        if not lines:
            lines = [""]
        op = data.draw(st.sampled_from(LINE_OPS), label="line op")
        i = data.draw(st.integers(0, len(lines) - 1), label="line")
        j = data.draw(st.integers(0, len(lines) - 1), label="other line")
        if op == "drop":
            del lines[i]
        elif op == "duplicate":
            lines[i:i] = lines[i:i + data.draw(st.integers(1, 20), label="count")]
        elif op == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "cut":
            lines[i] = lines[i][: data.draw(st.integers(0, len(lines[i])), label="column")]
        elif op == "join" and i + 1 < len(lines):
            lines[i:i + 2] = [lines[i].rstrip("\r\n") + lines[i + 1]]
        elif op == "insert":
            lines.insert(i, data.draw(JUNK_LINES, label="junk") + "\n")
        elif op == "edit":
            line = lines[i]
            at = data.draw(st.integers(0, len(line)), label="column")
            gone = data.draw(st.integers(0, 20), label="removed")
            lines[i] = line[:at] + data.draw(EVIL_TEXT, label="text") + line[at + gone:]
        elif op == "truncate":
            del lines[i:]
        elif op == "move":
            block = lines[i:i + data.draw(st.integers(1, 40), label="block")]
            del lines[i:i + len(block)]
            lines[j:j] = block
    return "".join(lines).encode("utf-8", "trex-fuzz")


def any_mutation(data: st.DataObject, samples: Samples, key: str) -> bytes:
    """A byte, structure or line mutation of a sample, whichever its kind allows."""
    families = ["bytes"] + (["json", "json"] if key in JSON_SAMPLES else ["lines", "lines"])
    family = data.draw(st.sampled_from(families), label="mutation")
    if family == "bytes":
        return mutate_bytes(data, samples.raw[key])
    if family == "json":
        return write_json(data, mutate_json(data, samples.documents(key)))
    return mutate_lines(data, samples.raw[key])


# TREX_FUZZ_SCALE=20 runs twenty times as many examples; TREX_FUZZ_SEED replaces the fixed seeds.
SCALE = float(os.environ.get("TREX_FUZZ_SCALE", "1"))
SEED = int(os.environ.get("TREX_FUZZ_SEED", "0"))
FUZZ = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                           HealthCheck.data_too_large, HealthCheck.large_base_example],
)


# ---------------------------------------------------------------------------------- tests
@pytest.mark.parametrize("key", ALL_SAMPLES)
def test_unmutated_samples_load(samples: Samples, fuzz_dir: Path, key: str) -> None:
    """The baseline the fuzz starts from: every sample is read by at least one reader."""
    path = fuzz_dir / f"baseline-{samples.filename(key)}"
    path.write_bytes(samples.raw[key])
    results = [_obeys_contract(reader, path, files=(path,)) for reader in _readers()[:4]]
    assert any(not isinstance(r, TrexError) for r in results), results


@seed(20240601 + SEED)
@settings(FUZZ, max_examples=int(300 * SCALE))
@given(data=st.data(), key=st.sampled_from(ALL_SAMPLES))
def test_byte_mutations(samples: Samples, fuzz_dir: Path, data: st.DataObject, key: str) -> None:
    path = fuzz_dir / f"bytes-{samples.filename(key)}"
    path.write_bytes(mutate_bytes(data, samples.raw[key]))
    _read_with_every_reader(path)


@seed(20240602 + SEED)
@settings(FUZZ, max_examples=int(400 * SCALE))
@given(data=st.data(), key=st.sampled_from(JSON_SAMPLES))
def test_json_structure_mutations(samples: Samples, fuzz_dir: Path, data: st.DataObject,
                                  key: str) -> None:
    path = fuzz_dir / f"json-{samples.filename(key)}"
    path.write_bytes(write_json(data, mutate_json(data, samples.documents(key))))
    _read_with_every_reader(path)


@seed(20240603 + SEED)
@settings(FUZZ, max_examples=int(300 * SCALE))
@given(data=st.data(), key=st.sampled_from(TEXT_SAMPLES))
def test_line_mutations(samples: Samples, fuzz_dir: Path, data: st.DataObject, key: str) -> None:
    path = fuzz_dir / f"lines-{samples.filename(key)}"
    path.write_bytes(mutate_lines(data, samples.raw[key]))
    _read_with_every_reader(path)


@seed(20240604 + SEED)
@settings(FUZZ, max_examples=int(300 * SCALE))
@given(data=st.data(), plan=st.sampled_from(sorted(PLANS)),
       profile_id=st.sampled_from([None] * 6 + [0, 1, 2]),
       profile_run=st.sampled_from([None] * 6 + [0, 1, -1]))
def test_pipeline_with_one_mutated_input(samples: Samples, fuzz_dir: Path, data: st.DataObject,
                                         plan: str, profile_id: int | None,
                                         profile_run: int | None) -> None:
    roles = dict(PLANS[plan])
    mutated_role = data.draw(st.sampled_from(sorted(roles)), label="mutated role")
    mutate = True
    if data.draw(st.integers(0, 9), label="wrong file") == 0:  # a file of another kind or engine
        roles[mutated_role] = data.draw(st.sampled_from(ALL_SAMPLES), label="instead")
        mutate = data.draw(st.booleans(), label="mutate it too")
    files: dict[str, Path] = {}
    for role, key in roles.items():
        if role == mutated_role or key not in samples.path:
            mutated = role == mutated_role and mutate
            content = any_mutation(data, samples, key) if mutated else samples.raw[key]
            files[role] = fuzz_dir / f"pipeline-{role}-{samples.filename(key)}"
            files[role].write_bytes(content)
        else:
            files[role] = samples.path[key]
    result = _obeys_contract(
        trex.EnginePlan, files["graph"], files.get("profile"), files.get("profile_meta"),
        files.get("build_meta"), profile_id=profile_id, timing_file=files.get("timing"),
        device_metadata_file=files.get("device_meta"),
        profile_run=profile_run, files=tuple(files.values()),
    )
    if isinstance(result, trex.EnginePlan):
        _obeys_contract(trex.summary_dict, result)
        _obeys_contract(result.get_bindings)


@seed(20240605 + SEED)
@settings(FUZZ, max_examples=int(120 * SCALE))
@given(data=st.data(), engine=st.sampled_from(["mobilenet", "alexnet10"]),
       target=st.sampled_from(["folder", "prefix", "mutated", "graph"]))
def test_from_path_with_one_mutated_file(samples: Samples, fuzz_dir: Path, data: st.DataObject,
                                         engine: str, target: str) -> None:
    folder = fuzz_dir / f"from-path-{engine}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    prefix = "mobilenet.qat.onnx.engine" if engine == "mobilenet" else "alexnet_fp16"
    roles = PLANS[engine]
    mutated_role = data.draw(st.sampled_from(sorted(roles)), label="mutated role")
    suffix = {"graph": "graph.json", "profile": "profile.json", "timing": "timing.json",
              "profile_meta": "profile.metadata.json", "build_meta": "build.metadata.json"}
    paths = {}
    for role, key in roles.items():
        paths[role] = folder / f"{prefix}.{suffix[role]}"
        content = any_mutation(data, samples, key) if role == mutated_role else samples.raw[key]
        paths[role].write_bytes(content)
    path = {"folder": folder, "prefix": folder / prefix, "mutated": paths[mutated_role],
            "graph": paths["graph"]}[target]
    result = _obeys_contract(trex.EnginePlan.from_path, path, files=(folder, *paths.values()))
    if isinstance(result, trex.EnginePlan):
        _obeys_contract(trex.summary_dict, result)


# ------------------------------------------------------------------- plain error-message tests
def _corrupt_graph(samples: Samples) -> tuple[str, int, int]:
    """The mobilenet graph with a stray token in its first tensor; returns (text, line, column)."""
    lines = samples.raw["mobilenet_graph"].decode().splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if '"Location"' in line)
    lines[index] = lines[index].replace('"Location"', '@ "Location"', 1)
    text = "".join(lines)
    with pytest.raises(json.JSONDecodeError) as info:
        json.loads(text)
    return text, info.value.lineno, info.value.colno


@pytest.mark.parametrize("reader", [read_layer_info, read_profile, read_timings, read_metadata,
                                    trex.EnginePlan])
def test_corrupt_json_error_names_file_line_and_column(samples: Samples, tmp_path: Path,
                                                       reader: Any) -> None:
    text, line, column = _corrupt_graph(samples)
    path = tmp_path / "corrupt.graph.json"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        reader(path)
    message = str(info.value)
    assert str(path) in message
    assert f"line {line} column {column}" in message
    assert "\n" not in message


@pytest.mark.parametrize("reader", _readers()[:4] + [trex.EnginePlan]
                         + ([read_trtexec_log] if read_trtexec_log else []))
@pytest.mark.parametrize("content", [b"", b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4,
                                     b"ftrt\x00\x00\x00\x00" + b"\xff" * 100],
                         ids=["empty", "binary", "engine"])
def test_empty_or_binary_file_is_input_error_naming_it(tmp_path: Path, reader: Any,
                                                       content: bytes) -> None:
    path = tmp_path / "model.graph.json"
    path.write_bytes(content)
    with pytest.raises(InputError) as info:
        reader(path)
    assert str(path) in str(info.value)
    assert "\n" not in str(info.value)
    assert detect_kind(path) in ("unknown", "engine")


@pytest.mark.parametrize("reader", [read_layer_info, read_profile, read_timings, read_metadata,
                                    trex.EnginePlan])
@pytest.mark.parametrize("content", ["[" * 100_000, '{"Layers": ' + "[" * 100_000,
                                     '{"Layers": [' + "9" * 5000 + "]}"],
                         ids=["deep-list", "deep-layers", "huge-int"])
def test_pathological_json_is_input_error(tmp_path: Path, reader: Any, content: str) -> None:
    path = tmp_path / "deep.json"
    path.write_text(content)
    with pytest.raises(InputError) as info:
        reader(path)
    assert str(path) in str(info.value)


def test_infinite_integer_attribute_loads(samples: Samples, tmp_path: Path) -> None:
    """An inf in an integer attribute (Groups) once escaped as pandas' IntCastingNaNError."""
    doc = samples.documents("alexnet10_graph")[0]
    doc["Layers"][1]["Groups"] = float("inf")
    path = tmp_path / "inf-groups.graph.json"
    path.write_text(json.dumps(doc))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrexWarning)
        plan = trex.EnginePlan(path)
    assert plan.df["Groups"].iloc[1] == 0
