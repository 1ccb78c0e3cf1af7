"""One loading argument group (``trex.cli.engine_args.EngineArgs``) for every command that reads
engines: the same options, spelled and checked the same way, and one loader behind them.

``-pj`` used to rebuild the plan from the graph and the profile alone (device, builder
configuration, performance summary and timings lost); ``lint`` had its own ``--profile-id`` and
no ``--run``. The engines are real exports from ../shared/engines; ``P`` is always the profile
the engine's own folder gives (``plan.sources["profile"]``), never a name written here.
"""

from __future__ import annotations

import argparse
import json

import pandas as pd
import pytest

from trex import EnginePlan
from trex.cli import SUBTOOLS, build_parser, main
from trex.cli.engine_args import TITLE, EngineArgs
from trex.iteration_stats import latency_percentiles
from trex.summary import model_summary

PJ = ["--profiling-json", "--profiling_json", "-pj"]
COMMON = {"--profile-id", "--run"}
# The loading options each command takes; every one of them comes from the group.
EXPECTED = {
    "summary": {"PATH", *PJ, *COMMON, "--profiles", "--names"},
    "lint": {"PATH", *PJ, *COMMON, "--profiles", "--names"},
    "compare": {"ENGINE", *PJ, *COMMON, "--profiles", "--names", "--loose"},
    "report": {"PATH", *PJ, *COMMON, "--profiles", "--names", "--loose"},
    "draw": {"PATH", *PJ, *COMMON},
    "timeline": {"PATH", *PJ, *COMMON},
    "routes": {*COMMON, "--loose"},  # the sweep names the engines: no PATH, no -pj
}
LOADING = {*PJ, *COMMON, "--profiles", "--names", "--loose"}
READERS = [v for v in EXPECTED if v != "routes"]  # the commands that take engine paths


def _parsers() -> dict[str, argparse.ArgumentParser]:
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("no subcommands")


def _names(action: argparse.Action) -> list[str]:
    return list(action.option_strings) or [str(action.metavar)]


def _argv(verb: str, path: str, *extra: str) -> list[str]:
    """A command line of ``verb`` on one engine (``compare`` needs two: the same one twice)."""
    return [verb, path, *([path] if verb == "compare" else []), *extra]


def _pj(verb: str, profile: str) -> list[str]:
    return ["-pj", profile] * (2 if verb == "compare" else 1)


@pytest.mark.parametrize("verb", list(_parsers()))
def test_each_command_takes_its_loading_options_from_the_group(verb, capsys):
    parser = _parsers()[verb]
    group = parser.get_default("engine_args")
    tool = next(t for t in SUBTOOLS if t.__name__.endswith(f".{verb}"))
    if verb not in EXPECTED:  # tactics reads build logs, process runs trtexec: no engine exports
        assert group is None and getattr(tool, "ENGINES", None) is None
        assert not {n for a in parser._actions for n in a.option_strings} & LOADING
        return
    assert isinstance(group, EngineArgs) and group is tool.ENGINES
    (section,) = [g for g in parser._action_groups if g.title == TITLE]
    in_group = {n for a in section._group_actions for n in _names(a)}
    assert in_group == EXPECTED[verb]
    # no loading option is declared outside the group (no second --profile-id, no stray -pj)
    outside = [a for a in parser._actions if a not in section._group_actions]
    assert not {n for a in outside for n in _names(a)} & (LOADING | {"PATH", "ENGINE"})
    with pytest.raises(SystemExit):
        main([verb, "--help"])
    text = capsys.readouterr().out
    assert f"\n{TITLE}:\n" in text
    if "-pj" in EXPECTED[verb]:
        assert "--profiling-json FILE, --profiling_json FILE, -pj FILE" in text
    assert "--profile-id N" in text and "--run N" in text


def test_summary_pj_gives_the_same_facts_as_the_folder(engines, capsys):
    folder = str(engines / "a100-resnet18-qat")
    profile = EnginePlan.from_path(folder).sources["profile"]
    assert main(["summary", folder, "-f", "json"]) == 0
    plain = json.loads(capsys.readouterr().out)[0]
    for flag in PJ:  # TREx's spelling is an alias of the new one
        assert main(["summary", folder, flag, profile, "-f", "json"]) == 0
        with_pj = json.loads(capsys.readouterr().out)[0]
        # the facts the old -pj lost, each present, then every fact of the output
        assert with_pj["device"] == plain["device"] and plain["device"]["SMs"] == 108
        assert with_pj["builder_config"] == plain["builder_config"]
        assert plain["builder_config"]["Precision"] == "FP32+FP16+INT8"
        assert with_pj["performance_summary"] == plain["performance_summary"]
        assert plain["performance_summary"]["Throughput"] == pytest.approx(1130.01)
        for key in ("gpu_compute_median_ms", "latency_median_ms", "throughput_qps",
                    "average_time_ms", "profile_iterations", "layers", "weights_bytes"):
            assert with_pj[key] == plain[key] and plain[key] is not None, key
        assert with_pj == plain
    # the table shows them too
    assert main(["summary", folder, "-pj", profile]) == 0
    text = capsys.readouterr().out
    assert "Measured       latency median 0.8826 ms" in text
    for title in ("Device:", "Builder configuration:", "Performance summary (trtexec):"):
        assert title in text


def test_pj_keeps_timings_derived_figures(engines, capsys):
    """An engine measured only by ``--exportTimes`` (no performance summary): the measured
    figures and the warm-up come from the timings, with ``-pj`` as without."""
    folder = str(engines / "trt7-googlenet-int8-concatenated")
    profile = EnginePlan.from_path(folder).sources["profile"]
    assert main(["summary", folder, "--run", "6", "-f", "json"]) == 0
    plain = json.loads(capsys.readouterr().out)[0]
    assert main(["summary", folder, "--run", "6", "-pj", profile, "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0] == plain
    assert plain["profile_iterations"] == 36 and plain["gpu_compute_median_ms"] is not None


def test_pj_replaces_the_profile_only(engines, tmp_path, capsys):
    """A profile of its own (every time doubled): its latencies are used, and the other files
    of the engine still give the device, the builder configuration and trtexec's summary."""
    folder = str(engines / "a100-resnet18-qat")
    plan = EnginePlan.from_path(folder)
    rows = json.loads(open(plan.sources["profile"], encoding="utf-8").read())
    for row in rows[1:]:
        for key in ("timeMs", "averageMs", "medianMs"):
            row[key] *= 2
    doubled = tmp_path / "doubled.profile.json"
    doubled.write_text(json.dumps(rows), encoding="utf-8")
    assert main(["summary", folder, "-f", "json"]) == 0
    plain = json.loads(capsys.readouterr().out)[0]
    assert main(["summary", folder, "-pj", str(doubled), "-f", "json"]) == 0
    mine = json.loads(capsys.readouterr().out)[0]
    assert mine["average_time_ms"] == pytest.approx(2 * plain["average_time_ms"], rel=1e-6)
    for key in ("device", "builder_config", "performance_summary", "throughput_qps"):
        assert mine[key] == plain[key] and plain[key]


@pytest.mark.parametrize("verb", READERS)
def test_every_command_loads_through_the_group(verb, engines):
    """The group's loader, fed by each command's own parser: ``-pj P`` gives the plan the folder
    gives (facts and timings), and ``--run`` chooses the profile run."""
    parsers = _parsers()
    folder = str(engines / "a100-resnet18-qat")
    profile = EnginePlan.from_path(folder).sources["profile"]
    plain = parsers[verb].parse_args(_argv(verb, folder)[1:])
    with_pj = parsers[verb].parse_args(_argv(verb, folder, *_pj(verb, profile))[1:])
    a, b = plain.engine_args.load(plain), with_pj.engine_args.load(with_pj)
    assert len(a) == len(b) == (2 if verb == "compare" else 1)
    for x, y in zip(a.plans, b.plans):
        assert model_summary(x) == model_summary(y)
        pd.testing.assert_frame_equal(x.df, y.df)
        pd.testing.assert_frame_equal(x.timings, y.timings)
        pd.testing.assert_frame_equal(latency_percentiles(x), latency_percentiles(y))
        assert x.warmup == y.warmup and x.measured == y.measured
    runs = str(engines / "trt7-googlenet-int8-concatenated")
    args = parsers[verb].parse_args(_argv(verb, runs, "--run", "6")[1:])
    assert [p.profile_count for p in args.engine_args.load(args).plans] == \
        [36] * (2 if verb == "compare" else 1)


@pytest.mark.parametrize("verb", READERS)
def test_profile_id_beyond_the_engines_profiles_is_one_line(verb, engines, tmp_path, capsys,
                                                            monkeypatch):
    monkeypatch.chdir(tmp_path)  # draw, timeline and report would write here
    log = str(engines / "trt10.16-multiprofile-oneline" / "log-main.py.log")
    assert main(_argv(verb, log, "--profile-id", "2")) == 2
    err = capsys.readouterr().err
    assert err == f"trex {verb}: error: {log}: --profile-id 2: this engine has profiles 0 and 1\n"
    single = str(engines / "a100-resnet18-fp16")
    assert main(_argv(verb, single, "--profile-id", "1")) == 2
    assert capsys.readouterr().err.endswith(f"{single}: --profile-id 1: this engine has profile "
                                            "0 only\n")
    assert list(tmp_path.iterdir()) == []


def test_lint_takes_run_and_profiles_now(engines, capsys):
    """``lint`` had no ``--run``; it takes the group's options like ``summary``."""
    runs = str(engines / "trt7-googlenet-int8-concatenated")
    assert main(["lint", runs, "--run", "9"]) == 2
    assert "7 runs" in capsys.readouterr().err
    log = str(engines / "trt10.16-multiprofile-oneline" / "log-main.py.log")
    assert main(["lint", log, "--profiles", "--names", "first,second", "-f", "json"]) == 0
    assert [r["label"] for r in json.loads(capsys.readouterr().out)] == ["first", "second"]
    assert main(["summary", log, "--profiles", "-f", "json"]) == 0
    assert [r["profile_id"] for r in json.loads(capsys.readouterr().out)] == [0, 1]


def test_pj_is_one_file_per_engine(engines, capsys):
    fp16, fp32 = str(engines / "a100-resnet18-fp16"), str(engines / "a100-resnet18-fp32")
    p16 = EnginePlan.from_path(fp16).sources["profile"]
    p32 = EnginePlan.from_path(fp32).sources["profile"]
    assert main(["compare", fp16, fp32, "-pj", p16]) == 2
    assert capsys.readouterr().err == ("trex compare: error: --profiling-json: 1 file for 2 "
                                       "engines; give one per engine, in order\n")
    assert main(["draw", fp16, "-pj", p16, "-pj", p16]) == 2
    assert "2 files for 1 engine;" in capsys.readouterr().err
    assert main(["compare", fp16, fp32, "-pj", p16, "-pj", p32, "-f", "json"]) == 0
    engines_json = json.loads(capsys.readouterr().out)["engines"]
    assert [e["latency_ms"] for e in engines_json] == pytest.approx([1.0168, 2.1238], abs=1e-4)


def test_bare_timings_file_refuses_pj(engines, tmp_path, capsys):
    folder = engines / "trex-mobilenet-qat"
    timings = EnginePlan.from_path(folder).sources["timings"]
    bare = tmp_path / "alone.timing.json"
    bare.symlink_to(timings)
    profile = EnginePlan.from_path(folder).sources["profile"]
    assert main(["timeline", str(bare), "-pj", profile, "-o", str(tmp_path / "t.json")]) == 2
    assert "is a bare --exportTimes file: --profiling-json needs" in capsys.readouterr().err
    assert main(["timeline", str(bare), "-o", str(tmp_path / "t.json")]) == 0
