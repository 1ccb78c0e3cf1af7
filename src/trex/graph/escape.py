"""Escaping of untrusted text (layer, tensor, tactic and metadata strings) for DOT, HTML and SVG.

Every string that comes from an input file passes through one of these functions before it is
written into DOT source or SVG, so no name can end a string, open a tag or inject attributes.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# C0 and C1 control characters, DEL, lone surrogates and the Unicode non-characters XML forbids.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
_NEWLINES = re.compile("\r\n|[\r\n\t\x85\u2028\u2029]")


class HtmlLabel(str):
    """A DOT HTML-like label (the text between the outer ``<`` and ``>``), already escaped."""

    __slots__ = ()


class RecordLabel(str):
    """A DOT record label whose fields are already escaped with :func:`record_text`."""

    __slots__ = ()


def clean(text: object) -> str:
    """``str(text)`` without control characters; newlines and tabs become spaces."""
    text = str(text)
    if text.isprintable():  # the common case: nothing to remove (controls are not printable)
        return text
    return _CONTROL.sub("", _NEWLINES.sub(" ", text))


def clean_lines(text: object) -> str:
    """Like :func:`clean` but keeps line breaks (as ``\\n``)."""
    text = str(text)
    if text.isprintable():
        return text
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(clean(line) for line in lines)


def esc_string(text: object) -> str:
    """Body of a quoted DOT escString showing ``text`` literally (newlines become line breaks;
    ``&`` is written ``&amp;`` because Graphviz decodes character entities everywhere)."""
    body = clean_lines(text).replace("&", "&amp;").replace("\\", "\\\\").replace('"', '\\"')
    return body.replace("\n", "\\n")


def dot_quote(text: object) -> str:
    """A double-quoted DOT string (ID or attribute value) showing ``text`` literally."""
    return f'"{esc_string(text)}"'


_HTML_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
                  # Graphviz parses record labels (Mrecord nodes) before HTML ones and breaks on
                  # these even inside an HTML label, so they are written as character references;
                  # it also expands escStrings (\\N, \\G) after decoding, so a backslash is doubled.
                  "|": "&#124;", "{": "&#123;", "}": "&#125;", "\\": "&#92;&#92;"}
_HTML_SPECIAL = re.compile(r'[&<>"|{}\\]')


def html_text(text: object) -> str:
    """Text for a DOT HTML-like label cell: ``& < > "`` (and ``| { } \\``) as entities."""
    return _HTML_SPECIAL.sub(lambda m: _HTML_ENTITIES[m.group(0)], clean(text))


_RECORD_SPECIAL = re.compile(r'([\\{}|<>" ])')


def record_text(text: object) -> str:
    """A record-label field: ``\\ { } | < > "`` and spaces backslash-escaped, ``&`` as ``&amp;``."""
    return _RECORD_SPECIAL.sub(r"\\\1", clean(text).replace("&", "&amp;"))


def xml_text(text: object) -> str:
    """Text content for SVG/XML (``& < >`` escaped, characters XML forbids dropped)."""
    return clean(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def xml_attr(text: object) -> str:
    """A double-quoted XML attribute value's content; line breaks kept as ``&#10;``."""
    body = clean_lines(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return body.replace('"', "&quot;").replace("\n", "&#10;")


def xml_multiline(text: object) -> str:
    """Text content for SVG/XML that keeps its line breaks (for ``<title>`` tooltips)."""
    return clean_lines(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# Graphviz rejects a quoted or HTML string longer than 16,384 characters ("syntax error ...
# longer than 16384?"): every string trex writes into DOT source stays under this, escaped.
DOT_MAX_STRING = 16384
DOT_STRING_BUDGET = 16000  # a margin for the quotes and the HTML table markup around a label
ELLIPSIS = "\u2026"


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ending with an ellipsis when cut."""
    return text if len(text) <= limit else text[:max(0, limit - 1)] + ELLIPSIS


def fit_escaped(text: str, escape: Callable[[str], str], budget: int = DOT_STRING_BUDGET) -> str:
    """``escape(text)``, or of ``text`` shortened (with an ellipsis) so that it fits ``budget``."""
    escaped = escape(text)
    if len(escaped) <= budget:
        return escaped
    keep = len(text) * budget // len(escaped)
    while True:  # escaping is at most 10x: a few rounds at most
        escaped = escape(shorten(text, keep))
        if len(escaped) <= budget or keep <= 1:
            return escaped
        keep = keep * 9 // 10
