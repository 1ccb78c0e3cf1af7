"""The documented GitHub Actions example (.github/workflows/engine-report.yml, shown whole in
docs/ci.md): its script run here as the runner would, on the engines in examples/, with a job
summary file; the gate passes on the Q/DQ fix and fails the other way round."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import require_module

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "engine-report.yml"


def _workflow() -> dict:
    yaml = require_module("yaml")
    return yaml.safe_load(WORKFLOW.read_text())


def _script(workflow: dict) -> str:
    steps = workflow["jobs"]["report"]["steps"]
    return next(s["run"] for s in steps if s.get("name") == "Report, lint and gate")


def test_docs_show_the_workflow_whole():
    page = (ROOT / "docs" / "ci.md").read_text()
    assert f"```yaml\n{WORKFLOW.read_text()}```" in page


def test_workflow_publishes_the_summary_and_the_reports():
    workflow = _workflow()
    job = workflow["jobs"]["report"]
    assert workflow["permissions"] == {"contents": "read"}
    upload = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact"))
    assert upload["if"] == "always()" and upload["with"]["path"] == "trex-out/"
    script = _script(workflow)
    assert '>> "$GITHUB_STEP_SUMMARY"' in script and "--format markdown" in script
    assert all((ROOT / job["env"][k]).is_dir() for k in ("BASE", "NEW"))


def _run(tmp_path: Path, base: str, new: str) -> tuple[int, Path, Path]:
    require_module("plotly")
    work = tmp_path / f"{Path(base).name}-{Path(new).name}"
    work.mkdir()
    summary = work / "summary.md"
    env = {**os.environ, "BASE": str(ROOT / base), "NEW": str(ROOT / new), "LIMIT": "5",
           "GITHUB_STEP_SUMMARY": str(summary),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": str(ROOT / "src")}
    run = subprocess.run(["bash", "-eo", "pipefail", "-c", _script(_workflow())], cwd=work,
                         env=env, capture_output=True, text=True, timeout=600)
    assert "Traceback" not in run.stderr, run.stderr
    return run.returncode, summary, work / "trex-out"


def test_the_script_reports_gates_and_summarises(tmp_path):
    job = _workflow()["jobs"]["report"]
    code, summary, out = _run(tmp_path, job["env"]["BASE"], job["env"]["NEW"])
    assert code == 0
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("### trex compare: base vs new\n\n✅ **Regression gate passed**: ")
    assert "new 0.7311 ms vs base 1.0957 ms, 33.3% faster" in text
    assert "### resnet-qat-residual.onnx.engine: " in text and "| reformat-share |" in text
    assert sorted(p.name for p in out.iterdir()) == [
        "compare.md", "comparison.report.html", "lint.md", "new.report.html"]
    html = (out / "comparison.report.html").read_text(encoding="utf-8")
    assert "resnet-qat-residual.onnx.engine" in html and "resnet-qat.onnx.engine" in html


@pytest.mark.parametrize("limit_breached", [True])
def test_the_gate_fails_the_job_when_new_is_slower(tmp_path, limit_breached):
    job = _workflow()["jobs"]["report"]
    code, summary, out = _run(tmp_path, job["env"]["NEW"], job["env"]["BASE"])  # swapped
    assert code == 1
    text = summary.read_text(encoding="utf-8")
    assert "❌ **Regression gate failed**" in text.splitlines()[2]
    assert (out / "comparison.report.html").is_file()  # the artifact is still written
