"""Algorithms: BPE, SuperBPE, BoundlessBPE, Picky BPE, WordPiece and Unigram
(any two or more) trained on the same text to the same vocabulary size, then
the same text through each, and the 30-language passage through each.

Widgets only: training and measuring are `bpe_core.analysis.algorithms`
(the engine's trainers in a worker, through `pages.common.tokenizers`;
Hugging Face's behind `bpe_core.algorithms.hf_trainers`), the tables, bars
and chips `bpe_core.drawing.algorithms`. Training is cached for every
session, and so is what the page measures of the tokenizers (`measured`);
the default view's tokenizers and per-language counts are shipped
(`bpe_core.analysis.shipped_algorithms`). The page was "Three algorithms"
(BPE, WordPiece, Unigram): its address and its links' parameters are the same.
"""


import streamlit as st

from bpe_core.algorithms.hf_trainers import HFTokenizer
from bpe_core.analysis.algorithms import (
    ALGORITHMS,
    ALL_LANGUAGES,
    ON_THE_ENGINE,
    LanguageEffect,
    algorithm_corpora,
    corpus_parts,
    language_effect,
    language_tokens,
    settings_problems,
    train_rival,
    training_settings,
    vocabulary_size,
    word_language,
)
from bpe_core.analysis.downloads import frame_csv
from bpe_core.analysis.shipped_algorithms import (
    BPE_PATTERN,
    DEFAULT_CORPUS,
    DEFAULT_THRESHOLD,
    DEFAULT_TRANSITION,
    DEFAULT_VOCAB_SIZE,
    shipped_language_tokens,
    shipped_tokenizer,
)
from bpe_core.analysis.training_view import held_steps
from bpe_core.analysis.words import HOW_WORDS_ARE_COUNTED
from bpe_core.corpora.samples import catalog
from bpe_core.drawing.algorithms import (
    algorithm_rows,
    gini_bars,
    language_rows,
    only_here_html,
    removals_html,
    superwords_html,
)
from bpe_core.drawing.markdown import markdown_literal
from bpe_core.drawing.step_control import compressed_view
from bpe_core.drawing.training_view import training_run_view
from bpe_core.engine.corpus import corpus_fingerprint
from bpe_core.engine.replay_tokenizer import ReplayTokenizer
from bpe_core.jobs.budgeted_training import OverBudgetError, train_rival_within_budget, train_within_budget
from pages.common.algorithm_measures import (
    LOST_SHOWN,
    REMOVALS_SHOWN,
    Measures,
    measure,
    shipped_measures,
)
from pages.common.menus import by_label, listed, shown_value, whole_number
from pages.common.navigation import page_header
from pages.common.presenter import show_table
from pages.common.stepper import control_position, drawn_alone, kept_view, stepper
from pages.common.tokenizers import (
    TRAINING_BUDGET,
    TrainingCancelled,
    approximate_size,
    corpus_pieces,
    merges_learned,
    trained_once,
    training_key,
)
from pages.common.url_state import (
    LINKED,
    choice_buttons,
    current_choices,
    fraction_input,
    keep_in_link,
    labelled_choices,
    whole_number_input,
)
from pages.common.widgets import encode_for_view, shared_text, show_tokens

HOW_EACH_LEARNS = {
    "bpe": "| **BPE** (GPT, Llama) | merging the most frequent pair of tokens, again and again | a leading space marks a "
           "word start: “ the” | its UTF-8 bytes: never unknown | kept, as bytes |",
    "superbpe": "| **SuperBPE** (Liu et al. 2025) | BPE inside words up to a *transition* size, then BPE across spaces | "
                "superwords across words: “ of the”, “, and” | its UTF-8 bytes | kept, inside superwords too |",
    "boundless": "| **BoundlessBPE** (Schmidt et al. 2025) | BPE, and *supermerges*: two neighbouring words that are each "
                 "one token join | “ of the” as one token | its UTF-8 bytes | kept, as bytes |",
    "picky": "| **Picky BPE** (Chizhov et al. 2024) | BPE that *removes* a token once a merge leaves it hardly used on "
             "its own, and learns another | as BPE, without the leftovers | its UTF-8 bytes | kept, as bytes |",
    "wordpiece": "| **WordPiece** (BERT) | merging the pair that most raises the text's likelihood: count(ab) / "
                 "(count(a)·count(b)) | “##” marks a piece inside a word: “##ing” | the whole word becomes [UNK] | dropped |",
    "unigram": "| **Unigram** (T5, SentencePiece) | pruning a large set of candidates, keeping what a unigram model needs "
               "most | “▁” marks a space: “▁the” | <unk> | kept, as ▁ |",
}
HOW_EACH_LEARNS_HEAD = ("| | learns by | a word's pieces | a character it never saw | whitespace |\n"
                        "|---|---|---|---|---|\n")

page_header(
    "Algorithms",
    "BPE and what came after it (SuperBPE, BoundlessBPE, Picky BPE) beside WordPiece and Unigram, trained on the same "
    "text to the same vocabulary size: where each cuts the same text, how well each compresses it, its superwords or "
    "removals, and what it does to 30 languages.",
)


# ---------------------------------------------------------------- training


@st.cache_resource(max_entries=32, show_spinner=False)
def rival(corpus_id: str, vocab_size: int, algorithm: str, _waiting) -> HFTokenizer:
    """WordPiece or Unigram on a corpus, trained once for every session, in
    a worker process within the training budget."""
    arguments = (algorithm, corpus_parts(corpus_id)[0], vocab_size)
    return train_rival_within_budget(train_rival, arguments, TRAINING_BUDGET, waiting=_waiting)


def on_the_engine(algorithm: str, training_text: str, settings: dict):
    """BPE, SuperBPE, BoundlessBPE or Picky BPE on a text, trained once for
    every session in a worker (progress, Cancel, place in line)."""
    def training(progress, waiting):
        return train_within_budget(training_text, TRAINING_BUDGET, algorithm=algorithm, progress=progress,
                                   waiting=waiting, **settings)

    key = ("algorithms", algorithm, *training_key(training_text, settings))
    return trained_once(key, training, size_of=approximate_size,
                        describe=lambda done, total: f"{ALGORITHMS[algorithm]}: {merges_learned(done, total)}")


def trained(algorithm: str, corpus_id: str, settings: dict):
    """One algorithm's tokenizer: shipped with the app for the default
    corpus and settings, else trained (Hugging Face's trainers report no
    progress of their own; each takes a second or a few)."""
    training_text = corpus_parts(corpus_id)[0]
    shipped = shipped_tokenizer(algorithm, training_text, settings)
    if shipped is not None:
        return shipped
    if algorithm in ON_THE_ENGINE:
        return on_the_engine(algorithm, training_text, settings)
    bar = st.progress(0.0, text=f"Training {ALGORITHMS[algorithm]}…")

    def wait(ahead: int) -> None:
        bar.progress(0.0, text=f"Training {ALGORITHMS[algorithm]}… waiting for a free core ({ahead} ahead of you)")

    try:
        return rival(corpus_id, settings["vocab_size"], algorithm, wait)
    finally:
        bar.empty()


def trained_all(chosen: list[str], corpus_id: str, settings: dict[str, dict]) -> dict:
    """Each chosen algorithm's tokenizer; one that cannot be trained (its
    settings refused, training cancelled or over the budget) says why in
    one line, and the others are shown."""
    tokenizers = {}
    for algorithm in chosen:
        try:
            tokenizers[algorithm] = trained(algorithm, corpus_id, settings[algorithm])
        except (TrainingCancelled, OverBudgetError, ValueError) as stopped:  # ValueError: a trainer refused the size
            st.warning(f"{ALGORITHMS[algorithm]}: {markdown_literal(str(stopped))}")
    return tokenizers


# ---------------------------------------------------------------- measuring


def measured(corpus_id: str, tokenizers: dict) -> Measures:
    """The measures of `tokenizers` on `corpus_id`'s held-out text: shipped
    for the default view's, else a second or more of encoding the text a
    few times per tokenizer, the same for every visitor, so done once for
    every session."""
    held_out = corpus_parts(corpus_id)[1]
    shipped = shipped_measures(tokenizers, held_out)
    if shipped is not None:
        return shipped
    key = tuple((algorithm, id(tokenizer)) for algorithm, tokenizer in tokenizers.items())
    return _measured(corpus_id, key, tokenizers)[1]


@st.cache_resource(max_entries=32, show_spinner=False)
def _measured(corpus_id: str, key: tuple, _tokenizers: dict) -> tuple[tuple, Measures]:
    """`measured`, cached by the tokenizers' identity (`key`): the cached
    value holds the tokenizers, so no other object can take their ids while
    it is kept, and a tokenizer trained again is measured again."""
    return tuple(_tokenizers.values()), measure(_tokenizers, corpus_parts(corpus_id)[1], word_language(corpus_id))


# ---------------------------------------------------------------- showing


def show_boundaries(tokenizers: dict) -> None:
    st.subheader("The same text, each way")
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
    rows = algorithm_rows(list(measures.costs))
    show_table(rows, grid=False, hide_index=True, column_config={
        "bytes per token": st.column_config.NumberColumn(format="%.2f"),
        "chars per token": st.column_config.NumberColumn(format="%.2f"),
        "tokens per word": st.column_config.NumberColumn(format="%.2f", help="Fertility (Rust et al. 2021)"),
        "words split": st.column_config.NumberColumn(format="percent", help="Words that take more than one token"),
        "characters lost": st.column_config.NumberColumn(help="Characters of the text behind unknown tokens"),
    })
    with st.popover("These numbers (CSV)"):  # the download button's code is loaded only once it is opened
        st.download_button("Download algorithms.csv", lambda: frame_csv(rows), "algorithms.csv", "text/csv",
                           key="algorithms_csv", on_click="ignore")
    st.html(measures.bars)
    st.caption(f"The held-out text: {len(held_out):,} characters. {HOW_WORDS_ARE_COUNTED}")


def show_superwords_and_removals(measures: Measures) -> None:
    """SuperBPE's and BoundlessBPE's tokens across words, Picky BPE's removals."""
    if not measures.superwords and not measures.removals:
        return
    st.subheader("Superwords and removals")
    for algorithm, words in measures.superwords.items():
        count = measures.superword_count[algorithm]
        st.markdown(f"**{ALGORITHMS[algorithm]}**: {count:,} token{'s' * (count != 1)} span{'s' * (count == 1)} words; "
                    "the most used on the held-out text:")
        st.html(superwords_html(words))
    for algorithm, removed in measures.removals.items():
        st.markdown(f"**{ALGORITHMS[algorithm]}** removed {len(removed):,} token{'s' * (len(removed) != 1)} while "
                    f"training{'; the first ones' if len(removed) > REMOVALS_SHOWN else ''}:")
        st.html(removals_html(removed[:REMOVALS_SHOWN]))


def show_keeps_and_drops(measures: Measures) -> None:
    st.subheader("What each keeps that the others drop")
    st.caption(
        "Pieces are compared without their word marks (“ the”, “##the” and “▁the” all read “the”). Below: the "
        "pieces only one algorithm learned, the ones it used most on the held-out text first."
    )
    others = "the other vocabulary" if len(measures.only_here) == 2 else "every other vocabulary"
    algorithms = list(measures.only_here)
    for row in range(0, len(algorithms), 3):  # three to a row: a column stays wide enough for its chips
        for algorithm, column in zip(algorithms[row:row + 3], st.columns(3)):
            with column:
                st.markdown(f"**{ALGORITHMS[algorithm]}**: {measures.shares[algorithm]:.0%} of its pieces are in "
                            f"{others}; {measures.only_here_count[algorithm]:,} are its own.")
                st.html(only_here_html(measures.only_here[algorithm]))
                lost = measures.lost[algorithm]
                if lost:
                    quoted = ", ".join(f"“{markdown_literal(item)}”" for item in lost[:LOST_SHOWN])
                    st.caption(f"Lost as unknown in the held-out text: {quoted}" + (" …" if len(lost) > LOST_SHOWN else ""))
                elif algorithm in ON_THE_ENGINE:
                    st.caption("Nothing is unknown: every byte has a token.")


@st.cache_resource(max_entries=32, show_spinner=False)
def measured_languages(algorithm: str, vocab_size: int, settings_key: tuple, _tokenizer) -> dict[str, int]:
    """`language_tokens` of a tokenizer trained on the passage, once for every session."""
    return language_tokens(_tokenizer)


def languages_of(algorithm: str, settings: dict) -> dict[str, int]:
    """Each language's tokens under `algorithm` trained on the passage:
    shipped for the default settings, else trained and counted here."""
    training_text = corpus_parts(ALL_LANGUAGES)[0]
    shipped = shipped_language_tokens(algorithm, training_text, settings)
    if shipped is not None:
        return shipped
    tokenizer = trained(algorithm, ALL_LANGUAGES, settings)
    return measured_languages(algorithm, settings["vocab_size"], tuple(sorted(settings.items())), tokenizer)


def show_languages(chosen: list[str], settings: dict[str, dict]) -> None:
    """Trained on the 30-language passage, the premium each language pays
    against English under each algorithm, and how uneven (Gini)."""
    with st.expander("Across 30 languages: does the gain fall evenly?", key="algorithms_languages_open",
                     on_change="rerun") as opened:
        if not opened.open:
            return
        algorithms = ["bpe", *(algorithm for algorithm in chosen if algorithm != "bpe")]  # plain BPE beside each
        effects: dict[str, LanguageEffect] = {}
        for algorithm in algorithms:
            try:
                effects[algorithm] = language_effect(algorithm, languages_of(algorithm, settings[algorithm]))
            except (TrainingCancelled, OverBudgetError, ValueError) as stopped:
                st.warning(f"{ALGORITHMS[algorithm]}: {markdown_literal(str(stopped))}")
        if "bpe" not in effects:
            return
        st.caption(
            "Each algorithm trained on the passage's first 14 sentences in all 30 languages (the same vocabulary size "
            "and settings as above), measured on its last 6, the same content in every language. Premium: a "
            "language's tokens over English's (Petrov et al. 2023). Gini: how unevenly the tokens fall across "
            "languages, 0 when every language costs the same (parity-aware BPE's measure, arXiv 2508.04796)."
        )
        st.html(gini_bars(list(effects.values())))
        show_table(language_rows(list(effects.values())), grid=False, hide_index=True)


STEPS_OPEN, STEPPED_KEY = "algorithms_steps_open", "algorithms_stepped"  # the section, and whose training
STEPPER_KEY, STEP_PARAM, SPEED_PARAM = "algorithms_stepper", "algorithms_step", "algorithms_speed"
STEPPING_NOTES = {
    "bpe": "Plain BPE: every step merges the most frequent pair.",
    "superbpe": "SuperBPE: the heading says each merge's stage; at the transition its merges start to cross spaces. "
                "The text is shown as stage 2 splits it (spaces inside pieces).",
    "boundless": "BoundlessBPE: a supermerge's heading says so; the text shows each word's own merges (a superword "
                 "joins whole words, which Encode replay shows step by step).",
    "picky": "Picky BPE: a removal is a step of its own, after the merge that made the token nearly unused on its "
             "own; the text splits it back there.",
}


@st.cache_resource(max_entries=16, show_spinner="Preparing the steps…")  # read-only: shared, never copied
def stepping_view(tokenizer_key: str, corpus_id: str, first_step: int, last_step: int, _tokenizer) -> bytes:
    """Everything the step control shows for steps `first_step` to
    `last_step` of one algorithm's training (`training_run_view`), once per
    tokenizer and span."""
    corpus = corpus_parts(corpus_id)[0]
    pieces = corpus_pieces(corpus_fingerprint(corpus), corpus, _tokenizer.pattern, tuple(_tokenizer.special_tokens))
    sample = catalog().get(corpus_id)
    opening = sample.opening_offset(corpus) if sample is not None else 0
    return drawn_alone(lambda: compressed_view(
        training_run_view(_tokenizer, corpus, pieces, range(first_step, last_step + 1), opening=opening)))


def show_steps(tokenizers: dict, corpus_id: str) -> None:
    """The step control over the training of one of the algorithms on the
    engine: Train's control, with each algorithm's own kind of step."""
    stepped = {algorithm: ALGORITHMS[algorithm] for algorithm in tokenizers if algorithm in ON_THE_ENGINE}
    if not stepped:
        return
    linked = STEP_PARAM in st.query_params or STEPPED_KEY in st.query_params
    with st.expander("Step through a training: merges, the transition, supermerges and removals", key=STEPS_OPEN,
                     expanded=linked, on_change="rerun") as section:
        if not section.open:
            return
        algorithm = choice_buttons(st, stepped, key=STEPPED_KEY, default="superbpe" if "superbpe" in stepped else
                                   next(iter(stepped)), help="Whose training the step control steps through.")
        if st.session_state.get(f"{STEPPED_KEY}_shown", algorithm) != algorithm:  # another training: from its start
            st.query_params.pop(STEP_PARAM, None)
        st.session_state[f"{STEPPED_KEY}_shown"] = algorithm
        control = f"{STEPPER_KEY}_{algorithm}"  # each training's control keeps its own step
        tokenizer = tokenizers[algorithm]
        st.caption(STEPPING_NOTES[algorithm] + " Keys: → next, ← previous, Home, End, space to play or pause.")
        total = len(tokenizer.events) if isinstance(tokenizer, ReplayTokenizer) else len(tokenizer.trace)

        @st.fragment
        def stepping():
            step, speed = control_position(control, total, STEP_PARAM, SPEED_PARAM)
            steps = held_steps(step, total)
            view_key = f"{tokenizer.fingerprint}:{corpus_id}:{steps.start}"
            view = kept_view(control, view_key, lambda: stepping_view(
                tokenizer.fingerprint, corpus_id, steps.start, steps[-1], tokenizer))
            stepper(view, view_key=view_key, key=control, step=step, speed=speed, param=STEP_PARAM,
                    speed_param=SPEED_PARAM, steps=steps, playable=True)
            keep_in_link(STEP_PARAM, step, 0)
            keep_in_link(SPEED_PARAM, speed, 1)

        stepping()


CHOSEN_KEY, CORPUS_KEY, VOCAB_KEY = "algorithms_chosen", "algorithms_corpus", "algorithms_vocab"
TRANSITION_KEY, THRESHOLD_KEY = "algorithms_transition", "algorithms_threshold"
VOCAB_RANGE = dict(min_value=300, max_value=8_000)
DEFAULT_CHOSEN = list(ALGORITHMS)


def choose_algorithms(place) -> list[str]:
    """Which algorithms, in a popover labelled with them."""
    labels = dict(ALGORITHMS)
    shown = current_choices(CHOSEN_KEY, labels, DEFAULT_CHOSEN)  # the session's, else the link's: known before it is drawn
    with place.popover(f"Algorithms: {listed([labels[algorithm] for algorithm in shown], shown=6)}"):
        return labelled_choices(st, "Algorithms to compare (two or more)", labels, key=CHOSEN_KEY,
                                default=DEFAULT_CHOSEN)


def choose_training(place) -> tuple[str, int, int, float]:
    """The training text, vocabulary size, SuperBPE's transition and Picky
    BPE's threshold, in a popover labelled with the first two."""
    corpora = algorithm_corpora()
    corpus_shown = shown_value(CORPUS_KEY, DEFAULT_CORPUS, by_label(corpora))
    size_shown = shown_value(VOCAB_KEY, DEFAULT_VOCAB_SIZE, whole_number(VOCAB_RANGE["min_value"], VOCAB_RANGE["max_value"]))
    with place.popover(f"Trained on {markdown_literal(corpora[corpus_shown])}, {size_shown:,} tokens each"):
        corpus_id = st.selectbox("Training text", list(corpora), index=list(corpora).index(DEFAULT_CORPUS),
                                 format_func=corpora.get, key=CORPUS_KEY, **LINKED)
        vocab_size = whole_number_input(st, "Vocabulary size (each)", key=VOCAB_KEY, value=DEFAULT_VOCAB_SIZE,
                                        **VOCAB_RANGE, step=500)
        transition = whole_number_input(
            st, "SuperBPE's transition", key=TRANSITION_KEY, value=DEFAULT_TRANSITION, min_value=1, max_value=100_000,
            step=100, help="The vocabulary size at which SuperBPE starts learning across spaces: at least 256 and "
            "below the vocabulary size.")
        threshold = fraction_input(
            st, "Picky BPE's threshold", key=THRESHOLD_KEY, value=DEFAULT_THRESHOLD,
            help="A token is removed when more than this share of its uses were inside the token just merged "
            "(IoS). Above 0, at most 1 (1: plain BPE).")
    return corpus_id, int(vocab_size), int(transition), float(threshold)


def chosen_settings(chosen: list[str], vocab_size: int, transition: int, threshold: float) -> dict[str, dict]:
    """Each chosen algorithm's training settings; an algorithm whose settings
    are refused is left out, with the trainer's one line."""
    problems = settings_problems(vocab_size, transition, threshold)
    settings = {}
    for algorithm in chosen:
        if algorithm in problems:
            st.error(f"{ALGORITHMS[algorithm]} is left out: {markdown_literal(problems[algorithm])}")
            continue
        settings[algorithm] = training_settings(algorithm, vocab_size, pattern=BPE_PATTERN, transition=transition,
                                                threshold=threshold)
    if "bpe" not in settings:  # the per-language view measures every algorithm beside plain BPE
        settings["bpe"] = training_settings("bpe", vocab_size, pattern=BPE_PATTERN, transition=transition,
                                            threshold=threshold)
    return settings


toolbar = st.container(horizontal=True)
chosen = choose_algorithms(toolbar)
corpus_id, vocab_size, transition, threshold = choose_training(toolbar)
if len(chosen) < 2:
    st.info("Choose two or more algorithms to compare in the Algorithms menu.")
    st.stop()
settings = chosen_settings(chosen, vocab_size, transition, threshold)
chosen = [algorithm for algorithm in chosen if algorithm in settings]
st.markdown(HOW_EACH_LEARNS_HEAD + "\n".join(HOW_EACH_LEARNS[algorithm] for algorithm in chosen))
tokenizers = trained_all(chosen, corpus_id, settings)
if not tokenizers:
    st.stop()
held_out_text = corpus_parts(corpus_id)[1]
short = [f"{ALGORITHMS[algorithm]} at {vocabulary_size(tokenizer):,}" for algorithm, tokenizer in tokenizers.items()
         if vocabulary_size(tokenizer) < vocab_size]
if short:
    st.caption(f"Stopped below {vocab_size:,} tokens: {', '.join(short)}. This text holds too few pairs seen twice "
               "(BPE and those on it), too few characters and pairs (WordPiece) or too few frequent substrings to seed "
               "from (Unigram) for more.")
if "wordpiece" in tokenizers and tokenizers["wordpiece"].n_vocab > vocab_size:
    st.caption(f"WordPiece has {tokenizers['wordpiece'].n_vocab:,} tokens: it keeps every character of its training text "
               "in its vocabulary, more than the size asked for in a text of many scripts.")
measures = measured(corpus_id, tokenizers)
show_boundaries(tokenizers)
show_measures(measures, held_out_text)
show_superwords_and_removals(measures)
show_steps(tokenizers, corpus_id)
show_languages(chosen, settings)
show_keeps_and_drops(measures)
