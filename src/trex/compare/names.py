"""What layer names say about pairing layers of two builds of one network.

Names change between builds: Q/DQ exports add quantisation affixes (TensorFlow's QAT wraps layers
as ``quant_conv2d``, ONNX Runtime's quantiser names nodes ``conv1_quant``), Q/DQ nodes and weight
constants fuse into the layers (``conv1.weight + QuantizeLinear_7 + Conv_9``), ONNX exports
renumber auto-named nodes (``Conv_84``). What survives: the stable parts of a fused name, once
their quantisation affixes are taken away. Two fused names that share a part but each hold another
part of the same kind (each its own ``Conv``, each its own ``.weight``) are different layers that a
fused Add/ReLU happens to join: a contradiction, not evidence.
"""

from __future__ import annotations

import re

__all__ = ["name_parts", "names_conflict", "unquantised"]

_AUTO_PART = re.compile(r"^(?:[A-Za-z]\w*_\d+|PWN\(.*|\(Unnamed Layer\*.*)$")
# "quant_" / "quantized_" opening a name or a path component, "_quant" / "_quantized" closing one.
_QUANT_AFFIX = re.compile(r"(?i)(?:^|(?<=[/.:\s(\[]))quant(?:i[sz]ed)?_"
                          r"|_quant(?:i[sz]ed)?(?=$|[/.:\s)\]])")
_DIGITS = re.compile(r"\d+")


def unquantised(name: str) -> str:
    """The name without quantisation prefixes and suffixes: ``quant_conv1`` and ``conv1_quant``
    are ``conv1``; ``QuantizeLinear_7`` and ``_input_quantizer`` stay as they are."""
    return _QUANT_AFFIX.sub("", name)


def name_parts(name: str) -> tuple[str, ...]:
    """Parts of a fused name that survive re-export (``layer2.0.conv2.weight``), without their
    quantisation affixes; not auto-numbered nodes (``Conv_84``), ``PWN(...)``, unnamed layers or
    reformats."""
    if name.startswith("Reformatting CopyNode"):
        return ()
    parts = (unquantised(part.strip()) for part in name.split(" + "))
    return tuple(p for p in parts if p and not _AUTO_PART.match(p))


def _kind(part: str) -> str:
    """The kind of node a part names, without numbers and block indices: its last path component,
    else the last word of a dotted name (``/layer1/layer1.0/conv2/Conv`` -> conv,
    ``layer2.0.conv2.weight`` -> weight, ``conv2_block1_0_conv`` -> conv_block_conv)."""
    last = part.rsplit("/", 1)[-1]
    words = [w for w in last.split(".") if not w.isdigit()] or [last]
    return _DIGITS.sub("", words[-1]).replace("__", "_").strip("_").lower()


def names_conflict(parts_a: tuple[str, ...] | list[str], parts_b: tuple[str, ...] | list[str]
                   ) -> bool:
    """True when the two layers share a part (a fused ``Add``/``ReLU``, an ONNX node) while each
    holds a part of one kind that the other lacks (``conv2/Conv`` and ``conv1/Conv``): two
    different layers joined by a fragment."""
    a, b = set(parts_a), set(parts_b)
    if not a & b:
        return False
    return bool({_kind(p) for p in a - b} & {_kind(p) for p in b - a})
