"""Type-conversion linters (TREx's ReformatLinter and SliceLinter) and the reformat latency share."""

from __future__ import annotations

import math
from typing import ClassVar

from .base import ENGINE, Finding, Linter, by_share, r

_CONVERSION_HELP = ("Conversions between float32 and float16 are a red flag, as are conversions "
                    "between float32/16 and INT8.")
_INT8 = ("INT8", "UINT8")
_IO_MITIGATION = ("Needed: it converts the engine's input or output binding. To move the "
                  "conversion out of the engine, build with --inputIOFormats/--outputIOFormats in "
                  "the format the first/last layer uses and convert in the application.")


def _conversion_mitigation(inp: str, out: str) -> str:
    # TREx compared "Int8" format prefixes with "INT8", so this text never appeared; precisions fix it.
    if inp in _INT8 or out in _INT8:
        return "Consider adding quantization around float operations."
    return ("Consider running the producer and the consumer in the same precision (layer precision "
            "constraints, or FP16 I/O formats) so that no conversion is needed.")


# Layout-only conversions the note names, at most.
_NAMED_SKIPS = 3


class _ConversionLinter(Linter):
    """Layers of one kind that convert the data type (layout-only conversions are assumed
    optimal, as in TREx; the ``note`` names the ones left out so that the count can be read beside
    the engine's count of the kind). A conversion of the engine's own input or output is info:
    the engine's I/O formats make it necessary."""

    kind: ClassVar[str] = ""

    def _kind_rows(self) -> list[int]:
        """The layers (positions) of this linter's kind."""
        return [k for k, kind in enumerate(self.facts.types) if kind == self.kind]

    def check(self) -> list[Finding]:
        """One finding per layer of the kind whose input and output data types differ."""
        out = []
        skipped: list[int] = []
        facts = self.facts
        first_in, first_out = facts.first_in, facts.first_out
        precisions, outputs = facts.precisions, facts.output_precisions
        converts = facts.converts_engine_io
        hazard = f"{self.kind} layer is converting operand data type."
        for i in self._kind_rows():
            first, written = first_in[i], first_out[i]
            inp, outp = precisions[i], outputs[i]  # of inputs[0] and outputs[0]
            if first < 0 or written < 0 or inp == outp:
                skipped.append(i)  # no tensors, or the data type kept
                continue
            io = converts[i]
            mitigation = (_IO_MITIGATION if io else _conversion_mitigation(inp, outp))
            out.append(Finding(
                facts.names[i], self.name, "info" if io else "warning", hazard,
                {"bytes_in": facts.in_bytes(i), "bytes_out": facts.out_bytes(i),
                 **facts.timing(i)},
                mitigation, _CONVERSION_HELP,
                {"origin": facts.origins[i] or "", "type conversion": f"{inp} -> {outp}",
                 "shape conversion": f"{facts.shape(first)} -> {facts.shape(written)}"}))
        if skipped:
            self.note = self._skipped_note(skipped, len(out) + len(skipped))
        return out

    def _skipped_note(self, skipped: list[int], reformats: int) -> str:
        """Which layers of the kind have no finding and why: they keep the data type (a layout or
        vectorisation change only, e.g. a CopyNode to NC/2HW2), or list no tensors."""
        facts = self.facts

        def what(i: int) -> str:
            first, written = facts.first_input(i), facts.first_output(i)
            if first is None or written is None:
                return f"{facts.names[i]} (no tensors listed)"
            return f"{facts.names[i]} ({facts.format(first)} -> {facts.format(written)})"

        named = "; ".join(what(i) for i in skipped[:_NAMED_SKIPS])
        more = f"; and {len(skipped) - _NAMED_SKIPS} more" if len(skipped) > _NAMED_SKIPS else ""
        share = "; reformat-share counts every Reformat layer" if self.kind == "Reformat" else ""
        return (f"{self.name}: {len(skipped)} of {reformats} {self.kind} layers not listed: they "
                f"do not change the data type (a layout change only), which this linter leaves "
                f"out as TREx's did ({named}{more}){share}")


class ReformatLinter(_ConversionLinter):
    """Reformat layers (Myelin's included) that convert the data type."""

    name = "reformat"
    description = "Reformat layers converting between data types"
    kind = "Reformat"

    def _kind_rows(self) -> list[int]:
        return self.facts.reformats


class SliceLinter(_ConversionLinter):
    """Slice layers that convert the data type."""

    name = "slice"
    description = "Slice layers converting between data types"
    kind = "Slice"


class ReformatShareLinter(Linter):
    """The share of latency spent in Reformat layers, and chains of back-to-back reformats."""

    name = "reformat-share"
    description = "Reformat layers' share of latency (warning >= 5 %, error >= 20 %) and chains"
    needs_details = False
    warning_pct = 5.0
    error_pct = 20.0

    def check(self) -> list[Finding]:
        """The engine's reformat share (when profiled) and each chain of back-to-back reformats."""
        facts = self.facts
        lat = self.latencies
        idx = list(facts.reformats)
        out: list[Finding] = []
        if idx and not self.timed:
            self.note = f"{self.name}: no per-layer profile; the reformat share is not computed"
        if idx and self.timed:
            io = [i for i in idx if self.converts_engine_io_at(i)]
            ms = float(sum(lat[i] for i in idx if not math.isnan(lat[i])))
            io_ms = float(sum(lat[i] for i in io if not math.isnan(lat[i])))
            pct, io_pct = self.share(ms), self.share(io_ms)
            inner = pct - io_pct  # the share the network's own layout/precision choices cause
            hazard = f"Reformat layers take {pct:.1f} % of the engine's latency."
            out.append(self.finding(
                ENGINE, by_share(inner, self.warning_pct, self.error_pct), hazard,
                {"reformats": len(idx), "layers": len(facts), "reformat_ms": r(ms),
                 "total_ms": r(self.total_ms), "reformat_pct": r(pct, 2),
                 "io_reformats": len(io), "io_reformat_pct": r(io_pct, 2)},
                (f"{io_pct:.1f} % of it converts the engine's own input and output (needed with "
                 "its I/O formats; --inputIOFormats/--outputIOFormats in the format of the first "
                 "and last layers would move it out); the severity follows the rest. " if io
                 else "")
                + "Remove conversions at their source: quantize residual branches and pooling "
                "inputs (Q/DQ placement), keep neighbouring layers in one precision and layout.",
                "Reformats only move data; every one of them is latency the network does not need."))
        if self.plan.detailed:
            out.extend(self._chains(idx))
        return out

    def _chains(self, idx: list[int]) -> list[Finding]:
        """Reformats fed by reformats: one finding per chain, reported at its last reformat."""
        facts = self.facts
        if not idx:
            return []
        made_by = facts.producers
        read_by = facts.consumers
        is_reformat = set(idx)

        def feeder(i: int) -> int | None:
            first = facts.first_input(i)
            src = made_by.get(facts.name_id(first)) if first is not None else None
            return src if src in is_reformat else None

        out = []
        lat = self.latencies
        for i in idx:
            if feeder(i) is None:
                continue
            if any(c in is_reformat for t in facts.output_names(i) for c in read_by.get(t, [])):
                continue  # not the end of the chain
            chain = [i]
            while (src := feeder(chain[0])) is not None and src not in chain:
                chain.insert(0, src)
            ms = float(sum(lat[j] for j in chain if j < len(lat) and not math.isnan(lat[j])))
            start = facts.first_input(chain[0])
            if start is None:  # as a Layer's inputs[0] would
                raise IndexError("list index out of range")
            types = [facts.precision(start)] + \
                [facts.precision(w) if (w := facts.first_output(j)) is not None else "?"
                 for j in chain]
            evidence = {"length": len(chain)}
            if self.timed:
                evidence.update(latency_ms=r(ms), latency_pct=r(self.share(ms), 2))
            out.append(self.finding(
                facts.names[chain[0]], "warning", f"{len(chain)} reformats in a row.",
                evidence,
                "Back-to-back reformats convert twice; make the producer emit the format the "
                "consumer needs (e.g. quantize before the producer so that it runs in INT8) so that "
                "one or no reformat remains.",
                "Each reformat reads and writes the whole tensor.",
                chain=" -> ".join(facts.names[j] for j in chain),
                **{"type conversion": " -> ".join(types)}))
        return out

