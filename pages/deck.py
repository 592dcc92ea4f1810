"""Deck: a talk's states in order, walked with a clicker.

The speaker lists permalinks of this app, each with an optional title and
note (the format is `bpe_core.analysis.deck`'s); the deck shows one at a time in a
frame, with "3 / 12", the keys a clicker sends, and a speaker view. The deck
is in this page's link; saved as a page, it also plays pages saved as HTML.
"""

from urllib.parse import urlsplit

import streamlit as st

from bpe_core.analysis.deck import MAX_DECK_CHARS, deck_text, parse_deck
from bpe_core.drawing.deck import DECK_CSS, DECK_HTML, DECK_JS, DECK_PARAM, deck_data
from bpe_core.drawing.markdown import markdown_literal
from bpe_core.drawing.standalone import deck_page
from pages.common.names import PAGES
from pages.common.navigation import page_header
from pages.common.url_state import LINKED, initial_value

EDITOR_WIDTH = 760  # px: the slides' box in its popover, wide enough for a link, a title and a note
EXAMPLE = """# One slide a line: a link of this app | a title | a note for you
/train?train_step=0&present=true | Bytes first | Every byte starts as a token of its own.
/train?train_step=40&present=true | Forty merges in | The commonest pairs are tokens now.
/replay?replay_text=%20unbelievably&present=true | One word, merge by merge | Lowest rank first.
/inspect?text=Tokenizers%20see%20tokens&present=true | Any text as tokens | Hover a token for its card.
"""

_DECK = st.components.v2.component("bpe_playground.deck", html=DECK_HTML, css=DECK_CSS, js=DECK_JS)

page_header(
    "Deck",
    "A talk's states in order: one link of this app a line (copy it from any page), then optionally a title and "
    "a note. Page Down or → moves on, Page Up or ← back (a clicker sends these); click into a slide to use its own "
    "keys. Speaker view opens the notes in a window of their own. The deck is in this page's link.",
)


def app_slides_problem(slides) -> str | None:
    """Why a slide cannot be shown here, if one cannot: its link is no page of this app."""
    pages = {page.url_path for page in PAGES}
    for slide in slides:
        if not slide.saved_page and urlsplit(slide.link).path.strip("/") not in pages:
            names = ", ".join(sorted(f"/{path}" for path in pages))
            return f"“{slide.link}” is no page of this app (its pages: {names})."
    return None


def linked_slide() -> int:
    """The slide the link asks for (1 for the first), as an index."""
    text = st.query_params.get(DECK_PARAM, "1")
    return int(text) - 1 if text.isascii() and text.isdigit() and len(text) <= 4 else 0


def slides_summary(text: str) -> str:
    """The slides button's label: how many slides the deck has (the box's text
    is read before the box is drawn, so the button is right after an edit)."""
    try:
        count = len(parse_deck(text))
    except ValueError:
        return "Slides: cannot be read"
    return f"Slides: {count}"


def downloads(slides) -> None:
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(st.context.url)) if st.context.url else "http://localhost:8501"
    row = st.popover("Download: deck file, page", key="deck_downloads")  # drawn by the browser only when opened
    row.download_button("Deck file", deck_text(slides), "talk.deck", "text/plain", key="deck_file",
                        on_click="ignore",
                        help="`python -m bpe_core html deck talk.deck -o talk.html` saves it as a page")
    row.download_button("Deck as a page", lambda: deck_page(slides, app_address=origin), "talk.html", "text/html",
                        key="deck_page", on_click="ignore",
                        help=f"One HTML file: put pages saved as HTML beside it; the app's slides come from {origin}.")


def load_deck_file() -> None:
    """A deck file replaces the slides (before the text box is drawn); a file that is no text is refused."""
    uploaded = st.session_state.get("deck_upload")
    if uploaded is None:
        return
    try:
        st.session_state["deck"] = uploaded.getvalue().decode("utf-8")[:MAX_DECK_CHARS + 1]
    except UnicodeDecodeError:
        st.session_state["deck_upload_error"] = f"“{uploaded.name}” is not UTF-8 text: a deck file is one slide a line."


# The slides' box and the downloads in popovers whose buttons say what they hold:
# the browser draws a popover's widgets only when it is opened (a text box costs
# a page's load a tenth of a second or more), and the slide is the page's content.
toolbar = st.container(horizontal=True)
with toolbar.popover(slides_summary(initial_value("deck", EXAMPLE)), key="deck_slides"):
    text = st.text_area("One slide a line: link | title | note", value=EXAMPLE, key="deck", height=220,
                        max_chars=MAX_DECK_CHARS, width=EDITOR_WIDTH, **LINKED)
    # Drawn only while open: an uploader's code is a good part of a page's load.
    with st.expander("Open a deck file", key="deck_upload_open", on_change="rerun") as upload:
        if upload.open:
            st.file_uploader("A .deck file: one slide a line", type=["deck", "txt"], key="deck_upload",
                             on_change=load_deck_file, max_upload_size=1)
            if "deck_upload_error" in st.session_state:
                st.error(markdown_literal(st.session_state.pop("deck_upload_error")))
try:
    slides = parse_deck(text)
except ValueError as error:
    st.error(markdown_literal(f"Cannot present this deck: {error}"))
else:
    problem = app_slides_problem(slides)
    if problem:
        st.error(markdown_literal(problem))
    else:
        if any(slide.saved_page for slide in slides):
            st.info("Pages saved as HTML play when the deck is saved as a page (Download, above), beside them.")
        with toolbar:
            downloads(slides)
        _DECK(data=deck_data(slides, slide=linked_slide(), app_address=None), key="deck_presenter")
