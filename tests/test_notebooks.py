"""Every example notebook executes headless on the real engines with a stock ``jupyter nbconvert``.

The runs are bounded (``notebooks/run_all.py``): a cell that waits for its timeout fails the run. The
report card is also run in-process by a stock nbclient to check the cause of the old stalls is gone:
the client must never write to the kernel's shell socket while a cell runs (see
``trex.jupyter.widgets.render_into``). Here ``TREX_ENGINES_DIR`` names the real exports, so that
api-examples' recipes for other TensorRT versions run; tests/test_fresh_clone.py runs the same
notebooks on a fresh clone with examples/ only.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from helpers import executed_cells, require_module

NOTEBOOKS_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))
RUN_LIMIT = 180  # seconds for one whole nbconvert run; a run takes a few seconds


def _run_all():
    """``notebooks/run_all.py``, loaded once by path (it is a script, not a package)."""
    import importlib.util
    import sys

    name = "trex_notebooks_run_all"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, NOTEBOOKS_DIR / "run_all.py")
        sys.modules[name] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules[name]


def _widget_outputs(nb) -> list[dict]:
    """The state of every Output widget nbclient saved in the notebook's metadata."""
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    return [m["state"] for m in state.get("state", {}).values() if m.get("model_name") == "OutputModel"]


def test_all_four_notebooks_exist():
    assert {p.name for p in NOTEBOOKS} == {"tutorial.ipynb", "api-examples.ipynb",
                                           "engine_report_card.ipynb", "compare_engines.ipynb"}


def _copy(path: Path, tmp_path: Path) -> Path:
    """The notebook in a scratch ``notebooks/`` folder (what it writes stays there)."""
    folder = tmp_path / "notebooks"
    folder.mkdir(exist_ok=True)
    shutil.copyfile(path, folder / path.name)
    return folder / path.name


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_with_jupyter_nbconvert(engines, path, tmp_path):
    nbformat = require_module("nbformat")
    require_module("nbconvert")
    require_module("ipykernel")
    run_all = _run_all()
    env = {**os.environ, "TREX_ENGINES_DIR": str(engines), "PYTHONPATH": str(run_all.REPO / "src")}
    copy = _copy(path, tmp_path)
    run = run_all.run_one(copy, tmp_path, RUN_LIMIT, env)
    assert run.ok, run.detail
    nb = nbformat.read(tmp_path / path.name, as_version=4)
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    cells, ran, errors = executed_cells(tmp_path / path.name)
    assert ran == cells > 5 and errors == []
    if path.stem == "api-examples":
        # The recipes for other TensorRT versions ran: a multi-profile log, Myelin, names-only, 7.x.
        text = "".join(str(o.get("data", {}).get("text/plain", "")) + str(o.get("text", ""))
                       for c in code_cells for o in c.get("outputs", []))
        assert "set TREX_ENGINES_DIR" not in text
        assert "([0, 1], 13, 'node_conv2d + node_relu [profile 1]')" in text  # multi-profile log
        assert "(840,\n False," in text  # DETR, names only
        assert "[1520, 708, 426, 239, 129, 68, 36]" in text  # TensorRT 7's seven runs
    if path.stem == "engine_report_card":
        # Dropdowns were shown, and each one's output area holds its first chart, table or graph.
        kinds = {k for c in code_cells for o in c.get("outputs", []) for k in o.get("data", {})}
        assert "application/vnd.jupyter.widget-view+json" in kinds
        areas = _widget_outputs(nb)
        assert len(areas) >= 8 and all(a["outputs"] for a in areas)
        shown = {k for a in areas for o in a["outputs"] for k in o.get("data", {})}
        assert {"application/vnd.plotly.v1+json", "image/svg+xml", "text/html"} <= shown
    if path.stem == "tutorial":
        assert (copy.parent / "out" / "resnet18-qat.svg").is_file()  # its drawing, beside it


@pytest.mark.slow
def test_missing_engines_name_the_variable(tmp_path):
    """TREX_ENGINES_DIR set to a folder without the engines, examples/ not beside the notebook:
    the first cell that needs an engine fails with a message naming the variable."""
    require_module("nbconvert")
    require_module("ipykernel")
    run_all = _run_all()
    empty = tmp_path / "no-engines"
    empty.mkdir()
    env = {**os.environ, "TREX_ENGINES_DIR": str(empty), "PYTHONPATH": str(run_all.REPO / "src")}
    copy = _copy(NOTEBOOKS_DIR / "tutorial.ipynb", tmp_path)
    run = run_all.run_one(copy, tmp_path, RUN_LIMIT, env, allow_errors=True)
    assert run.ok, run.detail
    cells, ran, errors = executed_cells(tmp_path / "tutorial.ipynb")
    assert ran == cells and len(errors) >= 1
    assert errors[0].startswith("FileNotFoundError: engine folder 'a100-resnet18-qat' is neither "
                                f"in TREX_ENGINES_DIR ({empty}) nor in examples/")
    assert "set TREX_ENGINES_DIR to a folder of engine folders that holds it" in errors[0]


@pytest.mark.slow
def test_report_card_client_never_writes_to_the_shell_while_a_cell_runs(engines, tmp_path, monkeypatch):
    """The old stall: nbclient answered ``with out:`` captures on the shell socket mid-cell."""
    nbformat = require_module("nbformat")
    nbclient = require_module("nbclient")
    require_module("ipykernel")
    monkeypatch.setenv("TREX_ENGINES_DIR", str(engines))
    sent: list[str] = []

    class Client(nbclient.NotebookClient):
        async def async_execute_cell(self, cell, cell_index, *args, **kwargs):
            shell = self.kc.shell_channel
            send = shell.send
            shell.send = lambda msg: (sent.append(msg["header"]["msg_type"]), send(msg))[1]
            try:
                return await super().async_execute_cell(cell, cell_index, *args, **kwargs)
            finally:
                shell.send = send

    nb = nbformat.read(NOTEBOOKS_DIR / "engine_report_card.ipynb", as_version=4)
    Client(nb, timeout=RUN_LIMIT, kernel_name="python3",
           resources={"metadata": {"path": str(tmp_path)}}).execute()
    # One execute_request per code cell (the spy saw them), and nothing else: no comm_msg.
    assert sent == ["execute_request"] * sum(c.cell_type == "code" for c in nb.cells)
    assert sum(bool(a["outputs"]) for a in _widget_outputs(nb)) >= 8
