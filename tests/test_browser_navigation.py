"""Leaving a page while its fragments still report, in a real Chromium on a
busy machine: the next page is reached every time.

Train's step control tells the server the step once the presenter pauses
(a fragment rerun), and a live text box sends its text after a pause in
typing or when it loses focus (likewise). A visitor who clicks another page
just then must land on that page, drawn, not back on the page they left
nor on a blank one (Streamlit: "Couldn't find fragment with id ... because
a full app rerun happened"). The renderer is paused at random meanwhile
(`renderers_paused_at_random`), which is what puts a report after the click
that leaves its page."""

import random

import pytest
from playwright.sync_api import expect

from tests.browser import assert_no_exception, new_page, open_page, renderers_paused_at_random, run

pytestmark = pytest.mark.browser

LOST = "Couldn't find fragment with id"
ROUNDS = 4


def go_to(page, title: str, heading: str | None = None) -> None:
    """Click the sidebar's link to the page titled `title` and wait until it
    is drawn there, under its `heading` (the title unless given)."""
    link = page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True)
    run(page, link.click)
    expect(page.locator("h1").first).to_have_text(heading or title)
    expect(page.locator('[data-testid="stCaptionContainer"]').first).to_be_visible()  # the page's intro: not blank


def step_on(page, chance) -> None:
    """Train: step, and leave about when the control tells the server (600 ms after the last key)."""
    for _ in range(chance.randint(1, 3)):
        page.keyboard.press("ArrowRight")
    page.wait_for_timeout(chance.uniform(300, 900))


def type_in(box: str):
    """Type into the live text box under `box`, and leave about when it sends
    its text (after a pause of 250 ms, or on losing focus as the link is clicked)."""

    def typing(page, chance) -> None:
        page.locator(f".st-key-{box} textarea").press_sequentially(f" {chance.randint(0, 99)}")
        page.wait_for_timeout(chance.uniform(0, 400))

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
    log_before = server.log.read_text().count(LOST)
    chance = random.Random(35)
    open_page(page, f"{server.url}/train", "Train")
    expect(page.locator(".trn-heading")).to_contain_text("Step 0")
    with renderers_paused_at_random(seed=35):
        for _ in range(ROUNDS):
            for here, (_, _, report) in enumerate(TOUR):
                report(page, chance)
                title, heading, _ = TOUR[(here + 1) % len(TOUR)]
                go_to(page, title, heading)
    assert_no_exception(page)
    assert server.log.read_text().count(LOST) == log_before, "a fragment's report outlived its page"
    page.context.close()
