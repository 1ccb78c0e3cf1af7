"""Where the real TensorRT exports are: one rule for the tests and the benchmarks (stdlib only).

``$TREX_ENGINES_DIR`` if set; else ``../shared/engines`` beside the repository; else, for a local
clone (e.g. a fresh clone in /tmp), ``../shared/engines`` beside the repository it was cloned from.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _is_engines_dir(path: Path) -> bool:
    return (path / "README.md").is_file()


def _origin(repo: Path) -> Path | None:
    """The local folder ``repo`` was cloned from, if its origin is a path on this machine."""
    try:
        url = subprocess.run(["git", "-C", str(repo), "config", "--get", "remote.origin.url"],
                             capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    url = url.removeprefix("file://")
    path = Path(url) if url and "://" not in url and not url.startswith("git@") else None
    return path.resolve() if path is not None and path.is_dir() else None


def candidates(repo: Path = REPO) -> list[Path]:
    """The folders looked at, in order."""
    if os.environ.get("TREX_ENGINES_DIR"):
        return [Path(os.environ["TREX_ENGINES_DIR"])]
    found = [repo.parent / "shared" / "engines"]
    origin = _origin(repo)
    if origin is not None:
        found.append(origin.parent / "shared" / "engines")
    return found


def find_engines_dir(repo: Path = REPO) -> Path | None:
    """The first candidate holding the engines' README.md, or None."""
    return next((p for p in candidates(repo) if _is_engines_dir(p)), None)
