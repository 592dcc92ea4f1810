"""The Algorithms page in a real Chromium, at 1440×900 and on a projector
(presenter mode, 1920×1080): choose the algorithms, train them at a small
size in the worker, step through Picky BPE's training (its removals are
steps of their own), and present it."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser import assert_no_exception, choose, new_page, open_page, open_popover, run, screenshot

pytestmark = pytest.mark.browser

SMALL = "algorithms_vocab=400&algorithms_transition=300&algorithms_chosen=bpe&algorithms_chosen=superbpe"


def table_rows(page):
    """The algorithms the measures' table lists, in order."""
    return page.locator(".bpe-table").first.locator("tbody tr td:first-child")


def slide_back_to(page, words: str) -> None:
    """Drag the step control's slider back, a step at a time from the step
    shown, until the step's heading says `words` (all in the browser: the
    steps are held there, so each is drawn at once, with no run to wait for)."""
    found = page.locator(".stp-slider").evaluate("""(slider, words) => {
        const heading = slider.getRootNode().querySelector(".trn-heading");
        for (let step = Number(slider.value); step >= 0; step--) {
            slider.value = String(step);
            slider.dispatchEvent(new Event("input"));
            if (heading.textContent.includes(words)) return true;
        }
        return false;
    }""", words)
    assert found, f"no step says {words!r}"


def slide_to(page, step: int) -> None:
    """Drag the step control's slider to `step` (as a drag does: its value, then an input event)."""
    page.locator(".stp-slider").evaluate(
        "(slider, step) => { slider.value = String(step); slider.dispatchEvent(new Event('input')); }", step)


def test_choose_train_step_and_present(server, browser):
    page = new_page(browser, viewport={"width": 1440, "height": 900})
    open_page(page, f"{server.url}/algorithms?{SMALL}", "Algorithms")  # trained here: not the shipped size
    expect(table_rows(page)).to_have_text(["BPE", "SuperBPE"])
    expect(page.get_by_text("SuperBPE: ", exact=False).first).to_be_visible()  # its superwords

    open_popover(page, page.locator('[data-testid="stPopoverButton"]').filter(has_text="Algorithms:"))
    choose(page, page.locator(".st-key-algorithms_chosen"), "Picky BPE")  # trained in the worker, then shown
    expect(table_rows(page)).to_have_text(["BPE", "SuperBPE", "Picky BPE"])
    expect(page.get_by_text(re.compile(r"Picky BPE removed \d+ tokens? while training"))).to_be_visible()
    page.keyboard.press("Escape")

    run(page, lambda: page.get_by_text("Step through a training").click())
    heading = page.locator(".trn-heading")
    expect(heading).to_contain_text("Step 0")  # SuperBPE's training first
    page.keyboard.press("End")  # stepped in the browser
    expect(heading).to_contain_text("(stage 2: superwords)")
    first_of_stage_2 = 300 - 256 + 1
    slide_to(page, first_of_stage_2 + 1)
    expect(heading).to_contain_text(f"Merge {first_of_stage_2 + 1} of")
    expect(heading).not_to_contain_text("the transition")
    page.keyboard.press("ArrowLeft")
    expect(heading).to_contain_text(f"Merge {first_of_stage_2} of")  # the first merge of stage 2 ...
    expect(heading).to_contain_text("the transition")  # ... says so

    run(page, lambda: page.locator(".st-key-algorithms_stepped_choices").get_by_role("button", name="Picky BPE", exact=True).click())
    expect(heading).to_contain_text("Step 0")
    page.keyboard.press("End")
    expect(heading).to_contain_text(re.compile(r"Step ([\d,]+) of \1"))
    expect(page.locator(".trn-metric b").nth(3)).to_have_text("400")  # the vocabulary: merges less removals
    slide_back_to(page, "removed")  # the last removal: a step of its own, told in words
    expect(heading).to_contain_text(re.compile(r"removed — [\d.]+ of its uses were inside"))
    screenshot(page, "algorithms-picky-removal-1440")

    page.set_viewport_size({"width": 1920, "height": 1080})
    run(page, lambda: page.get_by_role("button", name="Presenter").click())
    expect(page.locator(".st-key-present_next")).to_contain_text("Chat prompts →")
    expect(table_rows(page)).to_have_text(["BPE", "SuperBPE", "Picky BPE"])
    expect(page.locator('[data-testid="stDataFrame"]')).to_have_count(0)  # tables a room can read
    screenshot(page, "algorithms-presenter-1920")
    assert "present=true" in page.url and "algorithms_chosen=picky" in page.url
    assert_no_exception(page)
    page.context.close()


def test_a_bad_threshold_is_one_line_and_the_others_are_shown(server, page):
    open_page(page, f"{server.url}/algorithms?algorithms_threshold=0", "Algorithms")
    expect(page.locator('[data-testid="stAlert"]').filter(has_text="Picky BPE is left out")).to_have_count(1)
    expect(table_rows(page)).to_have_text(["BPE", "SuperBPE", "BoundlessBPE", "WordPiece", "Unigram"])
    assert_no_exception(page)
