"""The registry of linters and :func:`lint`, which runs them on a plan."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from ..model.plan import EnginePlan
from .base import Finding, Linter, findings_frame, severity_at_least
from .conv import ConvLinter
from .gemm import GemmAlignmentLinter, TensorCoreGemmLinter
from .hotspots import HotspotLinter, LaunchBoundLinter, ShapeCallLinter
from .myelin import MyelinLinter
from .precision import MathPrecisionLinter, PrecisionIslandLinter
from .quantization import QDQLinter
from .reformat import ReformatLinter, ReformatShareLinter, SliceLinter
from .transformer import TransformerLinter

LINTERS: dict[str, type[Linter]] = {cls.name: cls for cls in (
    ConvLinter, ReformatLinter, SliceLinter, QDQLinter,  # TREx's four
    GemmAlignmentLinter, TensorCoreGemmLinter, PrecisionIslandLinter, MathPrecisionLinter,
    ReformatShareLinter,
    HotspotLinter, LaunchBoundLinter, MyelinLinter, ShapeCallLinter, TransformerLinter,
)}


@dataclass
class LintReport:
    """Every finding of the linters that ran, and why some could not look (``notes``)."""

    plan_name: str
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def df(self) -> pd.DataFrame:
        """The findings as a DataFrame, one row each (:func:`findings_frame`)."""
        return findings_frame(self.findings)

    def worst(self) -> str | None:
        """The highest severity found, or None."""
        severities = [f.severity for f in self.findings]
        for level in ("error", "warning", "info"):
            if level in severities:
                return level
        return None

    def fails(self, threshold: str) -> bool:
        """True if some finding is at ``threshold`` severity or above."""
        return any(severity_at_least(f.severity, threshold) for f in self.findings)

    def counts(self) -> dict[str, int]:
        """Number of findings per linter."""
        out: dict[str, int] = {}
        for f in self.findings:
            out[f.linter] = out.get(f.linter, 0) + 1
        return out


def _select(linters: list[str] | None) -> list[type[Linter]]:
    if not linters:
        return list(LINTERS.values())
    unknown = [name for name in linters if name not in LINTERS]
    if unknown:
        raise ValueError(f"unknown linter(s) {', '.join(unknown)}; known: {', '.join(LINTERS)}")
    return [LINTERS[name] for name in linters]


def lint_report(plan: EnginePlan, linters: list[str] | None = None) -> LintReport:
    """Run the named linters (default: all) and collect their findings and notes."""
    selected = _select(linters)
    report = LintReport(plan.name)
    for cls in selected:
        linter = cls(plan)
        try:
            report.findings.extend(linter.findings())
        except (ArithmeticError, IndexError, KeyError, TypeError, ValueError) as exc:
            # One linter tripping over odd input must not hide the others' findings.
            report.notes.append(f"{cls.name}: failed on this plan ({type(exc).__name__}: {exc})")
            continue
        if linter.note:
            report.notes.append(linter.note)
    report.findings = _merge_same_cause(report.findings)
    return report


# Findings that two linters make about one layer and one cause: the first linter's finding is
# kept, with the second named in its ``also`` column (a Q/DQ reformat is both a data-type
# conversion and an unfused Quantize/Dequantize).
SAME_CAUSE = (("qdq", "reformat"),)


def _merge_same_cause(findings: list[Finding]) -> list[Finding]:
    for keep, drop in SAME_CAUSE:
        kept = {f.layer: f for f in findings if f.linter == keep}
        if not kept:
            continue
        merged = []
        for f in findings:
            if f.linter == drop and f.layer in kept:
                kept[f.layer].extra["also"] = drop
                continue
            merged.append(f)
        findings = merged
    return findings


def lint(plan: EnginePlan, linters: list[str] | None = None) -> pd.DataFrame:
    """All findings as one DataFrame (``df.attrs["notes"]`` says which linters could not look)."""
    report = lint_report(plan, linters)
    df = report.df
    df.attrs["notes"] = list(report.notes)
    return df
