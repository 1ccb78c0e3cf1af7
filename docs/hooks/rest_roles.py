"""A griffe extension for the API reference: reST roles in docstrings read as code.

trex's docstrings cross-reference with reST roles (``:func:`lint```, ``:class:`~x.Plan```) and
double backticks; Markdown shows ``:func:`` literally. Each role becomes inline code of the name
(the last part after ``~``), double backticks become single ones.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|exc|obj|const):`(~?)([^`]+)`")


def _plain(match: re.Match[str]) -> str:
    short, target = match.group(1), match.group(2)
    return f"`{target.rsplit('.', 1)[-1] if short else target}`"


def markdown(text: str) -> str:
    """Docstring text with reST roles and double backticks as Markdown code."""
    text = _ROLE.sub(_plain, text)
    return re.sub(r"``([^`]+)``", r"`\1`", text)


class RestRoles(griffe.Extension):
    """Rewrite every docstring once, when its object is loaded."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
