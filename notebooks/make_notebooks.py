"""Write the example notebooks from the cell lists below (run after editing them).

``python notebooks/make_notebooks.py``: notebooks are kept without outputs; CI executes them.
They run from ``notebooks/`` on a fresh clone with the engines in ``examples/``; ``TREX_ENGINES_DIR``
names another folder of engine folders (the real TensorRT exports the tests read, or your own),
which api-examples' recipes for other TensorRT versions need.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

SETUP = '''import os
from pathlib import Path

from trex import *

# The engines: the repository's examples/ (this notebook runs from notebooks/), or the folder of
# engine folders that TREX_ENGINES_DIR names (for instance the real TensorRT exports trex's tests
# read), looked in first when it is set.
ENGINES_DIR = os.environ.get("TREX_ENGINES_DIR")
EXAMPLES = Path.cwd().parent / "examples"
OUT = Path("out")  # what this notebook writes (drawings)
OUT.mkdir(exist_ok=True)


def engine(name):
    """The folder of engine ``name``: in $TREX_ENGINES_DIR when set, else in examples/."""
    for root in (ENGINES_DIR, EXAMPLES):
        if root and (Path(root) / name).is_dir():
            return Path(root) / name
    where = (f"neither in TREX_ENGINES_DIR ({ENGINES_DIR}) nor in" if ENGINES_DIR
             else "not in")
    raise FileNotFoundError(
        f"engine folder {name!r} is {where} examples/ ({EXAMPLES}): set TREX_ENGINES_DIR to a "
        "folder of engine folders that holds it (trex's tests use ../shared/engines)")'''

# api-examples' recipes for exports examples/ does not ship: they run when TREX_ENGINES_DIR is set.
OTHER_VERSIONS = '''# Exports of other TensorRT versions are not in examples/: these recipes run when
# TREX_ENGINES_DIR names a folder that holds them (trex's tests set it to ../shared/engines).
OTHER_VERSIONS = ENGINES_DIR is not None
if not OTHER_VERSIONS:
    print("Recipes for other TensorRT versions: set TREX_ENGINES_DIR to run them.")'''

NOTEBOOKS: dict[str, list[tuple[str, str]]] = {
    "tutorial.ipynb": [
        ("md", "# trex tutorial\n\nLoad a TensorRT engine's exported files and explore them with "
               "pandas. The engine is NVIDIA's INT8 (Q/DQ) ResNet18 from TREx's QAT walkthrough, "
               "shipped in `examples/`."),
        ("code", SETUP),
        ("md", "## Load a plan\n\n`EnginePlan.from_path` takes an engine prefix, a folder or any "
               "one of its files and finds the rest (layer JSON, profile, timings, metadata)."),
        ("code", 'plan = EnginePlan.from_path(engine("a100-resnet18-qat"))\nplan'),
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
        ("md", "## The engine graph\n\nA query picks layers (`type:Reformat`, `precision:FP32`, "
               "`name:~regex` or plain words, all of which must match); the drawing shows them "
               "highlighted with their neighbours, as `trex draw -q` does."),
        ("code", 'from trex.graph import draw_plan, query\nreformats = query(plan, "type:Reformat")\n'
                 "len(reformats.highlighted)"),
        ("code", 'result = draw_plan(plan, OUT / "resnet18-qat.svg")\nresult.nodes, result.edges'),
    ],
    "api-examples.ipynb": [
        ("md", "# trex API examples\n\nShort recipes: the INT8 ResNet18 of `examples/` first, then "
               "exports of other TensorRT versions."),
        ("code", SETUP),
        ("code", 'qat = EnginePlan.from_path(engine("a100-resnet18-qat"))'),
        ("md", "## The engine's inputs and outputs\n\n`plan.io_tensors`: data type, shape, location "
               "and, for TensorRT 11 exports, the min/opt/max shapes of every optimisation profile; "
               "`trex.summary.headline_rows` is the header `trex summary` and the HTML report show."),
        ("code", "[t.as_dict() for t in qat.io_tensors]"),
        ("code", "from trex.summary import headline_rows\nheadline_rows(qat)"),
        ("md", "## Compute model and roofline"),
        ("code", "from trex import compute\n"
                 'compute.annotate_convolutions(qat)[["Name", "attr.macs", "attr.M", "attr.N", '
                 '"attr.K", "attr.arithmetic_intensity"]].head()'),
        ("code", "compute.roofline(qat).head()"),
        ("md", "## Timings analysis"),
        ("code", "from trex import iteration_stats\niteration_stats.timing_analysis(qat)"),
        ("md", "## ONNX operators\n\nWhich ONNX operators cost the most time (from each layer's "
               "`Metadata`, else its fused name)."),
        ("code", "from trex import onnx_map\nonnx_map.latency_by_onnx_op(qat)"),
        ("md", "## Queries and subgraphs of big engines"),
        ("code", "from trex.graph import beam, query\n"
                 'sub = query(qat, "type:Reformat precision:FP16")\n'
                 "len(sub.highlighted), len(sub.layers)"),
        ("code", 'len(query(qat, r"name:~^layer4").highlighted), len(beam(qat, "QuantizeLinear_15", 2))'),
        ("md", "## Other TensorRT versions"),
        ("code", OTHER_VERSIONS),
        ("md", "Multi-profile engines and the one-line text dump inside logs (TensorRT 10.16). Each "
               "profile compares like an engine of its own (e.g. the prefill and decode profiles "
               "of an LLM): `EnginePlan.each_profile`, or `trex compare ENGINE --profiles`."),
        ("code", "if OTHER_VERSIONS:\n"
                 '    log = engine("trt10.16-multiprofile-oneline") / "log-main.py.log"\n'
                 "    p0, p1 = EnginePlan(log), EnginePlan(log, profile_id=1)\n"
                 '    display((p0.profiles, len(p0.df), p1.df["Name"].iloc[1]))\n'
                 "    from trex.compare import compare_by_type\n"
                 "    display(compare_by_type(EnginePlan.each_profile(log)))"),
        ("md", "Myelin (kgen/gemm) layers and ONNX node metadata (TensorRT 10)."),
        ("code", "if OTHER_VERSIONS:\n"
                 '    alexnet = EnginePlan.from_path(engine("trt10.4-alexnet-fp16"))\n'
                 '    display(alexnet.df[["Name", "type", "precision", "Metadata", "latency.pct_time"]])\n'
                 "    display(onnx_map.latency_by_onnx_op(alexnet))"),
        ("md", "Names-only exports still load (with a warning)."),
        ("code", "if OTHER_VERSIONS:\n"
                 '    detr = EnginePlan.from_path(engine("trt10-detr-int8-names-only"))\n'
                 "    display((len(detr.df), detr.detailed, detr.warnings[-1]))"),
        ("md", "Several runs in one profile file (TensorRT 7 script output)."),
        ("code", "if OTHER_VERSIONS:\n"
                 '    folder = engine("trt7-googlenet-int8-concatenated")\n'
                 "    display([EnginePlan.from_path(folder, profile_run=i).profile_count "
                 "for i in range(7)])"),
    ],
    "engine_report_card.ipynb": [
        ("md", "# Engine report card\n\nEvery section of TREx's report card on one engine. "
               "Set `ENGINE` to your own engine prefix or folder."),
        ("code", SETUP + '\nENGINE = engine("a100-resnet18-qat")\nset_wide_display()'),
        ("code", "plan = EnginePlan.from_path(ENGINE)"),
        ("code", 'section_header("Plan graph")'),
        ("code", 'report_card_draw_plan_graph(plan, str(OUT / "report_card_graph"));'),
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
        ("md", "# Comparing engines\n\nThe three INT8 ResNet18 engines of TREx's QAT walkthrough "
               "in `examples/` (A100, batch 32): Q/DQ on the convolutions only, then on the "
               "residual connections, then on the global average pooling too."),
        ("code", SETUP),
        ("code", 'names = ["qat", "qat-residual", "qat-residual-qgap"]\n'
                 'plans = [EnginePlan.from_path(engine(f"a100-resnet18-{n}"), name=n) for n in names]'),
        ("code", "compare_engines_summaries_tbl(plans)"),
        ("md", "Reformat layers fall 12 -> 3 -> 1 as the Q/DQ placement is fixed, and so does latency."),
        ("code", 'import pandas as pd\npd.DataFrame({p.name: {"reformats": int((p.df["type"] == '
                 '"Reformat").sum()), "latency ms": round(p.total_runtime, 4)} for p in plans})'),
        ("code", "compare_engines_overview(plans);"),
        ("code", "from trex.compare import compare_by_type, layer_regressions, align_layers\n"
                 "compare_by_type(plans)"),
        ("code", "align_layers(plans[0], plans[2])[['a', 'b', 'match', 'type']].head(12)"),
        ("code", "layer_regressions(plans[1:3], top=5)"),
        ("code", "compare_engines_layer_latencies(plans[0], plans[2]);"),
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
