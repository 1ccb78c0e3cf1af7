"""Packaging promises: a light core import, TREx's star import, the extras and the release workflow."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from helpers import require_module


def _python(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=120).stdout


def test_core_import_needs_only_pandas_and_numpy():
    heavy = ("plotly", "graphviz", "ipywidgets", "IPython", "openpyxl", "xlsxwriter", "matplotlib",
             "onnx", "dtale", "qgrid")
    out = _python("import sys, trex; print(' '.join(sorted(sys.modules)))").split()
    assert "pandas" in out
    assert not [m for m in heavy if m in out]


def test_star_import_provides_trex_names():
    out = _python("from trex import *; print(EnginePlan.__name__, summary_dict.__name__)")
    assert out.split() == ["EnginePlan", "summary_dict"]


# ---------------------------------------------------------------------------------- extras, release
ROOT = Path(__file__).resolve().parents[1]


def _extra(name: str) -> set[str]:
    """The requirements of an extra, from the installed package's metadata (what pip reads)."""
    found = set()
    for req in metadata.requires("trex-explorer") or []:
        if re.search(rf"extra == [\"']{name}[\"']", req):
            found.add(re.split(r"[<>=\[ ;]", req)[0].lower())
    return found


def test_notebook_extra_brings_what_a_trex_notebook_user_needs():
    """TREx's notebooks need Jupyter and its kernel, matplotlib (`%matplotlib inline`), widgets,
    plotly, Graphviz's binding (render_dot) and xlsxwriter (ExcelSummary)."""
    assert {"jupyterlab", "ipykernel", "matplotlib", "ipywidgets", "ipython", "plotly", "graphviz",
            "xlsxwriter"} <= _extra("notebook")
    assert "trex-explorer" in _extra("all") and "trex-explorer" in _extra("test")
    text = (ROOT / "pyproject.toml").read_text()
    assert 'all = ["trex-explorer[plot,graph,gpu,notebook,excel,fast]"]' in text
    assert '"trex-explorer[docs,notebook]"' in text  # the tests' toolchain runs notebooks too


def _release() -> dict:
    yaml = require_module("yaml")
    return yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())


def test_release_workflow_builds_checks_and_publishes_on_a_tag_by_trusted_publishing():
    workflow = _release()
    assert workflow[True] == {"push": {"tags": ["v*"]}}  # YAML reads the key `on` as True
    assert workflow["permissions"] == {"contents": "read"}
    build, publish = workflow["jobs"]["build"], workflow["jobs"]["publish"]
    runs = "\n".join(step.get("run", "") for step in build["steps"])
    assert "python -m build" in runs and "twine check --strict dist/*" in runs
    assert "python .ci/wheel_check.py dist examples/a100-resnet18-qat" in runs
    assert publish["needs"] == "build" and publish["environment"]["name"] == "pypi"
    assert publish["permissions"] == {"id-token": "write"}
    uses = [step.get("uses", "") for step in publish["steps"]]
    assert uses[-1] == "pypa/gh-action-pypi-publish@release/v1"
    text = (ROOT / ".github" / "workflows" / "release.yml").read_text()
    assert "secrets." not in text and "password" not in text  # no stored token


def test_release_tag_must_name_the_version(tmp_path):
    """The workflow's first check, run as the runner would with a matching and a wrong tag."""
    step = next(s["run"] for s in _release()["jobs"]["build"]["steps"]
                if s.get("name") == "The tag names the version in pyproject.toml")
    version = metadata.version("trex-explorer")
    for tag, status in ((f"v{version}", 0), ("v9.9.9", 1)):
        run = subprocess.run(["bash", "-e", "-c", step], cwd=ROOT, capture_output=True, text=True,
                             env={"GITHUB_REF_NAME": tag, "PATH": os.environ["PATH"]}, timeout=60)
        assert run.returncode == status, (tag, run.stdout, run.stderr)
    assert f"tag v9.9.9 does not match version {version}" in run.stdout
