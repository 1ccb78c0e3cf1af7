"""GPU clocks, power limit and monitoring through NVML (``nvidia-ml-py``, imported on first use).

:class:`GpuConfigurator` locks clocks and sets a power limit for a ``with`` block (or between
``apply()`` and ``restore()``) and always restores them: errors, Ctrl-C, and SIGTERM/SIGHUP under
``signals.terminate_on_signals`` included; each change is recorded before it is made and the
restore is never cut short by a signal. Without permission it records the ``nvidia-smi``
commands that do the same in ``hints``. :class:`GpuMonitor` samples power, temperature, clocks and
throttle reasons on a thread.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from ..errors import TrexError
from .signals import deferred_signals

__all__ = ["GpuConfigurator", "GpuMonitor", "GpuSettings", "load_nvml"]

_THROTTLE_REASONS = (
    ("nvmlClocksThrottleReasonGpuIdle", "idle"),
    ("nvmlClocksThrottleReasonApplicationsClocksSetting", "application clocks"),
    ("nvmlClocksThrottleReasonSwPowerCap", "power cap"),
    ("nvmlClocksThrottleReasonHwSlowdown", "hardware slowdown"),
    ("nvmlClocksThrottleReasonSyncBoost", "sync boost"),
    ("nvmlClocksThrottleReasonSwThermalSlowdown", "software thermal"),
    ("nvmlClocksThrottleReasonHwThermalSlowdown", "hardware thermal"),
    ("nvmlClocksThrottleReasonHwPowerBrakeSlowdown", "power brake"),
)


def load_nvml(module: ModuleType | None = None) -> ModuleType:
    """The ``pynvml`` module of nvidia-ml-py (or a given stand-in)."""
    if module is not None:
        return module
    try:
        import pynvml
    except ImportError:
        raise TrexError("GPU clocks and monitoring need NVML's Python bindings: "
                        "pip install 'trex-explorer[gpu]' (nvidia-ml-py)") from None
    return pynvml


@dataclass
class GpuSettings:
    """What to set while profiling: clocks in MHz (``"max"``: the highest supported), watts."""

    device: int = 0
    compute_clock: int | str | None = None
    memory_clock: int | str | None = None
    power_limit: float | None = None

    @property
    def active(self) -> bool:
        return any(v is not None for v in (self.compute_clock, self.memory_clock, self.power_limit))


@dataclass
class GpuConfigurator:
    """Context manager applying GpuSettings and restoring the previous state on exit."""

    settings: GpuSettings
    nvml: ModuleType | None = None
    notes: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    _handle: Any = None
    _saved_power_mw: int | None = None
    _locked: bool = False
    _initialised: bool = False

    def __enter__(self) -> GpuConfigurator:
        return self.apply()

    def __exit__(self, *exc: Any) -> None:
        self.restore()

    def apply(self) -> GpuConfigurator:
        """Set the power limit and lock the clocks (restored on failure). Values outside what
        the GPU allows are a TrexError before anything changes, never clamped."""
        self.nvml = nv = load_nvml(self.nvml)
        nv.nvmlInit()
        self._initialised = True
        try:
            self._handle = nv.nvmlDeviceGetHandleByIndex(self.settings.device)
            power, clocks = self._check()
            if power is not None:
                self._set_power_limit(power)
            if clocks is not None:
                self._lock_clocks(*clocks)
        except BaseException:
            self.restore()
            raise
        return self

    def restore(self) -> None:
        """Put back what ``apply`` changed (safe to call more than once, signals deferred)."""
        with deferred_signals():
            self._restore()

    def _check(self) -> tuple[int | None, tuple[int, int] | None]:
        """The power limit (mW) and the (compute, memory) clocks to set, each within what the
        GPU allows (TrexError otherwise)."""
        nv, handle, dev = self.nvml, self._handle, self.settings.device
        power = None
        if self.settings.power_limit is not None:
            watts = self.settings.power_limit
            lo, hi = nv.nvmlDeviceGetPowerManagementLimitConstraints(handle)
            if not lo <= watts * 1000 <= hi:
                raise TrexError(f"power limit {watts:g} W is outside {lo / 1000:g}-{hi / 1000:g} "
                                f"W, the range GPU {dev} allows")
            power = int(round(watts * 1000))
        if self.settings.compute_clock is None and self.settings.memory_clock is None:
            return power, None
        memory_clocks = sorted(nv.nvmlDeviceGetSupportedMemoryClocks(handle), reverse=True)
        memory = self._pick(self.settings.memory_clock, memory_clocks, "memory")
        graphics_clocks = sorted(nv.nvmlDeviceGetSupportedGraphicsClocks(handle, memory),
                                 reverse=True)
        compute = self._pick(self.settings.compute_clock, graphics_clocks, "compute")
        return power, (compute, memory)

    # ------------------------------------------------------------------ power
    def _set_power_limit(self, wanted: int) -> None:
        nv, handle = self.nvml, self._handle
        current = nv.nvmlDeviceGetPowerManagementLimit(handle)
        self._saved_power_mw = current  # before the change: a signal right after it restores
        try:
            nv.nvmlDeviceSetPowerManagementLimit(handle, wanted)
        except nv.NVMLError as exc:
            self._saved_power_mw = None
            self._no_permission(exc, f"nvidia-smi -i {self.settings.device} -pl {wanted / 1000:g}")
            return
        self.notes.append(f"power limit set to {wanted / 1000:g} W (was {current / 1000:g} W)")

    # ------------------------------------------------------------------ clocks
    def _lock_clocks(self, compute: int, memory: int) -> None:
        nv, handle = self.nvml, self._handle
        dev = self.settings.device
        locked = False
        try:
            self._locked = True  # before the change: a signal right after it restores
            nv.nvmlDeviceSetGpuLockedClocks(handle, compute, compute)
            locked = True
            nv.nvmlDeviceSetApplicationsClocks(handle, memory, compute)
        except nv.NVMLError as exc:
            self._locked = locked
            self._no_permission(exc, f"nvidia-smi -i {dev} --lock-gpu-clocks={compute},{compute}",
                                f"nvidia-smi -i {dev} --applications-clocks={memory},{compute}")
            return
        self.notes.append(f"clocks locked: compute {compute} MHz, memory {memory} MHz")

    def _pick(self, wanted: int | str | None, supported: list[int], what: str) -> int:
        if not supported:
            raise TrexError(f"NVML lists no supported {what} clocks for GPU {self.settings.device}")
        if wanted is None or str(wanted).lower() == "max":
            return supported[0]
        value = int(wanted)
        if not supported[-1] <= value <= supported[0]:
            raise TrexError(f"{what} clock {value} MHz is outside {supported[-1]}-{supported[0]} "
                            f"MHz, the clocks GPU {self.settings.device} supports")
        best = min(supported, key=lambda c: abs(c - value))
        if best != value:
            self.notes.append(f"{what} clock {value} MHz is not supported; using {best} MHz")
        return best

    def _no_permission(self, exc: Exception, *commands: str) -> None:
        no_permission = getattr(self.nvml, "NVMLError_NoPermission", ())
        if no_permission and isinstance(exc, no_permission):
            self.notes.append(f"no permission to change GPU settings ({exc}); as root run:")
            self.hints.extend(f"sudo {c}" for c in commands)
        else:
            self.notes.append(f"could not change GPU settings ({exc})")

    def _restore(self) -> None:
        nv, handle = self.nvml, self._handle
        if nv is None or not self._initialised:
            return
        try:
            if handle is not None and self._saved_power_mw is not None:
                try:
                    nv.nvmlDeviceSetPowerManagementLimit(handle, self._saved_power_mw)
                    self.notes.append(f"power limit restored to {self._saved_power_mw / 1000:g} W")
                except nv.NVMLError as exc:
                    dev = self.settings.device
                    self.notes.append(f"could not restore the power limit ({exc})")
                    self.hints.append(f"sudo nvidia-smi -i {dev} -pl {self._saved_power_mw / 1000:g}")
                self._saved_power_mw = None
            if handle is not None and self._locked:
                try:
                    nv.nvmlDeviceResetGpuLockedClocks(handle)
                    nv.nvmlDeviceResetApplicationsClocks(handle)
                    self.notes.append("clocks unlocked")
                except nv.NVMLError as exc:
                    dev = self.settings.device
                    self.notes.append(f"could not unlock the clocks ({exc})")
                    self.hints += [f"sudo nvidia-smi -i {dev} --reset-gpu-clocks",
                                   f"sudo nvidia-smi -i {dev} --reset-applications-clocks"]
                self._locked = False
        finally:
            self._handle = None
            self._initialised = False
            try:
                nv.nvmlShutdown()
            except nv.NVMLError:
                pass


class GpuMonitor:
    """Samples power, temperature, clocks and throttle reasons every ``interval`` seconds."""

    def __init__(self, device: int = 0, interval: float = 1.0, nvml: ModuleType | None = None):
        self.device, self.interval, self.nvml = device, interval, nvml
        self.samples: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._start = 0.0

    def __enter__(self) -> GpuMonitor:
        self.nvml = load_nvml(self.nvml)
        self.nvml.nvmlInit()
        self._start = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="trex-gpu-monitor", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=max(5.0, self.interval * 2))
        try:
            self.nvml.nvmlShutdown()
        except self.nvml.NVMLError:
            pass

    def _run(self) -> None:
        nv = self.nvml
        try:
            handle = nv.nvmlDeviceGetHandleByIndex(self.device)
        except nv.NVMLError as exc:
            self.errors.append(f"cannot open GPU {self.device}: {exc}")
            return
        while True:
            self.sample(handle)
            if self._stop.wait(self.interval):
                self.sample(handle)
                return

    def sample(self, handle: Any) -> dict[str, Any] | None:
        """Read one sample (also called by the thread); None if NVML failed."""
        nv = self.nvml
        try:
            reasons = _throttle_reasons(nv, handle)
            row = {
                "t_s": round(time.monotonic() - self._start, 3),
                "power_w": nv.nvmlDeviceGetPowerUsage(handle) / 1000,
                "temperature_c": nv.nvmlDeviceGetTemperature(handle, nv.NVML_TEMPERATURE_GPU),
                "sm_clock_mhz": nv.nvmlDeviceGetClockInfo(handle, nv.NVML_CLOCK_SM),
                "memory_clock_mhz": nv.nvmlDeviceGetClockInfo(handle, nv.NVML_CLOCK_MEM),
                "throttle": reasons,
            }
        except nv.NVMLError as exc:
            if len(self.errors) < 10:
                self.errors.append(f"GPU sample failed: {exc}")
            return None
        self.samples.append(row)
        return row

    def summary(self) -> dict[str, Any]:
        """Min/max of each figure and every throttle reason seen."""
        out: dict[str, Any] = {"samples": len(self.samples)}
        for key in ("power_w", "temperature_c", "sm_clock_mhz", "memory_clock_mhz"):
            values = [s[key] for s in self.samples]
            if values:
                out[key] = {"min": min(values), "max": max(values)}
        out["throttle"] = sorted({r for s in self.samples for r in s["throttle"]})
        return out


def _throttle_reasons(nv: ModuleType, handle: Any) -> list[str]:
    getter = (getattr(nv, "nvmlDeviceGetCurrentClocksEventReasons", None)
              or getattr(nv, "nvmlDeviceGetCurrentClocksThrottleReasons", None))
    if getter is None:
        return []
    mask = getter(handle)
    return [label for name, label in _THROTTLE_REASONS if mask & getattr(nv, name, 0)]
