"""Links and presenter mode in a real Chromium: a link reopens the same view
in a new session, keys step through training, the copy button copies it."""

import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from bpe_core import train
from bpe_core.samples import catalog
from tests.browser import assert_no_exception, new_page, open_page, run, screenshot, type_into

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def trace():
    """What the Train page shows for English prose, GPT-4 pattern (the merges
    do not depend on the vocabulary size, only how many there are)."""
    return train(catalog()["english_prose"].load(), vocab_size=600, pattern="cl100k",
                 special_tokens=("<|endoftext|>",)).trace


def merge_heading(page):
    return page.locator('[data-testid="stMarkdown"]').filter(has_text=re.compile(r"^Merge \d")).first


def step_in_link(page) -> int:
    return int(parse_qs(urlparse(page.url).query)["train_step"][0])


def test_a_link_reopens_the_same_step_and_merge(server, browser, page, trace):
    open_page(page, f"{server.url}/train?train_vocab=600&train_step=7", "Train")
    expect(merge_heading(page)).to_contain_text(f"Merge 7 of {len(trace):,}")
    run(page, page.get_by_role("button", name="▶", exact=True).click)
    expect(page).to_have_url(re.compile(r"train_step=8"))

    other = new_page(browser)  # a new session
    open_page(other, page.url, "Train")
    expect(merge_heading(other)).to_contain_text(f"Merge 8 of {len(trace):,}")
    expect(other.locator(".bpe-merge").first).to_contain_text(str(trace[7].new_id))
    assert_no_exception(other)
    other.context.close()


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
    chosen = other.locator('[data-testid="stMultiSelect"]').first
    expect(chosen).to_contain_text("trained here")  # rebuilt from the link's recipe in this new session
    assert_no_exception(other)
    other.context.close()


def test_presenter_mode_hides_chrome_and_keys_step_through_training(server, page, trace):
    open_page(page, f"{server.url}/train?present=true&train_vocab=600", "Train")
    expect(page.locator('[data-testid="stSidebar"]')).to_be_hidden()
    page.wait_for_function("getComputedStyle(document.documentElement).fontSize === '22px'")
    page.locator("h1").first.click()  # focus the page, not a text box
    for step in range(1, 4):
        run(page, lambda: page.keyboard.press("ArrowRight"))
        expect(merge_heading(page)).to_contain_text(f"Merge {step} of")
    run(page, lambda: page.keyboard.press("ArrowLeft"))
    expect(merge_heading(page)).to_contain_text("Merge 2 of")
    run(page, lambda: page.keyboard.press("End"))
    expect(merge_heading(page)).to_contain_text(f"Merge {len(trace)} of")
    run(page, lambda: page.keyboard.press("Home"))
    expect(page.get_by_text("Step 0", exact=True)).to_be_visible()
    screenshot(page, "train-presenter")

    run(page, lambda: page.keyboard.press(" "))  # play: the step moves on by itself ...
    expect(page).to_have_url(re.compile(r"train_step=([3-9]|\d\d+)"))
    run(page, lambda: page.keyboard.press(" "))  # ... until paused
    expect(page.locator(".st-key-train_playing input")).not_to_be_checked()
    paused_at = step_in_link(page)
    run(page, page.get_by_role("button", name="▶", exact=True).click)  # stepping by hand goes on from there
    expect(page).to_have_url(re.compile(rf"train_step={paused_at + 1}(&|$)"))
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
    from bpe_core.encodings import RANK_FILES, tiktoken_encoding

    open_page(page, f"{server.url}/inspect?text=Hello%20slides%2012345", "Inspect")
    page.get_by_text("Load your own tokenizer").click()
    upload = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    run(page, lambda: upload.set_input_files(str(RANK_FILES / "o200k_base.tiktoken.gz")))
    expect(page.get_by_text("Loaded “o200k_base.tiktoken.gz” and selected it.")).to_be_visible()
    expected = len(tiktoken_encoding("o200k_base").encode("Hello slides 12345"))
    expect(page.locator('[data-testid="stMetric"]').first).to_contain_text(str(expected))

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
