"""Compression: bytes per token against vocabulary size, for several corpora.

Each bundled corpus is split (its last 10 % held out), trained on once per
vocabulary size and split pattern, and measured; all of it is cached across
sessions, so changing the metric or the axis only redraws the chart. The
measuring and the chart are in `bpe_core.compression`.
"""

from collections.abc import Callable

import streamlit as st

from bpe_core import PRESETS, Tokenizer
from bpe_core.analysis.compression import (
    HELD_OUT_FRACTION,
    Curves,
    ReferencePoint,
    chart_corpora,
    corpus_curves,
    corpus_text,
    reference_points,
    split_held_out,
)
from bpe_core.analysis.downloads import frame_csv
from bpe_core.analysis.shipped_compression import DEFAULT_CORPORA, DEFAULT_SETTINGS, shipped_curves, shipped_reference
from bpe_core.drawing.compression import CORPUS_COLOURS, compression_figure, compression_table, plotted_points
from bpe_core.drawing.markdown import markdown_literal
from bpe_core.engine.corpus import corpus_fingerprint
from bpe_core.engine.patterns import PRESET_LABELS
from pages.common.menus import by_label, listed, shown_choices, shown_flag, shown_value, whole_number
from pages.common.navigation import page_header
from pages.common.presenter import show_figure, show_table
from pages.common.tokenizers import (
    BUNDLED_ENCODINGS,
    OPENAI_ENCODINGS,
    TRAINED_HERE,
    TrainedTokenizer,
    loadable_encodings,
    session_trained,
    train_on,
)
from pages.common.url_state import LINKED, whole_number_input

TRAINED_HERE_LABEL = "Trained here"
METRIC_LABELS = {"bytes": "Bytes", "chars": "Characters"}
NUMBERS_OPEN = "compression_numbers"  # the popover of the numbers: open or not

page_header(
    "Compression",
    "Bytes per token is how many bytes of UTF-8 text one token covers on average: the higher it is, "
    "the more text fits into a model's context window. Every merge adds a token to the vocabulary and "
    "shortens the text; this chart shows how much, on the training text and on text held out from it.",
)


# ------------------------------------------------------------------ inputs


def corpus_options() -> dict[str, str]:
    """Corpus id -> label: the bundled corpora, and the Train page's tokenizer if there is one."""
    options = chart_corpora()
    if session_trained() is not None:
        options[TRAINED_HERE] = TRAINED_HERE_LABEL
    return options


CORPORA_KEY, REFERENCES_KEY = "compression_corpora", "compression_references"
VOCAB_KEY, PATTERN_KEY = "compression_vocab", "compression_pattern"
METRIC_KEY, LOG_X_KEY = "compression_metric", "compression_log_x"
VOCAB_RANGE = dict(min_value=300, max_value=20_000)
SHORT_CORPUS_NAMES = {  # for the label of the corpora's popover; the widget shows the full titles
    "english_prose": "English prose", "japanese": "Japanese prose", "python_code": "Python code",
    "emoji_and_unicode": "Emoji chat", "tiny_shakespeare": "Tiny Shakespeare", TRAINED_HERE: TRAINED_HERE_LABEL,
}


def short_corpus_name(corpus_id: str, options: dict[str, str]) -> str:
    return SHORT_CORPUS_NAMES.get(corpus_id) or options[corpus_id].removeprefix("Parallel corpus: ")


def choose_corpora(place, options: dict[str, str]) -> list[str]:
    default = [corpus_id for corpus_id in DEFAULT_CORPORA if corpus_id in options]
    shown = shown_choices(CORPORA_KEY, options, default)
    with place.popover(f"Corpora: {listed([short_corpus_name(corpus_id, options) for corpus_id in shown])}"):
        return st.multiselect(
            "Corpora",
            list(options),
            default=default,
            format_func=options.get,
            key=CORPORA_KEY,
            max_selections=len(CORPUS_COLOURS),
            **LINKED,
            help="Each is trained on separately. “Trained here” is the tokenizer from the Train page, "
            "measured on its own training text.",
        )


def choose_training(place) -> tuple[int, str]:
    """The vocabulary size and split pattern of the tokenizers trained here."""
    vocab_size = shown_value(VOCAB_KEY, DEFAULT_SETTINGS["vocab_size"], whole_number(VOCAB_RANGE["min_value"], VOCAB_RANGE["max_value"]))
    pattern = shown_value(PATTERN_KEY, DEFAULT_SETTINGS["pattern"], by_label(PRESET_LABELS))
    with place.popover(f"Vocabulary {vocab_size:,}, pattern {PRESET_LABELS[pattern]}"):
        vocab_size = whole_number_input(
            st, "Max vocabulary size", key=VOCAB_KEY, value=DEFAULT_SETTINGS["vocab_size"], **VOCAB_RANGE,
            step=500, help="256 byte tokens plus merges. Training may stop earlier on a small corpus.",
        )
        pattern = st.selectbox(
            "Split pattern", list(PRESETS), index=list(PRESETS).index(DEFAULT_SETTINGS["pattern"]), key=PATTERN_KEY,
            format_func=PRESET_LABELS.get, **LINKED,
            help="Pre-tokenization for the tokenizers trained here (the OpenAI ones keep their own).",
        )
    return int(vocab_size), pattern


def choose_references(place) -> list[str]:
    shown = shown_choices(REFERENCES_KEY, {name: name for name in BUNDLED_ENCODINGS}, OPENAI_ENCODINGS)
    with place.popover(f"Reference points: {listed(shown)}"):
        return st.multiselect(
            "Reference points", list(BUNDLED_ENCODINGS), default=list(OPENAI_ENCODINGS), key=REFERENCES_KEY,
            **LINKED, placeholder="none",
            help="Real models' tokenizers, measured on the same text: a marker each, at its vocabulary size. "
            + " ".join(f"{label}." for label in BUNDLED_ENCODINGS.values()),
        )


def choose_axes(place) -> tuple[str, bool]:
    """What the chart plots per token, and its vocabulary axis's scale."""
    metric = shown_value(METRIC_KEY, "bytes", by_label(METRIC_LABELS))
    log_x = shown_flag(LOG_X_KEY, True)
    with place.popover(f"{METRIC_LABELS[metric]} per token, {'log' if log_x else 'linear'} axis"):
        metric = st.segmented_control(
            "Per token", list(METRIC_LABELS), default="bytes", required=True, format_func=METRIC_LABELS.get,
            key=METRIC_KEY, **LINKED,
        )
        log_x = st.toggle("Log-scale vocabulary axis", value=True, key=LOG_X_KEY, **LINKED,
                          help="The OpenAI vocabularies are 50k–200k tokens; on a linear axis the curves "
                          "squeeze into the left edge.")
    return metric, log_x


def choose_view(options: dict[str, str]) -> tuple[list[str], dict]:
    """The corpora and settings, each set of them in a popover labelled with its choice, in one row."""
    row = st.container(horizontal=True, vertical_alignment="center")
    corpus_ids = choose_corpora(row, options)
    vocab_size, pattern = choose_training(row)
    references = choose_references(row)
    metric, log_x = choose_axes(row)
    return corpus_ids, dict(vocab_size=vocab_size, pattern=pattern, metric=metric, log_x=log_x,
                            references=tuple(loadable_encodings(references)))


# --------------------------------------------------------------- measuring


@st.cache_resource(max_entries=64, show_spinner=False)
def parts_of(corpus_id: str) -> tuple[str, str]:
    """A bundled corpus cut into (training text, held-out end), once."""
    return split_held_out(corpus_text(corpus_id), HELD_OUT_FRACTION)


def tokenizer_for(corpus_id: str, vocab_size: int, pattern: str) -> Tokenizer:
    """Trained on all but the held-out end of a bundled corpus; shared by every session."""
    return train_on(parts_of(corpus_id)[0], vocab_size=vocab_size, pattern=pattern)


@st.cache_data(max_entries=64, show_spinner=False)
def curves_for(corpus_id: str, vocab_size: int, pattern: str, _tokenizer: Tokenizer) -> Curves:
    """The curves of `_tokenizer`, trained on the corpus with these settings."""
    training_text, held_out_text = parts_of(corpus_id)
    return corpus_curves(_tokenizer, training_text, held_out_text)


@st.cache_data(max_entries=256, show_spinner=False)
def reference_for(corpus_id: str, encoding: str) -> list[ReferencePoint]:
    """An encoding's point on a bundled corpus's held-out text: shipped with
    the app, else measured once (which loads the encoding)."""
    held_out_text = parts_of(corpus_id)[1]
    shipped = shipped_reference(held_out_text, encoding)
    return [shipped] if shipped is not None else reference_points(held_out_text, [encoding])


@st.cache_data(max_entries=4, show_spinner=False)
def trained_here_curves(tokenizer_fingerprint: str, corpus_fingerprint: str, _trained: TrainedTokenizer) -> Curves:
    """The Train page's tokenizer on its own training text: its trace gives
    the training curve. Nothing of that text was held out, so there is no
    held-out curve."""
    return corpus_curves(_trained.tokenizer, _trained.corpus, None)


@st.cache_data(max_entries=64, show_spinner=False)
def trained_here_reference(corpus_fingerprint: str, encoding: str, _corpus) -> list[ReferencePoint]:
    """A reference encoding on the Train page's training text (there is no held-out text)."""
    return reference_points(_corpus, [encoding]) if isinstance(_corpus, str) else []


def measure(corpus_id: str, settings: dict, working: Callable[[], None]) -> tuple[Curves, list[ReferencePoint]]:
    """A corpus's curves and reference points: shipped with the app for the
    default chart, else trained and measured once for every session, after
    calling `working` (the page shows its progress bar)."""
    if corpus_id == TRAINED_HERE:
        working()
        trained = session_trained()
        fingerprint = corpus_fingerprint(trained.corpus)
        curves = trained_here_curves(trained.tokenizer.fingerprint, fingerprint, trained)
        return curves, [point for name in settings["references"]
                        for point in trained_here_reference(fingerprint, name, trained.corpus)]
    vocab_size, pattern = settings["vocab_size"], settings["pattern"]
    training_text, held_out_text = parts_of(corpus_id)
    curves = shipped_curves(training_text, held_out_text, vocab_size, pattern)
    shipped_points = {name: shipped_reference(held_out_text, name) for name in settings["references"]}
    if curves is None or None in shipped_points.values():
        working()
    if curves is None:
        curves = curves_for(corpus_id, vocab_size, pattern, tokenizer_for(corpus_id, vocab_size, pattern))
    return curves, [point for name, shipped in shipped_points.items()
                    for point in ([shipped] if shipped is not None else reference_for(corpus_id, name))]


def measure_all(corpus_ids: list[str], options: dict[str, str], settings: dict):
    """Curves and reference points by corpus label, with a progress bar from
    the first corpus that is not shipped (the default chart's are: it opens
    with no bar to draw and clear); a corpus that cannot be measured is
    reported and left out."""
    curves, reference = {}, {}
    bar = None
    for done, corpus_id in enumerate(corpus_ids):
        label = options[corpus_id]
        progress = {"value": done / len(corpus_ids),
                    "text": f"Training and measuring {label} ({done + 1} of {len(corpus_ids)})…"}

        def working(progress: dict = progress) -> None:
            nonlocal bar
            if bar is None:
                bar = st.progress(**progress)

        if bar is not None:
            bar.progress(**progress)
        try:
            curves[label], reference[label] = measure(corpus_id, settings, working)
        except ValueError as error:
            st.warning(f"{markdown_literal(label)} cannot be measured: {markdown_literal(str(error))}")
    if bar is not None:
        bar.empty()
    return curves, reference


# -------------------------------------------------------------------- page


def reading_guide(show_reference: bool, with_trained_here: bool) -> None:
    guide = (
        f"**Solid lines**: the text each tokenizer was trained on. **Dashed lines**: the last "
        f"{HELD_OUT_FRACTION:.0%} of the same corpus, held out from training. The gap between them is "
        "memorisation: a merge that only fits the training text (a name, a repeated phrase) lifts the solid "
        "line but not the dashed one."
    )
    if show_reference:
        guide += (
            " **Markers**: real models' tokenizers on the same held-out text. Their vocabularies are far larger "
            "(32k–200k tokens) but shared among many languages and kinds of text, so a small tokenizer trained "
            "on one kind of text can come close to them on it, or even beat them; cl100k and o200k, trained on "
            "more code and more languages, compress code and Japanese clearly better than GPT-2."
        )
    st.markdown(guide)
    if with_trained_here:
        st.caption(
            "“Trained here” learned from all of its text, so it has no dashed line; its markers are "
            "measured on that training text."
        )


def chart_of(curves: dict, reference: dict, corpus_ids: list[str], settings: dict):
    """The chart; of bundled corpora only, made once for every session (a
    figure of some twenty traces takes plotly.py most of a tenth of a second
    to build and check), shared as it is: drawing never changes a figure."""
    if TRAINED_HERE in corpus_ids:
        return compression_figure(curves, reference, metric=settings["metric"], log_x=settings["log_x"])
    drawn = (tuple(curves), tuple((label, tuple(points)) for label, points in reference.items()))
    return bundled_chart(drawn, settings["vocab_size"], settings["pattern"], settings["metric"], settings["log_x"],
                         curves, reference)


@st.cache_resource(max_entries=32, show_spinner=False)
def bundled_chart(drawn: tuple, vocab_size: int, pattern: str, metric: str, log_x: bool, _curves: dict, _reference: dict):
    """`compression_figure` of bundled corpora, whose curves follow from the
    corpora drawn (`drawn`: their labels and reference points) and the settings."""
    return compression_figure(_curves, _reference, metric=metric, log_x=log_x)


def show_numbers(curves: dict, reference: dict) -> None:
    """Every plotted number: a table, and a CSV file, in a popover. Its
    table is drawn only while it is open: a thousand rows and the data
    grid's code are a third of a second of every page load, for a table
    most visitors never open. The table itself is made only for them and for
    the download (pandas is a third of a second of a first visit's run)."""
    # A label that never changes: the popover's open state is keyed by it, and the row count moves.
    with st.popover("The numbers", key=NUMBERS_OPEN, on_change="rerun") as numbers:
        st.caption(f"{plotted_points(curves, reference):,} rows: every plotted point.")
        st.download_button(
            "Download the numbers (CSV)", lambda: frame_csv(compression_table(curves, reference)),  # made on a click
            "compression.csv", "text/csv", key="compression_csv", on_click="ignore",
        )
        if numbers.open:
            show_table(compression_table(curves, reference), hide_index=True, width=720)


options = corpus_options()
corpus_ids, settings = choose_view(options)
if not corpus_ids:
    st.info("Choose at least one corpus.")
else:
    curves, reference = measure_all(corpus_ids, options, settings)
    if curves:
        show_figure(chart_of(curves, reference, corpus_ids, settings), key="compression_chart")
        reading_guide(bool(settings["references"]), TRAINED_HERE in corpus_ids)
        show_numbers(curves, reference)
