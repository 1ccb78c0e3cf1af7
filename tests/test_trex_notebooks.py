"""TREx's five notebooks at their last version run on trex with a stock ``jupyter nbconvert``,
every cell, none failing.

The notebooks (tests/trex_notebooks/, see its NOTICE) are rebuilt in TREx's folder layout.
TREx's notebooks read ``../tests/inputs/mobilenet*.onnx.engine.*`` and
``examples/pytorch/resnet/A100/<variant>/``; :func:`trex_tree` lays out those folders with links
to the same real exports (../shared/engines), so the notebooks run with their own paths. Two of
TREx's bugs are patched in the copies (:data:`PATCHES`); nothing else of a cell changes.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from helpers import executed_cells, require_module, require_program

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "tests" / "trex_notebooks"
RUN_LIMIT = 300  # seconds for one notebook

# notebook -> (folder under TREx's tools/experimental/trt-engine-explorer, source file here)
NOTEBOOKS = {
    "tutorial": "notebooks",
    "api-examples": "notebooks",
    "engine_report_card": "notebooks",
    "compare_engines": "notebooks",
    "example_qat_resnet18": "examples/pytorch/resnet",
}
# TREx's test inputs: engine file prefix -> folder of the real exports.
INPUTS = {"mobilenet.qat.onnx.engine": "trex-mobilenet-qat",
          "mobilenet_v2_residuals.qat.onnx.engine": "trex-mobilenet-v2-residuals-qat"}
# examples/pytorch/resnet/A100/<variant>: TREx's QAT walkthrough.
A100 = {v: f"a100-resnet18-{v}" for v in ("fp32", "fp16", "qat", "qat-residual", "qat-residual-qgap")}

# TREx's own bugs, patched in the test's copy (each: notebook, text as published, patched text).
PATCHES = [
    # 1. A missing file: TREx's tests/inputs has no mobilenet.qat.onnx.engine.metadata.json (the
    #    profile metadata is mobilenet.qat.onnx.engine.profile.metadata.json).
    ("api-examples", 'f"{engine_name}.profile.json", f"{engine_name}.metadata.json")',
     'f"{engine_name}.profile.json", f"{engine_name}.profile.metadata.json")'),
    # 2. convs_1x1 is used but never defined: the 1x1 convolutions of the cleaned table.
    ("api-examples", '# Display the dataframe of all INT8 convolutions with \n',
     '# Display the dataframe of all INT8 convolutions with \n'
     'convs_1x1 = clean_convs[clean_convs["attr.kernel"].apply(lambda k: tuple(k) == (1, 1))]'
     '  # patched: TREx never defines convs_1x1\n'),
]


def cells(name: str) -> list[tuple[str, str]]:
    """The (kind, source) cells of TREx's notebook ``name``, as published."""
    text = (HERE / f"{name}.txt").read_text(encoding="utf-8")
    out: list[tuple[str, list[str]]] = []
    for line in text.split("\n"):
        if line in ("# %%", "# %% [markdown]"):
            out.append(("markdown" if line.endswith("]") else "code", []))
        else:
            out[-1][1].append(line)
    return [(kind, "\n".join(lines).rstrip("\n")) for kind, lines in out]


def write_notebook(name: str, path: Path, patched: bool = True) -> Path:
    """TREx's notebook ``name`` written to ``path`` (with :data:`PATCHES` unless ``patched`` is
    False)."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    sources = [src for _kind, src in cells(name)]
    if patched:
        for notebook, published, fixed in PATCHES:
            if notebook != name:
                continue
            hits = [i for i, src in enumerate(sources) if published in src]
            assert len(hits) == 1, (name, published)
            sources[hits[0]] = sources[hits[0]].replace(published, fixed)
    nb = new_notebook(cells=[(new_markdown_cell if kind == "markdown" else new_code_cell)(src)
                             for (kind, _), src in zip(cells(name), sources)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def trex_tree(engines: Path, root: Path, logo: Path) -> dict[str, Path]:
    """TREx's folders under ``root`` (links to the real exports in ``engines``, ``logo`` as
    images/trex_logo.png) with its five notebooks; returns each notebook's path."""
    inputs = root / "tests" / "inputs"
    inputs.mkdir(parents=True)
    for prefix, folder in INPUTS.items():
        for file in sorted((engines / folder).iterdir()):
            if file.name.startswith(prefix + "."):
                (inputs / file.name).symlink_to(file)
    a100 = root / "examples" / "pytorch" / "resnet" / "A100"
    a100.mkdir(parents=True)
    for variant, folder in A100.items():
        (a100 / variant).symlink_to(engines / folder)
    (root / "images").mkdir()
    shutil.copyfile(logo, root / "images" / "trex_logo.png")
    return {name: write_notebook(name, root / folder / f"{name}.ipynb")
            for name, folder in NOTEBOOKS.items()}


# ----------------------------------------------------------------------------------------- tests


def _run_all():
    from test_notebooks import _run_all as load

    return load()


def test_patches_are_the_only_changes():
    """Each patch applies once, to TREx's cell as published; every other cell stays as it is."""
    for name in NOTEBOOKS:
        published = [src for _kind, src in cells(name)]
        assert len(published) > 3 and any(kind == "code" for kind, _ in cells(name))
    assert [name for name, *_ in PATCHES] == ["api-examples", "api-examples"]
    source = "\n".join(src for _kind, src in cells("api-examples"))
    assert "convs_1x1 =" not in source and "convs_1x1[" in source  # TREx's bug, as published
    assert 'f"{engine_name}.metadata.json"' in source


def run_trex_notebooks(engines: Path, root: Path, jupyter: list[str] | None = None,
                       env: dict[str, str] | None = None) -> dict[str, tuple[int, int, list[str]]]:
    """Lay out TREx's tree under ``root``, run each notebook in place with every cell (errors
    kept), and return each one's (code cells, cells run, errors)."""
    run_all = _run_all()
    paths = trex_tree(engines, root, ROOT / "docs" / "images" / "graph.png")
    env = env or {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    results = {}
    for name, path in paths.items():
        run = run_all.run_one(path, path.parent, RUN_LIMIT, env, jupyter=jupyter, allow_errors=True)
        assert run.ok, (name, run.detail)
        results[name] = executed_cells(path)
    return results


@pytest.mark.slow
def test_trex_notebooks_run_without_a_failing_cell(engines, tmp_path):
    require_module("nbconvert")
    require_module("ipykernel")
    require_module("matplotlib")
    require_program("dot")
    results = run_trex_notebooks(engines, tmp_path / "trt-engine-explorer")
    assert set(results) == set(NOTEBOOKS)
    for name, (code, ran, errors) in results.items():
        assert errors == [] and ran == code > 0, (name, errors)
    assert {name: code for name, (code, _, _) in results.items()} == {
        "tutorial": 26, "api-examples": 12, "engine_report_card": 24, "compare_engines": 11,
        "example_qat_resnet18": 4}  # every cell of TREx's notebooks that has code
    root = tmp_path / "trt-engine-explorer"
    # What the notebooks write: TREx's drawings beside the engines, the report card's workbooks.
    inputs = root / "tests" / "inputs"
    assert (inputs / "mobilenet_v2_residuals.qat.onnx.engine.svg").is_file()
    assert (inputs / "mobilenet_v2_residuals.qat.onnx.engine.png").is_file()
    assert (root / "notebooks" / "customized_summary_with_manager.xlsx").is_file()
    assert len(list((root / "examples" / "pytorch" / "resnet").glob("ResNet18-*.svg"))) == 5


@pytest.mark.slow
def test_trex_bugs_fail_unpatched(engines, tmp_path):
    """Without the patches, api-examples fails exactly at TREx's two bugs (so they are TREx's)."""
    require_module("nbconvert")
    require_module("ipykernel")
    run_all = _run_all()
    root = tmp_path / "trt-engine-explorer"
    trex_tree(engines, root, ROOT / "docs" / "images" / "graph.png")
    path = write_notebook("api-examples", root / "notebooks" / "unpatched.ipynb", patched=False)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    assert run_all.run_one(path, path.parent, RUN_LIMIT, env, allow_errors=True).ok
    errors = executed_cells(path)[2]
    assert errors[0].startswith("InputError: ") and "mobilenet.qat.onnx.engine.metadata.json" \
        in errors[0]
    assert errors[-1] == "NameError: name 'convs_1x1' is not defined"
