"""What the benchmark scripts share: engine paths, timed runs in fresh processes, the table."""

from __future__ import annotations

import compileall
import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path


def compile_trex() -> None:
    """Write trex's bytecode before timing, as an installed package has it: a checkout run with
    PYTHONDONTWRITEBYTECODE set would compile every changed module at each interpreter start
    (0.05–0.1 s of a 1.5 s report)."""
    spec = importlib.util.find_spec("trex")
    if spec is not None and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            compileall.compile_dir(folder, quiet=1)


def prefix(data: Path, n: int) -> str:
    """The path prefix of the generated ``n``-layer engine in ``data``."""
    return str(data / f"bench{n}")


def timed_cli(*args: str) -> float:
    """Wall time of ``python -m trex.cli ARGS`` in a fresh process; its last error line if it fails."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "trex.cli", *args], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1])
    return elapsed


def worker_runs(script: str, n: int, data: Path, out: str, runs: int) -> list[dict]:
    """``runs`` results of ``script --worker`` (each stage timed in a fresh process)."""
    return [json.loads(subprocess.run([sys.executable, script, "--worker", str(n), "--data", str(data),
                                       "--out", out], capture_output=True, text=True,
                                      check=True).stdout)
            for _ in range(runs)]


def layer_names(engine: str) -> list[str]:
    """The names of ``plan.df``'s rows, read in a fresh process (the benchmark's own stays clean)."""
    code = ("import json, warnings, sys, trex; warnings.simplefilter('ignore');"
            "print(json.dumps(trex.EnginePlan.from_path(sys.argv[1]).df['Name'].tolist()))")
    return json.loads(subprocess.run([sys.executable, "-c", code, engine], capture_output=True,
                                     text=True, check=True).stdout)


def text_table(title: str, head: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """A right-aligned plain-text table under ``title``."""
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    line = "  ".join(f"{{:>{w}}}" for w in widths)
    out = [title, line.format(*head), line.format(*("-" * w for w in widths))]
    out.extend(line.format(*row) for row in rows)
    return "\n".join(out)
