"""The app in a real headless Chromium: every page renders, a link opened
first after a start lands inside the app, and markup typed by a user stays
text (in every text box of every page: test_browser_security.py's payload).
(Stepping through training: test_browser_stepping.py.)"""

import pytest
from playwright.sync_api import expect
from streamlit.proto.BackMsg_pb2 import BackMsg

from pages.common.names import PAGES as PAGE_INFO
from tests.browser import (
    StreamlitServer,
    assert_no_exception,
    finishes_a_run,
    new_page,
    one_tab_per_file,
    open_page,
    run,
    screenshot,
    type_into,
)
from tests.test_browser_security import assert_nothing_interpreted, recorded, type_payloads_into_every_text_box

pytestmark = pytest.mark.browser
tab, page = one_tab_per_file()

PAGES = {(page.url_path or "home"): page for page in PAGE_INFO}
XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script><b id="injected">bold</b>'


def title_of(name: str) -> str:
    return "BPE playground" if name == "home" else PAGES[name].title


@pytest.mark.parametrize("name", PAGES)
def test_every_page_renders_once_and_what_is_typed_into_it_is_shown_as_text(server, page, name):
    requests = recorded(page)
    runs = count_runs(page)
    open_page(page, f"{server.url}/{PAGES[name].url_path}", title_of(name))
    assert_no_exception(page)
    # One run per load: no widget or component asks for another as it appears (each would double the wait).
    assert runs() == (1, 1)
    # No data grid (a tenth of a second or more to load and draw: the big tables open on demand) and
    # no syntax highlighter for a text not on show.
    expect(page.locator('[data-testid="stDataFrame"]')).to_have_count(0)
    expect(page.locator('[data-testid="stCode"]')).to_have_count(0)
    screenshot(page, name)
    type_payloads_into_every_text_box(page)  # hostile input: shown as text, nothing run, nothing fetched
    assert_nothing_interpreted(page, requests)


def count_runs(page):
    """A function that says how many script runs the page has asked the
    server for, and how many the server has finished, on its own
    connection: the first it opens (the Deck's slides are pages of the app
    in frames, each a session of its own, whose runs may finish meanwhile)."""
    asked, finished, counted = [], [], []

    def on_sent(payload) -> None:
        if isinstance(payload, bytes):
            message = BackMsg()
            message.ParseFromString(payload)
            if message.WhichOneof("type") == "rerun_script":
                asked.append(message)

    def on_received(payload) -> None:
        if finishes_a_run(payload):
            finished.append(payload)

    def on_websocket(websocket) -> None:
        if not counted:
            counted.append(websocket)
            websocket.on("framesent", on_sent)
            websocket.on("framereceived", on_received)

    page.on("websocket", on_websocket)
    return lambda: (len(asked), len(finished))


@pytest.mark.parametrize("name", ["home", "inspect", "compare"])
def test_markup_typed_into_the_text_box_is_shown_as_text(server, page, name):
    open_page(page, f"{server.url}/{PAGES[name].url_path}", title_of(name))
    type_into(page, page.locator("textarea").first, XSS)
    view = page.locator(".cmp" if name == "compare" else ".bpe-text").first
    expect(view).to_contain_text("<script>")  # Compare draws each character in a box of its own ...
    shown = view.inner_text().replace("\n", "")  # ... so its text comes with line breaks
    assert "<img" in shown and "<script>" in shown
    assert page.evaluate("window.__xss") is None
    assert page.locator("#injected").count() == 0
    assert page.locator('img[src="x"]').count() == 0
    assert page.dialogs == []
    assert_no_exception(page)


@pytest.mark.slow
@pytest.mark.parametrize(
    "path, title, shows",
    [  # a page's settings read from its query (two values of one), and a step handed to the step control;
        # a fresh server's first request for Home, the app's own script, is test_offline.py's first visit
        ("compare?compare_tokenizers=gpt2&compare_tokenizers=o200k_base", "Compare", "o200k_base"),
        ("train?train_vocab=600&train_step=7", "Train", "Merge 7 of"),
    ],
)
def test_a_link_opened_first_after_a_start_lands_where_it_points_inside_the_app(browser, path, title, shows):
    """Streamlit's older pages/ mode runs a linked page alone for the very
    first request after a start; the page must still open inside app.py
    (its navigation, its wide layout), with the link's settings."""
    fresh = StreamlitServer()
    try:
        page = new_page(browser)
        open_page(page, f"{fresh.url}/{path}", title)
        expect(page.locator('[data-testid="stMain"]').get_by_text(shows).first).to_be_visible()
        navigation = page.locator('[data-testid="stSidebarNav"]')
        expect(navigation).to_contain_text("Tokenization tax")  # app.py's titles, not file names
        assert "home" not in navigation.inner_text()
        width = page.evaluate("document.querySelector('[data-testid=stMainBlockContainer]').offsetWidth")
        assert width > 1000  # app.py's wide layout
        assert_no_exception(page)
        page.context.close()
    finally:
        fresh.stop()


def test_quirk_buttons_open_inspect_with_the_example(server, page):
    open_page(page, f"{server.url}/quirks", "Quirks")
    run(page, page.locator(".quirk-open[data-quirk=glitch_token]").click)
    expect(page.locator("h1").first).to_have_text("Inspect")
    assert "SolidGoldMagikarp" in page.locator("textarea").first.input_value()
    assert "inspect_tokenizer=gpt2" in page.url
    assert_no_exception(page)
