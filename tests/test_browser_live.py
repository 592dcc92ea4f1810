"""Token views in a real Chromium: they follow the text as it is typed, a
token never wraps inside itself, and right-to-left text keeps its order."""

import pytest
from playwright.sync_api import expect

from bpe_core.vocabularies.openai import tiktoken_encoding
from tests.browser import ROOT, assert_no_exception, one_tab_per_file, open_page, screenshot

pytestmark = pytest.mark.browser
tab, page = one_tab_per_file()

# Every token that the browser laid out on more than one line, though it
# holds no line break of its own.
WRAPPED_TOKENS = """view => [...view.querySelectorAll('.bpe-tok:not(.bpe-part)')]
  .filter(token => !token.textContent.includes('\\n') && token.getClientRects().length > 1)
  .map(token => token.textContent)"""


def tokens_metric(page):
    return page.locator(".bpe-count").filter(has_text="Tokens").first


@pytest.mark.parametrize("path, title", [("", "BPE playground"), ("inspect", "Inspect")])
def test_the_count_and_colours_follow_the_text_as_it_is_typed(server, page, path, title):
    open_page(page, f"{server.url}/{path}", title)
    box = page.locator("textarea").first
    box.fill("")
    box.press_sequentially("Hello world, tokens as you type", delay=20)  # no Ctrl+Enter, no leaving the box
    expected = len(tiktoken_encoding("cl100k_base").encode("Hello world, tokens as you type"))
    expect(tokens_metric(page)).to_contain_text(str(expected))
    expect(page.locator(".bpe-text").first).to_have_text("Hello·world,·tokens·as·you·type")
    expect(box).to_be_focused()  # the box was never redrawn under the typist ...
    box.press_sequentially(" more", delay=20)
    expect(box).to_have_value("Hello world, tokens as you type more")  # ... and nothing typed was lost
    expected = len(tiktoken_encoding("cl100k_base").encode("Hello world, tokens as you type more"))
    expect(tokens_metric(page)).to_contain_text(str(expected))
    assert_no_exception(page)


def test_compare_follows_the_text_as_it_is_typed(server, page):
    open_page(page, f"{server.url}/compare?compare_tokenizers=gpt2&compare_tokenizers=o200k_base", "Compare")
    box = page.locator("textarea").first
    box.fill("")
    box.press_sequentially("naïve café", delay=20)
    table = page.locator(".bpe-table").first
    expect(table).to_be_visible()
    expect(page.locator(".cmp").first).to_contain_text("f")
    assert_no_exception(page)


def test_no_token_wraps_inside_itself(server, page):
    page.set_viewport_size({"width": 700, "height": 1000})  # narrow: many lines
    text = ("Alice was beginning to get very tired of sitting by her sister on the bank. " * 3
            + "東京都の天気は晴れです。 " * 4 + "👩‍💻👍🏽🇯🇵 " * 6 + "x" * 300 + " unbelievably " * 8)
    open_page(page, f"{server.url}/inspect", "Inspect")
    box = page.locator("textarea").first
    box.fill(text)
    expect(tokens_metric(page)).to_contain_text(f"{len(tiktoken_encoding('cl100k_base').encode(text)):,}")
    view = page.locator(".bpe-text").first
    assert view.evaluate(WRAPPED_TOKENS) == []
    lines = view.evaluate("view => new Set([...view.querySelectorAll('.bpe-tok')].map(t => t.getClientRects()[0]?.top)).size")
    assert lines > 5  # the text did wrap, between tokens
    screenshot(page, "inspect-narrow")


def test_right_to_left_text_reads_right_to_left_token_by_token(server, page):
    open_page(page, f"{server.url}/inspect", "Inspect")
    page.locator("textarea").first.fill("مرحبا بالعالم")
    view = page.locator(".bpe-text").first
    expect(view.locator(".bpe-rtl")).to_have_count(1)
    # Within the run, each next token in the text lies to the left of the one before it.
    lefts = view.evaluate("view => [...view.querySelectorAll('.bpe-rtl > .bpe-tok')].map(t => t.getBoundingClientRect().left)")
    assert len(lefts) >= 3 and lefts == sorted(lefts, reverse=True)
    screenshot(page, "inspect-arabic")


def test_the_quirks_page_jumps_to_a_quirk(server, page):
    open_page(page, f"{server.url}/quirks", "Quirks")
    heading = page.locator("h3", has_text="Python indentation")
    assert heading.evaluate("h => h.getBoundingClientRect().top") > page.viewport_size["height"]  # far down the page
    page.locator(".quirk-jump", has_text="Python indentation").click()
    expect(heading).to_be_in_viewport()


# The box's module, run on its own: a mount element like Streamlit's, and a
# `draw(value)` that calls the module as Streamlit does when a run draws the box.
MOUNT_LIVE_TEXT = """async code => {
  const module = await import(URL.createObjectURL(new Blob([code], {type: "text/javascript"})));
  const mount = document.createElement("div");
  mount.innerHTML = '<label></label><textarea></textarea>';
  document.body.append(mount);
  window.sent = [];
  window.box = mount.querySelector("textarea");
  window.draw = value => module.default({
    data: {label: "Text", value, height: 100, placeholder: ""},
    parentElement: mount,
    setStateValue: (name, text) => window.sent.push(text),
  });
}"""


def test_a_late_run_never_takes_back_what_was_typed_since(chromium):
    """On a busy server the run for an earlier pause in typing can draw the
    box after a later pause was sent: that echo must not replace the box's
    text (typed letters were lost this way at load 20-40). Text the page
    sets itself (a quirk opened, another page's text) still replaces it."""
    page = chromium.new_page()
    try:
        page.evaluate(MOUNT_LIVE_TEXT, (ROOT / "pages" / "common" / "live_text.js").read_text())
        page.evaluate("draw('')")
        for typed in ("Hello", "Hello world", "Hello world, tokens"):
            page.evaluate("text => { box.value = text; box.onblur(); }", typed)  # a pause sends it
        assert page.evaluate("sent") == ["Hello", "Hello world", "Hello world, tokens"]
        page.evaluate("draw('Hello')")  # the first pause's run, drawn late
        assert page.evaluate("box.value") == "Hello world, tokens"
        page.evaluate("draw('Hello world, tokens')")  # the last one's
        assert page.evaluate("box.value") == "Hello world, tokens"
        page.evaluate("draw('ﬁ ligature')")  # the page's own text
        assert page.evaluate("box.value") == "ﬁ ligature"
        page.evaluate("box.onblur()")  # nothing typed since: nothing sent
        assert page.evaluate("sent.length") == 3
    finally:
        page.close()
