"""``trex process``: build, profile and draw an engine with trtexec, writing TREx's files."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..jsonable import json_value
from ..outputs import atomic_write
from ..safety import json_inert
from .commands import (
    ProcessPaths,
    TrtexecFlags,
    build_command,
    detect_version,
    flags_for,
    parse_version,
    prepare_extra_args,
    profile_command,
    profiling_state,
)
from .gpu import GpuConfigurator, GpuMonitor, GpuSettings
from .runner import StepResult, TrtexecNotFound, find_trtexec, run_step

__all__ = ["ProcessResult", "process_engine", "write_build_metadata", "write_profile_metadata"]

Event = Callable[[str, dict[str, Any]], None]


@dataclass
class ProcessResult:
    """What ``process_engine`` did: commands, steps run, files written, notes."""

    paths: ProcessPaths
    version: str | None
    commands: dict[str, list[str]] = field(default_factory=dict)
    steps: list[StepResult] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)
    drawing: Path | None = None
    archive: Path | None = None
    notes: list[str] = field(default_factory=list)
    gpu_hints: list[str] = field(default_factory=list)
    monitor: dict[str, Any] | None = None


def process_engine(model: str | os.PathLike, outdir: str | os.PathLike,
                   extra_args: list[str] | None = None, *, build: bool = False,
                   profile: bool = False, draw: bool = False,
                   trtexec: str | os.PathLike | None = None, archive: bool = False,
                   print_only: bool = False, gpu: GpuSettings | None = None,
                   monitor: bool = False, monitor_interval: float = 1.0,
                   on_line: Callable[[str, int, str], None] | None = None,
                   on_event: Event | None = None, env: dict[str, str] | None = None,
                   nvml: Any = None) -> ProcessResult:
    """Build (``-b``), profile (``-p``) and draw (``-d``) the engine of ``model``; none: all three.

    ``model`` is an ONNX model, or an engine file to profile and draw. Every step writes the
    files TREx users know under ``outdir`` (``X.engine``, ``X.build.log``, ``X.graph.json``, ...).
    The trtexec version (asked once) decides the flags; for TensorRT 11 an option it no longer
    takes (``--fp16``, ...) raises UnsupportedOption before trtexec runs.
    """
    if not (build or profile or draw):
        build = profile = draw = True
    event = on_event or (lambda kind, info: None)
    paths = ProcessPaths.for_input(model, outdir)
    if build and paths.input_engine is not None:
        raise InputError(model, "is an engine file: profile (-p) or draw (-d) it, or build (-b) "
                                "from an ONNX model")
    result = ProcessResult(paths, None)
    exe = "trtexec"
    if build or profile:
        try:
            exe = find_trtexec(trtexec)
        except TrtexecNotFound:
            if not print_only:
                raise
            result.notes.append("trtexec not found: commands shown for TensorRT "
                                f"{'.'.join(map(str, flags_for(None).version))}")
        else:
            result.version = detect_version(exe)
            if result.version is None:
                result.notes.append(f"could not read the TensorRT version from `{exe} --help`; "
                                    "using the flags of the latest version")
    flags = flags_for(parse_version(result.version))
    extra: list[str] = []
    if build or profile:
        extra, changed = prepare_extra_args(flags, extra_args, model)
        result.notes += changed
    if build:
        result.commands["build"] = build_command(exe, model, paths, flags, extra)
    if profile:
        result.commands["profile"] = profile_command(exe, paths, flags, extra)
    if print_only:
        return result
    try:
        paths.outdir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(paths.outdir, f"cannot create the output folder ({exc.strerror or exc})"
                         ) from None
    if build:
        if not Path(model).is_file():
            raise InputError(model, "model not found")
        _run(result, "build", paths.build_log, on_line, env, event)
        result.written += [p for p in (paths.prefix, paths.graph, paths.build_log) if p.is_file()]
        _tuning_notes(result, extra)
        result.written.append(write_build_metadata(paths.build_log, paths.build_metadata))
        event("metadata", {"path": paths.build_metadata})
    if profile:
        if not paths.engine.is_file():
            raise InputError(paths.engine, "no engine to profile: build it first (-b) or pass an "
                                           "engine file")
        with contextlib.ExitStack() as stack:
            if gpu is not None and gpu.active:
                configurator = GpuConfigurator(gpu, nvml)
                stack.callback(_gpu_notes, result, configurator, event)  # after the restore
                stack.callback(configurator.restore)  # registered before anything changes
                configurator.apply()
            watcher = None
            if monitor:
                watcher = stack.enter_context(GpuMonitor(gpu.device if gpu else 0,
                                                         monitor_interval, nvml))
            _run(result, "profile", paths.profile_log, on_line, env, event)
        if watcher is not None:
            result.monitor = {**watcher.summary(), "errors": watcher.errors}
            _write_json(paths.gpu_monitor, {"summary": result.monitor,
                                             "samples": watcher.samples}, indent=1)
            result.written.append(paths.gpu_monitor)
            event("monitor", result.monitor)
        result.written += [p for p in (paths.graph, paths.profile, paths.timings,
                                       paths.profile_log) if p.is_file()]
        result.written.append(write_profile_metadata(paths.profile_log, paths.profile_metadata,
                                                     flags, result.commands["profile"]))
        event("metadata", {"path": paths.profile_metadata})
    if draw:
        result.drawing = _draw(paths)
        result.written.append(result.drawing)
        event("drawing", {"path": result.drawing})
    if archive:
        from ..formats.archive import write_archive

        files = [p for p in (paths.engine, *paths.outputs().values(), paths.timing_cache)
                 if p.is_file() and p != paths.archive]
        extra = {"tensorrt_version": result.version,
                 "commands": {k: v[1:] for k, v in result.commands.items()}}
        result.archive = write_archive(files, paths.archive, name=paths.name, extra=extra)
        event("archive", {"path": result.archive, "files": len(files)})
    result.written = list(dict.fromkeys(result.written))
    return result


def _run(result: ProcessResult, step: str, log: Path, on_line, env, event: Event) -> None:
    command = result.commands[step]
    event("start", {"step": step, "command": command, "log": log})
    done = run_step(step, command, log, on_line, env)
    result.steps.append(done)
    event("done", {"step": step, "seconds": done.seconds, "lines": done.lines, "log": log})


def _tuning_notes(result: ProcessResult, extra: list[str]) -> None:
    """Point at the build-route sweep's tuning cache when the build wrote one (TensorRT 11.1+)."""
    cache = next((a.split("=", 1)[1] for a in extra if a.startswith("--tuningCacheFile=")), None)
    if cache and Path(cache).is_file():
        result.written.append(Path(cache))
        result.notes.append(f"build-route sweep in {cache}: see `trex routes {cache}`")


def _gpu_notes(result: ProcessResult, configurator: GpuConfigurator, event: Event) -> None:
    for note in configurator.notes:
        if note not in result.notes:
            result.notes.append(note)
            event("gpu", {"note": note})
    for hint in configurator.hints:
        if hint not in result.gpu_hints:
            result.gpu_hints.append(hint)
            event("gpu_hint", {"command": hint})


def write_build_metadata(log: str | os.PathLike, output: str | os.PathLike) -> Path:
    """TREx's ``X.build.metadata.json`` (model/build options, device) from a build log."""
    from ..formats.trtexec_log import read_trtexec_log

    parsed = read_trtexec_log(log)
    data = {key: parsed.metadata.section(key) for key in ("model_options", "build_options",
                                                            "device_information")}
    data["tensorrt_version"] = parsed.version
    return _write_json(output, data)


def write_profile_metadata(log: str | os.PathLike, output: str | os.PathLike,
                           flags: TrtexecFlags | None = None,
                           command: list[str] | None = None) -> Path:
    """TREx's ``X.profile.metadata.json`` (performance summary, inference and reporting options,
    device).

    ``trex_profiling`` adds whether CUDA graphs, data transfers, spin-wait, the per-layer profiler
    and a separate profiling run were on (see ``commands.profiling_state``): they change what per-layer times
    mean. Without ``flags``/``command`` they come from the log's version and command line.
    """
    from ..formats.trtexec_log import read_trtexec_log

    parsed = read_trtexec_log(log)
    data = {key: parsed.metadata.section(key) for key in ("performance_summary",
                                                            "inference_options",
                                                            "reporting_options",
                                                            "device_information")}
    data["tensorrt_version"] = parsed.version
    if flags is None:
        flags = flags_for(parse_version(parsed.version))
    if command is None:
        command = _split_command(parsed.command)
    data["trex_profiling"] = profiling_state(flags, command, data["inference_options"],
                                             data["reporting_options"])
    return _write_json(output, data)


def _split_command(text: str | None) -> list[str]:
    import shlex

    try:
        return shlex.split(text or "")
    except ValueError:  # an unbalanced quote in a logged command line
        return (text or "").split()


def _write_json(output: str | os.PathLike, data: dict[str, Any], indent: int = 4) -> Path:
    """Strict JSON, written whole (:func:`trex.outputs.atomic_write`)."""
    path = Path(output)
    text = json_inert(json.dumps(json_value(data), indent=indent, ensure_ascii=False,
                                 allow_nan=False, default=str))
    with atomic_write(path, what="the metadata") as f:
        f.write(text + "\n")
    return path


def _draw(paths: ProcessPaths) -> Path:
    from .. import graph
    from ..model.plan import EnginePlan

    if not paths.graph.is_file():
        raise InputError(paths.graph, "no layer information to draw: build (-b) or profile (-p) "
                                      "first")
    profile = paths.profile if paths.profile.is_file() else None
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = EnginePlan(paths.graph, profile, name=paths.name)
        try:
            result = graph.draw_plan(plan, paths.drawing, "svg")
        except graph.GraphvizError:
            result = graph.draw_plan(plan, paths.drawing, "svg", method="layered")
    return Path(result.path)
