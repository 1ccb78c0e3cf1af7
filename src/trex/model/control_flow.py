"""TensorRT's loop and conditional layers, and which of their inputs are a loop's back-edges.

A loop (``ILoop``) is built from Recurrence, Iterator, TripLimit and LoopOutput layers; a
conditional (``IIfConditional``) from Condition, ConditionalInput and ConditionalOutput layers.
A Recurrence layer reads the value its loop body computes for the next iteration: that tensor is
written by a layer that runs after it, so the edge goes backwards and is expected, not a cycle.
"""

from __future__ import annotations

from functools import lru_cache

LOOP_TYPES = frozenset({"recurrence", "iterator", "triplimit", "loopoutput"})
CONDITIONAL_TYPES = frozenset({"condition", "conditionalinput", "conditionaloutput"})


def normalized_type(layer_type: object) -> str:
    """``Recurrence``, ``kRECURRENCE``, ``RECURRENCE`` -> ``recurrence``; ``kTRIP_LIMIT`` -> ``triplimit``."""
    return _normalized(str(layer_type or ""))


@lru_cache(maxsize=1024)  # a plan has a few layer types, asked for once per layer
def _normalized(text: str) -> str:
    if len(text) > 1 and text[0] == "k" and text[1].isupper():
        text = text[1:]
    return text.replace("_", "").replace(" ", "").lower()


def is_recurrence(layer_type: object) -> bool:
    """True for a loop's Recurrence layer (the one layer type that reads from a later layer)."""
    return normalized_type(layer_type) == "recurrence"


def control_flow_kind(layer_type: object) -> str | None:
    """``"loop"``, ``"conditional"`` or None for other layer types."""
    kind = normalized_type(layer_type)
    if kind in LOOP_TYPES:
        return "loop"
    if kind in CONDITIONAL_TYPES:
        return "conditional"
    return None


def is_back_edge(consumer_type: object, producer_index: int, consumer_index: int) -> bool:
    """True for an edge into a Recurrence layer from a layer that runs after it."""
    return producer_index > consumer_index and is_recurrence(consumer_type)
