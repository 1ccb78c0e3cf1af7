"""The text form of layer information that logs print (``--dumpLayerInfo``, the inspector).

Detailed engines print one line per layer, ``Name: X, LayerType: Y, Inputs: [ { Name: t,
Dimensions: [1,3], ... }], Outputs: [...], Key: value, ...``, after a ``Layers:`` header;
names-only engines print bare layer names, one per line, up to a blank line. ``Bindings:`` and one
name per line follow. Values are bare text, ``[...]`` lists or JSON ``{...}`` objects. The block
may repeat (one per profile or execution context): the first one is kept.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .logtext import strip_log_prefix
from .records import LayerInfo

_KEY_RE = re.compile(r"([A-Za-z][A-Za-z0-9_/()]*): ?")
# A bare value ends where the next "key:" starts, or where the enclosing tensor object closes.
# ``\s*}`` starts only where a run of spaces (or the brace) does: linear on long runs of spaces.
_BARE_END_RE = re.compile(r", (?=[A-Za-z][A-Za-z0-9_/()]*:(?: |$))|(?<!\s)\s*\}(?=\s*(?:\]|,\s*\{))")
_VALUE_END_RE = re.compile(r"\s*(?:,|\}|$)")
MAX_BRACKET_FAILURES = 4
_BRACKET_CHARS = re.compile(r'[\[\]{}"\\]')
_NEXT_KEY_RE = re.compile(r", (?=[A-Za-z][A-Za-z0-9_/()]*:(?: |$))")
_LAYER_LINE_RE = re.compile(r"^Name: .*, LayerType: ")
_LAYERS_RE = re.compile(r"(?:\[[^\]]*\] ?)*Layers:[ \t]*$")
_BINDINGS_RE = re.compile(r"(?:\[[^\]]*\] ?)*Bindings:")


@dataclass
class LayerDump:
    """The first layer block of a text dump: raw layers (dicts, or bare names) and bindings."""

    layers: list[Any] = field(default_factory=list)
    bindings: list[str] = field(default_factory=list)
    detailed: bool = True
    blocks: int = 0


def looks_like_layer_dump(text: str) -> bool:
    """True if the text holds a layer block: one-line layer descriptions or a names-only list."""
    parser = LayerDumpParser()
    for line in text.split("\n"):
        parser.feed(line)
    return parser.seen


def parse_layer_dump(text: str) -> LayerDump:
    """The first layer block of the text (see the module doc); ``blocks`` counts them all."""
    parser = LayerDumpParser()
    for line in text.split("\n"):
        parser.feed(line)
    return parser.finish()


class LayerDumpParser:
    """Layer blocks read one line at a time: ``feed`` each line, then ``finish``; ``seen`` says
    whether the text holds one (a one-line layer description, or ``Layers:``, names, a blank
    line and ``Bindings:``)."""

    def __init__(self) -> None:
        self.blocks: list[LayerDump] = []
        self.block: LayerDump | None = None
        self.state = ""  # "names" (after Layers:), "bindings" (after Bindings:) or ""
        self.seen = False
        self._names = -1  # lines of a names list since "Layers:" (-1: none open)
        self._gap = False  # the last line was blank: "Bindings:" may close the list
        self._closed = False  # the last line was empty: the list ends unless "Bindings:" comes

    def feed(self, raw_line: str) -> None:
        """Read one line of the log (its log prefix is stripped here)."""
        line = strip_log_prefix(raw_line)
        if not self.seen:
            self._sniff(raw_line)
        stripped = line.strip()
        block = self.block
        if stripped == "Layers:":
            self.block = LayerDump(detailed=False)
            self.blocks.append(self.block)
            self.state = "names"
            return
        if _LAYER_LINE_RE.match(line):
            self.seen = True
            if block is None or self.state == "bindings" or (block.layers and not block.detailed):
                block = self.block = LayerDump()
                self.blocks.append(block)
            block.detailed = True
            layer = parse_layer_line(line)
            if layer is not None:
                block.layers.append(layer)
            self.state = "names"
            return
        if stripped == "Bindings:":
            if block is None or block.bindings:
                block = self.block = LayerDump()
                self.blocks.append(block)
            block.bindings = []
            self.state = "bindings"
            return
        if self.state == "names" and block is not None and not block.detailed:
            if stripped:
                block.layers.append(stripped)
            else:
                self.state = ""
        elif self.state == "bindings" and block is not None:
            if not stripped or ": " in stripped or stripped.endswith(":"):
                self.state = ""
            else:
                block.bindings.append(stripped)

    def _sniff(self, line: str) -> None:
        """A names-only block: ``Layers:``, one or more non-empty lines, a blank one (spaces or
        tabs at most), then ``Bindings:`` (each may carry ``[...]`` log prefixes). The earliest
        open list is followed: a later one cannot match where it does not."""
        if self._gap and _BINDINGS_RE.match(line):
            self.seen = True
            return
        if self._closed:  # an empty line that was not followed by "Bindings:" ended the list
            self._names, self._closed, self._gap = -1, False, False
        if self._names < 0:
            if _LAYERS_RE.match(line):
                self._names, self._gap = 0, False
            return
        if not line:
            self._gap, self._closed = self._names >= 1, True
            return
        self._gap = self._names >= 1 and not line.strip(" \t")
        self._names += 1

    def finish(self) -> LayerDump:
        """The first block that lists layers (its bindings, if printed after it, from the next)."""
        blocks = self.blocks
        found = [b for b in blocks if b.layers]
        if not found:
            return LayerDump(bindings=blocks[-1].bindings if blocks else [], detailed=False)
        first = found[0]
        if not first.bindings:  # "Bindings:" printed after the layer block that it belongs to
            later = [b.bindings for b in blocks[blocks.index(first) + 1:] if b.bindings]
            first.bindings = later[0] if later else []
        first.blocks = len(found)
        return first


def dump_layer_info(text: str, source: str = "") -> LayerInfo:
    """Layer information from the first layer block of a log's text (see the module doc)."""
    return dump_info(parse_layer_dump(text), source)


def dump_info(dump: LayerDump, source: str = "") -> LayerInfo:
    """Layer information from a parsed layer block."""
    from .layer_info import names_only, normalise

    if dump.detailed:
        info = normalise(dump.layers, dump.bindings, source=source)
    else:
        info = names_only(dump.layers, dump.bindings, source=source)
    if dump.blocks > 1:
        info.warnings.append(f"{source}: the log lists the layers {dump.blocks} times (one block "
                             "per profile or execution context); the first block is used")
    return info


def parse_layer_line(line: str) -> dict[str, Any] | None:
    """Parse one ``Name: ..., LayerType: ...`` line into a raw layer dict (None if malformed)."""
    try:
        fields, _ = _parse_fields(line, 0, closing=None, budget=[MAX_BRACKET_FAILURES])
    except (ValueError, IndexError, RecursionError):  # RecursionError: nested "Inputs: [ {"
        return None
    if "Name" not in fields or "LayerType" not in fields:
        return None
    for key in ("Inputs", "Outputs"):
        if not isinstance(fields.get(key), list):
            fields[key] = []
    return fields


def _parse_fields(text: str, pos: int, closing: str | None, budget: list[int]
                  ) -> tuple[dict[str, Any], int]:
    fields: dict[str, Any] = {}
    n = len(text)
    while pos < n:
        while pos < n and text[pos] in " ,":
            pos += 1
        if closing and pos < n and text[pos] == closing:
            return fields, pos + 1
        match = _KEY_RE.match(text, pos)
        if not match:
            raise ValueError(f"expected a key at {pos}")
        key, pos = match.group(1), match.end()
        if key in ("Inputs", "Outputs") and text.startswith("[", pos):
            value, pos = _parse_tensor_list(text, pos, budget)
        elif (bracketed := _bracketed_value(text, pos, budget)) is not None:
            value, pos = bracketed
        else:
            end_match = (_BARE_END_RE if closing else _NEXT_KEY_RE).search(text, pos)
            end = end_match.start() if end_match else n
            value = _scalar(text[pos:end].strip())
            pos = end
        fields[key] = value
    return fields, pos


def _parse_tensor_list(text: str, pos: int, budget: list[int]) -> tuple[list[dict[str, Any]], int]:
    tensors: list[dict[str, Any]] = []
    pos += 1  # '['
    n = len(text)
    while pos < n:
        while pos < n and text[pos] in " ,":
            pos += 1
        if pos < n and text[pos] == "]":
            return tensors, pos + 1
        if text[pos] != "{":
            raise ValueError("expected a tensor")
        tensor, pos = _parse_fields(text, pos + 1, closing="}", budget=budget)
        tensors.append(tensor)
    raise ValueError("unterminated tensor list")


def _bracketed_value(text: str, pos: int, budget: list[int]) -> tuple[Any, int] | None:
    """A ``[...]``/``{...}`` JSON value that ends the field, or None to read it as bare text.

    A failed attempt may scan to the end of the line, so a line gets ``MAX_BRACKET_FAILURES`` of
    them; later bracketed values are read as bare text (bounded time on hostile lines)."""
    if not text.startswith(("[", "{"), pos) or budget[0] <= 0:
        return None
    try:
        end = _matching_bracket(text, pos)
        value = json.loads(text[pos : end + 1], strict=False)
    except (ValueError, IndexError, RecursionError):
        budget[0] -= 1
        return None
    if not _VALUE_END_RE.match(text, end + 1):
        budget[0] -= 1
        return None
    return value, end + 1


def _matching_bracket(text: str, pos: int) -> int:
    """Index of the bracket closing ``text[pos]`` (strings and their escapes skipped); only the
    bracket, quote and backslash characters are visited."""
    pairs = {"[": "]", "{": "}"}
    stack = [pairs[text[pos]]]
    in_string = False
    skip_to = -1
    for match in _BRACKET_CHARS.finditer(text, pos + 1):
        i = match.start()
        if i < skip_to:
            continue
        ch = text[i]
        if in_string:
            if ch == "\\":
                skip_to = i + 2
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in pairs:
            stack.append(pairs[ch])
        elif ch == stack[-1]:
            stack.pop()
            if not stack:
                return i
    raise ValueError("unbalanced brackets")


def _scalar(value: str) -> Any:
    if len(value) <= 40 and re.fullmatch(r"-?\d+", value):  # longer: not a count, keep the text
        return int(value)
    return value
