"""Widgets several pages share: tokenizer pickers and uploads, the shared
text box, and the token view with its counts (the step control is in
`stepper`).

Every widget that defines a view is bound to the link (see `url_state`);
everything a user typed survives a page change.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

import streamlit as st

from bpe_core import PRESETS, PatternError, Tokenizer, TokenizerFileError
from bpe_core.analysis.token_cards import token_origins
from bpe_core.corpora.corpus_files import BOM
from bpe_core.drawing.markdown import markdown_literal
from bpe_core.drawing.tokens import TOKEN_CSS, TOKEN_KEYS_JS, counts_html, token_html
from bpe_core.engine.specials import found_in
from bpe_core.jobs.budgeted_encoding import encode_within_budget
from bpe_core.jobs.budgeted_reading import folder_from_upload, tokenizer_from_upload
from bpe_core.vocabularies.catalogue import CATALOGUE, LISTED
from bpe_core.vocabularies.model_folders import tokenizer_from_folder
from pages.common.live_text import live_text_area, typed_text
from pages.common.menus import listed
from pages.common.names import SHARED_TEXT, SHARED_TEXT_BOX, TEXT_PARAM, TYPED_LAST
from pages.common.tokenizers import LOADED, keep_loaded, tokenizer_by_name, tokenizer_choices
from pages.common.url_state import (
    current_choice,
    current_choices,
    labelled_choice,
    labelled_choices,
    link_text,
    linked_text,
)

MAX_TEXT_CHARS = 200_000  # typed or pasted text on the inspect/compare pages
MAX_UPLOAD_BYTES = 10_000_000  # uploaded corpora and tokenizer files
MAX_RENDERED_TOKENS = 6_000  # beyond this the token view shows a prefix

DEMO_TEXT = (
    "Tokenizers don't see words, they see tokens: “unbelievably” vs. ‘unbelievable’!\n"
    "    def add(a, b):\n        return a + b  # 12345 + 67890 = 80235\n"
    "नमस्ते दुनिया · こんにちは世界 · 👩‍💻👍🏽"
)

# ------------------------------------------------------------------ pickers

# The models each bundled encoding is best known by: a picker's button names them.
MODEL_NAMES = {name: CATALOGUE[name].known_as for name in LISTED}
PICKER_WIDTH = 520  # px: a picker in a popover is as wide as its labels, not as its button


@contextmanager
def tokenizer_menu(label: str, key: str, default: str = "cl100k_base", *, note: str = "") -> Iterator[Tokenizer]:
    """A tokenizer picker in a popover whose button says what is chosen
    ("Tokenizer: GPT-4 (cl100k_base)"), so the page says what it shows
    while the browser draws the picker only when it is opened (a select box
    costs a page's load a fifth of a second; a closed popover almost
    nothing). The link keeps the tokenizer's name (the key is the URL
    parameter). Yields the tokenizer; what the caller draws in its `with`
    block joins the popover (the view's options), and `note` joins the
    button's label (what those options are set to)."""
    choices = tokenizer_choices()
    chosen = current_choice(key, choices, default)  # the button is drawn before the picker it opens
    with st.popover(f"{label}: {tokenizer_summary(chosen)}{note}", key=f"{key}_menu"):
        yield tokenizer_by_name(labelled_choice(st, label, choices, key=key, default=default, width=PICKER_WIDTH))


def pick_tokenizer(label: str, key: str, default: str = "cl100k_base") -> Tokenizer:
    """A `tokenizer_menu` with nothing else in it."""
    with tokenizer_menu(label, key, default) as tokenizer:
        return tokenizer


def pick_tokenizers(label: str, key: str, default: list[str], help: str | None = None) -> list[str]:
    """Several tokenizers, likewise in a popover whose button names the
    first few ("Tokenizers: GPT-2, GPT-4, GPT-4o +2"); names that are not
    in this session (a link from another session's upload) are dropped."""
    choices = tokenizer_choices()
    chosen = current_choices(key, choices, default)
    with st.popover(f"{label}: {tokenizers_summary(chosen)}", key=f"{key}_menu"):
        return labelled_choices(st, label, choices, key=key, default=default, help=help, width=PICKER_WIDTH)


def tokenizer_summary(name: str) -> str:
    """A picker's choice in a few words, as Markdown for a button's label:
    "GPT-4 (cl100k_base)", "Trained here (400 tokens)", "mine.json (5,000 tokens)"."""
    if name in MODEL_NAMES:  # every bundled encoding (a test says so)
        return f"{MODEL_NAMES[name]} ({name})"
    size = f"{len(tokenizer_by_name(name).vocab):,} tokens"  # the session's own: in memory already
    return f"{markdown_literal(short_name(name))} ({size})"


def tokenizers_summary(names: list[str]) -> str:
    """Several choices, as Markdown: the first few by name, then how many more."""
    return listed([MODEL_NAMES.get(name) or short_name(name) for name in names], none="none chosen")


def short_name(name: str) -> str:
    """A picker name as a button shows it, as text (not yet escaped for
    Markdown): an uploaded file's name as it was given."""
    if name.startswith(LOADED):
        return name.removeprefix(LOADED)
    return name[:1].upper() + name[1:]


def tokenizer_upload(key: str, picker_key: str, *, folders_only: bool = False) -> None:
    """An uploader for a tokenizer of one's own: a file saved by the Train
    page, a Hugging Face byte-level tokenizer.json, or a .tiktoken rank file
    (split with the chosen pattern); or a Hugging Face model folder, which a
    browser cannot upload whole: a .zip of it, or its tokenizer.json and
    tokenizer_config.json (and chat_template.jinja) chosen together. A good
    upload joins every picker of the session and is selected in
    `picker_key`; a bad one gets the reason. Loading happens in the
    uploader's callback, before the page runs, so the picker above it
    already lists the new tokenizer. `folders_only` takes model folders
    alone (the Chat prompts page, which needs a folder's chat template)."""
    if not folders_only:
        st.selectbox(
            "Split pattern for a .tiktoken file", list(PRESETS), index=list(PRESETS).index("cl100k"),
            key=f"{key}_pattern", help="Rank files hold neither the pattern nor special tokens.",
        )
    st.file_uploader(
        "A model folder (.zip, or its files together)" if folders_only
        else "Tokenizer file (.json or .tiktoken), or a model folder (.zip, or its files together)",
        type=["zip", "json", "jinja"] if folders_only else ["json", "tiktoken", "gz", "zip", "jinja"],
        accept_multiple_files=True, key=key, max_upload_size=MAX_UPLOAD_BYTES // 1_000_000,
        on_change=_load_uploaded_tokenizer, args=(key, picker_key, folders_only), help=FOLDER_HELP,
    )
    message = st.session_state.pop(f"{key}_message", None)
    if message:  # file names and file contents are the user's: shown literally
        (st.error if message[0] == "error" else st.success)(markdown_literal(message[1]))


FOLDER_HELP = ("A Hugging Face model folder holds tokenizer.json and tokenizer_config.json (and, from newer "
               "transformers, chat_template.jinja). Its tokenizer runs in Hugging Face's tokenizers, its chat "
               "template shows on the Chat prompts page. Gemma 3's 33 MB tokenizer.json zips to about 6 MB.")


def _load_uploaded_tokenizer(key: str, picker_key: str, folders_only: bool) -> None:
    uploads = st.session_state.get(key) or []
    if not uploads:
        return
    name = uploads[0].name if len(uploads) == 1 else " + ".join(upload.name for upload in uploads)
    try:
        tokenizer = uploaded_tokenizer(uploads, st.session_state.get(f"{key}_pattern", "cl100k"), folders_only)
    except TokenizerFileError as error:
        st.session_state[f"{key}_message"] = ("error", f"Cannot use “{name}”: {error}")
        return
    if folders_only and tokenizer.chat is None:
        no_template = f"“{name}” has no chat template (tokenizer_config.json's chat_template, or chat_template.jinja)."
        st.session_state[f"{key}_message"] = ("error", no_template)
        return
    st.session_state[picker_key] = keep_loaded(name, tokenizer)
    st.session_state[f"{key}_message"] = ("success", f"Loaded “{name}” and selected it.")


def uploaded_tokenizer(uploads, pattern: str, folders_only: bool = False):
    """The tokenizer uploaded files make: one file of any kind the upload
    takes, a .zip of a model folder, or a folder's files chosen together;
    each unpacked and parsed in a capped process (`budgeted_reading`)."""
    if len(uploads) == 1 and uploads[0].name.lower().endswith(".zip"):
        return tokenizer_from_folder(folder_from_upload(uploads[0].name, uploads[0].getvalue()))
    if len(uploads) == 1 and not folders_only:
        return tokenizer_from_upload(uploads[0].name, uploads[0].getvalue(), pattern)
    files = {upload.name: upload.getvalue() for upload in uploads}
    if len(files) < len(uploads):
        raise TokenizerFileError("two of the files have the same name; a folder holds each file once.")
    return tokenizer_from_folder(folder_from_upload("the uploaded folder", files))


# ------------------------------------------------------------------- text


def shared_text(label: str = "Text", height: int = 160) -> str:
    """The text box shared by Home, Inspect and Compare: what you type on
    one page is there on the others, and the views follow as you type (call
    it in a fragment with them, see `live_text`). A very long text stays in
    the box (nothing typed is lost); the views use its first MAX_TEXT_CHARS."""
    text = st.session_state.get(SHARED_TEXT, linked_text(TEXT_PARAM, DEMO_TEXT))
    typed = typed_text(SHARED_TEXT_BOX)
    if typed is not None and typed != st.session_state.get(TYPED_LAST):  # typed since the last run
        text = typed
    st.session_state[TYPED_LAST] = typed
    st.session_state[SHARED_TEXT] = text
    live_text_area(label, key=SHARED_TEXT_BOX, value=text, height=height,
                   placeholder="Type or paste anything: the tokens follow as you type")
    link_text(TEXT_PARAM, text, DEMO_TEXT)
    if len(text) > MAX_TEXT_CHARS:
        st.warning(
            f"This text has {len(text):,} characters; the views below use the first {MAX_TEXT_CHARS:,} "
            "to stay responsive. To train on a long text, use the Train page's upload; to encode all of it, "
            "the command line (`python -m bpe_core encode --encoding cl100k_base FILE`)."
        )
        return text[:MAX_TEXT_CHARS]
    return text


class Refused(NamedTuple):
    """Why a text cannot be used: `reason` in a few words, for a menu's
    label ("not UTF-8 text"), and `message` in full, with what to do, for
    the menu itself. One reading gives both, so they cannot disagree."""

    reason: str
    message: str


UPLOAD_READ = "upload_read"  # session key: the last upload read, and what reading it gave


def uploaded_text(uploaded) -> str | Refused:
    """The text of an uploaded file, or why it cannot be used: over
    MAX_UPLOAD_BYTES, not UTF-8, or empty. A file is decoded once (a menu's
    label and the menu itself both ask, on every run)."""
    read = st.session_state.get(UPLOAD_READ)
    if read is None or read[0] != uploaded.file_id:
        read = (uploaded.file_id, _read_upload(uploaded))
        st.session_state[UPLOAD_READ] = read
    return read[1]


def _read_upload(uploaded) -> str | Refused:
    name = markdown_literal(uploaded.name)
    if uploaded.size > MAX_UPLOAD_BYTES:
        return Refused(
            f"over the {MAX_UPLOAD_BYTES / 1e6:.0f} MB limit",
            f"“{name}” is {uploaded.size / 1e6:.1f} MB; the limit is "
            f"{MAX_UPLOAD_BYTES / 1e6:.0f} MB. Upload a shorter excerpt.",
        )
    data = uploaded.getvalue()
    try:
        text = data.decode("utf-8").removeprefix(BOM)  # not text: the command line leaves it out too
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        return Refused(
            "not UTF-8 text",
            f"“{name}” is not UTF-8 text: byte 0x{data[error.start]:02X} at offset "
            f"{error.start:,} (line {line}) cannot be decoded. Save the file as UTF-8 and try again.",
        )
    if not text.strip():
        return Refused("empty", f"“{name}” is empty.")
    return text


# ------------------------------------------------------------- token view

# What every page carries once for all its token views (each drawn without
# them): their stylesheet, one copy where each view had its own, and the
# keys that walk from token to token (the core's script: a saved page has
# the same keys).
TOKEN_VIEWS_HTML = f"{TOKEN_CSS}<script>{TOKEN_KEYS_JS}</script>"


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
    """Token spans for the view (see `view_of`)."""
    return view_of(tokenizer, text, allow_special=allow_special, step=step)[1]


def view_of(tokenizer: Tokenizer, text: str, *, allow_special: bool, step: int | None = None) -> tuple[str, list]:
    """The text a view shows and its token spans: special-token text becomes
    the special token only when allowed, and is otherwise plain text (never
    an error). A view has a budget (see `bpe_core.jobs.budgeted_encoding`): past
    it, the view shows a prefix and says so, and how to encode it all. A
    custom split pattern that backtracks too long is explained, and the view
    is left empty."""
    allowed = "all" if allow_special else frozenset()
    try:
        view = encode_within_budget(tokenizer, text, allowed_special=allowed, step=step)
    except PatternError as error:
        st.error(f"{markdown_literal(tokenizer.name)} cannot split this text: {markdown_literal(str(error))}")
        return text, []
    if view.left_out:
        st.warning(
            f"{view.left_out} To encode all of it, use the command line: `python -m bpe_core encode "
            "--encoding cl100k_base FILE`, or `--tokenizer tok.json FILE` with a tokenizer downloaded from Train."
        )
    return view.text, view.spans


def show_tokens(text: str, spans, tokenizer: Tokenizer, *, show_ids=False, colour_by="position", highlight_ids=(),
                counts: bool = False) -> None:
    """The coloured token view, capped so a long text stays responsive;
    with `counts`, what the text costs above it, in the same element (each
    element is work for the browser)."""
    shown = spans[:MAX_RENDERED_TOKENS]
    st.html(
        (counts_html(text, len(spans)) if counts else "")
        + token_html(
            text,
            spans,
            cards=token_origins(tokenizer, [span.id for span in shown]),
            max_tokens=MAX_RENDERED_TOKENS,
            special_ids=set(tokenizer.special_tokens.values()),
            show_ids=show_ids,
            colour_by=colour_by,
            highlight_ids=highlight_ids,
            styled=False,
        )
    )


def text_with_tokens(tokenizer: Tokenizer, *, allow_special: bool, show_ids: bool = False,
                     colour_by: str = "position", label: str = "Text", height: int = 160) -> tuple[str, list]:
    """The shared text box, its counts (tokens, characters, bytes, words,
    bytes per token) and its tokens, under one tokenizer;
    returns the text and its token spans."""
    text = shared_text(label, height)
    special_token_notice(text, [tokenizer], allow_special)
    text, spans = view_of(tokenizer, text, allow_special=allow_special)
    show_tokens(text, spans, tokenizer, show_ids=show_ids, colour_by=colour_by, counts=True)
    return text, spans
