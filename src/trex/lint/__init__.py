"""Linters: hazards in an engine plan, each finding with its evidence and a mitigation.

TREx's ``ConvLinter``, ``ReformatLinter``, ``SliceLinter`` and ``QDQLinter`` keep their names and
``lint()`` methods; :func:`lint` runs every registered linter.
"""

from __future__ import annotations

from .base import ENGINE, SEVERITIES, Finding, Linter, findings_frame, severity_at_least
from .conv import ConvLinter
from .gemm import GemmAlignmentLinter, TensorCoreGemmLinter
from .hotspots import HotspotLinter, LaunchBoundLinter, ShapeCallLinter
from .myelin import MyelinLinter
from .precision import MathPrecisionLinter, PrecisionIslandLinter
from .quantization import QDQLinter
from .reformat import ReformatLinter, ReformatShareLinter, SliceLinter
from .registry import LINTERS, LintReport, lint, lint_report
from .transformer import TransformerLinter

__all__ = [
    "ENGINE",
    "LINTERS",
    "SEVERITIES",
    "ConvLinter",
    "Finding",
    "GemmAlignmentLinter",
    "HotspotLinter",
    "LaunchBoundLinter",
    "LintReport",
    "Linter",
    "MathPrecisionLinter",
    "MyelinLinter",
    "PrecisionIslandLinter",
    "QDQLinter",
    "ReformatLinter",
    "ReformatShareLinter",
    "ShapeCallLinter",
    "SliceLinter",
    "TensorCoreGemmLinter",
    "TransformerLinter",
    "findings_frame",
    "lint",
    "lint_report",
    "severity_at_least",
]
