"""The Quirks page, run headless with Streamlit's AppTest.

Until app.py lists the page, it runs here as a script of its own. Its
"Open in …" buttons then set the state and ask for a page that this lone
script does not know, so the run ends in StreamlitPageNotFoundError naming
the page it asked for. That Inspect and Compare show what a click selected
is checked through app.py, with the state the click left.
"""

import pytest
from streamlit.testing.v1 import AppTest

from bpe_core.encodings import tiktoken_encoding
from bpe_core.quirks import QUIRKS
from tests.conftest import ROOT
from tests.test_render import visible_text

PAGE = ROOT / "pages" / "quirks.py"
VIEW_STATE_KEYS = {"inspect": "inspect_tokenizer", "compare": "compare_tokenizers"}
TARGETS = {"inspect": "pages/inspect.py", "compare": "pages/compare.py"}


def open_quirks() -> AppTest:
    at = AppTest.from_file(str(PAGE), default_timeout=120)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def click_open(quirk) -> AppTest:
    """Click the quirk's button; the lone page cannot switch (see above)."""
    at = open_quirks()
    at.button(key=f"quirks_open_{quirk.id}").click().run()
    assert at.exception, "switching pages from a lone script should fail"
    assert f"Could not find page: `{TARGETS[quirk.view]}`" in at.exception[0].value
    return at


def open_app() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_app_runs():
    open_app()


def test_one_card_per_quirk_with_tiktoken_counts():
    at = open_quirks()
    cards = [visible_text(element.value) for element in at.html if "quirk-card" in element.value]
    assert len(cards) == len(QUIRKS)
    for quirk, card in zip(QUIRKS, cards):
        assert quirk.title in card
        for name in quirk.tokenizers:
            count = len(tiktoken_encoding(name).encode(quirk.text))
            assert f"{name} · {count:,} token" in card
    assert [button.label for button in at.button] == [f"Open in {quirk.view.title()}" for quirk in QUIRKS]


@pytest.mark.parametrize("quirk", QUIRKS, ids=lambda quirk: quirk.id)
def test_open_selects_the_text_and_tokenizers_and_asks_for_the_view(quirk):
    at = click_open(quirk)
    assert at.session_state["shared_text"] == quirk.text
    expected = quirk.inspect_tokenizer if quirk.view == "inspect" else list(quirk.tokenizers)
    assert at.session_state[VIEW_STATE_KEYS[quirk.view]] == expected


def carry_state(source: AppTest, target: AppTest, quirk) -> None:
    for key in ("shared_text", VIEW_STATE_KEYS[quirk.view]):
        target.session_state[key] = source.session_state[key]


def test_inspect_shows_the_glitch_token_as_one_gpt2_token():
    quirk = next(quirk for quirk in QUIRKS if quirk.id == "glitch_token")
    app = open_app()
    carry_state(click_open(quirk), app, quirk)
    app.switch_page("pages/inspect.py").run()
    assert not app.exception, [e.value for e in app.exception]
    assert app.selectbox(key="inspect_tokenizer").value == "gpt2"
    assert app.text_area(key="shared_text").value == quirk.text
    tokens = next(metric.value for metric in app.metric if metric.label == "Tokens")
    assert tokens == str(len(tiktoken_encoding("gpt2").encode(quirk.text)))


def test_compare_shows_the_emoji_in_the_quirks_tokenizers():
    quirk = next(quirk for quirk in QUIRKS if quirk.id == "emoji")
    app = open_app()
    carry_state(click_open(quirk), app, quirk)
    app.switch_page("pages/compare.py").run()
    assert not app.exception, [e.value for e in app.exception]
    assert app.multiselect(key="compare_tokenizers").value == list(quirk.tokenizers)
    assert app.text_area(key="shared_text").value == quirk.text
    table = app.dataframe[0].value
    assert dict(zip(table["tokenizer"], table["tokens"])) == {
        name: len(tiktoken_encoding(name).encode(quirk.text)) for name in quirk.tokenizers
    }
