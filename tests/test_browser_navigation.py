"""Leaving a page while its fragments still report, in a real Chromium: the
next page is reached every time.

Train's step control tells the server the step once the presenter pauses
(a fragment rerun), and a live text box sends its text after a pause in
typing or when it loses focus (likewise). A visitor who clicks another page
just then must land on that page, drawn, not back on the page they left
nor on a blank one (Streamlit: "Couldn't find fragment with id ... because
a full app rerun happened"). On a busy machine the report reaches the
server after the click that leaves its page; here that order is made
every time, not left to chance: the tab's websocket is routed through the
test (`ReportsHeldBack`), which holds each report back and sends it right
after the browser's request for the next page."""

import random
import re
import time

import pytest
from playwright.sync_api import expect
from streamlit.proto.BackMsg_pb2 import BackMsg

from tests.browser import WAIT_SECONDS, assert_no_exception, new_page, open_page, run

pytestmark = pytest.mark.browser

LOST = "Couldn't find fragment with id"


def rerun_asked(payload) -> str | None:
    """What a message the browser sends asks for: "report" (a fragment's
    rerun), "page" (a whole run: a link clicked, a widget changed) or None."""
    if not isinstance(payload, bytes):
        return None
    message = BackMsg()
    message.ParseFromString(payload)
    if message.WhichOneof("type") != "rerun_script":
        return None
    return "report" if message.rerun_script.fragment_id else "page"


class ReportsHeldBack:
    """The tab's websocket to Streamlit, through the test: while `holding`,
    the fragments' reports are kept back (in `held`) until the browser asks
    for a whole run, and sent right after it, as a busy browser's late
    reports reach the server. Every other message passes as it is, and the
    runs Streamlit finishes are counted for `tests.browser.run`."""

    def __init__(self, page):
        self.page, self.held, self.holding = page, [], False
        page.route_web_socket(re.compile(r"/_stcore/stream$"), self._route)

    def _route(self, socket) -> None:
        server = socket.connect_to_server()

        def to_server(payload) -> None:
            asked = rerun_asked(payload) if self.holding else None
            if asked == "report":
                self.held.append(payload)
                return
            server.send(payload)
            if asked == "page":
                for report in self.held:
                    server.send(report)
                self.holding = False

        socket.on_message(to_server)  # the server's messages reach the browser as they are (and `run` counts them)

    def hold_a_report(self, report, *arguments) -> None:
        """Do `report(*arguments)` (what makes the page report) and wait until
        the browser has sent a report, held back."""
        self.held, self.holding = [], True
        report(*arguments)
        deadline = time.monotonic() + WAIT_SECONDS
        while not self.held:
            assert time.monotonic() < deadline, f"the page sent no report within {WAIT_SECONDS} s"
            self.page.wait_for_timeout(20)  # lets Playwright deliver the websocket's messages


def go_to(page, title: str, heading: str | None = None) -> None:
    """Click the sidebar's link to the page titled `title` and wait until it
    is drawn there, under its `heading` (the title unless given)."""
    link = page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True)
    run(page, link.click)
    expect(page.locator("h1").first).to_have_text(heading or title)
    expect(page.locator('[data-testid="stCaptionContainer"]').first).to_be_visible()  # the page's intro: not blank


def step_on(page, chance) -> None:
    """Train: step; the control tells the server 600 ms after the last key."""
    for _ in range(chance.randint(1, 3)):
        page.keyboard.press("ArrowRight")


def type_in(box: str):
    """Type into the live text box under `box`; it sends its text after a pause of 250 ms."""

    def typing(page, chance) -> None:
        page.locator(f".st-key-{box} textarea").press_sequentially(f" {chance.randint(0, 99)}")

    return typing


# Each page, what it reports as it is left, and where the visitor goes next (Home's heading is the app's name).
TOUR = [
    ("Train", "Train", step_on),  # the step control's fragment
    ("Inspect", "Inspect", type_in("shared_text_box")),  # the live text box's fragment
    ("Home", "BPE playground", type_in("shared_text_box")),
    ("Train", "Train", type_in("train_try_box")),  # the try-it box, in the step control's fragment
]


def test_leaving_a_page_while_its_fragments_report_reaches_the_next_page_every_time(server, browser):
    page = new_page(browser, viewport={"width": 1400, "height": 1000})
    reports = ReportsHeldBack(page)
    log_before = server.log.read_text().count(LOST)
    chance = random.Random(35)
    open_page(page, f"{server.url}/train", "Train")
    expect(page.locator(".trn-heading")).to_contain_text("Step 0")
    for here, (_, _, report) in enumerate(TOUR):
        reports.hold_a_report(report, page, chance)
        title, heading, _ = TOUR[(here + 1) % len(TOUR)]
        go_to(page, title, heading)
        assert reports.held and not reports.holding  # the report was sent, after the request for this page
    assert_no_exception(page)
    assert server.log.read_text().count(LOST) == log_before, "a fragment's report outlived its page"
    page.context.close()
