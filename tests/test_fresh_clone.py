"""What a new user does on a fresh clone, with nothing installed by hand: `make demo` (runtime
extras only, the demo itself in seconds), the README's install and first command, and every
notebook (ours on examples/, TREx's five) in a venv with only `.[notebook]`.

The clone is a copy of the files git would commit (tracked, and new files not ignored), in a
folder with no ../shared beside it. Each venv installs from the package index, so these tests
take minutes: they are marked slow (`pytest -m "not slow"` leaves them out; `make test` and CI
run them).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import executed_cells, require_program
from test_trex_notebooks import NOTEBOOKS as TREX_NOTEBOOKS
from test_trex_notebooks import run_trex_notebooks

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow
PIP_LIMIT = 1800  # seconds for one venv's installs
DEMO_LIMIT = 20  # seconds `make demo` may take once its installs are done (issue 22)
TOOLCHAIN = {"pytest", "mypy", "ruff", "playwright", "mkdocs", "hypothesis", "jupyterlab",
             "nbclient", "pandas-stubs"}


def _env(venv: Path | None = None) -> dict[str, str]:
    """A user's environment: no PYTHONPATH or venv of the test run, the venv's bin first."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "TREX_ENGINES_DIR", "MAKEFLAGS", "MAKELEVEL")}
    if venv is not None:
        env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def _sh(command: str | list[str], cwd: Path, env: dict[str, str], timeout: float = PIP_LIMIT
        ) -> subprocess.CompletedProcess:
    shell = isinstance(command, str)
    run = subprocess.run(["bash", "-eo", "pipefail", "-c", command] if shell else command,
                         cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert run.returncode == 0, f"{command}: exit {run.returncode}\n{run.stdout[-2000:]}\n" \
                                f"{run.stderr[-3000:]}"
    return run


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """The files a fresh clone has, in ``<tmp>/trex``."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout.split("\0")
    target = tmp_path_factory.mktemp("clone") / "trex"
    for name in filter(None, files):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    assert not (target / ".venv").exists() and not (target.parent / "shared").exists()
    return target


def _venv(where: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, env=_env())
    return where


def _packages(venv: Path) -> set[str]:
    out = _sh([str(venv / "bin" / "python"), "-m", "pip", "list", "--format", "json"], venv,
              _env(venv)).stdout
    return {p["name"].lower() for p in json.loads(out)}


def test_make_demo_installs_runtime_extras_and_runs_in_seconds(clone):
    require_program("make")
    make = ["make", "--no-print-directory", f"PYTHON={sys.executable}"]
    first = _sh([*make, "demo"], clone, _env())
    assert "one engine:  file://" in first.stdout and "comparison:  file://" in first.stdout
    venv = clone / ".venv"
    installed = _packages(venv)
    assert {"trex-explorer", "pandas", "plotly", "orjson"} <= installed
    assert not installed & TOOLCHAIN, installed & TOOLCHAIN  # the test toolchain is make test's
    start = time.monotonic()
    again = _sh([*make, "demo"], clone, _env())  # installs done: only the demo runs
    seconds = time.monotonic() - start
    assert "pip install" not in again.stdout and "Requirement already" not in again.stdout
    assert seconds < DEMO_LIMIT, seconds
    assert (clone / "out" / "demo" / "resnet18-qat-comparison.html").is_file()
    print(f"make demo after its installs: {seconds:.1f} s")


def _readme_install_block() -> list[str]:
    """The commands of the README's install block (its first ```bash block under ## Install)."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("\n## Install", 1)[1]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def test_readme_install_then_report_works(clone, tmp_path):
    commands = _readme_install_block()
    assert commands[0].startswith("git clone") and commands[1].startswith("cd ")
    assert "python -m pip install '.[all]'" in commands
    assert any(c.startswith("trex report examples/") for c in commands)
    venv = _venv(tmp_path / "venv")
    for command in commands[2:]:  # the clone is made; the rest as the README says
        _sh(command, clone, _env(venv))
    report = next(c for c in commands if c.startswith("trex report"))
    out = clone / re.search(r"-o (\S+)", report).group(1)
    html = out.read_text(encoding="utf-8")
    assert "resnet-qat.onnx.engine" in html and len(html) > 500_000
    assert str(venv) in _sh([str(venv / "bin" / "python"), "-c", "import trex; print(trex.__file__)"],
                            tmp_path, _env(venv)).stdout  # the installed trex, not the clone's src


@pytest.fixture(scope="module")
def notebook_venv(tmp_path_factory, clone) -> Path:
    """A venv with only `.[notebook]` installed from the clone, as the README says."""
    venv = _venv(tmp_path_factory.mktemp("notebook-venv") / "venv")
    _sh([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", f"{clone}[notebook]"],
        clone, _env(venv))
    return venv


def test_our_notebooks_run_on_a_fresh_clone_with_examples(clone, notebook_venv, tmp_path):
    from test_notebooks import _run_all

    run_all = _run_all()
    notebooks = sorted((clone / "notebooks").glob("*.ipynb"))
    assert len(notebooks) == 4
    total = 0
    for notebook in notebooks:
        run = run_all.run_one(notebook, tmp_path, 300, _env(notebook_venv),
                              jupyter=[str(notebook_venv / "bin" / "jupyter")], allow_errors=True)
        assert run.ok, (notebook.name, run.detail)
        code, ran, errors = executed_cells(tmp_path / notebook.name)
        assert errors == [] and ran == code > 5, (notebook.name, errors)
        total += code
    print(f"our notebooks on a fresh clone: {total} cells run, 0 failed")
    text = (tmp_path / "api-examples.ipynb").read_text()
    assert "Recipes for other TensorRT versions: set TREX_ENGINES_DIR to run them." in text
    assert (clone / "notebooks" / "out" / "resnet18-qat.svg").is_file()


def test_trex_notebooks_run_with_only_the_notebook_extra(engines, notebook_venv, tmp_path):
    require_program("dot")
    results = run_trex_notebooks(engines, tmp_path / "trt-engine-explorer",
                                 jupyter=[str(notebook_venv / "bin" / "jupyter")],
                                 env=_env(notebook_venv))
    assert set(results) == set(TREX_NOTEBOOKS)
    for name, (code, ran, errors) in results.items():
        assert errors == [] and ran == code > 0, (name, errors)
    print(f"TREx's notebooks: {sum(r[0] for r in results.values())} cells run, 0 failed")
