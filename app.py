"""BPE playground: the entry point (navigation) and the home page.

Run with `streamlit run app.py`. Every page works offline on bundled text.
"""

import streamlit as st

from pages._shared import page_header, pick_tokenizer, run_pages, text_with_tokens
from pages._sharing import LINKED

st.set_page_config(page_title="BPE playground", page_icon="🧩", layout="wide")


def home() -> None:
    page_header(
        "BPE playground",
        "See how byte pair encoding turns text into tokens: train a tokenizer merge by merge, "
        "colour any text by its tokens, and compare your tokenizer with GPT-2, GPT-4 and GPT-4o's. "
        "Everything runs here, offline.",
    )
    text_column, settings = st.columns([3, 1])
    with settings:
        tokenizer = pick_tokenizer("Tokenizer", key="home_tokenizer")
        allow_special = st.toggle(
            "Special tokens", key="home_special", help="Encode <|endoftext|> as a special token", **LINKED
        )
    with text_column:
        text_with_tokens(tokenizer, allow_special=allow_special, label="Type or paste anything")

    st.subheader("Pages")
    for page in PAGES[1:]:
        st.page_link(page, label=f"**{page.title}** — {DESCRIPTIONS[page.title]}")


DESCRIPTIONS = {
    "Train": "step through BPE training merge by merge, on a sample or your own text",
    "Inspect": "colour token boundaries of any text, with ids, bytes and counts",
    "Compression": "how bytes per token grow with the vocabulary, per corpus",
    "Compare": "one text through several tokenizers, side by side",
    "Tokenization tax": "what the same content costs in tokens in 30 languages, and why",
    "Encode replay": "watch the merges build a word's tokens one by one, and any token's merge tree",
    "Quirks": "ready examples of why tokenization matters, one click into Inspect or Compare",
    "Vocabulary": "browse and search every token: by text, regex, id, script and the step it was learned",
}

PAGES = [
    st.Page(home, title="Home", icon="🧩", default=True),
    st.Page("pages/train.py", title="Train", icon="🏋️", url_path="train"),
    st.Page("pages/inspect.py", title="Inspect", icon="🔍", url_path="inspect"),
    st.Page("pages/compression.py", title="Compression", icon="📉", url_path="compression"),
    st.Page("pages/compare.py", title="Compare", icon="⚖️", url_path="compare"),
    st.Page("pages/tax.py", title="Tokenization tax", icon="🌍", url_path="tax"),
    st.Page("pages/replay.py", title="Encode replay", icon="🎬", url_path="replay"),
    st.Page("pages/quirks.py", title="Quirks", icon="🍓", url_path="quirks"),
    st.Page("pages/vocabulary.py", title="Vocabulary", icon="📖", url_path="vocabulary"),
]

run_pages(PAGES)
