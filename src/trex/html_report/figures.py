"""Report-card figures built by :mod:`trex.figures` and :mod:`trex.compare`, as plotly JSON.

Only figures whose size does not grow with one entry per layer are taken from Python (per type,
per precision, distributions, timings, engine comparisons): per-layer charts are drawn in the page
from the layer columns it already has, so 10,000 names are not repeated in every chart. An
engine's figures are written as JSON by :mod:`trex.figures.plain` (the notebook's figures, without
building plotly objects: plotly is not imported for one engine); the comparison's are plotly's.

plotly renders ``<b>``, ``<br>``, ``<a>`` ... inside text: the figure builders escape every string
from the data (:func:`trex.safety.plotly_text`; category names, labels, trace names, hover text,
subplot titles), and :func:`figure_json` escapes the data of any trace they did not; titles are
removed (the page writes them as text).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from ..model.plan import EnginePlan
from ..safety import escape_figure

MAX_SVG_MARKERS = 20_000


def figure_json(fig: Any) -> dict[str, Any]:
    """A plotly figure as a dict of JSON values with data strings escaped and no title.

    WebGL traces become SVG ones (a report must draw without a GPU, e.g. in a remote desktop or
    a headless browser); beyond ``MAX_SVG_MARKERS`` points, markers become a line."""
    from ..figures.plain import array_length

    data = json.loads(escape_figure(fig).to_json())
    for trace in data.get("data", []):
        if trace.get("type") == "scattergl":
            trace["type"] = "scatter"
            if array_length(trace.get("x")) > MAX_SVG_MARKERS and trace.get("mode") == "markers":
                trace["mode"] = "lines"
                trace["line"] = {"width": 1, "color": (trace.get("marker") or {}).get("color")}
    layout = data.setdefault("layout", {})
    layout.pop("title", None)
    layout.pop("template", None)  # the page sets one small template for every figure
    layout.pop("width", None)
    layout.pop("height", None)
    return data


def _collect(builders: Sequence[tuple[str, str, Callable[[], Any]]], plain: bool = False
             ) -> dict[str, Any]:
    """``{key: {"title", "figure"}}`` of plotly figures (or of figure JSON when ``plain``); a
    figure that fails is reported as ``{"title", "error"}``."""
    out: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for key, title, build in builders:
            try:
                figure = build()
                out[key] = {"title": title, "figure": figure if plain else figure_json(figure)}
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

    types = {str(t) for plan in plans for t in plan.column("type")}
    precisions = {"None" if p is None or p != p else str(p) for plan in plans
                  for column in ("precision", "output_precision") for p in plan.column(column)}
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
    """Per-type, per-precision, distribution and timing figures of one engine: the notebook's
    figures (:func:`trex.figures.perf_overview_builders`, ...) as :func:`figure_json` writes them,
    built as JSON by :mod:`trex.figures.plain` (no plotly objects)."""
    from ..figures import plain
    from ..figures._common import columns_frame, layer_colormap
    from ..figures.engine_timings import timing_source
    from ..figures.frames import group_count, group_sum_attr
    from ..figures.overview import latency_by_type

    frames: dict[str, Any] = {}

    def perf() -> Any:  # the performance figures' frame (perf_overview_builders' columns)
        if "perf" not in frames:
            frames["perf"] = columns_frame(plan, ["Name", "type", "precision", "output_precision",
                                                  "latency.avg_time", "latency.pct_time"])
        return frames["perf"]

    def memory() -> Any:  # memory_footprint_builders' columns
        if "memory" not in frames:
            frames["memory"] = columns_frame(plan, ["Name", "type", "weights_size",
                                                    "total_io_size_bytes", "total_footprint_bytes"])
        return frames["memory"]

    def precisions() -> Any:
        from ..graph.colors import precision_colormap

        counts = (group_count(perf(), "precision"), "Layer count by precision", "count", "precision")
        if not profiled:
            return plain.donuts([counts], precision_colormap)
        return plain.donuts([counts, (group_sum_attr(perf(), "precision", "latency.pct_time"),
                                      "% latency by precision", "latency.pct_time", "precision")],
                            precision_colormap)

    def timings() -> Any:
        return plain.engine_timings(timing_source(plan), MAX_SVG_MARKERS)

    profiled = plan.has_profile
    builders: list[tuple[str, str, Callable[[], Any]]] = [
        ("latency_by_type", "Latency per layer type (ms)",
         lambda: plain.bars_by_category(latency_by_type(perf()), "latency.avg_time", "type")),
        ("count_by_type", "Layers per type",
         lambda: plain.bars_by_category(group_count(perf(), "type"), "count", "type")),
        # without a profile, only the layer counts (not an empty latency pie beside them)
        ("precision_rollup", "Layers and latency by precision" if profiled else "Layers by precision",
         precisions),
        ("precision_per_type", "Precision per layer type", lambda: plain.precision_sunburst(perf())),
        ("latency_distribution", "Layer latency distribution",
         lambda: plain.histogram(perf(), "latency.avg_time", "type", layer_colormap())),
    ]
    for key, title, column in (
            ("weights_distribution", "Weights footprint distribution per layer", "weights_size"),
            ("activations_distribution", "Activations footprint distribution per layer",
             "total_io_size_bytes"),
            ("total_distribution", "Total footprint distribution per layer",
             "total_footprint_bytes")):
        builders.append((key, title, lambda column=column: plain.histogram(
            memory(), column, "type", layer_colormap())))
    if len(plan.timings):
        builders.append(("timings", "Latency over the timed iterations", timings))
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
    built = _collect([b for b in builders if b[0] not in unknown], plain=True)
    return {key: {"title": title, "error": unknown[key]} if key in unknown else built[key]
            for key, title, _ in builders}


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
