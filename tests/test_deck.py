"""A talk deck's text (bpe_core.analysis.deck), its data for the browser and its saved
page (bpe_core.drawing.deck), and the Deck page's messages."""

import json
import re

import pytest

from bpe_core.analysis.deck import MAX_DECK_CHARS, Slide, deck_text, parse_deck
from bpe_core.drawing.deck import deck_data
from bpe_core.drawing.standalone import deck_page
from tests.apptest import messages, open_page, popover_labels

DECK = """# a talk
http://localhost:8501/train?train_step=40&present=true | Forty merges | Say: pairs became tokens.

/replay?replay_text=%20strawberry | Replay
train.html?train_step=3
  replay.html | Saved | a note | with a bar
"""


def test_a_deck_is_one_slide_a_line_with_optional_title_and_note():
    assert parse_deck(DECK) == [
        Slide("/train?train_step=40&present=true", "Forty merges", "Say: pairs became tokens."),
        Slide("/replay?replay_text=%20strawberry", "Replay"),
        Slide("train.html?train_step=3"),
        Slide("replay.html", "Saved", "a note | with a bar"),
    ]
    assert parse_deck(deck_text(parse_deck(DECK))) == parse_deck(DECK)  # a deck file round-trips


@pytest.mark.parametrize("link", [
    "javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,<script>alert(1)</script>", "//evil.example/x",
    "file:///etc/passwd", "../secret.html", "talk.deck", "ftp://host/train",
    # What a browser resolves to another site: a backslash is a slash to it, and it drops tabs and line breaks.
    "/\\evil.example", "/\t/evil.example", "http://localhost:8501/\\evil.example", "http://localhost:8501//evil.example",
])
def test_only_app_links_and_saved_pages_may_be_slides(link):
    with pytest.raises(ValueError, match="line 2: .* is not a link of this app"):
        parse_deck(f"/train\n{link} | title")


@pytest.mark.parametrize("text, message", [
    ("# only a comment\n\n", "no slides"),
    ("/train\n" * 201, "up to 200"),
    ("/train | " + "x" * MAX_DECK_CHARS, f"up to {MAX_DECK_CHARS:,}"),
])
def test_an_empty_or_huge_deck_is_explained(text, message):
    with pytest.raises(ValueError, match=message):
        parse_deck(text)


def test_the_browser_gets_each_slides_address_where_it_can_be_shown():
    slides = parse_deck(DECK)
    served = deck_data(slides, slide=9, app_address=None)
    assert [slide["src"] for slide in served["slides"]] == [  # in presenter mode unless a link says otherwise
        "/train?train_step=40&present=true", "/replay?replay_text=%20strawberry&present=true",
        None, None]  # a served page shows no file
    assert served["slide"] == 3  # kept within the deck
    assert deck_data([Slide("/inspect?present=false")], slide=0, app_address=None)["slides"][0]["src"] == (
        "/inspect?present=false")
    saved = deck_data(slides, slide=0, app_address="http://127.0.0.1:8600")
    assert [slide["src"] for slide in saved["slides"]] == [
        "http://127.0.0.1:8600/train?train_step=40&present=true",
        "http://127.0.0.1:8600/replay?replay_text=%20strawberry&present=true",
        "train.html?train_step=3", "replay.html"]


def test_a_saved_deck_frames_only_its_files_and_the_app_and_keeps_notes_as_text():
    slides = [Slide("/train", '<img src=x onerror="alert(1)">', "</script><script>alert(2)</script>")]
    page = deck_page(slides, app_address="http://localhost:8600")
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)[1]
    assert "default-src 'none'" in policy and "frame-src 'self' file: http://localhost:8600" in policy
    assert "<img" not in page and "<script>alert" not in page
    data = json.loads(re.search(r'id="sa-settings">(.*?)</script>', page, flags=re.S)[1])
    assert data["slides"][0]["title"] == '<img src=x onerror="alert(1)">'  # shown with textContent, as text
    with pytest.raises(ValueError, match="like http://localhost:8501"):
        deck_page(slides, app_address="javascript:alert(1)")


def deck_buttons(at) -> list[str]:
    """The labels of the Deck page's own popover buttons: its slides' and its downloads'."""
    return [label for label in popover_labels(at) if label.startswith(("Slides:", "Download:"))]


@pytest.mark.slow
def test_the_deck_page_explains_a_bad_deck():
    at = open_page("pages/deck.py")
    assert not at.error and "Deck file" in {button.proto.label for button in at.download_button}
    at.text_area(key="deck").set_value("/train | ok\njavascript:alert(1) | bad").run()
    assert any("line 2: 'javascript:alert(1)' is not a link of this app" in m for m in messages(at.error))
    assert deck_buttons(at) == ["Slides: cannot be read"]  # and nothing to download
    at.text_area(key="deck").set_value("/nowhere?x=1 | lost").run()
    assert any("“/nowhere?x=1” is no page of this app" in m for m in messages(at.error))
    assert not at.exception


@pytest.mark.slow
def test_the_deck_page_opens_a_deck_file():
    at = open_page("pages/deck.py")
    assert not at.get("file_uploader")  # drawn only while its expander is open
    at.session_state["deck_upload_open"] = True  # what a click on the expander tells the page
    at.run()
    at.file_uploader(key="deck_upload").upload("talk.deck", b"/inspect?text=hi | One | a note\n", "text/plain").run()
    assert at.text_area(key="deck").value == "/inspect?text=hi | One | a note\n"
    assert at.query_params["deck"] == "/inspect?text=hi | One | a note\n"  # the deck is in the link
    assert deck_buttons(at)[0] == "Slides: 1"
    at.file_uploader(key="deck_upload").upload("bad.deck", b"\xff\xfe", "text/plain").run()
    assert any("“bad.deck” is not UTF-8 text" in m for m in messages(at.error))


@pytest.mark.slow
def test_the_deck_pages_buttons_say_how_many_slides_it_has():
    at = open_page("pages/deck.py")
    assert deck_buttons(at) == ["Slides: 4", "Download: deck file, page"]  # the example deck
    at.text_area(key="deck").set_value("/train | One\n/inspect | Two\n/replay\n").run()
    assert deck_buttons(at) == ["Slides: 3", "Download: deck file, page"]
    at = open_page("pages/deck.py", query={"deck": "/train | One\n/inspect | Two\n"})  # a deck's link
    assert deck_buttons(at) == ["Slides: 2", "Download: deck file, page"]
    assert at.text_area(key="deck").value == "/train | One\n/inspect | Two\n"
