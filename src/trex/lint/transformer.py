"""Transformer linter: decomposed attention, RoPE and KV-cache updates done by elementwise chains.

Reads :func:`trex.transformer.transformer_view`: one engine finding naming the blocks, then one
finding per block whose attention is a MatMul -> Softmax -> MatMul chain (``IAttention`` would fuse
it into one kernel), whose RoPE or whose KV-cache update is a chain of elementwise and copy
layers (``IRotaryEmbeddingLayer``, ``IKVCacheUpdateLayer``). Evidence: the block, the chain's
layers and their latency. A network without attention gets no finding.
"""

from __future__ import annotations

from typing import Any

from ..transformer import Block, transformer_view, view_text
from .base import ENGINE, Finding, Linter, by_share, r

_ATTENTION_HELP = ("TensorRT 10.15+ fuses attention written as one IAttention layer (or an ONNX "
                   "Attention op / the MatMul-Softmax-MatMul pattern Myelin recognises) into a "
                   "single flash-attention kernel that never writes the score matrix to memory.")


class TransformerLinter(Linter):
    """Transformer blocks: attention fused or decomposed, RoPE and KV-cache updates by chains."""

    name = "transformer"
    description = "Decomposed attention, RoPE and KV-cache updates by elementwise chains"
    needs_details = False  # names-only plans: a note only where the names suggest attention

    def check(self) -> list[Finding]:
        """The engine's blocks, then each block's unfused attention, RoPE and cache update."""
        view = transformer_view(self.plan)
        if view.note:
            self.note = f"{self.name}: {view.note}; no findings"
        if not view:
            return []
        out = [self._engine(view)]
        for block in view.blocks:
            out.extend(self._block(block))
        return out

    def _names(self, positions: tuple[int, ...]) -> list[str]:
        names, rows = self.plan.table.names, self.plan.rows
        return [names[rows[p]] for p in positions]

    def _timing(self, ms: float | None) -> dict[str, Any]:
        if ms is None or not self.timed:
            return {}
        return {"latency_ms": r(ms), "latency_pct": r(self.share(ms), 2)}

    def _severity(self, ms: float | None) -> str:
        if ms is None or not self.timed:
            return "warning"
        return by_share(self.share(ms), 1.0)

    def _engine(self, view: Any) -> Finding:
        blocks = view.blocks
        decomposed = sum(b.decomposed for b in blocks)
        evidence: dict[str, Any] = {
            "blocks": len(blocks), "grouping": view.grouping,
            "fused_attention": sum(b.fused for b in blocks), "decomposed_attention": decomposed,
            "stage": view.stage,
            "block_layers": [f"{b.index}: {self._names(b.positions[:1])[0]} .. "
                             f"{self._names(b.positions[-1:])[0]}" for b in blocks]}
        ms = [b.latency_ms for b in blocks if b.latency_ms is not None]
        evidence.update(self._timing(sum(ms) if ms else None))
        return self.finding(
            ENGINE, "info", f"Transformer: {view_text(view)}.", evidence,
            "Compare the stages (trex compare --profiles) and judge decode against the memory "
            "bandwidth (trex summary: 'Decode bandwidth').",
            "Blocks are found from their attention (fused layers or MatMul-Softmax-MatMul "
            "chains), grouped by the block index of the ONNX node names or by structure.")

    def _block(self, block: Block) -> list[Finding]:
        out = []
        for site in block.sites:
            if site.kind != "decomposed":
                continue
            names = self._names(site.positions)
            evidence = {"block": block.index, "layers": len(names), "chain": names,
                        "query_len": site.query_len, "kv_len": site.kv_len, "heads": site.heads,
                        **self._timing(site.latency_ms)}
            out.append(self.finding(
                self._names((site.anchor,))[0], self._severity(site.latency_ms),
                f"Block {block.index}: attention runs decomposed as {len(names)} layers "
                "(MatMul -> Softmax -> MatMul); the score matrix goes through memory.",
                evidence,
                "Export attention as one op TensorRT fuses (IAttention / the ONNX Attention op, or "
                "torch scaled_dot_product_attention with a ModelOpt/TensorRT-LLM export) so the "
                "block runs one fused attention kernel.",
                _ATTENTION_HELP, block=block.index, chain_latency_ms=site.latency_ms))
        for what, chain, api in (("RoPE", block.rope, "IRotaryEmbeddingLayer (ONNX "
                                  "RotaryEmbedding)"),
                                 ("KV-cache update", block.kv_cache, "IKVCacheUpdateLayer")):
            if chain.kind != "elementwise":
                continue
            names = self._names(chain.positions)
            out.append(self.finding(
                names[0], self._severity(chain.latency_ms),
                f"Block {block.index}: {what} runs as {len(names)} elementwise/copy layers "
                "instead of the dedicated layer.",
                {"block": block.index, "layers": len(names), "chain": names,
                 **self._timing(chain.latency_ms)},
                f"Use {api} (TensorRT 10.15+) so that the {what} is one kernel that works in "
                "place.",
                f"A {what} by slices, concatenations and elementwise layers launches several "
                "short kernels per block and moves the tensors each time.",
                block=block.index, chain_latency_ms=chain.latency_ms))
        return out
