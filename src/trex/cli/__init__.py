"""The ``trex`` command: small subtools (``trex summary``, ...) sharing one error policy.

Bad input prints one line naming the file and the problem and exits with status 2.
"""

from __future__ import annotations

import argparse
import atexit
import os
import signal
import sys
import warnings

import pandas as pd

from .. import __version__
from ..errors import TrexError, TrexWarning, cap_line
from ..outputs import new_run
from ..process.signals import Terminated, terminate_on_signals
from ..safety import terminal_text
from . import compare, draw, engine_args, lint, process, report, routes, summary, tactics, timeline

SUBTOOLS = (summary, compare, draw, lint, tactics, timeline, process, routes, report)


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one sub-parser per subtool."""
    parser = argparse.ArgumentParser(
        prog="trex",
        description="Explore TensorRT engine plans: layer information, profiles, timings, logs.",
    )
    parser.add_argument("--version", action="version", version=f"trex {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for tool in SUBTOOLS:
        tool.add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``trex`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    warnings.simplefilter("ignore", TrexWarning)  # subtools print plan.warnings themselves
    # Library advice (pandas' fragmentation and deprecation notes) is for trex's developers, who
    # see it in the tests; a user of the command gets trex's own lines only.
    warnings.simplefilter("ignore", FutureWarning)
    warnings.simplefilter("ignore", pd.errors.PerformanceWarning)
    new_run()  # outputs this command writes may be replaced by it; no other file without --force
    try:
        with terminate_on_signals():  # SIGTERM/SIGHUP like Ctrl-C: temp folders, children cleaned
            return int(args.run(args) or 0)
    except TrexError as exc:
        print(terminal_text(f"trex {args.command}: error: {cap_line(exc)}"), file=sys.stderr)
        return 2
    except Terminated as exc:
        print(f"trex: interrupted ({signal.Signals(exc.signum).name})", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("trex: interrupted (SIGINT)", file=sys.stderr)
        return 128 + signal.SIGINT
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


def console() -> int:
    """The ``trex`` console script: :func:`main`, then, when engines were loaded, the process ends
    without freeing them object by object (0.4 s for 200,000 layers; what ``mypy`` does too).
    Exit handlers still run first, so temporary folders (extracted archives) are removed."""
    engine_args.KEPT_FOR_EXIT = []
    try:
        code = main()
    except SystemExit as exc:  # argparse's --help and usage errors
        code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
    if not engine_args.KEPT_FOR_EXIT:
        return code
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: what was written has gone as far as it can
            pass
    atexit._run_exitfuncs()
    os._exit(code)
