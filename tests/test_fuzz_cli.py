"""Fuzz of every ``trex`` verb (an extension of test_fuzz_readers.py, whose value strategies it uses).

A real engine gets one value replaced: a field of one layer (any depth: a dimension, a format, the
weights' count, the type, the whole tensor list), of a profile record or of a timing record, by a
huge, negative or non-finite number, a value of the wrong type (list, dict, null), a deeply nested
list or hostile text. Then ``summary``, ``lint``, ``compare``, ``timeline``, ``draw`` and
``report`` run on it, and ``tactics`` on a real build log with hostile numbers: each exits 0, or 2
with one line naming the problem, never a traceback; every file and JSON it writes parses strictly
(no NaN/Infinity tokens, well-formed SVG). Seeded: CI runs the same examples
(TREX_FUZZ_SCALE/TREX_FUZZ_SEED as in test_fuzz_readers.py). Beside the random values, a
systematic sweep puts a value of each type (float, boolean, 2**63, -1, null, list, dict, text,
NaN) in every field of every file at once, so that no field type is left to chance.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from test_fuzz_readers import EVIL_TEXT, EVIL_VALUES, FUZZ, NUMBERS, SCALE, SEED, _places
from trex.cli import main
from trex.errors import TrexWarning

ENGINES = {"alexnet10": ("trt10.4-alexnet-fp16", "alexnet_fp16"),
           "resnet18": ("a100-resnet18-fp16", "resnet.onnx.engine")}
BUILD_LOG = "trt10.16-mnist-fp32/result-02.log"
TIMING_RECORDS = 40  # the timing files are megabytes: their first records are enough


def _deep(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


HOSTILE = st.one_of(
    st.sampled_from([10**30, 10**400, -1, -(10**20), 2**63, 1e308, -1e308, float("nan"),
                     float("inf"), float("-inf"), None, [], {}, [1, [2, [3]]], {"a": [1]},
                     _deep(300), "", "<b>x</b>\x1b[31m", "=cmd|' /C calc'!A0", "../../x"]),
    NUMBERS, EVIL_VALUES, EVIL_TEXT)


def strict_json(text: str) -> Any:
    def refuse(token: str) -> Any:
        raise AssertionError(f"non-standard JSON number {token}")
    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def originals(engines, tmp_path_factory) -> dict[str, Path]:
    """Each engine copied once, its timing file cut to its first records."""
    root = tmp_path_factory.mktemp("fuzz-cli-originals")
    out = {}
    for key, (folder, prefix) in ENGINES.items():
        target = root / key
        shutil.copytree(engines / folder, target)
        timing = target / f"{prefix}.timing.json"
        timing.chmod(0o644)
        timing.write_text(json.dumps(json.loads(timing.read_text())[:TIMING_RECORDS]))
        out[key] = target
    return out


def run(*args: Any) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        warnings.simplefilter("ignore", TrexWarning)
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def check(verb: str, code: int, err: str) -> bool:
    """0, or 2 with one error line; True when the verb succeeded."""
    assert code in (0, 2), (verb, code, err)
    if code == 2:
        errors = [line for line in err.splitlines() if line.startswith(f"trex {verb}: error: ")]
        assert len(errors) == 1, err
    assert "Traceback" not in err
    return code == 0


def mutate_engine(data: st.DataObject, folder: Path, prefix: str) -> str:
    """Replace one value of one file of the engine in ``folder``; return where (for the report)."""
    role = data.draw(st.sampled_from(["graph"] * 4 + ["profile", "timing"]), label="file")
    path = folder / f"{prefix}.{role}.json"
    doc = json.loads(path.read_text())
    if role == "graph":
        layers = doc["Layers"]
        root = layers[data.draw(st.integers(0, len(layers) - 1), label="layer")]
    else:
        records = [r for r in doc if isinstance(r, dict)]
        root = records[data.draw(st.integers(0, len(records) - 1), label="record")]
    places = _places([root])
    place = places[data.draw(st.integers(0, len(places) - 1), label="field")]
    value = data.draw(HOSTILE, label="value")
    place.container[place.key] = value
    path.write_text(json.dumps(doc))  # NaN/Infinity written as trtexec-like tokens
    return f"{role}: {place.name!r} = {str(value)[:60]!r}"


@seed(20240610 + SEED)
@settings(FUZZ, max_examples=int(14 * SCALE))
@given(data=st.data(), engine=st.sampled_from(sorted(ENGINES)))
def test_every_verb_survives_one_hostile_value(originals, tmp_path_factory, data, engine):
    work = tmp_path_factory.mktemp("fuzz-cli")
    folder = work / "engine"
    shutil.copytree(originals[engine], folder)
    where = mutate_engine(data, folder, ENGINES[engine][1])
    loaded = False
    for verb, args in (("summary", ["-f", "json"]), ("lint", ["-f", "json"]),
                       ("summary", ["--top", "3"])):
        code, out, err = run(verb, folder, *args)
        if check(verb, code, err) and "json" in args:
            assert isinstance(strict_json(out), list), where
            loaded = True
    if not loaded:
        return  # the value made the input unreadable: a clean error is all there is to check
    code, out, err = run("compare", originals[engine], folder, "-f", "json", "--top", "0")
    if check("compare", code, err):
        assert len(strict_json(out)["engines"]) == 2
    trace = work / "trace.json"
    if check("timeline", *run("timeline", folder, "-o", trace)[::2]):
        assert strict_json(trace.read_text())["traceEvents"] is not None, where
    svg = work / "graph.svg"
    if check("draw", *run("draw", folder, "-o", svg, "--layout", "layered")[::2]):
        ET.parse(svg)
    html = work / "report.html"
    if check("report", *run("report", folder, "-o", html)[::2]):
        page = html.read_text()
        for block in re.findall(r'<script type="application/json" id="trex-[\w-]+">(.*?)</script>',
                                page, re.S):
            strict_json(block)
    assert not [p.name for p in work.iterdir() if p.name.endswith(".tmp")]


NUMBER_TEXT = st.sampled_from(["nan", "-nan", "inf", "-inf", "1e308", "-1", "-0", "0",
                               "99999999999999999999999999", "1e-320", "9" * 400, "x", ""])


@seed(20240611 + SEED)
@settings(FUZZ, max_examples=int(20 * SCALE))
@given(data=st.data())
def test_tactics_survive_hostile_numbers_in_a_build_log(engines, tmp_path_factory, data):
    lines = (engines / BUILD_LOG).read_text().splitlines(keepends=True)
    numbered = [i for i, line in enumerate(lines) if re.search(r"\d", line)]
    for _ in range(data.draw(st.integers(1, 8), label="edits")):
        i = numbered[data.draw(st.integers(0, len(numbered) - 1), label="line")]
        numbers = list(re.finditer(r"-?\d+(\.\d+)?(e[-+]?\d+)?", lines[i]))
        m = numbers[data.draw(st.integers(0, len(numbers) - 1), label="number")]
        lines[i] = lines[i][:m.start()] + data.draw(NUMBER_TEXT, label="text") + lines[i][m.end():]
    path = tmp_path_factory.mktemp("fuzz-tactics") / "build.log"
    path.write_text("".join(lines))
    code, out, err = run("tactics", path, "-f", "json", "-s", "summary", "-s", "layers",
                         "-s", "tactics", "-s", "fusions", "-s", "memory", "-s", "passes")
    if check("tactics", code, err):
        assert strict_json(out)[0]["summary"]["file"] == str(path)
        for fmt in ("table", "csv"):
            assert check("tactics", *run("tactics", path, "-f", fmt)[::2])


# ------------------------------------------------------------------------ every field, every type
# One value of each JSON type (and the edges of numbers): issue 24 found a numeric TacticName
# crashing lint and report. Each replaces, in one plan, every field of the engine's files: each
# key of the layers in one layer that has it (spread over the layers), each tensor key, each
# profile and timing record key in one record, and every metadata value.
TYPED_VALUES = {"float": 1.5, "bool": True, "big": 2**63, "negative": -1, "null": None,
                "list": [1, "a"], "dict": {"a": 1}, "text": "text", "nan": float("nan")}


def _every_field(folder: Path, prefix: str, value: Any) -> None:
    graph_path = folder / f"{prefix}.graph.json"
    graph = json.loads(graph_path.read_text())
    layers = graph["Layers"]
    keys = sorted({k for layer in layers for k in layer if k not in ("Inputs", "Outputs")})
    for i, key in enumerate(keys):
        having = [layer for layer in layers if key in layer]
        having[i % len(having)][key] = value
    tensors = [t for layer in layers for t in (*layer["Inputs"], *layer["Outputs"])]
    for i, key in enumerate(sorted({k for t in tensors for k in t})):
        having = [t for t in tensors if key in t]
        having[(7 * i + 3) % len(having)][key] = value
    graph_path.write_text(json.dumps(graph))
    for role in ("profile", "timing"):
        path = folder / f"{prefix}.{role}.json"
        records = json.loads(path.read_text())
        rows = [r for r in records if isinstance(r, dict)]
        for i, key in enumerate(sorted({k for r in rows for k in r})):
            having = [r for r in rows if key in r]
            having[(5 * i + 1) % len(having)][key] = value
        path.write_text(json.dumps(records))
    for role in ("profile.metadata", "build.metadata"):
        path = folder / f"{prefix}.{role}.json"
        if path.is_file():
            meta = json.loads(path.read_text())
            for section in meta.values():
                if isinstance(section, dict):
                    for key in section:
                        section[key] = value
            path.write_text(json.dumps(meta))


@pytest.mark.slow
@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("kind", sorted(TYPED_VALUES))
def test_every_field_of_every_type_in_every_verb(originals, tmp_path, engine, kind):
    """No verb crashes on a value of the wrong type in any field: each reads it as text or as
    missing (with a warning) and succeeds, its JSON strict and its files well-formed."""
    folder = tmp_path / "engine"
    shutil.copytree(originals[engine], folder)
    _every_field(folder, ENGINES[engine][1], TYPED_VALUES[kind])
    for verb, args in (("summary", ["-f", "json"]), ("lint", ["-f", "json"]),
                       ("summary", ["--top", "30"]), ("lint", [])):
        code, out, err = run(verb, folder, *args)
        assert code == 0, (verb, err[-2000:])
        if "json" in args:
            strict_json(out)
    code, out, err = run("compare", originals[engine], folder, "-f", "json", "--top", "5")
    assert code == 0 and len(strict_json(out)["engines"]) == 2, err[-2000:]
    for verb, name, extra in (("timeline", "t.json", []), ("draw", "g.svg", ["--layout", "own"]),
                              ("report", "r.html", [])):
        code, out, err = run(verb, folder, "-o", tmp_path / name, *extra)
        assert code == 0, (verb, err[-2000:])
    strict_json((tmp_path / "t.json").read_text())
    ET.parse(tmp_path / "g.svg")
    page = (tmp_path / "r.html").read_text()
    for block in re.findall(r'<script type="application/json" id="trex-[\w-]+">(.*?)</script>',
                            page, re.S):
        strict_json(block)
