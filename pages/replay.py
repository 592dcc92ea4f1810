"""Encode replay: watch one word turn into its tokens, merge by merge, and
see any of its tokens as a merge tree down to bytes; and with BPE-dropout,
the many segmentations the same word gets when merges are skipped at random.

All the work is in `bpe_core.replay`; this page arranges the widgets.
"""

import streamlit as st

from bpe_core.algorithms.dropout import check_dropout, dropout_problem, sampled_ids
from bpe_core.analysis.labels import label_text
from bpe_core.analysis.replay import MAX_REPLAY_CHARS, merge_tree, replay, shown_bytes
from bpe_core.drawing.markdown import markdown_literal
from bpe_core.drawing.replay import merge_tree_html, replay_frames, segmentations_html
from bpe_core.drawing.standalone import replay_page
from bpe_core.drawing.step_control import view_json
from bpe_core.engine.patterns import PatternError
from bpe_core.engine.specials import found_in
from bpe_core.vocabularies.model_folders import HuggingFaceTokenizer
from pages.common.menus import shown_text
from pages.common.navigation import page_header
from pages.common.stepper import control_position, stepper
from pages.common.url_state import LINKED, fraction_input, initial_value, keep_in_link, whole_number_input
from pages.common.widgets import pick_tokenizer

MAX_CHARS = MAX_REPLAY_CHARS  # one word or a short phrase: every merge gets a row below
DEFAULT_TEXT = " strawberry"
FOLDER_NOTE = ("A model folder's tokenizer runs inside Hugging Face's tokenizers, which hands back tokens, not the "
               "merges that made them: there is no replay to show. Inspect and Vocabulary show its tokens; for a "
               "replay choose one of the bundled tokenizers, Gemma 3 and DeepSeek V3 among them.")
TEXT_KEY, TOKEN_KEY = "replay_text", "replay_token"  # also their links' parameters
PICKED = "replay_token_picked"  # the name of the token picked for the merge tree (None: the longest is shown)
SHOWN_CHARS = 30  # of the text, on the button that opens its box
STEPPER_KEY, STEP_PARAM = "replay_stepper", "replay_step"
SENTENCEPIECE_NOTE = (
    "SentencePiece's BPE: no split pattern. A space is ▁ and one ▁ is put in front of the text, which "
    "starts as single characters; a character the vocabulary lacks is its UTF-8 bytes, one "
    "byte-fallback piece each (<E1>), which never merge. The pair whose piece has the highest score "
    "merges first: scores, not ids, set the order."
)

page_header(
    "Encode replay",
    "Type a word and watch BPE encode it: starting from single bytes, the adjacent pair whose merge "
    "has the lowest rank merges first, until no pair can merge. Then open any final token's merge "
    "tree, down to bytes (keys: → next merge, ← previous, Home and End).",
)


def chosen_token(options: list[int], name, default: int) -> int:
    """The token whose tree is shown, settled before its picker is drawn (the
    picker's button names it): the one picked in the menu, or named by the
    link the session opened with, while the text still has it; else
    `default`. A token shown by default is no pick: after an edit the new
    text's longest token is shown, as a link to the new text would show it."""
    if PICKED not in st.session_state:  # the session's first tree: a link may name its token
        linked = st.query_params.get(TOKEN_KEY)
        st.session_state[PICKED] = next((name(option) for option in options if linked in (name(option), str(option))),
                                        None)
    picked = [option for option in options if name(option) == st.session_state[PICKED]]
    if not picked:
        st.session_state[PICKED] = None  # the text no longer has it: forgotten
    st.session_state[TOKEN_KEY] = picked[0] if picked else default
    return st.session_state[TOKEN_KEY]


def remember_pick(name) -> None:
    """The token picker's callback: the token picked is kept while the text has it."""
    st.session_state[PICKED] = name(st.session_state[TOKEN_KEY])


def show_merge_tree(tokenizer, token_ids: list[int]) -> None:
    st.subheader("Merge tree")
    options = list(dict.fromkeys(token_ids))

    def name(token_id: int) -> str:
        return f"{label_text(shown_bytes(tokenizer, token_id))}  (id {token_id})"

    longest = max(options, key=lambda token_id: len(tokenizer.token_bytes(token_id)))
    chosen = chosen_token(options, name, default=longest)
    with st.popover(f"Token: {markdown_literal(name(chosen))}", key="replay_token_menu"):
        token_id = st.selectbox(
            "Token", options, key=TOKEN_KEY, **LINKED, format_func=name, on_change=remember_pick, args=(name,),
            help="Each box holds a token and, beneath it, the two tokens it was merged from.",
        )
    tree = merge_tree(tokenizer, token_id)
    if tree.parts:
        st.caption(f"Built from single units by {tree.merges} merge{'s' * (tree.merges != 1)}, "
                   f"at most {tree.depth} deep.")
    st.html(merge_tree_html(tree))


def checked_text(text: str) -> bool:
    """Whether the text can be replayed; if not, say why."""
    if not text:
        st.info("Type a word (or a short phrase) to watch it being encoded.")
        return False
    if len(text) > MAX_CHARS:
        st.error(f"That is {len(text):,} characters; the replay is for one word or a short phrase, "
                 f"up to {MAX_CHARS}. Shorten the text (the Inspect page takes long texts).")
        return False
    return True


def show_replay(tokenizer, text: str) -> None:
    try:
        story = replay(tokenizer, text)
    except PatternError as error:
        st.error(markdown_literal(str(error)))
        return
    if not story.pieces:
        st.info("The split pattern keeps no piece of this text, so there is nothing to encode.")
        return
    if story.by_score:
        st.info(SENTENCEPIECE_NOTE)
    if found_in(text, tokenizer.special_tokens):
        st.info("This text contains special-token text; the replay encodes it as plain text, "
                "as encode_ordinary does.")
    if story.steps == 0:
        st.caption("No two neighbouring units of this text form a token: it stays as single units.")
    shortcuts = sum(piece.shortcut for piece in story.pieces)
    if shortcuts:
        st.info(f"Encode maps a piece that is itself a token straight to that token (tiktoken's shortcut); "
                f"here {shortcuts} of {len(story.pieces)} piece{'s' * (len(story.pieces) != 1)}. "
                "The steps show how such a token is built.")
    step_through(story, tokenizer.fingerprint)
    with st.popover("Download: page", key="replay_downloads"):  # drawn by the browser only when opened
        st.download_button("Download as a page", lambda: replay_page(tokenizer, text), "replay.html", "text/html",
                           key="replay_page", on_click="ignore",
                           help="This replay as one HTML file with the same step control: no server, no network.")
    show_merge_tree(tokenizer, story.tokens)
    show_dropout(tokenizer, story.text)


DROPOUT_OPEN, DROPOUT_P, DROPOUT_SEED, DROPOUT_SAMPLES = "replay_dropout_open", "replay_p", "replay_seed", "replay_samples"
DEFAULT_P, DEFAULT_SAMPLES, MAX_SAMPLES_SHOWN = 0.1, 200, 2_000
SEGMENTATIONS_SHOWN = 20  # the most frequent; the rest are counted


def show_dropout(tokenizer, text: str) -> None:
    """BPE-dropout (Provilkov et al. 2020): the text encoded many times, each
    merge skipped with probability p, and how often each segmentation came
    out. Open when a link carries its settings; p and the seed are in the link."""
    linked = any(param in st.query_params for param in (DROPOUT_P, DROPOUT_SEED, DROPOUT_SAMPLES))
    with st.expander("BPE-dropout: this text's segmentations when merges are skipped at random", key=DROPOUT_OPEN,
                     expanded=linked, on_change="rerun") as section:
        if not section.open:
            return
        problem = dropout_problem(tokenizer)
        if problem:
            st.info(markdown_literal(problem))
            return
        row = st.container(horizontal=True)
        p = fraction_input(row, "p: each merge skipped with this probability", key=DROPOUT_P, value=DEFAULT_P,
                           help="At least 0 and below 1. 0 is plain encoding; Provilkov et al. train with 0.1.")
        seed = whole_number_input(row, "Seed", key=DROPOUT_SEED, value=0, min_value=0, max_value=2**31 - 1,
                                  help="Draw k uses seed + k: the same seed gives the same segmentations.")
        samples = whole_number_input(row, "Draws", key=DROPOUT_SAMPLES, value=DEFAULT_SAMPLES, min_value=1,
                                     max_value=MAX_SAMPLES_SHOWN, step=100)
        try:
            check_dropout(p)
        except ValueError as error:
            st.error(markdown_literal(str(error)))
            return
        with st.spinner("Drawing segmentations…"):  # the merge table is the tokenizer's, made once (bpe_core.algorithms.dropout)
            drawn = sampled_ids(tokenizer, text, p, int(samples), int(seed))
        shown = drawn[:SEGMENTATIONS_SHOWN]
        rest = sum(count for _, count in drawn[SEGMENTATIONS_SHOWN:])
        st.caption(f"{int(samples):,} draws, {len(drawn):,} different segmentations; the most frequent first"
                   + (f" (the other {len(drawn) - len(shown):,}, {rest:,} draws, are left out)" if rest else "") + ". "
                   "At every step each possible merge is skipped with probability p and drawn again at the next; "
                   "every draw decodes to the same text.")
        st.html(segmentations_html(tokenizer, shown, int(samples)))


@st.fragment
def step_through(story, tokenizer_key: str) -> None:
    """The step control over the replay's merges, every step drawn up front,
    with every step listed below it (the current one marked)."""
    step, _ = control_position(STEPPER_KEY, story.steps, STEP_PARAM)
    view_key = f"{tokenizer_key}:{story.text}"
    stepper(view_json(replay_frames(story)), view_key=view_key, key=STEPPER_KEY, step=step, param=STEP_PARAM,
            steps=range(story.steps + 1))
    keep_in_link(STEP_PARAM, step, 0)


# The settings in popovers whose buttons say what is chosen: the browser draws a
# popover's widgets only when it is opened (each widget type costs a page's load
# a tenth of a second or more).
toolbar = st.container(horizontal=True)
with toolbar:
    tokenizer = pick_tokenizer("Tokenizer", key="replay_tokenizer")
    with st.popover(f"Text: {shown_text(initial_value(TEXT_KEY, DEFAULT_TEXT), SHOWN_CHARS) or 'none'}", key="replay_text_menu"):
        text = st.text_input("A word or a short phrase", value=DEFAULT_TEXT, key=TEXT_KEY, **LINKED,
                             help=f"Up to {MAX_CHARS} characters. A leading space is part of the word, "
                                  "as in a sentence.")
if isinstance(tokenizer, HuggingFaceTokenizer):  # a model folder: its merges happen inside Hugging Face's library
    st.info(FOLDER_NOTE)
elif checked_text(text):
    show_replay(tokenizer, text)
