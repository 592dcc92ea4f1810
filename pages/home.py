"""Home: a live box that shows any text as tokens, and the way to every page."""

import streamlit as st

from pages.common.menus import shown_flag
from pages.common.names import HOME, PAGES
from pages.common.navigation import page_header, page_links
from pages.common.url_state import LINKED
from pages.common.widgets import text_with_tokens, tokenizer_menu

page_header(
    "BPE playground",
    "See how byte pair encoding turns text into tokens: train a tokenizer merge by merge, "
    "colour any text by its tokens as you type, and compare your tokenizer with the real ones of "
    "GPT-2, GPT-4, GPT-4o, Whisper, Llama 3 and 4, Mistral, Qwen and Claude 1/2. Everything runs here, offline.",
)
special_note = " · special tokens" if shown_flag("home_special") else ""
with tokenizer_menu("Tokenizer", key="home_tokenizer", note=special_note) as tokenizer:
    allow_special = st.toggle(
        "Special tokens", key="home_special", help="Encode <|endoftext|> as a special token", **LINKED
    )
st.fragment(text_with_tokens)(tokenizer, allow_special=allow_special, label="Type or paste anything")

st.subheader("Pages")
page_links([page for page in PAGES if page is not HOME])
