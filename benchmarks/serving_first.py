"""Serving comes first: while visitors' heavy jobs run, is another visitor's
Home still quick, in a real browser?

    python benchmarks/serving_first.py [--visitors 6] [--home-runs 7] [--app-dir DIR]

Starts `streamlit run app.py` on loopback (from `--app-dir`, to measure
another version of the app the same way), with a turns folder of its own,
and waits for its warm-up. Then, in headless Chromium (/usr/bin/chromium):

1. quiet: one visitor loads Home `--home-runs` times, each in a fresh
   browser session, timed until it is fully drawn (Streamlit's "script
   finished", nothing still loading);
2. the room: `--visitors` visitors, each in a Chromium of its own at the
   lowest priority (they stand for the visitors' own machines; see
   `lowest_priority`), cold (no heavy page visited before), each open a heavy link
   (Algorithms on the 30-language corpus, each at its own vocabulary
   size) and then another (the Tax page's parity experiment, each at its
   own number of merges), each until fully drawn; meanwhile the first
   visitor keeps loading Home as before;
3. prints Home's median in the room against its quiet median, same run
   (target: at most 1.5x), each heavy link's time (drawn by its browser
   at the lowest priority, so mostly that browser's wait for a core:
   `heavy_links.py` times the same links by the server alone), and the server's process
   tree's memory (RSS of the server and its workers added up) before and at
   its peak; with the load average before and after.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from heavy_links import MemoryWatch, heavy_links, tree_memory
from load_test import SERVER_ENVIRONMENT, descendants
from measure import load_average
from page_speed import drawn_time

from tests.browser import CHROMIUM, CHROMIUM_ARGS, StreamlitServer

LOWEST_PRIORITY = 19


def drawn_seconds(browser, url: str) -> float:
    """Seconds from a fresh session's page load until the page is fully drawn
    (page_speed's measure), waiting as long as a room's busiest moment needs."""
    return drawn_time(browser, url, timeout=900)


def lowest_priority(pid: int) -> None:
    """Put the sessions a process started (its browser's) at the lowest
    priority. `nice` alone is not enough: Chromium starts in a
    session of its own, and where the kernel groups processes by session
    (autogroup scheduling, on by default on most desktops and servers,
    /proc/sys/kernel/sched_autogroup_enabled) each session gets an equal
    share of the cores whatever its processes' nice values, so six
    visitors' browsers took six shares from the server's one. A session's
    share follows its group's nice value, set through /proc/PID/autogroup."""
    own_session = os.getsid(pid)  # the benchmark's, and the server's: left alone
    for member in descendants(pid):
        with contextlib.suppress(OSError):  # ended meanwhile, or no autogroups on this kernel
            if os.getsid(member) != own_session:
                Path(f"/proc/{member}/autogroup").write_text(str(LOWEST_PRIORITY), encoding="ascii")


def visitor(url: str, number: int) -> None:
    """One heavy visitor (run in a process of its own, at the lowest
    priority, and so is its browser): its links one after the other;
    prints their times as JSON."""
    from playwright.sync_api import sync_playwright

    times = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        lowest_priority(os.getpid())  # the browser's session and its renderers, started later, with it
        for label, page, query in heavy_links(number):
            times.append((label, drawn_seconds(browser, f"{url}/{page}?{query}")))
        browser.close()
    print(json.dumps(times))


def room(url: str, pid: int, visitors: int, home_runs: int) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        drawn_seconds(browser, url)  # the server's first Home is not what this measures
        quiet = [drawn_seconds(browser, url) for _ in range(home_runs)]
        before = tree_memory(pid)[0]
        watch = MemoryWatch(pid)
        started = time.perf_counter()
        heavy = [subprocess.Popen(["nice", "-n", str(LOWEST_PRIORITY), sys.executable, __file__, "--visitor",
                                   str(number), "--url", url], stdout=subprocess.PIPE, text=True)
                 for number in range(visitors)]
        loaded = []
        while any(process.poll() is None for process in heavy):
            loaded.append(drawn_seconds(browser, url))
        elapsed = time.perf_counter() - started
        peak = watch.stop()[0]
        browser.close()
    links = [json.loads(process.stdout.read()) for process in heavy]
    if any(process.returncode for process in heavy):
        raise RuntimeError("a visitor's browser failed; see its output above")

    print(f"\n{visitors} visitors (Chromium at nice {LOWEST_PRIORITY}, cold) opened "
          f"{sum(map(len, links))} heavy links; all drawn in {elapsed:.1f} s")
    for number, times in enumerate(links):
        for label, seconds in times:
            print(f"   visitor {number + 1}: {label:<45} {seconds:6.1f} s")
    quiet_median, loaded_median = statistics.median(quiet), statistics.median(loaded)
    print(f"Home, quiet: median {quiet_median:.2f} s over {len(quiet)} loads")
    print(f"Home, in the room: median {loaded_median:.2f} s, worst {max(loaded):.2f} s over {len(loaded)} loads "
          f"-> {loaded_median / quiet_median:.2f}x its quiet time (target <= 1.5x)")
    print(f"server tree RSS: {before:.0f} MB before, peak {peak:.0f} MB (+{peak - before:.0f} MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--visitors", type=int, default=6)
    parser.add_argument("--home-runs", type=int, default=7, help="Home's quiet loads")
    parser.add_argument("--app-dir", type=Path, default=ROOT, help="the app to serve (another version of it)")
    parser.add_argument("--visitor", type=int, help=argparse.SUPPRESS)  # one heavy visitor's process
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.visitor is not None:
        visitor(args.url, args.visitor)
        return
    print(f"load average before: {load_average()} on {os.cpu_count()} cores; app from {args.app_dir}")
    with tempfile.TemporaryDirectory() as turns:
        server = StreamlitServer(extra_env={**SERVER_ENVIRONMENT, "TMPDIR": turns}, app_dir=args.app_dir)
        try:
            server.wait_until_warmed()  # its trainings at start are not the room's
            room(server.url, server.process.pid, args.visitors, args.home_runs)
        finally:
            server.stop()
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
