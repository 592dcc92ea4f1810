"""Run a timed job in fresh Python processes and report its time and peak memory.

Each contender runs alone in its own process, so that one's caches and
memory do not flatter or burden the other, and peak RSS is comparable. A
job runs three times; the median counts (the figure a user would see on an
ordinary run, neither the luckiest nor the unluckiest).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_CHILD = """
import json, resource, sys, time
sys.path.insert(0, {root!r})
{setup}
start, cpu_start = time.perf_counter(), time.process_time()
{job}
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start  # cpu: all threads
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
workers = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({{"seconds": seconds, "cpu_seconds": cpu + workers.ru_utime + workers.ru_stime,
                   "peak_mb": peak, "worker_peak_mb": workers.ru_maxrss / 1024, "result": result}}))
"""


def run_isolated(setup: str, job: str, repeats: int = 3) -> dict:
    """Time `job` (which must set `result`) after untimed `setup`, each time in
    a fresh child process; the run with the median time is returned, with
    every run's seconds in "runs". CPU time includes worker processes; the
    peak memory of the job's own process and of its largest worker are
    reported apart."""
    code = _CHILD.format(root=str(ROOT), setup=setup, job=job)
    runs = []
    for _ in range(repeats):
        completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
        if completed.returncode != 0:
            raise RuntimeError(completed.stderr)
        runs.append(json.loads(completed.stdout.strip().splitlines()[-1]))
    runs.sort(key=lambda run: run["seconds"])
    median = dict(runs[len(runs) // 2])
    median["runs"] = [run["seconds"] for run in runs]
    return median


def ratio(ours: float, peer: float) -> str:
    """How many times the peer's figure ours is: below 1.00x, ours is lower."""
    return f"{ours / peer:.2f}x"
