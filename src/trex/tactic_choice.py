"""Which format combination and which timing each engine layer's tactic was chosen in.

A tactic id is timed in several format combinations (input -> output formats), often at different
speeds; the engine runs one of them. That combination is read from the engine's own layer
information: the formats of the layer's tensors in the log's ``Engine Layer Information`` lines or
its ``--dumpLayerInfo`` block, compared with each combination's notation
(:mod:`trex.formats.combinations`). Where the engine's formats leave several combinations, the
runner's choice (``Chose Runner Type ... Tactic``) narrows them; where the log lists no engine
layers, the runner's choice alone. A layer whose timings TensorRT reused from an identical earlier
layer (printed combinations, no timings) inherits that layer's combinations, timings and choices
and is judged in the combination it runs. Everything here is computed once per log and read by
:mod:`trex.tactics`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from .formats.build_records import BuildLog, EngineLayer, RunnerChoice, TacticTiming
from .formats.combinations import (
    Layout,
    engine_tensor_layout,
    formats_agree,
    prose_layout,
)

__all__ = ["AMBIGUOUS", "FROM_CHOICE", "FROM_FORMATS", "FROM_FORMATS_AND_CHOICE", "NOT_TUNED",
           "LayerTuning", "layer_tunings", "runner_of"]

# How the engine's combination was found (the ``combination_from`` column).
FROM_FORMATS = "engine formats"
FROM_FORMATS_AND_CHOICE = "engine formats and runner choice"
FROM_CHOICE = "runner choice"
AMBIGUOUS = "ambiguous"
NOT_TUNED = "engine formats not autotuned"


@dataclass
class LayerTuning:
    """One layer's autotuning and the combination and timing of the tactic the engine runs."""

    name: str
    type: str | None
    in_engine: bool | None  # None: the log lists no engine layers
    tactic: str | None
    records: list[TacticTiming] = field(default_factory=list)  # own, else the donor's
    combinations: list[str] = field(default_factory=list)  # as printed for this layer
    choices: dict[str, RunnerChoice] = field(default_factory=dict)  # combination -> choice
    donor: str | None = None  # the identical earlier layer whose timings were reused
    combination: str | None = None  # the combination the engine runs
    combination_from: str | None = None  # how it was found (FROM_* above)
    chosen: TacticTiming | None = None  # the engine tactic's timing in that combination
    own_records: bool = True  # False: ``records`` are the donor's


def layer_tunings(log: BuildLog) -> list[LayerTuning]:
    """Per layer of the kept pass, in engine order, then autotuned layers that did not reach the
    engine (kept with the log: computed on first use)."""
    cached = log.__dict__.get("_tunings")
    if cached is None:
        cached = log.__dict__["_tunings"] = _tunings(log)
    return cached


def _tunings(log: BuildLog) -> list[LayerTuning]:
    chosen = log.chosen_pass
    by_layer: dict[str, list[TacticTiming]] = defaultdict(list)
    for t in log.tactics:
        if t.build_pass == chosen and not t.reformat:
            by_layer[t.layer].append(t)
    combos: dict[str, list[str]] = defaultdict(list)
    for p, layer, combo in log.combinations:
        if p == chosen and combo not in combos[layer]:
            combos[layer].append(combo)
    for layer, records in by_layer.items():  # 10.x cached results print no combination line
        for t in records:
            if t.combination and t.combination not in combos[layer]:
                combos[layer].append(t.combination)
    choices: dict[str, dict[str, RunnerChoice]] = defaultdict(dict)
    for c in log.choices:
        if c.build_pass == chosen:
            choices[c.layer][c.combination] = c
    donors = _silent_cache_donors(log, by_layer, combos)

    out: list[LayerTuning] = []
    seen: set[str] = set()
    for layer in log.engine_layers:
        seen.add(layer.name)
        tuning = LayerTuning(layer.name, layer.type, True, layer.tactic,
                             by_layer.get(layer.name, []), combos.get(layer.name, []),
                             choices.get(layer.name, {}))
        engine = _engine_layouts(layer, log)
        if not tuning.records and layer.tactic is not None:
            _inherit(tuning, donors.get(layer.name, []), by_layer, choices, engine)
        _choose(tuning, engine)
        out.append(tuning)
    for p, name in log.autotuned:
        if p != chosen or name in seen:
            continue
        seen.add(name)
        layer_choices = choices.get(name, {})
        tactic = None
        if not log.engine_layers and len(layer_choices) == 1:
            tactic = next(iter(layer_choices.values())).tactic
        tuning = LayerTuning(name, None, False if log.engine_layers else None, tactic,
                             by_layer.get(name, []), combos.get(name, []), layer_choices)
        _choose(tuning, None)
        out.append(tuning)
    return out


def _engine_layouts(layer: EngineLayer, log: BuildLog) -> tuple[list[Layout], list[Layout]]:
    """The formats of the layer's tensors: the ``--dumpLayerInfo`` prose where the log has it
    (it tells channel-major from planar), else the layer line (data type and vector width)."""
    prose = log.layer_formats.get(layer.name)
    lines = ([engine_tensor_layout(t.dtype, t.vector if t.vector_printed else None)
              for t in layer.inputs],
             [engine_tensor_layout(t.dtype, t.vector if t.vector_printed else None)
              for t in layer.outputs])
    if prose is None:
        return lines
    sides = []
    for texts, fallback in zip(prose, lines):
        side = [prose_layout(text) for text in texts]
        if len(side) == len(fallback):  # a bare data type in prose: the line may know the width
            side = [p if p.vector is not None else f for p, f in zip(side, fallback)]
        sides.append(side)
    return sides[0], sides[1]


def _silent_cache_donors(log: BuildLog, by_layer, combos) -> dict[str, list[str]]:
    """Layers autotuned without printed timings -> earlier layers with the same combinations,
    latest first.

    TensorRT reuses the timings of an identical earlier layer without printing them; identical
    format combinations (strides included) identify the layers whose timings may be reused."""
    seen: dict[tuple[str, ...], list[str]] = {}
    donors: dict[str, list[str]] = {}
    for p, name in log.autotuned:
        if p != log.chosen_pass:
            continue
        key = tuple(combos.get(name, []))
        if not key:
            continue
        if by_layer.get(name):
            seen.setdefault(key, []).insert(0, name)
        elif key in seen:
            donors[name] = list(seen[key])
    return donors


def _inherit(tuning: LayerTuning, candidates: list[str], by_layer, choices, engine) -> None:
    """Take the timings, combinations and runner choices of the identical earlier layer that
    timed the engine's tactic in the combination this layer runs (else anywhere)."""
    def timed(name: str, combination: str | None) -> bool:
        return any(t.tactic == tuning.tactic and (combination is None
                                                  or t.combination == combination)
                   for t in by_layer.get(name, []))

    runs = [c for c in tuning.combinations if formats_agree(engine, c)]
    donor = next((n for n in candidates if len(runs) == 1 and timed(n, runs[0])), None)
    donor = donor or next((n for n in candidates if timed(n, None)), None)
    if donor is None:
        return
    tuning.donor, tuning.own_records = donor, False
    tuning.records = by_layer.get(donor, [])
    tuning.choices = choices.get(donor, {})


def _choose(tuning: LayerTuning, engine: tuple[list[Layout], list[Layout]] | None) -> None:
    """Find the combination the engine runs and the engine tactic's timing in it."""
    tactic = tuning.tactic
    combos = list(tuning.combinations)
    for t in tuning.records:  # a donor's combinations, or records without a printed header
        if t.combination and t.combination not in combos:
            combos.append(t.combination)
    if tactic is None or not combos:
        return

    def chose(combination: str) -> bool:
        choice = tuning.choices.get(combination)
        return choice is not None and choice.tactic == tactic

    def timed(combination: str) -> bool:
        return any(t.tactic == tactic and t.combination == combination for t in tuning.records)

    verdicts = {c: formats_agree(engine, c) for c in combos} if engine is not None else {}
    known = [c for c, agree in verdicts.items() if agree is not None]
    if known:
        matching = [c for c in known if verdicts[c]]
        if len(matching) == 1:
            _settle(tuning, matching[0], FROM_FORMATS)
        elif not matching:
            tuning.combination_from = NOT_TUNED
        else:
            narrowed = [c for c in matching if chose(c)] or [c for c in matching if timed(c)]
            if len(narrowed) == 1:
                _settle(tuning, narrowed[0], FROM_FORMATS_AND_CHOICE)
            else:
                tuning.combination_from = AMBIGUOUS
        return
    picked = [c for c in combos if chose(c)] or [c for c in combos if timed(c)]
    if len(picked) == 1:
        _settle(tuning, picked[0], FROM_CHOICE)
    elif picked:
        tuning.combination_from = AMBIGUOUS


def _settle(tuning: LayerTuning, combination: str, how: str) -> None:
    tuning.combination, tuning.combination_from = combination, how
    timings = [t for t in tuning.records if t.combination == combination and t.tactic == tuning.tactic
               and t.status != "skipped" and math.isfinite(t.time_ms)]
    choice = tuning.choices.get(combination)
    runner = choice.runner if choice is not None and choice.tactic == tuning.tactic else None
    tuning.chosen = next((t for t in timings if t.runner == runner), timings[0] if timings else None)


def runner_of(tuning: LayerTuning) -> str | None:
    """The runner of the engine's tactic: its timing's, else the runner that chose it."""
    if tuning.chosen is not None:
        return tuning.chosen.runner
    if tuning.combination is not None:
        choice = tuning.choices.get(tuning.combination)
        if choice is not None and choice.tactic == tuning.tactic:
            return choice.runner
    return next((c.runner for c in tuning.choices.values() if c.tactic == tuning.tactic), None)
