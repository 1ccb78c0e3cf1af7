"""``make demo``: trex on NVIDIA's A100 ResNet18 Q/DQ engines (see README.md in this folder).

Runs four ``trex`` commands, printing each command line first: a short summary of the INT8 (Q/DQ)
engine, the linters that explain why each Q/DQ placement fix is faster (reformat layers 12 -> 3 -> 1),
the HTML report of that engine and the comparison report of the three. The reports go to
``out/demo`` (or ``--out``) and open offline from the ``file://`` paths printed at the end.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ENGINES = {  # display name -> folder, in the order of the fixes
    "qat": HERE / "a100-resnet18-qat",
    "qat-residual": HERE / "a100-resnet18-qat-residual",
    "qat-residual-qgap": HERE / "a100-resnet18-qat-residual-qgap",
}
REPORT = "resnet18-qat.html"
COMPARISON = "resnet18-qat-comparison.html"


def _arg(path: Path) -> str:
    """``path`` relative to the current folder when it is inside it (shorter command lines)."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def steps(out: Path) -> list[tuple[str, list[str]]]:
    """The demo's ``trex`` command lines (argv without ``trex``), each with its heading."""
    qat, *_ = folders = [_arg(p) for p in ENGINES.values()]
    return [
        ("A short summary of the INT8 (Q/DQ) ResNet18 engine (A100, batch 32)",
         ["summary", qat, "--top", "3"]),
        ("Why each Q/DQ placement fix is faster: reformat layers 12 -> 3 -> 1.\n"
         "qat: 8 Quantize layers on the residual branches and the copies around the pooling layers\n"
         "run as separate reformats; Q/DQ on the residual connections leaves 3 (the input, and\n"
         "around global average pooling); quantizing that pooling too leaves 1 (the input)",
         ["lint", *folders, "--linter", "reformat-share", "--linter", "qdq"]),
        ("The HTML report of one engine (charts, layer table, graph, findings)",
         ["report", qat, "-o", _arg(out / REPORT)]),
        ("The comparison report of the three engines (the first is the baseline)",
         ["report", *folders, "--names", ",".join(ENGINES), "-o", _arg(out / COMPARISON)]),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE.parent / "out" / "demo",
                        help="folder for the two HTML reports (default: out/demo)")
    args = parser.parse_args(argv)
    from trex.cli import main as trex

    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    for heading, command in steps(out):
        print(f"\n### {heading}\n$ trex {' '.join(command)}", flush=True)
        status = trex(command)
        sys.stdout.flush()
        if status != 0:
            return status
    print("\nOpen the reports in a browser (offline, no server):")
    print(f"  one engine:  {(out / REPORT).as_uri()}")
    print(f"  comparison:  {(out / COMPARISON).as_uri()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
