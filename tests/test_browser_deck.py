"""A talk deck in a real Chromium: five permalinks across three pages walked
forward and back by the keys a clicker sends, a slide's own keys once
clicked into it, the speaker view, the deck as a link; and a deck saved as a
page playing saved pages from file:// with no network."""

from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from bpe_core import train
from bpe_core.analysis.deck import parse_deck
from bpe_core.corpora.samples import catalog
from bpe_core.drawing.standalone import deck_page, replay_page, training_page
from bpe_core.vocabularies.catalogue import load_encoding
from tests.browser import (
    SCREENSHOTS,
    assert_no_exception,
    closed_cleanly,
    menu_label,
    one_tab_per_file,
    open_menu,
    open_offline,
    open_page,
    type_into,
)

pytestmark = pytest.mark.browser
tab, page = one_tab_per_file()

TALK = """/train?train_step=0 | Bytes first | Every byte is a token of its own.
/train?train_step=40 | Forty merges | The commonest pairs are tokens now.
/replay?replay_text=%20strawberry | One word | Lowest rank first.
/inspect?text=Hello%20deck | Any text | Hover a token for its card.
/train?train_step=100 | A hundred merges | Words appear.
"""
# Slide by slide: the page's title in the frame, and the step control's counter where there is one.
SHOWN = [("Train", "0 / 744"), ("Train", "40 / 744"), ("Encode replay", None), ("Inspect", None), ("Train", "100 / 744")]


def check_slide(page, number: int) -> None:
    """The deck shows slide `number` (1 for the first), its page loaded in the frame."""
    expect(page.locator(".dk-position")).to_have_text(f"{number} / 5")
    frame = page.frame_locator(".dk-frame")
    title, counter = SHOWN[number - 1]
    expect(frame.locator("h1").first).to_have_text(title)
    if counter:
        expect(frame.locator(".stp-position")).to_have_text(counter)
    assert (f"slide={number}" in page.url) == (number > 1)  # the address keeps the slide


def test_a_deck_of_five_links_across_three_pages_is_walked_by_keys(server, page):
    page.set_viewport_size({"width": 1440, "height": 900})
    open_page(page, f"{server.url}/deck?deck={quote(TALK)}", "Deck")
    check_slide(page, 1)
    for number, key in [(2, "PageDown"), (3, "ArrowRight"), (4, "PageDown"), (5, "PageDown")]:
        page.keyboard.press(key)
        check_slide(page, number)
    page.keyboard.press("PageDown")  # past the last slide: it stays
    check_slide(page, 5)
    for number, key in [(4, "PageUp"), (3, "ArrowLeft"), (2, "PageUp")]:
        page.keyboard.press(key)
        check_slide(page, number)
    # Clicked into, the slide has its own keys; Page Down (a clicker) still moves the deck.
    frame = page.frame_locator(".dk-frame")
    frame.locator(".trn-heading").click()
    page.keyboard.press("ArrowRight")
    expect(frame.locator(".stp-position")).to_have_text("41 / 744")
    page.keyboard.press("PageDown")
    check_slide(page, 3)
    expect(frame.locator('[data-testid="stApp"]')).to_have_attribute("data-test-script-state", "notRunning")
    expect(frame.locator('[data-testid="stSidebar"]')).to_be_hidden()  # the slide is in presenter mode
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "deck-slide-3.png"))
    assert_no_exception(page)

    open_page(page, page.url, "Deck")  # the deck is a link, and opens at the slide it was on (a new session)
    check_slide(page, 3)


def test_the_slides_are_edited_in_their_menu_whose_button_counts_them(server, page):
    page.set_viewport_size({"width": 1440, "height": 900})
    open_page(page, f"{server.url}/deck?deck={quote(TALK)}", "Deck")
    expect(menu_label(page, "deck_slides")).to_have_text("Slides: 5")
    open_menu(page, "deck_slides")
    type_into(page, page.get_by_label("One slide a line: link | title | note", exact=True), "/inspect?text=Hello%20deck | Only one | A note.\n")
    expect(menu_label(page, "deck_slides")).to_have_text("Slides: 1")
    expect(page.locator(".dk-position")).to_have_text("1 / 1")
    expect(page.frame_locator(".dk-frame").locator("h1").first).to_have_text("Inspect")
    assert_no_exception(page)


def test_the_speaker_view_shows_the_note_and_moves_the_deck(server, page):
    page.set_viewport_size({"width": 1920, "height": 1080})
    open_page(page, f"{server.url}/deck?deck={quote(TALK)}&slide=2&present=true", "Deck")
    check_slide(page, 2)
    expect(page.frame_locator(".dk-frame").locator(".trn-heading")).to_contain_text("Merge 40 of 744")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "deck-presenting-1920.png"))
    with page.expect_popup() as opened:
        page.get_by_role("button", name="Speaker view").click()
    speaker = opened.value
    expect(speaker.locator(".sp-position")).to_have_text("2 / 5")
    expect(speaker.locator(".sp-note")).to_have_text("The commonest pairs are tokens now.")
    expect(speaker.locator(".sp-next")).to_have_text("Next: One word")
    speaker.keyboard.press("PageDown")  # the clicker, with the speaker view in front
    check_slide(page, 3)
    expect(speaker.locator(".sp-note")).to_have_text("Lowest rank first.")
    page.keyboard.press("End")
    expect(speaker.locator(".sp-next")).to_have_text("This is the last slide.")


def test_a_deck_saved_as_a_page_plays_saved_pages_with_no_network(browser, tmp_path):
    sample = catalog()["english_prose"]
    corpus = sample.load()
    tokenizer = train(corpus, vocab_size=1_000, pattern="cl100k", special_tokens=("<|endoftext|>",))
    (tmp_path / "train.html").write_text(training_page(tokenizer, corpus, corpus_label=sample.title), encoding="utf-8")
    (tmp_path / "replay.html").write_text(replay_page(load_encoding("cl100k_base"), "unbelievably"), encoding="utf-8")
    slides = parse_deck("train.html | Train, saved | note A\ntrain.html?train_step=40 | At forty | note B\n"
                        "replay.html | Replay, saved | note C\n")
    (tmp_path / "talk.html").write_text(deck_page(slides), encoding="utf-8")

    page = open_offline(browser, tmp_path / "talk.html")
    frame = page.frame_locator(".dk-frame")
    expect(page.locator(".dk-position")).to_have_text("1 / 3")
    expect(frame.locator(".stp-position")).to_have_text("0 / 744")
    page.keyboard.press("PageDown")
    expect(page.locator(".dk-position")).to_have_text("2 / 3")
    expect(frame.locator(".stp-position")).to_have_text("40 / 744")
    frame.locator(".trn-heading").click()  # the saved page's own keys, then the clicker's
    page.keyboard.press("ArrowRight")
    expect(frame.locator(".stp-position")).to_have_text("41 / 744")
    page.keyboard.press("PageDown")
    expect(page.locator(".dk-position")).to_have_text("3 / 3")
    expect(frame.locator(".sa-about")).to_contain_text("“unbelievably” encoded by cl100k_base")
    page.locator(".dk-title").click()  # back on the deck, its keys are the deck's again
    page.keyboard.press("Home")
    expect(page.locator(".dk-position")).to_have_text("1 / 3")
    closed_cleanly(page)

