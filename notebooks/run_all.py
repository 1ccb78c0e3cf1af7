"""Execute every example notebook with a stock ``jupyter nbconvert --execute``, N times in a row.

``python notebooks/run_all.py --repeat 10``: each run is a fresh ``jupyter nbconvert`` process (its
own kernel, started in the notebook's folder as Jupyter does, so ``../examples`` is found) that
writes the executed copy into a scratch folder, bounded by ``--timeout`` seconds of wall clock for
the whole run, which is also the cell timeout given to nbconvert: a cell that sits until its
timeout (the stall ``trex.jupyter.widgets.render_into`` explains) fails the run instead of
finishing late. A run that errors or does not finish in time is reported and the script exits 1.
This is what users get: no test harness, no patched client.
The notebooks read the engines in ``examples/``; when the real exports beside the repository are
found (or ``$TREX_ENGINES_DIR`` is set), ``TREX_ENGINES_DIR`` points at them, so that the recipes
for other TensorRT versions run too.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


@dataclass
class Run:
    """One execution of one notebook."""

    notebook: str
    seconds: float
    ok: bool
    detail: str = ""


def engines_dir() -> Path | None:
    """The real engines' folder: the rule the tests use (bench/shared_engines.py)."""
    sys.path.insert(0, str(REPO / "bench"))
    try:
        from shared_engines import find_engines_dir
    finally:
        sys.path.pop(0)
    return find_engines_dir(REPO)


def jupyter_command() -> list[str]:
    """``jupyter`` of this interpreter's environment (so the kernel and nbconvert match)."""
    beside = Path(sys.executable).with_name("jupyter")
    return [str(beside)] if beside.exists() else [sys.executable, "-m", "jupyter"]


def run_one(notebook: Path, output_dir: Path, timeout: float, env: dict[str, str],
            jupyter: list[str] | None = None, allow_errors: bool = False) -> Run:
    """``jupyter nbconvert --to notebook --execute`` of ``notebook`` (its kernel in the notebook's
    folder), the executed copy written into ``output_dir`` (in place when that is its folder).
    ``jupyter``: another environment's command; ``allow_errors``: run every cell, errors kept."""
    where = ["--inplace"] if output_dir.resolve() == notebook.parent.resolve() \
        else ["--output-dir", str(output_dir)]
    cmd = [*(jupyter or jupyter_command()), "nbconvert", "--to", "notebook", "--execute", *where,
           *(["--allow-errors"] if allow_errors else []),
           f"--ExecutePreprocessor.timeout={int(timeout)}", str(notebook)]
    start = time.monotonic()
    # A new session, so that a stalled run can be ended together with its kernel.
    proc = subprocess.Popen(cmd, cwd=notebook.parent, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return Run(notebook.stem, time.monotonic() - start, False, f"not finished after {timeout:.0f} s")
    seconds = time.monotonic() - start
    if proc.returncode != 0:
        tail = " | ".join(out.strip().splitlines()[-3:])
        return Run(notebook.stem, seconds, False, f"exit {proc.returncode}: {tail}")
    return Run(notebook.stem, seconds, True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path,
                        help="notebooks to run (default: every notebooks/*.ipynb)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each notebook (default 1)")
    parser.add_argument("--timeout", type=float, default=300,
                        help="seconds allowed for one whole run (and so for any cell; default 300)")
    args = parser.parse_args(argv)

    notebooks = args.notebooks or sorted(HERE.glob("*.ipynb"))
    env = dict(os.environ)
    if "TREX_ENGINES_DIR" not in env:
        found = engines_dir()
        if found is not None:
            env["TREX_ENGINES_DIR"] = str(found)
        else:
            print("note: the real engine files are not beside the repository: the notebooks use "
                  "examples/ only (set TREX_ENGINES_DIR for the other recipes)", file=sys.stderr)
    # The kernel imports the trex of this checkout, installed or not.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO / "src"), env.get("PYTHONPATH")) if p)

    runs: list[Run] = []
    for i in range(1, args.repeat + 1):
        for notebook in notebooks:
            with tempfile.TemporaryDirectory(prefix="trex-nb-") as tmp:
                run = run_one(notebook.resolve(), Path(tmp), args.timeout, env)
            runs.append(run)
            status = "ok" if run.ok else "FAILED"
            print(f"[{i}/{args.repeat}] {run.notebook:<20} {run.seconds:6.1f} s  {status} {run.detail}",
                  flush=True)
    failed = [r for r in runs if not r.ok]
    slowest = max(runs, key=lambda r: r.seconds)
    print(f"{len(runs) - len(failed)} passed, {len(failed)} failed "
          f"(slowest: {slowest.notebook} {slowest.seconds:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
