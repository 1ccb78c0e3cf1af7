"""The file-role table (trex.formats.roles): one row per role, read by discovery, ``.tea``
archives, the plan loader, EnginePlan and ``trex process``.

The proof that it is the only list: a new export format, added in a test as one reader module
(tests/toy_format.py) and one table row, is found by discovery, archived and re-opened under its
role, and read by the loader into the plan, with nothing else changed. A second format for an
existing role (a CSV profile) is one reader and one more kind in that role's row.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
import shutil
import zipfile

import pytest

import toy_format as toy
from trex import EnginePlan, InputError
from trex.cli import main
from trex.formats import readers as registry
from trex.formats import roles
from trex.formats.archive import MANIFEST, archive_manifest, open_archive, write_archive
from trex.formats.discovery import EngineFiles, engine_prefix, find_engine_files
from trex.formats.roles import Role
from trex.model import loader
from trex.process import ProcessPaths

ENGINE = "trex-mobilenet-qat"
PREFIX = "mobilenet.qat.onnx.engine"
REPORT = '{"toyMemoryReport": 1, "peakBytes": 123456}'
MEMORY_ROLE = Role("memory", "a toy memory report", (toy.MEMORY_KIND,), suffixes=(".memory.json",),
                   manifest="memory", output=".memory.json")


@contextlib.contextmanager
def registered(readers, rows):
    """The registry and the role table with these readers (first) and these rows, for a while."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(registry, "READERS", (*readers, *registry.READERS))
        patch.setattr(roles, "ROLES", tuple(rows))
        roles.check()
        yield


@pytest.fixture
def memory_format():
    """The memory report: one reader, one new row."""
    with registered([toy.MEMORY_READER], [*roles.ROLES, MEMORY_ROLE]):
        yield MEMORY_ROLE


@pytest.fixture
def csv_profile_format():
    """The CSV profile: one reader, and its kind (and name) added to the profile row."""
    row = roles.role("profile")
    wider = dataclasses.replace(row, kinds=(*row.kinds, toy.CSV_PROFILE_KIND),
                                suffixes=(*row.suffixes, ".profile.csv"))
    with registered([toy.CSV_PROFILE_READER], [wider if r is row else r for r in roles.ROLES]):
        yield wider


@pytest.fixture
def engine_copy(engines, tmp_path):
    """A folder with a real engine's layer information, profile and metadata (no timings)."""
    folder = tmp_path / "engine"
    folder.mkdir()
    for suffix in (".graph.json", ".profile.json", ".profile.metadata.json",
                   ".build.metadata.json"):
        shutil.copy(engines / ENGINE / f"{PREFIX}{suffix}", folder)
    return folder


# --------------------------------------------------------------------------- a new role
def test_a_new_format_is_one_reader_and_one_row(memory_format, engine_copy, tmp_path):
    report = engine_copy / f"{PREFIX}.memory.json"
    report.write_text(REPORT)
    expected = toy.MemoryReport(123456, str(report))

    # discovery: a folder, a prefix or the new file named; the name groups it with its engine
    assert engine_prefix(report) == PREFIX
    for given in (engine_copy, engine_copy / PREFIX, report):
        files = find_engine_files(given)
        assert files.memory == files.get("memory") == report, given
        assert files.graph.name == f"{PREFIX}.graph.json"

    # the loader and the plan: the record by role, beside every fact the plan had
    plan = EnginePlan.from_path(engine_copy)
    assert plan.sources["memory"] == str(report)
    assert plan.records == {"memory": expected}
    assert len(plan.df) == 72 and plan.total_runtime == pytest.approx(0.4704, abs=1e-4)
    explicit = EnginePlan(engine_copy / f"{PREFIX}.graph.json", files={"memory": report})
    assert explicit.records == {"memory": expected}

    # a .tea archive names the file by its role and reopens it in that role
    tea = write_archive(engine_copy, tmp_path / "m.tea")
    assert archive_manifest(tea)["files"][report.name] == "memory"
    opened = open_archive(tea)
    assert opened.files.memory.name == report.name
    opened.close()
    from_tea = EnginePlan(tea)
    assert from_tea.records["memory"].peak_bytes == 123456 and len(from_tea.df) == 72

    # trex process names its output after the row
    assert ProcessPaths.for_input("m.onnx", tmp_path).memory.name == "m.onnx.engine.memory.json"
    assert ProcessPaths.for_input("m.onnx", tmp_path).outputs()["memory"].name == \
        "m.onnx.engine.memory.json"


def test_the_manifest_role_decides_over_the_entry_name(memory_format, engines, tmp_path):
    path = tmp_path / "plain.tea"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(MANIFEST, json.dumps({"format": "trex engine archive", "version": 1,
                                          "files": {"a.bin": "layer_info", "b.bin": "memory"}}))
        zf.write(engines / ENGINE / f"{PREFIX}.graph.json", "a.bin")
        zf.writestr("b.bin", REPORT)
    plan = EnginePlan(path)
    assert plan.records["memory"].peak_bytes == 123456 and len(plan.df) == 72


def test_a_bad_file_of_the_new_role_is_one_line_naming_it(memory_format, engine_copy, capsys):
    report = engine_copy / f"{PREFIX}.memory.json"
    report.write_text('{"toyMemoryReport": 1}')
    with pytest.raises(InputError, match="not a toy memory report"):
        EnginePlan.from_path(engine_copy)
    assert main(["summary", str(engine_copy)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(report) in err[0] and "Traceback" not in err[0]


def test_the_new_role_is_gone_with_its_row(engine_copy):
    report = engine_copy / f"{PREFIX}.memory.json"
    report.write_text(REPORT)
    with registered([toy.MEMORY_READER], [*roles.ROLES, MEMORY_ROLE]):
        assert find_engine_files(engine_copy).memory == report
    assert roles.get("memory") is None and registry.reader_of(toy.MEMORY_KIND) is None
    with pytest.raises(AttributeError):
        _ = EngineFiles().memory
    with pytest.raises(ValueError, match="no such role: memory"):
        loader.PlanInputs({"memory": report})
    plan = EnginePlan.from_path(engine_copy)  # an unknown file beside the engine is left alone
    assert "memory" not in plan.sources and plan.records == {}


# --------------------------------------------------------------------------- one role, two readers
def test_a_second_format_for_an_existing_role(csv_profile_format, engines, engine_copy, tmp_path):
    reference = EnginePlan.from_path(engine_copy)
    json_profile = engine_copy / f"{PREFIX}.profile.json"
    names_reference = EnginePlan(json_profile)
    csv = engine_copy / f"{PREFIX}.profile.csv"
    csv.write_text(toy.csv_profile_text(loader.profile(json_profile, registry.InputCache())))
    json_profile.unlink()

    for given in (engine_copy, csv):
        assert find_engine_files(given).profile == csv
    plan = EnginePlan.from_path(engine_copy)
    assert plan.sources["profile"] == str(csv) and plan.records == {}
    assert plan.total_runtime == pytest.approx(reference.total_runtime, rel=1e-12)
    assert plan.df["latency.avg_time"].tolist() == pytest.approx(
        reference.df["latency.avg_time"].tolist())
    explicit = EnginePlan(engine_copy / f"{PREFIX}.graph.json", csv)
    assert explicit.total_runtime == pytest.approx(reference.total_runtime, rel=1e-12)
    names_only = EnginePlan(csv)  # a profile alone: its names are the layers, and it times them
    assert names_only.df["Name"].tolist() == names_reference.df["Name"].tolist()
    assert names_only.total_runtime == pytest.approx(names_reference.total_runtime, rel=1e-12)

    tea = write_archive(engine_copy, tmp_path / "csv.tea")
    assert archive_manifest(tea)["files"][csv.name] == "profile"
    assert EnginePlan(tea).total_runtime == pytest.approx(reference.total_runtime, rel=1e-12)


# --------------------------------------------------------------------------- the table itself
def test_the_table_holds_every_role_once():
    roles.check()
    assert [r.name for r in roles.plan_roles()] == [
        "graph", "profile", "timings", "profile_metadata", "build_metadata", "device_metadata"]
    assert [r.name for r in roles.found_roles() if not r.plan] == ["profile_log", "build_log"]
    assert roles.plain_log_role().name == "build_log"
    assert roles.plan_role_for("profile_log") == "profile_metadata"
    assert roles.plan_role_for("build_log") == "build_metadata"
    assert roles.plan_role_for("drawing") is None
    assert roles.engine_kinds() == {"layer_info", "profile", "log"}


def test_manifest_fields_of_existing_archives_keep_their_roles():
    """The fields archives written so far hold still name the same roles."""
    fields = {"layer_info": "graph", "profile": "profile", "timings": "timings",
              "profile_metadata": "profile_metadata", "build_metadata": "build_metadata",
              "device_metadata": "device_metadata", "profile_log": "profile_log",
              "build_log": "build_log", "drawing": "drawing", "timing_cache": "timing_cache"}
    assert {f: roles.by_manifest(f).name for f in fields} == fields
    for other in ("log", "engine", "tuning_cache", "unknown", "archive"):  # kinds, no role
        assert roles.by_manifest(other) is None


@pytest.mark.parametrize("rows, problem", [
    ((MEMORY_ROLE, MEMORY_ROLE), "role 'memory' twice"),
    ((MEMORY_ROLE, dataclasses.replace(MEMORY_ROLE, name="other", manifest="x")),
     "kind 'toy_memory_report' fills two roles"),
    ((MEMORY_ROLE, Role("other", "x", manifest="memory")), "manifest field 'memory' twice"),
    ((dataclasses.replace(MEMORY_ROLE, fallback="nothing"),), "fallback 'nothing' is no role"),
    ((Role("paths", "x"),), "role 'paths' is a reserved attribute"),
])
def test_an_inconsistent_table_is_refused(rows, problem):
    with pytest.raises(ValueError, match=problem):
        roles.check(rows)


def test_files_by_role_read_and_write_as_attributes(tmp_path):
    files = EngineFiles(name="x")
    files.graph = tmp_path / "g"
    assert files.graph == tmp_path / "g" and files.paths == {"graph": tmp_path / "g"}
    assert files.build_log is None and "build_log" in dir(files)
    files.graph = None
    assert files.paths == {}
    with pytest.raises(AttributeError):
        _ = files.drawing  # a role discovery never fills
    with pytest.raises(AttributeError):
        _ = ProcessPaths.for_input("m.onnx", tmp_path).device_metadata  # never written
    inputs = loader.PlanInputs({"graph": "g", "profile": None}, "n")
    assert inputs.paths == {"graph": "g"} and inputs.profile is None and inputs.name == "n"
    with pytest.raises(ValueError, match="no such role: build_log"):
        loader.PlanInputs({"build_log": "b"})  # a log stands in for build metadata instead


def test_the_readers_page_lists_every_role_once():
    """docs/readers.md's role table follows the table: a row added here must be described there."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "readers.md").read_text()
    section = page.split("## What a file is to an engine: the role table", 1)[1].split("\n## ", 1)[0]
    first_cells = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `")]
    listed = [name for cell in first_cells for name in re.findall(r"`(\w+)`", cell)]
    assert sorted(listed) == sorted(r.name for r in roles.ROLES)
