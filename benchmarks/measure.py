"""Run a timed job in a fresh Python process and report its time and peak memory.

Each contender runs alone in its own process, so that one's caches and
memory do not flatter or burden the other, and peak RSS is comparable.
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
print(json.dumps({{"seconds": seconds, "cpu_seconds": cpu, "peak_mb": peak, "result": result}}))
"""


def run_isolated(setup: str, job: str, repeats: int = 1) -> dict:
    """Time `job` (which must set `result`) after untimed `setup`, each time in
    a fresh child process; with `repeats`, the fastest run is kept (the
    others were slowed by something else on the machine)."""
    code = _CHILD.format(root=str(ROOT), setup=setup, job=job)
    runs = []
    for _ in range(repeats):
        completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
        if completed.returncode != 0:
            raise RuntimeError(completed.stderr)
        runs.append(json.loads(completed.stdout.strip().splitlines()[-1]))
    return min(runs, key=lambda run: run["seconds"])


def ratio(slower: float, faster: float) -> str:
    return f"{slower / faster:.2f}x"
