"""Output options that several subtools share: ``--output/-o`` and ``--force``.

The options that say which engines to read and how (paths, ``-pj``, ``--profile-id``, ``--run``,
``--profiles``, ``--names``, ``--loose``) are one argument group: :mod:`trex.cli.engine_args`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from ..outputs import check_replace


def add_output_options(parser: argparse.ArgumentParser, what: str, default: str) -> None:
    """``--output/-o`` and ``--force``: a default-named output never replaces a file this run did
    not write (another engine's drawing, a user's file) unless ``--force``."""
    parser.add_argument("--output", "-o", default=None,
                        help=f"{what} (default: {default} in the current folder, e.g. "
                             "a100-resnet18-fp32.resnet.onnx.engine for the engine "
                             "resnet.onnx.engine in the folder a100-resnet18-fp32)")
    parser.add_argument("--force", action="store_true",
                        help="let the default-named output replace an existing file (an "
                             "explicit --output always may)")


def output_path(args: argparse.Namespace, default: Callable[[], str]) -> str:
    """The output file: ``--output``, else ``default()``, which may replace an existing file
    only with ``--force`` (or when this run wrote it)."""
    if args.output:
        return str(args.output)
    path = default()
    check_replace(path, args.force)
    return path
