"""Quirks: ready examples of why tokenization matters, each one click from
the Inspect or Compare view.

Layout only; the examples, their live explanations and the cards come from
`bpe_core.quirks`.
"""

import streamlit as st

from bpe_core.analysis.quirks import QUIRKS, Quirk
from bpe_core.drawing.quirks import CARDS_CSS, card_html, contents_html
from pages.common.names import COMPARE, COMPARE_TOKENIZERS, INSPECT, INSPECT_TOKENIZER, SHARED_TEXT, TEXT_PARAM
from pages.common.navigation import page_header
from pages.common.tokenizers import tokenizer_by_name

# view -> (its page, the key of its tokenizer picker)
VIEWS = {
    "inspect": (INSPECT, INSPECT_TOKENIZER),
    "compare": (COMPARE, COMPARE_TOKENIZERS),
}


def tokenizer_choice(quirk: Quirk) -> str | list[str]:
    """The quirk's tokenizers as its view's picker holds them: Inspect's one
    name, or Compare's list."""
    return quirk.inspect_tokenizer if quirk.view == "inspect" else list(quirk.tokenizers)


def select_for_view(quirk: Quirk) -> None:
    """The button's callback: give the quirk's view its text and tokenizers.
    Callbacks run before any page script, so the state is in place before
    the view's widgets with these keys are drawn (after that, Streamlit
    refuses to set it)."""
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

st.html(CARDS_CSS + contents_html(QUIRKS))  # the cards' style once: the page's HTML shares it
for quirk in QUIRKS:
    with st.container(border=True):
        st.html(card_html(quirk, {name: tokenizer_by_name(name) for name in quirk.tokenizers}, styled=False))
        if st.button(
            f"Open in {quirk.view.title()}", key=f"quirks_open_{quirk.id}", type="primary",
            on_click=select_for_view, args=(quirk,),
        ):
            open_view(quirk)
