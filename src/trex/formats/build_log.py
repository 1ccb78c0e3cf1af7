"""Reader of verbose TensorRT build logs (8.x-10.x): autotuning, fusions, memory, engine layers.

One pass over the lines records every tactic timed (or taken from the timing cache) per layer and
format combination, the runner each combination chose, the graph fusions, ``[MemUsageChange]``
lines, per-pass memory totals and the ``Engine Layer Information`` list that verbose builds print.
TensorRT 10 may build several passes (``backend strategy``); each record names its pass. Options,
device and version come from :mod:`trex.formats.trtexec_log`.
"""

from __future__ import annotations

import math
import os
import re
from typing import TYPE_CHECKING

from ..errors import InputError
from .build_records import (
    BuildLog,
    BuildPass,
    EngineLayer,
    EngineTensor,
    FusionStep,
    MemoryChange,
    MyelinTactic,
    RunnerChoice,
    RunnerResult,
    TacticTiming,
    TimingCacheStats,
    tactic_key,
)
from .combinations import combination_signature
from .engine_layers import _to_int as _int
from .engine_layers import dumped_layer, engine_layer_info, parse_engine_layer
from .logtext import split_log_line
from .text import iter_lines, unix_newlines
from .unnamed_sections import UNNAMED as _UNNAMED
from .unnamed_sections import name_sections

if TYPE_CHECKING:
    from .trtexec_log import TrtexecLog

__all__ = [
    "BuildLog", "BuildPass", "EngineLayer", "EngineTensor", "FusionStep", "MemoryChange",
    "MyelinTactic", "RunnerChoice", "RunnerResult", "TacticTiming", "TimingCacheStats",
    "combination_signature", "engine_layer_info",
    "looks_like_build_log", "parse_build_log", "read_build_log",
]

_TACTIC = r"(?:0x[0-9a-fA-F]+|-?\d+)"
_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?i:inf|nan)"
_TACTIC_LINE = re.compile(rf"(?:Tactic Name: (?P<name>\S+) )?Tactic: (?P<tactic>{_TACTIC})"
                          rf"(?: Time: (?P<time>{_NUM})| skipped\.(?P<why>.*))")
_RUNNER = re.compile(r"(?P<layer>.*) \((?P<runner>[A-Za-z_][A-Za-z0-9_]*)"
                     r"(?:\[(?P<id>0x[0-9a-fA-F]+)\])?\)$")
_COMPLETED = re.compile(rf" profiling completed in (?P<s>{_NUM}) seconds\. Fastest Tactic: "
                        rf"(?P<tactic>{_TACTIC}) Time: (?P<time>{_NUM})")
_CACHED = re.compile(rf"(?P<runner>[^,]+), tactic (?P<tactic>{_TACTIC}), (?P<time>{_NUM}) ms")
_CHOSE = re.compile(rf"Chose Runner Type: (?P<runner>\S+) Tactic: (?P<tactic>{_TACTIC})")
_MEM_CHANGE = re.compile(r"\[MemUsageChange\] (?P<event>.*?): CPU (?P<cpu>[-+]\d+), GPU (?P<gpu>[-+]\d+)"
                         r", now: CPU (?P<cpu_now>\d+), GPU (?P<gpu_now>\d+) \(MiB\)")
_FUSING = re.compile(r"(?P<rule>[A-Za-z0-9_]+): Fusing (?P<rest>.+)$")
_AFTER = re.compile(r"After (?P<step>[A-Za-z][A-Za-z -]*): (?P<n>\d+) layers$")
_STRATEGY = re.compile(r"backend strategy ?(?P<n>\d+)")
_ESTIMATE = re.compile(rf"estimated inference time \((?P<t>{_NUM})\)")
_LAYER_MEM = re.compile(r"Layer: (?P<layer>.*) Host Persistent: (?P<host>\d+)(?: bytes)? Device Persistent: "
                        r"(?P<device>\d+)(?: bytes)? Scratch Memory: (?P<scratch>\d+)")
_TOTALS = ("Total Host Persistent Memory", "Total Device Persistent Memory", "Total Scratch Memory",
           "Max Scratch Memory", "Total Activation Memory", "Total Weights Memory")
# 8.2-8.6 name of the tactic timed next: ``LAYER Set Tactic Name: NAME Tactic: ID``.
_SET_NAME = re.compile(rf"Set Tactic Name: (?P<name>\S+)(?: Tactic: (?P<tactic>{_TACTIC}))?")
_MYELIN_ROW = re.compile(rf"\s*(?P<id>\d+), (?P<cost>{_NUM}), (?P<ratio>{_NUM}), (?P<corr>{_NUM}), "
                         r"(?P<kernel>[^,]*), (?P<hash>[^,]*)")
_NO_TACTIC = "0xd15ea5edd15ea5ed"  # TensorRT's "no valid tactic" sentinel
_CACHE_DELETED = re.compile(r"Deleting timing cache: (?P<entries>\d+) entries, (?:served )?"
                            r"(?P<hits>\d+) hits")

_SNIFF = re.compile(r"Computing costs for |Engine Layer Information|\[MemUsageChange\]|: Fusing ")

def looks_like_build_log(text: str) -> bool:
    """True if the text holds verbose builder output (autotuning, fusions or the layer list)."""
    return _SNIFF.search(text) is not None


def read_build_log(path: str | os.PathLike[str]) -> BuildLog:
    """Read and parse a build log; InputError names the file if it holds no build records."""
    from .trtexec_log import TrtexecLogParser

    source = os.fspath(path)
    parser, info = BuildLogParser(source), TrtexecLogParser(source)
    for number, line in enumerate(iter_lines(path), 1):  # read as it is parsed
        parser.feed(line, number)
        info.feed(line)
    log = with_trtexec(parser.finish(), info.finish())
    if not (log.tactics or log.engine_layers or log.fusions or log.memory or log.passes):
        raise InputError(source, "no TensorRT build records (expected a trtexec --verbose build "
                                 "log: 'Computing costs for', 'Engine Layer Information')")
    return log


def parse_build_log(text: str, source: str = "", info: TrtexecLog | None = None) -> BuildLog:
    """Parse the text of a build log; unknown lines are skipped.

    ``info`` is the same text already parsed by :func:`~trex.formats.trtexec_log.parse_trtexec_log`
    (options, device, version), when the caller has it.
    """
    if not isinstance(text, str):
        raise InputError(source or None, f"expected log text, got {type(text).__name__}")
    from .trtexec_log import parse_trtexec_log

    text = unix_newlines(text)
    parser = BuildLogParser(str(source))
    for number, line in enumerate(text.split("\n"), 1):
        parser.feed(line, number)
    return with_trtexec(parser.finish(), info or parse_trtexec_log(text, source))


def with_trtexec(log: BuildLog, info: TrtexecLog) -> BuildLog:
    """A build log with the version, command line and metadata trtexec's lines gave."""
    log.version, log.command, log.metadata = info.version, info.command, info.metadata
    return log


def _after(text: str, prefix: str) -> str | None:
    """``text`` without ``prefix``, or None if it does not start with it (never a blind cut)."""
    return text[len(prefix):] if text.startswith(prefix) else None


def _first_word(text: str, prefix: str) -> str | None:
    """The first word after ``prefix`` (``Engine generation completed in 38.574 seconds.``)."""
    rest = _after(text, prefix)
    return rest.split(" ", 1)[0] if rest is not None else None


def onnx_layers(text: str) -> list[str]:
    """The names in ``[ONNX Layer: name]`` marks, in order (as ``re.findall`` of
    ``\\[ONNX Layer: ([^\\]]*)\\]``, in one pass: the regex rescans to the end from every
    unclosed mark)."""
    marker = "[ONNX Layer: "
    names = []
    pos = text.find(marker)
    while pos >= 0:
        end = text.find("]", pos + len(marker))
        if end < 0:
            break
        names.append(text[pos + len(marker):end])
        pos = text.find(marker, end + 1)
    return names


def _float(text: str | None) -> float:
    try:
        return float(text) if text is not None else math.nan
    except ValueError:
        return math.nan


class BuildLogParser:
    """Line-by-line state machine behind parse_build_log: ``feed`` each line, then ``finish``."""

    def __init__(self, source: str):
        self.log = BuildLog(source)
        self.pass_: BuildPass | None = None
        self.profile: int | None = None
        self.layer = ""
        self.combination = ""
        self.runner = ""
        self.runner_id: str | None = None
        self.reformat = False
        self.running_target = ""
        self.myelin_op = ""
        self.tuned = False  # the current pass has started autotuning
        self.pending_name: tuple[str, int | None] | None = None  # from a Set Tactic Name line
        self.number = 0  # of the line being read
        self.unnamed = 0  # "Computing costs for" lines without a name (8.2/8.5)
        self.section_names: dict[str, str] = {}  # their stand-in name -> the layer they tune
        self.dumped: list[EngineLayer] = []  # the layers of a --dumpLayerInfo block

    # ------------------------------------------------------------------ state helpers
    def _pass(self) -> BuildPass:
        if self.pass_ is None:
            self.pass_ = BuildPass(len(self.log.passes))
            self.log.passes.append(self.pass_)
        return self.pass_

    def _pass_with_strategy(self, strategy: int) -> BuildPass | None:
        for p in reversed(self.log.passes):
            if p.strategy == strategy:
                return p
        return None

    # ------------------------------------------------------------------ dispatch
    def feed(self, line: str, number: int) -> None:
        """Read line ``number`` of the log."""
        self.number = number
        if line.startswith("Layer("):  # unprefixed lines of "Engine Layer Information"
            layer = parse_engine_layer(line)
            if layer is not None:
                self.log.engine_layers.append(layer)
            return
        if line.startswith("Name: "):  # unprefixed lines of a --dumpLayerInfo block
            self._dump_line(line)
            return
        parsed = split_log_line(line)
        if parsed is None:
            return
        content = parsed.content
        if not parsed.from_tensorrt:
            self._trtexec_line(content)
            return
        first = content[:1]
        if "Set Tactic Name: " in content:
            self._set_name(content)
        elif first == "=":
            self._section(content)
        elif first == "*":
            self._combination(content)
        elif first == "-":
            runner = _after(content, "--------------- Timing Runner: ")
            if runner is not None:
                self._timing_runner(runner)
        elif first == ">":
            chose = _CHOSE.search(content)
            if chose:
                self.log.choices.append(RunnerChoice(self._pass().index, self.layer,
                                                     self.combination, chose["runner"],
                                                     chose["tactic"].lower()))
        elif content.startswith(("Tactic Name: ", "Tactic: ")):
            self._tactic(content)
        elif first == " " and content.startswith(" (foreignNode)"):
            self._myelin(content[len(" (foreignNode)"):])
        elif " profiling completed in " in content:
            self._completed(content)
        elif "] got cached result: " in content:
            self._cached(content)
        elif first == "[":
            self._bracketed(content, number)
        else:
            self._other(content)

    def _section(self, content: str) -> None:
        layer = _after(content, "=============== Computing costs for ")
        if layer is None and content.rstrip() == "=============== Computing costs for":
            layer = ""
        if layer is not None:
            self.layer = layer.strip()
            if not self.layer:  # 8.2/8.5: the timing runners name the layer, if any runs
                self.unnamed += 1
                self.layer = f"{_UNNAMED}{self.unnamed}"
            self.combination, self.reformat = "", False
            self.log.autotuned.append((self._pass().index, self.layer))
            self.tuned = True
        elif content.startswith("=============== Computing reformatting costs"):
            self.layer, self.combination, self.reformat = "", "", True

    def _combination(self, content: str) -> None:
        text = content.strip("* ")
        for head in ("Autotuning format combination: ", "Autotuning Reformat: "):
            if text.startswith(head):
                self.combination = text[len(head):].strip()
                if not self.reformat and self.layer:
                    self.log.combinations.append((self._pass().index, self.layer,
                                                  self.combination))
                return

    def _timing_runner(self, text: str) -> None:
        self.pending_name = None
        match = _RUNNER.match(text.strip())
        if match:
            self.runner, self.runner_id = match["runner"], match["id"]
            if self.reformat or not self.layer:
                self.layer = match["layer"]
            elif match["runner"] != "Reformat":
                self._name_section(match["layer"])
        else:
            self.runner, self.runner_id = text.strip(), None

    def _set_name(self, content: str) -> None:
        match = _SET_NAME.search(content)
        if match is not None:
            self.pending_name = (match["name"], tactic_key(match["tactic"]))
            owner = content[:match.start()].rstrip()  # "LAYER" or "LAYER (runner)"
            runner = _RUNNER.match(owner)
            self._name_section(runner["layer"] if runner else owner)

    def _name_section(self, name: str) -> None:
        """The first layer name printed inside a section opened without one names it (a reformat
        timed inside it, ``<reformat>`` or ``Optimizer Reformat(...)``, does not)."""
        name = name.strip()
        if (name and self.layer.startswith(_UNNAMED) and not self.reformat
                and not name.startswith(("<", "Optimizer Reformat"))):
            self.section_names.setdefault(self.layer, name)

    def _dump_line(self, line: str) -> None:
        """A ``Name: X, LayerType: Y, Inputs: [...]`` line: the formats of the layer's tensors
        (the first block wins; later ones repeat it per profile or context), and the layer itself
        for a log that prints no ``Engine Layer Information``."""
        found = dumped_layer(line)
        if found is not None and found[0].name not in self.log.layer_formats:
            self.log.layer_formats[found[0].name] = found[1]
            self.dumped.append(found[0])

    def _tactic(self, content: str) -> None:
        match = _TACTIC_LINE.match(content)
        if match is None:
            return
        skipped = match["why"] is not None
        name = match["name"]
        if name is None and self.pending_name is not None:
            pending, key = self.pending_name
            if key is None or key == tactic_key(match["tactic"]):
                name = pending
            self.pending_name = None
        self.log.tactics.append(TacticTiming(
            self._pass().index, self.layer, self.combination, self.runner,
            match["tactic"].lower(), math.nan if skipped else _float(match["time"]),
            "skipped" if skipped else "timed", name, self.runner_id, self.profile,
            self.reformat))

    def _completed(self, content: str) -> None:
        index = content.find(" profiling completed in ")
        runner = _RUNNER.match(content[:index])
        done = _COMPLETED.search(content, index)
        if runner is None or done is None:
            return
        fastest = done["tactic"].lower()
        time = _float(done["time"])
        self.log.runners.append(RunnerResult(
            self._pass().index, self.layer if not self.reformat else runner["layer"],
            self.combination, runner["runner"], _float(done["s"]),
            None if fastest == _NO_TACTIC or not math.isfinite(time) else fastest, time,
            runner["id"], self.reformat))

    def _cached(self, content: str) -> None:
        index = content.find("] got cached result: ")
        open_ = content.rfind(" [", 0, index)
        match = _CACHED.match(content, index + len("] got cached result: "))
        if open_ < 0 or match is None:
            return
        layer = content[:open_]
        reformat = layer.startswith("Optimizer Reformat(")
        self.log.tactics.append(TacticTiming(
            self._pass().index, layer, content[open_ + 2:index], match["runner"].strip(),
            match["tactic"].lower(), _float(match["time"]), "cached", None, None, self.profile,
            reformat))

    def _myelin(self, text: str) -> None:
        text = text.strip()
        op = _after(text, "Autotuning op ")
        if op is not None:
            self.myelin_op = op.split(":", 1)[0]
            return
        match = _MYELIN_ROW.match(text)
        if match:
            self.log.myelin.append(MyelinTactic(
                self._pass().index, self.layer, self.myelin_op, int(match["id"]),
                _float(match["cost"]), _float(match["ratio"]), match["kernel"].strip(),
                match["hash"].strip()))

    def _bracketed(self, content: str, number: int) -> None:
        if content.startswith("[MemUsageChange]"):
            match = _MEM_CHANGE.match(content)
            if match:
                self.log.memory.append(MemoryChange(
                    self.pass_.index if self.pass_ else None, match["event"], int(match["cpu"]),
                    int(match["gpu"]), int(match["cpu_now"]), int(match["gpu_now"]), number))
        elif content.startswith("[MS] "):
            words = content.split()
            if content.startswith("[MS] Number of aux streams is") and words[-1].isdigit():
                self._pass().aux_streams = int(words[-1])
            elif content.startswith("[MS] Number of streams used is") and words[-1].isdigit():
                self._pass().streams = int(words[-1])

    def _other(self, content: str) -> None:
        if content.startswith("Name: "):
            self._dump_line(content)
        elif content.startswith("Deleting timing cache: "):
            match = _CACHE_DELETED.match(content)
            if match:
                self.log.timing_caches.append(TimingCacheStats(
                    self.pass_.index if self.pass_ else None, int(match["entries"]),
                    int(match["hits"]), self.number))
        elif "timing cache" in content and content.startswith(("Global timing cache in use",
                                                                 "Local timing cache in use",
                                                                 "Detected invalid timing cache")):
            self.log.timing_cache = "global" if content.startswith("Global") else "local"
        elif content.startswith("Building graph using backend strategy "):
            strategy = _int(content.rsplit(" ", 1)[-1], -1)
            current = self.pass_
            if current is not None and current.strategy is None and not self.tuned:
                current.strategy = strategy  # graph optimisation lines came first (8.x)
            else:
                self.pass_ = BuildPass(len(self.log.passes), strategy)
                self.log.passes.append(self.pass_)
            self.tuned = False
            self.profile = None
        elif content.startswith("Constructing optimization profile number "):
            self.profile = _int(_first_word(content, "Constructing optimization profile number ")
                                or "", 0)
            self._pass()
        elif content.startswith(("Use backend strategy", "Chose this engine with backend strategy",
                                 "Skip backend strategy")):
            self._strategy(content)
        elif ": Fusing " in content:
            self._fusion(content)
        elif content.startswith("Running: "):
            _, _, target = content.partition(" on ")
            self.running_target = target
        elif content.startswith("Removing "):
            self.log.fusions.append(FusionStep(self._pass().index, "remove", "",
                                               content[len("Removing "):]))
        elif content.startswith("After ") and content.endswith(" layers"):
            match = _AFTER.match(content)
            if match:
                self._pass().layer_counts[match["step"]] = int(match["n"])
        elif content.startswith("Parsing node: ") and content.endswith("]"):
            node, _, op = content[len("Parsing node: "):-1].rpartition(" [")
            if node:
                self.log.onnx_nodes[node] = op
        elif content.startswith("ForeignNode {"):
            name, _, members = content[len("ForeignNode "):].partition(" metadata: ")
            if members:
                self.log.foreign_nodes[name] = onnx_layers(members)
        elif content.startswith("Layer: ") and " Host Persistent: " in content:
            match = _LAYER_MEM.match(content)
            if match:
                self._pass().layer_memory.append({
                    "layer": match["layer"], "host_persistent_bytes": int(match["host"]),
                    "device_persistent_bytes": int(match["device"]),
                    "scratch_bytes": int(match["scratch"])})
        elif content.startswith(("Total ", "Max Scratch")):
            key, _, value = content.partition(": ")
            if key in _TOTALS and value.split(" ", 1)[0].isdigit():
                self._pass().memory[key] = int(value.split(" ", 1)[0])
        elif content.startswith("Graph optimization time: "):
            self._pass().graph_optimization_s = _float(
                _first_word(content, "Graph optimization time: "))
        elif content.startswith("Formats and tactics selection completed in "):
            self._pass().tactic_selection_s = _float(
                _first_word(content, "Formats and tactics selection completed in "))
        elif content.startswith("Engine generation completed in "):
            self._pass().generation_s = _float(_first_word(content, "Engine generation completed in "))
        elif content.startswith("Adding reformat layer: "):
            self._pass().reformats_added.append(content[len("Adding reformat layer: "):])

    def _strategy(self, content: str) -> None:
        match = _STRATEGY.search(content)
        estimate = _ESTIMATE.search(content)
        if match is None:
            return
        target = self._pass_with_strategy(int(match["n"]))
        if target is None:
            return
        if estimate:
            target.estimated_ms = _float(estimate["t"])
        if content.startswith("Skip"):
            target.chosen = False
            return
        for p in self.log.passes:
            if p.chosen and p is not target:
                p.chosen = False
        target.chosen = True

    def _fusion(self, content: str) -> None:
        match = _FUSING.match(content)
        if match is None:
            return
        rest = match["rest"]
        target = self.running_target
        if target and rest.startswith(target + " with "):
            first, second = target, rest[len(target) + 6:]
        else:
            first, _, second = rest.partition(" with ")
        self.log.fusions.append(FusionStep(self._pass().index, "fuse", match["rule"], first, second))

    def _trtexec_line(self, content: str) -> None:
        if content.startswith("Engine built in "):
            value, _, unit = content[16:].partition(" ")
            if unit.startswith("sec"):
                self.log.engine_built_s = _float(value)
        elif content.startswith("Created engine with size: "):
            self.log.engine_size_mib = _float(_first_word(content, "Created engine with size: "))

    def finish(self) -> BuildLog:
        """The build records, with a warning when the log holds none."""
        log = self.log
        if not log.engine_layers and self.dumped:
            log.engine_layers = self.dumped
        if self.unnamed:
            name_sections(log, self.section_names, self.unnamed)
        if not log.autotuned and not log.engine_layers:
            log.warnings.append("no autotuning records and no engine layer list: not a "
                                "trtexec --verbose build log (a profiling run?)")
        timed = sum(t.status == "timed" for t in log.tactics)
        if log.autotuned and not timed and not any(t.status == "cached" for t in log.tactics):
            log.warnings.append("layers were autotuned but no tactic timings were printed "
                                "(was the build run with --verbose?)")
        return log
