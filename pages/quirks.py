"""Quirks: ready examples of why tokenization matters, each one click from
the Inspect or Compare view.

Layout only; the examples and their live explanations come from
`bpe_core.analysis.quirks`, the cards from `bpe_core.drawing.quirks`: all of
them in one component (a browser draws one element where eleven HTML
blocks, ten boxes and ten buttons cost a visit a tenth of a second), which
tells the page which card's "Open in …" was clicked.
"""

import streamlit as st

from bpe_core.analysis.quirks import QUIRKS, Quirk
from bpe_core.drawing.quirks import QUIRK_CARDS_JS, cards_html
from pages.common.names import COMPARE, COMPARE_TOKENIZERS, INSPECT, INSPECT_TOKENIZER, SHARED_TEXT, TEXT_PARAM
from pages.common.navigation import page_header
from pages.common.tokenizers import tokenizer_by_name

CARDS_KEY = "quirks_cards"  # the cards' component: its state holds the last click on an "Open in …" button
OPENED = "quirks_opened"  # the click the page last acted on
_CARDS = st.components.v2.component("bpe_playground.quirk_cards", html='<div class="quirk-cards"></div>',
                                    js=QUIRK_CARDS_JS, isolate_styles=False)  # in the page: its links jump to cards

# view -> (its page, the key of its tokenizer picker)
VIEWS = {
    "inspect": (INSPECT, INSPECT_TOKENIZER),
    "compare": (COMPARE, COMPARE_TOKENIZERS),
}


def tokenizer_choice(quirk: Quirk) -> str | list[str]:
    """The quirk's tokenizers as its view's picker holds them: Inspect's one
    name, or Compare's list."""
    return quirk.inspect_tokenizer if quirk.view == "inspect" else list(quirk.tokenizers)


def clicked_quirk() -> Quirk | None:
    """The quirk whose "Open in …" button was clicked since the page last
    opened one, if any (read before anything of the view is drawn)."""
    state = st.session_state.get(CARDS_KEY)
    click = state.get("open") if hasattr(state, "get") else None
    if not isinstance(click, dict) or click == st.session_state.get(OPENED):
        return None
    st.session_state[OPENED] = click
    return next((quirk for quirk in QUIRKS if quirk.id == click.get("quirk")), None)


def select_for_view(quirk: Quirk) -> None:
    """Give the quirk's view its text and tokenizers, before the view's
    widgets with these keys are drawn (after that, Streamlit refuses to set
    them): this run draws none of them."""
    st.session_state[SHARED_TEXT] = quirk.text
    st.session_state[VIEWS[quirk.view][1]] = tokenizer_choice(quirk)


def open_view(quirk: Quirk) -> None:
    """Go to the quirk's view with a link that holds the same choice (a bound
    picker's link parameter is its key; the shared text's is "text"): state
    set in code does not reach the address bar, and the address is what
    "Copy link" shares."""
    page, picker = VIEWS[quirk.view]
    st.switch_page(page.file, query_params={TEXT_PARAM: quirk.text, picker: tokenizer_choice(quirk)})


page_header(
    "Quirks",
    "Small texts that show why tokenization matters. Every number below is computed now, from the "
    "tokenizers themselves. Open an example to explore it further.",
)

opened = clicked_quirk()
if opened is not None:
    select_for_view(opened)
    open_view(opened)
_CARDS(data={"html": cards_html(QUIRKS, lambda quirk: {name: tokenizer_by_name(name) for name in quirk.tokenizers})},
       key=CARDS_KEY, on_open_change=lambda: None)
