"""Engine graphs in a notebook: TREx's plan-graph views, drawn by :mod:`trex.graph`."""

from __future__ import annotations

import html as _html
import os
from typing import Any

from ..figures import drawings
from ..model.plan import EnginePlan
from . import widgets as interactive
from .widgets import InteractiveDiagram


def _show_svg(path: str) -> None:
    from IPython.display import SVG

    interactive.show(SVG(filename=path))


class PlanGraphView(InteractiveDiagram):
    """TREx's plan-graph dropdown: each preset renders ``<engine_name>.svg`` and shows it."""

    def __init__(self, plan: EnginePlan, engine_name: str | os.PathLike):
        self.plan, self.engine_name = plan, engine_name
        self.paths: dict[str, str] = {}
        choices = {c: c for c in drawings.GRAPH_CHOICES}
        super().__init__(self._draw, choices, "Color formatting:", display=False)

    def render_file(self, choice: str) -> str:
        """Render one preset to its file and return the path."""
        self.paths[choice] = drawings.draw_plan_graph(self.plan, self.engine_name, choice)
        return self.paths[choice]

    def _draw(self, choice: str, _value: Any = None) -> None:
        _show_svg(self.render_file(choice))


def report_card_draw_plan_graph(plan: EnginePlan, engine_name: str | os.PathLike) -> PlanGraphView:
    """Draw the plan graph to ``<engine_name>.svg`` with a dropdown of TREx's colour presets."""
    view = PlanGraphView(plan, engine_name)
    if interactive.in_notebook():
        view.show()
    return view


GRAPH_OPTIONS = {  # TREx's checkboxes: option -> (description, default)
    "display_regions": ("Regions: Render regions", False),
    "display_region_reuse": ("Regions: Render regions reuse", True),
    "display_forking_regions": ("Regions: Render forking regions", True),
    "display_region_names": ("Regions: Render names", False),
    "display_layer_names": ("Layers: Render names", False),
    "stack_layer_names": ("Layers: Stack names", True),
    "display_metadata": ("Layers: Prefer metadata over name", True),
    "expand_layer_details": ("Layers: Expand layer details", True),
    "display_latency": ("Layers: Render latency", True),
    "display_constants": ("Graph: Render constant inputs", False),
    "display_edge_name": ("Edges: Render names", False),
    "display_edge_details": ("Edges: Render details", True),
}


class PlanGraphOptions(interactive.Displayable):
    """TREx's extended graph widget: checkboxes of drawing options and a button that renders the SVG."""

    def __init__(self, plan: EnginePlan, engine_name: str | os.PathLike):
        self.plan, self.engine_name = plan, engine_name
        self.options = {k: default for k, (_, default) in GRAPH_OPTIONS.items()}
        self.options.update(color_by="Layer Type", layer_renderer="Configurable",
                            latency_type=drawings.latency_types()[0])
        self.path: str | None = None
        self.widget: Any = None

    def render_file(self, **options: Any) -> str:
        """Render with the current options (updated by ``options``) and return the SVG's path."""
        self.options.update(options)
        opts = dict(self.options)
        color_by = opts.pop("color_by")
        renderer = drawings.layer_renderers()[opts.pop("layer_renderer")]
        self.path = drawings.render_plan_graph(self.plan, self.engine_name, color_by,
                                            layer_node_renderer=renderer, **opts)
        return self.path

    def export_onnx(self, path: str | os.PathLike = "trex_model.onnx") -> str:
        """Write the plan as an ONNX graph (open it in Netron); return the path."""
        from ..graph import export_onnx

        return export_onnx(self.plan, path)

    def _render(self) -> None:
        if not interactive.have_widgets():
            _show_svg(self.render_file())
            return
        import ipywidgets as widgets

        boxes = {k: widgets.Checkbox(value=self.options[k], description=d)
                 for k, (d, _) in GRAPH_OPTIONS.items()}
        color = widgets.Dropdown(options=list(drawings.COLOR_CHOICES), value=self.options["color_by"],
                                 description="Layers color")
        renderer = widgets.Dropdown(options=list(drawings.layer_renderers()),
                                    value=self.options["layer_renderer"],
                                    description="Layer renderer")
        latency = widgets.Dropdown(options=drawings.latency_types(), value=self.options["latency_type"],
                                   description="Latency metric")
        svg_button = widgets.Button(description="Render SVG Graph")
        onnx_button = widgets.Button(description="Export ONNX Graph")
        out = widgets.Output()

        def svg() -> None:
            options = {k: b.value for k, b in boxes.items()}
            _show_svg(self.render_file(color_by=color.value, layer_renderer=renderer.value,
                                       latency_type=latency.value, **options))

        def onnx() -> None:
            path = self.export_onnx()
            interactive.show(interactive.html(f"<p>Wrote {_html.escape(path)}: open it in Netron.</p>"))

        # Drawn into ``out`` by render_into, never ``with out:`` (which stalls headless runs).
        svg_button.on_click(lambda _: interactive.render_into(out, svg))
        onnx_button.on_click(lambda _: interactive.render_into(out, onnx))

        column = widgets.VBox
        self.widget = widgets.VBox([
            widgets.HBox([
                column([renderer, boxes["display_constants"]]),
                column([color, boxes["display_latency"], latency, boxes["expand_layer_details"],
                        boxes["display_layer_names"], boxes["stack_layer_names"],
                        boxes["display_metadata"]]),
                column([boxes[k] for k in ("display_regions", "display_region_reuse",
                                           "display_forking_regions", "display_region_names")]),
                column([boxes["display_edge_name"], boxes["display_edge_details"]]),
            ]),
            widgets.HBox([svg_button, onnx_button]),
            out,
        ])
        self.widget.svg_button, self.widget.onnx_button = svg_button, onnx_button
        interactive.show(self.widget)


def report_card_draw_plan_graph_extended(plan: EnginePlan, engine_name: str | os.PathLike
                                         ) -> PlanGraphOptions:
    """TREx's graph-rendering widget: every drawing option, a button to render the SVG."""
    view = PlanGraphOptions(plan, engine_name)
    if interactive.in_notebook():
        view.show()
    return view
