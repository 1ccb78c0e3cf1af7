"""Tensor layouts in autotuning's notation and in an engine's layer information, made comparable.

Autotuning names a format combination by strides: ``Half(1568,1:8,112,8) -> Half(392,1:8,56,8)``
(per tensor the data type, then one stride per dimension, in vectors; ``1:8`` marks the channel
axis vectorised by 8). The engine describes the same tensors as ``Half[-1,64:8,14,14]``
(``Engine Layer Information`` lines of 8.6+ verbose builds: the vector width only),
``Half(1,64,14,14)`` (8.2/8.5 lines: no vector width) or in prose (``--dumpLayerInfo`` or the
layer JSON: "Channel major FP16 format where channel % 8 == 0", read by
:func:`~trex.formats.tensor_format.parse_format`). A :class:`Layout` keeps what each of them
says, and ``None`` where it says nothing, so that the engine's formats pick the combination the
engine runs without ever guessing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .tensor_format import parse_format

__all__ = ["Layout", "combination_layouts", "combination_signature", "engine_tensor_layout",
           "formats_agree", "prose_layout"]

# As in build_log: a match starts at the start of a word and strides stop at a parenthesis
# (each character is scanned a bounded number of times on hostile lines).
_COMBO_TENSOR = re.compile(r"(?<![A-Za-z0-9])[0-9]*(?P<dtype>[A-Za-z][A-Za-z0-9]*)"
                           r"\((?P<strides>[^()]*)\)")


@dataclass(frozen=True)
class Layout:
    """What is known of one tensor's format: ``None`` where the source does not say."""

    precision: str  # FP32, FP16, INT8, ... as parse_format names them ("Unknown" if unreadable)
    vector: int | None = None  # channel vector width (1: not vectorised)
    channel_last: bool | None = None  # channels innermost (HWC, HWC8, ...) or planar (CHW, CHW32)

    def agrees(self, other: Layout) -> bool:
        """Same data type, and the same vector width and channel order wherever both are known."""
        return (self.precision == other.precision
                and (self.vector is None or other.vector is None or self.vector == other.vector)
                and (self.channel_last is None or other.channel_last is None
                     or self.channel_last == other.channel_last))


Side = tuple[Layout, ...]


def _precision(dtype: str) -> str:
    return parse_format(dtype).precision


def _int(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None


def _stride_layout(dtype: str, strides: str) -> Layout:
    """One tensor of autotuning's notation: ``Int8(12544,12544:32,112,1)``.

    The vectorised axis is the channel axis (else axis 1 of a tensor of rank 4 or more). Channels
    are innermost when their stride is 1 while the innermost spatial stride is not; planar when
    their stride is larger than 1; where both readings give the same memory (one channel vector,
    a 1x1 image) the order stays unknown."""
    parts = strides.split(",")
    values: list[int | None] = []
    vector, axis = 1, None
    for i, part in enumerate(parts):
        stride, colon, width = part.partition(":")
        values.append(_int(stride))
        if colon:
            vector, axis = _int(width) or 1, i
    if axis is None and len(values) >= 4:
        axis = 1
    channel_last: bool | None = None
    if axis is not None and axis < len(values) - 1:
        channel, inner = values[axis], values[-1]
        if channel is not None and channel > 1:
            channel_last = False
        elif channel == 1 and inner is not None and inner > 1:
            channel_last = True
    return Layout(_precision(dtype), vector, channel_last)


@lru_cache(maxsize=8192)
def combination_layouts(combination: str) -> tuple[Side, Side]:
    """``Int8(1,2:32,3,4) -> Half(9,1:8,2,3)`` -> (input layouts, output layouts)."""
    left, _, right = combination.partition(" -> ")
    return (tuple(_stride_layout(m["dtype"], m["strides"]) for m in _COMBO_TENSOR.finditer(left)),
            tuple(_stride_layout(m["dtype"], m["strides"]) for m in _COMBO_TENSOR.finditer(right)))


def combination_signature(combination: str) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """``Int8(1,2:32,3,4) -> Float(...)`` -> ([("Int8", 32)], [("Float", 1)]): the data type as
    written and the vector width of each tensor."""
    left, _, right = combination.partition(" -> ")

    def side(text: str) -> list[tuple[str, int]]:
        out = []
        for match in _COMBO_TENSOR.finditer(text):
            vector = 1
            for stride in match["strides"].split(","):
                if ":" in stride:
                    vector = _int(stride.split(":", 1)[1]) or 1
            out.append((match["dtype"], vector))
        return out

    return side(left), side(right)


def engine_tensor_layout(dtype: str, vector: int | None) -> Layout:
    """A tensor of an ``Engine Layer Information`` line (``vector`` None: the line omits it)."""
    return Layout(_precision(dtype), vector, None)


def prose_layout(text: str) -> Layout:
    """A ``Format/Datatype`` of layer information: the prose names the layout; a bare data type
    (``Half``, printed when no execution context was attached) says nothing of it."""
    fmt = parse_format(text)
    if not fmt.layout:
        return Layout(fmt.precision)
    return Layout(fmt.precision, fmt.vector, fmt.layout.startswith(("NHWC", "NDHWC")))


def formats_agree(engine: tuple[Sequence[Layout], Sequence[Layout]],
                  combination: str) -> bool | None:
    """Does ``combination`` have the engine's formats? None when no side can be compared (the
    tensor counts differ, or the engine lists no tensors)."""
    compared = False
    for have, want in zip(combination_layouts(combination), engine):
        if not want or len(have) != len(want):
            continue
        compared = True
        if not all(w.agrees(h) for h, w in zip(have, want)):
            return False
    return True if compared else None
