"""The Quirks page, run headless with Streamlit's AppTest, through app.py:
each card's numbers, and each "Open in …" button landing in its view."""

import re

import pytest
from streamlit.testing.v1 import AppTest

from bpe_core.analysis.quirks import QUIRKS
from bpe_core.vocabularies.openai import tiktoken_encoding
from tests.apptest import component_data, html_tables, metric, open_page, shared_box_text
from tests.test_render import visible_text

PAGE = "pages/quirks.py"
VIEW_TITLES = {"inspect": "Inspect", "compare": "Compare"}


def open_quirks() -> AppTest:
    return open_page(PAGE)


CARDS = "bpe_playground.quirk_cards"


def cards_html(at: AppTest) -> str:
    """The HTML of every card, as the page gives it to the cards' component."""
    return component_data(at, CARDS)["html"]


def click_open(quirk, at: AppTest | None = None, at_time: int = 1) -> AppTest:
    """Click the quirk's button: the cards' component tells the page which
    (and when), and the app moves to the quirk's view."""
    at = at or open_quirks()
    at.session_state["quirks_cards"] = {"open": {"quirk": quirk.id, "at": at_time}}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_one_card_per_quirk_with_tiktoken_counts():
    at = open_quirks()
    markup = cards_html(at)
    cards = [visible_text(card) for card in markup.split('<div class="quirk-card">')[1:]]
    assert len(cards) == len(QUIRKS)
    for quirk, card in zip(QUIRKS, cards):
        assert quirk.title in card
        for name in quirk.tokenizers:
            count = len(tiktoken_encoding(name).encode(quirk.text))
            assert f"{name} · {count:,} token" in card
    opens = re.findall(r'<button type="button" class="quirk-open" data-quirk="([^"]+)">([^<]+)</button>', markup)
    assert opens == [(quirk.id, f"Open in {quirk.view.title()}") for quirk in QUIRKS]  # one per card, after it
    assert [button.key for button in at.button] == ["present_switch"]  # the header's, every page's


def test_a_quirk_opens_again_after_a_visit_back_and_over_the_views_own_choice():
    """The component keeps the last click in its state: a visit back to
    Quirks must not reopen it, a new click on the same card must; and the
    quirk's tokenizer wins over the one the view had."""
    glitch = next(quirk for quirk in QUIRKS if quirk.id == "glitch_token")
    at = click_open(glitch)
    at.selectbox(key="inspect_tokenizer").set_value("o200k_base").run()
    at.switch_page(PAGE).run()
    assert [title.value for title in at.title] == ["Quirks"]  # the old click does not reopen Inspect
    click_open(glitch, at, at_time=2)
    assert [title.value for title in at.title] == ["Inspect"]
    assert at.selectbox(key="inspect_tokenizer").value == glitch.inspect_tokenizer == "gpt2"
    assert shared_box_text(at) == glitch.text


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
