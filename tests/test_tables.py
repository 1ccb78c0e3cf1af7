"""Text tables on real engines: never cut inside a number, long names cut so that what tells them
apart stays, and one text form per quantity in every command (bytes, compute capability)."""

from __future__ import annotations

import re

import pytest

from trex import summary as views
from trex.cli import main
from trex.lint import lint_report
from trex.text_forms import bytes_text, capability_text, cut_text, fit_column

ENGINES = ["a100-resnet18-fp32", "a100-resnet18-qat", "trex-mobilenet-qat", "trt8.6-resnet50-int8",
           "trt10.4-alexnet-fp16", "trt10-detr-int8-names-only", "torchtrt-alexnet-fp16"]
NUMBER = re.compile(r"\d(?:[\d]|[.,](?=\d))*")


def _numbers(text: str) -> set[str]:
    return set(NUMBER.findall(text))


def _texts(plan) -> dict[str, list[str]]:
    """Columns of real text a table shows: layer names, tactics, linter evidence."""
    report = lint_report(plan)
    return {
        "names": plan.df["Name"].astype(str).tolist(),
        "tactics": views.tactic_summary(plan)["tactic"].tolist(),
        "evidence": [", ".join(f"{k}={v}" for k, v in f.evidence.items()) for f in report.findings],
    }


@pytest.mark.parametrize("name", ENGINES)
def test_cuts_keep_numbers_whole_and_values_distinct(plan, name):
    columns = _texts(plan(name))
    cut_any = False
    for kind, values in columns.items():
        for width in (24, 40, 60, 70):
            shown = fit_column(values, width)
            longest = max(len(t) for t in shown)
            assert longest <= width or len(set(shown)) == len(set(values))  # wider only to tell apart
            for original, text in zip(values, shown):
                if text != original:
                    cut_any = True
                    pieces = text.split("…")
                    assert original.startswith(pieces[0]) and original.endswith(pieces[-1])
                    at = 0
                    for piece in pieces:  # the pieces shown are the original's, in order
                        at = original.index(piece, at) + len(piece)
                    # every number shown is a whole number of the original, never a piece of one
                    assert _numbers(text) <= _numbers(original), (kind, original, text)
            if kind != "evidence":
                assert len(set(shown)) == len(set(values)), (kind, width)
    assert cut_any  # the widths do cut these engines' texts


def test_the_issue_cases():
    # A linter's evidence cut inside a byte count (bytes_out=642252…0276) no longer happens.
    evidence = "bytes_in=12,845,056 B, bytes_out=6,422,528 B, latency_ms=0.0276, latency_pct=2.5200"
    assert _numbers(cut_text(evidence, 60)) <= _numbers(evidence)
    # Tactics that differ in their middle and their tail stay apart, their family prefix kept.
    tactics = [
        "sm80_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize256x64x32_stage3_"
        "warpsize4x2x1_g1_tensor16x8x8_t1r3s3",
        "sm80_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize256x64x32_stage3_"
        "warpsize4x2x1_g1_tensor16x8x8_t1r1s1",
        "sm80_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize64x128x32_stage5_"
        "warpsize2x2x1_g1_tensor16x8x8_t1r3s3",
    ]
    shown = fit_column(tactics, 70)
    assert len(set(shown)) == 3
    assert all(s.startswith("sm80_xmma") and s.endswith(t[-6:]) for s, t in zip(shown, tactics))
    assert "256x64x32" in shown[0] and "64x128x32" in shown[2]
    # A layer name keeps its suffix.
    name = "layer4.1.conv2.weight + QuantizeLinear_240 + Conv_242 + Add_244 + Relu_245 [profile 1]"
    assert cut_text(name, 60).endswith("Relu_245 [profile 1]")


def test_quantities_print_alike_in_summary_compare_and_lint(engines, capsys):
    qat = str(engines / "a100-resnet18-qat")
    fp32 = str(engines / "a100-resnet18-fp32")
    assert main(["summary", qat, "--top", "3"]) == 0
    summary = capsys.readouterr().out
    assert main(["compare", fp32, qat, "--top", "3"]) == 0
    compare = capsys.readouterr().out
    assert main(["lint", qat]) == 0
    lint = capsys.readouterr().out
    weights = bytes_text(11_702_112)
    assert weights == "11,702,112 B"
    assert re.search(rf"^Weights +{weights}$", summary, flags=re.M)
    assert re.search(rf"^weights +46,738,848 B +{weights}$", compare, flags=re.M)
    assert capability_text(8) == capability_text("8") == "8.0"
    assert re.search(r"^Compute capability +8\.0$", summary, flags=re.M)
    assert re.search(r"^compute capability +8\.0 +8\.0$", compare, flags=re.M)
    assert "bytes_in=19,267,584 B" in lint
    for out in (summary, compare, lint):
        assert not re.search(r"\d…\d", out)  # no number cut in two anywhere
        assert not re.search(r"(?<![\d.,])\d{5,}(?![\d.,])", out), \
            re.search(r".{20}(?<![\d.,])\d{5,}(?![\d.,]).{20}", out)  # bytes are grouped


def test_long_tensor_lists_are_cut_between_tensors():
    from trex.text_forms import items_text

    items = [f"t{i}: [1, {i}, 2048, 128]xBF16 NCHW" for i in range(40)]
    text = items_text(items, 300)
    assert len(text) <= 300 and text.endswith(" more)")
    head, tail = text.rsplit(", … (+", 1)
    shown = next(k for k in range(1, len(items)) if ", ".join(items[:k]) == head)  # whole tensors
    assert int(tail.split(" ")[0]) == len(items) - shown
    assert items_text(items[:3], 300) == ", ".join(items[:3])  # short lists whole
    assert items_text(["x" * 400], 300) == "x" * 400  # one item: the table's own cut applies
