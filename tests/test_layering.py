"""The one direction of flow (files -> readers -> plan model -> views), checked in the source.

Views read the model's facts (a Layer's fields, ``attributes``, ``exported_fields()``, the plan's
columns), never an exported layer dict: TREx's ``raw_dict`` stays for users, and only the model and
the readers touch it.
"""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "trex"
ALLOWED = ("model", "formats")
RAW = re.compile(r"\braw_dict\b|\.raw\b(?!_)")


def test_no_view_reads_an_exported_layer_dict():
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        part = path.relative_to(SRC).parts
        if part[0] in ALLOWED:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if RAW.search(code):
                offenders.append(f"{path.relative_to(SRC)}:{number}: {line.strip()}")
    assert offenders == []


def test_the_check_would_see_one():
    """The pattern finds what it is meant to find (a check that cannot fail is no check)."""
    assert RAW.search("x = layer.raw_dict.get('Kernel')")
    assert RAW.search("tensor.raw.get('Format/Datatype')")
    assert not RAW.search("raw_from_row(row)") and not RAW.search("self.raws[i]")
