"""Run ``python ARGS`` in this process and, at exit, write its peak resident memory in bytes
(``VmHWM`` of /proc/self/status) to the file named by ``TREX_PEAK_FILE``.

A child's ``ru_maxrss`` from ``wait4`` counts the memory of the process it was forked from (Linux
keeps the larger of the two across ``exec``), so a test run from a pytest process that has grown
would see that process's size; the child measures itself instead.
"""

import atexit
import os
import runpy
import sys


def _write_peak() -> None:
    target = os.environ.get("TREX_PEAK_FILE")
    if not target:
        return
    try:
        with open("/proc/self/status") as f:
            kib = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    except (OSError, StopIteration, ValueError):
        return
    with open(target, "w") as f:
        f.write(str(kib * 1024))


atexit.register(_write_peak)
args = sys.argv[1:]
if args and args[0] == "-m":
    sys.argv = [args[1], *args[2:]]
    runpy.run_module(args[1], run_name="__main__", alter_sys=True)
else:
    sys.argv = args
    runpy.run_path(args[0], run_name="__main__")
