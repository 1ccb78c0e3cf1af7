"""TensorRT 11-form exports of a small LLM decoder, written by tests into their tmp_path.

What ``trtexec --exportLayerInfo --exportProfile --exportTimes`` and trex's metadata files would
give for a two-block decoder (RMSNorm, GQA attention, RoPE, KV cache, a dense and an MoE feed-
forward, a tensor-parallel all-reduce, embedding and LM head) with a prefill and a decode profile.
No public TensorRT 11 export of such a model exists: the spellings TensorRT does not document (the
dedicated layers' LayerType/ParameterType and attribute keys, Myelin tensors' Format) are the
guesses docs/llm-formats.md lists, so a first real export can be checked against them.

``variant="fused"`` uses the dedicated layers (Attention, KVCacheUpdate, RotaryEmbedding, MoE,
DistCollective, DynamicQuantize); ``"decomposed"`` has MatMul -> SoftMax -> MatMul attention and
RoPE / KV-cache updates as slice, elementwise and concat chains. Per-layer times follow a simple
roofline of the GPU: max(FLOPs / peak, bytes / achieved bandwidth) + a launch floor, so decode is
memory-bound (bytes / ~2.5 TB/s on an H100). Never committed data: call :func:`write_decoder`.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

STEM = "llm-decoder.engine"
VARIANTS = ("fused", "decomposed")

# Datatype spelling -> (the word in a linear Format string, bits per element)
DTYPES: dict[str, tuple[str, int]] = {
    "Half": ("FP16", 16), "BFloat16": ("BF16", 16), "Float": ("FP32", 32), "FP8": ("FP8", 8),
    "FP4": ("FP4", 4), "Int4": ("Int4", 4), "E8M0": ("E8M0", 8), "Int32": ("Int32", 32),
    "Int64": ("Int64", 64),
}


@dataclass(frozen=True)
class Gpu:
    """What the generator needs of a GPU: device metadata and the roofline it times layers by."""

    device: str
    cc: float
    sms: int
    clock_ghz: float
    memory_clock_ghz: float
    bus_bits: int
    memory: str
    bandwidth: float  # achieved bytes/s
    peaks: dict[str, float]  # dense FLOP/s by math precision, 70 % of the datasheet's
    link: float  # NVLink bytes/s per direction, for collectives
    sm: str  # tactic prefix


GPUS = {
    "H100 SXM": Gpu("NVIDIA H100 80GB HBM3", 9.0, 132, 1.98, 2.619, 5120, "81008 MiB", 2.5e12,
                    {"BF16": 0.7 * 989e12, "FP8": 0.7 * 1979e12, "FP4": 0.7 * 1979e12}, 450e9,
                    "sm90"),
    "B200": Gpu("NVIDIA B200", 10.0, 148, 1.965, 3.996, 8192, "182528 MiB", 6.0e12,
                {"BF16": 0.7 * 2250e12, "FP8": 0.7 * 4500e12, "FP4": 0.7 * 9000e12}, 900e9,
                "sm100"),
}


@dataclass(frozen=True)
class Config:
    """The decoder: hidden size, GQA heads, feed-forward and MoE sizes, vocabulary, ranks."""

    hidden: int = 2048
    heads: int = 16
    kv_heads: int = 4
    head_dim: int = 128
    ffn: int = 5632
    experts: int = 8
    top_k: int = 2
    expert_ffn: int = 1408
    vocab: int = 32000
    blocks: int = 2  # block 0 has the dense FFN, block 1 the MoE
    world: int = 2  # tensor-parallel ranks of the all-reduce


# stage -> (batch, new tokens, KV length after the step)
STAGES = {"prefill": (1, 2048, 2048), "decode": (1, 1, 2048)}


@dataclass
class Layer:
    """One engine layer before it is written: its JSON fields and what its time is made of."""

    fields: dict[str, Any]
    flops: float = 0.0
    bytes: float = 0.0
    math: str = "BF16"
    floor_us: float = 2.5
    time_s: float = 0.0


@dataclass
class _Stage:
    """Builds one profile's layers: names and tensors carry the profile's suffix."""

    cfg: Config
    gpu: Gpu
    variant: str
    profile: int
    batch: int
    seq: int
    kv: int
    layers: list[Layer] = field(default_factory=list)
    _const: int = 0
    _region: int = -1
    _kernel: int = 0
    _in_region: bool = False

    @property
    def suffix(self) -> str:
        return f" [profile {self.profile}]" if self.profile else ""

    # ------------------------------------------------------------------ tensors and layers
    def t(self, name: str, dims: list[int], dtype: str, myelin: bool = False) -> dict[str, Any]:
        word = DTYPES[dtype][0]
        tensor: dict[str, Any] = {"Name": name + self.suffix, "Dimensions": list(dims)}
        if myelin:  # Myelin tensors: no Location, no layout (a bare data type)
            tensor.update({"Datatype": dtype, "Format": ""})
        else:
            tensor.update({"Location": "Device", "Datatype": dtype,
                           "Format": f"Row major linear {word} format (kLINEAR)"})
        return tensor

    def const(self, dims: list[int], dtype: str, what: str) -> dict[str, Any]:
        """A Myelin constant (weights folded into the region): ``__myeN_dconst``."""
        self._const += 1
        return self.t(f"__mye{100 + self._const}{what}_dconst", dims, dtype, myelin=True)

    def add(self, name: str, layer_type: str, parameter_type: str | None, inputs: list[dict],
            outputs: list[dict], *, onnx: list[str], tactic: str = "", flops: float = 0.0,
            moved: float | None = None, math: str = "BF16", **extra: Any) -> dict[str, Any]:
        myelin = parameter_type is None
        if not myelin:
            self._in_region = False
        sep = "\x1f" if myelin else "\x1e"
        fields: dict[str, Any] = {"Name": name + self.suffix, "LayerType": layer_type}
        if parameter_type:
            fields["ParameterType"] = parameter_type
        fields.update({"Inputs": inputs, "Outputs": outputs})
        fields.update(extra)
        fields["TacticName"] = tactic
        if not myelin:
            fields["TacticValue"] = f"0x{zlib.crc32(name.encode()):08x}{zlib.crc32(layer_type.encode()):08x}"
        fields["StreamId"] = 0
        fields["Metadata"] = sep.join(f"[ONNX Layer: {n}]" for n in onnx)
        size = sum(tensor_bytes(x) for x in (*inputs, *outputs)) if moved is None else moved
        self.layers.append(Layer(fields, flops, size, math))
        return outputs[0] if outputs else {}

    def myl(self, label: str) -> str:
        """A Myelin kernel's name: ``<label>_myl<region>_<k>``; a region is a run of Myelin
        kernels, so a dedicated layer between two kernels starts the next region."""
        if not self._in_region:
            self._region, self._kernel, self._in_region = self._region + 1, 0, True
        else:
            self._kernel += 1
        return f"{label}_myl{self._region}_{self._kernel}"

    # ------------------------------------------------------------------ the network
    def build(self) -> list[Layer]:
        c, b, s = self.cfg, self.batch, self.seq
        ids = self.t("input_ids", [b, s], "Int32")
        table = self.t("model.embed_tokens.weight", [c.vocab, c.hidden], "BFloat16")
        x = self.t("/model/embed_tokens/Gather_output_0", [b, s, c.hidden], "BFloat16")
        self.add("/model/embed_tokens/Gather", "Gather", "Gather", [ids, table], [x],
                 onnx=["/model/embed_tokens/Gather"], tactic="sm80_gather_bf16_rows",
                 moved=2 * b * s * c.hidden * 2 + b * s * 4, Axis=0, Mode="DEFAULT")
        for i in range(c.blocks):
            x = self.block(i, x)
        p = "/model/norm"
        last = self.t(f"{p}/Mul_1_output_0'.last", [b, 1, c.hidden], "BFloat16", True)
        xin = _bare(x)
        self.add(self.myl("__myl_SlicCastMulMeanAddSqrtDivMulCast"), "kgen", None,
                 [xin, self.const([c.hidden], "BFloat16", "/model/norm/weight")], [last],
                 onnx=[f"{p}/Cast", f"{p}/Pow", f"{p}/ReduceMean", f"{p}/Add", f"{p}/Sqrt",
                       f"{p}/Div", f"{p}/Mul", f"{p}/Mul_1", "/model/Slice_last_token"],
                 tactic="__myl_SlicCastMulMeanAddSqrtDivMulCast_0x5e2c1d", math="BF16")
        logits = self.t("logits", [b, 1, c.vocab], "Float", True)
        self.add(self.myl("/lm_head/MatMul"), "gemm", None,
                 [last, self.const([c.hidden, c.vocab], "BFloat16", "/lm_head/weight")], [logits],
                 onnx=["/lm_head/MatMul"], tactic=self.gemm_tactic("bf16bf16", b),
                 flops=2 * b * c.hidden * c.vocab)
        return self.layers

    def gemm_tactic(self, types: str, m: int, extra: str = "") -> str:
        """A CASK kernel name: ``types`` is the A/B pair (``e4m3e4m3``), the math type its first."""
        sm, math = self.gpu.sm, types[: len(types) // 2]
        if m <= 8:
            return f"{sm}_xmma_cublas_gemvx_{types}_f32_f32_tn_n_int32_unit_n{extra}"
        return f"{sm}_xmma_gemm_{types}_{math}f32_f32_tn_n_tilesize128x256x64_stage4_warpsize" \
               f"2x2x1_tensor16x8x16{extra}"

    def norm(self, prefix: str, inputs: list[dict], outputs: list[dict], residual: bool) -> None:
        ops = (["Add"] if residual else []) + ["Pow", "ReduceMean", "Add_1", "Sqrt", "Div",
                                               "Mul", "Mul_1"]
        label = ("__myl_AddCastMulMeanAddSqrtDivMulCast" if residual
                 else "__myl_CastMulMeanAddSqrtDivMulCast")
        onnx = [f"{prefix}/{op}" for op in ops]
        if residual:
            onnx[0] = f"{prefix.rsplit('/', 1)[0]}/Add"
        self.add(self.myl(label), "kgen", None, inputs, outputs, onnx=onnx,
                 tactic=f"{label}_0x{zlib.crc32(prefix.encode()):08x}")

    def block(self, i: int, x: dict) -> dict:
        c, b, s = self.cfg, self.batch, self.seq
        hd, q_dim, kv_dim = c.hidden, c.heads * c.head_dim, c.kv_heads * c.head_dim
        m = b * s
        r = 4 * i  # tells the tactic hashes of the blocks apart
        p = f"/model/layers.{i}"
        xm = _bare(x)
        norm1 = self.t(f"{p}/input_layernorm/Mul_1_output_0", [b, s, hd], "BFloat16", True)
        self.norm(f"{p}/input_layernorm",
                  [xm, self.const([hd], "BFloat16", f"{p}/input_layernorm/weight")], [norm1],
                  residual=False)
        # activation quantisation: NVFP4 (E4M3 block scales of 16) in block 0, MXFP8 (E8M0 scales
        # of 32) in block 1
        fp4 = i == 0
        qtype, stype, block = ("FP4", "FP8", 16) if fp4 else ("FP8", "E8M0", 32)
        qin = _linear(norm1)
        qa = self.t(f"{p}/self_attn/qkv_proj/input_quantizer/q", [b, s, hd], qtype)
        qs = self.t(f"{p}/self_attn/qkv_proj/input_quantizer/scale", [b, s, hd // block], stype)
        self.add(f"{p}/self_attn/qkv_proj/input_quantizer/DynamicQuantize", "DynamicQuantize",
                 "DynamicQuantize", [qin], [qa, qs],
                 onnx=[f"{p}/self_attn/qkv_proj/input_quantizer/TRT_"
                       f"{'FP4' if fp4 else 'MXFP8'}DynamicQuantize"],
                 tactic=f"{self.gpu.sm}_dynamic_quantize_bf16_{qtype.lower()}_block{block}",
                 Axis=2, BlockSize=block, OutputType=qtype, ScaleType=stype)
        qkv = self.t(f"{p}/self_attn/qkv_proj/MatMul_output_0", [b, s, q_dim + 2 * kv_dim],
                     "BFloat16", True)
        types = "e2m1e2m1" if fp4 else "e4m3e4m3"
        scale_tag = "_nvfp4_blockscale_vec16" if fp4 else "_mxfp8_e8m0_vec32"
        self.add(self.myl(f"{p}/self_attn/qkv_proj/MatMul"), "gemm", None,
                 [_bare(qa), _bare(qs),
                  self.const([hd, q_dim + 2 * kv_dim], qtype, f"{p}/self_attn/qkv_proj/weight"),
                  self.const([hd // block, q_dim + 2 * kv_dim], stype,
                             f"{p}/self_attn/qkv_proj/weight_scale")],
                 [qkv], onnx=[f"{p}/self_attn/qkv_proj/input_quantizer/DequantizeLinear",
                              f"{p}/self_attn/qkv_proj/MatMul"],
                 tactic=self.gemm_tactic(types, m, scale_tag),
                 flops=2 * m * hd * (q_dim + 2 * kv_dim), math="FP4" if fp4 else "FP8")
        q = self.t(f"{p}/self_attn/Transpose_output_0", [b, c.heads, s, c.head_dim], "BFloat16",
                   True)
        k = self.t(f"{p}/self_attn/Transpose_1_output_0", [b, c.kv_heads, s, c.head_dim],
                   "BFloat16", True)
        v = self.t(f"{p}/self_attn/Transpose_2_output_0", [b, c.kv_heads, s, c.head_dim],
                   "BFloat16", True)
        self.add(self.myl("__myl_SpliReshTran"), "kgen", None, [qkv], [q, k, v],
                 onnx=[f"{p}/self_attn/Split", f"{p}/self_attn/Reshape", f"{p}/self_attn/Transpose",
                       f"{p}/self_attn/Reshape_1", f"{p}/self_attn/Transpose_1",
                       f"{p}/self_attn/Reshape_2", f"{p}/self_attn/Transpose_2"],
                 tactic=f"__myl_SpliReshTran_0x{r:02x}02b1")
        q, k, v = (_linear(t) for t in (q, k, v))
        q, k = self.rope(p, "q", q), self.rope(p, "k", k)
        present_k = self.kv_update(p, i, "key", k)
        present_v = self.kv_update(p, i, "value", v)
        attn = self.attention(p, r, q, present_k, present_v)
        attn2d = self.t(f"{p}/self_attn/Reshape_3_output_0", [b, s, q_dim], "BFloat16", True)
        self.add(self.myl("__myl_TranResh"), "kgen", None, [_bare(attn)], [attn2d],
                 onnx=[f"{p}/self_attn/Transpose_3", f"{p}/self_attn/Reshape_3"],
                 tactic=f"__myl_TranResh_0x{r:02x}10c4")
        o = self.t(f"{p}/self_attn/o_proj/MatMul_output_0", [b, s, hd], "BFloat16", True)
        self.add(self.myl(f"{p}/self_attn/o_proj/MatMul"), "gemm", None,
                 [attn2d, self.const([q_dim, hd], "BFloat16", f"{p}/self_attn/o_proj/weight")],
                 [o], onnx=[f"{p}/self_attn/o_proj/MatMul"],
                 tactic=self.gemm_tactic("bf16bf16", m), flops=2 * m * q_dim * hd)
        reduced = self.all_reduce(f"{p}/self_attn/AllReduce", _linear(o))
        h = self.t(f"{p}/Add_output_0", [b, s, hd], "BFloat16", True)
        norm2 = self.t(f"{p}/post_attention_layernorm/Mul_1_output_0", [b, s, hd], "BFloat16",
                       True)
        self.norm(f"{p}/post_attention_layernorm",
                  [xm, _bare(reduced),
                   self.const([hd], "BFloat16", f"{p}/post_attention_layernorm/weight")],
                  [h, norm2], residual=True)
        ffn_out = self.dense_ffn(p, r + 2, norm2) if i == 0 else self.moe(p, r + 2, norm2)
        reduced = self.all_reduce(f"{p}/mlp/AllReduce", ffn_out)
        out = self.t(f"{p}/Add_1_output_0", [b, s, hd], "BFloat16", True)
        self.add(self.myl("__myl_Add"), "kgen", None, [h, _bare(reduced)], [out],
                 onnx=[f"{p}/Add_1"], tactic=f"__myl_Add_0x{r:02x}30d1")
        return out

    def rope(self, p: str, which: str, x: dict) -> dict:
        c, b, s = self.cfg, self.batch, self.seq
        heads = x["Dimensions"][1]
        half = c.head_dim // 2
        cos = self.t("rope_cos_cache", [b, s, half], "BFloat16")
        sin = self.t("rope_sin_cache", [b, s, half], "BFloat16")
        dims = [b, heads, s, c.head_dim]
        out = self.t(f"{p}/self_attn/rotary_emb_{which}/output_0", dims, "BFloat16")
        if self.variant == "fused":
            pos = self.t("position_ids", [b, s], "Int64")
            return self.add(f"{p}/self_attn/rotary_emb_{which}/RotaryEmbedding", "RotaryEmbedding",
                            "RotaryEmbedding", [x, cos, sin, pos], [out],
                            onnx=[f"{p}/self_attn/rotary_emb_{which}/RotaryEmbedding"],
                            tactic=f"{self.gpu.sm}_rotary_embedding_bf16_hd{c.head_dim}",
                            Interleaved=False, RotaryEmbeddingDim=c.head_dim)
        n = f"{p}/self_attn/rotary_emb_{which}"
        hdims = [b, heads, s, half]
        x1 = self.t(f"{n}/Slice_output_0", hdims, "BFloat16")
        x2 = self.t(f"{n}/Slice_1_output_0", hdims, "BFloat16")
        neg = self.t(f"{n}/Neg_output_0", hdims, "BFloat16")
        rot = self.t(f"{n}/Concat_output_0", dims, "BFloat16")
        self.add(f"{n}/Slice", "Slice", "Slice", [x], [x1], onnx=[f"{n}/Slice"],
                 tactic="slice_kernel", Start=[0, 0, 0, 0], Stride=[1, 1, 1, 1], Size=hdims)
        self.add(f"{n}/Slice_1", "Slice", "Slice", [x], [x2], onnx=[f"{n}/Slice_1"],
                 tactic="slice_kernel", Start=[0, 0, 0, half], Stride=[1, 1, 1, 1], Size=hdims)
        self.add(f"{n}/Neg", "PointWiseV2", "PointWise", [x2], [neg], onnx=[f"{n}/Neg"],
                 tactic="PointWiseV2_neg_bf16", Operations=["const auto var0 = -in0;"])
        self.add(f"{n}/Concat", "Reformat", "Reformat", [neg, x1], [rot], onnx=[f"{n}/Concat"],
                 Origin="CONCAT", tactic="copy_kernel")
        return self.add(f"{n}/Mul + {n}/Mul_1 + {n}/Add", "PointWiseV2", "PointWise",
                        [x, cos, rot, sin], [out], onnx=[f"{n}/Mul", f"{n}/Mul_1", f"{n}/Add"],
                        tactic="PointWiseV2_fma_bf16", flops=3 * b * heads * s * c.head_dim,
                        Operations=["const auto var0 = in0 * in1 + in2 * in3;"])

    def kv_update(self, p: str, i: int, which: str, new: dict) -> dict:
        c, b, s, kv = self.cfg, self.batch, self.seq, self.kv
        dims = [b, c.kv_heads, kv, c.head_dim]
        present = self.t(f"present.{i}.{which}", dims, "BFloat16")
        if self.variant == "fused":
            cache = self.t(f"past_key_values.{i}.{which}", dims, "BFloat16")
            index = self.t("kv_write_indices", [b], "Int32")
            written = 2 * tensor_bytes(new) + 4 * b  # read the update, write it into the cache
            return self.add(f"{p}/self_attn/{which}_cache/KVCacheUpdate", "KVCacheUpdate",
                            "KVCacheUpdate", [cache, new, index], [present],
                            onnx=[f"{p}/self_attn/{which}_cache/KVCacheUpdate"],
                            tactic=f"{self.gpu.sm}_kv_cache_update_bf16", moved=written,
                            CacheMode="LINEAR")
        past = self.t(f"past_key_values.{i}.{which}", [b, c.kv_heads, kv - s, c.head_dim],
                      "BFloat16")
        return self.add(f"{p}/self_attn/Concat_{which}", "Reformat", "Reformat", [past, new],
                        [present], onnx=[f"{p}/self_attn/Concat_{which}"], Origin="CONCAT",
                        tactic="copy_kernel")

    def attention(self, p: str, r: int, q: dict, k: dict, v: dict) -> dict:
        c, b, s, kv = self.cfg, self.batch, self.seq, self.kv
        dims = [b, c.heads, s, c.head_dim]
        flops = 4 * b * c.heads * s * kv * c.head_dim
        out = self.t(f"{p}/self_attn/attention_output", dims, "BFloat16")
        if self.variant == "fused":
            kind = "prefill" if s > 1 else "decode"
            return self.add(f"{p}/self_attn/Attention", "Attention", "Attention", [q, k, v],
                            [out], onnx=[f"{p}/self_attn/Attention"],
                            tactic=f"{self.gpu.sm}_fmha_v2_flash_attention_bf16_64_128_S_q_paged"
                                   f"_kv_{c.head_dim}_causal_gqa_{kind}_tma_ws",
                            flops=flops, NormalizationOperation="SOFTMAX", Causal=True,
                            NumQueryHeads=c.heads, NumKeyValueHeads=c.kv_heads)
        n = f"{p}/self_attn"
        rep = [b, c.heads, kv, c.head_dim]
        kr = self.t(f"{n}/repeat_kv/Reshape_output_0", rep, "BFloat16", True)
        vr = self.t(f"{n}/repeat_kv_1/Reshape_output_0", rep, "BFloat16", True)
        self.add(self.myl("__myl_ExpaResh"), "kgen", None, [_bare(k), _bare(v)], [kr, vr],
                 onnx=[f"{n}/repeat_kv/Expand", f"{n}/repeat_kv/Reshape",
                       f"{n}/repeat_kv_1/Expand", f"{n}/repeat_kv_1/Reshape"],
                 tactic=f"__myl_ExpaResh_0x{r:02x}03e2")
        scores = self.t(f"{n}/MatMul_output_0", [b, c.heads, s, kv], "BFloat16")
        masked = self.t(f"{n}/Add_output_0", [b, c.heads, s, kv], "BFloat16")
        probs = self.t(f"{n}/Softmax_output_0", [b, c.heads, s, kv], "BFloat16")
        mask = self.t("attention_mask", [b, 1, s, kv], "BFloat16")
        gemm = f"{self.gpu.sm}_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x128x64_batched"
        self.add(f"{n}/MatMul", "CaskGemmMatrixMultiply", "MatrixMultiply", [q, _linear(kr)],
                 [scores], onnx=[f"{n}/MatMul"], tactic=gemm, flops=flops / 2,
                 MatrixOpA="NONE", MatrixOpB="TRANSPOSE")
        self.add(f"{n}/Div + {n}/Add", "PointWiseV2", "PointWise", [scores, mask], [masked],
                 onnx=[f"{n}/Div", f"{n}/Add"], tactic="PointWiseV2_scale_mask_bf16",
                 Operations=["const auto var0 = in0 * 0.0883883f + in1;"])
        self.add(f"{n}/Softmax", "CaskSoftMaxV2", "SoftMax", [masked], [probs],
                 onnx=[f"{n}/Softmax"], tactic=f"{self.gpu.sm}_softmax_bf16_rowwise", Axes=8)
        return self.add(f"{n}/MatMul_1", "CaskGemmMatrixMultiply", "MatrixMultiply",
                        [probs, _linear(vr)], [out], onnx=[f"{n}/MatMul_1"], tactic=gemm,
                        flops=flops / 2, MatrixOpA="NONE", MatrixOpB="NONE")

    def all_reduce(self, name: str, x: dict) -> dict:
        out = self.t(f"{name}_output_0", x["Dimensions"], "BFloat16")
        size = tensor_bytes(x)
        exchanged = 2 * (self.cfg.world - 1) / self.cfg.world * size
        layer = self.add(name, "DistCollective", "DistCollective", [_linear(x)], [out],
                         onnx=[name], tactic="nccl_allreduce_ring_ll128_bf16_sum", moved=0,
                         CollectiveOperation="ALL_REDUCE", ReduceOperation="SUM",
                         WorldSize=self.cfg.world, Ranks=list(range(self.cfg.world)))
        self.layers[-1].time_s = exchanged / self.gpu.link + 8e-6  # NVLink, not HBM
        return layer

    def dense_ffn(self, p: str, r: int, x: dict) -> dict:
        c, b, s = self.cfg, self.batch, self.seq
        m, hd, f = b * s, c.hidden, c.ffn
        n = f"{p}/mlp"
        xq = self.t(f"{n}/gate_up_proj/input_quantizer/QuantizeLinear_output_0", [b, s, hd], "FP8",
                    True)
        self.add(self.myl("__myl_Quan"), "kgen", None, [x], [xq],
                 onnx=[f"{n}/gate_up_proj/input_quantizer/QuantizeLinear"],
                 tactic=f"__myl_Quan_0x{r:02x}11f0")
        gu = self.t(f"{n}/gate_up_proj/MatMul_output_0", [b, s, 2 * f], "BFloat16", True)
        self.add(self.myl(f"{n}/gate_up_proj/MatMul"), "gemm", None,
                 [xq, self.const([hd, 2 * f], "FP8", f"{n}/gate_up_proj/weight")], [gu],
                 onnx=[f"{n}/gate_up_proj/input_quantizer/DequantizeLinear",
                       f"{n}/gate_up_proj/MatMul"],
                 tactic=self.gemm_tactic("e4m3e4m3", m, "_fp8_per_tensor"),
                 flops=2 * m * hd * 2 * f, math="FP8")
        act = self.t(f"{n}/down_proj/input_quantizer/QuantizeLinear_output_0", [b, s, f], "FP8",
                     True)
        self.add(self.myl("__myl_SplSigmMulMulQuan"), "kgen", None, [gu], [act],
                 onnx=[f"{n}/Split", f"{n}/act_fn/Sigmoid", f"{n}/act_fn/Mul", f"{n}/Mul",
                       f"{n}/down_proj/input_quantizer/QuantizeLinear"],
                 tactic=f"__myl_SplSigmMulMulQuan_0x{r:02x}12a9")
        out = self.t(f"{n}/down_proj/MatMul_output_0", [b, s, hd], "BFloat16", True)
        return self.add(self.myl(f"{n}/down_proj/MatMul"), "gemm", None,
                        [act, self.const([f, hd], "FP8", f"{n}/down_proj/weight")], [out],
                        onnx=[f"{n}/down_proj/input_quantizer/DequantizeLinear",
                              f"{n}/down_proj/MatMul"],
                        tactic=self.gemm_tactic("e4m3e4m3", m, "_fp8_per_tensor"),
                        flops=2 * m * f * hd, math="FP8")

    def moe(self, p: str, r: int, x: dict) -> dict:
        c, b, s = self.cfg, self.batch, self.seq
        m, hd, e, fe, k = b * s, c.hidden, c.experts, c.expert_ffn, c.top_k
        n = f"{p}/mlp"
        logits = self.t(f"{n}/gate/MatMul_output_0", [b, s, e], "Float", True)
        self.add(self.myl(f"{n}/gate/MatMul"), "gemm", None,
                 [x, self.const([hd, e], "BFloat16", f"{n}/gate/weight")], [logits],
                 onnx=[f"{n}/gate/MatMul"], tactic=self.gemm_tactic("bf16bf16", m),
                 flops=2 * m * hd * e)
        values = self.t(f"{n}/TopK_output_0", [b, s, k], "Float")
        experts = self.t(f"{n}/TopK_output_1", [b, s, k], "Int32")
        self.add(f"{n}/TopK", "TopK", "TopK", [_linear(logits)], [values, experts],
                 onnx=[f"{n}/TopK"], tactic=f"{self.gpu.sm}_topk_small_k_float", K=k,
                 Operation="MAX", Axes=4)
        scores = self.t(f"{n}/Softmax_output_0", [b, s, k], "BFloat16", True)
        self.add(self.myl("__myl_MaxSubExpSumDivCast"), "kgen", None, [_bare(values)],
                 [scores], onnx=[f"{n}/Softmax", f"{n}/Cast"],
                 tactic=f"__myl_MaxSubExpSumDivCast_0x{r:02x}2210")
        weights = [self.t(f"{n}/experts/{w}", [e, hd, fe] if w != "down_proj.weight"
                          else [e, fe, hd], "Int4")
                   for w in ("gate_proj.weight", "up_proj.weight", "down_proj.weight")]
        scales = [self.t(f"{n}/experts/{w}_scale", [e, hd // 128, fe] if w != "down_proj"
                         else [e, fe // 128, hd], "BFloat16")
                  for w in ("gate_proj", "up_proj", "down_proj")]
        out = self.t(f"{n}/experts/MoE_output_0", [b, s, hd], "BFloat16")
        active = min(e, m * k)  # experts whose weights the step reads
        moved = (sum(tensor_bytes(w) for w in (*weights, *scales)) * active / e
                 + 2 * tensor_bytes(out) + tensor_bytes(experts) + 2 * m * k)
        return self.add(f"{n}/experts/MoE", "MoE", "MoE",
                        [_linear(x), experts, _linear(scores), *weights, *scales], [out],
                        onnx=[f"{n}/experts/MoE"], moved=moved, flops=2 * m * k * 3 * hd * fe,
                        tactic=f"{self.gpu.sm}_moe_grouped_gemm_bf16i4_bf16_swiglu_"
                               "weightonly_groupsize128",
                        NumExperts=e, TopK=k, ActivationType="SILU",
                        QuantizationMode="INT4_WEIGHT_ONLY", QuantizationBlockSize=128)


def _bare(tensor: dict) -> dict:
    """The tensor as a Myelin layer names it (no Location, a bare data type)."""
    out = {k: v for k, v in tensor.items() if k != "Location"}
    out["Format"] = ""
    return out


def _linear(tensor: dict) -> dict:
    """The tensor as a non-Myelin layer names it (Device, a linear layout)."""
    word = DTYPES[tensor["Datatype"]][0]
    return dict(tensor, Location="Device", Format=f"Row major linear {word} format (kLINEAR)")


def tensor_bytes(tensor: dict) -> float:
    """Bytes of a written tensor: elements x bits of its Datatype / 8 (no padding: linear)."""
    count = 1
    for d in tensor["Dimensions"]:
        count *= max(int(d), 0)
    return count * DTYPES[tensor["Datatype"]][1] / 8


def time_layers(layers: list[Layer], gpu: Gpu) -> None:
    """Each layer's time: a set time (collectives), else max(FLOPs / peak, bytes / bandwidth)
    plus a launch floor."""
    for layer in layers:
        if layer.time_s:
            continue
        peak = gpu.peaks.get(layer.math, gpu.peaks["BF16"])
        layer.time_s = max(layer.flops / peak, layer.bytes / gpu.bandwidth) + \
            layer.floor_us * 1e-6


def build(variant: str = "fused", profiles: tuple[str, ...] = ("prefill", "decode"),
          gpu: str = "H100 SXM", config: Config | None = None) -> dict[str, list[Layer]]:
    """The layers of every profile, by stage name, timed (nothing written)."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, not {variant!r}")
    cfg, device = config or Config(), GPUS[gpu]
    out = {}
    for index, stage in enumerate(profiles):
        batch, seq, kv = STAGES[stage]
        layers = _Stage(cfg, device, variant, index, batch, seq, kv).build()
        time_layers(layers, device)
        out[stage] = layers
    return out


def _io_tensors(stages: dict[str, list[Layer]]) -> list[dict[str, Any]]:
    """``I/O Tensors``: the network inputs (tensors no layer writes, not Myelin constants or
    weights) and the output, with per-profile shapes."""
    per_stage: list[dict[str, tuple[str, list[int]]]] = []
    order: dict[str, str] = {}
    for index, layers in enumerate(stages.values()):
        suffix = f" [profile {index}]" if index else ""
        written = {t["Name"] for layer in layers for t in layer.fields["Outputs"]}
        found: dict[str, tuple[str, list[int]]] = {}
        for layer in layers:
            for t in layer.fields["Inputs"]:
                name = t["Name"].removesuffix(suffix)
                if (t["Name"] not in written and "_dconst" not in name and ".weight" not in name
                        and "_scale" not in name):
                    found.setdefault(name, (t["Datatype"], t["Dimensions"]))
                    order.setdefault(name, "Input")
        for layer in layers:
            for t in layer.fields["Outputs"]:
                name = t["Name"].removesuffix(suffix)
                if name == "logits" or name.startswith("present."):
                    found.setdefault(name, (t["Datatype"], t["Dimensions"]))
                    order.setdefault(name, "Output")
        per_stage.append(found)
    result = []
    for name, mode in sorted(order.items(), key=lambda kv: kv[1] != "Input"):
        dtype, dims = per_stage[0][name]
        word = DTYPES[dtype][0]
        fmt = f"Row major linear {word} format (kLINEAR)"
        shapes = [s[name][1] for s in per_stage]
        dynamic = [d if all(sh[j] == d for sh in shapes) else -1 for j, d in enumerate(dims)]
        entry: dict[str, Any] = {"Name": name, "IOMode": mode, "DataType": dtype,
                                 "Dimensions": dynamic, "Location": "Device",
                                 "IsShapeInferenceIO": False}
        if mode == "Input":
            entry["ProfileInfo"] = [{"MinShape": [1 if d == -1 else d for d in dynamic],
                                     "OptShape": s, "MaxShape": s, "Format": fmt}
                                    for s in shapes]
        result.append(entry)
    return result


def write_decoder(folder: str | Path, *, variant: str = "fused",
                  profiles: tuple[str, ...] = ("prefill", "decode"), gpu: str = "H100 SXM",
                  timed: str | None = None, iterations: int = 200,
                  config: Config | None = None) -> Path:
    """Write the decoder's exports into ``folder`` and return it.

    Files: ``llm-decoder.engine.graph.json`` (every profile's layers; profile N >= 1 suffixed
    `` [profile N]``), ``.profile.json`` (each profile's rows: trtexec profiles one profile per
    run, and trex joins rows by name, so the runs' rows are one file), ``.timing.json`` and
    ``.profile.metadata.json`` (the ``timed`` profile's run, the first by default) and
    ``.build.metadata.json``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    stages = build(variant, profiles, gpu, config)
    device = GPUS[gpu]
    layers = [layer for stage in stages.values() for layer in stage]
    graph = {"Layers": [layer.fields for layer in layers], "I/O Tensors": _io_tensors(stages)}
    (folder / f"{STEM}.graph.json").write_text(json.dumps(graph, indent=1))
    total = sum(layer.time_s for layer in layers) * 1e3
    rows: list[dict[str, Any]] = [{"count": iterations}]
    for layer in layers:
        ms = layer.time_s * 1e3
        rows.append({"name": layer.fields["Name"], "timeMs": ms * iterations, "averageMs": ms,
                     "medianMs": ms, "percentage": 100 * ms / total})
    (folder / f"{STEM}.profile.json").write_text(json.dumps(rows, indent=1))
    timed = timed or profiles[0]
    step = sum(layer.time_s for layer in stages[timed]) * 1e3
    # CUDA graphs: decode's end-to-end time is above the layer sum (launch gaps between short
    # kernels), prefill's a little below it (per-layer profiling's synchronisation)
    e2e = step * (1.1 if STAGES[timed][1] == 1 else 0.98)
    (folder / f"{STEM}.timing.json").write_text(json.dumps(_timings(e2e, iterations), indent=1))
    latencies = [r["computeMs"] for r in _timings(e2e, iterations)]
    (folder / f"{STEM}.profile.metadata.json").write_text(json.dumps(
        _profile_metadata(latencies, device, list(profiles).index(timed)), indent=1))
    (folder / f"{STEM}.build.metadata.json").write_text(json.dumps(
        {"model_options": {"Format": "ONNX", "Model": f"llm-decoder-{variant}.onnx"},
         "build_options": {"Precision": "Strongly typed", "Profiling verbosity": "detailed",
                           "Optimization profiles": str(len(profiles))},
         "device_information": _device(device)}, indent=1))
    return folder


def _timings(e2e_ms: float, iterations: int) -> list[dict[str, float]]:
    records, start = [], 0.0
    for i in range(iterations):
        ms = e2e_ms * (1 + 0.004 * ((i * 7) % 5 - 2))  # a deterministic +-0.8 % jitter
        records.append({"startEnqMs": start, "endEnqMs": start + 0.01, "startH2dMs": start,
                        "endH2dMs": start, "startComputeMs": start, "endComputeMs": start + ms,
                        "startD2hMs": start + ms, "endD2hMs": start + ms, "h2dMs": 0.0,
                        "computeMs": ms, "d2hMs": 0.0, "latencyMs": ms})
        start += ms
    return records


def _stats(values: list[float]) -> list[float]:
    ordered = sorted(values)

    def pct(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    mean = sum(ordered) / len(ordered)
    return [ordered[0], ordered[-1], mean, pct(0.5), pct(0.9), pct(0.95), pct(0.99)]


def _device(gpu: Gpu) -> dict[str, Any]:
    return {"Selected Device": gpu.device, "Selected Device ID": "0",
            "Compute Capability": gpu.cc, "SMs": float(gpu.sms),
            "Device Global Memory": gpu.memory, "Shared Memory per SM": "228 KiB",
            "Memory Bus Width": float(gpu.bus_bits),
            "Application Compute Clock Rate": f"{gpu.clock_ghz} GHz",
            "Application Memory Clock Rate": f"{gpu.memory_clock_ghz} GHz"}


def _profile_metadata(latencies: list[float], gpu: Gpu, profile: int) -> dict[str, Any]:
    stats = _stats(latencies)
    zeros = [0.0] * 7
    return {
        "performance_summary": {
            "Throughput": round(1000 / stats[2], 3), "Latency": stats,
            "Enqueue Time": [0.01] * 7, "H2D Latency": zeros, "GPU Compute Time": stats,
            "D2H Latency": zeros, "Total Host Walltime": round(sum(latencies) / 1000, 5),
            "Total GPU Compute Time": round(sum(latencies) / 1000, 5)},
        "inference_options": {"Batch": "Explicit", "Iterations": str(len(latencies)),
                              "Duration": "3s (+ 0ms warm up)", "Inference Streams": "1",
                              "Data transfers": "Disabled", "Spin-wait": "Enabled",
                              "CUDA Graph": "Enabled", "Separate profiling": "Enabled",
                              "Optimization Profile Index": str(profile)},
        "device_information": _device(gpu),
    }
