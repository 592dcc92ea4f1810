"""The Vocabulary page in a real headless Chromium: its controls in popovers
whose labels follow them, and the data grid drawn only once asked for."""

import pytest
from playwright.sync_api import expect

from tests.browser import assert_no_exception, open_page, open_popover, run

pytestmark = pytest.mark.browser


def test_a_search_in_its_popover_relabels_it_and_the_grid_comes_when_opened(server, page):
    open_page(page, f"{server.url}/vocabulary?vocab_tokenizer=gpt2", "Vocabulary")
    grid = page.locator('[data-testid="stDataFrame"]')
    expect(grid).to_have_count(0)
    open_popover(page, page.get_by_role("button", name="Search: every token"))
    run(page, lambda: page.get_by_role("textbox", name="Text in the token").fill(" the"))
    expect(page.get_by_role("button", name="Search: “·the”")).to_be_visible()
    first_rows = page.locator(".bpe-table tbody tr")
    expect(first_rows.first).to_contain_text("·the")  # its space shown
    assert "vocab_text=+the" in page.url  # the link keeps the search
    page.keyboard.press("Escape")  # closes the popover
    run(page, lambda: page.get_by_text("matches in a grid").click())
    expect(grid).to_have_count(1)
    expect(page.get_by_role("button", name="Download these tokens (CSV)")).to_be_visible()
    health = page.locator(".bpe-count", has_text="Not UTF-8 alone")  # gpt2's health, shipped: no button to press
    expect(health).to_contain_text("344")
    assert_no_exception(page)
