"""``trex report``: one self-contained, offline HTML report per engine or comparison of engines.

``write_report(["a/", "b/"], "report.html")`` loads the engines (or takes EnginePlans), computes
every view with trex's own modules (summary, graph layout, linters, roofline, timings, ONNX mapping,
comparison) and writes one HTML file with plotly.js, the page's script and the data inlined: it
opens from ``file://`` with no server and no network. Needs plotly (``trex-explorer[plot]``).
"""

from __future__ import annotations

from .page import (
    ReportResult,
    build_report,
    content_security_policy,
    json_for_script,
    render_html,
    write_report,
)
from .payload import comparison_payload, engine_payload, report_payload

__all__ = [
    "ReportResult",
    "build_report",
    "comparison_payload",
    "content_security_policy",
    "engine_payload",
    "json_for_script",
    "render_html",
    "report_payload",
    "write_report",
]
