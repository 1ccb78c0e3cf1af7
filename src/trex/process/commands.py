"""trtexec command lines per TensorRT version, and the files ``trex process`` writes.

Versions compare as integer tuples (10.16 > 10.4 > 8.6). One table (``VERSION_TABLE``) holds what
changes between versions: ``--profilingVerbosity=detailed`` from 8.2 (``--nvtxMode=verbose``
before), ``--skipInference`` from 8.6 (``--buildOnly`` before), ``--exportLayerInfo`` from 8.2,
and from 11.x strongly typed networks (no precision shortcuts) with CUDA graphs, spin-wait and a
separate profiling run as trtexec's defaults, so no deprecated flag is sent.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..errors import TrexError
from ..formats import roles
from ..model.measurement import describe_conditions, logged_conditions

__all__ = ["LATEST", "VERSION_TABLE", "ProcessPaths", "TrtexecFlags", "UnsupportedOption",
           "build_command", "detect_version", "flags_for", "is_engine_file",
           "normalise_extra_args", "parse_version", "prepare_extra_args", "profile_command",
           "profiling_state"]

LATEST = (10, 16)  # assumed when the version cannot be detected
_VERSION = re.compile(r"^\s*v?(\d{1,4}(?:\.\d{1,6}){0,3})\s*$")
_ENGINE_SUFFIXES = (".engine", ".plan", ".trt")
_ITERATION_ENGINE = re.compile(r"\.iter\d+$")  # --saveAllEngines: <saveEngine>.iter<N>

# Flags that switch a condition on (True) or off (False).
_CONDITION_FLAGS = {
    "--useCudaGraph": ("cuda_graph", True), "--noCudaGraph": ("cuda_graph", False),
    "--noDataTransfers": ("data_transfers", False),
    "--includeDataTransfers": ("data_transfers", True),
    "--useSpinWait": ("spin_wait", True), "--separateProfileRun": ("separate_profile_run", True),
}
_LEGACY_PROFILE_FLAGS = ("--noDataTransfers", "--useCudaGraph", "--separateProfileRun",
                         "--useSpinWait")
_LEGACY_DEFAULTS = MappingProxyType({"cuda_graph": False, "data_transfers": True,
                                     "spin_wait": False, "separate_profile_run": False})
_TRT11_DEFAULTS = MappingProxyType({"cuda_graph": True, "data_transfers": False,
                                    "spin_wait": True, "separate_profile_run": True})
# 11.x: deprecated flags -> replacement ("" drops the flag), and why.
_TRT11_DEPRECATED = MappingProxyType({
    "--useCudaGraph": ("", "CUDA graphs are the default"),
    "--useSpinWait": ("", "spin-wait is the default"),
    "--separateProfileRun": ("", "a separate profiling run is the default"),
    "--noDataTransfers": ("", "data transfers are off by default"),
    "--stronglyTyped": ("", "every network is strongly typed"),
    "--profilingVerbosity=verbose": ("--profilingVerbosity=detailed", "the new spelling"),
    "--profilingVerbosity=default": ("--profilingVerbosity=layer_names_only", "the new spelling"),
})
# 11.x precision shortcuts: flag -> "float" (ModelOpt AutoCast) or "quantized" (Q/DQ nodes).
_PRECISION_SHORTCUTS = {"--fp16": "float", "--bf16": "float", "--best": "both", "--fp8": "quantized",
                        "--fp4": "quantized", "--int4": "quantized", "--int8": "quantized"}


class UnsupportedOption(TrexError):
    """A trtexec option the detected TensorRT version no longer accepts (refused before running)."""


def parse_version(text: str | None) -> tuple[int, ...] | None:
    """``"10.16.1"`` -> ``(10, 16, 1)``; None when it is not a version."""
    if not text:
        return None
    match = _VERSION.match(str(text))
    return tuple(int(p) for p in match.group(1).split(".")) if match else None


def detect_version(trtexec: str, timeout: float = 60.0) -> str | None:
    """TensorRT version from the banner ``trtexec --help`` prints (None if it cannot be read)."""
    from ..formats.trtexec_log import parse_trtexec_log

    try:
        proc = subprocess.run([trtexec, "--help"], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=timeout, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    text = proc.stdout[:1 << 20].decode("utf-8", errors="replace")
    return parse_trtexec_log(text).version


@dataclass(frozen=True)
class TrtexecFlags:
    """Version-dependent trtexec flags and defaults."""

    version: tuple[int, ...]
    detailed: str  # layer names, types, tensors and tactics in exports
    build_only: str  # stop after the build
    export_layer_info: bool
    profile_flags: tuple[str, ...] = _LEGACY_PROFILE_FLAGS  # sent to every profiling run
    defaults: Mapping[str, bool] = field(default_factory=lambda: _LEGACY_DEFAULTS)  # trtexec's own
    strongly_typed: bool = False  # precision comes from the network, not from build flags
    deprecated: Mapping[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The version as text, e.g. ``11.1``."""
        return ".".join(map(str, self.version))


# (first version, flags) newest first; flags_for picks the first row at or below the version.
VERSION_TABLE: tuple[tuple[tuple[int, ...], dict[str, Any]], ...] = (
    ((11, 0), {"detailed": "--profilingVerbosity=detailed", "build_only": "--skipInference",
               "export_layer_info": True, "profile_flags": (), "defaults": _TRT11_DEFAULTS,
               "strongly_typed": True, "deprecated": _TRT11_DEPRECATED}),
    ((8, 6), {"detailed": "--profilingVerbosity=detailed", "build_only": "--skipInference",
              "export_layer_info": True}),
    ((8, 2), {"detailed": "--profilingVerbosity=detailed", "build_only": "--buildOnly",
              "export_layer_info": True}),
    ((0,), {"detailed": "--nvtxMode=verbose", "build_only": "--buildOnly",
            "export_layer_info": False}),
)


def flags_for(version: tuple[int, ...] | None) -> TrtexecFlags:
    """The flags of a TensorRT version (the latest known when None)."""
    v = version or LATEST
    for first, row in VERSION_TABLE:
        if v >= first:
            return TrtexecFlags(version=v, **row)
    raise AssertionError("VERSION_TABLE ends with (0,)")  # pragma: no cover


def normalise_extra_args(args: list[str] | None) -> list[str]:
    """TREx's style ``fp16 shapes=x:1x3`` -> ``--fp16 --shapes=x:1x3`` (``-x``/``--x`` kept)."""
    out = []
    for arg in args or []:
        arg = str(arg).strip()
        if not arg:
            continue
        out.append(arg if arg.startswith("-") else f"--{arg}")
    return out


def prepare_extra_args(flags: TrtexecFlags, args: list[str] | None,
                       model: str | os.PathLike | None = None) -> tuple[list[str], list[str]]:
    """The user's extra arguments as this version takes them, and notes on what was changed.

    Up to 10.x they pass unchanged. For 11.x deprecated flags are dropped or respelled, and
    precision shortcuts raise UnsupportedOption with what to do instead (strongly typed networks).
    """
    extra = normalise_extra_args(args)
    if not flags.strongly_typed:
        return extra, []
    refused = [a for a in extra if _PRECISION_SHORTCUTS.get(a.split("=", 1)[0].lower())]
    calibrating = any(a.startswith("--calib=") for a in extra)
    if calibrating:
        refused = [a for a in refused if a.split("=", 1)[0].lower() != "--int8"]
    if refused:
        raise UnsupportedOption(_strongly_typed_message(flags, refused, model))
    out, notes = [], []
    for arg in extra:
        replacement = flags.deprecated.get(arg)
        if replacement is None:
            out.append(arg)
            continue
        new, why = replacement
        if new:
            out.append(new)
            notes.append(f"{arg} is deprecated in TensorRT {flags.label}: sent as {new} ({why})")
        else:
            notes.append(f"{arg} is deprecated in TensorRT {flags.label}: not sent ({why})")
    return out, notes


def _strongly_typed_message(flags: TrtexecFlags, refused: list[str],
                            model: str | os.PathLike | None) -> str:
    names = ", ".join(refused)
    int8 = ("; --int8 remains only for calibration workflows (--int8 --calib=CACHE)"
            if any(a.lower() == "--int8" for a in refused) else "")
    verb = "is not a build option" if len(refused) == 1 else "are not build options"
    return (f"{names} {verb} in TensorRT {flags.label}: 11.x networks are strongly typed, so "
            f"precision comes from the model (Q/DQ nodes, ModelOpt AutoCast), not from trtexec "
            f"flags; {strongly_typed_remedies(refused, model)}, then run again without "
            f"{names}{int8}")


def strongly_typed_remedies(refused: list[str], model: str | os.PathLike | None) -> str:
    """How to get the precisions of refused shortcuts (``--fp16``, ``--int8``, ...) into a
    strongly typed network: ModelOpt AutoCast or Q/DQ quantisation of the ONNX model."""
    kinds = {_PRECISION_SHORTCUTS[a.split("=", 1)[0].lower()] for a in refused}
    onnx = shlex.quote(os.fspath(model)) if model else "MODEL.onnx"
    low = next((a[2:].lower() for a in refused if a.lower() in ("--fp16", "--bf16")), "fp16")
    mode = next((a[2:].lower() for a in refused if a.lower() in ("--fp8", "--int8", "--int4")),
                "int8")
    remedies = []
    if kinds & {"float", "both"}:
        remedies.append(f"for FP16/BF16 convert the model with ModelOpt AutoCast (python -m "
                        f"modelopt.onnx.autocast --onnx_path {onnx} --low_precision_type {low})")
    if kinds & {"quantized", "both"}:
        remedies.append(f"for INT8/FP8/INT4/FP4 insert Q/DQ nodes with ModelOpt (python -m "
                        f"modelopt.onnx.quantization --onnx_path {onnx} --quantize_mode {mode})")
    return "; ".join(remedies)


def profiling_state(flags: TrtexecFlags, command: list[str],
                    inference_options: Mapping[str, Any] | None = None,
                    reporting_options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Whether CUDA graphs, data transfers, spin-wait, the per-layer profiler and a separate
    profiling run were on.

    trtexec's log says so under "Inference Options" and "Reporting Options" (``Profile``); without
    it they follow from the version's defaults and the command line. Under CUDA graphs per-layer
    times come from a separate profiling run (``reportToProfiler`` after each graph launch);
    without data transfers the host-device copies are in no time at all.
    """
    state: dict[str, Any] = dict(flags.defaults)
    for arg in command:
        if arg in _CONDITION_FLAGS:
            key, value = _CONDITION_FLAGS[arg]
            state[key] = value
        elif arg.split("=", 1)[0] in ("--exportProfile", "--dumpProfile"):
            state["profiler"] = True  # trtexec turns its per-layer profiler on for these
    logged = logged_conditions(dict(inference_options or {}), dict(reporting_options or {}))
    state.update(logged)
    state["source"] = "trtexec log" if logged else "command line"
    state["per_layer_times"] = describe_conditions(state)
    return state


@dataclass(frozen=True)
class ProcessPaths:
    """The files of one processed engine, named as TREx named them (``X.engine.graph.json``...).

    Every role of :data:`trex.formats.roles.ROLES` with an output suffix is an attribute:
    ``paths.graph`` is ``X.graph.json`` (the layer information), ``paths.profile``
    ``X.profile.json``, ``paths.timings`` ``X.timing.json``, ``paths.profile_metadata``
    ``X.profile.metadata.json``, ``paths.build_metadata`` ``X.build.metadata.json``,
    ``paths.build_log`` and ``paths.profile_log`` trtexec's logs, ``paths.drawing``
    ``X.graph.json.svg``, ``paths.gpu_monitor`` ``X.gpu.json`` (``--monitor``) and
    ``paths.archive`` ``X.tea`` (``--archive``); X is the engine's path (:attr:`prefix`).
    """

    outdir: Path
    prefix: Path  # outdir / "model.onnx.engine"
    input_engine: Path | None = None  # an engine given as input (profile without building)

    @classmethod
    def for_input(cls, model: str | os.PathLike, outdir: str | os.PathLike) -> ProcessPaths:
        """The paths for ``model`` (an ONNX model, or an engine to profile/draw) in ``outdir``."""
        model, outdir = Path(model), Path(outdir)
        if is_engine_file(model):
            return cls(outdir, outdir / model.name, model)
        return cls(outdir, outdir / f"{model.name}.engine")

    def _with(self, suffix: str) -> Path:
        return self.prefix.with_name(self.prefix.name + suffix)

    def __getattr__(self, name: str) -> Path:
        role = None if name.startswith("_") else roles.get(name)
        if role is None or role.output is None:
            raise AttributeError(f"'ProcessPaths' object has no attribute {name!r}")
        return self._with(role.output)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *(r.name for r in roles.output_roles())})

    def outputs(self) -> dict[str, Path]:
        """Every file trex process may write under the engine's name, by role (table order)."""
        return {role.name: self._with(role.output) for role in roles.output_roles() if role.output}

    @property
    def engine(self) -> Path:
        """The engine file: the input engine, or the one the build writes."""
        return self.input_engine or self.prefix

    @property
    def name(self) -> str:
        """The engine's file name, the prefix of every other file."""
        return self.prefix.name

    @property
    def timing_cache(self) -> Path:
        """trtexec's timing cache, shared by the engines of one folder."""
        return self.outdir / "timing.cache"


def is_engine_file(path: Path) -> bool:
    """True for a serialized engine: by suffix, including ``--saveAllEngines``' ``X.iter<N>``."""
    return (path.suffix.lower() in _ENGINE_SUFFIXES
            or _ITERATION_ENGINE.search(path.name) is not None)


def build_command(trtexec: str, model: str | os.PathLike, paths: ProcessPaths, flags: TrtexecFlags,
                  extra: list[str] | None = None) -> list[str]:
    """trtexec arguments that build the engine and export its layer information."""
    cmd = [trtexec, "--verbose", f"--onnx={os.fspath(model)}", f"--saveEngine={paths.prefix}"]
    if flags.export_layer_info:
        cmd.append(f"--exportLayerInfo={paths.graph}")
    cmd += [f"--timingCacheFile={paths.timing_cache}", flags.detailed, flags.build_only]
    return cmd + normalise_extra_args(extra)


def profile_command(trtexec: str, paths: ProcessPaths, flags: TrtexecFlags,
                    extra: list[str] | None = None) -> list[str]:
    """trtexec arguments that profile the engine: per-layer profile, per-iteration timings."""
    cmd = [trtexec, "--verbose", f"--loadEngine={paths.engine}", *flags.profile_flags,
           f"--exportTimes={paths.timings}", f"--exportProfile={paths.profile}"]
    if flags.export_layer_info:
        cmd.append(f"--exportLayerInfo={paths.graph}")
    cmd.append(flags.detailed)
    return cmd + normalise_extra_args(extra)
