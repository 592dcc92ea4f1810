"""Run a timed job in fresh Python processes and report its time, CPU time and peak memory.

Each contender runs alone in its own process, so that one's caches and
memory do not flatter or burden the other. A job runs three times; the
median counts (the figure a user would see on an ordinary run, neither the
luckiest nor the unluckiest). A job is either Python code, timed after an
untimed setup, or a whole command (`python -m bpe_core train ...`), timed
from its start to its exit, the interpreter's start and imports included.

Every figure covers the job's whole process tree, measured the same way for
every contender, whether it works in threads (Hugging Face, rustbpe) or in
worker processes (bpe_core):

- time: the wall clock around the job, inside the process (setup such as
  imports and reading a vocabulary is not timed); for a command, around
  the whole process, from here;
- CPU time: the job's own threads, plus what every process it started
  spent meanwhile (the kernel's accounting in /proc, collected when a
  process ends into its parent's); for a command, what the kernel says
  its process and those it waited for spent;
- peak memory: the largest total resident set size (RSS) of the process and
  all its descendants at once, sampled every few milliseconds over its
  life. (The kernel's own ru_maxrss cannot be used: a child inherits its
  parent's peak across fork and exec, and it knows each process alone.)
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_SECONDS = 0.005
_PAGE_MB = os.sysconf("SC_PAGE_SIZE") / 2**20
_TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")

_CHILD = """
import json, sys, time
sys.path[:0] = [{root!r}, {here!r}]
from measure import descendants_cpu_seconds
{setup}
start, cpu_start, helpers_start = time.perf_counter(), time.process_time(), descendants_cpu_seconds()
{job}
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start  # cpu: all threads
cpu += descendants_cpu_seconds() - helpers_start
print(json.dumps({{"seconds": seconds, "cpu_seconds": cpu, "result": result}}))
"""


def run_isolated(setup: str, job: str, repeats: int = 3) -> dict:
    """Time `job` (which must set `result`) after untimed `setup`, each time in
    a fresh child process. Returns the run with the median time, with every
    run's seconds in "runs": "seconds", "cpu_seconds" (the job's, processes
    it started included), "peak_mb" (the process tree's) and "result"."""
    return run_in_turns({"job": (setup, job)}, repeats)["job"]


def run_in_turns(jobs: dict[str, tuple[str, str] | list[str]], repeats: int = 3) -> dict[str, dict]:
    """`run_isolated` for several (setup, job) pairs, or commands (a list of
    arguments, see `run_command`), taking turns (one run of each, then the
    next round), so that a busy spell on the machine falls on all of them
    alike."""
    runs: dict[str, list[dict]] = {name: [] for name in jobs}
    for _ in range(repeats):
        for name, job in jobs.items():
            runs[name].append(_run_job(job))
    return {name: _median(name_runs) for name, name_runs in runs.items()}


def _run_job(job: tuple[str, str] | list[str]) -> dict:
    if isinstance(job, list):
        return run_command(job)
    setup, code = job
    return _run_once(_CHILD.format(root=str(ROOT), here=str(Path(__file__).parent), setup=setup, job=code))


def run_command(arguments: list[str]) -> dict:
    """One run of a command, as a whole process (its interpreter's start and
    imports included), from the repository's folder: "seconds" from its
    start to its exit, "cpu_seconds" (its own and its waited-for children's,
    threads included), "peak_mb" (its process tree's) and "result" (None)."""
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen(arguments, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err)
        peak_mb = 0.0
        while child.poll() is None:
            peak_mb = max(peak_mb, tree_rss_mb(child.pid))
            time.sleep(SAMPLE_SECONDS)
        seconds = time.perf_counter() - start
        if child.returncode != 0:
            err.seek(0)
            raise RuntimeError(err.read())
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    return {"seconds": seconds, "cpu_seconds": cpu, "peak_mb": peak_mb, "result": None}


def _median(runs: list[dict]) -> dict:
    runs = sorted(runs, key=lambda run: run["seconds"])
    median = dict(runs[len(runs) // 2])
    median["runs"] = [run["seconds"] for run in runs]
    return median


def _run_once(code: str) -> dict:
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen([sys.executable, "-c", code], stdout=out, stderr=err)
        peak_mb = 0.0
        while child.poll() is None:
            peak_mb = max(peak_mb, tree_rss_mb(child.pid))
            time.sleep(SAMPLE_SECONDS)
        out.seek(0), err.seek(0)
        if child.returncode != 0:
            raise RuntimeError(err.read())
        run = json.loads(out.read().strip().splitlines()[-1])
    run["peak_mb"] = peak_mb
    return run


def descendants_cpu_seconds() -> float:
    """CPU seconds spent so far by this process's descendants: those alive
    (what each spent, and what it collected from its own ended children)
    and those that ended (collected by this process or by a descendant)."""
    total_ticks = 0
    for pid in _tree(os.getpid()):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
        except (FileNotFoundError, ProcessLookupError):
            continue  # ended while we looked
        user, system, children_user, children_system = map(int, fields[11:15])
        total_ticks += children_user + children_system + (0 if pid == os.getpid() else user + system)
    return total_ticks / _TICKS_PER_SECOND


def _tree(root: int) -> list[int]:
    """A process and all its descendants, as /proc sees them now."""
    found, pending = [], [root]
    while pending:
        pid = pending.pop()
        found.append(pid)
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as children:
                    pending.extend(int(child) for child in children.read().split())
        except (FileNotFoundError, ProcessLookupError):
            continue
    return found


def tree_rss_mb(root: int) -> float:
    """The resident memory of a process and all its descendants now, in MB."""
    return sum(process_rss_mb(pid) for pid in _tree(root))


def process_rss_mb(pid: int) -> float:
    """The resident memory of one process now, in MB (0 once it has ended)."""
    try:
        with open(f"/proc/{pid}/statm") as statm:
            return int(statm.read().split()[1]) * _PAGE_MB
    except (FileNotFoundError, ProcessLookupError):
        return 0.0


def load_average() -> str:
    """The machine's load averages over 1, 5 and 15 minutes, to print beside
    a figure (every benchmark reads them here, the same way)."""
    return " / ".join(f"{value:.2f}" for value in os.getloadavg())


def machine_load() -> str:
    """The load averages and CPU count, to print beside the figures."""
    return f"{os.cpu_count()} cores, load average {load_average()} (1 / 5 / 15 min)"


def ratio(ours: float, peer: float) -> str:
    """How many times the peer's figure ours is: below 1.00x, ours is lower."""
    return f"{ours / peer:.2f}x"
