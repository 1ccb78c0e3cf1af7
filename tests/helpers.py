"""Re-computations of TREx 0.2.1's formulas, used to show where and why our figures differ."""

from __future__ import annotations

import math

from trex import EnginePlan

_TREX_WEIGHT_BYTES = {"Int8": 1, "Half": 2, "Float": 4, "Int32": 4, "FP16": 2, "FP32": 4}


def trex_weights(plan: EnginePlan) -> int:
    """TREx: only the ``Weights`` key, only four dtypes; no bias, no ConvActPool ConvWeights."""
    total = 0
    for layer in plan.layers:
        w = layer.raw_dict.get("Weights")
        if isinstance(w, dict):
            total += w["Count"] * _TREX_WEIGHT_BYTES.get(w["Type"], 0)
    return total


def trex_activations(plan: EnginePlan) -> int:
    """TREx: every layer's inputs and outputs, unpadded, BF16 counted as 0 bytes."""
    total = 0
    for layer in plan.layers:
        for t in (*layer.inputs, *layer.outputs):
            if t.precision not in ("BF16", "Bool"):
                total += math.prod(t.shape) * t.data_size
    return int(total)


def require_module(name: str):
    """Import an optional extra; skip without it locally, but fail in CI (CI installs every extra)."""
    import importlib
    import os

    import pytest

    if os.environ.get("CI"):
        return importlib.import_module(name)
    return pytest.importorskip(name)


def require_program(name: str) -> None:
    """A program on PATH (e.g. Graphviz ``dot``); skip without it locally, fail in CI."""
    import os
    import shutil

    import pytest

    if shutil.which(name) is None:
        if os.environ.get("CI"):
            pytest.fail(f"`{name}` is required in CI (.ci/run installs it)")
        pytest.skip(f"`{name}` is not installed")


def bench_module(name: str):
    """A module of ``bench/`` (not a package), loaded once by path: ``generate``, ``shared_engines``."""
    import importlib.util
    import sys
    from pathlib import Path

    key = f"trex_bench_{name}"
    if key not in sys.modules:
        path = Path(__file__).resolve().parents[1] / "bench" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(key, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


# A DLA engine's profile as trtexec prints it (no real DLA export is in the shared files): copies
# to and from the DLA's memory, the waits for them, and the DLA subgraph (a ForeignNode).
DLA_ROWS = [("images to nvm", 33.99), ("{ForeignNode[Conv_0...Concat_198]}", 3.38),
            ("head_3 from nvm", 3069.55), ("images copy finish", 0.67),
            ("head_3 copy finish", 1.17), ("head_2 from nvm", 2.88)]


def write_dla_profile(path, rows=DLA_ROWS, count: int = 399):
    """An --exportProfile JSON of ``rows`` (name, total ms) at ``path``; returns the path."""
    import json

    total = sum(t for _, t in rows)
    profile = [{"count": count}] + [{"name": n, "timeMs": t, "averageMs": t / count,
                                     "percentage": 100 * t / total} for n, t in rows]
    path.write_text(json.dumps(profile))
    return path



def executed_cells(notebook) -> tuple[int, int, list[str]]:
    """An executed notebook's (code cells, cells that ran, "ename: evalue" of each failing cell);
    empty code cells, which Jupyter does not run, are not counted."""
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    errors = [f"{o.ename}: {o.evalue}" for c in code for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    return len(code), sum(bool(c.get("execution_count")) for c in code), errors
