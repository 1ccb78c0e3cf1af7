"""The linters, the compute model and the report's layer details read the plan's layer table: they
make no TREx Layer objects, and they give what the Layer objects give."""

from __future__ import annotations

import dataclasses
import warnings

import pytest

import trex
from llm_engines import write_decoder
from trex.compute import layer_cost, roofline
from trex.compute.plan_costs import plan_costs
from trex.html_report.details import _attribute
from trex.html_report.payload import layer_details, lint_payload
from trex.lint import lint
from trex.model.layer import Layer

ENGINES = ["a100-resnet18-qat", "trex-mobilenet-qat", "trt8.6-resnet50-int8", "trt10.4-alexnet-fp16",
           "trt10.16-mnist-fp32", "torchtrt-alexnet-fp16", "trt10-detr-int8-names-only"]


def _fresh(path) -> trex.EnginePlan:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return trex.EnginePlan.from_path(path)


@pytest.fixture(scope="module")
def decoder(tmp_path_factory):
    return write_decoder(tmp_path_factory.mktemp("llm") / "fused", variant="fused")


@pytest.mark.parametrize("name", ENGINES)
def test_no_layer_objects_on_the_report_path(engines, name, monkeypatch):
    plan = _fresh(engines / name)

    def made(*args, **kwargs):
        raise AssertionError("a Layer object was made")

    monkeypatch.setattr(Layer, "from_table", made)
    lint(plan)
    lint_payload(plan, plan.column("Name"))
    roofline(plan)
    layer_details(plan)
    assert plan._df is None  # nor plan.df


@pytest.mark.parametrize("name", ENGINES)
def test_plan_costs_are_each_layers_cost(engines, name):
    """Costed once per geometry from the table, each row's cost is :func:`layer_cost` of its
    Layer."""
    plan = _fresh(engines / name)
    costs = plan_costs(plan)
    assert [dataclasses.asdict(costs.cost(k)) for k in range(len(costs))] == \
        [dataclasses.asdict(layer_cost(layer)) for layer in plan.layers]


def test_plan_costs_of_the_llm_layers(decoder):
    """Attention, KV-cache updates, MoE and collectives (attributes read typed) as their Layers'."""
    for profile in (0, 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plan = trex.EnginePlan.from_path(decoder, profile_id=profile)
        costs = plan_costs(plan)
        assert {c.model for c in costs.costs} >= {"attention", "kv-cache", "moe", "collective"}
        assert [dataclasses.asdict(costs.cost(k)) for k in range(len(costs))] == \
            [dataclasses.asdict(layer_cost(layer)) for layer in plan.layers]


@pytest.mark.parametrize("name", ENGINES)
def test_layer_details_are_the_layers(engines, name):
    """Each row's attributes and tensors as its Layer's exported fields and Activations say."""
    plan = _fresh(engines / name)
    details = layer_details(plan)
    for row, layer in enumerate(plan.layers):
        attrs, inputs, outputs = details[row]
        fields = {k: v for k, v in layer.exported_fields().items() if k != "Name"}
        assert attrs == {str(k): _attribute(v) for k, v in fields.items()}
        assert [t[:3] + t[4:] for t in inputs] == \
            [[t.name, list(t.shape), t.format, t.precision] for t in layer.inputs]
        assert [t[:3] + t[4:] for t in outputs] == \
            [[t.name, list(t.shape), t.format, t.precision] for t in layer.outputs]


def test_typed_attributes_are_the_exported_ones(engines):
    """The attributes the records hold typed are the raw dict's, absent ones absent."""
    from trex.formats.layer_records import ATTRIBUTE_FIELDS

    plan = _fresh(engines / "trt8.6-resnet50-int8")  # ConvActPool's Conv* keys too
    table = plan.table
    assert any(table.attribute(i, "ConvKernel") is not None for i in plan.rows)
    for i in plan.rows:
        raw = table.raws[table.raw_index[i]]
        for key in ATTRIBUTE_FIELDS:
            assert table.attribute(i, key, "absent") == raw.get(key, "absent")
