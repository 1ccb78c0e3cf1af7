"""EnginePlan: the normalised model of one engine, drop-in compatible with TREx's EnginePlan.

Built once from the readers' records (:mod:`.loader`): layers with their tensors, precision,
sizes, stream and ONNX nodes; the profile joined by name; the engine's I/O tensors, profiles,
device, builder configuration, measured latency and per-iteration timings; and the warnings the
inputs deserve. Views read these fields (and :func:`~trex.model.facts.engine_facts`); none of
them opens a file.
"""

from __future__ import annotations

import math
import os
import warnings as _warnings
from collections import deque
from collections.abc import Callable, Mapping
from functools import cached_property
from operator import attrgetter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ProfileNotFound, TrexNote, TrexWarning, cap_line
from ..formats import roles
from ..formats.readers import InputCache
from ..formats.records import DeviceInfo, LayerInfo, ProfileRecord, ProfileRun
from ..perf import gc_paused
from . import loader, validation
from .dataframe import (
    MAX_COLUMNS,
    OTHER_ATTRIBUTES,
    SIZE_COLUMNS,
    LayerLatency,
    size_column,
    table_dataframe,
)
from .facts import summary_text
from .layer import Layer, math_precision
from .layer_graph import SYNC_TYPES, LayerGraph
from .measurement import (
    Measured,
    WarmUp,
    iteration_records,
    measured_figures,
    measured_profile,
    plan_warmup,
)
from .profiles import profile_of_name, strip_profile
from .table import LayerTable, select_profile, unique_names
from .tensors import Activation, IOTensor, io_tensors

# The roles the model builds its facts from; the reader's record of any other plan role (a format
# added as one reader and one row of trex.formats.roles) is kept as read, in plan.records.
_MODELLED_ROLES = frozenset({"graph", "profile", "timings", "profile_metadata", "build_metadata",
                            "device_metadata"})
# Layer attributes the table holds as columns (Layer attribute -> LayerTable column).
_TABLE_ATTRIBUTES = {"name": "names", "type": "types", "subtype": "subtypes",
                     "tactic_name": "tactic_names", "tactic_value": "tactic_values",
                     "origin": "origins", "onnx_nodes": "onnx_nodes", "stream": "streams"}
DETAILED_HINT = (
    "layer information has names only: types, tensors, precisions, sizes, the graph, linters and "
    "the compute model need an engine built with --profilingVerbosity=detailed"
)


class EnginePlan(LayerGraph):
    """An engine's layers, profile, timings and metadata, with TREx's ``df`` and summaries.

    ``EnginePlan(graph_file, profiling_file, profiling_metadata_file, build_metadata_file, name,
    profile_id)`` takes the same arguments as TREx's; ``files`` gives the file of any plan role by
    its name (:mod:`trex.formats.roles`); :meth:`from_path` finds the files itself. Any input may
    be JSON or a trtexec log; content decides, not the file extension.
    """

    def __init__(
        self,
        graph_file: str | os.PathLike[str],
        profiling_file: str | os.PathLike[str] | None = None,
        profiling_metadata_file: str | os.PathLike[str] | None = None,
        build_metadata_file: str | os.PathLike[str] | None = None,
        name: str | None = None,
        profile_id: int | None = None,
        *,
        timing_file: str | os.PathLike[str] | None = None,
        device_metadata_file: str | os.PathLike[str] | None = None,
        profile_run: int | None = None,
        cache: InputCache | None = None,
        files: Mapping[str, str | os.PathLike[str] | None] | None = None,
    ):
        cache = cache or InputCache()
        arguments = {roles.GRAPH: graph_file, "profile": profiling_file,  # TREx's, by role
                     "profile_metadata": profiling_metadata_file,
                     "build_metadata": build_metadata_file, "timings": timing_file,
                     "device_metadata": device_metadata_file}
        given = {**(files or {}), **{r: p for r, p in arguments.items() if p is not None}}
        inputs = loader.PlanInputs({r: p for r, p in given.items() if p is not None}, name)
        self.archive = None
        try:
            with gc_paused():  # a big log is parsed here too (by with_log_roles)
                if loader.is_archive(graph_file, cache):  # extracted for the plan's life
                    from ..formats.archive import open_archive

                    self.archive = open_archive(graph_file)
                    found = loader.PlanInputs.from_files(self.archive.files)
                    inputs.paths.pop(roles.GRAPH)  # the archive: the files given too come first
                    inputs = loader.PlanInputs({**found.paths, **inputs.paths}, name or found.name)
                else:
                    inputs = loader.with_log_roles(inputs, cache)  # a log gives what else it holds
                self._load(inputs, profile_id, profile_run, cache)
        except BaseException:  # bad input or Ctrl-C/SIGTERM: the extracted files go at once
            if self.archive is not None:
                self.archive.close()
            raise

    @classmethod
    def from_path(cls, path: str | os.PathLike[str], profile_id: int | None = None,
                  profile_run: int | None = None, name: str | None = None, *,
                  profiling_file: str | os.PathLike[str] | None = None) -> EnginePlan:
        """Load an engine from a prefix, a folder or any one of its files; ``profiling_file``
        replaces only the per-layer profile found there (``-pj``): every other file still counts."""
        from ..formats.discovery import find_engine_files

        cache = InputCache()
        if loader.is_archive(path, cache):
            return cls(path, profiling_file, name=name, profile_id=profile_id,
                       profile_run=profile_run, cache=cache)
        found = loader.PlanInputs.from_files(find_engine_files(path, cache))
        assert found.graph is not None  # discovery raises when there is neither graph nor profile
        return cls(found.graph, profiling_file, name=name or found.name, profile_id=profile_id,
                   profile_run=profile_run, cache=cache, files=found.paths)

    @classmethod
    def each_profile(cls, path: str | os.PathLike[str], profile_run: int | None = None, *,
                     profiling_file: str | os.PathLike[str] | None = None) -> list[EnginePlan]:
        """One plan per optimisation profile of the engine at ``path`` (e.g. prefill and decode),
        named ``<engine> [profile N]``, to compare like engines; a single-profile engine gives one."""
        first = cls.from_path(path, profile_run=profile_run, profiling_file=profiling_file)
        if len(first.profiles) < 2:
            return [first]
        return [cls.from_path(path, profile_id=p, profile_run=profile_run,
                              name=f"{first.name} [profile {p}]", profiling_file=profiling_file)
                for p in first.profiles]

    # ----------------------------------------------------------------- loading
    def _load(self, inputs: loader.PlanInputs, profile_id: int | None, profile_run: int | None,
              cache: InputCache) -> None:
        assert inputs.graph is not None
        self.warnings: list[str] = []  # oddities of the inputs
        self.notes: list[str] = []  # known conditions worth knowing (the layer-sum gap)
        self.name = inputs.name or Path(inputs.graph).name
        self.graph_file = os.fspath(inputs.graph)
        self.profile_id = profile_id or 0
        self.sources: dict[str, str] = {role: os.fspath(path) for role, path in inputs.items()}
        info = loader.layer_info(inputs.graph, cache)
        self.detailed = info.detailed
        self.weights_known = info.detailed and info.has_weights
        self._warn_all(info.warnings)
        self._build_layers(info, profile_id, lambda: loader.logged_io(inputs, cache))

        self.profile_count: int | None = None
        self.profile_runs = 0
        self._profile_run: ProfileRun | None = None
        run = self._read_profile(inputs.profile, profile_run, cache) if inputs.profile else None
        self.has_profile = run is not None
        self.latency = self._join_profile(run) if run is not None else \
            LayerLatency.unknown(len(self.rows))
        self._df: pd.DataFrame | None = None  # made from the columns when first asked for
        self._size_columns: dict[str, np.ndarray] = {}  # plan.column's byte columns, made once
        self._math_precisions: list[str | None] | None = None
        self.timings = self._read_timings(inputs.timings, profile_run, cache)
        self._read_metadata(inputs, cache)
        self._read_measurement(inputs)
        inputs_, outputs_ = self.get_bindings()
        self.io_tensors: list[IOTensor] = io_tensors(info.io_tensors, inputs_, outputs_)
        self._compute_summary()
        self._validate({t.name: tuple(t.shape) for t in io_tensors(info.io_tensors, [], [])})
        if not self.detailed:
            self._warn(DETAILED_HINT)
        self.records: dict[str, Any] = {  # the roles no fact above is built from, as read
            role: loader.role_record(role, path, cache) for role, path in inputs.items()
            if role not in _MODELLED_ROLES}

    def _build_layers(self, info: LayerInfo, profile_id: int | None,
                      logged_io: Callable[[], list[str]]) -> None:
        every = list(map(attrgetter("name"), info.records))
        positions, self.profiles = select_profile(info.records, profile_id, every)
        if not positions:
            raise ProfileNotFound(self.graph_file, profile_id, self.profiles)
        whole = len(positions) == len(info.records)  # one profile: every record, in order
        records = info.records if whole else [info.records[p] for p in positions]
        exported = every if whole else [every[p] for p in positions]
        distinct = set(exported)
        self._names_repeat = len(distinct) != len(exported)  # else no subset of rows repeats one
        names = unique_names(exported) if self._names_repeat else exported
        # the profile rows of layers the plan folds away
        self._profile_layer_names = set(names) if self._names_repeat else distinct
        table = self.table = LayerTable(records, positions, info.raws, names, info.uses,
                                              info.weights)
        bindings = _bindings_for_profile(info.bindings, self.profile_id)
        self.dla = table.mark_dla()
        if not bindings:  # a log's binding lines name them; else the graph's loose ends
            bindings = logged_io()
        if not bindings:
            bindings = table.loose_ends()
            if self.detailed and bindings:
                self._warn(f"no Bindings in {self.graph_file}: inferred {len(bindings)} from the "
                           "graph")
        table.fold_no_ops({strip_profile(b) for b in bindings} | set(bindings))
        self.bindings: list[str] = bindings
        types = table.types
        self._kept = np.flatnonzero(table.alive).tolist()  # the layers (NoOps folded)
        dropped = ("Constant", *SYNC_TYPES)
        self.rows: list[int] = [i for i in self._kept if types[i] not in dropped] \
            if any(t in types for t in dropped) else list(self._kept)
        if self.detailed:  # plan.df's rows ^; their inputs no layer writes are weights
            table.count_constants(self.rows, {strip_profile(b) for b in bindings} | set(bindings))
        self._layer_objects: dict[int, Layer] | None = None

    def _read_profile(self, path: str | os.PathLike[str], run_index: int | None,
                      cache: InputCache) -> ProfileRun:
        profile = loader.profile(path, cache)
        self._warn_all(profile.warnings)
        self.profile_runs = len(profile.runs)
        index = loader.pick_run(path, len(profile.runs), run_index)
        if run_index is None and len(profile.runs) > 1:
            self._warn(f"{os.fspath(path)} holds {len(profile.runs)} profiling runs; using the "
                       f"first (choose with profile_run=0..{len(profile.runs) - 1})")
        run = validation.plausible_profile(profile.runs[index], self._warn)
        self.profile_count = run.count
        self._profile_run = run
        return run

    @property
    def _raw_perf(self) -> list[dict[str, Any]] | None:
        """TREx's raw profile records (``name``, ``timeMs``, ...), made when asked for."""
        run = self._profile_run
        if run is None:
            return None
        return [{"name": r.name, "timeMs": r.time_ms, "averageMs": r.avg_ms,
                 "medianMs": r.median_ms, "percentage": r.percentage} for r in run.records]

    def _join_profile(self, run: ProfileRun) -> LayerLatency:
        """Give each layer its profile row by name (duplicates taken in order), never by position."""
        first: dict[str, ProfileRecord] = {}  # a name's first row; later rows of it queue in `more`
        more: dict[str, deque[ProfileRecord]] = {}
        for record in run.records:
            if record.name in first:
                more.setdefault(record.name, deque()).append(record)
            else:
                first[record.name] = record
        names = self.table.names
        n = len(self.rows)
        nan = math.nan
        time, avg, median = [nan] * n, [nan] * n, [nan] * n
        unprofiled: list[str] = []
        for k, row in enumerate(self.rows):
            name = names[row]
            r = first.pop(name, None)
            if r is None and name in more:
                queue = more[name]
                r = queue.popleft() if queue else None
            if r is not None:
                time[k], avg[k] = r.time_ms, r.avg_ms
                if r.median_ms is not None:
                    median[k] = r.median_ms
            else:
                unprofiled.append(name)
        unmatched: list[str] = []
        left = {name: (name in first) + len(more.get(name, ())) for name in (*first, *more)}
        ignored = self._profile_layer_names  # rows of layers the plan folds away, other profiles
        left = {name: n for name, n in left.items() if n and name not in ignored
                and (profile_of_name(name) or 0) == self.profile_id}
        if left:  # rows no layer took, in the profile's order
            unmatched = [name for name in dict.fromkeys(r.name for r in run.records)
                         if name in left for _ in range(left[name])]
        self._warn_all(validation.check_profile_join(
            unmatched, unprofiled, len(run.records), n))
        self._warn_all(validation.check_percentages([r.percentage for r in run.records]))
        return LayerLatency.of(time, avg, median)

    def _read_timings(self, path: str | os.PathLike[str] | None, run_index: int | None,
                      cache: InputCache) -> pd.DataFrame:
        frame: pd.DataFrame = pd.DataFrame()
        if path:
            timings = loader.timings(path, cache)
            index = loader.pick_run(path, len(timings.runs), run_index)
            frame = pd.DataFrame.from_records(timings.runs[index])
            self._warn_all(validation.plausible_times(frame, os.fspath(path)))
        return frame

    def _read_metadata(self, inputs: loader.PlanInputs, cache: InputCache) -> None:
        meta_profile, w1 = loader.metadata(inputs.profile_metadata, cache)
        meta_build, w2 = loader.metadata(inputs.build_metadata, cache)
        meta_device, w3 = loader.metadata(inputs.device_metadata, cache)
        self._warn_all(w1 + w2 + w3)
        self.performance_summary: dict[str, Any] = dict(meta_profile.section("performance_summary"))
        self.inference_options: dict[str, Any] = dict(meta_profile.section("inference_options"))
        self.reporting_options: dict[str, Any] = dict(meta_profile.section("reporting_options"))
        self.profiling_recorded: dict[str, Any] = dict(meta_profile.section("trex_profiling"))
        self.device_properties: dict[str, Any] = dict(
            meta_profile.section("device_information") or meta_build.section("device_information"))
        self.device_attributes: dict[str, Any] = dict(meta_device.section("device_attributes"))
        self.device: DeviceInfo | None = meta_profile.device or meta_build.device or meta_device.device
        self.builder_cfg: dict[str, Any] = {**meta_build.section("model_options"),
                                            **meta_build.section("build_options")}
        self.tensorrt_version: str | None = _version(cache, inputs)

    def _read_measurement(self, inputs: loader.PlanInputs) -> None:
        """The warm-up trtexec left out, the timed iterations and the measured figures; none of
        them when trtexec ran another optimisation profile than the plan's."""
        options_file = os.fspath(inputs.profile_metadata or "")
        ran = measured_profile(self.inference_options)
        if ran is not None and len(self.profiles) > 1 and ran != self.profile_id:
            self._note(f"the measured run (timings, performance summary) is profile {ran}'s: "
                       f"profile {self.profile_id} has its per-layer times only")
            self.timings = pd.DataFrame()
            self.performance_summary = {}
        self.warmup: WarmUp = plan_warmup(self.timings, self.inference_options, options_file)
        self.measured: Measured = measured_figures(
            self.performance_summary, options_file,
            iteration_records(self.timings, self.warmup.iterations), os.fspath(inputs.timings or ""))

    @property
    def timed_iterations(self) -> pd.DataFrame:
        """The records of ``timings`` that trtexec's statistics use: the warm-up left out."""
        return self.timings.iloc[self.warmup.iterations:] if len(self.timings) else self.timings

    def _compute_summary(self) -> None:
        table, rows = self.table, self.rows
        avg = self.latency.avg
        self.total_runtime = float(np.nansum(avg)) if self.has_profile else math.nan
        self.total_weights_size = table.total(table.weights_bytes, rows, table.bias_bytes)
        # TREx's figure: every layer's inputs and outputs, so a tensor counts once per use.
        self.total_act_size = table.total(table.in_bytes, rows, table.out_bytes)
        dynamic = table.dynamic
        self.dynamic_tensor_uses = sum(dynamic[i] for i in rows)  # uses with a -1 dimension

    @cached_property
    def total_activation_footprint(self) -> int:
        """The true activation footprint: each activation tensor once (its largest view)."""
        return self.table.activation_footprint(self.rows)

    def _validate(self, io_shapes: dict[str, tuple[int, ...]]) -> None:
        if self.detailed:
            self._warn_all(validation.check_columns(self.table, self.rows, io_shapes))
            if self.dynamic_tensor_uses:
                self._warn(f"{self.dynamic_tensor_uses} tensor uses have dynamic (-1) dimensions; "
                           "their sizes count each dynamic dimension as 1")
        duplicates = validation.duplicated_names([self.table.names[i] for i in self.rows]) \
            if self._names_repeat else []
        if duplicates:
            self._warn(f"layer names repeat: {validation.sample(duplicates)}")
        if self.has_profile:
            untimed = int(np.count_nonzero(np.isnan(np.asarray(self.latency.avg,
                                                               dtype="float64"))))
            notes, warnings = validation.check_latency_sum(
                self.total_runtime, self.measured.gpu_compute_median_ms, self.stream_count,
                untimed)
            self._warn_all(warnings)
            for note in notes:
                self._note(note)

    def _warn(self, message: str) -> None:
        message = cap_line(message)
        if message in self.warnings:
            return
        self.warnings.append(message)
        _warnings.warn(f"{self.name}: {message}", TrexWarning, stacklevel=3)

    def _note(self, message: str) -> None:
        """A known condition (not an oddity of the inputs): kept in ``notes``, emitted once as a
        :class:`~trex.errors.TrexNote`."""
        message = cap_line(message)
        if message not in self.notes:
            self.notes.append(message)
            _warnings.warn(f"{self.name}: {message}", TrexNote, stacklevel=3)

    def _warn_all(self, messages: list[str]) -> None:
        for message in messages:
            self._warn(message)

    # ----------------------------------------------------------------- TREx's API
    @property
    def df(self) -> pd.DataFrame:
        """One row per layer (Constant, NoOp and signal/wait layers excluded, as in TREx), made
        from the plan's columns when first asked for."""
        if self._df is None:
            with gc_paused():
                self._df = table_dataframe(self.table, self.rows, self.latency)
            if OTHER_ATTRIBUTES in self._df.columns:
                self._warn(f"{self.graph_file}: more than {MAX_COLUMNS} attribute keys, most of "
                           f"them in few layers: those are kept together in plan.df's "
                           f"{OTHER_ATTRIBUTES} column (JSON text)")
        return self._df

    def column(self, name: str) -> list[Any] | np.ndarray:
        """One of ``df``'s columns as values, from the plan's columns where it has them (no
        DataFrame made): ``Name``, ``type``, ``subtype``, ``tactic``, ``precision``,
        ``output_precision``, ``math_precision``, the byte columns (``weights_size``,
        ``total_io_size_bytes``, ``bias_size``, ``total_footprint_bytes``) and the ``latency.*``
        columns."""
        table, rows = self.table, self.rows
        latency = {"latency.time": self.latency.time, "latency.avg_time": self.latency.avg,
                   "latency.median_time": self.latency.median,
                   "latency.pct_time": self.latency.pct}
        if name in latency:
            return latency[name]
        if name == "Name":
            return [table.names[i] for i in rows]
        if name == "type":
            return [table.types[i] for i in rows]
        if name == "subtype":
            return [table.subtypes[i] for i in rows]
        if name == "tactic":
            return [table.tactic_names[i] or "TensorRT" for i in rows]
        if name == "precision":
            return [table.precisions[i] for i in rows]
        if name == "output_precision":
            return [table.output_precisions[i] for i in rows]
        if name == "math_precision":
            if self._df is not None:
                return self._df["math_precision"].tolist()
            if self._math_precisions is None:  # made once: the summary reads it twice
                precisions = table.precisions
                self._math_precisions = [
                    math_precision(table.tactic_names[i], table.subtypes[i], precisions[i])
                    for i in rows]
            return list(self._math_precisions)  # the caller may change its list
        if name in SIZE_COLUMNS:
            found = self._size_columns.get(name)
            if found is None:
                found = self._size_columns[name] = size_column(table, rows, name)
            copied: np.ndarray = found.copy()  # the caller may change its array
            return copied
        return self.df[name].tolist()

    def layer_values(self, attribute: str) -> list[Any]:
        """One attribute of each of ``layers`` (``stream``, ``onnx_nodes``, ``tactic_name``, ...),
        from the table's columns where it has them (no Layer objects made)."""
        column = _TABLE_ATTRIBUTES.get(attribute)
        if column is None:
            return [getattr(layer, attribute) for layer in self.layers]
        values = getattr(self.table, column)
        return [values[i] for i in self.rows]

    # ----------------------------------------------------------------- layers, made on demand
    def _layer(self, rows: list[int]) -> list[Layer]:
        """TREx's Layer objects of these rows of the table, each made once."""
        if self._layer_objects is None:
            table = self.table
            with gc_paused():
                self._layer_objects = {i: Layer.from_table(table, i) for i in self._kept}
        made = self._layer_objects
        return [made[i] for i in rows]

    @property
    def all_rows(self) -> list[int]:
        """The table rows of ``all_layers`` (constants and signal/wait too; NoOps folded), in
        engine order: what views read the columns of without making Layer objects."""
        return list(self._kept)

    @property
    def all_layers(self) -> list[Layer]:  # type: ignore[override]
        """Every layer (constants and signal/wait too; NoOps folded) as TREx's Layer objects."""
        return self._layer(self._kept)

    @property
    def layers(self) -> list[Layer]:  # type: ignore[override]
        """The layers of ``df``'s rows, in engine order."""
        return self._layer(self.rows)

    @property
    def constants(self) -> list[Layer]:  # type: ignore[override]
        """The Constant layers (not rows of ``df``, as in TREx)."""
        types = self.table.types
        return self._layer([i for i in self._kept if types[i] == "Constant"])

    @property
    def sync_layers(self) -> list[Layer]:  # type: ignore[override]
        """The signal/wait layers that order auxiliary streams."""
        types = self.table.types
        return self._layer([i for i in self._kept if types[i] in SYNC_TYPES])

    @property
    def stream_count(self) -> int:
        """Number of CUDA streams the layers run on (auxiliary streams: StreamId > 0)."""
        streams = self.table.streams
        return max(1, len({streams[i] for i in self.rows}))

    @cached_property
    def _bindings_found(self) -> tuple[list[Activation], list[Activation]]:
        return self.table.bindings_in(self.bindings, self.rows)

    def get_layers_by_type(self, layer_type: str) -> pd.DataFrame:
        """TREx's view of one layer type: its columns renamed ``attr.*``, convolutions annotated."""
        from ..figures.layers import filter_by_layer

        return filter_by_layer(self.df, layer_type, plan=self)

    def find(self, layer_name: str) -> Layer | None:
        """The layer with this exact name, or None."""
        return next((layer for layer in self.layers if layer.name == layer_name), None)

    def summary(self) -> None:
        """Print TREx's plain-text summary (use :func:`summary_dict` for the values)."""
        print(summary_text(self))

    def __repr__(self) -> str:
        return f"EnginePlan({self.name!r}, layers={len(self.layers)})"


def _version(cache: InputCache, inputs: loader.PlanInputs) -> str | None:
    """The TensorRT version a log of this engine names (None without a log)."""
    from ..formats import readers
    from ..formats.log import LogRecord

    for path in (inputs.build_metadata, inputs.profile_metadata, inputs.graph, inputs.profile):
        if path and cache.kind(path) == readers.LOG:
            version = cache.read_as(path, LogRecord).trtexec.version
            if version:
                return version
    return None


def _bindings_for_profile(bindings: list[str], profile_id: int) -> list[str]:
    own = [b for b in bindings if (profile_of_name(b) or 0) == profile_id]
    return own or [b for b in bindings if profile_of_name(b) is None]
