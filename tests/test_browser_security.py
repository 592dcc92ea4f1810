"""Hostile input in a real Chromium: typed into every text box of every page
(on test_browser.py's visit of every page, with the helpers here), and as an
upload's file name, it is shown as text; nothing runs, nothing is injected,
nothing is fetched from elsewhere. Sessions stay apart, and uploads never
reach the disk."""

import re
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

from bpe_core import train
from bpe_core.formats import tokenizer_to_json
from tests.browser import (
    assert_no_exception,
    menu_label,
    new_page,
    one_tab_per_file,
    open_menu,
    open_options,
    open_page,
    run,
    type_into,
)
from tests.conftest import ROOT

pytestmark = pytest.mark.browser
tab, page = one_tab_per_file()

PAYLOAD = (
    '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script><b id="injected">b</b>'
    " ![p](http://evil.example/p.png) [l](javascript:window.__xss=3) :red[r] $x$ **strong**"
)
LOCAL = {"127.0.0.1", "localhost"}


def recorded(page) -> list[str]:
    """Start recording the page's requests; returns the live list."""
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    return requests


def assert_nothing_interpreted(page, requests) -> None:
    assert page.evaluate("window.__xss") is None
    assert page.locator("#injected").count() == 0
    assert page.locator('img[src="x"], img[src*="evil.example"]').count() == 0
    assert page.locator('a[href^="javascript"]').count() == 0
    assert page.dialogs == []
    outside = [url for url in requests if urlparse(url).hostname not in LOCAL and urlparse(url).scheme in ("http", "https")]
    assert outside == []
    assert_no_exception(page)


def type_payloads_into_every_text_box(page) -> None:
    """Type `PAYLOAD` into every text box the page shows (test_browser.py's
    visit of every page does, then checks `assert_nothing_interpreted`)."""
    boxes = page.locator('[data-testid="stMain"] textarea, [data-testid="stMain"] input[type="text"]:not([role="combobox"])')
    for index in range(boxes.count()):
        box = boxes.nth(index)
        if not box.is_visible() or not box.is_editable():
            continue
        type_into(page, box, PAYLOAD)
        expect(box).to_have_value(PAYLOAD)  # kept by the run that took it


def test_a_hostile_file_name_is_shown_literally(server, page):
    requests = recorded(page)
    open_page(page, f"{server.url}/inspect", "Inspect")
    open_menu(page, "inspect_tokenizer_menu")
    run(page, page.get_by_text("Load your own tokenizer").click)
    name = "![p](http://evil.example/p.png)<img src=x onerror=window.__xss=4>:red[x].json"
    run(page, lambda: page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        {"name": name, "mimeType": "application/json", "buffer": b'{"model": {"type": "WordPiece"}}'}
    ))
    expect(page.locator('[data-testid="stAlertContentError"]').first).to_contain_text(name)
    assert_nothing_interpreted(page, requests)


def files_under(root: Path) -> set[str]:
    skipped = {".git", "artifacts", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache"}
    return {str(path) for path in root.rglob("*") if not skipped & set(path.relative_to(root).parts)}


def test_sessions_do_not_see_each_others_text_or_tokenizers_and_uploads_stay_off_disk(server, browser, tmp_path):
    before = files_under(ROOT)
    alice = new_page(browser)
    open_page(alice, f"{server.url}/inspect", "Inspect")
    open_menu(alice, "inspect_tokenizer_menu")
    run(alice, alice.get_by_text("Load your own tokenizer").click)
    secret = train("private words, private words", num_merges=4, pattern="gpt2")
    run(alice, lambda: alice.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        {"name": "alices-secret.json", "mimeType": "application/json", "buffer": tokenizer_to_json(secret).encode()}
    ))
    expect(alice.get_by_role("combobox", name="Tokenizer")).to_have_value(re.compile("^Loaded from alices-secret.json"))
    expect(menu_label(alice, "inspect_tokenizer_menu")).to_contain_text("alices-secret.json")
    type_into(alice, alice.locator("textarea").first, "alice's secret text")
    expect(alice.locator(".bpe-text").first).to_contain_text("alice's·secret·text")

    bob = new_page(browser)
    open_page(bob, f"{server.url}/inspect", "Inspect")
    open_menu(bob, "inspect_tokenizer_menu")
    options = open_options(bob, bob.locator('[data-testid="stSelectbox"]').first).get_by_role("option").all_inner_texts()
    assert options and not any("alices-secret" in option for option in options)
    assert "secret" not in bob.locator("textarea").first.input_value()
    alice.context.close()
    bob.context.close()
    assert files_under(ROOT) == before
