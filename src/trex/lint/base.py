"""Findings and the base class of every linter."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ..kernels import KernelInfo, classify_tactic
from ..model.layer import Layer
from ..model.plan import EnginePlan
from .rows import LintRows, lint_rows

SEVERITIES = ("info", "warning", "error")
ENGINE = "(engine)"  # the layer of findings about the whole engine
FINDING_COLUMNS = ["layer", "linter", "severity", "hazard", "evidence", "mitigation", "help"]
FLOAT_RANK = {"FP32": 2, "TF32": 2, "FP16": 1, "BF16": 1, "INT8": 0, "UINT8": 0, "FP8": 0, "INT4": 0,
              "FP4": 0, "UINT4": 0}


@dataclass
class Finding:
    """One hazard found in one layer (or in the whole engine when ``layer`` is ``(engine)``)."""

    layer: str
    linter: str
    severity: str
    hazard: str
    evidence: dict[str, Any]
    mitigation: str = ""
    help: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # linter-specific columns (TREx's included)

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"severity must be one of {SEVERITIES}, not {self.severity!r}")

    def as_dict(self) -> dict[str, Any]:
        """The finding as one row: the common columns, then the linter's own."""
        return {"layer": self.layer, "linter": self.linter, "severity": self.severity,
                "hazard": self.hazard, "evidence": self.evidence, "mitigation": self.mitigation,
                "help": self.help, **self.extra}


def findings_frame(findings: list[Finding]) -> pd.DataFrame:
    """Findings as a DataFrame with the common columns first (every finding is one row)."""
    if not findings:
        return pd.DataFrame(columns=FINDING_COLUMNS)
    extra = list(dict.fromkeys(key for f in findings for key in f.extra))  # first-seen order
    if any(key in FINDING_COLUMNS for key in extra):  # an extra column replaces a common one
        df = pd.DataFrame([f.as_dict() for f in findings])
        return df[FINDING_COLUMNS + [c for c in df.columns if c not in FINDING_COLUMNS]]
    # Rows as lists, absent extras NaN: what pandas makes of the findings as dicts, without
    # building a dict per finding
    nan = math.nan
    rows = [[f.layer, f.linter, f.severity, f.hazard, f.evidence, f.mitigation, f.help,
             *[f.extra.get(key, nan) for key in extra]] if f.extra else
            [f.layer, f.linter, f.severity, f.hazard, f.evidence, f.mitigation, f.help,
             *[nan] * len(extra)] for f in findings]
    return pd.DataFrame(rows, columns=FINDING_COLUMNS + extra)


def severity_at_least(severity: str, threshold: str) -> bool:
    """True if ``severity`` is ``threshold`` or worse."""
    return SEVERITIES.index(severity) >= SEVERITIES.index(threshold)


def by_share(pct: float, warning: float, error: float | None = None) -> str:
    """Severity by a latency share in percent."""
    if error is not None and pct >= error:
        return "error"
    return "warning" if pct >= warning else "info"


def r(value: float, digits: int = 4) -> float:
    """A float rounded for evidence (NaN stays NaN)."""
    return value if math.isnan(value) else round(float(value), digits)


class Linter:
    """Base class: ``findings()`` lists Findings, ``lint()`` returns them as a DataFrame.

    Without the details (or profile) it needs, a linter finds nothing and says why in ``note``."""

    name: ClassVar[str] = "linter"
    description: ClassVar[str] = ""
    needs_details: ClassVar[bool] = True
    needs_profile: ClassVar[bool] = False

    def __init__(self, plan: EnginePlan):
        self.plan = plan
        self.note: str | None = None

    # ------------------------------------------------------------------ API
    def findings(self) -> list[Finding]:
        """Every finding of this linter (never de-duplicated by layer)."""
        if self.needs_details and not self.plan.detailed:
            self.note = (f"{self.name}: needs detailed layer information "
                         "(build with --profilingVerbosity=detailed); no findings")
            return []
        if self.needs_profile and not self.timed:
            self.note = f"{self.name}: needs a per-layer profile (--exportProfile); no findings"
            return []
        return list(self.check())

    def lint(self) -> pd.DataFrame:
        """The findings as a DataFrame (TREx's method name)."""
        return findings_frame(self.findings())

    def check(self) -> list[Finding]:  # pragma: no cover - abstract
        """The linter's findings on a plan that has what it needs (subclasses implement it)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ helpers
    def kernel(self, layer: Layer) -> KernelInfo:
        """What the layer's tactic name (or its LayerType) says about its kernel."""
        return classify_tactic(layer.tactic_name, layer.subtype)

    def finding(self, layer: str, severity: str, hazard: str, evidence: dict[str, Any],
                mitigation: str = "", help: str = "", **extra: Any) -> Finding:
        """A :class:`Finding` of this linter (``extra`` become its own columns)."""
        return Finding(layer, self.name, severity, hazard, evidence, mitigation, help, extra)

    @cached_property
    def facts(self) -> LintRows:
        """The plan's per-layer facts, from its layer table (:mod:`trex.lint.rows`)."""
        return lint_rows(self.plan)

    def kernel_at(self, k: int) -> KernelInfo:
        """:meth:`kernel` of layer k (``plan.layers[k]``)."""
        facts = self.facts
        return classify_tactic(facts.tactic_names[k], facts.subtypes[k])

    def converts_engine_io_at(self, k: int) -> bool:
        """:meth:`converts_engine_io` of layer k (``plan.layers[k]``)."""
        return self.facts.converts_engine_io[k]

    @cached_property
    def engine_io(self) -> tuple[set[str], set[str]]:
        """(engine input tensor names, engine output tensor names) as the layers see them."""
        return self.facts.engine_io

    def converts_engine_io(self, layer: Layer) -> bool:
        """True for a layer that reads an engine input or writes an engine output: a conversion
        the engine's I/O formats make necessary (``--inputIOFormats``/``--outputIOFormats``)."""
        inputs, outputs = self.engine_io
        return any(t.name in inputs for t in layer.inputs[:1]) or \
            any(t.name in outputs for t in layer.outputs)

    @cached_property
    def latencies(self) -> np.ndarray:
        """Average latency (ms) of each layer of ``plan.layers`` (NaN when unprofiled)."""
        return self.facts.latencies

    @property
    def total_ms(self) -> float:
        """Summed average latency of the plan's layers in ms (0 without a profile)."""
        return self.facts.total_ms

    @property
    def timed(self) -> bool:
        """True if the plan has a per-layer profile with some time in it."""
        return self.total_ms > 0

    def share(self, ms: float) -> float:
        """``ms`` as a percentage of the engine's summed layer latency (NaN without a profile)."""
        return self.facts.share(ms)

    def layer_timing(self, index: int) -> dict[str, float]:
        """Latency evidence of one layer: ``latency_ms`` and ``latency_pct`` when profiled."""
        return dict(self.facts.timing(index))  # made once per plan



def rank(precision: str | None) -> int | None:
    """0 for 8-bit and narrower, 1 for 16-bit floats, 2 for FP32; None for other types."""
    return FLOAT_RANK.get(precision or "")


def producers(layers: list[Layer]) -> dict[str, int]:
    """Tensor name -> index of the layer that writes it."""
    out: dict[str, int] = {}
    for i, layer in enumerate(layers):
        for t in layer.outputs:
            out.setdefault(t.name, i)
    return out


def consumers(layers: list[Layer]) -> dict[str, list[int]]:
    """Tensor name -> indices of the layers that read it."""
    out: dict[str, list[int]] = {}
    for i, layer in enumerate(layers):
        for t in layer.inputs:
            out.setdefault(t.name, []).append(i)
    return out
