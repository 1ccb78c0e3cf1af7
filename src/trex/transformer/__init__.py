"""Transformer engines: attention, RoPE and KV-cache layers found and grouped into blocks, decode
judged against memory bandwidth, and stages (prefill, decode) side by side.

:func:`transformer_view` finds the blocks (:mod:`.view`), :func:`step_traffic` the bytes a step
moves and the bandwidth achieved (:mod:`.bandwidth`), and :mod:`.stages` the tables the CLI and
the report show. The ``transformer`` linter (:mod:`trex.lint.transformer`) reads the same view.
"""

from __future__ import annotations

from .bandwidth import StepTraffic, rate_text, size_text, step_traffic
from .layer_roles import ROLES, LayerRole, layer_role
from .stages import (
    BLOCK_COLUMNS,
    FAMILIES,
    blocks_frame,
    family_latency,
    family_table,
    has_transformer,
    layer_families,
    stage_gap,
    stage_shape,
    stage_table,
    view_text,
)
from .view import AttentionSite, Block, Chain, TransformerView, transformer_view

__all__ = [
    "BLOCK_COLUMNS", "FAMILIES", "ROLES", "AttentionSite", "Block", "Chain", "LayerRole",
    "StepTraffic", "TransformerView", "blocks_frame", "family_latency", "family_table",
    "has_transformer", "layer_families", "layer_role", "rate_text", "size_text", "stage_gap",
    "stage_shape", "stage_table", "step_traffic", "transformer_view", "view_text",
]
