"""Chrome/Perfetto trace export of real timings and profiles."""

from __future__ import annotations

import json

import pytest

import trex
from trex import timeline
from trex.cli import main

MOBILENET = "trex-mobilenet-qat/mobilenet.qat.onnx.engine"


@pytest.fixture(scope="module")
def plan(engines):
    return trex.EnginePlan.from_path(engines / MOBILENET)


def _events(trace, ph, pid=None):
    return [e for e in trace["traceEvents"] if e["ph"] == ph and (pid is None or e["pid"] == pid)]


def test_trace_has_iterations_layers_and_a_latency_counter(plan):
    trace = timeline.chrome_trace(plan)
    assert trace["displayTimeUnit"] == "ms"
    assert trace["otherData"]["iterations"] == len(plan.timings) == 8945
    assert trace["otherData"]["layers"] == 72
    compute = [e for e in _events(trace, "X", timeline.ITERATIONS_PID) if e["tid"] == 3]
    assert len(compute) == 8945
    first = plan.timings.iloc[0]
    assert compute[0]["dur"] == pytest.approx(
        (first["endComputeMs"] - first["startComputeMs"]) * 1000)
    assert compute[0]["args"]["latency_ms"] == first["latencyMs"]
    # --noDataTransfers: zero-length copies draw nothing
    assert not [e for e in _events(trace, "X", timeline.ITERATIONS_PID) if e["tid"] in (2, 4)]
    assert len(_events(trace, "C")) == 8945
    # timestamps start at zero and are in microseconds
    assert min(e["ts"] for e in _events(trace, "X", timeline.ITERATIONS_PID)) == 0


def test_layers_are_laid_out_back_to_back_in_execution_order(plan):
    schedule = timeline.layer_schedule(plan)
    assert len(schedule) == 72
    assert schedule["start_ms"].iloc[0] == 0
    assert (schedule["start_ms"].diff().dropna() >= 0).all()
    assert schedule["end_ms"].iloc[-1] == pytest.approx(plan.total_runtime)  # one stream
    trace = timeline.chrome_trace(plan, iterations=False)
    layers = _events(trace, "X", timeline.LAYERS_PID)
    assert [e["name"] for e in layers] == schedule["layer"].tolist()
    assert layers[1]["dur"] == pytest.approx(plan.df["latency.avg_time"].iloc[1] * 1000)
    assert layers[1]["args"]["precision"] == "INT8"


def test_median_latency_and_iteration_cap(plan):
    trace = timeline.chrome_trace(plan, max_iterations=100, latency="median_time")
    # the first 100 records all start inside trtexec's 200 ms warm-up: named and marked so
    assert trace["otherData"] == {"engine": "mobilenet.qat.onnx.engine", "generator": "trex",
                                  "iterations": 100, "layers": 72, "warmup_iterations": 100,
                                  "layer_latency": "latency.median_time"}
    assert len(trace["traceEvents"]) == 386
    compute = [e for e in _events(trace, "X", timeline.ITERATIONS_PID) if e["tid"] == 3]
    assert all(e["cat"] == "warmup" and e["name"].startswith("warm-up iteration") for e in compute)


def test_warmup_iterations_named_apart(plan):
    """The records starting before trtexec's warm-up ends are the 455 labelled warm-up ones."""
    trace = timeline.chrome_trace(plan, layers=False)
    compute = [e for e in _events(trace, "X", timeline.ITERATIONS_PID) if e["tid"] == 3]
    start = plan.timings["startComputeMs"].to_numpy()
    warm = [e["args"]["iteration"] for e in compute if e["cat"] == "warmup"]
    assert warm == [i for i in range(len(start)) if start[i] < 200] and len(warm) == 455
    assert trace["otherData"]["warmup_iterations"] == 455


def test_bare_7x_timing_file_with_several_runs(engines, tmp_path):
    path = engines / "trt7-googlenet-int8-concatenated/times_googlenet_None_int8_10.json"
    source = timeline.load_timeline_source(path, run=2)
    trace = timeline.chrome_trace(source)
    assert trace["otherData"]["iterations"] == 426
    assert trace["otherData"]["layers"] == 0
    names = {e["args"]["name"] for e in _events(trace, "M") if e["name"] == "thread_name"}
    assert names == {"Host: enqueue", "H2D copies", "GPU compute", "D2H copies"}
    with pytest.raises(trex.InputError, match="run 9 is out of range"):
        timeline.load_timeline_source(path, run=9)


def test_nothing_to_draw(engines):
    plan = trex.EnginePlan(engines / "trt10.16-mnist-fp32/model-trained-exportLayerInfo.log")
    with pytest.raises(trex.InputError, match="nothing to draw"):
        timeline.chrome_trace(plan)


def test_written_trace_is_strict_json(plan, tmp_path):
    path = timeline.write_chrome_trace(plan, tmp_path / "t.json", max_iterations=10)
    data = json.loads(path.read_text(), parse_constant=lambda c: pytest.fail(f"{c} in JSON"))
    assert {e["ph"] for e in data["traceEvents"]} == {"M", "X", "C"}


def test_every_profiled_real_engine_gives_strict_json(engines, tmp_path):
    """Layers without a precision or a tactic (shape_call) leave them out rather than write NaN."""
    written = 0
    for folder in sorted(p for p in engines.iterdir() if p.is_dir()):
        try:
            path = timeline.write_chrome_trace(folder, tmp_path / f"{folder.name}.json")
        except trex.InputError as exc:
            assert "nothing to draw" in str(exc)
            continue
        data = json.loads(path.read_text(), parse_constant=lambda c, f=folder: pytest.fail(f"{c} in {f}"))
        layers = [e for e in data["traceEvents"] if e["ph"] == "X" and e["cat"] != "iteration"]
        assert all(isinstance(e["args"].get("precision", ""), str) for e in layers)
        written += 1
    assert written >= 10
    shape_call = [e for e in json.loads((tmp_path / "trt10.4-alexnet-fp16.json").read_text())["traceEvents"]
                  if e.get("cat") == "shape_call"]
    assert len(shape_call) == 1 and "precision" not in shape_call[0]["args"]


def test_cli(engines, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["timeline", str(engines / "trt8.6-resnet50-int8/resnet50-int8.engine.graph.json")]
                ) == 0
    out = capsys.readouterr().out
    assert "27,234 events: 10,220 iterations, 57 layers" in out
    assert (tmp_path / "trt8.6-resnet50-int8.resnet50-int8.engine.trace.json").is_file()
    assert main(["timeline", str(engines / MOBILENET), "-o", "x.json", "--no-iterations"]) == 0
    data = json.loads((tmp_path / "x.json").read_text())
    assert data["otherData"]["iterations"] == 0 and data["otherData"]["layers"] == 72


def test_cli_unwritable_output(engines, tmp_path, capsys):
    code = main(["timeline", str(engines / MOBILENET), "-o", str(tmp_path / "no" / "t.json")])
    assert code == 2
    assert "cannot write the trace" in capsys.readouterr().err


def test_auxiliary_streams_run_in_parallel_after_their_inputs(tmp_path):
    def tensor(name):
        return {"Name": name, "Dimensions": [1, 8], "Format/Datatype": "Row major linear FP32"}

    def layer(name, stream, inputs, outputs):
        return {"Name": name, "LayerType": "CaskConvolution", "ParameterType": "Convolution",
                "StreamId": stream, "Inputs": [tensor(t) for t in inputs],
                "Outputs": [tensor(t) for t in outputs]}

    layers = [layer("a", 0, ["x"], ["ta"]), layer("b", 1, ["ta"], ["tb"]),
              layer("c", 0, ["ta"], ["tc"]), layer("d", 0, ["tb", "tc"], ["y"])]
    (tmp_path / "e.graph.json").write_text(json.dumps({"Layers": layers, "Bindings": ["x", "y"]}))
    times = {"a": 1.0, "b": 3.0, "c": 1.0, "d": 0.5}
    profile = [{"count": 10}] + [{"name": n, "timeMs": 10 * t, "averageMs": t, "medianMs": t,
                                  "percentage": 0} for n, t in times.items()]
    (tmp_path / "e.profile.json").write_text(json.dumps(profile))
    plan = trex.EnginePlan.from_path(tmp_path / "e")
    schedule = timeline.layer_schedule(plan).set_index("layer")
    assert schedule.loc["b", ["stream", "start_ms", "end_ms"]].tolist() == [1, 1.0, 4.0]
    assert schedule.loc["c", ["stream", "start_ms", "end_ms"]].tolist() == [0, 1.0, 2.0]
    assert schedule.loc["d", "start_ms"] == 4.0  # waits for the auxiliary stream's output
    trace = timeline.chrome_trace(plan)
    threads = {e["args"]["name"] for e in _events(trace, "M", timeline.LAYERS_PID)
               if e["name"] == "thread_name"}
    assert threads == {"stream 0 (main)", "stream 1 (auxiliary)"}
