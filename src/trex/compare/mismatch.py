"""Are the engines of a comparison comparable at all? Device, batch size and network.

Latencies measured on different GPUs or at different batch sizes, or of different networks, do not
tell whether a build got faster: the comparison and its regression gate still run, but the reader
is told first. Each engine is checked against the first (the baseline) wherever both say:

- device: the GPU's name (or compute capability) in the metadata or log;
- batch size: the first dimension of the first input;
- network: the inputs' and outputs' shapes without the batch dimension, else the weights that the
  weighted layers hold, counted (a count does not change with precision or fusion: FP32, FP16
  and INT8 builds of one network hold the same number), where both exports list every weight
  (not from Myelin regions, whose weights are constant tensors, nor from names-only exports).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..model.facts import engine_facts
from .evidence import weights_key

if TYPE_CHECKING:
    from ..model.plan import EnginePlan

__all__ = ["engine_mismatches"]


def _io_shapes(plan: EnginePlan) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]]] | None:
    inputs, outputs = plan.get_bindings()
    if not inputs and not outputs:
        return None
    return (sorted(tuple(t.shape[1:]) for t in inputs),
            sorted(tuple(t.shape[1:]) for t in outputs))


_OPAQUE = frozenset({"Myelin", "kgen", "gemm"})  # may hold weights as constant inputs


def _weights(plan: EnginePlan) -> tuple[int, int] | None:
    """(weighted layers, weights they hold); None when the export does not list every weight."""
    if not plan.weights_known or any(layer.type in _OPAQUE and not weights_key(layer)
                                     for layer in plan.layers):
        return None
    counts = [k for k in (weights_key(layer) for layer in plan.layers) if k is not None]
    return (len(counts), sum(counts)) if counts else None


def engine_mismatches(plans: Sequence[EnginePlan], names: Sequence[str]) -> list[str]:
    """One warning per engine that differs from the first in device, batch size or network (empty
    when every engine matches the baseline, or when the exports do not say); the optimisation
    profiles of one engine are one network whatever their shapes."""
    if len(plans) < 2:
        return []
    base, base_name = plans[0], names[0]
    facts0 = engine_facts(base)
    io0, weights0 = _io_shapes(base), _weights(base)
    out = []
    for plan, name in zip(plans[1:], names[1:]):
        facts = engine_facts(plan)
        found = []
        if facts0.device and facts.device and facts0.device != facts.device:
            found.append(f"device {facts.device} vs {facts0.device}")
        elif (facts0.compute_capability and facts.compute_capability
              and facts0.compute_capability != facts.compute_capability):
            found.append(f"compute capability {facts.compute_capability} vs "
                         f"{facts0.compute_capability}")
        if facts0.batch_size and facts.batch_size and facts0.batch_size != facts.batch_size:
            found.append(f"batch size {facts.batch_size} vs {facts0.batch_size}")
        io, weights = _io_shapes(plan), _weights(plan)
        if plan.graph_file == base.graph_file and plan.profile_id != base.profile_id:
            pass  # profiles of one engine (prefill, decode): their shapes differ on purpose
        elif io0 is not None and io is not None and io != io0:
            found.append("another network (input/output shapes differ)")
        elif weights0 is not None and weights is not None and weights[1] != weights0[1]:
            found.append(f"another network ({weights[1]:,} weights in {weights[0]} layers vs "
                         f"{weights0[1]:,} in {weights0[0]})")
        if found:
            out.append(f"{name} vs {base_name}: {'; '.join(found)}: their latencies are not "
                       "comparable")
    return out
