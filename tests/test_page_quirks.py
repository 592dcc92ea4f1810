"""The Quirks page, run headless with Streamlit's AppTest, through app.py:
each card's numbers, and each "Open in …" button landing in its view."""

import pytest
from streamlit.testing.v1 import AppTest

from bpe_core.analysis.quirks import QUIRKS
from bpe_core.encodings import tiktoken_encoding
from tests.apptest import html_tables, metric, open_page, shared_box_text
from tests.test_render import visible_text

PAGE = "pages/quirks.py"
VIEW_TITLES = {"inspect": "Inspect", "compare": "Compare"}


def open_quirks() -> AppTest:
    return open_page(PAGE)


def click_open(quirk) -> AppTest:
    """Click the quirk's button: the app moves to the quirk's view."""
    at = open_quirks()
    at.button(key=f"quirks_open_{quirk.id}").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_one_card_per_quirk_with_tiktoken_counts():
    at = open_quirks()
    cards = [visible_text(element.value) for element in at.html if '<div class="quirk-card">' in element.value]
    assert len(cards) == len(QUIRKS)
    for quirk, card in zip(QUIRKS, cards):
        assert quirk.title in card
        for name in quirk.tokenizers:
            count = len(tiktoken_encoding(name).encode(quirk.text))
            assert f"{name} · {count:,} token" in card
    opens = [button.label for button in at.button if button.key != "present_switch"]  # the header's is every page's
    assert opens == [f"Open in {quirk.view.title()}" for quirk in QUIRKS]


@pytest.mark.parametrize("quirk", QUIRKS, ids=lambda quirk: quirk.id)
def test_open_lands_in_the_view_with_the_text_and_tokenizers_in_its_link(quirk):
    at = click_open(quirk)
    assert [title.value for title in at.title] == [VIEW_TITLES[quirk.view]]
    assert shared_box_text(at) == quirk.text
    assert at.query_params["text"] == quirk.text
    if quirk.view == "inspect":
        assert at.selectbox(key="inspect_tokenizer").value == quirk.inspect_tokenizer
        assert at.query_params["inspect_tokenizer"] == quirk.inspect_tokenizer
    else:
        assert at.multiselect(key="compare_tokenizers").value == list(quirk.tokenizers)
        assert at.query_params["compare_tokenizers"] == list(quirk.tokenizers)


def test_inspect_shows_the_glitch_token_as_one_gpt2_token():
    quirk = next(quirk for quirk in QUIRKS if quirk.id == "glitch_token")
    at = click_open(quirk)
    assert metric(at, "Tokens") == str(len(tiktoken_encoding("gpt2").encode(quirk.text)))


def test_compare_shows_the_emoji_in_the_quirks_tokenizers():
    quirk = next(quirk for quirk in QUIRKS if quirk.id == "emoji")
    at = click_open(quirk)
    table = html_tables(at)[0]
    assert dict(zip(table["tokenizer"], table["tokens"])) == {
        name: len(tiktoken_encoding(name).encode(quirk.text)) for name in quirk.tokenizers
    }
