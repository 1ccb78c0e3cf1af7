"""Report-card figures built by :mod:`trex.figures` and :mod:`trex.compare`, as plotly JSON.

Only figures whose size does not grow with one entry per layer are taken from Python (per type,
per precision, distributions, timings, engine comparisons): per-layer charts are drawn in the page
from the layer columns it already has, so 10,000 names are not repeated in every chart.

plotly renders ``<b>``, ``<br>``, ``<a>`` ... inside text: the figure builders escape every string
from the data (:func:`trex.safety.plotly_text`; category names, labels, trace names, hover text,
subplot titles), and :func:`figure_json` escapes the data of any trace they did not; titles are
removed (the page writes them as text).
"""

from __future__ import annotations

import base64
import json
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from ..model.plan import EnginePlan
from ..safety import escape_figure

MAX_SVG_MARKERS = 20_000


def _length(values: Any) -> int:
    """Length of a plotly data array: a list, or a typed array ``{"dtype": "f8", "bdata": ...}``."""
    if isinstance(values, list):
        return len(values)
    if isinstance(values, dict) and "bdata" in values:
        itemsize = int(str(values.get("dtype", "f8"))[1:] or 8)
        return len(base64.b64decode(values["bdata"])) // max(1, itemsize)
    return 0


def figure_json(fig: Any) -> dict[str, Any]:
    """A plotly figure as a dict of JSON values with data strings escaped and no title.

    WebGL traces become SVG ones (a report must draw without a GPU, e.g. in a remote desktop or
    a headless browser); beyond ``MAX_SVG_MARKERS`` points, markers become a line."""
    data = json.loads(escape_figure(fig).to_json())
    for trace in data.get("data", []):
        if trace.get("type") == "scattergl":
            trace["type"] = "scatter"
            if _length(trace.get("x")) > MAX_SVG_MARKERS and trace.get("mode") == "markers":
                trace["mode"] = "lines"
                trace["line"] = {"width": 1, "color": (trace.get("marker") or {}).get("color")}
    layout = data.setdefault("layout", {})
    layout.pop("title", None)
    layout.pop("template", None)  # the page sets one small template for every figure
    layout.pop("width", None)
    layout.pop("height", None)
    return data


def _collect(builders: Sequence[tuple[str, str, Callable[[], Any]]]) -> dict[str, Any]:
    """``{key: {"title", "figure"}}``; a figure that fails is reported as ``{"title", "error"}``."""
    out: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for key, title, build in builders:
            try:
                out[key] = {"title": title, "figure": figure_json(build())}
            except ImportError:
                raise
            except Exception as exc:  # one odd engine must not lose the report
                out[key] = {"title": title, "error": f"{type(exc).__name__}: {exc}"}
    return out


def report_colors(plans: Sequence[EnginePlan]) -> dict[str, Any]:
    """The page's colours: the same as the figures' (:func:`trex.graph.colors.key_color`) for every
    layer type and precision of the engines, the latency scale and one colour per engine."""
    from ..graph import colors
    from ..graph.svg import svg_color

    types = {str(t) for plan in plans for t in plan.df["type"].tolist()}
    precisions = {str(p) for plan in plans for column in ("precision", "output_precision")
                  for p in plan.df[column].fillna("None").tolist()}
    return {
        "type": {k: svg_color(c) for k, c in colors.colors_for(
            types | set(colors.layer_colormap), colors.layer_colormap).items()},
        "precision": {k: svg_color(c) for k, c in colors.colors_for(
            precisions | {str(k) for k in colors.precision_colormap},
            colors.precision_colormap).items()},
        "latency": [svg_color(c) for c in colors.latency_palette],
        "none": svg_color(colors.NO_LATENCY_COLOR),
        "unknown": svg_color(colors.UNKNOWN_KEY_COLOR),
        "engines": [svg_color(colors.engine_color(k)) for k in range(len(plans))],
    }


def engine_figures(plan: EnginePlan) -> dict[str, Any]:
    """Per-type, per-precision, distribution and timing figures of one engine."""
    from .. import figures as notebook_figures

    perf = notebook_figures.perf_overview_builders(plan)
    memory = notebook_figures.memory_footprint_builders(plan)
    profiled = plan.has_profile
    builders: list[tuple[str, str, Callable[[], Any]]] = [
        ("latency_by_type", "Latency per layer type (ms)",
         lambda: perf["Latency per layer type (ms)"](title=None)),
        ("count_by_type", "Layers per type", lambda: perf["Count per layer type"](title=None)),
        # without a profile, only the layer counts (not an empty latency pie beside them)
        ("precision_rollup", "Layers and latency by precision" if profiled else "Layers by precision",
         (lambda: perf["Precision rollup"](title=None)) if profiled else
         lambda: _precision_counts(plan)),
        ("precision_per_type", "Precision per layer type",
         lambda: notebook_figures.precision_per_type_sunburst(plan)),
        ("latency_distribution", "Layer latency distribution",
         lambda: perf["Layer latency distribution"](title=None)),
    ]
    for key, title in (("weights_distribution", "Weights footprint distribution per layer"),
                       ("activations_distribution", "Activations footprint distribution per layer"),
                       ("total_distribution", "Total footprint distribution per layer")):
        builders.append((key, title, lambda title=title: memory[title](title=None)))
    if len(plan.timings):
        builders.append(("timings", "Latency over the timed iterations",
                         lambda: notebook_figures.engine_timings_figure(plan)))
    # A chart of values the inputs do not have says so (and is not built), rather than drawing
    # empty axes.
    unknown = {}
    if not profiled:
        unknown.update(dict.fromkeys(("latency_by_type", "latency_distribution"),
                                     "no per-layer profile (--exportProfile) was given"))
    if not plan.weights_known:
        unknown.update(dict.fromkeys(("weights_distribution", "total_distribution"),
                                     "these exports list no weights"))
    if not plan.detailed:
        unknown.update(dict.fromkeys(("precision_rollup", "precision_per_type"),
                                     "precisions are unknown: names-only layer information "
                                     "(build with --profilingVerbosity=detailed)"))
    built = _collect([b for b in builders if b[0] not in unknown])
    return {key: {"title": title, "error": unknown[key]} if key in unknown else built[key]
            for key, title, _ in builders}


def _precision_counts(plan: EnginePlan) -> Any:
    """The count half of the precision rollup (an engine without latencies has no other half)."""
    from ..figures.frames import group_count
    from ..figures.plotting import plotly_pie2
    from ..graph.colors import precision_colormap

    return plotly_pie2(None, [(group_count(plan.df, "precision"), "Layer count by precision",
                               "count", "precision")], colormap=precision_colormap)


def comparison_figures(plans: Sequence[EnginePlan], names: Sequence[str]) -> dict[str, Any]:
    """TREx's engine-comparison overview (stacked latencies, counts, precisions, throughput)."""
    from ..compare import plots

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            figures = plots.compare_engines_overview(plans, list(names))
        except ImportError:
            raise
        except Exception as exc:
            return {"overview": {"title": "Engine comparison", "error": f"{type(exc).__name__}: {exc}"}}
    figures.pop("Aligned layer latencies", None)  # drawn in the page, clickable, from the alignment
    return _collect([(f"cmp{i}", title, lambda fig=fig: fig) for i, (title, fig) in
                     enumerate(figures.items())])
