"""Engine comparison in a notebook: TREx's compare views with their dropdowns."""

from __future__ import annotations

import html as _html
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..model.plan import EnginePlan
from . import widgets as interactive
from .display import display_df
from .widgets import FigureGallery, InteractiveDiagram

if TYPE_CHECKING:
    import plotly.graph_objects as go


def compare_engines_overview(plans: Sequence[EnginePlan], names: Sequence[str] | None = None
                             ) -> FigureGallery:
    """:func:`trex.compare.compare_engines_overview`'s figures (a dict), shown as a dropdown."""
    from ..compare import compare_engines_overview as figures

    gallery = FigureGallery(figures(plans, names))
    if interactive.in_notebook():
        gallery.show()
    return gallery


class LayerLatencies(InteractiveDiagram):
    """TREx's layer-latency comparison: per choice (All, mismatches, a type) the merged table and bars."""

    def __init__(self, plan1: EnginePlan, plan2: EnginePlan, threshold: float,
                 exact_matching: bool):
        self.args = (plan1, plan2, threshold, exact_matching)
        types = dict.fromkeys([*plan1.df["type"].astype(str), *plan2.df["type"].astype(str)])
        choices = {c: c for c in ("All", "Precision Mismatch", "Tactic Mismatch", *types)}
        super().__init__(self._draw, choices, "Dataframe", display=False)

    def result(self, choice: str = "All") -> tuple[pd.DataFrame, go.Figure]:
        """The table and figure of one choice."""
        from ..compare import compare_engines_layer_latencies as latencies

        return latencies(*self.args, choice=choice)

    def __iter__(self) -> Any:
        """Unpacks as the (table, figure) of ``All``, as trex.compare's function returns."""
        return iter(self.result("All"))

    def _draw(self, choice: str, _value: Any = None) -> None:
        df, fig = self.result(choice)
        plan1, plan2 = self.args[:2]
        interactive.show(interactive.html(
            f"<p>1: {_html.escape(plan1.name)}<br>2: {_html.escape(plan2.name)}<br>"
            "in-p / out-p: input / output precisions; speedup (2) = time (1) / time (2)</p>"))
        display_df(df)
        interactive.show(fig)


def compare_engines_layer_latencies(plan1: EnginePlan, plan2: EnginePlan, threshold: float = 0.03,
                                    exact_matching: bool = True, choice: str | None = None
                                    ) -> LayerLatencies | tuple[pd.DataFrame, go.Figure]:
    """Aligned layer latencies: a dropdown of subsets, or the (table, figure) of ``choice``."""
    view = LayerLatencies(plan1, plan2, threshold, exact_matching)
    if choice is not None:
        return view.result(choice)
    if interactive.in_notebook():
        view.show()
    return view


def compare_engines_layer_details(plan1: EnginePlan, plan2: EnginePlan, row: int | None = None,
                                  exact_matching: bool = True) -> pd.DataFrame | InteractiveDiagram:
    """Side-by-side details of aligned layer ``row``; without ``row``, a dropdown of the aligned layers."""
    from ..compare import align_layers, aligned_merge_plans
    from ..compare import compare_engines_layer_details as details

    if row is not None:
        return details(plan1, plan2, row, exact_matching)
    merged = aligned_merge_plans(plan1, plan2, align_layers(plan1, plan2, exact_matching))
    choices = {f"{i}: {t}": i for i, t in enumerate(merged["type"])}
    view = InteractiveDiagram(lambda _c, i: display_df(details(plan1, plan2, i, exact_matching)),
                              choices, "Choose Layer:", display=False)
    if interactive.in_notebook() and choices:
        view.show()
    return view
