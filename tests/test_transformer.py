"""The transformer view, decode against bandwidth and prefill vs decode, on the generated decoder.

Every figure is checked against a computation made here from the written JSON files (layer
information, profile, metadata), not from trex's model or the generator's; the shared engines
(CNNs, names-only exports) must show nothing of it.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path

import pytest

import trex
from llm_engines import STEM, write_decoder
from test_lint import ALL_ENGINES
from test_report_browser import Report
from test_report_browser import browser as browser  # the fixture
from trex.cli import main
from trex.html_report import report_payload
from trex.html_report.payload import transformer_payload
from trex.lint import lint_report
from trex.model.validation import check_latency_sum
from trex.summary import headline_rows, transformer_rows
from trex.transformer import (
    FAMILIES,
    blocks_frame,
    family_latency,
    stage_gap,
    step_traffic,
    transformer_view,
)

BITS = {"Half": 16, "BFloat16": 16, "Float": 32, "FP8": 8, "FP4": 4, "Int4": 4, "E8M0": 8,
        "Int32": 32, "Int64": 64}
BLOCK_RE = re.compile(r"/model/layers\.(\d+)/")


@pytest.fixture(scope="module")
def decoders(tmp_path_factory) -> dict[str, Path]:
    """Each variant twice: trtexec timed the prefill profile, or the decode profile."""
    root = tmp_path_factory.mktemp("transformer")
    return {f"{v}-{timed}": write_decoder(root / f"{v}-{timed}", variant=v, timed=timed)
            for v in ("fused", "decomposed") for timed in ("prefill", "decode")}


def _load(folder: Path, profile: int) -> trex.EnginePlan:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", trex.TrexWarning)
        return trex.EnginePlan.from_path(folder, profile_id=profile)


class Written:
    """One profile of the written decoder, read straight from its JSON files."""

    def __init__(self, folder: Path, profile: int):
        graph = json.loads((folder / f"{STEM}.graph.json").read_text())
        suffix = f" [profile {profile}]"
        self.layers = [la for la in graph["Layers"]
                       if (la["Name"].endswith(suffix) if profile else "[profile " not in la["Name"])]
        self.suffix = suffix if profile else ""
        self.inputs = {t["Name"] + self.suffix for t in graph["I/O Tensors"]
                       if t["IOMode"] == "Input"}
        rows = json.loads((folder / f"{STEM}.profile.json").read_text())
        self.ms = {r["name"]: r["averageMs"] for r in rows[1:]}
        self.meta = json.loads((folder / f"{STEM}.profile.metadata.json").read_text())
        self.written = {t["Name"] for la in self.layers for t in la["Outputs"]}

    def names(self, pred) -> list[str]:
        return [la["Name"] for la in self.layers if pred(la)]

    def block(self, la: dict) -> int | None:
        found = BLOCK_RE.search(la.get("Metadata", ""))
        return int(found.group(1)) if found else None

    def latency(self, names: list[str]) -> float:
        return sum(self.ms[n] for n in names)

    def constant(self, tensor: dict) -> bool:
        return tensor["Name"] not in self.written and tensor["Name"] not in self.inputs


def size(tensor: dict) -> int:
    count = math.prod(max(int(d), 1) for d in tensor["Dimensions"])
    return count * BITS[tensor["Datatype"]] // 8


# ------------------------------------------------------------------ the transformer view
@pytest.mark.parametrize("variant", ["fused", "decomposed"])
@pytest.mark.parametrize("profile", [0, 1])
def test_blocks_attention_rope_and_cache_match_the_written_layers(decoders, variant, profile):
    folder = decoders[f"{variant}-prefill"]
    w = Written(folder, profile)
    plan = _load(folder, profile)
    view = transformer_view(plan)
    assert view.grouping == "ONNX Metadata"
    assert view.stage == ("prefill" if profile == 0 else "decode")
    indices = sorted({b for la in w.layers if (b := w.block(la)) is not None})
    assert [b.index for b in view.blocks] == indices == [0, 1]
    for block in view.blocks:
        members = w.names(lambda la, i=block.index: w.block(la) == i)
        names = [plan.table.names[plan.rows[p]] for p in block.positions]
        assert names == members  # the block is exactly the layers its Metadata names
        mine = [la for la in w.layers if w.block(la) == block.index]
        attention = [la for la in mine if la["LayerType"] == "Attention"]
        softmax = [la for la in mine if la.get("ParameterType") == "SoftMax"]
        site = block.sites[0]
        if variant == "fused":
            assert (block.fused, block.decomposed) == (1, 0)
            q, k, v = attention[0]["Inputs"]
            assert site.kv_tensors == (k["Name"], v["Name"])
            assert (site.query_len, site.kv_len) == (q["Dimensions"][2], k["Dimensions"][2])
            assert (site.heads, site.kv_heads) == (q["Dimensions"][1], k["Dimensions"][1])
            rope = [la["Name"] for la in mine if la["LayerType"] == "RotaryEmbedding"]
            cache = [la["Name"] for la in mine if la["LayerType"] == "KVCacheUpdate"]
            assert (block.rope.kind, block.kv_cache.kind) == ("dedicated", "dedicated")
        else:
            assert (block.fused, block.decomposed) == (0, 1) and len(softmax) == 1
            chain = [la["Name"] for la in mine if la["Name"].split(" [")[0].endswith(
                ("self_attn/MatMul", "self_attn/Softmax", "self_attn/MatMul_1"))
                or "self_attn/Div + " in la["Name"]]
            assert [plan.table.names[plan.rows[p]] for p in site.positions] == chain
            assert site.latency_ms == pytest.approx(w.latency(chain))
            scores = next(la for la in mine if la["Name"] == chain[0])["Outputs"][0]
            assert (site.query_len, site.kv_len) == tuple(scores["Dimensions"][2:])
            rope = [la["Name"] for la in mine if "rotary_emb" in la["Name"]]
            cache = [la["Name"] for la in mine if "/Concat_key" in la["Name"]
                     or "/Concat_value" in la["Name"]]
            assert (block.rope.kind, block.kv_cache.kind) == ("elementwise", "elementwise")
        assert [plan.table.names[plan.rows[p]] for p in block.rope.positions] == rope
        assert [plan.table.names[plan.rows[p]] for p in block.kv_cache.positions] == cache
        assert block.rope.latency_ms == pytest.approx(w.latency(rope))
        assert block.kv_cache.latency_ms == pytest.approx(w.latency(cache))
        assert block.latency_ms == pytest.approx(w.latency(members))
        assert block.moe == sum(la["LayerType"] == "MoE" for la in mine)
        assert block.collectives == sum(la["LayerType"] == "DistCollective" for la in mine)
    frame = blocks_frame(plan)
    assert list(frame["attention"]) == [variant] * 2


@pytest.mark.parametrize("variant", ["fused", "decomposed"])
def test_families_add_up_to_the_layer_sum(decoders, variant):
    folder = decoders[f"{variant}-decode"]
    w = Written(folder, 1)
    plan = _load(folder, 1)
    families = family_latency(plan)
    assert list(families) == list(FAMILIES)
    assert sum(f["layers"] for f in families.values()) == len(w.layers)
    assert sum(f["ms"] or 0 for f in families.values()) == pytest.approx(w.latency(
        [la["Name"] for la in w.layers]))
    assert families["collective"]["layers"] == sum(la["LayerType"] == "DistCollective"
                                                   for la in w.layers)
    assert families["MoE"]["layers"] == 1


# ------------------------------------------------------------------ the linter
@pytest.mark.parametrize("profile", [0, 1])
def test_linter_names_the_unfused_chains_with_their_latency(decoders, profile):
    folder = decoders["decomposed-prefill"]
    w = Written(folder, profile)
    report = lint_report(_load(folder, profile), ["transformer"])
    findings = report.findings
    engine = [f for f in findings if f.layer == "(engine)"]
    assert len(engine) == 1 and engine[0].evidence["decomposed_attention"] == 2
    attention = [f for f in findings if "attention runs decomposed" in f.hazard]
    assert [f.layer for f in attention] == w.names(lambda la: la.get("ParameterType") == "SoftMax"
                                                   and w.block(la) is not None)
    for f in attention:
        assert f.evidence["latency_ms"] == pytest.approx(w.latency(f.evidence["chain"]), abs=1e-4)
        assert f.evidence["layers"] == 4 and f.severity in ("warning", "error")
    rope = [f for f in findings if "RoPE runs as" in f.hazard]
    assert [f.evidence["layers"] for f in rope] == [10, 10]
    for f in rope:
        assert all("rotary_emb" in n for n in f.evidence["chain"])
        assert f.evidence["latency_ms"] == pytest.approx(w.latency(f.evidence["chain"]), abs=1e-4)
    cache = [f for f in findings if "KV-cache update runs as" in f.hazard]
    assert [f.evidence["layers"] for f in cache] == [2, 2]


def test_linter_on_the_fused_decoder_finds_only_the_blocks(decoders):
    report = lint_report(_load(decoders["fused-prefill"], 0), ["transformer"])
    assert [f.layer for f in report.findings] == ["(engine)"]
    assert report.findings[0].evidence["fused_attention"] == 2


# ------------------------------------------------------------------ decode against bandwidth
def _expected_traffic(w: Written) -> tuple[int, int, int]:
    """(weights, KV cache, activations) a decode step must move, from the written JSON."""
    weights = 0
    for la in w.layers:
        const = sum(size(t) for t in la["Inputs"] if w.constant(t))
        if la["LayerType"] == "MoE":
            tokens = math.prod(la["Inputs"][0]["Dimensions"][:-1])
            active = min(la["NumExperts"], tokens * la["TopK"])
            const = const * active // la["NumExperts"]
        if la["LayerType"] == "Gather":
            const = min(const, sum(size(t) for t in la["Outputs"]))
        weights += const
    kv_names = {f"present.{i}.{which}{w.suffix}" for i in (0, 1) for which in ("key", "value")}
    cache_inputs = {f"past_key_values.{i}.{which}{w.suffix}" for i in (0, 1)
                    for which in ("key", "value")}
    largest: dict[str, int] = {}
    for la in w.layers:
        for t in (*la["Inputs"], *la["Outputs"]):
            if not w.constant(t):
                largest[t["Name"]] = max(largest.get(t["Name"], 0), size(t))
    kv = sum(largest[n] for n in kv_names)
    activations = sum(s for n, s in largest.items() if n not in kv_names | cache_inputs)
    return weights, kv, activations


@pytest.mark.parametrize("variant", ["fused", "decomposed"])
def test_decode_bandwidth_against_the_written_files(decoders, variant):
    folder = decoders[f"{variant}-decode"]
    w = Written(folder, 1)
    plan = _load(folder, 1)
    traffic = step_traffic(plan)
    assert traffic is not None and traffic.stage == "decode"
    weights, kv, activations = _expected_traffic(w)
    assert (traffic.weights_bytes, traffic.kv_cache_bytes, traffic.activation_bytes) == \
        (weights, kv, activations)
    step = w.meta["performance_summary"]["GPU Compute Time"][3]  # the median
    assert traffic.step_ms == pytest.approx(step)
    device = w.meta["device_information"]
    peak = 2 * float(device["Application Memory Clock Rate"].split()[0]) * \
        device["Memory Bus Width"] / 8
    assert traffic.peak_gbs == pytest.approx(peak, abs=0.1)
    achieved = (weights + kv + activations) / (step * 1e-3) / 1e9
    assert traffic.achieved_gbs == pytest.approx(achieved)
    line = traffic.line()
    assert line.startswith(f"decode moves {(weights + kv + activations) / 1e6:.3g} MB per step in "
                           f"{step:.3g} ms = ")
    assert f", {100 * achieved / peak:.0f} % of the NVIDIA H100 80GB HBM3's 3.35 TB/s" in line
    rows = headline_rows(plan)
    assert rows["Decode bandwidth"].startswith(line)
    assert rows["Transformer"] == transformer_rows(plan)["Transformer"]


def test_prefill_is_judged_only_when_memory_bound(decoders):
    fused = _load(decoders["fused-prefill"], 0)
    traffic = step_traffic(fused, always=True)
    assert traffic is not None and traffic.stage == "prefill"
    shown = step_traffic(fused)
    assert (shown is None) == (traffic.intensity >= traffic.ridge)
    if shown is not None:
        assert "memory-bound" in shown.line()


# ------------------------------------------------------------------ prefill vs decode
def test_compare_profiles_shows_each_stage(decoders, capsys):
    folder = decoders["decomposed-decode"]
    assert main(["compare", str(folder), "--profiles", "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert not any("another network" in m for m in data["warnings"])
    stages = data["stages"]
    assert [r["stage"] for r in stages] == ["prefill", "decode"]
    assert [(r["Sq"], r["Skv"]) for r in stages] == [(2048, 2048), (1, 2048)]
    for k, row in enumerate(stages):
        w = Written(folder, k)
        assert row["layer sum ms"] == pytest.approx(w.latency([la["Name"] for la in w.layers]),
                                                    abs=1e-4)
    assert stages[0]["measured ms"] is None  # trtexec ran the decode profile
    assert stages[1]["measured ms"] == pytest.approx(
        Written(folder, 1).meta["performance_summary"]["GPU Compute Time"][3], abs=1e-4)
    assert stages[1]["bandwidth"].startswith("decode moves")
    families = {r["family"]: r for r in data["families"]}
    assert set(families) == set(FAMILIES)
    gaps = data["stage_gaps"]
    prefill, decode = gaps.values()
    assert "profile 1's" in prefill["explanation"][0]
    assert decode["gap_ms"] < 0  # the sum below the end-to-end time (decode's launch gaps)
    assert any("idle" in line and "between the" in line for line in decode["explanation"])
    assert any("CUDA graphs" in line for line in decode["explanation"])


def test_compare_profiles_text_and_markdown(decoders, capsys):
    folder = decoders["fused-decode"]
    assert main(["compare", str(folder), "--profiles"]) == 0
    out = capsys.readouterr().out
    assert "Stages (transformer view per engine or optimisation profile)" in out
    assert "Latency by family per stage" in out
    assert main(["compare", str(folder), "--profiles", "-f", "markdown"]) == 0
    assert "Layer sum vs measured GPU time per stage" in capsys.readouterr().out


def test_layer_sum_below_the_measure_is_a_note_when_every_layer_is_timed():
    notes, warns = check_latency_sum(0.5, 1.0, 1)
    assert warns == [] and "idle between kernels" in notes[0]
    notes, warns = check_latency_sum(0.5, 1.0, 1, untimed=3)
    assert notes == [] and "partial" in warns[0]


def test_stage_gap_of_a_run_of_another_profile(decoders):
    gap = stage_gap(_load(decoders["fused-prefill"], 1))
    assert gap["measured_ms"] is None
    assert gap["explanation"][0].startswith("cannot compare: the measured run")


# ------------------------------------------------------------------ summary and report
def test_summary_shows_the_view_and_the_bandwidth(decoders, capsys):
    folder = decoders["fused-decode"]
    assert main(["summary", str(folder), "--profile-id", "1"]) == 0
    out = capsys.readouterr().out
    assert "Transformer " in out and "Decode bandwidth" in out and "Transformer blocks:" in out
    assert main(["summary", str(folder), "--profile-id", "1", "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)[0]
    assert data["transformer"]["stage"] == "decode"
    assert data["transformer"]["bandwidth"]["line"].startswith("decode moves")
    assert len(data["transformer"]["blocks"]) == 2


def test_report_shows_view_bandwidth_and_stages(decoders, tmp_path):
    folder = decoders["decomposed-decode"]
    plans = [_load(folder, 0), _load(folder, 1)]
    payload, _ = report_payload(plans, ["prefill", "decode"])
    prefill, decode = payload["engines"]
    for engine in (prefill, decode):
        assert engine["transformer"]["blocks"]["rows"]
        assert "attention fused 0, decomposed 2" in engine["transformer"]["text"]
    assert decode["transformer"]["bandwidth"]["line"].startswith("decode moves")
    assert decode["roofline"]["step"]["line"] == decode["transformer"]["bandwidth"]["line"]
    stages = payload["comparison"]["stages"]
    assert [r[1] for r in stages["table"]["rows"]] == ["prefill", "decode"]
    assert len(stages["gaps"]) == 2
    html = tmp_path / "r.html"
    assert main(["report", str(folder), "--profiles", "-o", str(html)]) == 0
    text = html.read_text()
    assert "decode moves" in text and "transformerSection" in text and "stagesSection" in text


# ------------------------------------------------------------------ nothing on the shared engines
@pytest.mark.parametrize("name", ALL_ENGINES)
def test_shared_engines_have_no_transformer_view(engines, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", trex.TrexWarning)
        plans = trex.EnginePlan.each_profile(engines / name)
    for plan in plans:
        assert not transformer_view(plan)
        assert step_traffic(plan) is None
        assert transformer_rows(plan) == {}
        assert lint_report(plan, ["transformer"]).findings == []
        assert transformer_payload(plan) is None  # the report's engine has no such key


def test_report_page_draws_the_transformer_views(decoders, tmp_path, browser):  # noqa: F811
    html = tmp_path / "llm.html"
    assert main(["report", str(decoders["decomposed-decode"]), "--profiles", "-o", str(html)]) == 0
    page = Report(browser, html, "#tab=overview&engine=1")
    try:
        line = page.js("() => document.getElementById('decode-bandwidth').textContent")
        assert line.startswith("decode moves") and "% of the NVIDIA H100 80GB HBM3" in line
        text = page.js("() => document.getElementById('transformer-text').textContent")
        assert "attention fused 0, decomposed 2" in text
        rows = page.js("() => document.querySelectorAll('#transformer-blocks tbody tr').length")
        assert rows == 2
        page.tab("compare")
        stages = page.js("() => document.querySelectorAll('#stages-table tbody tr').length")
        assert stages == 2
        page.tab("charts")
        for card in page.page.locator("#tab-charts .chart-card").all():
            card.scroll_into_view_if_needed()
        page.charts_settled("charts")
        star = page.js("""() => document.querySelector('[data-chart=roofline] .js-plotly-plot')
            .data.filter(t => String(t.name).includes('whole step')).length""")
        assert star == 1
        assert "decode moves" in page.js("() => document.getElementById('roofline-step').textContent")
        assert page.errors == []
    finally:
        page.close()


def test_blocks_by_structure_when_names_give_no_block_index(decoders, tmp_path):
    """Without Metadata and with names that carry no block index, the blocks are delimited by
    structure (the last norm before each attention) and come out as the Metadata's."""
    source = decoders["fused-decode"]
    graph = json.loads((source / f"{STEM}.graph.json").read_text())
    for layer in graph["Layers"]:
        layer.pop("Metadata", None)
    folder = tmp_path / "anonymous"
    folder.mkdir()
    (folder / f"{STEM}.graph.json").write_text(json.dumps(graph).replace("/model/layers.", "/m/L"))
    by_metadata = transformer_view(_load(source, 1))
    view = transformer_view(_load(folder, 1))
    assert view.grouping == "structure"
    assert [b.positions for b in view.blocks] == [b.positions for b in by_metadata.blocks]
    assert [(b.fused, b.rope.kind, b.kv_cache.kind, b.norms) for b in view.blocks] == \
        [(1, "dedicated", "dedicated", 2)] * 2


def test_bandwidth_line_is_one_value_in_summary_report_and_compare(decoders, capsys):
    folder = decoders["fused-decode"]
    assert main(["summary", str(folder), "--profile-id", "1", "-f", "json"]) == 0
    summary_line = json.loads(capsys.readouterr().out)[0]["transformer"]["bandwidth"]["line"]
    payload, _ = report_payload([_load(folder, 1)], ["decode"])
    assert payload["engines"][0]["transformer"]["bandwidth"]["line"] == summary_line
    assert main(["compare", str(folder), "--profiles", "-f", "json"]) == 0
    stages = json.loads(capsys.readouterr().out)["stages"]
    assert summary_line in json.dumps(stages, ensure_ascii=False)
