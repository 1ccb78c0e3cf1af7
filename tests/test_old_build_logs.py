"""TensorRT 8.2/8.5 verbose build logs read in full: tensors, precisions, edges and kernel names.

No 8.2 verbose build log is among the real files in ../shared/engines, so ``LOG_82`` is written here
from the format as published (../shared/FORMATS.md; the 8.2/8.5 logs quoted in public TensorRT
issues): ``Layer(Type): name, Tactic: <decimal>, in[Dtype(dims)], ... -> out[Dtype(dims)]`` lines
after ``Engine Layer Information:`` (tensor names may hold commas and brackets), and autotuning
records where ``LAYER Set Tactic Name: KERNEL Tactic: <decimal>`` names the tactic timed on the next
line. The 8.6/10.x forms stay covered by the real logs in test_tactics.py.
"""

from __future__ import annotations

import warnings

import pytest

import trex
from trex import tactics
from trex.formats import log as log_reader
from trex.formats.build_log import parse_build_log, tactic_key
from trex.graph.dot import DotGraph
from trex.graph.formatters import layer_type_formatter

CONV1 = "sm80_xmma_fprop_implicit_gemm_f16f16_f16f16_f16_nhwckrsc_nhwc_tilesize256x128x32_stage3_" \
        "warpsize4x2x1_g1_tensor16x8x16_t1r3s3"
CONV1_SLOW = "ampere_scudnn_128x64_relu_small_nn_v1"
CONV2 = "ampere_h16816cudnn_128x64_sliced1x2_ldg8_relu_exp_stages_64x3_small_nhwc_tn_v1"
POOL = "sm50_xmma_pooling_coalescedC_NHWC_kMAX_3_False"
FOREIGN = "{ForeignNode[Transpose_30...(Unnamed Layer* 48) [Shuffle]]}"
T = "[12/04/2021-06:44:{:02d}] "


def _log_82() -> str:
    """A trtexec --verbose --fp16 build log of TensorRT 8.2 (see the module docstring)."""
    lines = [
        "&&&& RUNNING TensorRT.trtexec [TensorRT v8201] # trtexec --onnx=centerpoint.onnx --fp16 "
        "--verbose --saveEngine=centerpoint.engine",
        T.format(10) + "[I] === Model Options ===",
        T.format(10) + "[I] Format: ONNX",
        T.format(10) + "[I] Model: centerpoint.onnx",
        T.format(10) + "[I] === Build Options ===",
        T.format(10) + "[I] Precision: FP32+FP16",
        T.format(10) + "[I] TensorRT version: 8.2.1",
        T.format(11) + "[I] [TRT] [MemUsageChange] Init CUDA: CPU +328, GPU +0, now: CPU 335, GPU 1250 "
        "(MiB)",
        T.format(12) + "[V] [TRT] ConvReluFusion: Fusing Conv_15 with Relu_16",
        T.format(12) + "[V] [TRT] ConvReluFusion: Fusing Conv_17 with Relu_18",
        T.format(12) + "[V] [TRT] After vertical fusions: 5 layers",
        T.format(12) + "[I] [TRT] Graph optimization time: 0.0106841 seconds.",
        T.format(12) + "[V] [TRT] Constructing optimization profile number 0 [1/1].",
        T.format(13) + "[V] [TRT] =============== Computing costs for Conv_15 + Relu_16",
        T.format(13) + "[V] [TRT] *************** Autotuning format combination: "
        "Half(8294400,32400,180,1) -> Half(8294400,32400,180,1) ***************",
        T.format(13) + "[V] [TRT] --------------- Timing Runner: Conv_15 + Relu_16 (CaskConvolution)",
        T.format(13) + f"[V] [TRT] Conv_15 + Relu_16 Set Tactic Name: {CONV1_SLOW} Tactic: "
        "1825138533642645384",
        T.format(13) + "[V] [TRT] Tactic: 1825138533642645384 Time: 1.93946",
        T.format(13) + "[V] [TRT] Fastest Tactic: 1825138533642645384 Time: 1.93946",
        T.format(13) + "[V] [TRT] >>>>>>>>>>>>>>> Chose Runner Type: CaskConvolution Tactic: "
        "1825138533642645384",
        T.format(13) + "[V] [TRT] *************** Autotuning format combination: "
        "Half(4147200,1:8,23040,128) -> Half(4147200,1:8,23040,128) ***************",
        T.format(13) + "[V] [TRT] --------------- Timing Runner: Conv_15 + Relu_16 (CaskConvolution)",
        T.format(13) + f"[V] [TRT] Conv_15 + Relu_16 Set Tactic Name: {CONV1} Tactic: "
        "6972489290272968208",
        T.format(13) + "[V] [TRT] Tactic: 6972489290272968208 Time: 0.584736",
        T.format(13) + f"[V] [TRT] Conv_15 + Relu_16 Set Tactic Name: {CONV2} Tactic: "
        "-8431788508843860955",
        T.format(13) + "[V] [TRT] Tactic: -8431788508843860955 Time: 0.612352",
        T.format(13) + "[V] [TRT] Fastest Tactic: 6972489290272968208 Time: 0.584736",
        T.format(13) + "[V] [TRT] >>>>>>>>>>>>>>> Chose Runner Type: CaskConvolution Tactic: "
        "6972489290272968208",
        T.format(14) + "[V] [TRT] =============== Computing costs for Conv_17 + Relu_18",
        T.format(14) + "[V] [TRT] *************** Autotuning format combination: "
        "Half(4147200,1:8,23040,128) -> Half(2073600,1:8,11520,64) ***************",
        T.format(14) + "[V] [TRT] --------------- Timing Runner: Conv_17 + Relu_18 (CaskConvolution)",
        T.format(14) + f"[V] [TRT] Conv_17 + Relu_18 Set Tactic Name: {CONV2} Tactic: "
        "-8431788508843860955",
        T.format(14) + "[V] [TRT] Tactic: -8431788508843860955 Time: 0.318336",
        T.format(14) + f"[V] [TRT] Conv_17 + Relu_18 Set Tactic Name: {CONV1} Tactic: "
        "6972489290272968208",
        T.format(14) + "[V] [TRT] Tactic: 6972489290272968208 Time: 0.334624",
        T.format(14) + "[V] [TRT] Fastest Tactic: -8431788508843860955 Time: 0.318336",
        T.format(14) + "[V] [TRT] >>>>>>>>>>>>>>> Chose Runner Type: CaskConvolution Tactic: "
        "-8431788508843860955",
        T.format(15) + "[V] [TRT] =============== Computing costs for MaxPool_22",
        T.format(15) + "[V] [TRT] *************** Autotuning format combination: "
        "Half(8294400,1:8,46080,256) -> Half(2073600,1:8,23040,256) ***************",
        T.format(15) + "[V] [TRT] --------------- Timing Runner: MaxPool_22 (CaskPooling)",
        T.format(15) + f"[V] [TRT] MaxPool_22 Set Tactic Name: {POOL} Tactic: -1275327216584025627",
        T.format(15) + "[V] [TRT] Tactic: -1275327216584025627 Time: 0.104768",
        T.format(15) + "[V] [TRT] Fastest Tactic: -1275327216584025627 Time: 0.104768",
        T.format(15) + "[V] [TRT] >>>>>>>>>>>>>>> Chose Runner Type: CaskPooling Tactic: "
        "-1275327216584025627",
        T.format(20) + "[V] [TRT] Formats and tactics selection completed in 7.39125 seconds.",
        T.format(20) + "[V] [TRT] After reformat layers: 7 layers",
        T.format(21) + "[V] [TRT] Engine generation completed in 9.86451 seconds.",
        T.format(21) + "[V] [TRT] Engine Layer Information:",
        "Layer(Reformat): Reformatting CopyNode for Input Tensor 0 to Conv_15 + Relu_16, Tactic: 0, "
        "input[Float(1,256,180,180)] -> Reformatted Input Tensor 0 to Conv_15 + Relu_16"
        "[Half(1,256,180,180)]",
        "Layer(CaskConvolution): Conv_15 + Relu_16, Tactic: 6972489290272968208, Reformatted Input "
        "Tensor 0 to Conv_15 + Relu_16[Half(1,256,180,180)] -> 231[Half(1,256,180,180)]",
        "Layer(CaskConvolution): Conv_17 + Relu_18, Tactic: -8431788508843860955, "
        "231[Half(1,256,180,180)] -> 233[Half(1,128,180,180)]",
        "Layer(CaskConvolution): Conv_19 + Add_20 + Relu_21, Tactic: 6972489290272968208, "
        "233[Half(1,128,180,180)], 231[Half(1,256,180,180)] -> 236[Half(1,256,180,180)]",
        "Layer(CaskPooling): MaxPool_22, Tactic: -1275327216584025627, 236[Half(1,256,180,180)] -> "
        "237[Half(1,256,90,90)]",
        f"Layer(Myelin): {FOREIGN}, Tactic: 0, 237[Half(1,256,90,90)] -> Reformatted Output Tensor 0 "
        f"to {FOREIGN}[Half(1,8100,256)]",
        f"Layer(Reformat): Reformatting CopyNode for Output Tensor 0 to {FOREIGN}, Tactic: 0, "
        f"Reformatted Output Tensor 0 to {FOREIGN}[Half(1,8100,256)] -> scores, boxes"
        "[Float(1,8100,256)]",
        "",
        T.format(22) + "[I] [TRT] [MemUsageChange] Init cuBLAS/cuBLASLt: CPU +0, GPU +8, now: CPU "
        "1203, GPU 1745 (MiB)",
        "[12/04/2021-06:44:22] [I] Engine built in 12.3405 sec.",
    ]
    return "\n".join(lines) + "\n"


@pytest.fixture()
def log_82(tmp_path):
    path = tmp_path / "centerpoint.engine.build.log"
    path.write_text(_log_82())
    return path


def test_82_engine_layers_have_tensors_and_decimal_tactics(log_82):
    info = log_reader.read(log_82).layer_info
    assert info is not None and len(info.layers) == 7
    conv3 = info.layers[3]
    assert conv3["Name"] == "Conv_19 + Add_20 + Relu_21"
    assert conv3["TacticValue"] == "6972489290272968208"  # as the log writes it
    assert [t["Name"] for t in conv3["Inputs"]] == ["233", "231"]
    assert conv3["Inputs"][0]["Dimensions"] == [1, 128, 180, 180]
    assert conv3["Outputs"][0]["Format/Datatype"] == "Row major linear Half format"
    # names with commas and brackets survive
    last = info.layers[-1]
    assert last["Inputs"][0]["Name"] == f"Reformatted Output Tensor 0 to {FOREIGN}"
    assert [t["Name"] for t in last["Outputs"]] == ["scores, boxes"]
    assert last["Outputs"][0]["Dimensions"] == [1, 8100, 256]
    # kernel names from the Set Tactic Name lines, matched by tactic id (decimal, negative too)
    assert [layer.get("TacticName") for layer in info.layers[1:5]] == [CONV1, CONV2, CONV1, POOL]


def test_82_plan_has_precisions_sizes_and_edges(log_82):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = trex.EnginePlan.from_path(log_82)
    assert len(plan.df) == 7
    assert plan.df["precision"].tolist() == ["FP32", "FP16", "FP16", "FP16", "FP16", "FP16", "FP16"]
    assert plan.df["tactic"].tolist()[1:5] == [CONV1, CONV2, CONV1, POOL]
    # activations: every tensor counted with its dtype (Half 2 B, Float 4 B)
    assert plan.df["total_io_size_bytes"].iat[0] == 1 * 256 * 180 * 180 * (4 + 2)
    assert plan.total_act_size == sum(
        sum(t.size_bytes for t in layer.inputs + layer.outputs) for layer in plan.layers)
    assert plan.total_act_size > 0
    # trex draw: every tensor written by one layer and read by another is an edge
    graph = DotGraph(plan, layer_type_formatter)
    produced = {t.name for layer in plan.layers for t in layer.outputs}
    links = sum(1 for layer in plan.layers for t in layer.inputs if t.name in produced)
    assert links == 7  # 6 in a chain plus the residual 231 -> Conv_19 + Add_20 + Relu_21
    layer_ids = {n.id for n in graph.nodes if n.kind == "layer"}
    layer_edges = [e for e in graph.edges if e.src in layer_ids and e.dst in layer_ids]
    assert len(layer_ids) == 7 and len(layer_edges) == links


def test_82_tactic_verdicts_and_names(log_82):
    log = parse_build_log(log_82.read_text(), str(log_82))
    assert [t.tactic_name for t in log.tactics] == [CONV1_SLOW, CONV1, CONV2, CONV2, CONV1, POOL]
    df = tactics.layer_tactics(log).set_index("layer")
    conv1 = df.loc["Conv_15 + Relu_16"]
    assert conv1["chosen_tactic_name"] == CONV1 and conv1["chosen_is_fastest"]
    assert conv1["chosen_ms"] == 0.584736 and not conv1["faster_elsewhere"]
    # 8.2 prints no "profiling completed in" lines: no autotuning time, not 0 s
    assert conv1["autotune_s"] != conv1["autotune_s"]  # NaN
    summary = tactics.build_summary(log)
    assert summary["autotune_s"] is None and summary["tensorrt_version"] == "8.2.1"
    passes = tactics.build_passes(log)
    assert passes["tactic_selection_s"].tolist() == [7.39125]


def test_tactic_key_matches_decimal_and_hex_ids():
    assert tactic_key("-8431788508843860955") == tactic_key("0x8afc450655241c25")
    assert tactic_key("0x0000000000000000") == tactic_key("0") == 0
    assert tactic_key("not a tactic") is None and tactic_key(None) is None


def test_85_set_tactic_name_lines_with_hex_ids():
    """8.5 writes the same lines with hexadecimal ids (as in jetson-inference's published log), and
    the layer list with hexadecimal tactics in the ``name[Dtype(dims)]`` form."""
    name = "turing_h1688cudnn_256x128_ldg8_relu_exp_medium_nhwc_tn_v1"
    text = "\n".join([
        "[V] [TRT] =============== Computing costs for loss3/classifier",
        "[V] [TRT] *************** Autotuning format combination: Half(1024,1,1,1) -> "
        "Half(1000,1,1,1) ***************",
        "[V] [TRT] --------------- Timing Runner: loss3/classifier (CaskGemmConvolution)",
        f"[V] [TRT] loss3/classifier Set Tactic Name: {name} Tactic: 0xdc1c841ef1cd3e8e",
        "[V] [TRT] Tactic: 0xdc1c841ef1cd3e8e Time: 0.0422516",
        "[V] [TRT] loss3/classifier Set Tactic Name: sm70_xmma_gemm_f16f16_f16f16_f16_tn_n_"
        "tilesize32x32x64_stage1_warpsize2x2x1_tensor8x8x4 Tactic: 0x00000000000202af numSplitK: 1 "
        "numBuffers: 0 numKernels: 1",
        "[V] [TRT] Tactic: 0x00000000000202af skipped. Scratch requested: 9, available: 0",
        "[V] [TRT] Fastest Tactic: 0xdc1c841ef1cd3e8e Time: 0.0422516",
        "[V] [TRT] >>>>>>>>>>>>>>> Chose Runner Type: CaskGemmConvolution Tactic: 0xdc1c841ef1cd3e8e",
        "[02/08/2023-15:25:37] [V] [TRT] Engine Layer Information:",
        "Layer(CaskGemmConvolution): loss3/classifier, Tactic: 0xdc1c841ef1cd3e8e, "
        "pool5/7x7_s1[Half(1,1024,1,1)] -> loss3/classifier[Half(1,1000,1,1)]",
    ])
    log = parse_build_log(text)
    assert [(t.tactic, t.tactic_name, t.status) for t in log.tactics] == [
        ("0xdc1c841ef1cd3e8e", name, "timed"),
        ("0x00000000000202af", "sm70_xmma_gemm_f16f16_f16f16_f16_tn_n_tilesize32x32x64_stage1_"
                               "warpsize2x2x1_tensor8x8x4", "skipped")]
    (layer,) = log.engine_layers
    assert [(t.name, t.dtype, t.dims) for t in layer.inputs + layer.outputs] == [
        ("pool5/7x7_s1", "Half", [1, 1024, 1, 1]), ("loss3/classifier", "Half", [1, 1000, 1, 1])]
    row = tactics.layer_tactics(log).iloc[0]
    assert row["chosen_tactic_name"] == name and row["chosen_ms"] == 0.0422516
