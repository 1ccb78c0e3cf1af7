"""The stand-in trtexec's build-route sweep (TensorRT 11.1 ``--tuneBuildRoutes``).

Writes the tuning cache as FORMATS.md describes it (JSON Lines: a header, then one line per
iteration) and, with ``--saveAllEngines``, an engine per iteration as ``<saveEngine>.iter<N>``.
The stand-in's own conventions: iteration 0 is the default build route (every knob at its
default, written as an empty route), then every combination of ``-knob=[a|b]`` values in order.
GPU times and accuracy losses are derived from a hash of the route, so they are repeatable;
TREX_FAKE_TRTEXEC_CRASH_ROUTE=TEXT makes routes containing TEXT crash, and
TREX_FAKE_TRTEXEC_TUNE_STOP=N stops after N iterations leaving half a line (an interrupted
sweep; ``--continue`` resumes it, running the last finished iteration again).
"""

import hashlib
import itertools
import json
import os
import shlex
from pathlib import Path

DEFAULT_MS = 1.0


def routes(expression):
    """``-a=[x|y] -b=z`` -> ["-a=x -b=z", "-a=y -b=z"]."""
    knobs = []
    for token in shlex.split(expression or ""):
        name, _, value = token.partition("=")
        values = value[1:-1].split("|") if value.startswith("[") and value.endswith("]") else [value]
        knobs.append([f"{name}={v}" for v in values])
    return [" ".join(combo) for combo in itertools.product(*knobs)] if knobs else []


def _fraction(route, salt):
    digest = hashlib.sha256(f"{salt}:{route}".encode()).hexdigest()
    return int(digest[:8], 16) / 0xFFFFFFFF


def iteration(number, route, outputs, threshold, checked):
    """One iteration's record (crash, loss and time derived from the route)."""
    crash_text = os.environ.get("TREX_FAKE_TRTEXEC_CRASH_ROUTE")
    if crash_text and crash_text in route:
        return {"iter": number, "build_route": route, "crash": True,
                "error_message": "Error Code 10: Internal Error (Could not find any "
                                 "implementation for node /features/features.0/Conv)",
                "accuracy_loss": None, "gpu_time": None}
    default = route == ""
    loss = None
    if checked:
        loss = {name: 0.0 if default else round(2 * threshold * _fraction(route, name), 6)
                for name in outputs}
    gpu = DEFAULT_MS if default else round(DEFAULT_MS * (0.6 + 0.8 * _fraction(route, "t")), 5)
    return {"iter": number, "build_route": route, "crash": False, "error_message": "",
            "accuracy_loss": loss, "gpu_time": gpu}


def header(args, option, outputs_files):
    """The header line: keys in trtexec's order (FORMATS.md)."""
    files = {"onnx": os.path.abspath(option(args, "onnx") or ""),
             "save_engine": os.path.abspath(option(args, "saveEngine") or "")}
    files.update(outputs_files)
    return {
        "tuner_version": 1,
        "accuracy_algorithm": option(args, "accuracyAlgorithm") or "l2",
        "accuracy_parameter": {"atol": float(option(args, "atol") or 1e-5),
                               "rtol": float(option(args, "rtol") or 1e-5), "epsilon": 1e-12},
        "searching_algorithm": option(args, "tuningSearch") or "full",
        "command_line": "trtexec " + " ".join(args),
        "default_build_route": "",
        "tuning_expr": option(args, "tuneBuildRoutes") or "",
        "files": files,
        "argv": ["trtexec", *args],
    }


def _finished(path):
    """Iteration numbers already complete in an existing cache."""
    done = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and "iter" in record:
            done.append(record["iter"])
    return done


def sweep(args, option, outputs, emit):
    """Run the sweep: write the tuning cache and per-iteration engines; False if interrupted."""
    cache = option(args, "tuningCacheFile")
    threshold = float(option(args, "accuracyThreshold") or 0.01)
    checked = bool(option(args, "loadRefOutputs") or option(args, "accuracyThreshold"))
    plan = [""] + routes(option(args, "tuneBuildRoutes"))
    start, mode = 0, "w"
    if "--continue" in args and cache and Path(cache).is_file():
        done = _finished(cache)
        start = max(done) if done else 0  # the last finished iteration runs again
        mode = "a"
    stop = int(os.environ.get("TREX_FAKE_TRTEXEC_TUNE_STOP", "0") or 0)
    engine = option(args, "saveEngine")
    with open(cache or os.devnull, mode, encoding="utf-8") as out:
        if mode == "a" and Path(cache).read_bytes()[-1:] not in (b"\n", b""):
            out.write("\n")
        refs = {"ref_outputs": {name: f"/data/ref/{name}.bin" for name in outputs}} if checked else {}
        out.write(json.dumps(header(args, option, refs)) + "\n")
        for number in range(start, len(plan)):
            record = iteration(number, plan[number], outputs, threshold, checked)
            if stop and number >= stop:
                text = json.dumps(record)
                out.write(text[: len(text) // 2])
                emit([f"[E] [Tuner] interrupted during iteration {number}"])
                return False
            out.write(json.dumps(record) + "\n")
            out.flush()
            state = ("crashed" if record["crash"]
                     else f"GPU time {record['gpu_time']} ms")
            emit([f"[I] [Tuner] iteration {number}/{len(plan) - 1} route \"{plan[number]}\": "
                  f"{state}"])
            if engine and "--saveAllEngines" in args and not record["crash"]:
                Path(f"{engine}.iter{number}").write_bytes(
                    b"\x00\x00fake TensorRT engine (trex tests) route " + plan[number].encode())
    return True
