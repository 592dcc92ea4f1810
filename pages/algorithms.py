"""Three algorithms: BPE, WordPiece and Unigram trained on the same text to the
same vocabulary size, then the same text through each.

Widgets only: training and measuring are `bpe_core.analysis.algorithms`
(Hugging Face's trainers behind `bpe_core.algorithms.hf_trainers`), the table, bars
and chips `bpe_core.drawing.algorithms`. Training is cached for every session,
and so is what the page measures of the three tokenizers (`measured`).
"""

from dataclasses import dataclass

import streamlit as st

from bpe_core.algorithms.hf_trainers import HFTokenizer
from bpe_core.analysis.algorithms import (
    ALGORITHMS,
    RIVALS,
    AlgorithmCost,
    OnlyHere,
    algorithm_corpora,
    corpus_parts,
    measure_algorithm,
    only_in_each,
    shared_share,
    train_rival,
    unknown_stretches,
    word_language,
)
from bpe_core.analysis.downloads import frame_csv
from bpe_core.analysis.shipped_algorithms import BPE_PATTERN, DEFAULT_CORPUS, DEFAULT_VOCAB_SIZE, shipped_three
from bpe_core.analysis.words import HOW_WORDS_ARE_COUNTED
from bpe_core.drawing.algorithms import algorithm_bars, algorithm_frame, only_here_html
from bpe_core.drawing.markdown import markdown_literal
from bpe_core.jobs.budgeted_training import OverBudgetError, train_rival_within_budget
from pages.common.menus import by_label, shown_value, whole_number
from pages.common.navigation import page_header
from pages.common.presenter import show_table
from pages.common.tokenizers import TRAINING_BUDGET, TrainingCancelled, train_on
from pages.common.url_state import LINKED, whole_number_input
from pages.common.widgets import encode_for_view, shared_text, show_tokens

HOW_EACH_LEARNS = """
| | learns by | a word's pieces | a character it never saw | whitespace |
|---|---|---|---|---|
| **BPE** (GPT, Llama) | merging the most frequent pair of tokens, again and again | a leading space marks a word start: “ the” | its UTF-8 bytes: never unknown | kept, as bytes |
| **WordPiece** (BERT) | merging the pair that most raises the text's likelihood: count(ab) / (count(a)·count(b)) | “##” marks a piece inside a word: “##ing” | the whole word becomes [UNK] | dropped |
| **Unigram** (T5, SentencePiece) | pruning a large set of candidates, keeping what a unigram model needs most | “▁” marks a space: “▁the” | <unk> | kept, as ▁ |
"""

page_header(
    "Three algorithms",
    "BPE, WordPiece and Unigram, trained on the same text to the same vocabulary size: where each cuts the "
    "same text, how well each compresses it, and what each keeps that the others drop.",
)


@st.cache_resource(max_entries=32, show_spinner=False)
def rival(corpus_id: str, vocab_size: int, algorithm: str, _waiting) -> HFTokenizer:
    """WordPiece or Unigram on a corpus, trained once for every session, in
    a worker process within the training budget."""
    arguments = (algorithm, corpus_parts(corpus_id)[0], vocab_size)
    return train_rival_within_budget(train_rival, arguments, TRAINING_BUDGET, waiting=_waiting)


def trained_three(corpus_id: str, vocab_size: int) -> dict:
    """All three tokenizers: shipped with the app for the default corpus and
    size; else BPE by this engine (with a bar and Cancel of its own), then
    the others, with a bar over them (Hugging Face's trainers report no
    progress of their own; each takes a second or two)."""
    shipped = shipped_three(corpus_parts(corpus_id)[0], vocab_size)
    if shipped is not None:
        return shipped
    bpe = train_on(corpus_parts(corpus_id)[0], vocab_size=vocab_size, pattern=BPE_PATTERN)
    bar = st.progress(0.0)
    rivals = {}
    for done, algorithm in enumerate(RIVALS):
        training = f"Training {ALGORITHMS[algorithm]} ({done + 2} of 3)…"
        bar.progress(done / len(RIVALS), text=training)

        def wait(ahead: int) -> None:
            bar.progress(done / len(RIVALS), text=f"{training} waiting for a free core ({ahead} ahead of you)")

        rivals[algorithm] = rival(corpus_id, vocab_size, algorithm, wait)
    bar.empty()
    return {"bpe": bpe, **rivals}


ONLY_HERE_SHOWN = 24  # pieces shown per algorithm under "What each keeps"
LOST_SHOWN = 12  # unknown stretches quoted per algorithm


@dataclass(frozen=True)
class Measures:
    """What the page shows of three tokenizers on the held-out text; it
    holds the tokenizers too, see `measured`."""

    tokenizers: tuple
    costs: tuple[AlgorithmCost, ...]
    shares: dict[str, float]
    only_here: dict[str, tuple[OnlyHere, ...]]  # the first ONLY_HERE_SHOWN of each
    only_here_count: dict[str, int]
    lost: dict[str, tuple[str, ...]]  # the first LOST_SHOWN + 1 of each
    bars: str  # of the costs, as HTML


def measured(corpus_id: str, tokenizers: dict) -> Measures:
    """The measures of `tokenizers` on `corpus_id`'s held-out text: a second
    or more of encoding the text four times per tokenizer, the same for
    every visitor, so done once for every session."""
    key = tuple((algorithm, id(tokenizer)) for algorithm, tokenizer in tokenizers.items())
    return _measured(corpus_id, key, tokenizers)


@st.cache_resource(max_entries=32, show_spinner=False)
def _measured(corpus_id: str, key: tuple, _tokenizers: dict) -> Measures:
    """`measured`, cached by the tokenizers' identity (`key`): the cached
    value holds the tokenizers, so no other object can take their ids while
    it is kept, and a tokenizer trained again is measured again."""
    held_out = corpus_parts(corpus_id)[1]
    only = only_in_each(_tokenizers, held_out)
    lost = {algorithm: unknown_stretches(tokenizer, held_out) for algorithm, tokenizer in _tokenizers.items()}
    costs = tuple(measure_algorithm(algorithm, tokenizer, held_out, word_language(corpus_id))
                  for algorithm, tokenizer in _tokenizers.items())
    return Measures(
        tokenizers=tuple(_tokenizers.values()),
        costs=costs,
        shares=shared_share(_tokenizers),
        only_here={algorithm: tuple(pieces[:ONLY_HERE_SHOWN]) for algorithm, pieces in only.items()},
        only_here_count={algorithm: len(pieces) for algorithm, pieces in only.items()},
        lost={algorithm: tuple(stretches[:LOST_SHOWN + 1]) for algorithm, stretches in lost.items()},
        bars=algorithm_bars(costs),
    )


def show_boundaries(tokenizers: dict) -> None:
    st.subheader("The same text, three ways")
    st.caption(
        "Type in the box; each row below it is one algorithm's tokens. Struck-through text is what WordPiece leaves out "
        "(whitespace); a framed token is an unknown one ([UNK], <unk>) standing for the text under it."
    )
    text = shared_text("Text to split", height=120)
    for algorithm, tokenizer in tokenizers.items():
        spans = encode_for_view(tokenizer, text, allow_special=False)
        st.markdown(f"**{ALGORITHMS[algorithm]}** · {len(spans):,} tokens")
        show_tokens(text, spans, tokenizer)


def show_measures(measures: Measures, held_out: str) -> None:
    st.subheader("Compression and fertility, on text none of them saw")
    costs = list(measures.costs)
    frame = algorithm_frame(costs)
    show_table(frame, grid=False, hide_index=True, column_config={
        "bytes per token": st.column_config.NumberColumn(format="%.2f"),
        "chars per token": st.column_config.NumberColumn(format="%.2f"),
        "tokens per word": st.column_config.NumberColumn(format="%.2f", help="Fertility (Rust et al. 2021)"),
        "words split": st.column_config.NumberColumn(format="percent", help="Words that take more than one token"),
        "characters lost": st.column_config.NumberColumn(help="Characters of the text behind unknown tokens"),
    })
    with st.popover("These numbers (CSV)"):  # the download button's code is loaded only once it is opened
        st.download_button("Download algorithms.csv", lambda: frame_csv(frame), "algorithms.csv", "text/csv",
                           key="algorithms_csv", on_click="ignore")
    st.html(measures.bars)
    st.caption(f"The held-out text: {len(held_out):,} characters. {HOW_WORDS_ARE_COUNTED}")


def show_keeps_and_drops(measures: Measures) -> None:
    st.subheader("What each keeps that the others drop")
    st.caption(
        "Pieces are compared without their word marks (“ the”, “##the” and “▁the” all read “the”). Below: the "
        "pieces only one algorithm learned, the ones it used most on the held-out text first."
    )
    for algorithm, column in zip(measures.only_here, st.columns(len(measures.only_here))):
        with column:
            st.markdown(f"**{ALGORITHMS[algorithm]}**: {measures.shares[algorithm]:.0%} of its pieces are in both "
                        f"other vocabularies; {measures.only_here_count[algorithm]:,} are its own.")
            st.html(only_here_html(measures.only_here[algorithm]))
            lost = measures.lost[algorithm]
            if lost:
                quoted = ", ".join(f"“{markdown_literal(item)}”" for item in lost[:LOST_SHOWN])
                st.caption(f"Lost as unknown in the held-out text: {quoted}" + (" …" if len(lost) > LOST_SHOWN else ""))
            elif algorithm == "bpe":
                st.caption("Nothing is unknown: every byte has a token.")


CORPUS_KEY, VOCAB_KEY = "algorithms_corpus", "algorithms_vocab"
VOCAB_RANGE = dict(min_value=300, max_value=8_000)


def choose_training() -> tuple[str, int]:
    """The training text and vocabulary size, in a popover labelled with them."""
    corpora = algorithm_corpora()
    shown_corpus = shown_value(CORPUS_KEY, DEFAULT_CORPUS, by_label(corpora))
    shown_size = shown_value(VOCAB_KEY, DEFAULT_VOCAB_SIZE, whole_number(VOCAB_RANGE["min_value"], VOCAB_RANGE["max_value"]))
    with st.popover(f"Trained on {markdown_literal(corpora[shown_corpus])}, {shown_size:,} tokens each"):
        corpus_id = st.selectbox("Training text", list(corpora), index=list(corpora).index(DEFAULT_CORPUS),
                                 format_func=corpora.get, key=CORPUS_KEY, **LINKED)
        vocab_size = whole_number_input(st, "Vocabulary size (each)", key=VOCAB_KEY, value=DEFAULT_VOCAB_SIZE,
                                        **VOCAB_RANGE, step=500)
    return corpus_id, int(vocab_size)


corpus_id, vocab_size = choose_training()
st.markdown(HOW_EACH_LEARNS)
try:
    three = trained_three(corpus_id, vocab_size)
except (TrainingCancelled, OverBudgetError, ValueError) as stopped:  # ValueError: a trainer refused the size
    st.warning(markdown_literal(str(stopped)))
    st.stop()
held_out_text = corpus_parts(corpus_id)[1]
short = [f"{ALGORITHMS[algorithm]} at {tokenizer.n_vocab:,}" for algorithm, tokenizer in three.items()
         if tokenizer.n_vocab < vocab_size]
if short:
    st.caption(f"Stopped below {vocab_size:,} tokens: {', '.join(short)}. This text holds too few pairs seen twice "
               "(BPE), too few characters and pairs (WordPiece) or too few frequent substrings to seed from "
               "(Unigram) for more.")
if three["wordpiece"].n_vocab > vocab_size:
    st.caption(f"WordPiece has {three['wordpiece'].n_vocab:,} tokens: it keeps every character of its training text "
               "in its vocabulary, more than the size asked for in a text of many scripts.")
measures = measured(corpus_id, three)
show_boundaries(three)
show_measures(measures, held_out_text)
show_keeps_and_drops(measures)
