"""Per-layer details and linter findings of a report, de-duplicated for the page.

Python code reads them as plain sequences (``details[row] == [attributes, inputs, outputs]``, a
finding is ``[row, layer, linter, severity, hazard, evidence, mitigation, help]``); the page gets
each distinct attribute set, tensor and text once (see :mod:`trex.html_report.columns`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ..formats.layer_records import RawLayers
from ..jsonable import json_value as clean
from ..layer_facts import layer_facts, type_kinds
from ..model.plan import EnginePlan
from ..model.table import LayerTable
from .columns import Compact, Interner, coded, text

_EVIDENCE = json.JSONEncoder(ensure_ascii=False, default=str)  # json.dumps's, made once


def _evidence_encoder() -> Callable[[Any], str]:
    """``_EVIDENCE.encode`` of JSON values, by the C encoder it makes for each call made once
    (a report encodes thousands of findings' evidence); the encoder itself where that one is not
    there or encodes otherwise."""
    try:
        from json.encoder import c_make_encoder, encode_basestring

        made = c_make_encoder(None, str, encode_basestring, None, _EVIDENCE.key_separator,
                              _EVIDENCE.item_separator, False, False, True)
        sample = {"n": 1, "x": 0.1, "t": "\u00e9\"", "l": [True, None, {"k": 1e300}]}
        if "".join(made(sample, 0)) == _EVIDENCE.encode(sample):
            return lambda value: "".join(made(value, 0))
    except (ImportError, TypeError, ValueError):  # not CPython's json, or another signature
        pass
    return _EVIDENCE.encode


_encode_evidence = _evidence_encoder()
_SCALARS = frozenset({str, int, bool, type(None)})


def _evidence_text(evidence: dict[Any, Any]) -> str:
    """The evidence as JSON text: ``clean`` first only where it changes something (a key that is
    not text, a value that is not a JSON scalar or a finite float)."""
    for key, value in evidence.items():
        if type(key) is not str or (type(value) not in _SCALARS and
                                    not (type(value) is float and value - value == 0)):
            return _encode_evidence(clean(evidence))
    return _encode_evidence(evidence)
MAX_TEXT = 2000  # longest attribute text kept in layer details (longer ones are cut)
_DETAIL_SKIP = frozenset({"Name", "Inputs", "Outputs"})


def _attribute(value: Any) -> Any:
    value = clean(value)
    if isinstance(value, str) and len(value) > MAX_TEXT:
        return value[:MAX_TEXT] + "\u2026"
    return value


class LayerDetails(Compact):
    """Per layer ``[attributes, inputs, outputs]``; a tensor is ``[name, shape, format, bytes,
    precision]`` and the attributes are the layer-information keys (every one but the tensors).

    JSON: ``{"attrs": [distinct attribute dicts], "attr": [index per layer], "tensors": {"name",
    "shape" (index into "shapes"), "shapes", "format" (coded), "bytes", "precision" (coded)},
    "inputs": [[tensor, ...] per layer], "outputs": [...], "kinds": {type: {"family", "about"}},
    "facts": {row: [[label, text], ...]} (:mod:`trex.layer_facts`)}``."""

    def __init__(self, plan: EnginePlan):
        table, rows = plan.table, plan.rows
        self.attr: list[int] = _attribute_sets(table, rows, attrs := Interner())
        self.attrs = [{str(k): _attribute(v) for k, v in raw.items()} for raw in attrs.values]
        self.inputs, self.outputs, self.tensors = _tensors(table, rows)
        # each type's family and what it does; the LLM layers' cost figures, Myelin regions
        self.kinds = type_kinds(plan.column("type"))
        self.facts = layer_facts(plan)

    def __len__(self) -> int:
        return len(self.attr)

    def __getitem__(self, row: int) -> list[Any]:  # type: ignore[override]
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(len(self)))]
        return [self.attrs[self.attr[row]], [self.tensors[t] for t in self.inputs[row]],
                [self.tensors[t] for t in self.outputs[row]]]

    def __json__(self) -> dict[str, Any]:
        shapes = Interner()
        shape = [shapes(t[1], repr(t[1])) for t in self.tensors]
        return {
            "attrs": self.attrs,
            "attr": self.attr,
            "tensors": {"name": [t[0] for t in self.tensors], "shape": shape, "shapes": shapes.values,
                        "format": coded(t[2] for t in self.tensors),
                        "bytes": [t[3] for t in self.tensors],
                        "precision": coded(t[4] for t in self.tensors)},
            "inputs": self.inputs,
            "outputs": self.outputs,
            "kinds": self.kinds,
            "facts": {str(row): facts for row, facts in self.facts.items()},
        }


def _attribute_sets(table: LayerTable, rows: list[int], attrs: Interner) -> list[int]:
    """Per row, the index among ``attrs`` of its exported fields but the name and tensors (equal
    ones share one): layers exported alike byte for byte are decoded once."""
    raws = table.raws
    keyed = isinstance(raws, RawLayers)
    by_text: dict[bytes, int] = {}
    out = []
    for i in rows:
        index = table.raw_index[i]
        text = raws.fields_key(index) if keyed else None
        found = by_text.get(text) if text is not None else None
        if found is None:
            raw = raws.fields(index) if keyed else \
                {k: v for k, v in raws[index].items() if k not in _DETAIL_SKIP}
            raw.pop("Name", None)
            found = attrs(raw, repr(raw))
            if text is not None:
                by_text[text] = found
        out.append(found)
    return out


def _tensors(table: LayerTable, rows: list[int]) -> tuple[list[list[int]], list[list[int]],
                                                          list[list[Any]]]:
    """(per row its inputs, per row its outputs, the distinct tensors): a tensor is ``[name,
    shape, format, bytes, precision]`` as the layers' Activations give them, one per distinct
    (name, shape, format, precision), in first-seen order (rows in order, inputs first)."""
    shapes = table.shapes
    canonical: dict[tuple[Any, ...], int] = {}  # (shape, format, precision) -> its first id
    canon = np.asarray([canonical.setdefault((dims, fmt.short, fmt.precision), sid)
                        for sid, (fmt, dims) in enumerate(shapes)], dtype=np.int64)
    wanted = np.zeros(len(table), dtype=bool)
    wanted[np.asarray(rows, dtype=np.int64)] = True
    uses = np.flatnonzero(wanted[table.use_row])  # ordered by row, inputs before outputs
    shape = table.view_shape[uses]
    codes = table.use_name[uses] * max(len(shapes), 1) + canon[shape]
    _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    index: list[int] = rank[inverse.reshape(-1)].tolist()
    starts = table.use_starts
    at = 0
    inputs, outputs = [], []
    for i in rows:
        a, b, c = starts[2 * i], starts[2 * i + 1], starts[2 * i + 2]
        inputs.append(index[at:at + b - a])
        outputs.append(index[at + b - a:at + c - a])
        at += c - a
    names, sizes = table.tensor_names, table.shape_size
    firsts = uses[first[order]]  # each tensor's first use
    dims_of: dict[int, list[Any]] = {}
    tensors = []
    for name, sid in zip(table.use_name[firsts].tolist(), table.view_shape[firsts].tolist()):
        fmt, dims = shapes[sid]
        shape = dims_of.get(sid)
        if shape is None:
            shape = dims_of[sid] = clean(list(dims))
        tensors.append([names[name], list(shape), fmt.short, int(sizes[sid]), fmt.precision])
    return inputs, outputs, tensors


FINDING_COLUMNS = ["row", "layer", "linter", "severity", "hazard", "evidence", "mitigation", "help"]
_TEXTS = FINDING_COLUMNS[2:]


class Findings(Compact):
    """Linter findings (``trex.lint.lint``), each with the ``plan.df`` row of the layer it names.

    JSON: ``{"row": [...], "layer": [name, or null when it is the row's layer name], "texts":
    [distinct strings], "linter": [index into texts], "severity": [...], ...}``."""

    def __init__(self, df: pd.DataFrame, names: list[str]):
        self._build({key: df[key].tolist() for key in ("layer", *_TEXTS)}, names)

    @classmethod
    def of(cls, findings: list[Any], names: list[str]) -> Findings:
        """The :class:`~trex.lint.base.Finding` values as :func:`~trex.lint.base.findings_frame`
        would give them, without the DataFrame."""
        made = cls.__new__(cls)
        made._build({key: [getattr(f, key) for f in findings] for key in ("layer", *_TEXTS)},
                    names)
        return made

    def _build(self, columns: dict[str, list[Any]], names: list[str]) -> None:
        index = {name: i for i, name in enumerate(names)}
        self.names = names
        self.layer = [v if type(v) is str else text(v) for v in columns["layer"]]
        self.row = [index.get(name) for name in columns["layer"]]
        table = Interner()
        known = table.index  # a text's index (findings repeat a few texts)
        self.columns: dict[str, list[int]] = {}
        for key in _TEXTS:
            values = columns[key]
            if key == "evidence":
                values = [_evidence_text(v) if isinstance(v, dict) else v for v in values]
            self.columns[key] = [known[v] if type(v) is str and v in known else table(text(v))
                                 for v in values]
        self.texts: list[str] = table.values

    def __len__(self) -> int:
        return len(self.row)

    def __getitem__(self, j: int) -> list[Any]:  # type: ignore[override]
        if isinstance(j, slice):
            return [self[i] for i in range(*j.indices(len(self)))]
        return [self.row[j], self.layer[j], *(self.texts[self.columns[k][j]] for k in _TEXTS)]

    def __json__(self) -> dict[str, Any]:
        return {
            "row": self.row,
            "layer": [None if r is not None and self.names[r] == name else name
                      for r, name in zip(self.row, self.layer)],
            "texts": self.texts,
            **self.columns,
        }
