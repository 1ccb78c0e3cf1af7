"""Running Graphviz: render DOT source to a file, under a time limit (arguments as a list, no shell)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterable
from typing import Any

from ..errors import TrexError
from ..outputs import atomic_write
from .escape import clean

GRAPHVIZ_HINT = ("Graphviz's `dot` program was not found on PATH; install it (Debian/Ubuntu: "
                 "`apt-get install graphviz`, macOS: `brew install graphviz`, conda: "
                 "`conda install graphviz`) or draw as SVG with trex's own layout")


class GraphvizError(TrexError):
    """Graphviz is missing or failed to render a graph."""


class GraphvizTimeout(GraphvizError):
    """Graphviz did not finish within its time limit (``seconds``)."""

    def __init__(self, message: str, seconds: float):
        super().__init__(message)
        self.seconds = seconds


def dot_executable() -> str | None:
    """Path of Graphviz's ``dot``, or None."""
    return shutil.which("dot")


def run_graphviz(source: str, output_format: str, output_path: str | None = None,
                 layout_engine: str = "dot", timeout: float | None = None,
                 extra_args: Iterable[str] = (),
                 started: Callable[[subprocess.Popen[bytes]], None] | None = None) -> bytes:
    """Run Graphviz on DOT ``source``; return its standard output (empty when ``output_path``
    is given: Graphviz then writes the file itself, in place). Raises :class:`GraphvizTimeout`
    after ``timeout`` seconds (the process is killed). ``started`` is given the process (to
    kill it from another thread)."""
    exe = shutil.which(layout_engine)
    if exe is None:
        raise GraphvizError(GRAPHVIZ_HINT)
    out = ["-o", output_path] if output_path else []
    with subprocess.Popen([exe, f"-T{output_format}", *extra_args, *out], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        if started is not None:
            started(proc)
        try:
            stdout, stderr = proc.communicate(source.encode("utf-8"), timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            proc.kill()
            proc.communicate()
            raise GraphvizTimeout(f"Graphviz `{layout_engine}` took more than {timeout:g} s; "
                                  "draw large graphs as SVG with trex's own layout",
                                  timeout or 0.0) from exc
        except BaseException:  # Ctrl-C: Graphviz goes too
            proc.kill()
            raise
    if proc.returncode != 0:
        message = clean(stderr.decode("utf-8", "replace").strip())[:500]
        raise GraphvizError(f"Graphviz `{layout_engine}` failed: {message}")
    return stdout


def render_source(source: str, output_path: str | os.PathLike, output_format: str = "svg",
                  layout_engine: str = "dot", timeout: float | None = None,
                  extra_args: Iterable[str] = ()) -> str:
    """Render DOT source with Graphviz into ``output_path``; return its absolute path.

    Graphviz writes to its standard output and trex writes the file (:func:`atomic_write`): a
    failure or a time limit leaves the previous file as it was."""
    path = os.path.abspath(output_path)
    if output_format in ("dot", "gv"):
        with atomic_write(path, what="the drawing") as f:
            f.write(source)
        return path
    data = run_graphviz(source, output_format, None, layout_engine, timeout, extra_args)
    with atomic_write(path, "wb", what="the drawing") as out:
        out.write(data)
    return path


def render_dot(dot_graph: Any, engine_name: str, output_format: str = "svg",
               timeout: float | None = None) -> str:
    """Render a Digraph (or DotGraph, or DOT text) to ``<engine_name>.<format>``; return the path."""
    source = dot_graph if isinstance(dot_graph, str) else getattr(dot_graph, "source",
                                                                   str(dot_graph))
    return render_source(source, f"{engine_name}.{output_format}", output_format,
                         timeout=timeout)
