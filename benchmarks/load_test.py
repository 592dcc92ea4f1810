"""Load: many concurrent sessions training and stepping on one local server.

    python benchmarks/load_test.py                        # 20 websocket sessions, 10 steps each
    python benchmarks/load_test.py --client browser       # the same in headless Chromium tabs

Starts `streamlit run app.py` on loopback. Every session opens the Train page
with its own vocabulary size (so every session really trains) and then clicks
"next" `--steps` times. Step latency is the time from the click until the
page's next merge has arrived.

Two kinds of client:

- websocket (default): speaks Streamlit's own protocol, as a browser does,
  but draws nothing, so the figures are the server's. On a hosted app each
  user's browser draws on the user's own machine.
- browser: headless Chromium tabs. On a 2-core machine twenty tabs drawing
  pages take most of the CPU away from the server, so these figures measure
  the client as much as the app.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser import CHROMIUM, CHROMIUM_ARGS, StreamlitServer

SAMPLES = ["english_prose", "python_code", "japanese", "tiny_shakespeare"]
DONE = (0, 3)  # ScriptFinishedStatus: the whole script, or a fragment, ran to the end


def train_query(number: int) -> str:
    """Each session's own corpus and vocabulary size: every one trains."""
    return f"train_sample={SAMPLES[number % len(SAMPLES)]}&train_vocab={500 + 37 * number}"


@dataclass
class Outcome:
    trained_in: float | None = None
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


# ------------------------------------------------------------ websocket


@dataclass
class Run:
    """What one script run sent back: widget ids, fragment ids, markdown."""

    widget_ids: list[str] = field(default_factory=list)
    fragment_ids: set[str] = field(default_factory=set)
    markdown: list[str] = field(default_factory=list)
    exceptions: int = 0


def collect(message, run: Run) -> None:
    """Gather widget ids and markdown from a delta, wherever they are nested."""
    for descriptor, value in message.ListFields():
        if descriptor.type != descriptor.TYPE_MESSAGE:
            if descriptor.name == "id" and isinstance(value, str) and value.startswith("$$ID"):
                run.widget_ids.append(value)
            continue
        for item in value if descriptor.is_repeated else [value]:
            if descriptor.name == "markdown":
                run.markdown.append(item.body)
            if descriptor.name == "exception":
                run.exceptions += 1
            collect(item, run)


async def run_script(socket, page: str, query: str, widgets=(), fragment_id: str = "") -> Run:
    """Ask the server to run `page` (or one fragment of it) and read until it is done."""
    request = BackMsg()
    request.rerun_script.page_name = page
    request.rerun_script.query_string = query
    request.rerun_script.fragment_id = fragment_id
    request.rerun_script.widget_states.widgets.extend(widgets)
    await socket.send(request.SerializeToString())
    run = Run()
    while True:
        message = ForwardMsg()
        message.ParseFromString(await socket.recv())
        kind = message.WhichOneof("type")
        if kind == "delta":
            collect(message.delta, run)
            if message.delta.fragment_id:
                run.fragment_ids.add(message.delta.fragment_id)
        elif kind == "script_finished" and message.script_finished in DONE:
            return run


async def websocket_session(url: str, number: int, steps: int, timeout: float) -> Outcome:
    outcome = Outcome()
    try:
        async with websockets.connect(url.replace("http", "ws", 1) + "/_stcore/stream", max_size=None) as socket:
            started = time.perf_counter()
            run = await asyncio.wait_for(run_script(socket, "train", train_query(number)), timeout)
            outcome.trained_in = time.perf_counter() - started
            next_button = next(widget for widget in run.widget_ids if widget.endswith("train_next"))
            (stepper,) = run.fragment_ids
            for step in range(1, steps + 1):
                clicked = time.perf_counter()
                click = WidgetState(id=next_button, trigger_value=True)
                run = await asyncio.wait_for(run_script(socket, "train", train_query(number), [click], stepper), timeout)
                if not any(text.startswith(f"**Merge {step} of") for text in run.markdown):
                    outcome.errors.append(f"step {step} did not show merge {step}")
                if run.exceptions:
                    outcome.errors.append(f"step {step} showed an exception")
                outcome.latencies.append(time.perf_counter() - clicked)
    except Exception as error:  # a timeout or a broken connection is what this script counts
        outcome.errors.append(f"{type(error).__name__}: {error}")
    return outcome


# -------------------------------------------------------------- browser


async def browser_session(browser, url: str, number: int, steps: int, timeout: float) -> Outcome:
    outcome = Outcome()
    context = await browser.new_context(viewport={"width": 1300, "height": 900})
    page = await context.new_page()
    try:
        started = time.perf_counter()
        await page.goto(f"{url}/train?{train_query(number)}", timeout=timeout * 1000)
        await page.get_by_text("Step 0", exact=False).first.wait_for(timeout=timeout * 1000)
        outcome.trained_in = time.perf_counter() - started
        next_button = page.get_by_role("button", name="▶", exact=True)
        for step in range(1, steps + 1):
            clicked = time.perf_counter()
            await next_button.click(timeout=timeout * 1000)
            await page.get_by_text(f"Merge {step} of", exact=False).first.wait_for(timeout=timeout * 1000)
            outcome.latencies.append(time.perf_counter() - clicked)
        if await page.locator('[data-testid="stException"]').count():
            outcome.errors.append("exception shown on the page")
    except Exception as error:
        outcome.errors.append(f"{type(error).__name__}: {str(error).splitlines()[0]}")
    finally:
        await context.close()
    return outcome


# ---------------------------------------------------------------- report


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def report(client: str, outcomes: list[Outcome], steps: int, elapsed: float) -> None:
    latencies = [latency for outcome in outcomes for latency in outcome.latencies]
    trained = [outcome.trained_in for outcome in outcomes if outcome.trained_in is not None]
    errors = [error for outcome in outcomes for error in outcome.errors]
    print(f"{len(outcomes)} concurrent {client} sessions, {steps} steps each, {elapsed:.1f} s in all")
    print(f"  errors: {len(errors)}" + "".join(f"\n    {error}" for error in errors[:10]))
    if trained:
        print(f"  open + train: median {statistics.median(trained):.2f} s, p95 {percentile(trained, 0.95):.2f} s")
    if latencies:
        print(f"  step latency ({len(latencies)} steps): median {statistics.median(latencies):.2f} s, "
              f"p95 {percentile(latencies, 0.95):.2f} s, max {max(latencies):.2f} s")


async def run(client: str, sessions: int, steps: int, timeout: float) -> None:
    server = StreamlitServer()
    try:
        started = time.perf_counter()
        if client == "websocket":
            outcomes = await asyncio.gather(
                *(websocket_session(server.url, number, steps, timeout) for number in range(sessions))
            )
        else:
            from playwright.async_api import async_playwright

            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                outcomes = await asyncio.gather(
                    *(browser_session(browser, server.url, number, steps, timeout) for number in range(sessions))
                )
                await browser.close()
        report(client, outcomes, steps, time.perf_counter() - started)
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--client", choices=["websocket", "browser"], default="websocket")
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=120, help="seconds before a wait counts as an error")
    args = parser.parse_args()
    asyncio.run(run(args.client, args.sessions, args.steps, args.timeout))


if __name__ == "__main__":
    main()
