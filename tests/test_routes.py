"""``trex routes``: TensorRT 11.1 build-route sweeps read from trtexec's tuning cache.

No public tuning cache exists, so the fixtures here are written in each test from the format
FORMATS.md describes ("trtexec 11.1 and later": a header line with its keys in trtexec's order,
then one line per iteration). Knob names are illustrative. The iterations' layer exports are real
engines from ../shared/engines (a100-resnet18-qat as the default route, a100-resnet18-qat-residual
as the best), as `trex process <engine>.iter<N> OUT -p` would have written them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import trex
from test_process import fake  # noqa: F401  (the stand-in trtexec fixture)
from trex import routes
from trex.cli import main
from trex.formats import detect_kind, tuning_cache
from trex.formats.text import read_head
from trex.process import process_engine

DEFAULT = "-sliceFusion=on -tileCodegen=default"
ITERATIONS = [
    {"iter": 0, "build_route": DEFAULT, "crash": False, "error_message": "",
     "accuracy_loss": {"logits": 0.0, "boxes": 0.0}, "gpu_time": 1.0957},
    {"iter": 1, "build_route": "-sliceFusion=off -tileCodegen=default", "crash": False,
     "error_message": "", "accuracy_loss": {"logits": 0.0004, "boxes": 0.0002}, "gpu_time": 0.912},
    {"iter": 2, "build_route": "-sliceFusion=on -tileCodegen=aggressive", "crash": False,
     "error_message": "", "accuracy_loss": {"logits": 0.0031, "boxes": 0.0001}, "gpu_time": 0.65},
    {"iter": 3, "build_route": "-sliceFusion=off -tileCodegen=aggressive", "crash": False,
     "error_message": "", "accuracy_loss": {"logits": 0.0006, "boxes": 0.0009},
     "gpu_time": 0.7311},
    {"iter": 4, "build_route": "-sliceFusion=off -tileCodegen=aggressive -splitK=4", "crash": True,
     "error_message": "Error Code 2: Internal Error (Assertion tileSize > 0 failed.)",
     "accuracy_loss": None, "gpu_time": None},
]


def header(threshold: str | None = "0.001", default: str | None = DEFAULT,
           engine: str = "/models/out/resnet.engine") -> dict:
    argv = ["trtexec", "--onnx=/models/resnet.onnx", f"--saveEngine={engine}",
            "--tuneBuildRoutes=-sliceFusion=[on|off] -tileCodegen=[default|aggressive]",
            "--tuningCacheFile=/models/out/routes.jsonl", "--accuracyAlgorithm=l2",
            "--loadRefOutputs=logits:/data/logits.bin,boxes:/data/boxes.bin", "--saveAllEngines"]
    if threshold is not None:
        argv.append(f"--accuracyThreshold={threshold}")
    return {
        "tuner_version": 1, "accuracy_algorithm": "l2",
        "accuracy_parameter": {"atol": 1e-5, "rtol": 1e-5, "epsilon": 1e-12},
        "searching_algorithm": "full", "command_line": " ".join(argv),
        "default_build_route": default,
        "tuning_expr": "-sliceFusion=[on|off] -tileCodegen=[default|aggressive]",
        "files": {"onnx": "/models/resnet.onnx", "save_engine": engine,
                  "ref_outputs": {"logits": "/data/logits.bin", "boxes": "/data/boxes.bin"}},
        "argv": argv,
    }


def write(path: Path, lines: list, tail: str = "") -> Path:
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    path.write_text(text + tail, encoding="utf-8")
    return path


@pytest.fixture
def cache(tmp_path) -> Path:
    return write(tmp_path / "routes.jsonl", [header(), *ITERATIONS])


def test_best_route_skips_crashes_and_accuracy_failures(cache):
    analysis = routes.analyse(cache)
    assert [r.status for r in analysis.routes] == ["ok", "ok", "over threshold", "ok", "crashed"]
    assert analysis.default.iter == 0 and analysis.best.iter == 3  # iteration 2 is faster
    assert routes.best_route(cache).build_route == "-sliceFusion=off -tileCodegen=aggressive"
    assert analysis.best.speedup == pytest.approx(1.0957 / 0.7311)
    assert analysis.best.max_loss == 0.0009
    assert analysis.threshold == 0.001 and analysis.threshold_source == "--accuracyThreshold"
    assert analysis.outputs == ["logits", "boxes"]
    assert analysis.routes[4].knobs == {"sliceFusion": "off", "tileCodegen": "aggressive",
                                        "splitK": "4"}
    assert analysis.routes[0].knobs["splitK"] == routes.DEFAULT_VALUE
    assert analysis.notes == [] and analysis.cache.warnings == []


def test_route_and_knob_tables(cache):
    table = routes.route_table(cache)
    assert list(table.columns) == ["iter", "role", "status", "gpu_time_ms", "speedup", "max_loss",
                                   "loss logits", "loss boxes", "build_route", "error_message"]
    assert table["role"].tolist() == ["default", "", "", "best", ""]
    assert table["speedup"].iloc[1] == pytest.approx(1.0957 / 0.912)
    assert table["error_message"].iloc[4].startswith("Error Code 2")
    knobs = routes.knob_table(cache).set_index(["knob", "value"])
    off = knobs.loc[("sliceFusion", "off")]
    assert (off["routes"], off["timed"], off["crashed"]) == (3, 2, 1)
    assert off["median_gpu_time_ms"] == pytest.approx((0.912 + 0.7311) / 2)
    assert off["speedup"] == pytest.approx(1.0957 / ((0.912 + 0.7311) / 2)) and off["in_best"]
    on = knobs.loc[("sliceFusion", "on")]
    assert (on["routes"], on["over_threshold"], bool(on["in_best"])) == (2, 1, False)
    assert knobs.loc[("splitK", "4")]["crashed"] == 1
    assert knobs.loc[("splitK", routes.DEFAULT_VALUE)]["routes"] == 4


def test_cut_off_last_line_is_a_warning(tmp_path):
    partial = json.dumps({"iter": 5, "build_route": "-sliceFusion=on -tileCodegen=aggre"})[:40]
    path = write(tmp_path / "cut.jsonl", [header(), *ITERATIONS], tail=partial)
    analysis = routes.analyse(path)
    assert len(analysis.routes) == 5 and analysis.best.iter == 3
    assert analysis.cache.warnings == ["line 7 is cut off (an interrupted sweep?); ignored"]


def test_resumed_sweep_appends_a_header_and_repeats_iterations(tmp_path):
    cut = json.dumps(ITERATIONS[3])[:30]
    again = {**ITERATIONS[2], "gpu_time": 0.66}
    # the interrupted run's last line is cut; the resumed run's header is glued to it
    path = write(tmp_path / "resumed.jsonl", [
        header(), "", *ITERATIONS[:3], cut + json.dumps(header()), "   ", again, *ITERATIONS[3:]])
    analysis = routes.analyse(path)
    assert [r.iter for r in analysis.routes] == [0, 1, 2, 3, 4]
    assert analysis.route(2).gpu_time == 0.66 and analysis.route(2).iteration.line == 8
    assert len(analysis.cache.headers) == 2 and analysis.cache.records == 6
    assert analysis.best.iter == 3
    assert analysis.cache.warnings == [
        "line 6 starts with a cut-off record (an interrupted sweep, then resumed); the cut-off "
        "part is ignored",
        "line 6: another header (a resumed sweep)",
        "iterations run more than once (a resumed sweep): 2; the last record of each is kept"]
    # a cut line followed by a newline, then a header that changes the threshold
    path = write(tmp_path / "resumed2.jsonl", [header(), *ITERATIONS[:3], cut,
                                               header(threshold="0.01"), *ITERATIONS[2:]])
    analysis = routes.analyse(path)
    assert analysis.threshold == 0.001 and analysis.best.iter == 3
    assert analysis.cache.warnings == [
        "line 6: another header (a resumed sweep); it changes accuracy_threshold: the first "
        "header's values are used",
        "line 5 is not JSON; skipped",
        "iterations run more than once (a resumed sweep): 2; the last record of each is kept"]


def test_threshold_given_missing_and_default_not_run(tmp_path, cache):
    assert routes.analyse(cache, threshold=0.005).best.iter == 2  # now within the threshold
    loose = routes.analyse(write(tmp_path / "no-threshold.jsonl",
                                 [header(threshold=None), *ITERATIONS]))
    assert loose.threshold is None and loose.best.iter == 2
    assert loose.notes == ["accuracy not judged: no --accuracyThreshold in the sweep's command "
                           "line (give one with --accuracy-threshold)"]
    no_default = routes.analyse(write(tmp_path / "no-default.jsonl", [header(), *ITERATIONS[1:]]))
    assert no_default.default is None and no_default.best.iter == 3
    assert no_default.best.speedup is None
    assert no_default.notes == [f'no iteration ran the default route "{DEFAULT}": speedups are '
                                "not computed"]
    unmeasured = {**ITERATIONS[1], "accuracy_loss": None, "gpu_time": 0.5}
    bad = routes.analyse(write(tmp_path / "unmeasured.jsonl", [header(), unmeasured]))
    assert bad.routes[0].status == routes.NOT_MEASURED and bad.best is None


def test_odd_values_are_warnings_never_a_best_route(tmp_path, capsys):
    odd = [{**ITERATIONS[0], "accuracy_loss": {"logits": float("nan"), "boxes": 0.0}},
           {**ITERATIONS[1], "gpu_time": 1e308}, {**ITERATIONS[3], "accuracy_loss": {"logits": "x"}},
           {"iter": "x"}, [1, 2]]
    path = write(tmp_path / "odd.jsonl", [header(), *odd])
    analysis = routes.analyse(path)
    assert [r.status for r in analysis.routes] == [
        routes.OVER_THRESHOLD, routes.NO_TIME, routes.NOT_MEASURED]
    assert analysis.routes[0].max_loss == float("inf") and analysis.best is None
    assert analysis.cache.warnings == [
        "line 3: gpu_time is not a plausible time in ms; ignored",
        "line 4: the accuracy loss of an output is not a number; read as not measured",
        "line 5: iter is not a non-negative integer; skipped",
        "line 6 is neither a header nor an iteration; skipped"]
    assert main(["routes", str(path), "-f", "json"]) == 0

    def strict(name):
        raise ValueError(f"{name} is not JSON")

    data = json.loads(capsys.readouterr().out, parse_constant=strict)
    assert data["best"] is None and data["iterations"][0]["max_loss"] is None


def test_cli_table(cache, capsys):
    assert main(["routes", str(cache)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Tuning cache: {cache} (tuner 1, search full, 5 iterations, 1 crashed,"
                          " 1 over the accuracy threshold)\n")
    assert "Accuracy: l2 loss per output (logits, boxes) <= 0.001 (--accuracyThreshold)" in out
    assert f'Default route "{DEFAULT}": iteration 0, 1.0957 ms, ok' in out
    assert ("Best route: iteration 3, 0.7311 ms, 1.50x the default's speed, max loss 0.0009\n"
            "  -sliceFusion=off -tileCodegen=aggressive\n") in out
    assert "   3  best     ok              0.7311   1.4987" in out
    assert "Error Code 2: Internal Error (Assertion tileSize > 0 failed.)" in out


def test_cli_json_and_csv(cache, capsys):
    assert main(["routes", str(cache), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"best", "default", "iterations", "knobs", "notes", "warnings"} <= set(data)
    assert data["best"]["iter"] == 3
    assert data["best"]["build_route"] == "-sliceFusion=off -tileCodegen=aggressive"
    assert data["best"]["accuracy_loss"] == {"logits": 0.0006, "boxes": 0.0009}
    assert data["default"]["iter"] == 0 and data["default"]["role"] == "default"
    assert [it["status"] for it in data["iterations"]] == [
        "ok", "ok", "over threshold", "ok", "crashed"]
    assert data["iterations"][4]["gpu_time_ms"] is None
    assert data["accuracy_threshold"] == 0.001
    assert main(["routes", str(cache), str(cache), "-f", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2  # several caches: a list
    assert main(["routes", str(cache), "-f", "csv"]) == 0
    csv = capsys.readouterr().out
    assert csv.startswith("# routes\niter,role,status,gpu_time_ms,speedup,max_loss,loss logits,")
    assert "\n# knobs\nknob,value,routes,timed,crashed,over_threshold," in csv
    assert "\n3,best,ok,0.7311," in csv


@pytest.mark.parametrize("content, problem", [
    ("", "empty: no tuning cache header"),
    ('{"iter": 0, "build_route": "", "crash": false}\n', "line 1 is an iteration but no header"),
    ('[\n  { "count" : 10 }\n]\n', "not a tuning cache: line 1 is not JSON"),
    ('{"Layers": [], "Bindings": []}\n', "line 1 is not a header with tuner_version"),
    ("\x00\x01engine", "binary file"),
])
def test_bad_input_is_one_line_naming_the_file(tmp_path, capsys, content, problem):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    assert main(["routes", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"trex routes: error: {path}: ")
    assert problem in err


def test_reader_recognises_a_cache_by_content(cache, engines):
    assert tuning_cache.match(read_head(cache)) and tuning_cache.match(cache.read_text()[:1024])
    others = sorted(p for p in engines.glob("*/*") if p.is_file())
    assert len(others) > 50
    assert not [p for p in others if tuning_cache.match(read_head(p))]  # no real export matches
    assert detect_kind(cache) == "tuning_cache"  # the registry knows the reader
    read = tuning_cache.read(cache)
    assert read.header.default_build_route == DEFAULT and read.header.accuracy_threshold == 0.001
    assert read.iterations[4].crash and read.iterations[4].gpu_time is None


def _iteration_exports(engines: Path, folder: Path) -> Path:
    """The default (iteration 0) and best (3) routes' exports, named as trex process names them."""
    folder.mkdir()
    for n, source, stem in ((0, "a100-resnet18-qat", "resnet-qat"),
                            (3, "a100-resnet18-qat-residual", "resnet-qat-residual")):
        for suffix in (".graph.json", ".profile.json", ".profile.metadata.json",
                       ".build.metadata.json", ".metadata.json"):
            (folder / f"resnet.engine.iter{n}{suffix}").symlink_to(
                engines / source / f"{stem}.onnx.engine{suffix}")
    return folder


def test_default_and_best_routes_compared_from_real_exports(cache, engines, tmp_path, capsys):
    folder = _iteration_exports(engines, tmp_path / "exports")
    report = tmp_path / "routes.html"
    assert main(["routes", str(cache), "--engines", str(folder), "--report", str(report)]) == 0
    out = capsys.readouterr().out
    assert "What changed between default (iter 0) and best (iter 3):" in out
    assert f"default (iter 0): {folder / 'resnet.engine.iter0'}" in out
    assert f"Created file://{report}" in out
    html = report.read_text(encoding="utf-8")
    assert "best (iter 3)" in html and "default (iter 0)" in html
    # the same comparison in JSON: reformats 12 -> 3 between the two routes' engines
    assert main(["routes", str(cache), str(folder), "-f", "json"]) == 0
    comparison = json.loads(capsys.readouterr().out)["comparison"]
    assert [e["label"] for e in comparison["engines"]] == ["default (iter 0)", "best (iter 3)"]
    assert [e["iter"] for e in comparison["engines"]] == [0, 3]
    by_type = {row["type"]: row for row in comparison["by_type"]}
    assert by_type["Reformat"]["default (iter 0) layers"] == 12
    assert by_type["Reformat"]["best (iter 3) layers"] == 3
    assert comparison["engines"][0]["latency_ms"] == pytest.approx(1.0957, abs=1e-4)
    assert comparison["engines"][1]["latency_ms"] == pytest.approx(0.7311, abs=1e-4)
    savings = comparison["layers"][0]
    assert savings["delta ms"] < 0  # the largest saving comes first
    # the Python API gives the same plans
    plans, labels, _ = routes.route_plans(routes.analyse(cache), folder)
    assert [len(p.df) for p in plans] == [35, 25] and labels[1] == "best (iter 3)"


def test_comparison_errors_name_what_is_missing(cache, engines, tmp_path, capsys):
    folder = _iteration_exports(engines, tmp_path / "exports")
    assert main(["routes", str(cache), "-e", str(folder), "-i", "0,2"]) == 2
    assert "no exports of iteration 2 (found iterations: 0, 3)" in capsys.readouterr().err
    assert main(["routes", str(cache), "--report", str(tmp_path / "r.html")]) == 2
    assert "--report needs the iterations' exports" in capsys.readouterr().err
    assert main(["routes", str(cache), "-e", str(tmp_path)]) == 2
    assert "holds no iteration exports" in capsys.readouterr().err


def test_iterations_load_through_the_engine_group(cache, engines, tmp_path, capsys):
    """The iterations' engines take the loading group's --profile-id, --run and --loose."""
    folder = _iteration_exports(engines, tmp_path / "exports")
    assert main(["routes", str(cache), "-e", str(folder), "--profile-id", "1"]) == 2
    assert capsys.readouterr().err == (f"trex routes: error: {folder / 'resnet.engine.iter0'}: "
                                       "--profile-id 1: this engine has profile 0 only\n")
    assert main(["routes", str(cache), "-e", str(folder), "--run", "1"]) == 2
    assert "iter0.profile.json: has 1 runs; profile_run=1 is out of range" in capsys.readouterr().err
    assert main(["routes", str(cache), "-e", str(folder), "--loose", "--run", "0", "-f",
                 "json"]) == 0
    loose = json.loads(capsys.readouterr().out)["comparison"]
    assert [e["iter"] for e in loose["engines"]] == [0, 3]


def test_sweep_with_the_stand_in_trtexec_11_then_compared(fake, monkeypatch, tmp_path):  # noqa: F811
    """trtexec 11.1 sweeps routes (interrupted, then resumed), trex profiles two iterations."""
    monkeypatch.setenv("TREX_FAKE_TRTEXEC_SCENARIO", "11.1")
    monkeypatch.setenv("TREX_FAKE_TRTEXEC_CRASH_ROUTE", "-tileCodegen=aggressive -sliceFusion=off")
    cache = fake.out / "routes.jsonl"
    args = ["tuneBuildRoutes=-tileCodegen=[default|aggressive] -sliceFusion=[on|off]",
            f"tuningCacheFile={cache}", "saveAllEngines", "accuracyThreshold=0.01",
            "loadRefOutputs=ref.bin"]
    monkeypatch.setenv("TREX_FAKE_TRTEXEC_TUNE_STOP", "3")
    with pytest.raises(trex.TrexError, match="build failed"):
        process_engine(fake.model, fake.out, args, trtexec=fake.exe, build=True)
    assert routes.analyse(cache).cache.warnings == [
        "line 5 is cut off (an interrupted sweep?); ignored"]
    monkeypatch.delenv("TREX_FAKE_TRTEXEC_TUNE_STOP")
    result = process_engine(fake.model, fake.out, [*args, "continue"], trtexec=fake.exe,
                            build=True)
    assert f"build-route sweep in {cache}: see `trex routes {cache}`" in result.notes
    analysis = routes.analyse(cache)
    assert len(analysis.cache.headers) == 2 and [r.iter for r in analysis.routes] == [0, 1, 2, 3, 4]
    assert analysis.routes[4].status == routes.CRASHED
    raw = [json.loads(line) for line in cache.read_text().splitlines()[1:] if line.endswith("}")]
    timed = {r["iter"]: r["gpu_time"] for r in raw if "iter" in r and not r["crash"]
             and max(r["accuracy_loss"].values()) <= 0.01}
    assert analysis.best.iter == min(timed, key=timed.get) and analysis.default.iter == 0
    engine = fake.out / "resnet.onnx.engine"
    assert sorted(p.name for p in fake.out.glob("*.iter*")) == [
        f"resnet.onnx.engine.iter{n}" for n in range(4)]  # iteration 4 crashed: no engine
    exports = tmp_path / "exports"
    for n in (analysis.default.iter, analysis.best.iter):
        process_engine(f"{engine}.iter{n}", exports, trtexec=fake.exe, profile=True)
    assert (exports / f"resnet.onnx.engine.iter{analysis.best.iter}.graph.json").is_file()
    plans, labels, _ = routes.route_plans(analysis, exports)
    assert labels == ["default (iter 0)", f"best (iter {analysis.best.iter})"]
    assert [len(p.df) for p in plans] == [14, 14]
