"""The layer graph shared by a whole plan and by any selection of its layers.

:class:`LayerGraph` holds layers in engine order and splits them as TREx does: ``layers`` (the rows
of ``df``), ``constants`` and ``sync_layers`` (signal/wait, which only order auxiliary streams);
``all_layers`` keeps every one for drawing. Bindings, producers and consumers of tensors and the
stream count are answered here once for :class:`~trex.model.plan.EnginePlan` and for the
subgraphs that ``beam``/``query`` select.
"""

from __future__ import annotations

from functools import cached_property

from .layer import Layer
from .profiles import strip_profile
from .tensors import Activation

SYNC_TYPES = ("signal", "wait")


class LayerGraph:
    """Layers in engine order and the tensors that connect them."""

    name: str = ""
    detailed: bool = True

    def _set_layers(self, all_layers: list[Layer], bindings: list[str]) -> None:
        self.all_layers: list[Layer] = all_layers
        self.constants: list[Layer] = []
        self.sync_layers: list[Layer] = []
        self.layers: list[Layer] = []
        for layer in all_layers:  # one pass: big plans have tens of thousands of layers
            kind = layer.type
            if kind == "Constant":
                self.constants.append(layer)
            elif kind in SYNC_TYPES:
                self.sync_layers.append(layer)
            else:
                self.layers.append(layer)
        self.bindings: list[str] = bindings

    @cached_property
    def producers(self) -> dict[str, list[Layer]]:
        """Tensor name -> the layers that write it (several for in-place concatenations)."""
        return _users(self.all_layers, "outputs")

    @cached_property
    def consumers(self) -> dict[str, list[Layer]]:
        """Tensor name -> the layers that read it."""
        return _users(self.all_layers, "inputs")

    def get_bindings(self) -> tuple[list[Activation], list[Activation]]:
        """(input bindings, output bindings) as Activations, each tensor once, in graph order."""
        found = self._bindings_found
        return list(found[0]), list(found[1])

    @cached_property
    def _bindings_found(self) -> tuple[list[Activation], list[Activation]]:
        layers = self.layers
        return bindings_of(self.bindings, [la.inputs for la in layers],
                           [la.outputs for la in layers])

    @property
    def stream_count(self) -> int:
        """Number of CUDA streams the layers run on (auxiliary streams: StreamId > 0)."""
        return max(1, len({layer.stream for layer in self.layers}))


def _users(layers: list[Layer], side: str) -> dict[str, list[Layer]]:
    """Tensor name -> the layers with it among their ``side`` ("inputs"/"outputs"), each once."""
    out: dict[str, list[Layer]] = {}
    get = out.get
    for layer in layers:
        for t in getattr(layer, side):
            users = get(t.name)
            if users is None:
                out[t.name] = [layer]
            elif users[-1] is not layer:
                users.append(layer)
    return out


def bindings_of(bindings: list[str], inputs: list[list[Activation]],
                outputs: list[list[Activation]]) -> tuple[list[Activation], list[Activation]]:
    """(input bindings, output bindings) as the layers see them, each tensor once, in graph
    order: a binding name read and not written by the layers is an input, one written an output."""
    names = {strip_profile(b) for b in bindings}
    produced = {t.name for outs in outputs for t in outs}
    found_in: dict[str, Activation] = {}
    found_out: dict[str, Activation] = {}
    for ins, outs in zip(inputs, outputs):
        for tensor in ins:
            if strip_profile(tensor.name) in names and tensor.name not in produced:
                found_in.setdefault(tensor.name, tensor)
        for tensor in outs:
            if strip_profile(tensor.name) in names:
                found_out.setdefault(tensor.name, tensor)
    return list(found_in.values()), list(found_out.values())


def infer_bindings(layers: list[Layer]) -> list[str]:
    """Graph inputs (consumed, never produced) and outputs (produced, never consumed)."""
    return infer_bindings_of([la.inputs for la in layers], [la.outputs for la in layers])


def infer_bindings_of(inputs: list[list[Activation]], outputs: list[list[Activation]]) -> list[str]:
    """:func:`infer_bindings` of the layers' tensor lists."""
    produced: dict[str, Activation] = {}
    consumed: dict[str, Activation] = {}
    for ins in inputs:
        for t in ins:
            consumed.setdefault(t.name, t)
    for outs in outputs:
        for t in outs:
            produced.setdefault(t.name, t)
    graph_inputs = [n for n in consumed if n not in produced and "const" not in n.lower()]
    graph_outputs = [n for n in produced if n not in consumed]
    return graph_inputs + graph_outputs
