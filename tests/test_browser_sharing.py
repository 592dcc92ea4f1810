"""Links and presenter mode in a real Chromium: a link reopens the same view
in a new session, keys step through training, the copy button copies it."""

from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from bpe_core import train
from bpe_core.corpora.samples import catalog
from tests.browser import (
    assert_no_exception,
    new_page,
    one_tab_per_file,
    open_menu,
    open_page,
    run,
    screenshot,
    type_into,
)

pytestmark = pytest.mark.browser
tab, page = one_tab_per_file()


@pytest.fixture(scope="module")
def trace():
    """What the Train page shows for English prose, GPT-4 pattern (the merges
    do not depend on the vocabulary size, only how many there are)."""
    return train(catalog()["english_prose"].load(), vocab_size=600, pattern="cl100k",
                 special_tokens=("<|endoftext|>",)).trace


def test_a_link_carries_short_text_and_says_when_text_is_too_long(server, page):
    open_page(page, f"{server.url}/inspect?text=hello%20tokens&inspect_tokenizer=gpt2", "Inspect")
    expect(page.locator("textarea").first).to_have_value("hello tokens")
    expect(page.locator(".bpe-text").first).to_have_text("hello·tokens")
    type_into(page, page.locator("textarea").first, "long text " * 300)
    expect(page.get_by_text("too long to travel in a link")).to_be_visible()
    assert "text" not in parse_qs(urlparse(page.url).query)


def test_the_trained_tokenizer_travels_to_other_pages_links(server, browser, page):
    open_page(page, f"{server.url}/train?train_vocab=400", "Train")
    run(page, page.locator('[data-testid="stSidebarNav"] a').filter(has_text="Compare").click)
    expect(page.locator("h1").first).to_have_text("Compare")
    assert "trained" in parse_qs(urlparse(page.url).query)
    other = new_page(browser)
    open_page(other, page.url, "Compare")
    open_menu(other, "compare_tokenizers_menu")
    chosen = other.locator('[data-testid="stMultiSelect"]').first
    expect(chosen).to_contain_text("Trained here — 400 tokens")  # rebuilt from the link's recipe in this new session
    assert_no_exception(other)
    other.context.close()


def root_font_px(page) -> float:
    return float(page.evaluate("getComputedStyle(document.documentElement).fontSize").removesuffix("px"))


@pytest.mark.parametrize("width, height", [(1920, 1080), (1440, 900)])
def test_presenter_mode_fits_the_train_view_above_the_fold_and_keys_step(server, page, trace, width, height):
    page.set_viewport_size({"width": width, "height": height})
    open_page(page, f"{server.url}/train?present=true&train_vocab=600", "Train")
    expect(page.locator('[data-testid="stSidebar"]')).to_be_hidden()
    page.wait_for_function("parseFloat(getComputedStyle(document.documentElement).fontSize) >= 20")
    for step in range(1, 4):
        page.keyboard.press("ArrowRight")
        expect(page.locator(".trn-heading")).to_contain_text(f"Merge {step} of")
    expect(page.locator(".trn-chips .bpe-chip")).to_have_count(3)
    # The merge, its chips and the whole corpus window are on screen, without scrolling.
    for part in (".trn-heading", ".trn-chips", ".trn-text", ".trn-pairs"):
        box = page.locator(part).bounding_box()
        assert box["y"] >= 0 and box["y"] + min(box["height"], 1) <= height, part
    text = page.locator(".trn-text").bounding_box()
    assert text["y"] + text["height"] <= height and text["height"] >= 8 * root_font_px(page)
    screenshot(page, f"train-presenter-{width}")
    assert_no_exception(page)


def test_presenter_mode_moves_between_pages_and_draws_plain_tables(server, page):
    open_page(page, f"{server.url}/compare?present=true", "Compare")
    expect(page.locator(".bpe-table").first).to_be_visible()  # scales with the type; a canvas grid would not
    expect(page.locator('[data-testid="stDataFrame"]')).to_have_count(0)
    expect(page.locator(".st-key-present_next")).to_contain_text("Algorithms →")
    run(page, lambda: page.keyboard.press("PageDown"))
    expect(page.locator("h1").first).to_have_text("Algorithms")
    run(page, lambda: page.keyboard.press("PageUp"))
    expect(page.locator("h1").first).to_have_text("Compare")
    assert root_font_px(page) >= 20
    assert_no_exception(page)


def test_copy_link_copies_the_address(server, browser):
    page = new_page(browser, permissions=["clipboard-read", "clipboard-write"])
    open_page(page, f"{server.url}/inspect?inspect_tokenizer=o200k_base", "Inspect")
    page.locator(".bpe-copy-link").click()
    expect(page.locator(".bpe-copy-link")).to_have_text("✓ Link copied")
    assert page.evaluate("navigator.clipboard.readText()") == page.url
    assert "inspect_tokenizer=o200k_base" in page.url
    page.context.close()


def test_upload_a_rank_file_then_download_the_view_as_slides(server, page, tmp_path):
    from bpe_core.vocabularies.bundled_files import BUNDLED_DIR
    from bpe_core.vocabularies.openai import tiktoken_encoding

    open_page(page, f"{server.url}/inspect?text=Hello%20slides%2012345", "Inspect")
    open_menu(page, "inspect_tokenizer_menu")
    run(page, page.get_by_text("Load your own tokenizer").click)
    upload = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    run(page, lambda: upload.set_input_files(str(BUNDLED_DIR / "o200k_base.tiktoken.gz")))
    expect(page.get_by_text("Loaded “o200k_base.tiktoken.gz” and selected it.")).to_be_visible()
    expected = len(tiktoken_encoding("o200k_base").encode("Hello slides 12345"))
    expect(page.locator(".bpe-count").filter(has_text="Tokens")).to_contain_text(str(expected))

    page.keyboard.press("Escape")  # closes the tokenizer's popover
    open_menu(page, "inspect_downloads")
    with page.expect_download() as png:
        page.get_by_role("button", name="Slide (PNG)").click()
    path = tmp_path / "tokens.png"
    png.value.save_as(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with page.expect_download() as svg:
        page.get_by_role("button", name="Slide (SVG)").click()
    drawing = (tmp_path / "tokens.svg")
    svg.value.save_as(drawing)
    assert "<svg" in drawing.read_text()[:300] and "o200k_base.tiktoken.gz" in drawing.read_text()
    assert_no_exception(page)
