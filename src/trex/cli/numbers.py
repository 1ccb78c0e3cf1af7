"""Every numeric option of the ``trex`` command and its rule, in one place.

Each is an argparse ``type=``: a value outside its rule (``nan``, ``inf``, a negative count, a
time beyond what the platform can wait, a clock of 0) is a usage error naming the option, exit
status 2. Values the GPU decides (its clock and power ranges) are checked against the GPU when
``trex process`` applies them (:class:`trex.process.gpu.GpuConfigurator`), before anything
changes.
"""

from __future__ import annotations

import argparse

from ..safety import MAX_TIMEOUT_SECONDS, number_option

MAX_COUNT = 2**31  # rows, layers, iterations: more than any engine has
MAX_MHZ = 100_000  # clocks: far above any GPU's
MAX_WATTS = 100_000.0

COUNT = number_option(int, 0, MAX_COUNT)  # --top, --max-iterations
PROFILE_ID = number_option(int, 0, MAX_COUNT)  # --profile-id
RUN = number_option(int, -MAX_COUNT, MAX_COUNT)  # --run (negative: from the end)
PERCENT = number_option(float, 0.0, 1e6)  # --fail-if-slower
LOSS = number_option(float, 0.0)  # --accuracy-threshold
TIMEOUT = number_option(float, above=0.0, maximum=MAX_TIMEOUT_SECONDS)  # --timeout
DEVICE = number_option(int, 0, 4096)  # --device
WATTS = number_option(float, above=0.0, maximum=MAX_WATTS)  # --power-limit
INTERVAL = number_option(float, above=0.0, maximum=86_400.0)  # --monitor-interval
_MHZ = number_option(int, 1, MAX_MHZ)


def clock(text: str) -> int | str:
    """``--compute-clock``/``--memory-clock``: ``max`` or MHz, a whole number from 1 (``0`` is
    not "max": it is refused like any other value no GPU runs at)."""
    if text.strip().lower() == "max":
        return "max"
    try:
        return int(_MHZ(text))
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected 'max' or a clock in MHz from 1 to {MAX_MHZ:,},"
                                         f" not {text!r}") from None


clock.__name__ = "clock"
