"""The built wheel, alone in an empty venv, must work: ``python .ci/wheel_check.py DIST ENGINE``.

Checks the wheel's files (``trex/py.typed``, the HTML report's assets), installs it with the
``[all]`` extra into a new venv, then runs that venv's ``trex report`` on ENGINE from a scratch
folder (so nothing of the checkout can be imported) and checks the HTML names the engine.
Exits 1 with the reason on any failure. Used by ``make package-check``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path


def fail(message: str) -> int:
    print(f"wheel check: FAILED: {message}", file=sys.stderr)
    return 1


def main(dist: str, engine: str) -> int:
    wheels = sorted(Path(dist).glob("*.whl"))
    if len(wheels) != 1:
        return fail(f"expected one wheel in {dist}, found {len(wheels)}")
    wheel = wheels[0].resolve()
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [n for n in ("trex/py.typed", "trex/cli/__init__.py") if n not in names]
    if missing or not any(n.startswith("trex/html_report/assets/") for n in names):
        return fail(f"{wheel.name} lacks {missing or 'the HTML report assets'}")

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    with tempfile.TemporaryDirectory(prefix="trex-wheel-") as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        python, trex = venv / "bin" / "python", venv / "bin" / "trex"
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", f"{wheel}[all]"],
                       check=True, env=env)
        where = subprocess.run(
            [str(python), "-c", "import pathlib, trex; p = pathlib.Path(trex.__file__).parent; "
                                "print(p, (p / 'py.typed').is_file())"],
            cwd=tmp, env=env, capture_output=True, text=True, check=True).stdout.split()
        if not where[0].startswith(str(venv)) or where[1] != "True":
            return fail(f"trex imported from {where[0]} (py.typed: {where[1]})")
        report = Path(tmp) / "report.html"
        run = subprocess.run([str(trex), "report", str(Path(engine).resolve()), "-o", str(report)],
                             cwd=tmp, env=env, capture_output=True, text=True)
        if run.returncode != 0 or not report.is_file():
            return fail(f"trex report exited {run.returncode}: {run.stderr.strip()[-500:]}")
        html = report.read_text(encoding="utf-8")
        name = next(Path(engine).glob("*.graph.json")).name.removesuffix(".graph.json")
        if name not in html:
            return fail(f"the report does not name the engine {name}")
        print(f"wheel check: {wheel.name} installs into an empty venv; its trex report wrote "
              f"{len(html) / 1e6:.1f} MB naming {name}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.splitlines()[0])
    sys.exit(main(sys.argv[1], sys.argv[2]))
