"""What a verbose TensorRT build log says, as plain typed records (read by :mod:`.build_log`).

Every tactic timed or taken from the timing cache, per layer and format combination; the runner
each combination chose; graph fusions; ``[MemUsageChange]`` lines; per-pass memory totals; Myelin's
tables; the ``Engine Layer Information`` list. TensorRT 10 may build several passes (``backend
strategy``); each record names its pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .records import Metadata


@dataclass
class TacticTiming:
    """One tactic as the autotuner saw it: timed, taken from the timing cache, or skipped."""

    build_pass: int
    layer: str
    combination: str
    runner: str
    tactic: str
    time_ms: float  # inf: failed; nan: skipped
    status: str = "timed"  # timed | cached | skipped
    tactic_name: str | None = None
    runner_id: str | None = None
    profile: int | None = None
    reformat: bool = False


@dataclass
class RunnerResult:
    """A ``profiling completed`` line: one runner on one format combination."""

    build_pass: int
    layer: str
    combination: str
    runner: str
    seconds: float
    fastest_tactic: str | None
    fastest_ms: float
    runner_id: str | None = None
    reformat: bool = False


@dataclass
class RunnerChoice:
    """``Chose Runner Type``: the runner and tactic kept for one layer and format combination."""

    build_pass: int
    layer: str
    combination: str
    runner: str
    tactic: str


@dataclass
class FusionStep:
    """A graph optimisation: ``kind`` is ``fuse`` (``first`` with ``second``) or ``remove``."""

    build_pass: int
    kind: str
    rule: str
    first: str
    second: str = ""

    @property
    def result(self) -> str:
        """The fused layer's name as TensorRT forms it (``A + B``)."""
        return f"{self.first} + {self.second}" if self.kind == "fuse" else ""


@dataclass
class MemoryChange:
    """A ``[MemUsageChange]`` line, MiB."""

    build_pass: int | None
    event: str
    cpu_delta_mib: int
    gpu_delta_mib: int
    cpu_mib: int
    gpu_mib: int
    line: int = 0


@dataclass
class MyelinTactic:
    """A row of a Myelin (``foreignNode``) sorted table of evaluated tactics."""

    build_pass: int
    layer: str
    op: str
    tactic_id: int
    cost_ms: float
    ratio: float
    kernel: str
    tactic_hash: str


@dataclass
class BuildPass:
    """One builder pass (TensorRT 10 tries several ``backend strategies``, keeps one)."""

    index: int
    strategy: int | None = None
    chosen: bool | None = None
    estimated_ms: float | None = None
    layer_counts: dict[str, int] = field(default_factory=dict)
    graph_optimization_s: float | None = None
    tactic_selection_s: float | None = None
    generation_s: float | None = None
    memory: dict[str, int] = field(default_factory=dict)
    layer_memory: list[dict[str, Any]] = field(default_factory=list)
    streams: int | None = None
    aux_streams: int | None = None
    reformats_added: list[str] = field(default_factory=list)


@dataclass
class EngineTensor:
    """A tensor of an ``Engine Layer Information`` line: ``name (Int8[1,32:32,56,56])``."""

    name: str
    dtype: str
    dims: list[int]
    vector: int = 1  # channel vector width (``32:32`` -> 32)
    vector_axis: int | None = None
    vector_printed: bool = True  # False: the line's form never prints widths (8.2/8.5)


@dataclass
class EngineLayer:
    """One ``Layer(Type): name, Tactic: 0x..., inputs -> outputs`` line."""

    name: str
    type: str
    tactic: str | None
    inputs: list[EngineTensor]
    outputs: list[EngineTensor]


@dataclass
class TimingCacheStats:
    """A ``Deleting timing cache: N entries, M hits`` line (8.x: ``served M hits since creation``)."""

    build_pass: int | None
    entries: int
    hits: int
    line: int = 0


@dataclass
class BuildLog:
    """Everything read from one verbose build log; ``warnings`` lists this reader's findings."""

    source: str = ""
    version: str | None = None
    command: str | None = None
    metadata: Metadata = field(default_factory=Metadata)
    passes: list[BuildPass] = field(default_factory=list)
    tactics: list[TacticTiming] = field(default_factory=list)
    runners: list[RunnerResult] = field(default_factory=list)
    choices: list[RunnerChoice] = field(default_factory=list)
    fusions: list[FusionStep] = field(default_factory=list)
    memory: list[MemoryChange] = field(default_factory=list)
    myelin: list[MyelinTactic] = field(default_factory=list)
    foreign_nodes: dict[str, list[str]] = field(default_factory=dict)
    onnx_nodes: dict[str, str] = field(default_factory=dict)  # "Parsing node: X [Op]": X -> Op
    engine_layers: list[EngineLayer] = field(default_factory=list)
    autotuned: list[tuple[int, str]] = field(default_factory=list)  # (pass, layer) in order
    combinations: list[tuple[int, str, str]] = field(default_factory=list)  # (pass, layer, combo)
    # ``--dumpLayerInfo`` lines in the same log: layer name -> (input, output) Format/Datatype
    layer_formats: dict[str, tuple[list[str], list[str]]] = field(default_factory=dict)
    timing_cache: str | None = None  # "global" (a timing cache file) or "local", as the log says
    timing_caches: list[TimingCacheStats] = field(default_factory=list)
    engine_built_s: float | None = None
    engine_size_mib: float | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def chosen_pass(self) -> int | None:
        """Index of the pass whose engine was kept (the last one marked chosen, else the last)."""
        chosen = [p.index for p in self.passes if p.chosen]
        if chosen:
            return chosen[-1]
        return self.passes[-1].index if self.passes else None


def tactic_key(tactic: str | None) -> int | None:
    """A tactic id as an unsigned 64-bit int: ``0x...`` (8.5+) and decimal (8.2) ids compare equal."""
    if not tactic:
        return None
    try:
        value = int(tactic, 16) if tactic.lower().startswith(("0x", "-0x")) else int(tactic)
    except ValueError:
        return None
    return value & 0xFFFFFFFFFFFFFFFF
