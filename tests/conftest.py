"""The one fixture that finds the real engine files (bench/shared_engines.py says where it looks).

Set TREX_ENGINES_DIR to use another folder. When CI is set, missing data is an error, never a skip.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import pytest

from helpers import bench_module
from trex import EnginePlan


@pytest.fixture(scope="session")
def engines() -> Path:
    """Folder of real TensorRT exports (see ../shared/engines/README.md)."""
    shared = bench_module("shared_engines")
    path = shared.find_engines_dir()
    if path is None:
        looked = ", ".join(str(p) for p in shared.candidates())
        message = f"real engine files not found (looked in {looked})"
        if os.environ.get("CI"):
            pytest.fail(message + "; CI must run the real-data tests")
        pytest.skip(message)
    return path


@cache
def _load(folder: str) -> EnginePlan:
    return EnginePlan.from_path(folder)


@pytest.fixture
def plan(engines: Path):
    """``plan("a100-resnet18-qat")``: a real engine's plan, loaded once per session (do not mutate)."""
    return lambda name: _load(str(engines / name))
