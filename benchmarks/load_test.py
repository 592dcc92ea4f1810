"""Load: many concurrent sessions on one server; its latency and its memory.

    python benchmarks/load_test.py --sessions 50              # latency: 50 sessions at once
    python benchmarks/load_test.py --sessions 20 --waves 10 --idle 45   # memory: 200 sessions, 20 at a time
    python benchmarks/load_test.py --sessions 20 --waves 10 --idle 45 --before ../main   # ... against other code
    python benchmarks/load_test.py --url http://127.0.0.1:8080 --sessions 50   # a running server (a proxy)
    python benchmarks/load_test.py --client browser --sessions 10               # headless Chromium tabs
    python benchmarks/load_test.py --tokenizer-memory   # what each bundled tokenizer keeps resident

Starts `streamlit run app.py` on loopback (unless given --url) and waits
for its warm-up (what it loads at start is in the memory before). Every
session opens Home and Inspect, then the Train page with its own sample and
vocabulary size (so every session really trains), steps `--steps` times, and
leaves. "open + train" is the time from asking for the Train page until its
step control has everything to step through. Stepping happens in the
browser: a key press costs the server nothing, and when the presenter
pauses the browser tells the server the step, which redraws the views that
follow it (the try-it box). A step's latency here is that message's: from
sending it until the server has redrawn them. Sessions come in `--waves`; after each wave
has left, the server's resident memory is read from /proc, so a run of many
waves shows whether memory levels off as visitors come and go. A closed
tab's session is kept for the server's `disconnectedSessionTTL` (30 s
here) in case the tab comes back: the memory right after the last wave
holds the last sessions still, and `--idle` seconds later (more than the
time to live) it holds what the server keeps for good.

`--before PATH` serves another checkout of the app (main's code, in a
worktree of its own) beside this one, wave for wave in the same run (the
same machine, at the same moment), so a change is measured against the
code before it; a session's figures above are this checkout's.

Two kinds of client:

- websocket (default): speaks Streamlit's own protocol, as a browser does,
  but draws nothing, so the figures are the server's. On a hosted app each
  user's browser draws on the user's own machine.
- browser: headless Chromium tabs. On a 2-core machine many tabs drawing
  pages take most of the CPU away from the server, so these figures measure
  the client as much as the app.

The peer: a bare Streamlit app (a title and a line of text) served the same
way, in the same run, wave for wave before ours: as many websocket sessions,
each opening it and asking for as many reruns as ours takes steps. Its
rerun's latency and its server's memory are Streamlit's own floor on this
machine at this moment, so the ratios say what the app adds to it.

Requests go only to the server given (loopback by default); every wait is
bounded by --timeout, and the run ends by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.exceptions import WebSocketException

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.measure import load_average
from tests.browser import CHROMIUM, CHROMIUM_ARGS, StreamlitServer, free_port

SAMPLES = ["english_prose", "python_code", "japanese", "tiny_shakespeare"]
DONE = (0, 3)  # ScriptFinishedStatus: the whole script, or a fragment, ran to the end
# As deploy/serve runs each server process: two malloc
# arenas instead of one per thread, so memory freed by sessions is reused.
SERVER_ENVIRONMENT = {"MALLOC_ARENA_MAX": "2"}
BARE_APP = 'import streamlit as st\n\nst.title("Bare")\nst.write("A bare Streamlit page.")\n'


def train_query(number: int) -> str:
    """Each session's own corpus and vocabulary size: every one trains."""
    return f"train_sample={SAMPLES[number % len(SAMPLES)]}&train_vocab={500 + 37 * number}"


# What ends a visitor's session early, counted as its error: a timeout, a
# connection refused or broken (the server's, under load).
SESSION_FAILURES = (TimeoutError, OSError, WebSocketException)


@dataclass
class Outcome:
    trained_in: float | None = None
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


# ------------------------------------------------------------ websocket


@dataclass
class Run:
    """What one script run sent back: widget ids, fragment ids, the text
    of its markdown and of its components' data (the try-it box's label)."""

    widget_ids: list[str] = field(default_factory=list)
    fragment_ids: set[str] = field(default_factory=set)
    texts: list[str] = field(default_factory=list)
    view_keys: list[str] = field(default_factory=list)  # the step control's: a report names the view it was made in
    exceptions: int = 0


def collect(message, run: Run) -> None:
    """Gather widget ids and texts from a delta, wherever they are nested."""
    for descriptor, value in message.ListFields():
        if descriptor.type != descriptor.TYPE_MESSAGE:
            if descriptor.name == "id" and isinstance(value, str) and value.startswith("$$ID"):
                run.widget_ids.append(value)
            if descriptor.name == "json" and message.DESCRIPTOR.name == "BidiComponent":
                run.texts.append(value)
            if descriptor.name == "bytes" and message.DESCRIPTOR.name == "BidiComponent":  # the step control's, packed
                run.view_keys.append(json.loads(value.partition(b"\n")[0]).get("viewKey", ""))
            continue
        for item in value if descriptor.is_repeated else [value]:
            if descriptor.name == "markdown":
                run.texts.append(item.body)
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
        # No pings from the client: a browser's WebSocket sends none, and a busy
        # server answers them late, which would end the session here but not there.
        address = url.replace("http", "ws", 1) + "/_stcore/stream"
        async with websockets.connect(address, max_size=None, ping_interval=None) as socket:
            for page in ("", "inspect"):  # a visitor looks around first
                run = await asyncio.wait_for(run_script(socket, page, ""), timeout)
                if run.exceptions:
                    outcome.errors.append(f"page {page or 'home'} showed an exception")
            started = time.perf_counter()
            run = await asyncio.wait_for(run_script(socket, "train", train_query(number)), timeout)
            outcome.trained_in = time.perf_counter() - started
            step_control = next((widget for widget in run.widget_ids if widget.endswith("train_stepper")), None)
            if run.exceptions or step_control is None or not run.fragment_ids:
                outcome.errors.append("the Train page did not give a trained tokenizer's steps to its step control")
                return outcome
            stepping = next(iter(run.fragment_ids))
            for step in range(1, steps + 1):
                told = time.perf_counter()  # as the browser tells the step when the presenter pauses
                report = {"step": step, "speed": 1, "viewKey": run.view_keys[-1] if run.view_keys else ""}
                position = WidgetState(id=step_control, json_value=json.dumps({"position": report}))
                run = await asyncio.wait_for(run_script(socket, "train", train_query(number), [position], stepping), timeout)
                if not any(f"as of step {step}" in text for text in run.texts):
                    outcome.errors.append(f"step {step} did not reach the try-it box")
                if run.exceptions:
                    outcome.errors.append(f"step {step} showed an exception")
                outcome.latencies.append(time.perf_counter() - told)
    except SESSION_FAILURES as error:  # what this script counts
        outcome.errors.append(f"{type(error).__name__}: {error}")
    return outcome


async def bare_session(url: str, reruns: int, timeout: float) -> Outcome:
    """The peer's visitor: opens the bare page, then asks for `reruns` reruns."""
    outcome = Outcome()
    try:
        address = url.replace("http", "ws", 1) + "/_stcore/stream"
        async with websockets.connect(address, max_size=None, ping_interval=None) as socket:
            await asyncio.wait_for(run_script(socket, "", ""), timeout)
            for _ in range(reruns):
                asked = time.perf_counter()
                await asyncio.wait_for(run_script(socket, "", ""), timeout)
                outcome.latencies.append(time.perf_counter() - asked)
    except SESSION_FAILURES as error:  # what this script counts
        outcome.errors.append(f"{type(error).__name__}: {error}")
    return outcome


class BareServer:
    """`streamlit run` of BARE_APP on loopback, as the app's server is run."""

    def __init__(self):
        self.folder = tempfile.TemporaryDirectory()
        script = Path(self.folder.name) / "bare.py"
        script.write_text(BARE_APP)
        self.url = f"http://127.0.0.1:{free_port()}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(script), "--server.address", "127.0.0.1",
             "--server.port", self.url.rsplit(":", 1)[1], "--server.headless", "true",
             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
            cwd=self.folder.name, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env={**os.environ, **SERVER_ENVIRONMENT},
        )

    async def wait_until_up(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                async with websockets.connect(self.url.replace("http", "ws", 1) + "/_stcore/stream"):
                    return
            except OSError:
                await asyncio.sleep(0.2)
        raise RuntimeError(f"the bare app did not start within {timeout:g} s")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=20)
        self.folder.cleanup()


# -------------------------------------------------------------- browser


async def browser_session(browser, url: str, number: int, steps: int, timeout: float) -> Outcome:
    from playwright.async_api import Error as PlaywrightError

    outcome = Outcome()
    context = await browser.new_context(viewport={"width": 1300, "height": 900})
    page = await context.new_page()
    try:
        started = time.perf_counter()
        await page.goto(f"{url}/train?{train_query(number)}", timeout=timeout * 1000)
        heading = page.locator(".trn-heading")
        await heading.get_by_text("Step 0").wait_for(timeout=timeout * 1000)
        outcome.trained_in = time.perf_counter() - started
        for step in range(1, steps + 1):
            pressed = time.perf_counter()
            await page.keyboard.press("ArrowRight")
            await heading.get_by_text(f"Merge {step} of").wait_for(timeout=timeout * 1000)
            outcome.latencies.append(time.perf_counter() - pressed)
        if await page.locator('[data-testid="stException"]').count():
            outcome.errors.append("exception shown on the page")
    except PlaywrightError as error:  # a timeout, or the page or browser closing under it: what this script counts
        outcome.errors.append(f"{type(error).__name__}: {str(error).splitlines()[0]}")
    finally:
        await context.close()
    return outcome


# --------------------------------------------------------------- memory


def resident_mb(pid: int) -> float:
    """A process's resident memory (VmRSS), in MB."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        return next(int(line.split()[1]) / 1024 for line in status if line.startswith("VmRSS:"))


def descendants(pid: int) -> list[int]:
    """The process's children, their children, and so on (the worker
    processes). Each thread lists the children it started: the server's
    fork server is started by the thread of the session that first needs it."""
    found, queue = [], [pid]
    while queue:
        parent = queue.pop()
        kids = []
        try:
            for thread in os.listdir(f"/proc/{parent}/task"):
                with open(f"/proc/{parent}/task/{thread}/children", encoding="ascii") as children:
                    kids += [int(kid) for kid in children.read().split()]
        except OSError:
            pass
        found += kids
        queue += kids
    return found


def memory_report(pid: int | None) -> str:
    if pid is None:
        return "server memory: not measured (a server given by --url)"
    helpers = 0.0
    for child in descendants(pid):
        try:
            helpers += resident_mb(child)
        except (OSError, StopIteration):  # a job that ended meanwhile
            pass
    return f"server RSS {resident_mb(pid):.0f} MB (worker processes {helpers:.0f} MB)"


# Every bundled tokenizer loaded in one fresh process, as a server that warms
# its cache of them does: the resident memory each one adds (loaded, and a
# line encoded, which builds what is built on first use).
LOAD_EVERY_TOKENIZER = """
import gc
from bpe_core import load_encoding
from bpe_core.vocabularies.catalogue import LISTED
def resident():
    with open("/proc/self/status", encoding="ascii") as status:
        return next(int(line.split()[1]) / 1024 for line in status if line.startswith("VmRSS:"))
gc.collect()
first = last = resident()
kept = []
for name in LISTED:
    kept.append(load_encoding(name))
    kept[-1].encode("The lowest, newest and widest. Привет, 世界 👋🏽")
    gc.collect()
    now = resident()
    print(f"  {name:<14} +{now - last:6.1f} MB", flush=True)
    last = now
print(f"  {'all of them':<14} {last - first:7.1f} MB")
"""


def tokenizer_memory() -> None:
    """What each bundled tokenizer costs a server that keeps it loaded, in
    the catalogue's order (one that shares a rank file with an earlier one
    adds less)."""
    subprocess.run([sys.executable, "-c", LOAD_EVERY_TOKENIZER], cwd=ROOT, check=True,
                   env={**os.environ, **SERVER_ENVIRONMENT})


# ---------------------------------------------------------------- report


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def latencies_of(outcomes: list[Outcome]) -> list[float]:
    return [latency for outcome in outcomes for latency in outcome.latencies]


def report(client: str, outcomes: list[Outcome], bare: list[Outcome], steps: int, elapsed: float) -> None:
    latencies = latencies_of(outcomes)
    trained = [outcome.trained_in for outcome in outcomes if outcome.trained_in is not None]
    errors = [error for outcome in outcomes for error in outcome.errors]
    print(f"{len(outcomes)} {client} sessions, {steps} steps each, {elapsed:.1f} s in all")
    print(f"  errors: {len(errors)}" + "".join(f"\n    {error}" for error in errors[:10]))
    if trained:
        print(f"  open + train: median {statistics.median(trained):.2f} s, p95 {percentile(trained, 0.95):.2f} s")
    if latencies:
        what = "key press to merge shown" if client == "browser" else "step told to the server to views redrawn"
        print(f"  step ({what}, {len(latencies)} steps): median {statistics.median(latencies):.2f} s, "
              f"p95 {percentile(latencies, 0.95):.2f} s, max {max(latencies):.2f} s")
    reruns = latencies_of(bare)
    if latencies and reruns:
        median, p95 = statistics.median(reruns), percentile(reruns, 0.95)
        print(f"  bare page's rerun (the peer, {len(reruns)} reruns): median {median:.3f} s, p95 {p95:.3f} s; "
              f"a step is {statistics.median(latencies) / median:.2f}x its median, "
              f"{percentile(latencies, 0.95) / p95:.2f}x its p95")


async def one_wave(client: str, url: str, first: int, sessions: int, steps: int, timeout: float) -> list[Outcome]:
    numbers = range(first, first + sessions)
    if client == "websocket":
        return list(await asyncio.gather(*(websocket_session(url, number, steps, timeout) for number in numbers)))
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        outcomes = await asyncio.gather(*(browser_session(browser, url, number, steps, timeout) for number in numbers))
        await browser.close()
    return list(outcomes)


def memory_line(pid: int | None, before: StreamlitServer | None, bare_server: BareServer | None) -> str:
    """This server's memory, and the other code's and the bare app's when they run beside it."""
    line = memory_report(pid)
    if before is not None:
        line += f"; before: {memory_report(before.process.pid)}"
    if bare_server is not None:
        line += f"; bare app's server RSS {resident_mb(bare_server.process.pid):.0f} MB"
    return line


async def run(args) -> None:
    server = None if args.url else StreamlitServer(extra_env=SERVER_ENVIRONMENT)
    url = args.url or server.url
    pid = None if server is None else server.process.pid
    before = StreamlitServer(extra_env=SERVER_ENVIRONMENT, app_dir=args.before) if args.before else None
    bare_server = None if args.no_peer else BareServer()
    try:
        for started_server in (server, before):
            if started_server is not None:
                started_server.wait_until_warmed()  # "before" includes what every server keeps from its start
        if bare_server is not None:
            await bare_server.wait_until_up(args.timeout)
        print(f"at start (load average {load_average()}): {memory_line(pid, before, bare_server)}")
        outcomes: list[Outcome] = []
        before_outcomes: list[Outcome] = []
        bare: list[Outcome] = []
        started = time.perf_counter()
        for wave in range(args.waves):
            if bare_server is not None:  # the peer's wave first, with as many sessions and reruns
                bare += await asyncio.gather(*(bare_session(bare_server.url, args.steps, args.timeout)
                                               for _ in range(args.sessions)))
            first = wave * args.sessions
            if before is not None:  # the same sessions, on the code before
                before_outcomes += await one_wave(args.client, before.url, first, args.sessions, args.steps,
                                                  args.timeout)
            wave_outcomes = await one_wave(args.client, url, first, args.sessions, args.steps, args.timeout)
            outcomes += wave_outcomes
            errors = sum(len(outcome.errors) for outcome in wave_outcomes)
            sessions = first + args.sessions
            print(f"after wave {wave + 1} ({sessions} sessions, {errors} errors, load average {load_average()}): "
                  f"{memory_line(pid, before, bare_server)}", flush=True)
        report(args.client, outcomes, bare, args.steps, time.perf_counter() - started)
        if before is not None:
            print("  before: ", end="")
            report(args.client, before_outcomes, [], args.steps, time.perf_counter() - started)
        if args.idle:
            await asyncio.sleep(args.idle)
            print(f"after {args.idle:g} s idle, past closed sessions' time to live (load average {load_average()}): "
                  f"{memory_line(pid, before, bare_server)}")
    finally:
        for started_server in (server, before):
            if started_server is not None:
                started_server.stop()
        if bare_server is not None:
            bare_server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--client", choices=["websocket", "browser"], default="websocket")
    parser.add_argument("--sessions", type=int, default=50, help="sessions at once, in each wave")
    parser.add_argument("--waves", type=int, default=1, help="waves of sessions, one after the other")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=180, help="seconds before a wait counts as an error")
    parser.add_argument("--idle", type=float, default=0, help="seconds to wait after the last wave, then measure")
    parser.add_argument("--url", help="a server already running (e.g. the proxy of deploy/), instead of a new one")
    parser.add_argument("--before", type=Path, metavar="PATH",
                        help="another checkout of the app (the code before a change), served and measured beside it")
    parser.add_argument("--no-peer", action="store_true", help="skip the bare app measured alongside")
    parser.add_argument("--tokenizer-memory", action="store_true", help="only measure each bundled tokenizer's memory")
    args = parser.parse_args()
    if args.tokenizer_memory:
        tokenizer_memory()
    else:
        asyncio.run(run(args))


if __name__ == "__main__":
    main()
