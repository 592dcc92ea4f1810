"""Views saved as one HTML file, opened from file:// in a real Chromium with
every request that is not for a file refused: the step control steps, jumps
and plays as in the app, the address keeps the step, cards open on hover,
presenter sizing fits a projector, and user text stays text. The files are
made as a user makes them: by the command line's functions, and by the
pages' "Download as a page" buttons."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from bpe_core import load_encoding, train
from bpe_core.corpora.samples import catalog
from bpe_core.drawing.standalone import replay_page, token_view_page, training_page
from tests.browser import SCREENSHOTS, closed_cleanly, new_page, open_menu, open_offline, open_page, open_popover

pytestmark = pytest.mark.browser

XSS = '<img src=x onerror="alert(1)"><script>alert(2)</script>'


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> dict[str, Path]:
    """A Train page (Alice, vocabulary 1,000), a replay and a token view, saved."""
    folder = tmp_path_factory.mktemp("saved")
    sample = catalog()["english_prose"]
    corpus = sample.load()
    tokenizer = train(corpus, vocab_size=1_000, pattern="cl100k", special_tokens=("<|endoftext|>",))
    pages = {
        "train": training_page(tokenizer, corpus, corpus_label=sample.title, opening=sample.opening_offset(corpus)),
        "replay": replay_page(load_encoding("cl100k_base"), "unbelievably"),
        "view": token_view_page(load_encoding("o200k_base"), "Tokenizers don't see words: नमस्ते 👩‍💻"),
    }
    for name, page in pages.items():
        (folder / f"{name}.html").write_text(page, encoding="utf-8")
    return {name: folder / f"{name}.html" for name in pages}


def position(page):
    return page.locator(".stp-position")


def slide_to(page, step: int) -> None:
    """Drag the slider to `step`, as a pointer does: its value, then an input event."""
    page.locator(".stp-slider").evaluate(
        "(slider, step) => { slider.value = String(step); slider.dispatchEvent(new Event('input')); }", step)


def shown_step(page) -> int:
    return int(page.locator(".stp").get_attribute("data-step"))


def test_a_saved_training_page_steps_jumps_and_plays_with_no_network(browser, saved):
    page = open_offline(browser, saved["train"])
    expect(position(page)).to_have_text("0 / 744")
    expect(page.locator(".trn-heading")).to_contain_text("Step 0")
    page.keyboard.press("ArrowRight")  # no click first
    expect(position(page)).to_have_text("1 / 744")
    expect(page.locator(".trn-heading")).to_contain_text("Merge 1 of 744")
    expect(page.locator(".trn-text .bpe-new").first).to_be_visible()  # the new token, outlined in the corpus
    expect(page.locator(".trn-pairs tbody tr")).to_have_count(10)
    expect(page.locator(".trn-vocab .bpe-chip")).to_have_count(1)
    page.keyboard.press("End")
    expect(position(page)).to_have_text("744 / 744")
    page.keyboard.press("ArrowLeft")
    expect(page.locator(".trn-heading")).to_contain_text("Merge 743 of 744")
    page.keyboard.press("Home")
    expect(position(page)).to_have_text("0 / 744")
    slide_to(page, 40)
    expect(page.locator(".trn-heading")).to_contain_text("Merge 40 of 744")
    assert "train_step=40" in page.url  # the address keeps the step
    page.get_by_role("button", name="Next step").click()
    expect(position(page)).to_have_text("41 / 744")

    page.locator(".stp-speed").select_option("16")
    page.locator(".stp-play").click()
    expect(page.locator(".stp-play")).to_have_text("⏸ Pause")
    page.wait_for_function("() => Number(document.querySelector('.stp').dataset.step) >= 44")
    page.keyboard.press(" ")  # space pauses
    expect(page.locator(".stp-play")).to_have_text("▶ Play")
    paused_at = shown_step(page)
    assert paused_at >= 44 and position(page).inner_text() == f"{paused_at} / 744"
    slide_to(page, 740)
    page.keyboard.press(" ")  # space plays, and Play stops by itself at the last merge
    expect(position(page)).to_have_text("744 / 744")
    expect(page.locator(".stp-play")).to_have_text("▶ Play")
    assert "train_speed=16" in page.url

    token = page.locator(".trn-text .bpe-tok").first  # "Alice", by the last merge
    token.hover()
    card = re.compile(rf"^id {token.get_attribute('data-id')}\nmerge \d+ of 744: .*\nbytes: 41 6C 69 63 65 .*\ntext: Alice$")
    expect(token).to_have_attribute("data-card", card)
    assert "text: Alice" in token.evaluate("el => getComputedStyle(el, '::after').content")  # the card is drawn
    closed_cleanly(page)


def test_a_saved_page_opens_at_the_step_and_speed_its_address_asks(browser, saved):
    page = open_offline(browser, saved["train"], "?train_step=300&train_speed=4")
    expect(position(page)).to_have_text("300 / 744")
    expect(page.locator(".stp-speed")).to_have_value("4")
    closed_cleanly(page)
    page = open_offline(browser, saved["train"], "?train_step=99999")
    expect(position(page)).to_have_text("744 / 744")  # kept within the run
    closed_cleanly(page)


@pytest.mark.parametrize("width, height", [(1440, 900), (1920, 1080)])
def test_presenter_sizing_fits_the_training_view_on_a_projector(browser, saved, width, height):
    page = open_offline(browser, saved["train"], "?train_step=2", width=width, height=height)
    expect(position(page)).to_have_text("2 / 744")
    normal = page.evaluate("parseFloat(getComputedStyle(document.documentElement).fontSize)")
    page.get_by_role("button", name="Presenter").click()
    expect(page.locator("html")).to_have_class("sa-presenting")
    assert "present=true" in page.url
    larger = page.evaluate("parseFloat(getComputedStyle(document.documentElement).fontSize)")
    assert larger == min(max(20, 0.0125 * width), 30) > normal
    # The text and the pairs end above the fold, scrolling inside themselves.
    page.wait_for_function(f"() => document.querySelector('.trn-text').getBoundingClientRect().bottom <= {height}")
    assert page.evaluate("document.documentElement.scrollHeight") <= height + 1
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"saved-train-presenter-{width}.png"))
    closed_cleanly(page)
    page = open_offline(browser, saved["train"], "?present=true")  # a link opens in presenter mode
    expect(page.locator("html")).to_have_class("sa-presenting")
    expect(page.get_by_role("button", name="Presenter")).to_have_attribute("aria-pressed", "true")
    closed_cleanly(page)


def test_a_saved_replay_steps_and_plays_to_its_last_merge(browser, saved):
    page = open_offline(browser, saved["replay"])
    expect(position(page)).to_have_text("0 / 9")
    page.keyboard.press("ArrowRight")
    expect(page.locator(".frm-heading")).to_contain_text("Step 1 of 9")
    expect(page.locator(".frm-table .bpe-current")).to_contain_text("step 1")
    page.keyboard.press("End")
    expect(page.locator(".frm-body")).to_contain_text("vably")
    page.keyboard.press("Home")
    page.locator(".stp-speed").select_option("16")
    page.get_by_role("button", name="▶ Play").click()
    expect(position(page)).to_have_text("9 / 9")
    expect(page.locator(".stp-play")).to_have_text("▶ Play")
    assert "replay_step=9" in page.url
    expect(page.locator(".bpe-tree")).to_contain_text("belie")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "saved-replay.png"))
    closed_cleanly(page)


def test_a_saved_token_view_has_its_cards_and_keys(browser, saved):
    page = open_offline(browser, saved["view"])
    tokens = page.locator(".bpe-text .bpe-tok")
    expect(tokens.first).to_have_text("Token")
    tokens.nth(1).hover()
    assert "token 2 · id" in tokens.nth(1).evaluate("el => getComputedStyle(el, '::after').content")
    page.locator(".bpe-text").focus()
    page.keyboard.press("ArrowRight")  # the view's keys walk from token to token
    expect(tokens.first).to_be_focused()
    page.keyboard.press("ArrowRight")
    expect(tokens.nth(1)).to_be_focused()
    page.keyboard.press("End")
    expect(page.locator(".bpe-text .bpe-tok").last).to_be_focused()
    closed_cleanly(page)


def test_user_text_in_a_saved_page_stays_text(browser, tmp_path):
    corpus = f"{XSS} and more text " * 30
    tokenizer = train(corpus, vocab_size=300, pattern="gpt2")
    files = {
        "train": training_page(tokenizer, corpus, corpus_label=XSS),
        "replay": replay_page(load_encoding("gpt2"), XSS[:40]),
        "view": token_view_page(load_encoding("gpt2"), XSS),
    }
    for name, content in files.items():
        path = tmp_path / f"{name}.html"
        path.write_text(content, encoding="utf-8")
        page = open_offline(browser, path)
        if name == "train":
            expect(page.locator(".sa-about")).to_contain_text(XSS)  # the corpus's name, as typed
            page.keyboard.press("End")
            expect(page.locator(".trn-text")).to_contain_text("onerror")
        elif name == "view":
            expect(page.locator(".bpe-text")).to_contain_text("<script>alert(2)</script>")
        else:
            expect(page.locator(".sa-about")).to_contain_text(XSS[:40])
        assert page.locator("main img, main script:not([type])").count() == 0
        closed_cleanly(page)  # no dialog opened, no script error


# ------------------------------------------------------ from the app's buttons


def downloaded(page, tmp_path: Path, name: str, menu: str | None = None) -> Path:
    """Save what the page's "Download as a page" button gives (in `menu`, if the page keeps it in one)."""
    if menu:
        open_popover(page, page.get_by_role("button", name=menu, exact=True))  # not the buttons inside it
    with page.expect_download() as download:
        page.get_by_role("button", name="Download as a page").click()
    path = tmp_path / name
    download.value.save_as(path)
    return path


def test_the_pages_download_buttons_save_files_that_run_offline(server, browser, tmp_path):
    app = new_page(browser)
    open_page(app, f"{server.url}/train", "Train")
    train_file = downloaded(app, tmp_path, "train.html", menu="Download")
    open_page(app, f"{server.url}/replay?replay_text=%20strawberry", "Encode replay")
    open_menu(app, "replay_downloads")
    replay_file = downloaded(app, tmp_path, "replay.html")
    open_page(app, f"{server.url}/inspect?text=Hello%20offline%20world", "Inspect")
    open_menu(app, "inspect_downloads")
    view_file = downloaded(app, tmp_path, "view.html")
    app.context.close()

    page = open_offline(browser, train_file)
    expect(page.locator(".sa-about")).to_contain_text("Alice")
    page.keyboard.press("ArrowRight")
    expect(page.locator(".trn-heading")).to_contain_text("Merge 1 of")
    closed_cleanly(page)
    page = open_offline(browser, replay_file)
    expect(page.locator(".sa-about")).to_contain_text("“ strawberry” encoded by cl100k_base")
    page.keyboard.press("End")
    expect(page.locator(".frm-body")).to_contain_text("strawberry")
    closed_cleanly(page)
    page = open_offline(browser, view_file)
    expect(page.locator(".sa-counts")).to_contain_text("Tokens")
    expect(page.locator(".bpe-text")).to_contain_text("offline")
    closed_cleanly(page)
