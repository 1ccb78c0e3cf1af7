"""Alias of TREx's plotly wrappers under its module name ``plotting`` (:mod:`trex.jupyter.cards`
shows their figure, :mod:`trex.report.plotting` only returns it), with its colour tables."""

from .graph.colors import layer_colormap, precision_colormap  # noqa: F401
from .jupyter.cards import (  # noqa: F401
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
from .report._common import DEFAULT_PALETTE as default_pallete  # noqa: F401  (TREx's spelling)
from .report.plotting import create_layout, stacked_tabular_df  # noqa: F401
