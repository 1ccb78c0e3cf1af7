"""Latency linters: hot spots, many tiny (launch-bound) kernels, shape_call/dynamic-shape overhead."""

from __future__ import annotations

import math

import numpy as np

from .base import ENGINE, Finding, Linter, by_share, r


class HotspotLinter(Linter):
    """Layers that take a large share of the engine's latency (info >= 10 %, warning >= 25 %)."""

    name = "hotspots"
    description = "Layers taking >= 10 % of the latency"
    needs_details = False
    needs_profile = True
    threshold_pct = 10.0
    warning_pct = 25.0

    def check(self) -> list[Finding]:
        """Layers at or above 10 % of the summed latency, slowest first."""
        lat = self.latencies
        total = self.total_ms
        pct = np.where(np.isnan(lat), 0.0, lat) * 100.0 / total
        order = np.argsort(-pct, kind="stable")
        out = []
        for position, i in enumerate(order, start=1):
            if pct[i] < self.threshold_pct:
                break
            name, kind = self.facts.names[i], self.facts.types[i]
            if kind in ("DLACopy", "DLASync"):
                out.append(self._dla_region(name, kind, float(lat[i]), float(pct[i]), position))
                continue
            out.append(self.finding(
                name, by_share(float(pct[i]), self.warning_pct),
                f"Layer takes {pct[i]:.1f} % of the engine's latency.",
                {"latency_ms": r(lat[i]), "latency_pct": r(pct[i], 2), "rank": position},
                "Optimise this layer first: its precision, tactic, shape alignment and fusion decide "
                "a large part of the run time.",
                "A few layers usually dominate; time spent elsewhere matters less.",
                type=kind))
        return out

    def _dla_region(self, name: str, kind: str, latency: float, pct: float, rank: int) -> Finding:
        """DLA engines report the DLA subgraph's run time on the copy back from the DLA's memory:
        the time is the DLA's, not a slow copy's."""
        return self.finding(
            name, "info",
            f"DLA region: {pct:.1f} % of the latency ran on the DLA (reported on this copy from "
            "its memory, which waits for the DLA).",
            {"latency_ms": r(latency), "latency_pct": r(pct, 2), "rank": rank},
            "Profile the DLA subgraph itself (the DLA's own tools) or move layers between DLA and "
            "GPU (--useDLACore, --allowGPUFallback, layer device types) and compare the engines.",
            "TensorRT's per-layer profile cannot see inside a DLA loadable: its time lands on the "
            "'from nvm' copy that waits for it.",
            type=kind)


class LaunchBoundLinter(Linter):
    """Many layers shorter than a few microseconds: the engine is bound by kernel launches."""

    name = "tiny-kernels"
    description = "Many layers under 5 us (launch-bound)"
    needs_details = False
    needs_profile = True
    threshold_us = 5.0
    min_layers = 10
    min_fraction = 0.3

    def check(self) -> list[Finding]:
        """One engine finding when many timed layers run under the threshold."""
        lat = self.latencies
        timed = lat[(lat > 0) & ~np.isnan(lat)]
        if not len(timed):
            return []
        tiny = timed[timed * 1000.0 < self.threshold_us]
        fraction = len(tiny) / len(timed)
        if len(tiny) < self.min_layers or fraction < self.min_fraction:
            return []
        tiny_ms = float(tiny.sum())
        pct = self.share(tiny_ms)
        graphs = str(self.plan.inference_options.get("CUDA Graph", "")).lower() == "enabled"
        evidence = {"tiny_layers": len(tiny), "timed_layers": len(timed),
                    "untimed_layers": len(lat) - len(timed), "tiny_fraction_pct": r(100 * fraction, 1),
                    "tiny_latency_ms": r(tiny_ms), "tiny_latency_pct": r(pct, 2),
                    "median_layer_us": r(float(np.median(timed)) * 1000.0, 2),
                    "threshold_us": self.threshold_us}
        mitigation = ("Launch the engine from a CUDA graph (trtexec --useCudaGraph) to remove the "
                      "gaps between kernels, raise the batch size so that each kernel does more work, "
                      "and remove layers that do little (reformats, unfused Q/DQ).")
        if graphs:
            mitigation += (" The timings were measured with CUDA graphs, which already hide launch "
                           "gaps; per-layer profiles cannot.")
        return [self.finding(
            ENGINE, "info" if graphs else by_share(pct, 25.0),
            f"{len(tiny)} of {len(timed)} timed layers run under {self.threshold_us:g} us.",
            evidence, mitigation,
            "Kernel launches cost a few microseconds each; short kernels leave the GPU idle between "
            "them.")]


class ShapeCallLinter(Linter):
    """shape_call layers (shape computations at run time) and dynamic shapes."""

    name = "dynamic-shapes"
    description = "shape_call layers and dynamic-shape overhead"
    needs_details = False
    warning_pct = 5.0

    def check(self) -> list[Finding]:
        """One finding when the engine has shape_call layers, dynamic tensors or several profiles."""
        plan = self.plan
        facts = self.facts
        idx = [i for i, (kind, name) in enumerate(zip(facts.types, facts.names))
               if kind == "shape_call" or "shape_call" in name]
        dynamic = plan.dynamic_tensor_uses  # a fact of the plan model
        profiles = len(plan.profiles)
        if not idx and not dynamic and profiles <= 1:
            return []
        lat = self.latencies
        ms = float(sum(lat[i] for i in idx if not math.isnan(lat[i])))
        pct = self.share(ms)
        evidence = {"shape_calls": len(idx), "dynamic_tensor_uses": dynamic,
                    "optimization_profiles": profiles}
        if self.timed:
            evidence.update(shape_call_ms=r(ms), shape_call_pct=r(pct, 2))
        return [self.finding(
            facts.names[idx[0]] if idx else ENGINE,
            "info" if math.isnan(pct) else by_share(pct, self.warning_pct),
            f"Dynamic shapes: {len(idx)} shape_call layer(s) compute shapes at run time.",
            evidence,
            "Build with the shapes fixed where the application allows (min = opt = max), or keep "
            "shape tensors on the host; each shape_call synchronises shape computation with the "
            "GPU work.",
            "Dynamic shapes add shape computations and restrict tactics to those valid for every "
            "shape in the profile.")]
