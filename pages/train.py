"""Train: step through byte pair encoding, merge by merge.

Training runs once per corpus and settings (cached); stepping only replays
the recorded trace, so moving through ten thousand merges is instant.
"""

import pandas as pd
import streamlit as st

from bpe_core import PRESETS
from bpe_core.analysis.downloads import merges_csv
from bpe_core.analysis.labels import label_text
from bpe_core.analysis.training_steps import candidate_pairs, corpus_tokens_at
from bpe_core.budgeted_training import OverBudgetError
from bpe_core.corpus import corpus_fingerprint, corpus_size, count_pieces
from bpe_core.drawing.markdown import markdown_literal
from bpe_core.drawing.tokens import merge_html, pieces_html, token_html, vocabulary_html
from bpe_core.drawing.training_charts import corpus_length_figure
from bpe_core.formats import hf_export_problem, hf_tokenizer_json, tiktoken_file_text, tokenizer_to_json
from bpe_core.patterns import PRESET_LABELS, PatternError, piece_spans, uncovered_spans
from bpe_core.samples import catalog
from bpe_core.untrusted_regex import MAX_REGEX_CHARS
from pages.common.names import TRAINED
from pages.common.navigation import page_header
from pages.common.presenter import presenting
from pages.common.shared_cache import SharedCache
from pages.common.tokenizers import (
    TRAINING_BUDGET,
    Recipe,
    TrainedTokenizer,
    TrainingCancelled,
    session_trained,
    train_on,
)
from pages.common.url_state import LINK_TEXT_LIMIT, LINKED, link_text, linked_text, whole_number_input
from pages.common.widgets import MAX_UPLOAD_BYTES, encode_for_view, read_upload, step_control

MAX_PASTED_CHARS = 1_000_000
WINDOW_CHARS = 1_500  # how much of the training text the step view colours
WORDS_SHOWN = 200  # how many words of a word-count corpus the step view colours
FULL_CANDIDATES_BYTES = 300_000  # above this, candidate pairs are counted on a window ...
CANDIDATE_WINDOW_CHARS = 30_000  # ... of this many characters

page_header(
    "Train",
    "Byte pair encoding starts from single bytes and repeatedly merges the most frequent adjacent "
    "pair into a new token. Pick a corpus and settings, then step through the merges "
    "(keys: → next, ← previous, space play/pause).",
    carries_trained=False,  # this page's own widgets are in the link
)


# ------------------------------------------------------------------ corpus


def choose_corpus() -> tuple[str | dict[str, int] | None, str, str | None]:
    """The training corpus, a short label, and the sample id (None for other
    sources); (None, "", None) after a message when there is nothing to use."""
    source = st.segmented_control(
        "Corpus", ["Sample", "Paste", "Upload"], key="train_source", default="Sample", required=True, **LINKED
    )
    if source == "Paste":
        st.session_state["train_text"] = st.session_state.get("train_text", linked_text("train_text", ""))
        text = st.text_area(
            "Training text", key="train_text", height=180,
            persist_state="session", placeholder="Paste the text to learn merges from…",
        )
        link_text("train_text", text, "")
        if not text.strip():
            st.info("Paste some text to train on (at least a few words).")
            return None, "", None
        if len(text) > MAX_PASTED_CHARS:
            st.error(
                f"The pasted text has {len(text):,} characters; pasting is limited to {MAX_PASTED_CHARS:,}. "
                f"Save it as a .txt file and use Upload (up to {MAX_UPLOAD_BYTES / 1e6:.0f} MB)."
            )
            return None, "", None
        return text, f"pasted text ({len(text):,} characters)", None
    if source == "Upload":
        uploaded = st.file_uploader(
            f"A UTF-8 .txt file (up to {MAX_UPLOAD_BYTES / 1e6:.0f} MB)", type=["txt"], key="train_upload",
            max_upload_size=MAX_UPLOAD_BYTES // 1_000_000,
        )
        st.caption("A link cannot carry an uploaded file: copied links open this page without it.")
        if uploaded is None:
            return None, "", None
        text = read_upload(uploaded)
        if text is None:
            return None, "", None
        if not text.strip():
            st.error(f"“{markdown_literal(uploaded.name)}” is empty.")
            return None, "", None
        return text, f"“{uploaded.name}”", None
    samples = {sample_id: sample for sample_id, sample in catalog().items()}
    sample_id = st.selectbox(
        "Sample", list(samples), key="train_sample", index=list(samples).index("english_prose"), **LINKED
    )
    st.caption(f"**{samples[sample_id].title}.** {samples[sample_id].description}")
    return samples[sample_id].load(), samples[sample_id].title, sample_id


def choose_settings() -> dict:
    columns = st.columns([1, 1, 1, 2])
    units = columns[0].segmented_control(
        "Units", ["bytes", "chars"], key="train_units", default="bytes", required=True, **LINKED,
        help="bytes: byte-level BPE as GPT models use (256 base tokens). chars: the textbook variant.",
    )
    vocab_size = whole_number_input(
        columns[1], "Vocabulary size", key="train_vocab", value=1_000, min_value=1, max_value=100_000, step=100,
        help="Base tokens (256 bytes, or the alphabet) plus merges.",
    )
    preset = columns[2].selectbox(
        "Split pattern", [*PRESETS, "custom"], key="train_pattern", index=2, **LINKED,
        help="Pre-tokenization: BPE never merges across the pieces this regex cuts. "
        + "; ".join(f"{name}: {label}" for name, label in PRESET_LABELS.items()) + "; custom: your own regex.",
    )
    specials = columns[3].text_input(
        "Special tokens", key="train_specials", value="<|endoftext|>", **LINKED,
        help="Comma-separated. They get ids after the merges and are never merged.",
    )
    pattern = preset
    if preset == "custom":
        pattern = st.text_input(
            "Custom regex", key="train_custom", value=r"\w+|\s+|[^\w\s]+", max_chars=MAX_REGEX_CHARS, **LINKED,
            help="Python `regex` syntax, e.g. \\p{L}+ for letters. Text it does not match is dropped.",
        )
    special_tokens = tuple(dict.fromkeys(s.strip() for s in specials.split(",") if s.strip()))
    return dict(vocab_size=int(vocab_size), pattern=pattern, units=units, special_tokens=special_tokens)


def show_pieces(corpus, pattern: str) -> None:
    """What the split pattern does to the start of the corpus."""
    with st.expander("What the split pattern does", expanded=False):
        if not isinstance(corpus, str):
            st.caption("A word-count corpus is already split: each word is one piece.")
            return
        sample = corpus[:WINDOW_CHARS]
        try:
            spans = piece_spans(sample, pattern)
            gaps = uncovered_spans(sample, pattern)
        except PatternError as error:
            st.error(markdown_literal(str(error)))
            return
        st.caption(f"{len(spans):,} pieces in the first {len(sample):,} characters. BPE merges only inside a piece.")
        if gaps:
            st.warning(f"The pattern leaves {sum(end - start for start, end in gaps):,} characters unmatched "
                       "(struck through): they are dropped, as tiktoken drops them.")
        st.html(pieces_html(sample, spans))


# ---------------------------------------------------------------- training


PIECE_COUNTS = SharedCache(max_entries=8, max_bytes=200_000_000)  # read-only, shared by every session


def corpus_pieces(fingerprint: str, corpus, pattern: str, special_tokens: tuple) -> dict[str, int]:
    return PIECE_COUNTS.get_or_make(
        (fingerprint, pattern, special_tokens), lambda: count_pieces(corpus, pattern, special_tokens),
        lambda pieces: sum(100 + 2 * len(piece) for piece in pieces),  # a dict entry, a str and an int
    )


def train_or_keep_previous(corpus, label: str, sample_id: str | None, settings: dict) -> None:
    """Train on the current inputs; on bad input explain it and keep the previous result."""
    try:
        tokenizer = train_on(corpus, **settings)
    except (TrainingCancelled, OverBudgetError) as stopped:
        st.warning(markdown_literal(str(stopped)))
    except ValueError as error:  # includes PatternError
        st.error(f"Cannot train with these settings: {markdown_literal(str(error))}")
    else:
        st.session_state[TRAINED] = TrainedTokenizer(tokenizer, corpus, label, recipe_for(corpus, sample_id, settings))
        if tokenizer.stop_reason and "time allowed" in tokenizer.stop_reason:
            st.warning(
                f"Training stopped when the {TRAINING_BUDGET.seconds:g} s the app allows one job ran out: "
                f"{markdown_literal(tokenizer.stop_reason)}. The page shows the tokenizer so far; to learn every "
                "merge, train with the command line (python -m bpe_core train FILE --vocab-size N -o tok.json) "
                "and load tok.json on Inspect or Vocabulary."
            )
        return
    if session_trained() is not None:
        st.caption("Still showing the previous tokenizer.")


def recipe_for(corpus, sample_id: str | None, settings: dict) -> Recipe | None:
    """How other pages' links can rebuild this tokenizer, if a link can carry its corpus."""
    linkable_text = isinstance(corpus, str) and sample_id is None and len(corpus) <= LINK_TEXT_LIMIT
    if sample_id is None and not linkable_text:
        return None
    return Recipe(sample_id, None if sample_id else corpus, **settings)


# ------------------------------------------------------------- stepping


def show_merge(tokenizer, step: int) -> None:
    if step == 0:
        st.markdown("**Step 0** — no merges yet: every byte is its own token." if tokenizer.units == "bytes"
                    else "**Step 0** — no merges yet: every character is its own token.")
        return
    merge = tokenizer.trace[step - 1]
    left, right = merge.pair
    st.markdown(f"**Merge {step:,} of {len(tokenizer.trace):,}** — the pair occurred **{merge.count:,}** times")
    st.html(merge_html((left, tokenizer.token_bytes(left)), (right, tokenizer.token_bytes(right)),
                       (merge.new_id, tokenizer.token_bytes(merge.new_id))))


def show_compression(tokenizer, pieces: dict[str, int], step: int) -> None:
    size_bytes, size_chars = corpus_size(pieces)
    initial = corpus_tokens_at(tokenizer, 0, size_bytes, size_chars)
    tokens = corpus_tokens_at(tokenizer, step, size_bytes, size_chars)
    columns = st.columns(4)
    columns[0].metric("Corpus tokens", f"{tokens:,}", delta=f"{tokens / initial - 1:.1%}" if step else None,
                      delta_color="inverse", help="Length of the whole training corpus after this many merges")
    columns[1].metric("Bytes per token", f"{size_bytes / tokens:.2f}")
    columns[2].metric("Characters per token", f"{size_chars / tokens:.2f}")
    columns[3].metric("Vocabulary", f"{tokenizer.first_merge_id + step:,}")
    st.plotly_chart(corpus_length_figure(tokenizer.trace, initial, step), key="train_curve")


@st.cache_data(max_entries=256, show_spinner=False)
def candidate_rows(tokenizer_fingerprint: str, corpus_fingerprint: str, _tokenizer, _corpus, step: int) -> list[dict]:
    pairs = candidate_pairs(_tokenizer, _corpus, step, top=10)
    rows = []
    for rank, ((left, right), count) in enumerate(pairs, start=1):
        left_text, right_text = (label_text(_tokenizer.token_bytes(i)) for i in (left, right))
        rows.append({"#": rank, "left": left_text, "right": right_text, "ids": f"{left} + {right}", "count": count})
    return rows


def show_candidates(trained: TrainedTokenizer, pieces: dict[str, int], step: int) -> None:
    """The pairs that competed for this step's merge (for step 0: the first merge)."""
    tokenizer = trained.tokenizer
    before = max(step - 1, 0)
    corpus, where = pieces, "the whole corpus"
    if corpus_size(pieces)[0] > FULL_CANDIDATES_BYTES:
        corpus, where = training_window(trained.corpus, CANDIDATE_WINDOW_CHARS), f"the first {CANDIDATE_WINDOW_CHARS:,} characters"
    rows = candidate_rows(tokenizer.fingerprint, corpus_fingerprint(corpus), tokenizer, corpus, before)
    chosen = "merge 1, the next one" if step == 0 else f"merge {step:,}"
    merged = "the first is the one merged" if where == "the whole corpus" else "on the whole corpus, the first may differ"
    st.markdown(f"**Most frequent pairs** before {chosen} (counted on {where}; {merged})")
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, height=390)
    else:
        st.caption("No pair is left.")


def training_window(corpus, size: int = WINDOW_CHARS) -> str:
    """The start of a text corpus (word-count corpora are shown word by word)."""
    return corpus[:size] if isinstance(corpus, str) else ""


def show_training_text(trained: TrainedTokenizer, step: int) -> None:
    tokenizer = trained.tokenizer
    new_ids = {tokenizer.trace[step - 1].new_id} if step else set()
    specials = set(tokenizer.special_tokens.values())
    if isinstance(trained.corpus, str):
        window = training_window(trained.corpus)
        spans = encode_for_view(tokenizer, window, allow_special=True, step=step)
        note = f" (first {WINDOW_CHARS:,} characters)" if len(trained.corpus) > WINDOW_CHARS else ""
        st.markdown(f"**Training text after {step:,} merges**{note} — this step's new token is outlined")
        st.html(token_html(window, spans, special_ids=specials, highlight_ids=new_ids, max_tokens=3_000))
        return
    st.markdown(f"**Words after {step:,} merges** — this step's new token is outlined")
    rows = []
    for word, count in list(trained.corpus.items())[:WORDS_SHOWN]:
        spans = encode_for_view(tokenizer, word, allow_special=False, step=step)
        rows.append(f"<tr><td>{token_html(word, spans, highlight_ids=new_ids)}</td><td>×{count}</td></tr>")
    st.html("<table>" + "".join(rows) + "</table>")


def show_vocabulary(tokenizer, step: int) -> None:
    st.markdown(f"**Learned tokens** ({step:,}, newest first)")
    newest = [(merge.new_id, tokenizer.token_bytes(merge.new_id)) for merge in reversed(tokenizer.trace[max(0, step - 80):step])]
    if newest:
        st.html(vocabulary_html(newest))
    else:
        st.caption("None yet.")


def try_it(tokenizer, step: int) -> None:
    st.markdown(f"**Try it** — encode any text with the tokenizer as of step {step:,}")
    text = st.text_input("Text to encode", key="train_try", value="The lowest, newest and widest.",
                         persist_state="session", label_visibility="collapsed")
    spans = encode_for_view(tokenizer, text, allow_special=True, step=step)
    st.caption(f"{len(spans):,} token{'s' * (len(spans) != 1)} for {len(text.encode()):,} bytes")
    st.html(token_html(text, spans, special_ids=set(tokenizer.special_tokens.values())))


def step_through(trained: TrainedTokenizer, pieces: dict[str, int]) -> None:
    tokenizer = trained.tokenizer
    limit = len(tokenizer.trace)
    playing = st.session_state.get("train_playing", False) and limit > 0
    speed = st.session_state.get("train_speed", 1)

    @st.fragment(run_every=1 / speed if playing else None)
    def stepper():
        if st.session_state.get("train_playing") and st.session_state.get("train_step", 0) >= limit:
            st.session_state["train_playing"] = False
        elif playing and st.session_state.get("train_playing"):
            st.session_state["train_step"] = min(st.session_state.get("train_step", 0) + 1, limit)
        step = step_control("train", limit, label="Step", playable=True)
        if st.session_state.get("train_playing", False) != playing:
            st.rerun()  # start or stop the timer, which only a full run can change
        show_merge(tokenizer, step)
        show_compression(tokenizer, pieces, step)
        left, right = st.columns([3, 1])
        with left:
            show_training_text(trained, step)
            show_candidates(trained, pieces, step)
            try_it(tokenizer, step)
        with right:
            show_vocabulary(tokenizer, step)

    stepper()


def downloads(trained: TrainedTokenizer) -> None:
    tokenizer = trained.tokenizer
    st.subheader("Download")
    columns = st.columns(4)
    columns[0].download_button("Tokenizer (JSON)", lambda: tokenizer_to_json(tokenizer), "tokenizer.json",
                               "application/json", key="download_json", help="Reload it with bpe_core.Tokenizer.load")
    columns[1].download_button("Merges (CSV)", lambda: merges_csv(tokenizer), "merges.csv", "text/csv", key="download_csv")
    if tokenizer.units == "bytes":
        columns[2].download_button("tiktoken ranks", lambda: tiktoken_file_text(tokenizer), "trained.tiktoken", "text/plain",
                                   key="download_tiktoken", help="Load with tiktoken.load.load_tiktoken_bpe")
    else:
        columns[2].caption("tiktoken files are byte-level only.")
    problem = hf_export_problem(tokenizer)
    if problem:
        columns[3].caption(f"No Hugging Face export: {markdown_literal(problem)}")
    else:
        exactness = (" Exact for this preset split pattern." if tokenizer.pattern_name != "custom" else
                     " With a custom regex, Hugging Face's regex engine may read some syntax differently.")
        columns[3].download_button("Hugging Face tokenizer.json", lambda: hf_tokenizer_json(tokenizer), "hf_tokenizer.json",
                                   "application/json", key="download_hf",
                                   help="Load with tokenizers.Tokenizer.from_file." + exactness)


# ------------------------------------------------------------------- page

# On a projector the merges come first; the set-up folds away.
with st.expander("Corpus and settings", expanded=not presenting()):
    corpus, label, sample_id = choose_corpus()
    settings = choose_settings()
    if corpus is not None:
        show_pieces(corpus, settings["pattern"])
if corpus is not None:
    train_or_keep_previous(corpus, label, sample_id, settings)

trained = session_trained()
if trained is None:
    st.info("Choose a corpus to train on.")
else:
    tokenizer = trained.tokenizer
    st.success(
        f"Trained on {markdown_literal(trained.corpus_label)}: {len(tokenizer.merges):,} merges, "
        f"vocabulary {tokenizer.first_merge_id + len(tokenizer.merges):,} + {len(tokenizer.special_tokens)} special"
        + (" + 1 for unknown characters." if tokenizer.unknown_id is not None else ".")
        + (f" Stopped early: {tokenizer.stop_reason}." if tokenizer.stop_reason else "")
    )
    pieces = corpus_pieces(
        corpus_fingerprint(trained.corpus), trained.corpus, tokenizer.pattern, tuple(tokenizer.special_tokens)
    )
    step_through(trained, pieces)
    downloads(trained)
