"""The regression gate of ``trex compare --fail-if-slower``: is the last engine too slow?"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..errors import InputError
from ..model.facts import engine_facts
from ..model.plan import EnginePlan
from .align import get_plans_names


@dataclass(frozen=True)
class Metric:
    """A figure the gate can compare: how to read it and whether lower is better."""

    description: str
    unit: str
    lower_is_better: bool
    read: Callable[[EnginePlan], float | None]
    needs: str


METRICS: dict[str, Metric] = {
    "total": Metric("total latency (sum of the layers' average latencies)", "ms", True,
                    lambda p: engine_facts(p).latency_ms, "a per-layer profile (--exportProfile)"),
    "gpu-compute": Metric("median GPU compute time", "ms", True,
                          lambda p: engine_facts(p).gpu_compute_median_ms,
                          "trtexec's performance summary (profile metadata or log)"),
    "latency": Metric("median end-to-end latency", "ms", True,
                      lambda p: engine_facts(p).latency_median_ms,
                      "trtexec's performance summary (profile metadata or log)"),
    "throughput": Metric("throughput", "qps", False,
                         lambda p: engine_facts(p).throughput_qps,
                         "trtexec's performance summary (profile metadata or log)"),
}


@dataclass(frozen=True)
class RegressionCheck:
    """The outcome of comparing the last engine with the first on one metric."""

    metric: str
    first_name: str
    last_name: str
    first: float
    last: float
    slower_pct: float  # > 0: the last engine is slower (for throughput: 1/throughput grew)
    threshold_pct: float
    failed: bool

    @property
    def message(self) -> str:
        """One line saying what was compared and why the gate passes or fails."""
        m = METRICS[self.metric]
        change = (f"{self.slower_pct:.1f}% slower" if self.slower_pct >= 0.05
                  else f"{-self.slower_pct:.1f}% faster" if self.slower_pct <= -0.05
                  else "no change")
        verdict = (f"FAIL: more than {self.threshold_pct:g}% slower" if self.failed
                   else f"ok (limit {self.threshold_pct:g}% slower)")
        # As every table shows them: milliseconds with four decimals, throughput with two.
        digits = 2 if m.unit == "qps" else 4
        return (f"{m.description}: {self.last_name} {self.last:.{digits}f} {m.unit} vs "
                f"{self.first_name} {self.first:.{digits}f} {m.unit}, {change}; {verdict}")


def check_regression(plans: Sequence[EnginePlan], threshold_pct: float, metric: str = "total",
                     names: Sequence[str] | None = None) -> RegressionCheck:
    """Compare the last plan with the first on ``metric`` (one of :data:`METRICS`)."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose from {', '.join(METRICS)}")
    if len(plans) < 2:
        raise ValueError("the regression gate needs at least two engines")
    if not isinstance(threshold_pct, (int, float)) or not math.isfinite(threshold_pct) \
            or threshold_pct < 0:  # a NaN limit would pass every engine
        raise ValueError(f"the regression limit must be a finite percentage >= 0, not {threshold_pct!r}")
    names = list(names) if names is not None else get_plans_names(plans)
    m = METRICS[metric]
    first, last = m.read(plans[0]), m.read(plans[-1])
    for plan, value in ((plans[0], first), (plans[-1], last)):
        if value is None or not math.isfinite(value) or value <= 0:
            raise InputError(plan.graph_file, f"has no {m.description} for --metric {metric} "
                                              f"(needs {m.needs})")
    ratio = last / first if m.lower_is_better else first / last
    slower = (ratio - 1.0) * 100.0
    return RegressionCheck(metric, names[0], names[-1], first, last, slower, threshold_pct,
                           slower > threshold_pct)
