"""One self-contained HTML file: the page template, its CSS and script, plotly.js and the data.

Nothing is fetched when the page opens: scripts and styles are inline, and a Content-Security-Policy
allows only the page's own scripts (by hash), no network access and no plugins. The data goes into
``<script type="application/json">`` blocks (never executed) as JSON whose ``<``, ``>`` and ``&``
are written ``\\u003c``, ``\\u003e``, ``\\u0026`` and every other non-ASCII character (U+2028 and
U+2029 included) as a ``\\u`` escape, so no string in the data can close the block. The page's
script renders every name with ``textContent`` and DOM calls, never by parsing HTML.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import json
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import msgspec
import numpy as np

from ..jsonable import json_value as clean
from ..model.plan import EnginePlan
from ..perf import gc_paused
from ..safety import atomic_write, well_formed
from .columns import plain
from .payload import report_payload

_MARKER = re.compile(r"%%([A-Z_]+)%%")
_UNSAFE_IN_SCRIPT = re.compile(r"</script|<!--", re.IGNORECASE)


SCRIPT_FILES = "js"  # assets/js/*.js, concatenated in name order into the page's one script


def asset(name: str) -> str:
    """The text of one of the page's assets (``page.html``, ``report.css``); ``report.js`` is the
    page's script built from ``assets/js`` (:func:`page_script`)."""
    if name == "report.js":
        return page_script()
    return (resources.files(__package__) / "assets" / name).read_text(encoding="utf-8")


@functools.lru_cache(maxsize=1)
def page_script() -> str:
    """The page's script: ``assets/js/*.js`` in name order, in one function scope (one inline
    script, one hash in the Content-Security-Policy)."""
    folder = resources.files(__package__) / "assets" / SCRIPT_FILES
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".js")), key=lambda f: f.name)
    parts = [f"// ---- {f.name}\n{f.read_text(encoding='utf-8')}" for f in files]
    return ("/* trex report: the page's script, built from html_report/assets/js (see 00-types.js). */\n"
            "(function () {\n'use strict';\n" + "\n".join(parts) + "}());\n")


@functools.lru_cache(maxsize=1)
def plotly_version() -> dict[str, Any]:
    """The bundled plotly.js: ``{"plotly.js": version, "traces": [...], ...}`` (assets/plotly/VERSION)."""
    return json.loads(asset("plotly/VERSION"))


def plotly_js() -> str:
    """The partial plotly.js bundle the page inlines (only the traces the report draws; rebuilt by
    ``scripts/update_plotly.sh``)."""
    return asset("plotly/plotly.min.js")


def _compact(value: Any) -> Any:
    if hasattr(value, "__json__"):
        return value.__json__()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


# msgspec writes a float as Python's ``repr`` does, but for exponents (``1e16`` for ``1e+16``,
# ``1e-7`` for ``1e-07``) and below 1e-4 (``0.00001`` for ``1e-05``): those are written again
# (tests/test_html_report.py checks every other float is written alike).
_NOT_ASCII = re.compile(r"[^\x00-\x7e]")
_ENCODER = msgspec.json.Encoder(enc_hook=_compact)
_NUMBER = frozenset(b"0123456789.-+eE")
_IN_SCRIPT = {ord("<"): b"\\u003c", ord(">"): b"\\u003e", ord("&"): b"\\u0026"}


def _find_all(data: bytes, needle: bytes) -> list[int]:
    """Every position of ``needle`` in ``data`` (a C search: fast where it is rare)."""
    found, at = [], data.find(needle)
    while at >= 0:
        found.append(at)
        at = data.find(needle, at + 1)
    return found


def _float_candidates(data: bytes, a: np.ndarray) -> list[int]:
    """Positions inside every number msgspec may write otherwise than ``repr``: the ``e`` of an
    exponent, the start of ``0.0000`` (and the same in strings, told apart by the caller)."""
    e = np.flatnonzero(a == 101)  # d e d, d e -
    e = e[(e > 0) & (e < len(a) - 1)]
    before, after = a[e - 1], a[e + 1]
    e = e[(before >= 48) & (before <= 57) & (((after >= 48) & (after <= 57)) | (after == 45))]
    zeros = [z for z in _find_all(data, b"0.0000")
             if z == 0 or data[z - 1] not in b"0123456789."]
    return sorted(set(e.tolist()) | set(zeros))


def _unescaped_quotes(data: bytes, a: np.ndarray) -> np.ndarray:
    """Positions of the quotes that open or close a JSON string."""
    quotes = np.flatnonzero(a == 34)
    escaped = quotes[(quotes > 0) & (a[quotes - 1] == 92)]
    if len(escaped):  # a quote after an odd run of backslashes is inside a string
        odd = []
        for q in escaped.tolist():
            start = q - 1
            while start > 0 and data[start - 1] == 92:
                start -= 1
            if (q - start) % 2:
                odd.append(q)
        quotes = quotes[~np.isin(quotes, odd)]
    return quotes


def _script_safe(data: bytes) -> bytes:
    """JSON ``data`` (msgspec's) with every float outside a string written as Python's ``repr``
    writes it and ``<``, ``>``, ``&`` written as ``\\u`` escapes, in one copy."""
    edits: list[tuple[int, int, bytes]] = []  # (start, end, replacement)
    for char, escape in _IN_SCRIPT.items():
        edits += [(at, at + 1, escape) for at in _find_all(data, bytes([char]))]
    a = np.frombuffer(data, dtype=np.uint8)
    found = _float_candidates(data, a) if len(a) >= 3 else []  # no shorter float differs
    quotes = _unescaped_quotes(data, a) if found else a[:0]
    last_end = -1
    for p in found:
        if p < last_end:
            continue
        start = p
        while start > 0 and data[start - 1] in _NUMBER:
            start -= 1
        end = p
        while end < len(data) and data[end] in _NUMBER:
            end += 1
        last_end = end
        if (start > 0 and data[start - 1] not in b"[,:") or (
                end < len(data) and data[end] not in b",]}"):
            continue
        if int(np.searchsorted(quotes, start)) % 2:  # inside a string
            continue
        try:
            number = float(data[start:end])
        except ValueError:
            continue
        edits.append((start, end, repr(number).encode()))
    if not edits:
        return data
    edits.sort()
    parts, kept = [], 0
    for start, end, text in edits:
        parts += [data[kept:start], text]
        kept = end
    parts.append(data[kept:])
    return b"".join(parts)


def _ascii(match: re.Match[str]) -> str:
    """A character as JSON's ``\\u`` escape (a surrogate pair above U+FFFF), as ``json`` writes it."""
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 | (code >> 10):04x}\\u{0xDC00 | (code & 0x3FF):04x}"


def _dumps(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False,
    default=_compact)`` with ``<``, ``>``, ``&`` escaped: the same text for JSON values, written
    by msgspec (several times faster); NaN and infinite numbers become ``null`` as
    :func:`~trex.jsonable.json_value` makes them. Raises ``TypeError`` (or ``ValueError``) for
    numpy scalars, lone surrogates and other values msgspec does not write (the payload is JSON
    values: msgspec would write a set, bytes or a dataclass its own way)."""
    try:
        data = _ENCODER.encode(value)
    except (UnicodeEncodeError, OverflowError) as exc:  # lone surrogates, huge ints
        raise ValueError(str(exc)) from exc
    data = _script_safe(data)
    text = data.decode("utf-8")
    if not data.isascii() or b"\x7f" in data:
        text = _NOT_ASCII.sub(_ascii, text)
    return text


def json_for_script(value: Any) -> str:
    """JSON text that is safe inside ``<script type="application/json">`` (see module doc)."""
    try:
        return _dumps(value)
    except (ValueError, TypeError, msgspec.EncodeError):  # a value msgspec does not write
        pass
    try:
        text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False,
                          default=_compact)
    except (ValueError, TypeError):  # NaN or a non-JSON value somewhere: clean everything
        text = json.dumps(clean(plain(value)), ensure_ascii=True, separators=(",", ":"),
                          allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _inline_script(code: str, what: str) -> str:
    if _UNSAFE_IN_SCRIPT.search(code):
        raise ValueError(f"{what} contains '</script' or '<!--' and cannot be inlined")
    return code


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def content_security_policy(scripts: Sequence[str]) -> str:
    """No network, no plugins, no frames; only these inline scripts run (their hashes)."""
    hashes = " ".join(f"'{_sha256(s)}'" for s in scripts)
    return ("default-src 'none'; " f"script-src {hashes}; " "style-src 'unsafe-inline'; "
            "img-src data: blob:; font-src data:; connect-src 'none'; object-src 'none'; "
            "frame-src 'none'; worker-src 'none'; base-uri 'none'; form-action 'none'")


@functools.lru_cache(maxsize=1)
def _page_scripts() -> tuple[str, str, str]:
    """(plotly.js, the page's script, the Content-Security-Policy that runs only them, escaped for
    the page's attribute): read, checked and hashed once."""
    plotly = _inline_script(plotly_js(), "plotly.js")
    app = _inline_script(page_script(), "the page's script")
    return plotly, app, html.escape(content_security_policy([plotly, app]), quote=True)


def render_html(payload: dict[str, Any], details: Sequence[Any] = ()) -> str:
    """The report page for a :func:`~trex.html_report.payload.report_payload`."""
    from .. import __version__

    plotly, app, csp = _page_scripts()
    blocks = [f'<script type="application/json" id="trex-details-{k}">'
              f"{json_for_script(d)}</script>" for k, d in enumerate(details)]
    parts = {
        "CSP": csp,
        "GENERATOR": html.escape(f"trex {__version__}", quote=True),
        "PLOTLY_VERSION": html.escape(f"plotly.js {plotly_version()['plotly.js']} (traces: "
                                      f"{', '.join(plotly_version()['traces'])})", quote=True),
        "TITLE": html.escape(well_formed(f"trex report: {payload.get('title', '')}"),
                             quote=False),
        "CSS": asset("report.css").replace("</", "<\\/"),
        "DATA": json_for_script(payload),
        "DETAILS": "\n".join(blocks),
        "PLOTLY": plotly,
        "APP": app,
    }
    return _MARKER.sub(lambda m: parts[m.group(1)], asset("page.html"))


@dataclass
class ReportResult:
    """What :func:`write_report` wrote."""

    path: str
    engines: int
    layers: int
    bytes: int
    seconds: float
    notes: list[str] = field(default_factory=list)  # e.g. the graph's layout note, per engine


def load_plans(sources: Sequence[EnginePlan | str | os.PathLike], profile_id: int | None = None,
               profile_run: int | None = None) -> list[EnginePlan]:
    """EnginePlans as given, or loaded from paths (a prefix, a folder or any one file)."""
    return [s if isinstance(s, EnginePlan) else
            EnginePlan.from_path(s, profile_id=profile_id, profile_run=profile_run)
            for s in sources]


def build_report(sources: Sequence[EnginePlan | str | os.PathLike] | EnginePlan,
                 labels: Sequence[str] | None = None, title: str | None = None,
                 gpu: str | None = None, exact_matching: bool = True) -> str:
    """The HTML text of the report of one engine, or of a comparison of several (first = base)."""
    if isinstance(sources, (EnginePlan, str, os.PathLike)):
        sources = [sources]
    plans = load_plans(sources)
    paths = [os.fspath(s) if not isinstance(s, EnginePlan) else s.graph_file for s in sources]
    with gc_paused():
        payload, details = report_payload(plans, labels, paths, title, gpu, exact_matching)
        return render_html(payload, details)


def write_report(sources: Sequence[EnginePlan | str | os.PathLike] | EnginePlan,
                 output: str | os.PathLike, labels: Sequence[str] | None = None,
                 title: str | None = None, gpu: str | None = None, exact_matching: bool = True,
                 profile_id: int | None = None, profile_run: int | None = None,
                 paths: Sequence[str] | None = None,
                 progress: Callable[[str], None] | None = None) -> ReportResult:
    """Write the report of ``sources`` (plans or paths) to ``output``; see :func:`build_report`.

    ``paths`` are shown as the engines' locations (default: the paths given, or the plans'
    layer-information files); ``progress`` is told each step (``trex report`` shows them)."""
    start = time.perf_counter()
    if isinstance(sources, (EnginePlan, str, os.PathLike)):
        sources = [sources]
    plans = load_plans(sources, profile_id, profile_run)
    if paths is None:
        paths = [os.fspath(s) if not isinstance(s, EnginePlan) else s.graph_file for s in sources]
    with gc_paused():  # the collector's passes over a big plan's objects cost more than the report
        payload, details = report_payload(plans, labels, paths, title, gpu, exact_matching,
                                          progress=progress)
        if progress is not None:
            progress("writing the page")
        text = render_html(payload, details)
    path = os.path.abspath(os.fspath(output))
    data = text.encode("utf-8")
    with atomic_write(path, "wb", what="the report") as f:  # never a truncated report
        f.write(data)
    several = len(payload["engines"]) > 1
    notes = [f"{engine['label']}: {note}" if several else note for engine in payload["engines"]
             if (note := engine["graph"]["layout_note"])]
    return ReportResult(path, len(plans), sum(len(p.rows) for p in plans), len(data),
                        time.perf_counter() - start, notes)
