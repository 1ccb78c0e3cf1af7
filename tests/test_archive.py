"""``.tea`` engine archives: writing, reading as a plan, and refusing unsafe entries."""

from __future__ import annotations

import gc
import stat
import zipfile

import pytest

import trex
from trex.formats.archive import MANIFEST, archive_manifest, extract_archive, open_archive, write_archive

MOBILENET = "trex-mobilenet-qat"


@pytest.fixture(scope="module")
def tea(engines, tmp_path_factory):
    return write_archive(engines / MOBILENET, tmp_path_factory.mktemp("tea") / "m.tea")


def test_manifest_names_every_file_and_its_role(tea):
    manifest = archive_manifest(tea)
    assert manifest["format"] == "trex engine archive" and manifest["version"] == 1
    assert manifest["name"] == "mobilenet.qat.onnx.engine"
    assert manifest["files"] == {
        "mobilenet.qat.onnx.engine.build.metadata.json": "build_metadata",
        "mobilenet.qat.onnx.engine.graph.json": "layer_info",
        "mobilenet.qat.onnx.engine.profile.json": "profile",
        "mobilenet.qat.onnx.engine.profile.metadata.json": "profile_metadata",
        "mobilenet.qat.onnx.engine.timing.json": "timings",
    }


def test_plan_reads_an_archive_directly(tea, engines):
    plan = trex.EnginePlan(tea)
    reference = trex.EnginePlan.from_path(engines / MOBILENET)
    assert plan.name == "mobilenet.qat.onnx.engine"
    assert len(plan.df) == 72
    assert plan.total_runtime == pytest.approx(reference.total_runtime) == pytest.approx(0.4704,
                                                                                          abs=1e-4)
    assert len(plan.timings) == 8945
    assert plan.performance_summary["Throughput"] == reference.performance_summary["Throughput"]
    assert trex.EnginePlan.from_path(tea).total_weights_size == reference.total_weights_size


def test_extracted_files_disappear_with_the_plan(tea):
    plan = trex.EnginePlan(tea)
    folder = plan.archive.directory
    assert folder.is_dir()
    del plan
    gc.collect()
    assert not folder.exists()


def test_archive_of_a_build_log_alone_is_a_plan(engines, tmp_path):
    tea = write_archive([engines / "trt8.6-mobilenetv2-int8-build/mobilenetV2.onnx.engine.build.log"],
                        tmp_path / "b.tea")
    assert archive_manifest(tea)["files"] == {"mobilenetV2.onnx.engine.build.log": "build_log"}
    plan = trex.EnginePlan(tea)
    assert len(plan.df) == 56


def test_zip_without_manifest_is_found_by_content(engines, tmp_path):
    path = tmp_path / "other.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.write(engines / MOBILENET / "mobilenet.qat.onnx.engine.graph.json", "layers.txt")
        zf.write(engines / MOBILENET / "mobilenet.qat.onnx.engine.profile.json", "prof.txt")
    plan = trex.EnginePlan(path)
    assert len(plan.df) == 72 and plan.total_runtime == pytest.approx(0.4704, abs=1e-4)


def _zip(path, entries):
    with zipfile.ZipFile(path, "w") as zf:
        for info, data in entries:
            zf.writestr(info, data)
    return path


def _symlink(name):
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


@pytest.mark.parametrize("entry, problem", [
    ("../escape.json", "contains '..'"),
    ("a/../../escape.json", "contains '..'"),
    ("/etc/escape.json", "is an absolute path"),
    ("C:/escape.json", "is an absolute path"),
    ("a\\..\\escape.json", "backslash"),
    (_symlink("link.json"), "is a symbolic link"),
])
def test_unsafe_entries_are_refused_and_nothing_is_written(tmp_path, entry, problem):
    path = _zip(tmp_path / "evil.tea", [("ok.json", "{}"), (entry, "/etc/passwd")])
    target = tmp_path / "out"
    with pytest.raises(trex.InputError, match=problem):
        extract_archive(path, target)
    assert list(target.iterdir()) == []
    assert not (tmp_path / "escape.json").exists()
    with pytest.raises(trex.InputError, match="nothing was extracted"):
        trex.EnginePlan(path)


def test_duplicates_bombs_and_existing_files(tmp_path):
    dup = _zip(tmp_path / "dup.tea", [("a.json", "{}"), ("A.json", "{}")])
    with pytest.raises(trex.InputError, match="appears twice"):
        extract_archive(dup, tmp_path / "d")
    big = _zip(tmp_path / "big.tea", [("a.json", "x" * 5000)])
    with pytest.raises(trex.InputError, match="5,000 bytes \\(more than 1,000\\)"):
        extract_archive(big, tmp_path / "b", max_bytes=1000)
    many = _zip(tmp_path / "many.tea", [(f"{i}.json", "{}") for i in range(5)])
    with pytest.raises(trex.InputError, match="5 entries"):
        extract_archive(many, tmp_path / "m", max_files=4)
    target = tmp_path / "t"
    target.mkdir()
    (target / "a.json").write_text("mine")
    with pytest.raises(trex.InputError, match="already exists"):
        extract_archive(big, target)
    assert (target / "a.json").read_text() == "mine"


def test_not_an_archive_or_empty(tmp_path, engines):
    bad = tmp_path / "bad.tea"
    bad.write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(trex.InputError, match="not a readable zip archive"):
        trex.EnginePlan(bad)
    empty = _zip(tmp_path / "empty.tea", [(MANIFEST, "{}")])
    with pytest.raises(trex.InputError, match="holds no layer information"):
        open_archive(empty)
    other = tmp_path / "x"
    other.mkdir()
    copy = other / "mobilenet.qat.onnx.engine.graph.json"
    copy.write_text("{}")
    with pytest.raises(trex.InputError, match="two files are named"):
        write_archive([engines / MOBILENET / "mobilenet.qat.onnx.engine.graph.json", copy],
                      tmp_path / "o.tea")
    assert not (tmp_path / "o.tea").exists()
