"""EnginePlan: the normalised model of one engine, drop-in compatible with TREx's EnginePlan."""

from __future__ import annotations

import gc
import math
import os
import warnings as _warnings
from collections import deque
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

from . import validation
from .dataframe import layers_dataframe
from .errors import InputError, TrexWarning
from .formats import detect
from .formats.layer_info import read_layer_info
from .formats.metadata import read_metadata
from .formats.profile import read_profile
from .formats.records import DeviceInfo, LayerInfo, Metadata, ProfileRun
from .formats.timings import read_timings
from .layer import Activation, Layer, fold_no_ops
from .profiles import profile_of_name, select_profile, strip_profile

SYNC_TYPES = ("signal", "wait")
DETAILED_HINT = (
    "layer information has names only: types, tensors, precisions, sizes, the graph, linters and "
    "the compute model need an engine built with --profilingVerbosity=detailed"
)


class EnginePlan:
    """An engine's layers, profile, timings and metadata, with TREx's ``df`` and summaries.

    ``EnginePlan(graph_file, profiling_file, profiling_metadata_file, build_metadata_file, name,
    profile_id)`` takes the same arguments as TREx's; :meth:`from_path` finds the files itself.
    Any input may be JSON or a trtexec log; content decides, not the file extension.
    """

    def __init__(
        self,
        graph_file: str | os.PathLike,
        profiling_file: str | os.PathLike | None = None,
        profiling_metadata_file: str | os.PathLike | None = None,
        build_metadata_file: str | os.PathLike | None = None,
        name: str | None = None,
        profile_id: int | None = None,
        *,
        timing_file: str | os.PathLike | None = None,
        device_metadata_file: str | os.PathLike | None = None,
        profile_run: int | None = None,
    ):
        self.archive = None
        if _is_archive(graph_file):  # a .tea: extracted to a private folder for the plan's life
            from .archive import open_archive

            self.archive = open_archive(graph_file)
            (graph_file, profiling_file, profiling_metadata_file, build_metadata_file, timing_file,
             device_metadata_file, name) = self.archive.plan_inputs(
                profiling_file, profiling_metadata_file, build_metadata_file, timing_file,
                device_metadata_file, name)
        with _gc_paused():
            self._load(graph_file, profiling_file, profiling_metadata_file, build_metadata_file,
                       name, profile_id, timing_file, device_metadata_file, profile_run)

    def _load(self, graph_file, profiling_file, profiling_metadata_file, build_metadata_file,
              name, profile_id, timing_file, device_metadata_file, profile_run) -> None:
        self.warnings: list[str] = []
        self.name = name or Path(graph_file).name
        self.graph_file = os.fspath(graph_file)
        self.profile_id = profile_id or 0
        info = _read_graph(graph_file)
        self.detailed = info.detailed
        self._warn_all(info.warnings)

        raw_layers, self.profiles = select_profile(info.layers, profile_id)
        if not raw_layers:
            raise InputError(graph_file, f"no layers for profile {profile_id} (profiles present: "
                                         f"{', '.join(map(str, self.profiles))})")
        _disambiguate_names(raw_layers)
        self.bindings = _bindings_for_profile(info.bindings, self.profile_id)
        self.io_tensors = info.io_tensors

        layers = [Layer(raw) for raw in raw_layers]
        if not self.bindings:
            self.bindings = _infer_bindings(layers)
            if self.detailed and self.bindings:
                self._warn(f"no Bindings in {self.graph_file}: inferred "
                           f"{len(self.bindings)} from the graph")
        binding_set = {strip_profile(b) for b in self.bindings}
        folded = fold_no_ops(layers, binding_set | set(self.bindings))
        self.all_layers = folded
        self.constants = [layer for layer in folded if layer.type == "Constant"]
        # signal/wait only order auxiliary streams: kept in all_layers (for the graph), not in df.
        self.sync_layers = [layer for layer in folded if layer.type in SYNC_TYPES]
        self.layers = [layer for layer in folded
                       if layer.type != "Constant" and layer.type not in SYNC_TYPES]

        # Profile: joined by name, never by position.
        self.profile_count: int | None = None
        self._raw_perf: list[dict[str, Any]] | None = None
        self.profile_runs = 0
        run = self._read_profile(profiling_file, profile_run) if profiling_file else None
        latencies = self._join_profile(run, raw_layers) if run else None
        if run is None:  # as TREx: no profile means zero latencies, not missing ones
            latencies = [(0.0, 0.0, 0.0, 0.0)] * len(self.layers)

        self._df = layers_dataframe(self.layers, latencies or [])
        self.timings = self._read_timings(timing_file, profile_run)

        meta_profile = _read_meta(profiling_metadata_file)
        meta_build = _read_meta(build_metadata_file)
        meta_device = _read_meta(device_metadata_file)
        self.performance_summary: dict[str, Any] = dict(meta_profile.section("performance_summary"))
        self.inference_options: dict[str, Any] = dict(meta_profile.section("inference_options"))
        self.device_properties: dict[str, Any] = dict(
            meta_profile.section("device_information") or meta_build.section("device_information"))
        self.device_attributes: dict[str, Any] = dict(meta_device.section("device_attributes"))
        self.device: DeviceInfo | None = meta_profile.device or meta_build.device or meta_device.device
        self.builder_cfg: dict[str, Any] = {**meta_build.section("model_options"),
                                            **meta_build.section("build_options")}
        for meta in (meta_profile, meta_build, meta_device):
            self._warn_all(meta.warnings)

        self._compute_summary()
        self._validate(run)
        if not self.detailed:
            self._warn(DETAILED_HINT)

    # ----------------------------------------------------------------- construction helpers
    @classmethod
    def from_path(cls, path: str | os.PathLike, profile_id: int | None = None,
                  profile_run: int | None = None, name: str | None = None) -> EnginePlan:
        """Load an engine from a prefix, a folder or any one of its files."""
        from .discovery import find_engine_files

        if _is_archive(path):
            return cls(path, name=name, profile_id=profile_id, profile_run=profile_run)
        files = find_engine_files(path)
        graph = files.graph or files.profile
        return cls(
            graph,
            profiling_file=files.profile,
            profiling_metadata_file=files.profile_metadata or files.profile_log,
            build_metadata_file=files.build_metadata or files.build_log,
            name=name or files.name,
            profile_id=profile_id,
            timing_file=files.timings,
            device_metadata_file=files.device_metadata,
            profile_run=profile_run,
        )

    def _warn(self, message: str) -> None:
        self.warnings.append(message)
        _warnings.warn(f"{self.name}: {message}", TrexWarning, stacklevel=3)

    def _warn_all(self, messages: list[str]) -> None:
        for message in messages:
            self._warn(message)

    def _read_profile(self, path: str | os.PathLike, run_index: int | None) -> ProfileRun:
        profile = read_profile(path)
        self._warn_all(profile.warnings)
        self.profile_runs = len(profile.runs)
        index = _pick_run(path, len(profile.runs), run_index)
        if run_index is None and len(profile.runs) > 1:
            self._warn(f"{os.fspath(path)} holds {len(profile.runs)} profiling runs; using the "
                       f"first (choose with profile_run=0..{len(profile.runs) - 1})")
        run = profile.runs[index]
        self.profile_count = run.count
        self._raw_perf = [
            {"name": r.name, "timeMs": r.time_ms, "averageMs": r.avg_ms, "medianMs": r.median_ms,
             "percentage": r.percentage} for r in run.records
        ]
        return run

    def _join_profile(self, run: ProfileRun, raw_layers: list[dict[str, Any]]) -> list[Any]:
        """Give each layer its profile row by name (duplicates taken in order)."""
        rows: dict[str, deque] = {}
        for record in run.records:
            rows.setdefault(record.name, deque()).append(record)
        latencies: list[Any] = []
        unprofiled: list[str] = []
        for layer in self.layers:
            queue = rows.get(layer.name)
            if queue:
                r = queue.popleft()
                median = r.median_ms if r.median_ms is not None else math.nan
                pct = r.percentage if r.percentage is not None else math.nan
                latencies.append((r.time_ms, r.avg_ms, median, pct))
            else:
                latencies.append(None)
                unprofiled.append(layer.name)
        ignored = {raw["Name"] for raw in raw_layers}
        other_profiles = self.profile_id
        unmatched = [
            name for name, queue in rows.items() for _ in queue
            if name not in ignored and (profile_of_name(name) or 0) == other_profiles
        ]
        self._warn_all(validation.check_profile_join(
            unmatched, unprofiled, len(run.records), len(self.layers)))
        self._warn_all(validation.check_percentages([r.percentage for r in run.records]))
        return latencies

    def _read_timings(self, path: str | os.PathLike | None, run_index: int | None) -> pd.DataFrame:
        if not path:
            return pd.DataFrame()
        timings = read_timings(path)
        index = _pick_run(path, len(timings.runs), run_index)
        return pd.DataFrame.from_records(timings.runs[index])

    def _compute_summary(self) -> None:
        df = self._df
        self.total_runtime = float(df["latency.avg_time"].sum()) if len(df) else 0.0
        self.total_weights_size = int(sum(layer.weights_size for layer in self.layers))
        # TREx's figure: every layer's inputs and outputs, so a tensor counts once per use.
        self.total_act_size = int(sum(layer.total_io_size_bytes for layer in self.layers))
        unique: dict[str, int] = {}
        for layer in self.layers:
            for tensor in (*layer.inputs, *layer.outputs):
                unique[tensor.name] = max(unique.get(tensor.name, 0), tensor.size_bytes)
        # The true footprint: each activation tensor once.
        self.total_activation_footprint = int(sum(unique.values()))

    def _validate(self, run: ProfileRun | None) -> None:
        if self.detailed:
            self._warn_all(validation.check_graph(self.layers))
            dynamic = sum(t.is_dynamic for layer in self.layers for t in (*layer.inputs,
                                                                         *layer.outputs))
            if dynamic:
                self._warn(f"{dynamic} tensor uses have dynamic (-1) dimensions; their sizes "
                           "count each dynamic dimension as 1")
        duplicates = validation.duplicated_names([raw.name for raw in self.layers])
        if duplicates:
            self._warn(f"layer names repeat: {validation.sample(duplicates)}")
        if run is not None:
            measured = _median_gpu_time(self.performance_summary)
            self._warn_all(validation.check_latency_sum(self.total_runtime, measured,
                                                        self.stream_count))

    # ----------------------------------------------------------------- TREx's API
    @property
    def df(self) -> pd.DataFrame:
        """One row per layer (Constant and NoOp layers excluded, as in TREx)."""
        return self._df

    @property
    def stream_count(self) -> int:
        """Number of CUDA streams the layers run on (auxiliary streams: StreamId > 0)."""
        ids = {repr(layer.raw_dict.get("StreamId", 0)) for layer in self.layers}  # any JSON value
        return max(1, len(ids))

    def get_layers_by_type(self, layer_type: str) -> pd.DataFrame:
        """The rows of ``df`` whose ``type`` is ``layer_type``."""
        return self._df[self._df["type"] == layer_type].copy()

    def find(self, layer_name: str) -> Layer | None:
        """The layer with this exact name, or None."""
        return next((layer for layer in self.layers if layer.name == layer_name), None)

    def get_bindings(self) -> tuple[list[Activation], list[Activation]]:
        """(input bindings, output bindings) as Activations, each tensor once, in graph order."""
        names = {strip_profile(b) for b in self.bindings}
        produced = {t.name for layer in self.layers for t in layer.outputs}
        inputs: dict[str, Activation] = {}
        outputs: dict[str, Activation] = {}
        for layer in self.layers:
            for tensor in layer.inputs:
                if strip_profile(tensor.name) in names and tensor.name not in produced:
                    inputs.setdefault(tensor.name, tensor)
            for tensor in layer.outputs:
                if strip_profile(tensor.name) in names:
                    outputs.setdefault(tensor.name, tensor)
        return list(inputs.values()), list(outputs.values())

    def summary(self) -> None:
        """Print TREx's plain-text summary (use :func:`summary_dict` for the values)."""
        print(summary_text(self))

    def __repr__(self) -> str:
        return f"EnginePlan({self.name!r}, layers={len(self.layers)})"


# --------------------------------------------------------------------- module helpers
def summary_dict(plan: EnginePlan) -> dict[str, str]:
    """TREx's summary of the plan: bindings, average time, layer count, weights, activations."""
    mb = 1024 * 1024
    inputs, outputs = plan.get_bindings()
    nl = "\n\t\t"
    return {
        "Inputs": nl.join(str(b) for b in inputs),
        "Outputs": nl.join(str(b) for b in outputs),
        "Average time": f"{plan.total_runtime:.3f} ms",
        "Layers": f"{len(plan.df)}",
        "Weights": f"{plan.total_weights_size / mb:.1f} MB",
        "Activations": f"{plan.total_act_size / mb:.1f} MB",
    }


def summary_text(plan: EnginePlan) -> str:
    """TREx's printed summary as one string."""
    parts = []
    for title, section in (("Model", summary_dict(plan)),
                           ("Device Properties", plan.device_properties),
                           ("Builder Configuration", plan.builder_cfg),
                           ("Performance Summary", plan.performance_summary)):
        parts.append(f"{title}:")
        parts.extend(f"\t{k}: {v}" for k, v in section.items())
    return "\n".join(parts)


@contextmanager
def _gc_paused():
    """Loading allocates millions of small objects that all survive: collecting them while they
    are being built only costs time (half the load time of a 50,000-layer plan)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _read_graph(path: str | os.PathLike) -> LayerInfo:
    """Layer information from a graph file, or names-only layers from a profile alone."""
    kind = detect.detect_kind(path)
    if kind == detect.LOG:  # a verbose build log's 'Engine Layer Information' list, else a profile
        from .formats.build_log import has_engine_layers, read_engine_layers

        if has_engine_layers(path):
            return read_engine_layers(path)
        kind = detect.PROFILE
    if kind == detect.PROFILE:
        profile = read_profile(path)
        names = [r.name for r in profile.runs[0].records]
        layers = [{"Name": n, "LayerType": "Unknown", "Inputs": [], "Outputs": []} for n in names]
        return LayerInfo(layers, [], detailed=False, source=os.fspath(path),
                         warnings=["no layer information: layers taken from the profile"])
    if kind in (detect.ARCHIVE, detect.ENGINE):
        raise InputError(path, "is a binary engine or archive; pass the --exportLayerInfo JSON")
    if kind not in (detect.LAYER_INFO, detect.UNKNOWN):
        raise InputError(path, f"is {kind.replace('_', ' ')}, not layer information "
                               "(--exportLayerInfo JSON)")
    return read_layer_info(path)


def _is_archive(path: object) -> bool:
    return (isinstance(path, (str, os.PathLike)) and os.path.isfile(path)
            and detect.detect_kind(path) == detect.ARCHIVE)


def _read_meta(path: str | os.PathLike | None) -> Metadata:
    return read_metadata(path) if path else Metadata()


def _pick_run(path: str | os.PathLike, count: int, index: int | None) -> int:
    if index is None:
        return 0
    if not -count <= index < count:
        raise InputError(path, f"has {count} runs; profile_run={index} is out of range")
    return index % count


def _disambiguate_names(raw_layers: list[dict[str, Any]]) -> None:
    """TREx appends ``_N`` to the second and later layers of a repeated name."""
    seen: dict[str, int] = {}
    for raw in raw_layers:
        name = raw["Name"]
        if name in seen:
            seen[name] += 1
            raw["Name"] = f"{name}_{seen[name]}"
        else:
            seen[name] = 1


def _bindings_for_profile(bindings: list[str], profile_id: int) -> list[str]:
    own = [b for b in bindings if (profile_of_name(b) or 0) == profile_id]
    return own or [b for b in bindings if profile_of_name(b) is None]


def _infer_bindings(layers: list[Layer]) -> list[str]:
    """Graph inputs (consumed, never produced) and outputs (produced, never consumed)."""
    produced, consumed = {}, {}
    for layer in layers:
        for t in layer.inputs:
            consumed.setdefault(t.name, t)
        for t in layer.outputs:
            produced.setdefault(t.name, t)
    graph_inputs = [n for n in consumed if n not in produced and "const" not in n.lower()]
    graph_outputs = [n for n in produced if n not in consumed]
    return graph_inputs + graph_outputs


def _median_gpu_time(summary: dict[str, Any]) -> float | None:
    value = summary.get("GPU Compute Time")
    if isinstance(value, list) and len(value) >= 4:
        try:
            return float(value[3])
        except (TypeError, ValueError, OverflowError):  # a corrupt metadata file
            return None
    return None
