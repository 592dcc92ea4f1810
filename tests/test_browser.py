"""The app in a real headless Chromium: every page renders, training steps
respond to clicks, and markup typed by a user stays text."""

import pytest

from bpe_core import train
from bpe_core.samples import catalog
from tests.browser import StreamlitServer, assert_no_exception, screenshot, wait_for_app

PAGES = {
    "home": "",
    "train": "train",
    "inspect": "inspect",
    "compression": "compression",
    "compare": "compare",
    "tax": "tax",
    "replay": "replay",
    "quirks": "quirks",
    "vocabulary": "vocabulary",
}
XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script><b id="injected">bold</b>'


@pytest.mark.parametrize("name", PAGES)
def test_every_page_renders_without_an_exception(server, page, name):
    page.goto(f"{server.url}/{PAGES[name]}")
    wait_for_app(page)
    assert_no_exception(page)
    assert page.locator("h1").count() >= 1
    screenshot(page, name)


def test_clicking_next_steps_through_the_merges(server, page):
    trace = train(catalog()["english_prose"].load(), vocab_size=1_000, pattern="cl100k",
                  special_tokens=("<|endoftext|>",)).trace
    page.goto(f"{server.url}/train")
    wait_for_app(page)
    next_button = page.get_by_role("button", name="▶", exact=True)
    for _ in range(3):
        next_button.click()
        wait_for_app(page)
    assert page.get_by_text(f"Merge 3 of {len(trace):,}").is_visible()
    assert page.locator(".bpe-merge").first.inner_text().count(str(trace[2].new_id)) == 1
    screenshot(page, "train-step-3")
    assert_no_exception(page)


@pytest.mark.parametrize("name", ["home", "inspect", "compare"])
def test_markup_typed_into_the_text_box_is_shown_as_text(server, page, name):
    page.goto(f"{server.url}/{PAGES[name]}")
    wait_for_app(page)
    box = page.locator("textarea").first
    box.fill(XSS)
    box.press("Control+Enter")
    wait_for_app(page)
    assert page.evaluate("window.__xss") is None
    assert page.locator("#injected").count() == 0
    assert page.locator('img[src="x"]').count() == 0
    assert page.dialogs == []
    view = page.locator(".cmp" if name == "compare" else ".bpe-text").first
    shown = view.inner_text().replace("\n", "")  # Compare draws each character in a box of its own
    assert "<img" in shown and "<script>" in shown
    assert_no_exception(page)


@pytest.mark.parametrize("path, title", [("compare", "Compare"), ("inspect?text=hi", "Inspect")])
def test_a_direct_link_opened_first_after_a_start_is_routed_through_app(browser, path, title):
    """Streamlit's legacy pages/ mode would run the page alone (no wide
    layout, every file in the sidebar) for the very first request."""
    fresh = StreamlitServer()
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{fresh.url}/{path}")
        wait_for_app(page)
        navigation = page.locator('[data-testid="stSidebarNav"]').inner_text()
        assert "Tokenization tax" in navigation and "shared" not in navigation.lower()
        assert page.locator("h1").first.inner_text() == title
        width = page.evaluate("document.querySelector('[data-testid=stMainBlockContainer]').offsetWidth")
        assert width > 1000  # app.py's wide layout
        page.close()
    finally:
        fresh.stop()


def test_quirk_buttons_open_inspect_with_the_example(server, page):
    page.goto(f"{server.url}/quirks")
    wait_for_app(page)
    page.locator(".st-key-quirks_open_glitch_token button").click()
    wait_for_app(page)
    assert page.locator("h1").first.inner_text() == "Inspect"
    assert "SolidGoldMagikarp" in page.locator("textarea").first.input_value()
    assert "inspect_tokenizer=gpt2" in page.url
    assert_no_exception(page)
