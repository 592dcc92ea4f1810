"""Links and presenter mode in a real Chromium: a link reopens the same view
in a new session, keys step through training, the copy button copies it."""

import re
from urllib.parse import parse_qs, urlparse

import pytest

from bpe_core import train
from bpe_core.samples import catalog
from tests.browser import assert_no_exception, screenshot, wait_for_app


@pytest.fixture(scope="module")
def trace():
    """What the Train page shows for English prose, GPT-4 pattern (the merges
    do not depend on the vocabulary size, only how many there are)."""
    return train(catalog()["english_prose"].load(), vocab_size=600, pattern="cl100k",
                 special_tokens=("<|endoftext|>",)).trace


def merge_heading(page) -> str:
    return page.locator('[data-testid="stMarkdown"]').filter(has_text=re.compile(r"^Merge \d")).first.inner_text()


def test_a_link_reopens_the_same_step_and_merge(server, browser, page, trace):
    page.goto(f"{server.url}/train?train_vocab=600&train_step=7")
    wait_for_app(page)
    assert merge_heading(page).startswith(f"Merge 7 of {len(trace):,}")
    page.get_by_role("button", name="▶", exact=True).click()
    wait_for_app(page)
    assert parse_qs(urlparse(page.url).query)["train_step"] == ["8"]
    link = page.url

    other = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()  # a new session
    other.goto(link)
    wait_for_app(other)
    assert merge_heading(other).startswith(f"Merge 8 of {len(trace):,}")
    assert other.locator(".bpe-merge").first.inner_text().count(str(trace[7].new_id)) == 1
    assert_no_exception(other)
    other.context.close()


def test_a_link_carries_short_text_and_says_when_text_is_too_long(server, page):
    page.goto(f"{server.url}/inspect?text=hello%20tokens&inspect_tokenizer=gpt2")
    wait_for_app(page)
    assert page.locator("textarea").first.input_value() == "hello tokens"
    assert page.locator(".bpe-text").first.inner_text() == "hello·tokens"
    box = page.locator("textarea").first
    box.fill("long text " * 300)
    box.press("Control+Enter")
    wait_for_app(page)
    assert page.get_by_text("too long to travel in a link").is_visible()
    assert "text" not in parse_qs(urlparse(page.url).query)


def test_the_trained_tokenizer_travels_to_other_pages_links(server, browser, page):
    page.goto(f"{server.url}/train?train_vocab=400")
    wait_for_app(page)
    page.locator('[data-testid="stSidebarNav"] a').filter(has_text="Compare").click()
    wait_for_app(page)
    assert "trained" in parse_qs(urlparse(page.url).query)
    other = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    other.goto(page.url)
    wait_for_app(other)
    chosen = other.locator('[data-testid="stMultiSelect"]').first.inner_text()
    assert "trained here" in chosen  # rebuilt from the link's recipe in this new session
    assert_no_exception(other)
    other.context.close()


def test_presenter_mode_hides_chrome_and_keys_step_through_training(server, page, trace):
    page.goto(f"{server.url}/train?present=true&train_vocab=600")
    wait_for_app(page)
    assert not page.locator('[data-testid="stSidebar"]').is_visible()
    assert page.evaluate("getComputedStyle(document.documentElement).fontSize") == "22px"
    page.locator("h1").first.click()  # focus the page, not a text box
    for _ in range(3):
        page.keyboard.press("ArrowRight")
        wait_for_app(page)
    assert merge_heading(page).startswith("Merge 3 of")
    page.keyboard.press("ArrowLeft")
    wait_for_app(page)
    assert merge_heading(page).startswith("Merge 2 of")
    screenshot(page, "train-presenter")

    page.keyboard.press(" ")  # play
    page.wait_for_timeout(3_500)
    page.keyboard.press(" ")  # pause
    wait_for_app(page)
    step = int(parse_qs(urlparse(page.url).query)["train_step"][0])
    assert step >= 4, f"playing should have moved on from step 2, is at {step}"
    page.wait_for_timeout(2_000)
    assert int(parse_qs(urlparse(page.url).query)["train_step"][0]) == step  # paused
    assert_no_exception(page)


def test_copy_link_copies_the_address(server, browser):
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(f"{server.url}/inspect?inspect_tokenizer=o200k_base")
    wait_for_app(page)
    page.locator(".bpe-copy-link").click()
    page.wait_for_timeout(300)
    assert page.evaluate("navigator.clipboard.readText()") == page.url
    assert "inspect_tokenizer=o200k_base" in page.url
    context.close()


def test_upload_a_rank_file_then_download_the_view_as_slides(server, page, tmp_path):
    from bpe_core.encodings import RANK_FILES, tiktoken_encoding

    page.goto(f"{server.url}/inspect?text=Hello%20slides%2012345")
    wait_for_app(page)
    page.get_by_text("Load your own tokenizer").click()
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(RANK_FILES / "o200k_base.tiktoken.gz"))
    wait_for_app(page)
    assert page.get_by_text("Loaded “o200k_base.tiktoken.gz” and selected it.").is_visible()
    expected = len(tiktoken_encoding("o200k_base").encode("Hello slides 12345"))
    assert page.locator('[data-testid="stMetric"]').first.inner_text().endswith(str(expected))

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
