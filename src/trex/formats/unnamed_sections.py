"""Naming the autotuning sections that 8.2/8.5 logs open without a layer name.

TensorRT 8.2-8.5 may print ``=============== Computing costs for`` with no name: the section still
tunes one layer, which its timing runners (``Timing Runner: NAME (runner)``) or ``NAME Set Tactic
Name`` lines name. A section whose timings were reused from an identical earlier layer may print no
runner at all; it is placed by order among the engine's layers. The reader gives such a section a
stand-in name (:data:`UNNAMED` and a number) and :func:`name_sections` replaces it in every record,
so that no record and no row is left without a layer name.
"""

from __future__ import annotations

from typing import TypeVar

from .build_records import BuildLog, MyelinTactic, RunnerChoice, RunnerResult, TacticTiming

__all__ = ["UNNAMED", "name_sections"]

UNNAMED = "\0"  # starts the stand-in name of a section that names no layer
_BUILDER_LAYERS = ("Reformatting CopyNode", "Reformatted ")
_Record = TypeVar("_Record", TacticTiming, RunnerResult, RunnerChoice, MyelinTactic)


def name_sections(log: BuildLog, named: dict[str, str], count: int) -> None:
    """Give every record of the ``count`` unnamed sections the layer it tuned (``named``: stand-in
    -> name from the section's own lines; the rest placed by order), or drop it with a warning."""
    names = dict(named)
    names.update(_place(log, names))
    left = {f"{UNNAMED}{k}" for k in range(1, count + 1)} - names.keys()

    def kept(layer: str) -> bool:
        return layer not in left

    log.autotuned = [(p, names.get(n, n)) for p, n in log.autotuned if kept(n)]
    log.combinations = [(p, names.get(n, n), c) for p, n, c in log.combinations if kept(n)]
    log.tactics = _renamed(log.tactics, names, left)
    log.runners = _renamed(log.runners, names, left)
    log.choices = _renamed(log.choices, names, left)
    log.myelin = _renamed(log.myelin, names, left)
    if left:
        log.warnings.append(
            f"{len(left)} autotuning section(s) ('Computing costs for' without a layer name) print "
            "no timing runner and cannot be placed among the engine's layers: left out")


def _renamed(records: list[_Record], names: dict[str, str], left: set[str]) -> list[_Record]:
    kept = [r for r in records if r.layer not in left]
    for r in kept:
        r.layer = names.get(r.layer, r.layer)
    return kept


def _place(log: BuildLog, names: dict[str, str]) -> dict[str, str]:
    """Unnamed sections of the kept pass placed by order: between two named sections stand the
    engine layers between those two layers (builder reformats aside); a run of unnamed sections
    takes them in order when the counts are equal, else stays unnamed. Named sections out of the
    engine's order stop the placement (the orders no longer correspond)."""
    chosen = log.chosen_pass
    sequence = [names.get(n, n) for p, n in log.autotuned if p == chosen]
    engine = [layer.name for layer in log.engine_layers
              if not layer.name.startswith(_BUILDER_LAYERS)]
    where: dict[str, int] = {}
    for i, name in enumerate(engine):
        where.setdefault(name, i)
    tuned = {n for n in sequence if not n.startswith(UNNAMED)}
    out: dict[str, str] = {}
    previous: int | None = -1
    i = 0
    while i < len(sequence):
        if not sequence[i].startswith(UNNAMED):
            at = where.get(sequence[i])
            if at is not None:
                previous = at if previous is not None and at > previous else None
            i += 1
            continue
        j = i
        while j < len(sequence) and sequence[j].startswith(UNNAMED):
            j += 1
        following = next((where[n] for n in sequence[j:] if n in where), len(engine))
        if previous is not None and following > previous:
            gap = [n for n in engine[previous + 1:following] if n not in tuned]
            if len(gap) == j - i:
                out.update(zip(sequence[i:j], gap))
        i = j
    return out
