"""``trex process MODEL OUTDIR [trtexec args]``: build, profile and draw an engine with trtexec."""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from typing import Any

from ..process import pipeline
from ..process.gpu import GpuSettings
from ..process.runner import StepError, TrtexecNotFound, describe_line
from ..process.signals import Terminated, terminate_on_signals
from ..safety import terminal_text
from . import numbers


class _PassThroughParser(argparse.ArgumentParser):
    """Options trex does not know (``--fp16``, ``--shapes=...``) go to trtexec unchanged."""

    def parse_known_args(self, args=None, namespace=None):  # noqa: D102
        namespace, extras = super().parse_known_args(args, namespace)
        passed = [a for a in extras if a != "--"]
        namespace.trtexec_args = list(getattr(namespace, "trtexec_args", None) or []) + passed
        return namespace, []


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    default_class = subparsers._parser_class
    subparsers._parser_class = _PassThroughParser
    try:
        _add_parser(subparsers)
    finally:
        subparsers._parser_class = default_class


def _add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "process", allow_abbrev=False, help="build, profile and draw an engine with trtexec",
        description="Build an engine from an ONNX model with trtexec, profile it and draw it, "
                    "writing TREx's files in OUTDIR: X.engine, X.build.log, "
                    "X.build.metadata.json, X.graph.json, X.profile.json, X.timing.json, "
                    "X.profile.log, X.profile.metadata.json, X.graph.json.svg. With none of "
                    "-b/-p/-d all three steps run; any combination works. MODEL may be an engine "
                    "file to profile or draw.",
        epilog="Extra trtexec arguments come after OUTDIR, without dashes as in TREx "
               "(fp16 shapes=input:1x3x224x224) or as trtexec spells them (--fp16 "
               "--shapes=input:1x3x224x224); give values with '='. The trtexec version decides "
               "the flags: TensorRT 11 networks are strongly typed, so precision shortcuts "
               "(fp16, bf16, fp8, best, ...) are refused with what to do instead, and no "
               "deprecated flag is sent. SIGTERM and SIGHUP stop trtexec and restore the GPU "
               "settings like Ctrl-C (exit status 128+signal).")
    parser.add_argument("model", metavar="MODEL", help="ONNX model, or an engine for -p/-d")
    parser.add_argument("outdir", metavar="OUTDIR")
    parser.add_argument("trtexec_args", nargs="*", metavar="TRTEXEC_ARG",
                        help="extra trtexec arguments (fp16 -> --fp16)")
    # TREx's process_engine.py spelled them --build_engine, --profile_engine, --draw_engine and
    # --print_only: accepted too, so that its scripts run unchanged (not passed to trtexec).
    parser.add_argument("--build", "-b", "--build_engine", action="store_true",
                        help="build the engine")
    parser.add_argument("--profile", "-p", "--profile_engine", action="store_true",
                        help="profile the engine")
    parser.add_argument("--draw", "-d", "--draw_engine", action="store_true",
                        help="draw the engine graph")
    parser.add_argument("--print-only", "--print_only", action="store_true",
                        help="print the trtexec command lines and exit")
    parser.add_argument("--trtexec", default=None, metavar="PATH",
                        help="trtexec executable (default: trtexec on PATH)")
    parser.add_argument("--archive", action="store_true",
                        help="also pack everything into OUTDIR/X.tea (EnginePlan reads it)")
    gpu = parser.add_argument_group("GPU settings while profiling (NVML, nvidia-ml-py)")
    gpu.add_argument("--device", type=numbers.DEVICE, default=0,
                     help="GPU index (default 0)")
    gpu.add_argument("--lock-clocks", action="store_true",
                     help="lock compute and memory clocks (default: their maximum)")
    gpu.add_argument("--compute-clock", type=numbers.clock, default=None, metavar="MHZ",
                     help="compute clock to lock, or 'max' (implies --lock-clocks)")
    gpu.add_argument("--memory-clock", type=numbers.clock, default=None, metavar="MHZ",
                     help="memory clock to lock, or 'max' (implies --lock-clocks)")
    gpu.add_argument("--power-limit", type=numbers.WATTS, default=None,
                     metavar="WATTS",
                     help="power limit while profiling")
    gpu.add_argument("--monitor", action="store_true",
                     help="sample power, temperature, clocks and throttle reasons while "
                          "profiling (written to X.gpu.json)")
    gpu.add_argument("--monitor-interval", type=numbers.INTERVAL,
                     default=1.0, metavar="S")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress line")
    parser.set_defaults(run=run)


class Progress:
    """One status line on stderr while a step runs (a terminal only), and step messages."""

    def __init__(self, quiet: bool):
        self.quiet = quiet
        self.tty = sys.stderr.isatty() and not quiet
        self.note = ""
        self.start = time.monotonic()
        self.last_draw = 0.0
        self.shown: set[str] = set()

    def line(self, step: str, number: int, text: str) -> None:
        note = describe_line(text)
        if note:  # names a layer (an ONNX node name: data), shown inert
            self.note = terminal_text(note)
        now = time.monotonic()
        if self.tty and now - self.last_draw > 0.1:
            self.last_draw = now
            status = f"  {step}: {now - self.start:6.1f} s, {number:,} lines  {self.note}"
            sys.stderr.write("\r" + status[:110].ljust(110))
            sys.stderr.flush()

    def event(self, kind: str, info: dict[str, Any]) -> None:
        if kind == "start":
            self.start, self.note = time.monotonic(), ""
            title = {"build": "Building", "profile": "Profiling"}.get(info["step"], info["step"])
            say(f"{title}: {shlex.join(map(str, info['command']))}", flush=True)
            return
        if self.tty:
            sys.stderr.write("\r" + " " * 110 + "\r")
        if kind == "done":
            say(f"  {info['step']} done in {info['seconds']:.1f} s ({info['lines']:,} log lines):"
                  f" {info['log']}")
        elif kind == "metadata":
            say(f"  metadata: {info['path']}")
        elif kind == "drawing":
            say(f"Drawing: {info['path']}")
        elif kind == "archive":
            say(f"Archive: {info['path']} ({info['files']} files)")
        elif kind == "gpu":
            self.shown.add(info["note"])
            say(f"  GPU: {info['note']}")
        elif kind == "gpu_hint":
            say(f"    {info['command']}")
        elif kind == "monitor":
            say(f"  GPU monitor: {_monitor_text(info)}")


def say(text: str, **kwargs: Any) -> None:
    """Print a line made of data (paths, notes, trtexec's words), control characters inert."""
    print(terminal_text(text), **kwargs)


def _monitor_text(info: dict[str, Any]) -> str:
    parts = [f"{info.get('samples', 0)} samples"]
    for key, unit in (("power_w", "W"), ("temperature_c", "C"), ("sm_clock_mhz", "MHz SM")):
        if key in info:
            parts.append(f"{info[key]['min']:g}-{info[key]['max']:g} {unit}")
    if info.get("throttle"):
        parts.append("throttled: " + ", ".join(info["throttle"]))
    return ", ".join(parts)


def run(args: argparse.Namespace) -> int:
    lock = args.lock_clocks or args.compute_clock is not None or args.memory_clock is not None
    gpu = GpuSettings(args.device,
                      (args.compute_clock or "max") if lock else None,
                      (args.memory_clock or "max") if lock else None,
                      args.power_limit)
    progress = Progress(args.quiet)
    try:
        with terminate_on_signals():
            result = pipeline.process_engine(
                args.model, args.outdir, args.trtexec_args, build=args.build,
                profile=args.profile, draw=args.draw, trtexec=args.trtexec, archive=args.archive,
                print_only=args.print_only, gpu=gpu, monitor=args.monitor,
                monitor_interval=args.monitor_interval, on_line=progress.line,
                on_event=progress.event)
    except Terminated as exc:
        if progress.tty:
            sys.stderr.write("\r" + " " * 110 + "\r")
        print(f"trex process: {exc}: trtexec stopped, GPU settings restored", file=sys.stderr)
        return exc.exit_code
    except TrtexecNotFound as exc:
        print(terminal_text(f"trex process: error: {exc}"), file=sys.stderr)
        return 2
    except OSError as exc:  # a full disk, a read-only folder
        where = exc.filename or args.outdir
        print(terminal_text(f"trex process: error: {where}: {exc.strerror or exc}"),
              file=sys.stderr)
        return 2
    except StepError as exc:
        if progress.tty:
            sys.stderr.write("\r" + " " * 110 + "\r")
        # the last error lines are trtexec's output, naming ONNX nodes: shown inert
        print(terminal_text(f"trex process: error: {exc}", keep_newlines=True), file=sys.stderr)
        if exc.step == "build":
            print("  check that the model and the trtexec arguments are valid (see the log)",
                  file=sys.stderr)
        return 1
    if args.print_only:
        for note in result.notes:
            say(f"# {note}")
        for command in result.commands.values():
            say(shlex.join(map(str, command)))
        return 0
    for note in result.notes:
        if note not in progress.shown:
            say(f"note: {note}", file=sys.stderr)
    say(f"TensorRT {result.version or 'version unknown'}; files in {result.paths.outdir}")
    return 0
