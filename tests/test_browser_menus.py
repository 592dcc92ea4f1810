"""The controls every page shares, in a real Chromium: a tokenizer picker
sits in a popover the browser draws only when it is opened, and its button
follows the choice; the presenter button switches presenter mode on and off,
with the mouse or the keyboard, and the link and the session's other pages
follow."""

from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from bpe_core import train
from bpe_core.formats import tokenizer_to_json
from tests.browser import assert_no_exception, choose, menu_label, one_tab_per_file, open_menu, open_page, run

pytestmark = pytest.mark.browser
tab, page = one_tab_per_file()


def query(page) -> dict:
    return parse_qs(urlparse(page.url).query)


def root_font_px(page) -> float:
    return float(page.evaluate("getComputedStyle(document.documentElement).fontSize").removesuffix("px"))


def test_a_picker_opens_in_its_popover_and_its_button_follows_the_choice_and_an_upload(server, page):
    open_page(page, f"{server.url}/inspect", "Inspect")
    button = menu_label(page, "inspect_tokenizer_menu")
    expect(button).to_have_text("Tokenizer: GPT-4 (cl100k_base)")
    expect(page.locator('[data-testid="stSelectbox"]')).to_have_count(0)  # not drawn until opened
    open_menu(page, "inspect_tokenizer_menu")
    choose(page, page.locator('[data-testid="stSelectbox"]').first, "o200k_base —")
    expect(button).to_have_text("Tokenizer: GPT-4o (o200k_base)")
    assert query(page)["inspect_tokenizer"] == ["o200k_base"]

    run(page, page.get_by_text("Load your own tokenizer").click)  # the popover stays open while it is used
    name = "*mine*_[x](http://e.x):red[y].json"
    saved = train("hello hello world", num_merges=5, pattern="gpt2")
    run(page, lambda: page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        {"name": name, "mimeType": "application/json", "buffer": tokenizer_to_json(saved).encode()}))
    expect(button).to_have_text(f"Tokenizer: {name} ({len(saved.vocab):,} tokens)")  # selected, shown literally
    assert_no_exception(page)


def test_the_presenter_button_switches_presenter_mode_by_mouse_and_by_keyboard(server, page):
    open_page(page, f"{server.url}/inspect", "Inspect")
    normal = root_font_px(page)
    switch = page.locator(".st-key-present_switch button").first
    run(page, switch.click)
    expect(page.locator('[data-testid="stSidebar"]')).to_be_hidden()
    expect(page.locator('.st-key-present_switch [data-testid="stBaseButton-primary"]').first).to_be_visible()  # pressed
    assert root_font_px(page) > normal and query(page)["present"] == ["true"]

    run(page, lambda: page.keyboard.press("PageDown"))  # the next page presents too
    expect(page.locator("h1").first).to_have_text("Compression")
    assert root_font_px(page) > normal and query(page)["present"] == ["true"]

    switch.focus()
    run(page, lambda: page.keyboard.press("Enter"))
    expect(page.locator('[data-testid="stSidebar"]')).to_be_visible()
    expect(page.locator('.st-key-present_switch [data-testid="stBaseButton-secondary"]').first).to_be_visible()
    assert root_font_px(page) == normal and "present" not in query(page)
    assert_no_exception(page)
