"""Real-browser test support: the app served by `streamlit run app.py` on loopback
(and pages saved as HTML, opened from file:// with no network), driven by
Playwright in Debian's Chromium (/usr/bin/chromium; nothing is
downloaded). Screenshots go to artifacts/screenshots/ (gitignored, kept by CI).
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from playwright.sync_api import expect
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
WAIT_SECONDS = 300  # a busy machine is slow, not wrong: waits end on the app's state, this only bounds them

# Flags from running Chromium headless on a closed network: no background
# requests (they would fail and slow every start), no sandbox as root.
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def require_chromium() -> None:
    """Skip when there is no browser, except in CI, where that is a failure."""
    if Path(CHROMIUM).exists():
        return
    if os.environ.get("REQUIRE_BROWSER_TESTS"):
        pytest.fail(f"Chromium not found at {CHROMIUM}; .ci/run installs it with apt.")
    pytest.skip("Chromium is not installed (apt install chromium); .ci/run installs it.")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class StreamlitServer:
    """`streamlit run app.py` on 127.0.0.1 (the app's, or another in `app_dir`
    with its own static/ and .streamlit/), stopped when the tests end.
    `started` is when the process was started (`time.perf_counter()`): the
    benchmarks time a first visit from there."""

    def __init__(self, extra_env: dict[str, str] | None = None, app_dir: Path = ROOT):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = (ROOT / "artifacts" / f"streamlit-{self.port}.log")
        self.log.parent.mkdir(parents=True, exist_ok=True)
        command = [
            sys.executable, "-m", "streamlit", "run", "app.py",
            "--server.address", "127.0.0.1", "--server.port", str(self.port),
            "--server.headless", "true", "--browser.gatherUsageStats", "false",
            "--server.fileWatcherType", "none",
        ]
        self.started = time.perf_counter()
        with self.log.open("w") as log:  # the server writes through its own copy
            self.process = subprocess.Popen(
                command, cwd=app_dir, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(extra_env or {})},
            )
        self._wait_until_healthy()

    def _wait_until_healthy(self, timeout: float = WAIT_SECONDS) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"streamlit exited early; see {self.log}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as response:
                    if response.read().strip() == b"ok":
                        return
            except OSError:
                time.sleep(0.02)  # a first visit is timed from the server's start: see it up at once
        raise RuntimeError(f"streamlit did not start within {timeout} s; see {self.log}")

    def wait_until_warmed(self, timeout: float = WAIT_SECONDS) -> None:
        """Until the server's log says its warm-up (pages/common/warm_up.py) is done."""
        from pages.common.warm_up import WARMED

        deadline = time.monotonic() + timeout
        while WARMED not in self.log.read_text():
            if self.process.poll() is not None:
                raise RuntimeError(f"streamlit exited early; see {self.log}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not finish its warm-up within {timeout} s; see {self.log}")
            time.sleep(0.2)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # a busy machine: it has not finished shutting down
            self.process.kill()
            self.process.wait()


# Streamlit ends every script run (and every fragment run) with a
# "script finished" message on its websocket; these statuses end a run that
# is done (a run stopped early for a rerun is followed by the rerun itself).
RUN_DONE = {
    ForwardMsg.ScriptFinishedStatus.FINISHED_SUCCESSFULLY,
    ForwardMsg.ScriptFinishedStatus.FINISHED_WITH_COMPILE_ERROR,
    ForwardMsg.ScriptFinishedStatus.FINISHED_FRAGMENT_RUN_SUCCESSFULLY,
}


def finishes_a_run(payload) -> bool:
    """Whether a message the server sent on a websocket ends a script run that is done."""
    if not isinstance(payload, bytes):
        return False
    message = ForwardMsg()
    message.ParseFromString(payload)
    return message.WhichOneof("type") == "script_finished" and message.script_finished in RUN_DONE


def track_runs(page):
    """Count the script runs Streamlit finishes for this page (see `run`)."""
    page.finished_runs = 0

    def on_frame(payload) -> None:
        if finishes_a_run(payload):
            page.finished_runs += 1

    page.on("websocket", lambda websocket: websocket.on("framereceived", on_frame))
    return page


DEFAULT_VIEWPORT = {"width": 1400, "height": 1000}


def new_page(browser, **options):
    """A page in a new browser session (a new Streamlit session too), with its runs tracked."""
    page = browser.new_context(**{"viewport": DEFAULT_VIEWPORT, **options}).new_page()
    page.set_default_timeout(WAIT_SECONDS * 1000)
    return track_runs(page)


def one_tab_per_file():
    """Fixtures for a test file whose tests take turns in one browser tab:
    `tab`, opened once for the file, and `page`, that tab handed to each test
    as the conftest's `page` would hand a new one. Opening a page of the app
    in a tab already showing one costs half of opening it in a new tab of a
    new browser session (a new renderer process, Streamlit's scripts fetched
    and compiled again), and is as new to the app: each load is a session of
    its own (its websocket), and the app keeps nothing in the browser
    (no cookies or storage of its own). Between tests the tab is emptied
    (about:blank: the last test's session ends), set back to the usual
    window size, with no dialog recorded and no request routed. A test that
    changes what a tab cannot be rid of (an init script, a clock) takes a
    page of its own: `new_page`. Usage, at a module's top:
    `tab, page = one_tab_per_file()`."""

    @pytest.fixture(scope="module")
    def tab(browser):
        opened = new_page(browser)
        opened.dialogs = []
        opened.on("dialog", lambda dialog: (opened.dialogs.append(dialog.message), dialog.dismiss()))
        yield opened
        opened.context.close()

    @pytest.fixture
    def page(tab):
        tab.goto("about:blank")
        tab.unroute_all(behavior="ignoreErrors")
        tab.context.unroute_all(behavior="ignoreErrors")
        tab.set_viewport_size(DEFAULT_VIEWPORT)
        tab.dialogs = []
        yield tab
        for other in tab.context.pages:  # a pop-up the test opened (the Deck's speaker view)
            if other is not tab:
                other.close()

    return tab, page


def run(page, action, timeout: float = WAIT_SECONDS) -> None:
    """Do `action` (a click, a key, a page load) and wait until Streamlit has
    finished the script run it starts and drawn it: its own message,
    counted (never a quiet period), then its app element's script state,
    then no placeholder left of an element still loading its code (charts,
    tables and HTML are loaded lazily, after the run) and no chart still
    loading plotly.js. What a run changes
    is still best checked with `expect`, which retries."""
    before = page.finished_runs
    action()
    deadline = time.monotonic() + timeout
    while page.finished_runs <= before:
        if time.monotonic() > deadline:
            raise TimeoutError(f"Streamlit finished no script run within {timeout} s")
        page.wait_for_timeout(20)  # lets Playwright deliver the websocket's messages
    app = page.locator('[data-testid="stApp"]')
    expect(app).to_have_attribute("data-test-script-state", "notRunning", timeout=timeout * 1000)
    expect(page.locator('[data-testid="stSkeleton"]')).to_have_count(0, timeout=timeout * 1000)
    expect(page.locator('.bpe-chart[data-state="loading"]')).to_have_count(0, timeout=timeout * 1000)  # charts: chart.js
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


def open_page(page, url: str, title: str | None = None) -> None:
    """Load `url` and wait for its first run; with `title`, check the page's h1."""
    run(page, lambda: page.goto(url))
    if title is not None:
        expect(page.locator("h1").first).to_have_text(title)


def open_menu(page, key: str) -> None:
    """Open the popover under `key` (a tokenizer picker's is "<its key>_menu")
    and wait until its body is drawn: the browser draws it only when opened."""
    open_popover(page, page.locator(f'.st-key-{key} [data-testid="stPopoverButton"]'))


def open_popover(page, button) -> None:
    """`open_menu` for a popover found by its `button` (a popover without a key)."""
    button.click()
    expect(button).to_have_attribute("aria-expanded", "true")
    expect(page.locator('[data-testid="stPopoverBody"]')).to_be_visible()


def open_options(page, box):
    """Open the option list of the select box `box` (a locator of the box or
    of its `.st-key-...` container) and wait until it is drawn; the list's locator."""
    field = box.get_by_role("combobox")
    field.click()
    expect(field).to_have_attribute("aria-expanded", "true")
    options = page.locator(f'[id="{field.get_attribute("aria-controls")}"]')
    expect(options).to_be_visible()
    return options


# Streamlit draws a list of more than 25 options virtually: only the rows near
# its view, redrawn after each scroll. Until that redraw, a row just scrolled
# into view is not where it is drawn: a press released then lands on the list
# itself, which closes the list and the popover around it, and nothing is
# chosen. Playwright's click scrolls an option into view and presses at once,
# and checks only where the press lands, not the release. So an option is
# first brought into view here, and is pressed once the list and the option
# are still and the browser finds that option under its middle, two frames running.
_OPTION_UNDER_POINTER = """([list, label]) => {
  const state = list.__choosing ??= {top: null, still: 0};
  const top = list.scrollTop, moved = state.top !== top;
  state.top = top;
  const option = [...list.querySelectorAll('[role="option"]')].find(o => o.textContent.trim().startsWith(label));
  if (!option) {  // not drawn: further down the list, or back at its top
    state.still = 0;
    list.scrollTop = top + list.clientHeight >= list.scrollHeight ? 0 : top + list.clientHeight / 2;
    return false;
  }
  const row = option.getBoundingClientRect(), view = list.getBoundingClientRect();
  if (row.top < view.top || row.bottom > view.bottom) {
    state.still = 0;
    option.scrollIntoView({block: "nearest"});
    return false;
  }
  const hit = document.elementFromPoint((row.left + row.right) / 2, (row.top + row.bottom) / 2);
  const place = `${row.left},${row.top}`, shifted = state.place !== place;  // the list itself may still be placed
  state.place = place;
  state.still = moved || shifted || hit?.closest('[role="option"]') !== option ? 0 : state.still + 1;
  return state.still >= 2;
}"""


def choose(page, box, label: str) -> None:
    """Choose the option whose label is (or starts with) `label` in the select
    box `box` (see `open_options`) with the mouse, as a user does, and wait
    for the run the choice starts. The box may be in an open popover: open
    it first (`open_menu`). The option is pressed only where it is drawn (see
    `_OPTION_UNDER_POINTER`)."""
    options = open_options(page, box)
    options.evaluate("list => { delete list.__choosing; }")
    page.wait_for_function(_OPTION_UNDER_POINTER, arg=[options.element_handle(), label], polling="raf")
    option = options.get_by_role("option").filter(has_text=re.compile("^" + re.escape(label)))
    run(page, option.click)


def menu_label(page, key: str):
    """The label of the popover button under `key` (without its arrow)."""
    return page.locator(f'.st-key-{key} [data-testid="stPopoverButton"] [data-testid="stMarkdownContainer"]')


def submit(box) -> None:
    """Send a text box's value to the app, as Ctrl+Enter (text area) or Enter does."""
    box.press("Control+Enter" if box.evaluate("element => element.tagName") == "TEXTAREA" else "Enter")


def type_into(page, box, text: str) -> None:
    """Type `text` into a text box and wait for the run that takes it."""
    box.fill(text)
    run(page, lambda: submit(box))


def screenshot(page, name: str) -> Path:
    """The whole page: Streamlit scrolls inside its main container, so the
    viewport is stretched to the content's height for the picture."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    viewport = page.viewport_size
    height = page.evaluate("document.querySelector('[data-testid=\"stMain\"]')?.scrollHeight ?? 0")
    page.set_viewport_size({"width": viewport["width"], "height": max(viewport["height"], min(height, 12_000))})
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")  # re-laid out
    page.screenshot(path=str(path))
    page.set_viewport_size(viewport)
    return path


def assert_no_exception(page) -> None:
    exceptions = page.locator('[data-testid="stException"]')
    assert exceptions.count() == 0, exceptions.first.inner_text()


# --------------------------------------------------------- saved pages


_offline_tabs = {}  # browser -> the tab `open_offline` opens saved pages in


def open_offline(browser, path: Path, query: str = "", **viewport):
    """`path` from file://, every other request refused (and recorded in
    `page.refused`), script errors and dialogs recorded. The saved pages
    take turns in one tab (see `one_tab_per_file` for why), of a browser
    session that has never seen the app."""
    page = _offline_tabs.get(browser)
    if page is None or page.is_closed():
        page = _offline_tabs[browser] = browser.new_context().new_page()
        page.set_default_timeout(WAIT_SECONDS * 1000)

        def only_files(route):
            if route.request.url.startswith("file:"):
                route.continue_()
            else:
                page.refused.append(route.request.url)
                route.abort()

        page.route("**/*", only_files)
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    page.set_viewport_size(viewport or {"width": 1440, "height": 900})
    page.refused, page.errors, page.dialogs = [], [], []
    page.goto(path.as_uri() + query)
    return page


def closed_cleanly(page) -> None:
    """Done with a page `open_offline` opened, once it asked for nothing,
    raised nothing and opened no dialog: its tab is emptied for the next."""
    assert page.refused == [] and page.errors == [] and page.dialogs == []
    page.goto("about:blank")


def run_coroutine(coroutine):
    """What `coroutine` returns, run in a thread of its own: a browser test
    before it in this process leaves Playwright's event loop running in
    this one, where `asyncio.run` refuses to start another."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, coroutine).result()
