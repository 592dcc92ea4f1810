"""Load: many concurrent browser sessions training and stepping on one server.

    python benchmarks/load_test.py                 # 20 sessions, 10 steps each
    python benchmarks/load_test.py --sessions 40

Starts `streamlit run app.py` on loopback and opens the sessions in one
headless Chromium (Debian's /usr/bin/chromium). Each session opens the Train
page with its own vocabulary size, so every session really trains, then
clicks "next" `--steps` times. Step latency is the time from the click until
the page shows the next merge. Prints errors and latency percentiles.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.async_api import async_playwright  # noqa: E402

from tests.browser import CHROMIUM, CHROMIUM_ARGS, StreamlitServer  # noqa: E402

SAMPLES = ["english_prose", "python_code", "japanese", "tiny_shakespeare"]


async def session(browser, url: str, number: int, steps: int, timeout_ms: int) -> dict:
    context = await browser.new_context(viewport={"width": 1300, "height": 900})
    page = await context.new_page()
    result = {"trained_in": None, "latencies": [], "errors": []}
    try:
        started = time.perf_counter()
        sample = SAMPLES[number % len(SAMPLES)]
        await page.goto(f"{url}/train?train_sample={sample}&train_vocab={500 + 37 * number}", timeout=timeout_ms)
        await page.get_by_text("Step 0", exact=False).first.wait_for(timeout=timeout_ms)
        result["trained_in"] = time.perf_counter() - started
        next_button = page.get_by_role("button", name="▶", exact=True)
        for step in range(1, steps + 1):
            clicked = time.perf_counter()
            await next_button.click(timeout=timeout_ms)
            await page.get_by_text(f"Merge {step} of", exact=False).first.wait_for(timeout=timeout_ms)
            result["latencies"].append(time.perf_counter() - clicked)
        if await page.locator('[data-testid="stException"]').count():
            result["errors"].append("exception shown on the page")
    except Exception as error:  # a timeout or a crash is what this script counts
        result["errors"].append(f"{type(error).__name__}: {str(error).splitlines()[0]}")
    finally:
        await context.close()
    return result


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def run(sessions: int, steps: int, timeout_ms: int) -> None:
    server = StreamlitServer()
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            started = time.perf_counter()
            results = await asyncio.gather(
                *(session(browser, server.url, number, steps, timeout_ms) for number in range(sessions))
            )
            elapsed = time.perf_counter() - started
            await browser.close()
    finally:
        server.stop()
    latencies = [latency for result in results for latency in result["latencies"]]
    trained = [result["trained_in"] for result in results if result["trained_in"] is not None]
    errors = [error for result in results for error in result["errors"]]
    print(f"{sessions} concurrent sessions, {steps} steps each, {elapsed:.1f} s in all")
    print(f"  errors: {len(errors)}" + "".join(f"\n    {error}" for error in errors[:10]))
    if trained:
        print(f"  open + train: median {statistics.median(trained):.2f} s, p95 {percentile(trained, 0.95):.2f} s")
    if latencies:
        print(f"  step latency ({len(latencies)} steps): median {statistics.median(latencies):.2f} s, "
              f"p95 {percentile(latencies, 0.95):.2f} s, max {max(latencies):.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=120, help="seconds before a wait counts as an error")
    args = parser.parse_args()
    asyncio.run(run(args.sessions, args.steps, int(args.timeout * 1000)))


if __name__ == "__main__":
    main()
