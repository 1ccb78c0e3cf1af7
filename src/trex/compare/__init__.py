"""Compare engines: layer alignment, side-by-side tables, figures and a regression gate.

TREx's ``compare_engines`` API (``get_plans_names``, ``match_layers``, ``aligned_merge_plans``,
``aligned_layers``, ``compare_engines_summaries_tbl``, ``compare_engines_overview``,
``compare_engines_layer_latencies``, ``compare_engines_layer_details``) plus N-way views.
Figures need plotly (``trex[plot]``), imported only when a figure is built.
"""

from __future__ import annotations

from ..model.facts import engine_facts, has_onnx_metadata, precision_mix
from .align import (
    MATCH_KINDS,
    align_layers,
    align_plans,
    engine_letter,
    get_plans_names,
    link_counts,
    match_counts,
    match_layers,
)
from .gate import METRICS, RegressionCheck, check_regression
from .mismatch import engine_mismatches
from .onnx_ops import ONNX_MATCH_KINDS, compare_onnx_op_types, compare_onnx_ops, onnx_graphs
from .plots import (
    aligned_latencies_figure,
    compare_engines_layer_latencies,
    compare_engines_overview,
)
from .views import (
    aligned_layers,
    aligned_merge_plans,
    compare_by_precision,
    compare_by_type,
    compare_engines_layer_details,
    compare_engines_summaries_tbl,
    compare_layers,
    compare_onnx_nodes,
    layer_regressions,
    summary_table,
)

__all__ = [
    "MATCH_KINDS",
    "METRICS",
    "ONNX_MATCH_KINDS",
    "RegressionCheck",
    "align_layers",
    "align_plans",
    "aligned_latencies_figure",
    "aligned_layers",
    "aligned_merge_plans",
    "check_regression",
    "compare_by_precision",
    "compare_by_type",
    "compare_engines_layer_details",
    "compare_engines_layer_latencies",
    "compare_engines_overview",
    "compare_engines_summaries_tbl",
    "compare_layers",
    "compare_onnx_nodes",
    "compare_onnx_op_types",
    "compare_onnx_ops",
    "engine_facts",
    "engine_letter",
    "engine_mismatches",
    "get_plans_names",
    "has_onnx_metadata",
    "layer_regressions",
    "link_counts",
    "match_counts",
    "match_layers",
    "onnx_graphs",
    "precision_mix",
    "summary_table",
]
