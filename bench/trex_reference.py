"""NVIDIA's TREx in a venv of its own (under bench/data, not committed), to time it beside trex.

TREx 0.2.1 (TensorRT 10.x) was never published to a package registry. PyPI's
``trt-engine-explorer`` 0.1.5 is NVIDIA's TREx code (its files carry NVIDIA's Apache-2.0 headers)
from the TensorRT 8.6 branch, repackaged by a third party; its ``trex.__version__`` is 0.1.6. Its
own pins do not import (qgrid 1.3.1 needs ipywidgets 7 but ipywidgets 8.0.2 is pinned; dash 4
breaks dash_colorscales), so after installing it with its dependencies the venv gets
``ipywidgets<8`` and ``dash<3``. EnginePlan loading and ``to_dot``/``render_dot`` are the parts
timed; they did not change in substance between 0.1.6 and 0.2.1.

If the venv cannot be built (no network, no registry), :func:`ensure` returns None and a note.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

PACKAGE = "trt-engine-explorer==0.1.5"
FIXES = ("ipywidgets<8", "dash<3")  # what its own pins get wrong (see the module doc)
LABEL = "TREx 0.1.6 (PyPI trt-engine-explorer 0.1.5)"

# Run with the venv's python: load one engine (after import), then optionally draw it as TREx's
# draw does (to_dot + render_dot to SVG through Graphviz dot).
WORKER = r"""
import json, sys, time, warnings
warnings.simplefilter("ignore")
prefix, draw, out = sys.argv[1], sys.argv[2] == "draw", sys.argv[3]
t0 = time.perf_counter()
import trex
t1, c1 = time.perf_counter(), time.process_time()
files = [prefix + s for s in (".graph.json", ".profile.json", ".profile.metadata.json",
                              ".build.metadata.json")]
plan = trex.EnginePlan(*files)
t2 = time.perf_counter()
peak = 0
with open("/proc/self/status") as f:
    for line in f:
        if line.startswith("VmHWM:"):
            peak = int(line.split()[1]) * 1024
result = {"version": trex.__version__, "import": t1 - t0, "load": t2 - t1, "layers": len(plan.df),
          "load_cpu": time.process_time() - c1, "peak_mb": peak / 2**20}
print(json.dumps(result), flush=True)
if draw:
    from trex import graphing
    graph = graphing.to_dot(plan, graphing.layer_type_formatter)
    graphing.render_dot(graph, out, "svg")
    result["draw"] = time.perf_counter() - t2
    print(json.dumps(result), flush=True)
"""


def venv_python(data: Path) -> Path:
    return data / "trex-reference-venv" / "bin" / "python"


def ensure(data: Path, log=print) -> tuple[Path | None, str]:
    """(the venv's python, "") once TREx imports there; (None, why not) if it cannot be built."""
    python = venv_python(data)
    if python.exists() and _imports(python):
        return python, ""
    log(f"building {LABEL} in {python.parent.parent} (once, a few minutes) ...")
    try:
        subprocess.run([sys.executable, "-m", "venv", str(python.parent.parent)], check=True,
                       capture_output=True)
        pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        subprocess.run([*pip, PACKAGE], check=True, capture_output=True, text=True, timeout=1800)
        subprocess.run([*pip, *FIXES], check=True, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.SubprocessError) as exc:
        detail = getattr(exc, "stderr", "") or str(exc)
        return None, f"TREx skipped: its venv could not be built ({detail.strip().splitlines()[-1:]})"
    if not _imports(python):
        return None, f"TREx skipped: {PACKAGE} installed but `import trex` fails in its venv"
    return python, ""


def _imports(python: Path) -> bool:
    proc = subprocess.run([str(python), "-c", "import trex, trex.graphing"], capture_output=True,
                          cwd="/", timeout=300)
    return proc.returncode == 0


def measure(python: Path, prefix: str, draw: bool, out: str, timeout: float) -> dict:
    """One TREx run in a fresh process: import, load and (optionally) draw; a draw that takes
    longer than ``timeout`` seconds is stopped and reported as ``draw_timeout``."""
    start = time.perf_counter()
    proc = subprocess.Popen([str(python), "-c", WORKER, prefix, "draw" if draw else "load", out],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd="/",
                            start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)  # the worker and the dot it started
        stdout, stderr = proc.communicate()
        lines = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
        if not lines:
            return {"error": f"no result within {timeout:g} s"}
        return {**lines[-1], "draw_timeout": timeout, "wall": time.perf_counter() - start}
    lines = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"error": (stderr.strip().splitlines() or ["failed"])[-1]}
    return {**lines[-1], "wall": time.perf_counter() - start}
