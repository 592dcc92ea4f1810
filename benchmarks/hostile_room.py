"""A hostile room: visitors send regexes that compile to hundreds of MB and
upload JSON bombs, while another visitor's Home should stay quick and the
server's memory put.

    python benchmarks/hostile_room.py [--visitors 20] [--rounds 2] [--home-runs 7]

Starts `streamlit run app.py` on loopback with a turns folder of its own and
waits for its warm-up. Then, in headless Chromium (/usr/bin/chromium):

1. quiet: one visitor loads Home `--home-runs` times, each in a fresh
   browser session, timed until fully drawn;
2. the room: `--visitors` hostile visitors, pages of one Chromium at the
   lowest priority (an attacker's machine is not the server's), each
   `--rounds` times, all at once: half open a Train link whose custom split
   pattern is a short regex that compiles to hundreds of MB (each its own,
   so that no verdict is reused), half upload to Inspect a gzip of a few
   hundred KB that unpacks to 50 MB of nested JSON; each waits for the
   page's one-line refusal. Meanwhile the first visitor keeps loading Home;
3. prints Home's median in the room against its quiet median, same run
   (target: at most 1.5x), the server process's memory (RSS) before and
   at its peak (target: at most +200 MB), and its process tree's (workers
   and probes included), with the load average before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from heavy_links import MemoryWatch, tree_memory
from load_test import SERVER_ENVIRONMENT, resident_mb
from measure import load_average
from serving_first import LOWEST_PRIORITY, drawn_seconds

from tests.browser import CHROMIUM, CHROMIUM_ARGS, StreamlitServer

REFUSAL = '[data-testid="stAlertContentError"]'


def huge_program(visitor: int, round_: int) -> str:
    """A regex of about twenty characters that compiles to hundreds of MB."""
    return rf"(?:b{{1000}}){{{1000 + 10 * visitor + round_}}}"


def json_bomb() -> bytes:
    """50 MB of empty JSON lists in an object, gzipped."""
    lists = (50_000_000 - len(b'{"a":[]}')) // 3
    return gzip.compress(b'{"a":[' + b"[]," * (lists - 1) + b"[]]}", 6)


async def hostile_visitor(browser, url: str, visitor: int, rounds: int, bomb: bytes) -> None:
    context = await browser.new_context(viewport={"width": 1440, "height": 900})
    page = await context.new_page()
    page.set_default_timeout(900_000)
    for round_ in range(rounds):
        if visitor % 2 == 0:
            query = urllib.parse.urlencode({"train_pattern": "custom", "train_custom": huge_program(visitor, round_)})
            await page.goto(f"{url}/train?{query}")
            await page.locator(REFUSAL).filter(has_text="MB to compile").first.wait_for()
        else:
            await page.goto(f"{url}/inspect")
            await page.locator('.st-key-inspect_tokenizer_menu [data-testid="stPopoverButton"]').click()
            await page.get_by_text("Load your own tokenizer").click()
            await page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
                {"name": f"bomb-{visitor}-{round_}.json.gz", "mimeType": "application/gzip", "buffer": bomb})
            await page.locator(REFUSAL).filter(has_text="Cannot use").first.wait_for()
    await context.close()


async def hostile_visitors(url: str, visitors: int, rounds: int) -> None:
    from playwright.async_api import async_playwright

    bomb = json_bomb()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        await asyncio.gather(*(hostile_visitor(browser, url, visitor, rounds, bomb) for visitor in range(visitors)))
        await browser.close()


def room(url: str, pid: int, visitors: int, rounds: int, home_runs: int) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        drawn_seconds(browser, url)  # the server's first Home is not what this measures
        quiet = [drawn_seconds(browser, url) for _ in range(home_runs)]
        server_before, tree_before = resident_mb(pid), tree_memory(pid)[0]
        server_peak = server_before
        watch = MemoryWatch(pid)
        started = time.perf_counter()
        hostile = subprocess.Popen(["nice", "-n", str(LOWEST_PRIORITY), sys.executable, __file__, "--hostile",
                                    "--url", url, "--visitors", str(visitors), "--rounds", str(rounds)])
        loaded = []
        while hostile.poll() is None:
            loaded.append(drawn_seconds(browser, url))
            server_peak = max(server_peak, resident_mb(pid))
        elapsed = time.perf_counter() - started
        tree_peak = watch.stop()[0]
        browser.close()
    if hostile.returncode:
        raise RuntimeError("the hostile visitors' browser failed; see its output above")

    print(f"\n{visitors} hostile visitors sent {visitors * rounds} huge regexes and JSON bombs; "
          f"all refused in {elapsed:.1f} s")
    quiet_median, loaded_median = statistics.median(quiet), statistics.median(loaded)
    print(f"Home, quiet: median {quiet_median:.2f} s over {len(quiet)} loads")
    print(f"Home, in the room: median {loaded_median:.2f} s, worst {max(loaded):.2f} s over {len(loaded)} loads "
          f"-> {loaded_median / quiet_median:.2f}x its quiet time (target <= 1.5x)")
    print(f"server process RSS: {server_before:.0f} MB before, peak {server_peak:.0f} MB "
          f"(+{server_peak - server_before:.0f} MB; target <= +200 MB), {resident_mb(pid):.0f} MB after")
    print(f"server tree RSS (workers and probes too): {tree_before:.0f} MB before, peak {tree_peak:.0f} MB "
          f"(+{tree_peak - tree_before:.0f} MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--visitors", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2, help="what each hostile visitor sends, one after the other")
    parser.add_argument("--home-runs", type=int, default=7, help="Home's quiet loads")
    parser.add_argument("--app-dir", type=Path, default=ROOT, help="the app to serve (another version of it)")
    parser.add_argument("--hostile", action="store_true", help=argparse.SUPPRESS)  # the hostile visitors' process
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.hostile:
        asyncio.run(hostile_visitors(args.url, args.visitors, args.rounds))
        return
    print(f"load average before: {load_average()} on {os.cpu_count()} cores; app from {args.app_dir}")
    with tempfile.TemporaryDirectory() as turns:
        server = StreamlitServer(extra_env={**SERVER_ENVIRONMENT, "TMPDIR": turns}, app_dir=args.app_dir)
        try:
            server.wait_until_warmed()
            room(server.url, server.process.pid, args.visitors, args.rounds, args.home_runs)
        finally:
            server.stop()
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
