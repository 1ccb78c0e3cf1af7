"""Packaging promises: a light core import and TREx's star import."""

from __future__ import annotations

import subprocess
import sys


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
