"""Qwen, Whisper and Claude 1/2 in a real Chromium: Inspect colours the
text as typed under a tokenizer that normalizes it first, and Compare shows
all three side by side in presenter mode."""

import pytest
from playwright.sync_api import expect

from tests.browser import assert_no_exception, one_tab_per_file, open_page, screenshot
from tests.test_zoo_more import maker_encode

pytestmark = pytest.mark.browser
tab, page = one_tab_per_file()

TEXT = "ﬁne café (cafe\u0301) ① 日本語 <|im_end|>"


def test_inspect_colours_the_typed_text_under_a_normalizing_tokenizer(server, page):
    page.set_viewport_size({"width": 1440, "height": 900})
    open_page(page, f"{server.url}/inspect?inspect_tokenizer=claude_legacy", "Inspect")
    box = page.locator("textarea").first
    box.fill("")
    box.press_sequentially(TEXT, delay=15)
    metric = page.locator(".bpe-count").filter(has_text="Tokens").first
    expect(metric).to_contain_text(str(len(maker_encode("claude_legacy", TEXT))))  # no special token of Claude's in it
    view = page.locator(".bpe-text").first
    expect(view).to_contain_text("ﬁne")  # the text as typed, though BPE saw "fine"
    expect(view).to_contain_text("①")
    screenshot(page, "inspect-claude-legacy")
    assert_no_exception(page)


def test_compare_in_presenter_mode_shows_the_three_side_by_side(server, page):
    page.set_viewport_size({"width": 1920, "height": 1080})
    query = "&".join(f"compare_tokenizers={name}" for name in ("qwen", "whisper", "claude_legacy"))
    open_page(page, f"{server.url}/compare?present=true&{query}", "Compare")
    table = page.locator(".bpe-table").first
    for name in ("qwen", "whisper", "claude_legacy"):
        expect(table).to_contain_text(name)
    assert page.evaluate("parseFloat(getComputedStyle(document.documentElement).fontSize)") >= 20
    screenshot(page, "compare-presenter-zoo-more")
    assert_no_exception(page)
