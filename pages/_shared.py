"""Streamlit pieces every page uses: the session's tokenizers, pickers,
capped text input, uploads and the token view.

Pages import this module; it is not a page itself (st.navigation in app.py
lists the pages). All engine work is in `bpe_core`; this module only turns
it into widgets and keeps what a user expects to survive a page change in
`st.session_state`.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass

import streamlit as st

from bpe_core import Tokenizer, train
from bpe_core.encodings import load_encoding
from bpe_core.loaders import tokenizer_from_file
from bpe_core.patterns import PRESETS, PatternError
from bpe_core.render import markdown_literal, token_html
from bpe_core.samples import catalog
from bpe_core.serialization import TokenizerFileError
from bpe_core.specials import found_in
from pages._sharing import (
    LINK_TEXT_LIMIT,
    LINKED,
    initial_value,
    link_text,
    link_value,
    linked_text,
    linked_value,
    sharing_controls,
)

OPENAI_ENCODINGS = {
    "gpt2": "gpt2 — GPT-2 / GPT-3 (50k)",
    "cl100k_base": "cl100k_base — GPT-3.5 / GPT-4 (100k)",
    "o200k_base": "o200k_base — GPT-4o (200k)",
}
TRAINED = "trained here"  # picker name of the tokenizer from the Train page
STARTER = "starter"  # picker name of the small tokenizer trained on a sample at start
LOADED = "loaded: "  # picker-name prefix of tokenizers loaded from files

MAX_TEXT_CHARS = 200_000  # typed or pasted text on the inspect/compare pages
MAX_UPLOAD_BYTES = 10_000_000  # uploaded corpora
MAX_RENDERED_TOKENS = 6_000  # beyond this the token view shows a prefix
MAX_LOADED_TOKENIZERS = 4  # tokenizers from files kept per session (a vocabulary can take 100s of MB)

DEMO_TEXT = (
    "Tokenizers don't see words, they see tokens: “unbelievably” vs. ‘unbelievable’!\n"
    "    def add(a, b):\n        return a + b  # 12345 + 67890 = 80235\n"
    "नमस्ते दुनिया · こんにちは世界 · 👩‍💻👍🏽"
)


@dataclass(frozen=True)
class Recipe:
    """What makes a trained tokenizer (training is deterministic), small
    enough for a link: a bundled sample or a short text, and the settings."""

    sample: str | None
    text: str | None
    vocab_size: int
    pattern: str
    units: str
    special_tokens: tuple[str, ...]

    def corpus(self) -> str | dict[str, int]:
        return catalog()[self.sample].load() if self.sample else self.text

    def label(self) -> str:
        return catalog()[self.sample].title if self.sample else f"pasted text ({len(self.text):,} characters)"

    def as_link(self) -> list:
        return [self.sample, self.text, self.vocab_size, self.pattern, self.units, list(self.special_tokens)]

    @classmethod
    def from_link(cls, value) -> "Recipe | None":
        """The recipe a link carries, or None when it is damaged or unknown."""
        try:
            sample, text, vocab_size, pattern, units, specials = value
            recipe = cls(sample, text, int(vocab_size), str(pattern), str(units), tuple(map(str, specials)))
        except (TypeError, ValueError):
            return None
        from_sample = isinstance(sample, str) and sample in catalog() and text is None
        from_text = sample is None and isinstance(text, str) and 0 < len(text) <= LINK_TEXT_LIMIT
        return recipe if from_sample or from_text else None


@dataclass
class TrainedTokenizer:
    """The Train page's result, kept in the session for the other pages."""

    tokenizer: Tokenizer
    corpus: str | dict[str, int]  # what it was trained on
    corpus_label: str  # the same, in a few words for captions
    recipe: Recipe | None = None  # None when a link cannot rebuild it (an upload, long text)


def page_header(title: str, intro: str, *, carries_trained: bool = True) -> None:
    """Title, intro, presenter toggle and copy-link button; and the link kept
    in step with the session's trained tokenizer (`carries_trained`), so a
    copied link rebuilds it."""
    route_through_app()
    restore_trained_from_link()
    title_column, tools = st.columns([4, 2], vertical_alignment="bottom")
    title_column.title(title)
    with tools:
        sharing_controls()
    st.caption(intro)
    if carries_trained:
        trained = session_trained()
        link_value("trained", trained.recipe.as_link() if trained and trained.recipe else None)


_routing = threading.local()  # each session's script runs in a thread of its own


def run_pages(pages: list) -> None:
    """Run the chosen page through st.navigation (app.py calls this), marking
    the run so that the page knows app.py is routing it."""
    _routing.active = True
    try:
        st.navigation(pages).run()
    finally:
        _routing.active = False


def route_through_app() -> None:
    """Make sure app.py, not this page alone, handles the request.

    While a folder named pages/ exists, Streamlit starts in its old multipage
    mode and switches to app.py's st.navigation only once some session has
    run app.py. A link straight to a page, opened first after a server start,
    would run the page script alone: no wide layout, a sidebar listing every
    file. Switching the mode and rerunning lets app.py route that request."""
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory and not getattr(_routing, "active", False):
        PagesManager.uses_pages_directory = False
        st.rerun()


@st.cache_resource(show_spinner="Loading the vocabulary…")
def bundled_encoding(name: str) -> Tokenizer:
    return load_encoding(name)


@st.cache_resource(show_spinner="Training a small tokenizer on the English sample…")
def starter_tokenizer() -> Tokenizer:
    """A tokenizer trained here at start-up, so every page has one to show."""
    return train(catalog()["english_prose"].load(), vocab_size=1_000, pattern="cl100k")


@st.cache_resource(max_entries=8, show_spinner=False)
def train_cached(digest: str, _corpus, vocab_size: int, pattern: str, units: str, special_tokens: tuple):
    """Train once per corpus and settings; every session with the same inputs
    shares the result (the corpus is keyed by its digest, never by itself)."""
    bar = st.progress(0.0, text="Training…")
    tokenizer = train(
        _corpus, vocab_size=vocab_size, pattern=pattern, units=units, special_tokens=special_tokens,
        progress=lambda done, total: bar.progress(done / max(total, 1), text=f"Training… {done:,} / {total:,} merges"),
    )
    bar.empty()
    return tokenizer


def train_from_recipe(recipe: Recipe) -> TrainedTokenizer:
    corpus = recipe.corpus()
    tokenizer = train_cached(
        corpus_digest(corpus), corpus, recipe.vocab_size, recipe.pattern, recipe.units, recipe.special_tokens
    )
    return TrainedTokenizer(tokenizer, corpus, recipe.label(), recipe)


def restore_trained_from_link() -> None:
    """A link made while a trained tokenizer was in use carries its recipe;
    opened in a session that does not have that tokenizer, train it again."""
    recipe = Recipe.from_link(linked_value("trained"))
    trained = session_trained()
    if recipe is None or (trained is not None and trained.recipe == recipe):
        return
    try:
        st.session_state["trained"] = train_from_recipe(recipe)
    except ValueError as error:
        st.warning(f"The link's trained tokenizer could not be rebuilt: {markdown_literal(str(error))}")


def corpus_digest(corpus: str | dict[str, int]) -> str:
    """A short fingerprint of a corpus: caches are keyed on it, not on the
    text, so a large corpus is not hashed by Streamlit at every rerun."""
    data = "text:" + corpus if isinstance(corpus, str) else "counts:" + json.dumps(corpus, sort_keys=True)
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()


def session_trained() -> TrainedTokenizer | None:
    return st.session_state.get("trained")


def loaded_tokenizers() -> dict[str, Tokenizer]:
    """Tokenizers this session loaded from files, by file name."""
    return st.session_state.setdefault("loaded_tokenizers", {})


def tokenizer_choices() -> dict[str, str]:
    """Picker name -> label, the session's own tokenizers first."""
    choices = {}
    trained = session_trained()
    if trained is not None:
        choices[TRAINED] = f"Trained here — {trained.corpus_label}"
    for file_name in loaded_tokenizers():
        choices[LOADED + file_name] = f"Loaded — {file_name}"
    choices[STARTER] = "Starter — trained on Alice in Wonderland (1,000)"
    choices.update(OPENAI_ENCODINGS)
    return choices


def tokenizer_by_name(name: str) -> Tokenizer:
    if name == TRAINED and session_trained() is not None:
        return session_trained().tokenizer
    if name.startswith(LOADED) and name[len(LOADED):] in loaded_tokenizers():
        return loaded_tokenizers()[name[len(LOADED):]]
    if name == STARTER:
        return starter_tokenizer()
    if name in OPENAI_ENCODINGS:
        return bundled_encoding(name)
    raise KeyError(f"No tokenizer {name!r} in this session.")


def load_tokenizer_file(key: str, picker_key: str) -> None:
    """An uploader for a tokenizer of one's own: a file saved by the Train
    page, a Hugging Face byte-level tokenizer.json, or a .tiktoken rank file
    (split with the chosen pattern). A good file joins every picker of the
    session and is selected in `picker_key`; a bad one gets the reason.
    Loading happens in the uploader's callback, before the page runs, so the
    picker above it already lists the new tokenizer."""
    st.selectbox(
        "Split pattern for a .tiktoken file", list(PRESETS), index=list(PRESETS).index("cl100k"),
        key=f"{key}_pattern", help="Rank files hold neither the pattern nor special tokens.",
    )
    st.file_uploader(
        "Tokenizer file (.json or .tiktoken)", type=["json", "tiktoken", "gz"], key=key,
        max_upload_size=MAX_UPLOAD_BYTES // 1_000_000,
        on_change=_load_uploaded_tokenizer, args=(key, picker_key),
    )
    message = st.session_state.pop(f"{key}_message", None)
    if message:  # file names and file contents are the user's: shown literally
        (st.error if message[0] == "error" else st.success)(markdown_literal(message[1]))


def _load_uploaded_tokenizer(key: str, picker_key: str) -> None:
    uploaded = st.session_state.get(key)
    if uploaded is None:
        return
    try:
        tokenizer = tokenizer_from_file(uploaded.name, uploaded.getvalue(), st.session_state[f"{key}_pattern"])
    except TokenizerFileError as error:
        st.session_state[f"{key}_message"] = ("error", f"Cannot use “{uploaded.name}”: {error}")
        return
    loaded = loaded_tokenizers()
    loaded.pop(uploaded.name, None)  # a file of the same name replaces the old one ...
    loaded[uploaded.name] = tokenizer
    while len(loaded) > MAX_LOADED_TOKENIZERS:  # ... and only the newest few are kept
        loaded.pop(next(iter(loaded)))
    st.session_state[picker_key] = LOADED + uploaded.name
    st.session_state[f"{key}_message"] = ("success", f"Loaded “{uploaded.name}” and selected it.")


def pick_tokenizer(label: str, key: str, default: str = "cl100k_base") -> Tokenizer:
    """A tokenizer picker bound to the link (the key is the URL parameter)."""
    choices = tokenizer_choices()
    options = list(choices)
    chosen = initial_value(key, default)
    st.session_state[key] = chosen if chosen in options else default if default in options else options[0]
    # No format_func: a bound widget writes its shown option into the link,
    # and "cl100k_base" reads better there than its description.
    name = st.selectbox(label, options, key=key, **LINKED)
    st.caption(markdown_literal(choices[name]))
    return tokenizer_by_name(name)


def pick_tokenizers(label: str, key: str, default: list[str], help: str | None = None) -> list[str]:
    """A multiselect of tokenizers, bound to the link; names that are not in
    this session (a link from another session's upload) are dropped."""
    choices = tokenizer_choices()
    chosen = initial_value(key, default, many=True)
    st.session_state[key] = [name for name in chosen if name in choices]
    return st.multiselect(label, list(choices), key=key, help=help, **LINKED)


def shared_text(label: str = "Text", height: int = 160) -> str:
    """The text box shared by Home, Inspect and Compare: what you type on
    one page is there on the others. A very long text stays in the box
    (nothing typed is lost); the views use its first MAX_TEXT_CHARS."""
    # Written (not setdefault) before the widget: on the first visit to a page
    # the widget is new, and only a value set now is used in this very run.
    st.session_state["shared_text"] = st.session_state.get("shared_text", linked_text("text", DEMO_TEXT))
    text = st.text_area(label, key="shared_text", height=height, persist_state="session")
    link_text("text", text, DEMO_TEXT)
    if len(text) > MAX_TEXT_CHARS:
        st.warning(
            f"This text has {len(text):,} characters; the views below use the first {MAX_TEXT_CHARS:,} "
            "to stay responsive. To train on a long text, use the Train page's upload."
        )
        return text[:MAX_TEXT_CHARS]
    return text


def read_upload(uploaded) -> str | None:
    """The text of an uploaded file, or None after showing why it cannot be used."""
    data = uploaded.getvalue()
    name = markdown_literal(uploaded.name)
    if len(data) > MAX_UPLOAD_BYTES:
        st.error(
            f"“{name}” is {len(data) / 1e6:.1f} MB; the limit is "
            f"{MAX_UPLOAD_BYTES / 1e6:.0f} MB. Upload a shorter excerpt."
        )
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        st.error(
            f"“{name}” is not UTF-8 text: byte 0x{data[error.start]:02X} at offset "
            f"{error.start:,} (line {line}) cannot be decoded. Save the file as UTF-8 and try again."
        )
        return None


def special_token_notice(text: str, tokenizers, allow_special: bool) -> None:
    """Explain, once per page, why special-token text is shown as plain text."""
    found = found_in(text, {special for tokenizer in tokenizers for special in tokenizer.special_tokens})
    if found and not allow_special:
        st.info(
            f"This text contains {', '.join(f'“{markdown_literal(s)}”' for s in found[:3])}: special-token text. "
            "tiktoken refuses it unless told what to do, because a model treats special tokens as "
            "control signals; here it is encoded as plain text. Switch on “Special tokens” to "
            "encode it as the special token."
        )


def encode_for_view(tokenizer: Tokenizer, text: str, *, allow_special: bool, step: int | None = None) -> list:
    """Token spans for the view: special-token text becomes the special token
    only when allowed, and is otherwise plain text (never an error). A custom
    split pattern that backtracks too long on this text is explained, and
    the view is left empty."""
    allowed = "all" if allow_special else frozenset()
    try:
        return tokenizer.encode_with_offsets(text, allowed_special=allowed, disallowed_special=(), step=step)
    except PatternError as error:
        st.error(f"{markdown_literal(tokenizer.name)} cannot split this text: {markdown_literal(str(error))}")
        return []


def show_tokens(text: str, spans, tokenizer: Tokenizer, *, show_ids=False, colour_by="position", highlight_ids=()) -> None:
    """The coloured token view, capped so a long text stays responsive."""
    st.html(
        token_html(
            text,
            spans,
            max_tokens=MAX_RENDERED_TOKENS,
            special_ids=set(tokenizer.special_tokens.values()),
            show_ids=show_ids,
            colour_by=colour_by,
            highlight_ids=highlight_ids,
        )
    )


def show_counts(text: str, spans) -> None:
    """Tokens, characters, bytes, words and bytes per token, in one row."""
    size = len(text.encode("utf-8"))
    columns = st.columns(5)
    columns[0].metric("Tokens", f"{len(spans):,}")
    columns[1].metric("Characters", f"{len(text):,}")
    columns[2].metric("Bytes (UTF-8)", f"{size:,}")
    columns[3].metric("Words", f"{len(text.split()):,}")
    columns[4].metric("Bytes per token", f"{size / len(spans):.2f}" if spans else "–")


def text_with_tokens(tokenizer: Tokenizer, *, allow_special: bool, show_ids: bool = False,
                     colour_by: str = "position", label: str = "Text", height: int = 160) -> tuple[str, list]:
    """The shared text box, its counts and its tokens, under one tokenizer;
    returns the text and its token spans."""
    text = shared_text(label, height)
    special_token_notice(text, [tokenizer], allow_special)
    spans = encode_for_view(tokenizer, text, allow_special=allow_special)
    show_counts(text, spans)
    show_tokens(text, spans, tokenizer, show_ids=show_ids, colour_by=colour_by)
    return text, spans
