"""The Tax page's fairness lab in a real Chromium: its choices sit in
popovers whose labels say what is chosen, before and after a change, and a
link reopens the same view. (The atlas: test_browser_atlas.py.)"""

from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from tests.browser import assert_no_exception, choose, new_page, open_menu, open_page

pytestmark = pytest.mark.browser


def test_the_base_language_is_chosen_in_a_popover_that_says_it_and_a_link_reopens_it(server, browser, page):
    open_page(page, f"{server.url}/tax?tax_tokenizers=gpt2", "Tokenization tax")
    expect(page.get_by_text("English = 1.00×")).to_be_visible()
    expect(page.locator(".bpe-count", has_text="Gini · gpt2")).to_be_visible()
    expect(page.locator('[data-testid="stDataFrame"]')).to_have_count(0)  # a plain table: no data grid to load
    expect(page.get_by_role("button", name="Base language: English")).to_be_visible()
    open_menu(page, "tax_base_choice")  # its selectbox is drawn once opened
    choose(page, page.locator(".st-key-tax_base"), "Hindi — हिन्दी")
    expect(page.get_by_role("button", name="Base language: Hindi")).to_be_visible()
    expect(page.get_by_text("Hindi = 1.00×")).to_be_visible()
    assert parse_qs(urlparse(page.url).query)["tax_base"] == ["hi"]
    other = new_page(browser)
    open_page(other, page.url, "Tokenization tax")
    expect(other.get_by_role("button", name="Base language: Hindi")).to_be_visible()
    expect(other.get_by_text("Hindi = 1.00×")).to_be_visible()
    assert_no_exception(other)
    other.context.close()
