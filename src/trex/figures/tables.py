"""TREx's table view: the plan's layers, all or of one type, cleaned for display, with a caption."""

from __future__ import annotations

import pandas as pd

from ..model.plan import EnginePlan
from .frames import clean_for_display

ALL = "All"


def table_view_choices(plan: EnginePlan) -> list[str]:
    """``All`` then every layer type of the plan, most time-consuming first."""
    df = plan.df
    if df.empty:
        return [ALL]
    order = df.groupby("type", sort=False)["latency.avg_time"].sum().sort_values(ascending=False)
    return [ALL, *map(str, order.index)]


def table_view(plan: EnginePlan, choice: str = ALL) -> pd.DataFrame:
    """The layers (all, or those of type ``choice``) ready for a table."""
    df = plan.df if choice == ALL else plan.get_layers_by_type(choice)
    return clean_for_display(df)


def table_caption(plan: EnginePlan, choice: str = ALL) -> str:
    """TREx's sentence: how many layers of ``choice`` and how much of the latency they take."""
    df = plan.df if choice == ALL else plan.get_layers_by_type(choice)
    what = "layers" if choice == ALL else f"{choice} layers"
    return (f"There are {len(df)} {what} which account for {df['latency.pct_time'].sum():.2f}% "
            f"({df['latency.avg_time'].sum():.5f} ms) of the overall latency.")
