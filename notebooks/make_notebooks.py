"""Write the example notebooks from the cell lists below (run after editing them).

``python notebooks/make_notebooks.py``: notebooks are kept without outputs; CI executes them.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

SETUP = '''import os
from pathlib import Path

from trex import *

# The real TensorRT exports beside the repository (override with TREX_ENGINES_DIR).
ENGINES = Path(os.environ.get("TREX_ENGINES_DIR", "../../shared/engines"))'''

NOTEBOOKS: dict[str, list[tuple[str, str]]] = {
    "tutorial.ipynb": [
        ("md", "# trex tutorial\n\nLoad a TensorRT engine's exported files and explore them with "
               "pandas. The engine is TREx's own test engine: MobileNetV2 with Q/DQ (INT8)."),
        ("code", SETUP),
        ("md", "## Load a plan\n\n`EnginePlan.from_path` takes an engine prefix, a folder or any "
               "one of its files and finds the rest (layer JSON, profile, timings, metadata)."),
        ("code", 'plan = EnginePlan.from_path(ENGINES / "trex-mobilenet-qat")\nplan'),
        ("code", "summary_dict(plan)"),
        ("code", "plan.summary()"),
        ("md", "## The layer table\n\n`plan.df` has one row per layer with TREx's column names."),
        ("code", 'plan.df[["Name", "type", "precision", "latency.avg_time", "latency.pct_time"]].head()'),
        ("code", "plan.df.nlargest(3, 'latency.pct_time')"),
        ("code", 'plan.df.groupby(["type"]).sum()[["latency.avg_time"]]'),
        ("code", 'plan.df.groupby(["precision"])["latency.avg_time"].agg(["count", "sum"])'),
        ("md", "## Timings and warnings\n\n`plan.timings` holds every `--exportTimes` record; "
               "`plan.warnings` what looked odd in the inputs."),
        ("code", "plan.timings.describe()"),
        ("code", "plan.warnings"),
        ("md", "## Linters"),
        ("code", "from trex.lint import lint\nfindings = lint(plan)\n"
                 "findings.groupby(['linter', 'severity']).size()"),
        ("md", "## The engine graph"),
        ("code", 'from trex.graph import draw_plan\nresult = draw_plan(plan, "mobilenet.svg")\n'
                 "result.nodes, result.edges"),
    ],
    "api-examples.ipynb": [
        ("md", "# trex API examples\n\nShort recipes on real engines of several TensorRT versions."),
        ("code", SETUP),
        ("md", "## Multi-profile engines and the one-line text dump inside logs"),
        ("code", 'log = ENGINES / "trt10.16-multiprofile-oneline" / "log-main.py.log"\n'
                 "p0, p1 = EnginePlan(log), EnginePlan(log, profile_id=1)\n"
                 'p0.profiles, len(p0.df), p1.df["Name"].iloc[1]'),
        ("md", "Each profile compares like an engine of its own (e.g. the prefill and decode "
               "profiles of an LLM): `EnginePlan.each_profile`, or `trex compare ENGINE --profiles`."),
        ("code", "from trex.compare import compare_by_type\n"
                 "compare_by_type(EnginePlan.each_profile(log))"),
        ("md", "## The engine's inputs and outputs\n\n`plan.io_tensors`: data type, shape, location "
               "and, for TensorRT 11 exports, the min/opt/max shapes of every optimisation profile; "
               "`trex.summary.headline_rows` is the header `trex summary` and the HTML report show."),
        ("code", "[t.as_dict() for t in p0.io_tensors]"),
        ("code", "from trex.summary import headline_rows\nheadline_rows(p0)"),
        ("md", "## Myelin (kgen/gemm) layers and ONNX node metadata (TensorRT 10)"),
        ("code", 'alexnet = EnginePlan.from_path(ENGINES / "trt10.4-alexnet-fp16")\n'
                 'alexnet.df[["Name", "type", "precision", "Metadata", "latency.pct_time"]]'),
        ("code", "from trex import onnx_map\nonnx_map.latency_by_onnx_op(alexnet)"),
        ("md", "## Names-only exports still load (with a warning)"),
        ("code", 'detr = EnginePlan.from_path(ENGINES / "trt10-detr-int8-names-only")\n'
                 "len(detr.df), detr.detailed, detr.warnings[-1]"),
        ("md", "## Several runs in one profile file (TensorRT 7 script output)"),
        ("code", 'folder = ENGINES / "trt7-googlenet-int8-concatenated"\n'
                 "[EnginePlan.from_path(folder, profile_run=i).profile_count for i in range(7)]"),
        ("md", "## Compute model and roofline"),
        ("code", 'qat = EnginePlan.from_path(ENGINES / "a100-resnet18-qat")\n'
                 "from trex import compute\n"
                 'compute.annotate_convolutions(qat)[["Name", "attr.macs", "attr.M", "attr.N", '
                 '"attr.K", "attr.arithmetic_intensity"]].head()'),
        ("code", "compute.roofline(qat).head()"),
        ("md", "## Timings analysis"),
        ("code", "from trex import timings\ntimings.timing_analysis(qat)"),
        ("md", "## Subgraphs of big engines"),
        ("code", "from trex.graph import beam, query\n"
                 'sub = query(qat, r"layer4")\nlen(sub.layers)'),
    ],
    "engine_report_card.ipynb": [
        ("md", "# Engine report card\n\nEvery section of TREx's report card on one engine. "
               "Set `ENGINE` to your own engine prefix or folder."),
        ("code", SETUP + '\nENGINE = ENGINES / "a100-resnet18-qat"\nset_wide_display()'),
        ("code", "plan = EnginePlan.from_path(ENGINE)"),
        ("code", 'section_header("Plan graph")'),
        ("code", 'report_card_draw_plan_graph(plan, "report_card_graph");'),
        ("code", 'section_header("Summary")\nplan.summary()'),
        ("code", 'section_header("Latency sunburst")\n'
                 'layer_latency_sunburst(plan.df, "Layer latencies (ms)");'),
        ("code", 'section_header("Table view")\nreport_card_table_view(plan);'),
        ("code", 'section_header("Engine timings")\nplot_engine_timings(plan);'),
        ("code", 'section_header("Performance")\nreport_card_perf_overview(plan);'),
        ("code", 'section_header("Memory footprint")\nreport_card_memory_footprint(plan);'),
        ("code", 'section_header("Convolutions")\n'
                 'report_card_convolutions_overview(plan.get_layers_by_type("Convolution"));'),
        ("code", 'section_header("Tactics")\n'
                 'display_df(group_count(plan.df, "tactic"))'),
        ("code", 'section_header("Experimental: GEMM and efficiency")\n'
                 "report_card_gemm_MNK(plan);\nreport_card_gemm_MNK_scatter(plan);\n"
                 "report_card_efficiency_vs_latency_3d(plan);\nreport_card_perf_scatter(plan);"),
        ("code", 'section_header("Linters")\n'
                 "display_df(ConvLinter(plan).lint())\ndisplay_df(ReformatLinter(plan).lint())\n"
                 "display_df(SliceLinter(plan).lint())\ndisplay_df(QDQLinter(plan).lint())"),
        ("code", 'section_header("Reformats")\nreport_card_reformat_overview(plan);'),
        ("code", 'section_header("Pointwise")\nreport_card_pointwise_lint(plan);'),
    ],
    "compare_engines.ipynb": [
        ("md", "# Comparing engines\n\nThe five ResNet18 engines of TREx's QAT walkthrough (A100, "
               "batch 32): FP32, FP16, and INT8 with three rounds of Q/DQ placement fixes."),
        ("code", SETUP),
        ("code", 'names = ["fp32", "fp16", "qat", "qat-residual", "qat-residual-qgap"]\n'
                 'plans = [EnginePlan.from_path(ENGINES / f"a100-resnet18-{n}", name=n) for n in names]'),
        ("code", "compare_engines_summaries_tbl(plans)"),
        ("md", "Reformat layers fall 12 -> 3 -> 1 as the Q/DQ placement is fixed, and so does latency."),
        ("code", 'import pandas as pd\npd.DataFrame({p.name: {"reformats": int((p.df["type"] == '
                 '"Reformat").sum()), "latency ms": round(p.total_runtime, 4)} for p in plans})'),
        ("code", "compare_engines_overview(plans);"),
        ("code", "from trex.compare import compare_by_type, layer_regressions, align_layers\n"
                 "compare_by_type(plans)"),
        ("code", "align_layers(plans[2], plans[4])[['a', 'b', 'match', 'type']].head(12)"),
        ("code", "layer_regressions(plans[3:5], top=5)"),
        ("code", "compare_engines_layer_latencies(plans[2], plans[4]);"),
    ],
}


def build() -> list[Path]:
    """Write every notebook; return their paths."""
    paths = []
    for name, cells in NOTEBOOKS.items():
        # Stable cell ids (nbformat's are random), so that regenerating changes nothing.
        nb = new_notebook(cells=[(new_markdown_cell if kind == "md" else new_code_cell)(src, id=f"cell-{i}")
                                 for i, (kind, src) in enumerate(cells)])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        path = HERE / name
        nbformat.write(nb, path)
        paths.append(path)
    return paths


if __name__ == "__main__":
    for path in build():
        print(path)
