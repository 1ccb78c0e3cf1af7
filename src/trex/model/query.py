"""Layer queries: ``type:Reformat precision:FP32 name:~layer4 conv`` picks layers by their facts.

A query is terms separated by spaces (double quotes keep spaces inside a term); a layer matches
when it matches every term:

- ``key:value``: the layer's ``key`` equals ``value``, ignoring case (``type:Reformat``);
- ``key:~regex``: ``regex`` is found in the layer's ``key`` (``name:~layer4\\.2``);
- a plain word: a regular expression found in the layer's name, ONNX nodes, type or one of its
  ``Key:value`` attributes, which is what ``trex draw --query`` matched before keys existed.

Keys are the layer facts of :data:`FACT_KEYS` and, by their own names, the attributes of the
layer information (``LayerType``, ``TacticName``, ...); a key matching neither is an error that
lists the keys the plan has. Used by :func:`trex.graph.query` and ``trex draw --query``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..errors import TrexError
from .layer import Layer


class QueryError(TrexError, LookupError):
    """A query that cannot be read: an unknown key, a bad regular expression, an open quote."""


def _onnx(layer: Layer) -> str:
    return " + ".join(n for n in layer.onnx_nodes if n)


# The layer facts a query names, each with how it reads from a layer.
FACT_KEYS: dict[str, Callable[[Layer], str]] = {
    "name": lambda layer: layer.name,
    "type": lambda layer: layer.type,
    "precision": lambda layer: layer.precision or "",
    "tactic": lambda layer: layer.tactic,
    "onnx": _onnx,
    "metadata": _onnx,
    "subtype": lambda layer: layer.subtype,
    "stream": lambda layer: str(layer.stream),
}
_KEY_RE = re.compile(r"([A-Za-z_][\w.]*):(.*)", re.S)


@dataclass(frozen=True)
class Term:
    """One term of a query: a key (None for a plain word), and either a value or a regex."""

    key: str | None
    value: str
    regex: re.Pattern[str] | None

    def matches(self, layer: Layer) -> bool:
        """Whether ``layer`` satisfies this term."""
        if self.key is None:
            assert self.regex is not None
            return any(self.regex.search(text) for text in layer_search_text(layer))
        text = _field(layer, self.key)
        if text is None:
            return False
        if self.regex is not None:
            return self.regex.search(text) is not None
        return text.casefold() == self.value.casefold()


def layer_search_text(layer: Layer) -> list[str]:
    """What a plain word is searched in: name, ONNX nodes, type and ``Key:value`` attributes."""
    fields = [layer.name, layer.type]
    onnx = _onnx(layer)
    if onnx:
        fields.append(onnx)
    for key, value in layer.raw_dict.items():
        if key not in ("Inputs", "Outputs", "Name"):
            fields.append(f"{key}:{value}")
    return fields


def _field(layer: Layer, key: str) -> str | None:
    """The text of ``key`` for ``layer`` (a fact, else an attribute); None when it has none."""
    fact = FACT_KEYS.get(key.lower())
    if fact is not None:
        return fact(layer)
    for name, value in layer.raw_dict.items():
        if name.lower() == key.lower():
            return "" if value is None else str(value)
    return None


def split_terms(query: str) -> list[str]:
    """Whitespace-separated terms; ``"..."`` keeps spaces (backslashes stay, for regexes)."""
    terms: list[str] = []
    current: list[str] = []
    quoted = started = False
    for char in query:
        if char == '"':
            quoted, started = not quoted, True
        elif char.isspace() and not quoted:
            if started:
                terms.append("".join(current))
            current, started = [], False
        else:
            current.append(char)
            started = True
    if quoted:
        raise QueryError(f"query {query!r} has an unclosed double quote")
    if started:
        terms.append("".join(current))
    return terms


def available_keys(layers: Iterable[Layer]) -> list[str]:
    """The keys a query can use on ``layers``: the facts, then every attribute key they carry."""
    attributes: dict[str, None] = {}
    for layer in layers:
        for key in layer.raw_dict:
            if key not in ("Inputs", "Outputs", "Name") and key.lower() not in FACT_KEYS:
                attributes[key] = None
    return [*FACT_KEYS, *sorted(attributes, key=str.lower)]


def _compile(pattern: str, term: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise QueryError(f"bad regular expression {pattern!r} in {term!r}: {exc}") from None


def parse_query(query: str, layers: Iterable[Layer]) -> list[Term]:
    """The terms of ``query``, checked against the keys ``layers`` have (QueryError otherwise)."""
    layers = list(layers)
    keys = {k.lower() for k in available_keys(layers)}
    terms: list[Term] = []
    for text in split_terms(query):
        found = _KEY_RE.fullmatch(text)
        if found is None:
            terms.append(Term(None, text, _compile(text, text)))
            continue
        key, value = found.groups()
        if key.lower() not in keys:
            raise QueryError(
                f"unknown query key {key!r} in {text!r}; keys: {', '.join(available_keys(layers))} "
                f"(to search names for text with a colon: name:~{text})")
        if value.startswith("~"):
            terms.append(Term(key, value[1:], _compile(value[1:], text)))
        else:
            terms.append(Term(key, value, None))
    if not terms:
        raise QueryError("empty query: give a word, key:value or key:~regex")
    return terms


def select_layers(layers: Iterable[Layer], query: str | re.Pattern[str]) -> list[Layer]:
    """The layers that match every term of ``query`` (a compiled regex: a plain word's search)."""
    layers = list(layers)
    if isinstance(query, re.Pattern):
        regex = query
        return [layer for layer in layers
                if any(regex.search(text) for text in layer_search_text(layer))]
    terms = parse_query(query, layers)
    return [layer for layer in layers if all(term.matches(layer) for term in terms)]
