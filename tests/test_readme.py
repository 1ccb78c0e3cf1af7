"""The README is a user's introduction that stays true: about 1,500 words, what/install/first
command on its first screen, the package-index command marked as not yet published, and its
commands and Python lines run as written (the install itself: tests/test_fresh_clone.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from helpers import require_module

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
FIRST_SCREEN = 45  # lines


def _block(after: str, language: str) -> str:
    """The first fenced ``language`` block after the heading ``after``."""
    section = README.split(f"\n## {after}\n", 1)[1]
    return section.split(f"```{language}\n", 1)[1].split("```", 1)[0]


def test_readme_is_a_users_page_of_about_1500_words():
    words = len(README.split())
    assert 1300 <= words <= 1700, words
    for maintainers in ("## Layout", "## Benchmark", "pandas-stubs", "typecheck-js", "914 passed"):
        assert maintainers not in README  # moved to CONTRIBUTING.md and docs/
    assert (ROOT / "CONTRIBUTING.md").is_file() and "CONTRIBUTING.md" in README
    assert (ROOT / "docs" / "architecture.md").is_file()


def test_first_screen_answers_what_install_and_first_command():
    screen = "\n".join(README.splitlines()[:FIRST_SCREEN])
    assert "TensorRT" in screen.split("## Install")[0]  # what it is, before anything else
    assert "python -m pip install '.[all]'" in screen
    assert "trex report examples/a100-resnet18-qat" in screen
    assert "make demo" in screen


def test_package_index_command_is_marked_as_not_yet_published():
    paragraphs = [p for p in README.split("\n\n") if "pip install 'trex-explorer[all]'" in p]
    assert len(paragraphs) == 1
    assert "once trex is published" in paragraphs[0] and "not yet" in paragraphs[0]
    version = metadata.version("trex-explorer")
    assert f"dist/trex_explorer-{version}-py3-none-any.whl[all]" in README  # the wheel's real name


def test_readme_keeps_the_test_command_ci_calls():
    assert "`make test`" in README
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_python_api_block_runs(monkeypatch):
    code = _block("The Python API in ten lines", "python")
    assert len([line for line in code.splitlines() if line.strip()]) <= 10
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102  (the README's own lines)
    plan, other = namespace["plan"], namespace["other"]
    assert len(plan.df) == 35 and len(other.df) == 25
    by_type = namespace["compare_by_type"]([plan, other])
    reformat = by_type[by_type["type"] == "Reformat"]
    assert reformat["resnet-qat.onnx.engine layers"].item() == 12
    assert reformat["resnet-qat-residual.onnx.engine layers"].item() == 3


def test_five_commands_run_on_an_example(tmp_path):
    require_module("plotly")
    lines = [line.split("  #", 1)[0].strip() for line in
             _block("Your engine, in five commands", "bash").splitlines() if line.strip()]
    assert [line.split()[1] for line in lines] == ["summary", "report", "lint", "compare", "draw"]
    qat, residual = ROOT / "examples" / "a100-resnet18-qat", ROOT / "examples" / "a100-resnet18-qat-residual"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    for line in lines:
        line = (line.replace("runs/model.onnx.engine", str(qat)).replace("runs/fp16/", str(qat))
                .replace("runs/int8/", str(residual)))
        args = re.findall(r'"[^"]*"|\S+', line)[1:]
        run = subprocess.run([sys.executable, "-m", "trex", *[a.strip('"') for a in args]],
                             cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, (line, run.stderr[-1000:])
    assert len(list(tmp_path.glob("*.html"))) == 1 and len(list(tmp_path.glob("*.svg"))) == 1


def test_demo_figures_the_readme_states():
    for figure in ("35\n   layers", "1.0957 ms summed latency", "Reformat layers fall 12 → 3 → 1",
                   "(25.4 % → 15.8 % → 14.2 % of the latency)"):
        assert figure in README, figure  # tests/test_demo.py checks each against the demo's output
