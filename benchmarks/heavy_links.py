"""A room opens heavy links at once: does everyone else's page stay quick,
and does the server's memory stay put?

    python benchmarks/heavy_links.py [--visitors 6] [--home-runs 10]

Starts `streamlit run app.py` on loopback, with a turns folder of its own
(so other programs' jobs on this machine do not queue with its jobs), and
waits for its warm-up (what it trains at start is not the room's). Then:

1. quiet: the heavy pages are visited once at their defaults (unless
   `--cold`: that first visit loads every bundled tokenizer and measures
   it, work that is the same for every visitor); then one visitor opens
   Home `--home-runs` times, one run after the other;
2. the room: `--visitors` visitors each open a heavy link at once
   (Algorithms on the 30-language corpus, each at its own vocabulary size),
   then another (the Tax page's parity experiment, each at its own number
   of merges), while that first visitor keeps opening Home;
3. prints Home's median time in the room against its quiet time (target:
   at most 1.5x), each heavy link's time, and the growth of the server's
   process tree's memory (target: at most 300 MB): the resident set (RSS)
   of the server and its worker processes added up, sampled every 0.2 s,
   peak against before; and the same as proportional set size (PSS), which
   counts pages that processes share (a worker forked from the fork server
   shares most of its pages) once instead of once per process;
4. and, as figures the machine's load hardly changes, the CPU seconds the
   server process spent in the room (its drawing and measuring, which hold
   Home's turn at the interpreter) against those of its worker processes
   (the jobs), and how many worker processes were started.

Speaks Streamlit's own websocket protocol (the client of
`benchmarks/load_test.py`), so the figures are the server's: no browser
draws anything here. The two phases run on the same server in the same
run, so the machine's load falls on both.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import websockets

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from load_test import SERVER_ENVIRONMENT, descendants, resident_mb, run_script
from measure import load_average

from tests.browser import StreamlitServer

VOCABULARY_SIZES = [2_500, 3_000, 3_500, 4_000, 4_500, 5_000]  # Algorithms allows 300-8,000
MERGE_COUNTS = [2_500, 3_000, 3_500, 4_000, 4_500, 5_000]  # the parity experiment allows 100-5,000
TIMEOUT = 600.0


def heavy_links(visitor: int) -> list[tuple[str, str, str]]:
    """(label, page, query) of the links one visitor opens, one after the other."""
    vocab, merges = VOCABULARY_SIZES[visitor % 6], MERGE_COUNTS[visitor % 6]
    return [(f"Algorithms, 30 languages, vocabulary {vocab:,}", "algorithms",
             f"algorithms_corpus=parallel&algorithms_vocab={vocab}"),
            (f"parity experiment, {merges:,} merges", "tax", f"tax_parity_merges={merges}")]


def proportional_mb(pid: int) -> float:
    """A process's proportional set size (Pss), in MB."""
    with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as rollup:
        return next(int(line.split()[1]) / 1024 for line in rollup if line.startswith("Pss:"))


def tree_memory(pid: int) -> tuple[float, float]:
    """(RSS, PSS) of a process and all its descendants, added up, in MB."""
    rss = pss = 0.0
    for member in [pid, *descendants(pid)]:
        try:
            rss += resident_mb(member)
            pss += proportional_mb(member)
        except (OSError, StopIteration):  # a job that ended meanwhile
            pass
    return rss, pss


def cpu_seconds(pid: int) -> tuple[float, float]:
    """CPU seconds spent so far by a process itself and by its descendants
    (the live ones, and those that ended, collected by their parents)."""
    def ticks(member: int) -> tuple[int, int]:
        with open(f"/proc/{member}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
        return int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14])  # own, ended children's

    own, ended = ticks(pid)
    others = ended
    for member in descendants(pid):
        try:
            others += sum(ticks(member))
        except (OSError, IndexError):  # it ended meanwhile: its parent collects its time
            pass
    per_second = os.sysconf("SC_CLK_TCK")
    return own / per_second, others / per_second


class MemoryWatch:
    """The tree's memory sampled in a thread until stopped: its peak, and
    the processes seen in it."""

    def __init__(self, pid: int):
        self.pid, self.peak, self.seen = pid, (0.0, 0.0), set(descendants(pid))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.wait(0.2):
            self.seen.update(descendants(self.pid))
            rss, pss = tree_memory(self.pid)
            self.peak = (max(self.peak[0], rss), max(self.peak[1], pss))

    def stop(self) -> tuple[float, float]:
        self._stop.set()
        self._thread.join()
        return self.peak


async def timed_run(socket, page: str, query: str = "") -> float:
    started = time.perf_counter()
    run = await asyncio.wait_for(run_script(socket, page, query), TIMEOUT)
    if run.exceptions:
        raise RuntimeError(f"page {page or 'home'} ({query}) showed an exception")
    return time.perf_counter() - started


def connect(url: str):
    return websockets.connect(url.replace("http", "ws", 1) + "/_stcore/stream", max_size=None, ping_interval=None)


async def home_visitor(url: str, runs: int | None, until: asyncio.Event | None = None) -> list[float]:
    """Home's times: `runs` runs, or runs until `until` is set."""
    times = []
    async with connect(url) as socket:
        while (runs is None or len(times) < runs) and not (until is not None and until.is_set()):
            times.append(await timed_run(socket, ""))
    return times


async def heavy_visitor(url: str, visitor: int) -> list[tuple[str, float]]:
    times = []
    async with connect(url) as socket:
        for label, page, query in heavy_links(visitor):
            times.append((label, await timed_run(socket, page, query)))
    return times


async def room(url: str, pid: int, visitors: int, home_runs: int, warm: bool) -> None:
    await home_visitor(url, 2)  # the server's first visit of Home is not what this measures
    if warm:  # what the heavy pages do for every visitor alike: their first visits, at their defaults
        async with connect(url) as socket:
            for page in ("algorithms", "tax"):
                print(f"first visit of {page}, at its defaults: {await timed_run(socket, page):.1f} s")
    quiet = await home_visitor(url, home_runs)
    before = tree_memory(pid)
    print(f"before the room: server tree RSS {before[0]:.0f} MB (the server alone {resident_mb(pid):.0f} MB), "
          f"PSS {before[1]:.0f} MB")
    processes_before = set(descendants(pid))
    watch = MemoryWatch(pid)
    cpu_before = cpu_seconds(pid)
    done = asyncio.Event()
    loaded_home = asyncio.create_task(home_visitor(url, None, done))
    started = time.perf_counter()
    heavy = await asyncio.gather(*(heavy_visitor(url, visitor) for visitor in range(visitors)))
    elapsed = time.perf_counter() - started
    done.set()
    loaded = await loaded_home
    cpu_after = cpu_seconds(pid)
    peak = watch.stop()
    after = tree_memory(pid)

    print(f"\n{visitors} visitors opened {sum(map(len, heavy))} heavy links at once; all done in {elapsed:.1f} s")
    for visitor, times in enumerate(heavy):
        for label, seconds in times:
            print(f"   visitor {visitor + 1}: {label:<45} {seconds:6.1f} s")
    quiet_median, loaded_median = statistics.median(quiet), statistics.median(loaded)
    print(f"Home, quiet: median {quiet_median:.3f} s over {len(quiet)} runs")
    print(f"Home, in the room: median {loaded_median:.3f} s, worst {max(loaded):.3f} s over {len(loaded)} runs "
          f"-> {loaded_median / quiet_median:.2f}x its quiet time (target <= 1.5x)")
    print(f"server tree RSS: {before[0]:.0f} MB before, peak {peak[0]:.0f} MB (+{peak[0] - before[0]:.0f} MB), "
          f"{after[0]:.0f} MB after (target: growth <= 300 MB)")
    print(f"server tree PSS: {before[1]:.0f} MB before, peak {peak[1]:.0f} MB (+{peak[1] - before[1]:.0f} MB), "
          f"{after[1]:.0f} MB after")
    print(f"the server process alone: {resident_mb(pid):.0f} MB RSS after")
    server_cpu, workers_cpu = (after - before for after, before in zip(cpu_after, cpu_before))
    print(f"CPU seconds in the room: the server process {server_cpu:.1f} s (its drawing and measuring, and Home's "
          f"{len(loaded)} runs), its worker processes {workers_cpu:.1f} s; "
          f"{len(watch.seen - processes_before)} worker processes started")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--visitors", type=int, default=6)
    parser.add_argument("--home-runs", type=int, default=10, help="Home's quiet runs")
    parser.add_argument("--cold", action="store_true",
                        help="skip the heavy pages' first visits at their defaults before measuring: they load every "
                        "bundled tokenizer and measure it, the same work for every visitor")
    args = parser.parse_args()
    print(f"load average before: {load_average()}")
    with tempfile.TemporaryDirectory() as turns:
        server = StreamlitServer(extra_env={**SERVER_ENVIRONMENT, "TMPDIR": turns})
        try:
            server.wait_until_warmed()  # its trainings at start are not the room's
            asyncio.run(room(server.url, server.process.pid, args.visitors, args.home_runs, warm=not args.cold))
        finally:
            server.stop()
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
