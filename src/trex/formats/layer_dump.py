"""The one-line text form of layer information that logs print (``--dumpLayerInfo``, inspector).

Each layer is one line ``Name: X, LayerType: Y, Inputs: [ { Name: t, Dimensions: [1,3], ... }],
Outputs: [...], Key: value, ...`` after a ``Layers:`` header; ``Bindings:`` and one name per line
follow. Values are bare text, ``[...]`` lists or JSON ``{...}`` objects.
"""

from __future__ import annotations

import json
import re
from typing import Any

_PREFIX_RE = re.compile(r"^(?:\[[^\]]*\]\s*)*(?:\[[IWEV]\]\s*)?(?:\[TRT\]\s*)?")
_KEY_RE = re.compile(r"([A-Za-z][A-Za-z0-9_/()]*): ?")
# A bare value ends where the next "key:" starts, or where the enclosing tensor object closes.
_BARE_END_RE = re.compile(r", (?=[A-Za-z][A-Za-z0-9_/()]*:(?: |$))|\s*\}(?=\s*(?:\]|,\s*\{))")
_NEXT_KEY_RE = re.compile(r", (?=[A-Za-z][A-Za-z0-9_/()]*:(?: |$))")
_LAYER_LINE_RE = re.compile(r"^Name: .*, LayerType: ")


def strip_log_prefix(line: str) -> str:
    """Remove a trtexec ``[date] [I] [TRT]`` prefix from a log line."""
    return _PREFIX_RE.sub("", line.rstrip("\r\n"), count=1)


def looks_like_layer_dump(text: str) -> bool:
    """True if some line holds a one-line layer description."""
    return any(_LAYER_LINE_RE.match(strip_log_prefix(line)) for line in text.split("\n"))


def parse_layer_dump(text: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Return (raw layer dicts, binding names) from every one-line layer in the text.

    Layers are taken from every ``Name: ..., LayerType: ...`` line; bindings from the lines after
    the last ``Bindings:`` header up to the first line that is blank or not a bare name.
    """
    layers: list[dict[str, Any]] = []
    bindings: list[str] = []
    in_bindings = False
    for raw_line in text.split("\n"):
        line = strip_log_prefix(raw_line)
        if _LAYER_LINE_RE.match(line):
            in_bindings = False
            layer = parse_layer_line(line)
            if layer is not None:
                layers.append(layer)
            continue
        if line.strip() == "Bindings:":
            in_bindings, bindings = True, []
            continue
        if in_bindings:
            name = line.strip()
            if not name or ": " in name or name.endswith(":"):
                in_bindings = False
            else:
                bindings.append(name)
    return layers, bindings


def parse_layer_line(line: str) -> dict[str, Any] | None:
    """Parse one ``Name: ..., LayerType: ...`` line into a raw layer dict (None if malformed)."""
    try:
        fields, _ = _parse_fields(line, 0, closing=None)
    except (ValueError, IndexError, RecursionError):  # RecursionError: nested "Inputs: [ {"
        return None
    if "Name" not in fields or "LayerType" not in fields:
        return None
    for key in ("Inputs", "Outputs"):
        if not isinstance(fields.get(key), list):
            fields[key] = []
    return fields


def _parse_fields(text: str, pos: int, closing: str | None) -> tuple[dict[str, Any], int]:
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
            value, pos = _parse_tensor_list(text, pos)
        elif (bracketed := _bracketed_value(text, pos)) is not None:
            value, pos = bracketed
        else:
            end_match = (_BARE_END_RE if closing else _NEXT_KEY_RE).search(text, pos)
            end = end_match.start() if end_match else n
            value = _scalar(text[pos:end].strip())
            pos = end
        fields[key] = value
    return fields, pos


def _parse_tensor_list(text: str, pos: int) -> tuple[list[dict[str, Any]], int]:
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
        tensor, pos = _parse_fields(text, pos + 1, closing="}")
        tensors.append(tensor)
    raise ValueError("unterminated tensor list")


def _bracketed_value(text: str, pos: int) -> tuple[Any, int] | None:
    """A ``[...]``/``{...}`` JSON value that ends the field, or None to read it as bare text."""
    if not text.startswith(("[", "{"), pos):
        return None
    try:
        end = _matching_bracket(text, pos)
        value = json.loads(text[pos : end + 1], strict=False)
    except (ValueError, IndexError, RecursionError):
        return None
    if not re.match(r"\s*(?:,|\}|$)", text[end + 1 :]):
        return None
    return value, end + 1


def _matching_bracket(text: str, pos: int) -> int:
    pairs = {"[": "]", "{": "}"}
    stack = [pairs[text[pos]]]
    in_string = False
    i = pos + 1
    while i < len(text):
        ch = text[i]
        if in_string:
            if ch == "\\":
                i += 1
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
        i += 1
    raise ValueError("unbalanced brackets")


def _scalar(value: str) -> Any:
    if re.fullmatch(r"-?\d+", value):
        return int(value)
    return value
