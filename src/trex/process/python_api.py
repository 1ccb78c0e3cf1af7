"""The TensorRT Python API path: build with ``profiling_verbosity=DETAILED``, write the inspector
JSON, profile per layer through an ``IProfiler``; the same files as ``trex process``.

``tensorrt`` (and ``cuda-python`` for device memory) are imported only when these functions run;
both can be passed in (``trt=``, ``cudart=``), which is how the tests run without a GPU.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from ..errors import TrexError
from ..outputs import atomic_write
from .commands import (
    ProcessPaths,
    UnsupportedOption,
    flags_for,
    parse_version,
    strongly_typed_remedies,
)

__all__ = ["build_engine", "make_profiler", "profile_engine", "profile_records"]


def _tensorrt(trt: ModuleType | None) -> ModuleType:
    if trt is not None:
        return trt
    try:
        import tensorrt
    except ImportError:
        raise TrexError("the Python API path needs the tensorrt package (pip install tensorrt); "
                        "or use trex process with trtexec") from None
    return tensorrt


def _cudart(cudart: ModuleType | None) -> ModuleType:
    if cudart is not None:
        return cudart
    try:
        from cuda.bindings import runtime
    except ImportError:
        try:
            from cuda import cudart as runtime
        except ImportError:
            raise TrexError("profiling through the Python API needs cuda-python for device "
                            "memory (pip install cuda-python)") from None
    return runtime


def _logger(trt: ModuleType, lines: list[str]):
    """A trt.ILogger that keeps every message, as trtexec's --verbose log would."""
    severities = {getattr(trt.ILogger.Severity, n, None): t for n, t in (
        ("INTERNAL_ERROR", "F"), ("ERROR", "E"), ("WARNING", "W"), ("INFO", "I"),
        ("VERBOSE", "V"))}

    class Logger(trt.ILogger):
        def __init__(self):
            trt.ILogger.__init__(self)

        def log(self, severity, msg):
            stamp = time.strftime("%m/%d/%Y-%H:%M:%S")
            lines.append(f"[{stamp}] [{severities.get(severity, 'I')}] [TRT] {msg}")

    return Logger()


def build_engine(onnx_path: str | os.PathLike, outdir: str | os.PathLike, *, fp16: bool = False,
                 int8: bool = False, workspace_mib: int | None = None,
                 trt: ModuleType | None = None) -> ProcessPaths:
    """Build ``X.engine`` from an ONNX model; write ``X.build.log``, ``X.graph.json`` (inspector,
    detailed) and ``X.build.metadata.json``. Returns the paths."""
    trt = _tensorrt(trt)
    version = flags_for(parse_version(str(getattr(trt, "__version__", ""))))
    shortcuts = ["--fp16"] * fp16 + ["--int8"] * int8
    if version.strongly_typed and shortcuts:  # 11.x: precision comes from the model
        asked = " and ".join(f"{a[2:]}=True" for a in shortcuts)
        raise UnsupportedOption(
            f"{onnx_path}: {asked} cannot be honoured by TensorRT {version.label}: its networks are "
            f"strongly typed, so precision comes from the model (Q/DQ nodes, ModelOpt AutoCast), "
            f"not from builder flags; {strongly_typed_remedies(shortcuts, onnx_path)}, then "
            f"build without {asked}")
    paths = ProcessPaths.for_input(onnx_path, outdir)
    paths.outdir.mkdir(parents=True, exist_ok=True)
    lines: list[str] = [f"&&&& RUNNING TensorRT.trex_python_api [TensorRT v{_code(trt)}] # "
                        f"build_engine {os.fspath(onnx_path)}"]
    logger = _logger(trt, lines)
    start = time.perf_counter()
    try:
        builder = trt.Builder(logger)
        flags = 0
        explicit = getattr(trt.NetworkDefinitionCreationFlag, "EXPLICIT_BATCH", None)
        if explicit is not None:
            flags = 1 << int(explicit)
        network = builder.create_network(flags)
        parser = trt.OnnxParser(network, logger)
        if not parser.parse(Path(onnx_path).read_bytes()):
            errors = [str(parser.get_error(i)) for i in range(parser.num_errors)]
            raise TrexError(f"{onnx_path}: the ONNX parser failed: " + "; ".join(errors[:5]))
        config = builder.create_builder_config()
        config.profiling_verbosity = trt.ProfilingVerbosity.DETAILED
        if fp16:
            config.set_flag(trt.BuilderFlag.FP16)
        if int8:
            config.set_flag(trt.BuilderFlag.INT8)
        if workspace_mib is not None:
            config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, workspace_mib << 20)
        plan = builder.build_serialized_network(network, config)
        if plan is None:
            raise TrexError(f"{onnx_path}: TensorRT could not build the engine (see "
                            f"{paths.build_log})")
        _write(paths.prefix, bytes(plan))
        engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
        inspector = engine.create_engine_inspector()
        _write(paths.graph, inspector.get_engine_information(trt.LayerInformationFormat.JSON))
        lines.append(f"[I] Engine built in {time.perf_counter() - start:g} sec.")
        lines.append(lines[0].replace("RUNNING", "PASSED", 1))
    finally:
        _write(paths.build_log, "\n".join(lines) + "\n")
    metadata = {"model_options": {"Format": "ONNX", "Model": os.fspath(onnx_path)},
                "build_options": {"Precision": "+".join(["FP32"] + ["FP16"] * fp16 +
                                                        ["INT8"] * int8),
                                  "Profiling verbosity": "detailed"},
                "device_information": {}, "tensorrt_version": getattr(trt, "__version__", None)}
    _write(paths.build_metadata, json.dumps(metadata, indent=4))
    return paths


def _write(path: Path, data: str | bytes) -> None:
    """One output file, written whole (:func:`trex.outputs.atomic_write`)."""
    with atomic_write(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def _code(trt: ModuleType) -> str:
    parts = [int(p) for p in str(getattr(trt, "__version__", "0.0.0")).split(".")[:3] if p.isdigit()]
    major, minor, patch = (parts + [0, 0, 0])[:3]
    return f"{major}{minor:02d}{patch:02d}" if major >= 10 else f"{major}{minor}{patch:02d}"


def make_profiler(trt: ModuleType | None = None):
    """An ``IProfiler`` that keeps every layer time of every inference (``.times[name]``, ms)."""
    trt = _tensorrt(trt)

    class LayerProfiler(trt.IProfiler):
        def __init__(self):
            trt.IProfiler.__init__(self)
            self.times: dict[str, list[float]] = {}
            self.order: list[str] = []

        def report_layer_time(self, layer_name, ms):
            if layer_name not in self.times:
                self.times[layer_name] = []
                self.order.append(layer_name)
            self.times[layer_name].append(float(ms))

    return LayerProfiler()


def profile_records(profiler: Any) -> list[dict[str, Any]]:
    """trtexec's ``--exportProfile`` JSON: ``[{"count": N}, {name, timeMs, averageMs, ...}]``."""
    total = math.fsum(math.fsum(v) for v in profiler.times.values())
    count = max((len(v) for v in profiler.times.values()), default=0)
    rows: list[dict[str, Any]] = [{"count": count}]
    for name in profiler.order:
        values = profiler.times[name]
        time_ms = math.fsum(values)
        rows.append({"name": name, "timeMs": time_ms, "averageMs": time_ms / len(values),
                     "medianMs": statistics.median(values),
                     "percentage": 100.0 * time_ms / total if total else 0.0})
    return rows


def profile_engine(engine_path: str | os.PathLike, outdir: str | os.PathLike, *,
                   iterations: int = 100, warmup: int = 10, trt: ModuleType | None = None,
                   cudart: ModuleType | None = None) -> ProcessPaths:
    """Run an engine with an IProfiler; write ``X.profile.json``, ``X.timing.json``,
    ``X.graph.json`` and ``X.profile.log``. Inputs are left uninitialised (timing only)."""
    trt, cudart = _tensorrt(trt), _cudart(cudart)
    paths = ProcessPaths.for_input(engine_path, outdir)
    paths.outdir.mkdir(parents=True, exist_ok=True)
    lines: list[str] = [f"&&&& RUNNING TensorRT.trex_python_api [TensorRT v{_code(trt)}] # "
                        f"profile_engine {os.fspath(engine_path)}"]
    logger = _logger(trt, lines)
    buffers: list[Any] = []
    stream = None
    try:
        engine = trt.Runtime(logger).deserialize_cuda_engine(Path(engine_path).read_bytes())
        if engine is None:
            raise TrexError(f"{engine_path}: TensorRT could not load the engine")
        context = engine.create_execution_context()
        stream = _check(cudart.cudaStreamCreate())
        for i in range(engine.num_io_tensors):
            name = engine.get_tensor_name(i)
            shape = list(context.get_tensor_shape(name))
            size = max(1, math.prod(max(d, 1) for d in shape)) * _itemsize(trt, engine, name)
            buffer = _check(cudart.cudaMalloc(size))
            buffers.append(buffer)
            context.set_tensor_address(name, int(buffer))
        timings = []
        for i in range(warmup + iterations):
            begin = time.perf_counter()
            if not context.execute_async_v3(int(stream)):
                raise TrexError(f"{engine_path}: inference failed")
            _check(cudart.cudaStreamSynchronize(stream))
            end = time.perf_counter()
            if i >= warmup:
                ms = (end - begin) * 1000
                start_ms = (begin - timings_origin(timings, begin)) * 1000
                timings.append({"startComputeMs": start_ms, "endComputeMs": start_ms + ms,
                                "computeMs": ms, "latencyMs": ms, "_t": begin})
        profiler = make_profiler(trt)
        context.profiler = profiler
        for _ in range(iterations):
            context.execute_async_v3(int(stream))
            _check(cudart.cudaStreamSynchronize(stream))
        inspector = engine.create_engine_inspector()
        inspector.execution_context = context
        _write(paths.graph, inspector.get_engine_information(trt.LayerInformationFormat.JSON))
        _write(paths.profile, json.dumps(profile_records(profiler), indent=1))
        for row in timings:
            row.pop("_t", None)
        _write(paths.timings, json.dumps(timings, indent=1))
        lines.append(lines[0].replace("RUNNING", "PASSED", 1))
    finally:
        for buffer in buffers:
            cudart.cudaFree(buffer)
        if stream is not None:
            cudart.cudaStreamDestroy(stream)
        _write(paths.profile_log, "\n".join(lines) + "\n")
    return paths


def timings_origin(timings: list[dict[str, Any]], now: float) -> float:
    """The wall-clock start of the first timed iteration (``now`` for the first one)."""
    return timings[0]["_t"] if timings else now


def _itemsize(trt: ModuleType, engine: Any, name: str) -> int:
    dtype = engine.get_tensor_dtype(name)
    size = getattr(trt, "nptype", None)
    if size is not None:
        try:
            import numpy as np

            return int(np.dtype(size(dtype)).itemsize)
        except (TypeError, ValueError, ImportError):
            pass
    return 4


def _check(result: Any) -> Any:
    """cuda-python returns ``(error, value)``; raise on an error, return the value."""
    if isinstance(result, tuple):
        error, *values = result
        if int(getattr(error, "value", error) or 0) != 0:
            raise TrexError(f"CUDA error {error}")
        return values[0] if values else None
    return result
