"""TREx's module name for its plotly wrappers: ``trex.plotting.plotly_bar2(...)`` still works.

These versions show their figure in a notebook (``do_show=True``, TREx's default) and return it;
:mod:`trex.report.plotting` has the ones that only return it.
"""

from typing import Any

from .notebook import (  # noqa: F401
    plotly_bar2,
    plotly_hist,
    plotly_pie,
    plotly_pie2,
    stacked_bars,
    stacked_tabular,
)
from .report._common import (  # noqa: F401
    DEFAULT_PALETTE,
    GRID_COLOR,
    NVDA_GREEN,
    UNKNOWN_KEY_COLOR,
    trex_base_layout,
)
from .report.plotting import create_layout, stacked_tabular_df  # noqa: F401

default_pallete = list(DEFAULT_PALETTE)  # TREx's spelling


def __getattr__(name: str) -> Any:
    """``layer_colormap`` and ``precision_colormap``, from the graph package on first use."""
    if name in ("layer_colormap", "precision_colormap"):
        from .report._common import colormaps

        return dict(zip(("layer_colormap", "precision_colormap"), colormaps()))[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
