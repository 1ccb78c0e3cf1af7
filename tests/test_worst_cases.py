"""Bounded time and memory on hostile inputs (issue: "Bounded time on every input").

Every CLI verb (but ``trex process``, which needs trtexec) runs on generated worst cases in a
subprocess whose resources are limited in the child (address space, CPU seconds) and whose wall
time and peak memory the harness checks: 1 MB layer/tensor/metadata names, 1 MB metadata values,
a 10,000-way fan-out (one tensor read by 10,000 layers, and 10,000 parallel heads), 100 MB
single-line trtexec logs, a hostile build-route tuning cache. Each run ends with
exit 0 or a clean exit 2 (one ``error:`` line, never a traceback), and no output line echoes a
megabyte of input. The inputs are built from real exports by bench/worst_cases.py.

The budgets are generous on purpose (about 10x what a loaded 2-core machine needs): they catch
the quadratic cases (a 64 KB name took 80 s in the ONNX-op cleanup, a mask feeding 200 blocks
kept Graphviz busy for more than 10 minutes), not small slowdowns (``bench/`` measures those).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

TIME_BUDGET = 120.0  # seconds of wall time per run (and of CPU time, set in the child)
MEMORY_BUDGET = 1536 << 20  # peak resident memory per run, checked after it exits
ADDRESS_LIMIT = 8 << 30  # the child's address space: a hard stop for a runaway allocation
MAX_LINE = 4000  # no output line may be longer (a capped warning has about 2,050 characters)
REGEX_BUDGET = 2.0  # CPU seconds per 1 MB adversarial string (linear code needs ~0.3 s)
MB = 1 << 20


def _limits() -> None:  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_LIMIT, ADDRESS_LIMIT))
    cpu = int(TIME_BUDGET)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    peak_bytes: int
    cpu_seconds: float = 0.0


PEAK_MEMORY = Path(__file__).with_name("peak_memory.py")


def run_bounded(args: list[str], cwd: Path) -> Run:
    """Run ``python ARGS`` in a child with resource limits; wait at most TIME_BUDGET seconds.
    The child reports its own peak memory (tests/peak_memory.py): wait4's figure would count
    this process, which it is forked from."""
    peak_path = cwd / "peak.txt"
    peak_path.unlink(missing_ok=True)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "TREX_PEAK_FILE": str(peak_path)}
    out_path, err_path = cwd / "stdout.txt", cwd / "stderr.txt"
    start = time.monotonic()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen([sys.executable, str(PEAK_MEMORY), *args], stdout=out,
                                stderr=err, cwd=cwd, env=env, preexec_fn=_limits)
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > TIME_BUDGET:
                proc.kill()
                os.wait4(proc.pid, 0)
                proc.returncode = -9
                pytest.fail(f"{' '.join(args)[:300]} ran for more than {TIME_BUDGET:.0f} s")
            time.sleep(0.05)
    proc.returncode = os.waitstatus_to_exitcode(status)
    peak = int(peak_path.read_text()) if peak_path.is_file() else usage.ru_maxrss * 1024
    return Run(proc.returncode, out_path.read_text(errors="replace"),
               err_path.read_text(errors="replace"), time.monotonic() - start, peak,
               usage.ru_utime + usage.ru_stime)


def trex(*args: str, cwd: Path) -> Run:
    return run_bounded(["-m", "trex", *args], cwd)


def check_clean(run: Run, args: tuple[str, ...]) -> None:
    what = " ".join(a[:80] for a in args)
    assert "Traceback" not in run.stderr, f"{what}: {run.stderr[-2000:]}"
    assert run.returncode in (0, 2), f"{what}: exit {run.returncode}: {run.stderr[-2000:]}"
    if run.returncode == 2:
        errors = [line for line in run.stderr.splitlines() if ": error: " in line]
        assert len(errors) == 1, run.stderr[-2000:]
    assert run.peak_bytes <= MEMORY_BUDGET, f"{what}: peak {run.peak_bytes >> 20} MB"
    for stream in (run.stdout, run.stderr):
        longest = max((len(line) for line in stream.splitlines()), default=0)
        assert longest <= MAX_LINE, f"{what}: an output line of {longest} characters"


# ----------------------------------------------------------------------------- the inputs
@pytest.fixture(scope="module")
def cases(engines, tmp_path_factory):
    """Engine prefixes and logs, generated once; the 100 MB logs are deleted afterwards."""
    from helpers import bench_module

    worst = bench_module("worst_cases")
    root = tmp_path_factory.mktemp("worst")
    perf_log = worst.log_with_long_value(root / "perf.log", worst.real_log(engines))
    found = {
        "names": worst.long_names_engine(root / "names", engines),
        "meta": worst.long_metadata_engine(root / "meta", engines),
        "hub10k": worst.write_graph(root / "hub", "hub10k",
                                    worst.hub_chain_graph(10_000, engines)),
        "fan10k": worst.write_graph(root / "fan", "fan10k", worst.fan_graph(10_000, engines)),
        "one_line_log": worst.single_line_log(root / "one_line.log"),
        "build_log": worst.log_with_long_line(root / "build.log", worst.real_log(engines, "build")),
        "perf_log": worst.big_log_engine(root / "perflog", engines, perf_log),
        "real": engines / worst.REAL,
        "tuning_cache": worst.hostile_tuning_cache(root / "cache.jsonl"),
    }
    found["one_line_engine"] = worst.big_log_engine(root / "onelog", engines,
                                                    found["one_line_log"])
    yield {k: str(v) for k, v in found.items()}
    for big in (perf_log, found["one_line_log"], found["build_log"]):
        big.unlink(missing_ok=True)


RUNS = [
    # 1 MB layer, tensor and ONNX metadata names (ONNX-op cleanup, `` + `` splits, labels)
    ("names", ("summary", "{names}")),
    ("names", ("draw", "{names}", "-o", "d.svg")),
    ("names", ("draw", "{names}", "-of", "dot", "-o", "d.dot")),
    ("names", ("lint", "{names}")),
    ("names", ("report", "{names}", "-o", "r.html")),
    ("names", ("timeline", "{names}", "-o", "t.json")),
    ("names", ("compare", "{names}", "{real}")),
    # 1 MB metadata values (device name, options, a performance figure, build options)
    ("meta", ("summary", "{meta}")),
    ("meta", ("report", "{meta}", "-o", "r.html")),
    # one tensor read by 10,000 layers; 10,000 parallel heads into one concatenation
    ("hub10k", ("draw", "{hub10k}", "-o", "d.svg")),
    ("hub10k", ("report", "{hub10k}", "-o", "r.html")),
    ("fan10k", ("draw", "{fan10k}", "-o", "d.svg")),
    ("fan10k", ("lint", "{fan10k}")),
    # 100 MB single-line logs: as the profile log of an engine, and as build logs
    ("one_line_engine", ("summary", "{one_line_engine}")),
    ("perf_log", ("summary", "{perf_log}")),
    ("perf_log", ("report", "{perf_log}", "-o", "r.html")),
    ("one_line_log", ("tactics", "{one_line_log}")),
    ("build_log", ("tactics", "{build_log}")),
    # a build-route tuning cache with 100,000 nested brackets, record openings and a 1 MB value
    ("tuning_cache", ("routes", "{tuning_cache}")),
]


@pytest.mark.parametrize("case, args", RUNS, ids=[f"{c}-{a[0]}-{i}" for i, (c, a) in enumerate(RUNS)])
def test_verb_on_worst_case(cases, tmp_path, case, args):
    argv = tuple(a.format(**cases) for a in args)
    run = trex(*argv, cwd=tmp_path)
    check_clean(run, argv)
    verb = argv[0]
    if verb in ("draw", "report", "timeline") and run.returncode == 0:
        written = tmp_path / argv[argv.index("-o") + 1]
        assert written.stat().st_size > 0
    if case == "perf_log" and verb == "summary":
        # the unreadable 100 MB value is named in one capped warning line
        warning = next(line for line in run.stderr.splitlines() if "Throughput" in line)
        assert "more characters)" in warning and len(warning) < 2200
    if case == "hub10k" and verb == "draw":
        assert "trex's own layout" in run.stdout and 'class="bus"' in \
            (tmp_path / "d.svg").read_text()
    if case == "one_line_log":
        assert run.returncode == 2 and "no TensorRT build records" in run.stderr
    if case == "names" and verb in ("summary", "lint", "report"):
        assert run.returncode == 0


BAD_NUMBERS = [
    ("draw", "--timeout", "nan"), ("draw", "--timeout", "inf"), ("draw", "--timeout", "-1"),
    ("draw", "--beam", "conv1,-1"), ("compare", "--fail-if-slower", "nan"),
    ("compare", "--fail-if-slower", "inf"), ("compare", "--top", "-1"), ("summary", "--top", "-3"),
    ("summary", "--run", "x"), ("lint", "--profile-id", "-1"), ("timeline", "--max-iterations", "x"),
    ("tactics", "--top", "-2"), ("report", "--profile-id", "1.5"),
]


@pytest.mark.parametrize("verb, option, value", BAD_NUMBERS)
def test_numeric_options_are_checked(engines, capsys, verb, option, value):
    """nan, inf and negative counts are a usage error (exit 2) naming the option, not a silent
    gate that never fails or a traceback."""
    from trex.cli import main

    path = str(engines / "trex-mobilenet-qat")
    paths = [path, path] if verb == "compare" else [path]
    with pytest.raises(SystemExit) as exit_:
        main([verb, *paths, option, value])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}" in err and value in err and "Traceback" not in err


# ----------------------------------------------------------------------------- attribute keys
NESTED_MEMORY = 300 << 20  # peak resident memory of one verb on 2,000 layers x 200 keys
NESTED_CPU = 5.0  # CPU seconds of one verb (wall time on a shared machine varies more)


@pytest.fixture(scope="module")
def keyed(engines, tmp_path_factory) -> dict[str, str]:
    """2,000 layers with 200 attribute keys each that no other layer has (about 8 MB): inside one
    dict attribute, at the top level, and the dict form packed as a .tea archive."""
    from helpers import bench_module
    from trex.formats.archive import write_archive

    worst = bench_module("worst_cases")
    root = tmp_path_factory.mktemp("keys")
    nested = worst.nested_attributes_engine(root / "nested", engines)
    top = worst.nested_attributes_engine(root / "top", engines, nested=False)
    tea = write_archive(nested.parent, root / "nested.tea")
    return {"nested": str(nested), "top": str(top), "tea": str(tea)}


KEYED_RUNS = [(case, verb) for case in ("nested", "top")
              for verb in ("summary", "lint", "compare", "report", "draw", "timeline")]
KEYED_RUNS += [("nested", "summary-json"), ("tea", "summary")]


@pytest.mark.slow
@pytest.mark.parametrize("case, verb", KEYED_RUNS)
def test_memory_follows_the_input_size_with_many_attribute_keys(keyed, tmp_path, case, verb):
    """Each key used to become a DataFrame column of 2,000 cells: 400,000 columns, 18 GB and
    about 110 s for ``trex summary``. Now rare keys share one cell per layer."""
    path = keyed[case]
    args = {"summary": ["summary", path], "summary-json": ["summary", path, "-f", "json"],
            "lint": ["lint", path], "compare": ["compare", path, path, "--top", "3"],
            "report": ["report", path, "-o", "r.html"], "draw": ["draw", path, "-o", "d.svg"],
            "timeline": ["timeline", path, "-o", "t.json"]}[verb]
    run = trex(*args, cwd=tmp_path)
    check_clean(run, tuple(args))
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.peak_bytes < NESTED_MEMORY, f"peak {run.peak_bytes >> 20} MB"
    assert run.cpu_seconds < NESTED_CPU, f"{run.cpu_seconds:.1f} CPU seconds"
    if verb == "summary-json":
        assert json.loads(run.stdout)[0]["layers"] == 2016


def test_nested_attributes_stay_one_cell(engines, tmp_path):
    """In ``plan.df``: a {Type, Count} dict still gives Weights.Type/Weights.Count (TREx), a
    bigger dict is one cell of JSON text, and rare keys beyond 256 share other_attributes."""
    import trex
    from helpers import bench_module

    worst = bench_module("worst_cases")
    plan = trex.EnginePlan.from_path(worst.nested_attributes_engine(tmp_path / "n", engines, 300,
                                                                    20))
    df = plan.df
    assert {"Weights.Type", "Weights.Count", "Extra"} <= set(df.columns)
    assert json.loads(df["Extra"].iloc[7]) == {f"k7_{j}": j for j in range(20)}
    plan = trex.EnginePlan.from_path(worst.nested_attributes_engine(tmp_path / "t", engines, 300,
                                                                    20, nested=False))
    df = plan.df
    assert len(df.columns) < 80 and "k7_3" not in df.columns
    assert json.loads(df["other_attributes"].iloc[7]) == {f"k7_{j}": j for j in range(20)}
    assert df.groupby("type").sum()["latency.avg_time"].sum() > 0  # TREx's idiom still works
    assert any("other_attributes" in w for w in plan.warnings)


# ----------------------------------------------------------------------------- regular expressions
def regex_cases() -> list[tuple[str, object]]:
    """(label, thunk): each data-facing regular expression, through the function that applies it,
    on a 1 MB string shaped to make a backtracking pattern retry from every position."""
    import tempfile

    import trex.compare.names as names
    import trex.compute.gpus as gpus
    import trex.formats.build_log as build_log
    import trex.formats.combinations as combinations
    import trex.formats.layer_dump as layer_dump
    import trex.formats.layer_info as layer_info
    import trex.formats.readers as registry
    import trex.formats.tensor_format as tensor_format
    import trex.formats.trtexec_log as trtexec_log
    import trex.graph.escape as escape
    import trex.graph.svg as svg
    import trex.kernels as kernels
    import trex.model.profiles as profiles
    import trex.onnx_map as onnx_map
    from trex.summary import _TACTIC_HASH_RE

    def detect(text: str) -> str:
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write(text)
        try:
            return registry.detect_kind(f.name)
        finally:
            os.unlink(f.name)

    n = MB
    line = "Name: a, LayerType: b, "
    return [
        ("onnx op of Conv_1_1...y", lambda: onnx_map.onnx_op_type("Conv" + "_1" * (n // 2) + "y")),
        ("onnx op of .1.1...", lambda: onnx_map.onnx_op_type("add" + ".1" * (n // 2) + "_")),
        ("onnx nodes of spaces", lambda: onnx_map.nodes_from_name("a" + " " * n + "b")),
        ("onnx nodes of PWN(", lambda: onnx_map.nodes_from_name("PWN(" * (n // 4))),
        ("onnx nodes of ', '", lambda: onnx_map.nodes_from_name(", " * (n // 2) + "x")),
        ("onnx nodes of _constant_1", lambda: onnx_map.nodes_from_name("_constant_1" * (n // 11))),
        ("onnx nodes of _myl1_", lambda: onnx_map.nodes_from_name("_myl1_1" * (n // 7) + "x")),
        ("metadata nodes", lambda: layer_info.onnx_nodes("[ONNX Layer: " * (n // 13))),
        ("metadata nodes \\x1e", lambda: layer_info.onnx_nodes("]\x1e[" * (n // 3))),
        ("build log ONNX marks", lambda: build_log.onnx_layers("[ONNX Layer: " * (n // 13))),
        ("build log combination", lambda: build_log.combination_signature("a1(" * (n // 3))),
        ("build log combination letters", lambda: build_log.combination_signature("A" * n)),
        ("build log lines", lambda: build_log.parse_build_log(
            "\n".join(["[I] Engine built in " + "1" * n + "x", "[V] [TRT] " + "a" * n + " (",
                       "[V] [TRT] " + "Layer(" * (n // 6), "[V] [TRT] x" + ", tactic 1" * (n // 10),
                       "[V] [TRT] After " + "a " * (n // 2), "[V] [TRT] a" + ": Fusing " * (n // 9)]))),
        ("layer dump brackets", lambda: layer_dump.parse_layer_line(line + "K: [, " * (n // 6))),
        ("layer dump spaces", lambda: layer_dump.parse_layer_line(
            line + "Inputs: [ { Name: x" + " " * n + "y")),
        ("layer dump keys", lambda: layer_dump.parse_layer_line(line + "K: " + ", a" * (n // 3))),
        ("trtexec log lines", lambda: trtexec_log.parse_trtexec_log(
            "\n".join(["=== a" * (n // 5), "[I] " + "=== Performance summary ===",
                       "[I] " + "a" * n + ":", "[I] Throughput: " + "1" * n + " qps x",
                       "[I] " + "percentile(" * (n // 11), "&&&& RUNNING " + " # " * (n // 3)]))),
        ("detect kind", lambda: detect("[" + "[a] " * (n // 4) + "Name: x")),
        ("detect log markers", lambda: detect("=== A" + " A" * (n // 2))),
        ("detect JSON", lambda: detect("[" + " " * n + "x")),
        ("tensor format", lambda: tensor_format.parse_format("a " * (n // 2) + "wide")),
        ("tensor format channel", lambda: tensor_format.parse_format("channel " * (n // 8))),
        ("tensor format enum", lambda: tensor_format.parse_format("(k" * (n // 2))),
        ("profile suffix", lambda: profiles.strip_profile(" [profile 1" * (n // 11))),
        ("compare name parts", lambda: names.name_parts(("a_1" * (n // 3) + "x + ") * 2)),
        ("compare quant affixes", lambda: names.unquantised("/quant_" * (n // 7) + "_quantx")),
        ("compare quant suffix", lambda: names.unquantised("_quanti" * (n // 7) + "z")),
        ("compare name kinds", lambda: names.names_conflict(
            ["s", "a1" * (n // 4) + "/" + "1." * (n // 4)], ["s", "b" + "_1" * (n // 2)])),
        ("combination layouts", lambda: combinations.combination_layouts(
            "Half(" + "1:8," * (n // 8) + "1) -> " + "a1(" * (n // 6))),
        ("tactic hash", lambda: _TACTIC_HASH_RE.sub("", "_0x" + "a" * n + "z")),
        ("tensor cores", lambda: kernels.uses_tensor_cores("tensor1x1x" * (n // 10))),
        ("kernel name sm", lambda: kernels.classify_tactic("sm_" + "8" * n + "x")),
        ("kernel name types", lambda: kernels.classify_tactic("_fp16" * (n // 5) + "x")),
        ("kernel name xmma", lambda: kernels.classify_tactic("sm80_xmma_" + "a_" * (n // 2))),
        ("kernel name myelin", lambda: kernels.classify_tactic("__myl_" + "a" * n + "_")),
        ("gpu lookup", lambda: gpus.lookup_gpu("NVIDIA " * (n // 7))),
        ("escape controls", lambda: escape.clean("\x01\n" * (n // 2))),
        ("escape html", lambda: escape.html_text("&|" * (n // 2))),
        ("svg colour", lambda: svg.svg_color("#" + "a" * n)),
    ]


def _run_regex_cases() -> None:  # pragma: no cover - runs in the child
    import warnings

    warnings.simplefilter("ignore")
    times = {}
    for label, thunk in regex_cases():
        start = time.process_time()
        thunk()
        times[label] = time.process_time() - start
    print(json.dumps(times))


def test_regexes_are_linear(tmp_path):
    run = run_bounded([__file__, "--regex-cases"], tmp_path)
    check_clean(run, ("regex cases",))
    assert run.returncode == 0
    times = json.loads(run.stdout)
    assert len(times) == len(regex_cases())
    slow = {k: round(v, 2) for k, v in times.items() if v > REGEX_BUDGET}
    assert not slow, f"CPU seconds on 1 MB inputs: {slow}"


# ----------------------------------------------------------------------------- own layout
def _run_layout_cases() -> None:  # pragma: no cover - runs in the child
    from trex.graph.layout import Bus, layered_layout

    out = {}
    n = 54_000  # layers, as the largest plan
    chain = [(i, i + 1) for i in range(n - 1)]
    skips = [(i, i + 4) for i in range(0, n - 4, 9)]
    longs = [(i, min(n - 1, i + 500 + i % 700)) for i in range(0, n, 37)]
    hub = [(n, i) for i in range(2, n, 9)]
    edges = chain + skips + longs + hub
    bus = Bus(n, list(range(len(edges) - len(hub), len(edges))))
    start = time.process_time()
    layout = layered_layout([120.0] * (n + 1), [40.0] * (n + 1), edges, [bus])
    out["seconds"] = time.process_time() - start
    out["layers"] = max(layout.layers) + 1
    out["bus_points"] = len(layout.buses[0])
    print(json.dumps(out))


def test_own_layout_at_54000_layers(tmp_path):
    """54,000 layers with skips, long edges and a hub read by every 9th layer: laid out in
    bounded time (linear passes and one sort per layer's row)."""
    run = run_bounded([__file__, "--layout-cases"], tmp_path)
    check_clean(run, ("layout cases",))
    result = json.loads(run.stdout)
    assert result["layers"] == 54_000
    assert result["bus_points"] > 5_000  # the hub is one bus down the whole graph


if __name__ == "__main__":  # the children of the tests above
    if sys.argv[1] == "--regex-cases":
        _run_regex_cases()
    elif sys.argv[1] == "--layout-cases":
        _run_layout_cases()
