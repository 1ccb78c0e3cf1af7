"""A stand-in for nvidia-ml-py's ``pynvml`` for tests that run trex in a subprocess.

Every call that changes the GPU is appended to the file named by TREX_FAKE_NVML_LOG as one JSON
line (name and arguments), so a test can check that what was set was also restored.
"""

import json
import os


class NVMLError(Exception):
    pass


class NVMLError_NoPermission(NVMLError):  # noqa: N801 (pynvml's name)
    pass


NVML_TEMPERATURE_GPU, NVML_CLOCK_SM, NVML_CLOCK_MEM = 0, 1, 2


def _record(name, *args):
    path = os.environ.get("TREX_FAKE_NVML_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps([name, *args]) + "\n")


def nvmlInit():
    _record("init")


def nvmlShutdown():
    _record("shutdown")


def nvmlDeviceGetHandleByIndex(index):
    return f"gpu{index}"


def nvmlDeviceGetPowerManagementLimitConstraints(handle):
    return 100_000, 300_000


def nvmlDeviceGetPowerManagementLimit(handle):
    return 250_000


def nvmlDeviceSetPowerManagementLimit(handle, milliwatts):
    _record("set_power", milliwatts)


def nvmlDeviceGetSupportedMemoryClocks(handle):
    return [5001, 9501, 405]


def nvmlDeviceGetSupportedGraphicsClocks(handle, memory):
    return [1740, 1905, 210]


def nvmlDeviceSetGpuLockedClocks(handle, low, high):
    _record("lock", low, high)


def nvmlDeviceSetApplicationsClocks(handle, memory, graphics):
    _record("app_clocks", memory, graphics)


def nvmlDeviceResetGpuLockedClocks(handle):
    _record("reset_lock")


def nvmlDeviceResetApplicationsClocks(handle):
    _record("reset_app")
