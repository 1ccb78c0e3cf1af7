"""Layer queries (trex.model.query) on real engines, through the API and ``trex draw -q``.

Reference figures: ../shared/engines/README.md (a100-resnet18-qat: Reformat 12 layers; precision
of the first input INT8 21, FP16 11, FP32 3).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

import trex
from trex.cli import main
from trex.graph import GraphQueryError, query
from trex.model.query import QueryError, available_keys, select_layers, split_terms


def _names(plan, text: str) -> list[str]:
    return [layer.name for layer in select_layers(plan.layers, text)]


def test_key_value_terms_match_the_layer_facts(plan):
    qat = plan("a100-resnet18-qat")
    reformats = _names(qat, "type:Reformat")
    assert len(reformats) == 12 == int((qat.df["type"] == "Reformat").sum())
    assert _names(qat, "type:reformat") == reformats  # values ignore case
    assert len(_names(qat, "precision:FP32")) == 3
    assert len(_names(qat, "precision:int8")) == 21
    both = _names(qat, "type:Reformat precision:FP16")  # every term must match
    assert len(both) == 10 and set(both) < set(reformats)
    assert _names(qat, "type:Reformat precision:INT8") == []
    assert _names(qat, "Origin:QDQ") == _names(qat, "origin:qdq")  # an attribute, by its name
    assert len(_names(qat, "Origin:QDQ")) == 10


def test_regex_terms_and_plain_words(plan):
    qat = plan("a100-resnet18-qat")
    layer4 = _names(qat, "name:~^layer4")
    assert len(layer4) == 5 and all(n.startswith("layer4.") for n in layer4)
    assert _names(qat, '"name:~Conv_9$"') == ["conv1.weight + QuantizeLinear_7 + Conv_9"]
    assert len(_names(qat, "tactic:~^sm80")) == 20
    # A plain word is a regex over names, types and attributes (what --query always matched).
    assert _names(qat, "QuantizeLinear_15") == [
        "QuantizeLinear_15",
        "layer3.0.downsample.0.weight + QuantizeLinear_154 + Conv_156 + Add_158 + Relu_159"]
    assert _names(qat, r"QuantizeLinear_15\b") == ["QuantizeLinear_15"]
    assert _names(qat, "^Origin:QDQ$") == _names(qat, "Origin:QDQ")
    # A compiled pattern is searched like a plain word, whole (spaces included).
    assert [layer.name for layer in select_layers(qat.layers, re.compile("Conv_9$"))] == \
        ["conv1.weight + QuantizeLinear_7 + Conv_9"]


def test_onnx_key_reads_metadata(plan):
    resnet50 = plan("trt8.6-resnet50-int8")
    found = _names(resnet50, r"onnx:~^/backbone/layer4/layer4\.2/")
    assert len(found) == 3 and _names(resnet50, r"metadata:~^/backbone/layer4/layer4\.2/") == found


def test_errors_name_the_keys_that_exist(plan):
    qat = plan("a100-resnet18-qat")
    with pytest.raises(QueryError) as caught:
        select_layers(qat.layers, "kind:Reformat")
    message = str(caught.value)
    assert "unknown query key 'kind'" in message
    keys = available_keys(qat.layers)
    assert keys[:4] == ["name", "type", "precision", "tactic"] and "LayerType" in keys
    assert all(k in message for k in keys) and "\n" not in message
    with pytest.raises(QueryError, match="bad regular expression"):
        select_layers(qat.layers, "name:~(")
    with pytest.raises(QueryError, match="unclosed double quote"):
        select_layers(qat.layers, '"name:~Conv')
    with pytest.raises(GraphQueryError, match="unknown query key"):  # through trex.graph.query
        query(qat, "kind:Reformat")


def test_split_terms_keeps_backslashes_and_quoted_spaces():
    assert split_terms(r'type:Reformat  "name:~Conv_0 \+ Relu_1" layer4\.2') == [
        "type:Reformat", r"name:~Conv_0 \+ Relu_1", r"layer4\.2"]
    assert split_terms('""') == [""]


def test_draw_query_by_type_highlights_the_reformats(engines, tmp_path, capsys):
    out = tmp_path / "reformats.svg"
    assert main(["draw", str(engines / "a100-resnet18-qat"), "-q", "type:Reformat",
                 "--layout", "own", "-o", str(out)]) == 0
    assert "Created file://" in capsys.readouterr().out
    sub = query(trex.EnginePlan.from_path(engines / "a100-resnet18-qat"), "type:Reformat")
    assert len(sub.highlighted) == 12
    titles = {t.text for t in ET.parse(out).getroot().iter("{http://www.w3.org/2000/svg}title")}
    assert {"QuantizeLinear_2", "QuantizeLinear_250"} <= {t.split("\n")[0] for t in titles if t}


def test_draw_bad_query_is_one_line_and_exit_2(engines, tmp_path, capsys):
    path = str(engines / "a100-resnet18-qat")
    assert main(["draw", path, "-q", "kind:Reformat", "-o", str(tmp_path / "x.svg")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("trex draw: error: unknown query key 'kind'") and "\n" not in err
    assert "name, type, precision, tactic" in err and "TacticName" in err
    assert main(["draw", path, "-q", "type:Softmax", "-o", str(tmp_path / "x.svg")]) == 2
    assert "no layer matches 'type:Softmax'" in capsys.readouterr().err
    assert not (tmp_path / "x.svg").exists()
