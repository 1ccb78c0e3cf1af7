"""Myelin linter: the share of kgen/gemm Myelin kernels and opaque ForeignNode regions."""

from __future__ import annotations

import math
import re

from .base import ENGINE, Finding, Linter, r

MYELIN_TYPES = {"kgen", "gemm", "Myelin", "shape_call", "fusion", "myelin"}
_MYELIN_NAME_RE = re.compile(r"_myl\d+_\d+$|^__myl_|^\{ForeignNode\[")
_FOREIGN_RE = re.compile(r"\{ForeignNode\[(.*)\]\}")
_REFORMAT_TO_RE = re.compile(r"^Reformatting CopyNode for (Input|Output) Tensor \d+ to (.*)$")


class MyelinLinter(Linter):
    """Myelin's share of latency and ForeignNode regions (subgraphs Myelin compiles as a unit),
    found by layer name or, in names-only plans, as the targets of the reformats around them."""

    name = "myelin"
    description = "Myelin (kgen/gemm) share of latency and opaque ForeignNode regions"
    needs_details = False

    def check(self) -> list[Finding]:
        """The Myelin share of the engine, then one finding per ForeignNode region."""
        names, types = self.facts.names, self.facts.types
        lat = self.latencies
        out: list[Finding] = []
        idx = [i for i, (kind, name) in enumerate(zip(types, names)) if kind != "DLA"  # a loadable
               and (kind in MYELIN_TYPES or (("_myl" in name or "{ForeignNode[" in name)
                                              and _MYELIN_NAME_RE.search(name)))]
        if idx:
            ms = float(sum(lat[i] for i in idx if i < len(lat) and not math.isnan(lat[i])))
            kgen = sum(types[i] == "kgen" or names[i].startswith("__myl_") for i in idx)
            evidence = {"myelin_layers": len(idx), "kgen_layers": kgen, "layers": len(names)}
            if self.timed:
                evidence.update(latency_ms=r(ms), latency_pct=r(self.share(ms), 2))
            out.append(self.finding(
                ENGINE, "info", f"{len(idx)} layers come from Myelin (generated kgen kernels and "
                                "library GEMMs).",
                evidence,
                "Map them back to ONNX with their Metadata (trex.onnx_map) before optimising; "
                "Myelin chooses their fusion and kernels itself.",
                "Myelin compiles transformer-like subgraphs; kgen kernels have generated names, so "
                "per-op latency is only visible through the Metadata."))
        out.extend(self._foreign_nodes(lat))
        return out

    def _region_kernels(self, region: dict) -> list[int]:
        """The region's own layer, else the Myelin kernels next to its reformats (in layer order)."""
        names = self.facts.names
        if region["layer"] is not None:
            return [region["layer"]]

        def myelin(j: int) -> bool:
            return 0 <= j < len(names) and bool(_MYELIN_NAME_RE.search(names[j])) and \
                not names[j].startswith("{ForeignNode")

        kernels: list[int] = []
        if region["in"]:
            j = max(region["in"]) + 1
            while myelin(j):
                kernels.append(j)
                j += 1
        elif region["out"]:
            j = min(region["out"]) - 1
            while myelin(j):
                kernels.insert(0, j)
                j -= 1
        return kernels

    def _foreign_nodes(self, lat) -> list[Finding]:
        names, types = self.facts.names, self.facts.types
        regions: dict[str, dict] = {}
        for i, (name, kind) in enumerate(zip(names, types)):
            if "{ForeignNode[" not in name:  # neither a region nor a reformat to or from one
                continue
            reformat = _REFORMAT_TO_RE.match(name)
            target = reformat.group(2) if reformat else name
            if kind == "DLA" or not _FOREIGN_RE.fullmatch(target):
                continue
            region = regions.setdefault(target, {"layer": None, "in": [], "out": []})
            if reformat:
                region["in" if reformat.group(1) == "Input" else "out"].append(i)
            else:
                region["layer"] = i

        def ms(indices: list[int]) -> float:
            return float(sum(lat[j] for j in indices if j < len(lat) and not math.isnan(lat[j])))

        out = []
        for name, region in regions.items():
            span = _FOREIGN_RE.fullmatch(name).group(1).split("...")
            around = region["in"] + region["out"]
            kernels = self._region_kernels(region)
            evidence = {"kernels": len(kernels), "reformats_in": len(region["in"]),
                        "reformats_out": len(region["out"])}
            if region["layer"] is not None:
                table = self.facts.table
                nodes = table.onnx_nodes[self.facts.rows[region["layer"]]]
                if nodes:
                    evidence["onnx_nodes"] = len(nodes)
            costly = False
            if self.timed:
                kernel_ms, around_ms = ms(kernels), ms(around)
                evidence.update(kernel_ms=r(kernel_ms), reformat_ms=r(around_ms),
                                latency_pct=r(self.share(kernel_ms + around_ms), 2))
                costly = bool(around) and around_ms > kernel_ms
            hazard = ("Opaque ForeignNode region: Myelin runs its ONNX ops as "
                      f"{len(kernels) or 'unnamed'} generated kernel(s); per-op latency is not visible.")
            if costly:
                hazard += " The reformats around it cost more than the region itself."
            out.append(self.finding(
                name, "warning" if costly else "info", hazard, evidence,
                "Give the region the precision and layout of its neighbours (e.g. build the "
                "surrounding layers in the same precision, or let Myelin take the neighbours too) so "
                "that no reformat is needed; read its kernels with --profilingVerbosity=detailed."
                if around else
                "Rebuild with --profilingVerbosity=detailed to see the kernels and ONNX nodes inside.",
                "A ForeignNode is a subgraph compiled by Myelin as a unit; TensorRT reports it as one "
                "node with generated kernels.",
                region=name, first_node=span[0], last_node=span[-1],
                kernel_layers=" | ".join(names[j] for j in kernels)))
        return out
