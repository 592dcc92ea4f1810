"""Inspect: any text, coloured by the tokens of any tokenizer."""

import streamlit as st

from bpe_core.drawing.markdown import markdown_literal
from bpe_core.drawing.slides import tokens_png, tokens_svg
from bpe_core.drawing.standalone import token_view_page
from bpe_core.engine.token_ids import parse_token_ids
from pages.common.menus import shown_flag
from pages.common.names import INSPECT_TOKENIZER
from pages.common.navigation import page_header
from pages.common.url_state import LINKED, initial_value
from pages.common.widgets import text_with_tokens, tokenizer_menu, tokenizer_upload

page_header(
    "Inspect",
    "Every token is a coloured span; hover, click or Tab to a token for its card: id, bytes, rank and the two "
    "tokens it was merged from. Spaces show as ·, tabs as →, line breaks as ↵, and a character whose bytes "
    "tokens share is drawn once, over a bar of those tokens.",
)

COLOURS = {"position": "colour by position", "id": "colour by id"}


def view_summary() -> str:
    """The view's options in a few words, for the button that opens them (drawn before them)."""
    colour = initial_value("inspect_colour", "position")
    ids = ", token ids" if shown_flag("inspect_ids") else ""
    return f"View: {COLOURS.get(colour, COLOURS['position'])}{ids}"


# The controls in popovers, whose buttons say what is chosen: a closed popover's widgets
# are not drawn by the browser (each widget type costs a page's load a tenth of a second or more).
toolbar = st.container(horizontal=True)
with toolbar:
    special_note = " · special tokens" if shown_flag("inspect_special") else ""
    with tokenizer_menu("Tokenizer", key=INSPECT_TOKENIZER, note=special_note) as tokenizer:
        allow_special = st.toggle("Special tokens", key="inspect_special", **LINKED,
                                  help="Encode text such as <|endoftext|> as the special token")
        # Drawn only while open: an uploader's code is a good part of a page's load.
        with st.expander("Load your own tokenizer", key="inspect_upload_open", on_change="rerun") as upload:
            if upload.open:
                tokenizer_upload("inspect_upload", picker_key=INSPECT_TOKENIZER)
    with st.popover(view_summary(), key="inspect_view_menu"):
        colour_by = st.segmented_control(
            "Colour by", list(COLOURS), key="inspect_colour", default="position", required=True,
            **LINKED, help="By id, the same token always has the same colour.",
        )
        show_ids = st.toggle("Show token ids", key="inspect_ids", **LINKED)
    # Drawn only while open, like the uploader: a text box is a widget type of its own.
    decode = st.popover("Decode token ids", key="inspect_decode_open", on_change="rerun")


@st.fragment  # typing reruns the view, not the page
def token_view(tokenizer, allow_special: bool, show_ids: bool, colour_by: str) -> None:
    text, spans = text_with_tokens(
        tokenizer, allow_special=allow_special, show_ids=show_ids, colour_by=colour_by, height=200
    )
    slide = dict(special_ids=set(tokenizer.special_tokens.values()), show_ids=show_ids, colour_by=colour_by,
                 title=f"{tokenizer.name} · {len(spans):,} tokens")
    row = st.popover("Download: slide, page", key="inspect_downloads")  # drawn by the browser only when opened
    row.download_button("Slide (PNG)", lambda: tokens_png(text, spans, **slide), "tokens.png", "image/png",
                        key="inspect_png", on_click="ignore", help="This token view as a picture, for slides")
    row.download_button("Slide (SVG)", lambda: tokens_svg(text, spans, **slide), "tokens.svg", "image/svg+xml",
                        key="inspect_svg", on_click="ignore", help="This token view as a scalable drawing")
    row.download_button("Download as a page", lambda: token_view_page(tokenizer, text, allow_special=allow_special,
                                                                      show_ids=show_ids, colour_by=colour_by),
                        "tokens.html", "text/html", key="inspect_page", on_click="ignore",
                        help="This token view, with its cards, as one HTML file: no server, no network")


token_view(tokenizer, allow_special, show_ids, colour_by)

with decode:
    typed = st.text_input("Ids, separated by spaces or commas", key="inspect_decode", value="",
                          persist_state="session") if decode.open else ""
    if typed.strip():
        try:
            st.code(tokenizer.decode(parse_token_ids(typed)), language=None)
        except ValueError as error:  # not numbers, or not ids of this tokenizer (whose name may be a file's)
            st.error(markdown_literal(str(error)))
