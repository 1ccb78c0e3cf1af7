"""Build and profile engines (``trex process``): trtexec commands per TensorRT version, a runner
with progress, GPU clocks through NVML and a TensorRT Python-API path, each imported on use."""

from __future__ import annotations

from .commands import (
    ProcessPaths,
    build_command,
    detect_version,
    flags_for,
    normalise_extra_args,
    parse_version,
    profile_command,
)
from .pipeline import ProcessResult, process_engine, write_build_metadata, write_profile_metadata
from .runner import StepError, StepResult, TrtexecNotFound, find_trtexec, run_step

__all__ = [
    "ProcessPaths", "ProcessResult", "StepError", "StepResult", "TrtexecNotFound",
    "build_command", "detect_version", "find_trtexec", "flags_for", "normalise_extra_args",
    "parse_version", "process_engine", "profile_command", "run_step", "write_build_metadata",
    "write_profile_metadata",
]
