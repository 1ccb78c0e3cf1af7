"""The one fixture that finds the real engine files in ../shared/engines.

Set TREX_ENGINES_DIR to use another folder. When CI is set, missing data is an error, never a skip.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

_DEFAULT = Path(__file__).resolve().parents[1].parent / "shared" / "engines"


def _engines_dir() -> Path | None:
    path = Path(os.environ.get("TREX_ENGINES_DIR", _DEFAULT))
    return path if (path / "README.md").is_file() else None


@pytest.fixture(scope="session")
def engines() -> Path:
    """Folder of real TensorRT exports (see ../shared/engines/README.md)."""
    path = _engines_dir()
    if path is None:
        message = f"real engine files not found (looked in {os.environ.get('TREX_ENGINES_DIR', _DEFAULT)})"
        if os.environ.get("CI"):
            pytest.fail(message + "; CI must run the real-data tests")
        pytest.skip(message)
    return path
