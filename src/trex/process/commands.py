"""trtexec command lines per TensorRT version, and the files ``trex process`` writes.

Versions compare as integer tuples (10.16 > 10.4 > 8.6). Flags follow trtexec's history:
``--profilingVerbosity=detailed`` from 8.2 (``--nvtxMode=verbose`` before), ``--skipInference``
from 8.6 (``--buildOnly`` before), ``--exportLayerInfo`` from 8.2; no deprecated flag is used.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["LATEST", "ProcessPaths", "TrtexecFlags", "build_command", "detect_version",
           "flags_for", "normalise_extra_args", "parse_version", "profile_command"]

LATEST = (10, 16)  # assumed when the version cannot be detected
_VERSION = re.compile(r"^\s*v?(\d{1,4}(?:\.\d{1,6}){0,3})\s*$")
_ENGINE_SUFFIXES = (".engine", ".plan", ".trt")


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
    text = proc.stdout.decode("utf-8", errors="replace")
    return parse_trtexec_log(text).version


@dataclass(frozen=True)
class TrtexecFlags:
    """Version-dependent trtexec flags."""

    version: tuple[int, ...]
    detailed: str  # layer names, types, tensors and tactics in exports
    build_only: str  # stop after the build
    export_layer_info: bool


def flags_for(version: tuple[int, ...] | None) -> TrtexecFlags:
    """The flags of a TensorRT version (the latest known when None)."""
    v = version or LATEST
    return TrtexecFlags(
        version=v,
        detailed="--profilingVerbosity=detailed" if v >= (8, 2) else "--nvtxMode=verbose",
        build_only="--skipInference" if v >= (8, 6) else "--buildOnly",
        export_layer_info=v >= (8, 2),
    )


def normalise_extra_args(args: list[str] | None) -> list[str]:
    """TREx's style ``fp16 shapes=x:1x3`` -> ``--fp16 --shapes=x:1x3`` (``-x``/``--x`` kept)."""
    out = []
    for arg in args or []:
        arg = str(arg).strip()
        if not arg:
            continue
        out.append(arg if arg.startswith("-") else f"--{arg}")
    return out


@dataclass(frozen=True)
class ProcessPaths:
    """The files of one processed engine, named as TREx named them (``X.engine.graph.json``...)."""

    outdir: Path
    prefix: Path  # outdir / "model.onnx.engine"
    input_engine: Path | None = None  # an engine given as input (profile without building)

    @classmethod
    def for_input(cls, model: str | os.PathLike, outdir: str | os.PathLike) -> ProcessPaths:
        model, outdir = Path(model), Path(outdir)
        if is_engine_file(model):
            return cls(outdir, outdir / model.name, model)
        return cls(outdir, outdir / f"{model.name}.engine")

    def _with(self, suffix: str) -> Path:
        return self.prefix.with_name(self.prefix.name + suffix)

    @property
    def engine(self) -> Path:
        return self.input_engine or self.prefix

    @property
    def name(self) -> str:
        return self.prefix.name

    build_log = property(lambda self: self._with(".build.log"))
    build_metadata = property(lambda self: self._with(".build.metadata.json"))
    graph = property(lambda self: self._with(".graph.json"))
    profile = property(lambda self: self._with(".profile.json"))
    timings = property(lambda self: self._with(".timing.json"))
    profile_log = property(lambda self: self._with(".profile.log"))
    profile_metadata = property(lambda self: self._with(".profile.metadata.json"))
    drawing = property(lambda self: self._with(".graph.json.svg"))
    gpu_monitor = property(lambda self: self._with(".gpu.json"))
    archive = property(lambda self: self._with(".tea"))

    @property
    def timing_cache(self) -> Path:
        return self.outdir / "timing.cache"


def is_engine_file(path: Path) -> bool:
    """True for a serialized engine (by suffix; ONNX models are protobuf, also binary)."""
    return path.suffix.lower() in _ENGINE_SUFFIXES


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
    cmd = [trtexec, "--verbose", f"--loadEngine={paths.engine}", "--noDataTransfers",
           "--useCudaGraph", "--separateProfileRun", "--useSpinWait",
           f"--exportTimes={paths.timings}", f"--exportProfile={paths.profile}"]
    if flags.export_layer_info:
        cmd.append(f"--exportLayerInfo={paths.graph}")
    cmd.append(flags.detailed)
    return cmd + normalise_extra_args(extra)
