"""The session's tokenizers, by the names every picker shows, and training
cached across sessions.

A picker offers, in order: the tokenizer trained on the Train page ("trained
here"), the ones this session loaded from files ("loaded: <file name>"), a
small one trained on a sample at start ("starter"), the bundled OpenAI
encodings and the model zoo (`bpe_core.vocabularies.catalogue`: Llama, Tekken,
Mistral, Qwen, Whisper, Claude 1/2), each labelled with its maker, models and vocabulary size. Training is deterministic, so a trained tokenizer is described by
its `Recipe` (the corpus and the settings), which is small enough to travel
in a link and rebuild it in another session.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import TypeVar

import streamlit as st

from bpe_core import Tokenizer, load_encoding, train
from bpe_core.analysis.shipped_training import shipped_training
from bpe_core.corpora.samples import catalog
from bpe_core.drawing.markdown import markdown_literal
from bpe_core.engine.corpus import corpus_fingerprint, count_pieces
from bpe_core.engine.patterns import PRESET_LABELS
from bpe_core.engine.training import MAX_VOCAB_SIZE
from bpe_core.jobs.budgeted_training import Budget, train_within_budget
from bpe_core.jobs.shared_jobs import Listener, SharedJobs
from bpe_core.vocabularies.catalogue import (
    CATALOGUE,
    LISTED,
    OPENAI_GENERATIONS,
    ModelPackageMissing,
    encoding_source,
)
from bpe_core.vocabularies.model_folders import HuggingFaceTokenizer
from pages.common.names import LOADED_TOKENIZERS, TRAINED
from pages.common.shared_cache import SharedCache
from pages.common.url_state import LINK_TEXT_LIMIT, linked_value

# Every encoding that ships with the app or its packages, by picker name.
BUNDLED_ENCODINGS = {name: f"{name} — {CATALOGUE[name].label}" for name in LISTED}
# One per generation of OpenAI's models, which pages compare against by default.
OPENAI_ENCODINGS = {name: BUNDLED_ENCODINGS[name] for name in OPENAI_GENERATIONS}
TRAINED_HERE = "trained here"  # picker name of the Train page's tokenizer
STARTER = "starter"  # picker name of the small tokenizer trained on a sample at start
LOADED = "loaded: "  # picker-name prefix of tokenizers loaded from files
MAX_LOADED_TOKENIZERS = 4  # tokenizers from files kept per session (a vocabulary can take 100s of MB)
Result = TypeVar("Result")


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
        """The recipe a link carries, or None when it is damaged or unknown:
        every field is read strictly (a vocabulary size is a whole number in
        range, not 3.5, true or 10**5000)."""
        try:
            sample, text, vocab_size, pattern, units, specials = value
        except (TypeError, ValueError):
            return None
        well_formed = (
            type(vocab_size) is int and 1 <= vocab_size <= MAX_VOCAB_SIZE
            and isinstance(pattern, str) and units in ("bytes", "chars")
            and isinstance(specials, list) and all(isinstance(special, str) for special in specials)
        )
        from_sample = isinstance(sample, str) and sample in catalog() and text is None
        from_text = sample is None and isinstance(text, str) and 0 < len(text) <= LINK_TEXT_LIMIT
        if not (well_formed and (from_sample or from_text)):
            return None
        return cls(sample, text, vocab_size, pattern, units, tuple(specials))


@dataclass
class TrainedTokenizer:
    """The Train page's result, kept in the session for the other pages."""

    tokenizer: Tokenizer
    corpus: str | dict[str, int]  # what it was trained on
    corpus_label: str  # the same, in a few words for captions
    recipe: Recipe | None = None  # None when a link cannot rebuild it (an upload, long text)
    training_key: tuple | None = None  # the corpus and settings it was trained with (see `training_key`)


# ------------------------------------------------------------ cached training


_loaded: set[str] = set()  # bundled encodings this process has loaded (`load_encoding` keeps them)


def load_shared_encoding(name: str) -> Tokenizer:
    """A bundled or zoo encoding, loaded once for every session, without a
    page to report to (the warm-up loads what the first pages show)."""
    encoding = load_encoding(name)
    _loaded.add(name)
    return encoding


def bundled_encoding(name: str) -> Tokenizer:
    """A bundled or zoo encoding, loaded once for every session, with a
    spinner while it loads. A zoo model whose package is not installed
    stops the page with the pip command that adds it."""
    try:
        if name in _loaded:
            return load_encoding(name)
        with st.spinner("Loading the vocabulary…"):
            return load_shared_encoding(name)
    except ModelPackageMissing as error:
        st.error(markdown_literal(str(error)))
        st.stop()


def loadable_encodings(names) -> list[str]:
    """The names whose encodings load here; each that does not is named,
    with the pip command that adds it, and left out. Nothing is loaded to
    find out but for a zoo model whose package is not installed, which
    then says what is missing."""
    loadable = []
    for name in names:
        try:
            if encoding_source(name) is None:
                load_encoding(name)
            loadable.append(name)
        except ModelPackageMissing as error:
            st.warning(f"{markdown_literal(str(error))} It is left out.")
    return loadable


STARTER_RECIPE = dict(vocab_size=1_000, pattern="cl100k")  # on the English sample


STARTER_TOKENIZER = SharedCache(max_entries=1, max_bytes=50_000_000)


def make_starter_tokenizer() -> Tokenizer:
    """A tokenizer trained here at start-up, so every page has one to show:
    trained once for every session, without a page to report to."""
    return STARTER_TOKENIZER.get_or_make(STARTER, lambda: train(catalog()["english_prose"].load(), **STARTER_RECIPE),
                                         approximate_size)


def starter_tokenizer() -> Tokenizer:
    """The starter tokenizer, with a spinner while it trains."""
    found = STARTER_TOKENIZER.get(STARTER)
    if found is not None:
        return found
    with st.spinner("Training a small tokenizer on the English sample…"):
        return make_starter_tokenizer()


# Training happens in a process of its own (see bpe_core.jobs.budgeted_training):
# one visitor's upload neither holds other visitors' clicks nor the server's
# memory for long. The command line has no such budget.
TRAINING_BUDGET = Budget(seconds=45, memory_bytes=1_500_000_000)
TRAINED_TOKENIZERS = SharedCache(max_entries=24, max_bytes=400_000_000)  # what training gave, by training key
TRAINING_JOBS = SharedJobs()  # visitors asking for the same training at once share it
CANCELLED = "training_cancelled"  # session key: the training the user cancelled
PIECE_COUNTS = SharedCache(max_entries=8, max_bytes=200_000_000)  # read-only, shared by every session


class TrainingCancelled(ValueError):
    """The user stopped this training; it is not started again until the corpus or a setting changes."""


def training_key(corpus, settings: dict) -> tuple:
    """What names one training: the corpus's digest and the settings."""
    return corpus_fingerprint(corpus), tuple(sorted(settings.items()))


def train_on(corpus, **settings) -> Tokenizer:
    """`train(corpus, **settings)` once per corpus and settings, for every
    session, as `trained_once` runs any training; the Train page's default
    was trained at build time (`bpe_core.analysis.shipped_training`). Bad settings
    raise train's ValueError.

    The session's own tokenizer is kept in the session: when many visitors
    have pushed it out of the shared cache, it is not trained again."""
    key = training_key(corpus, settings)
    kept = session_trained()
    if kept is not None and kept.training_key == key:
        return kept.tokenizer
    shipped = shipped_training(key[0], settings)
    if shipped is not None:
        return shipped
    return trained_once(key, bpe_training(corpus, settings), describe=merges_learned, size_of=approximate_size)


def bpe_training(corpus, settings: dict) -> Callable[[Listener, Listener], Tokenizer]:
    """`train(corpus, **settings)` as a job for `trained_once` and `train_shared`."""
    def training(progress, waiting) -> Tokenizer:
        return train_within_budget(corpus, TRAINING_BUDGET, progress=progress, waiting=waiting, **settings)

    return training


def merges_learned(done: int, total: int) -> str:
    return f"Training… {done:,} / {total:,} merges" if total else "Training… (counting the corpus)"


def trained_once(key: Hashable, training: Callable[[Listener, Listener], Result], *,
                 describe: Callable[[int, int], str], size_of: Callable[[Result], int]) -> Result:
    """What `training(progress, waiting)` gives, once per `key` for every
    session. The training is a job on `bpe_core.jobs.budgeted_jobs` (a worker
    process within TRAINING_BUDGET); visitors who ask at the same moment
    share it, and its result is kept for the next ones. Meanwhile a
    progress bar says `describe(done, total)`, or the visitor's place in
    line while the cores are busy, beside a Cancel button."""
    found = TRAINED_TOKENIZERS.get(key)
    if found is not None:
        return found
    if st.session_state.get(CANCELLED) == key:
        raise TrainingCancelled("Training was cancelled; change the corpus or a setting to train again.")
    panel = st.empty()
    with panel.container():
        bar = st.progress(0.0, text=describe(0, 0))
        digest = hashlib.sha256(repr(key).encode()).hexdigest()[:16]
        st.button("Cancel training", key=f"cancel_{digest}", on_click=_cancel, args=(key,))

    def show(done: int, total: int) -> None:  # a Streamlit call: a click on Cancel ends the job here
        bar.progress(min(done / max(total, 1), 1.0), text=describe(done, total))

    def wait(ahead: int) -> None:
        bar.progress(0.0, text="Waiting for a free core: other visitors' training uses every one"
                     + (f" ({ahead} ahead of you)" if ahead else " (you are next)"))

    try:
        return train_shared(key, training, size_of, progress=show, waiting=wait)
    finally:
        panel.empty()


def train_shared(key: Hashable, training: Callable[[Listener, Listener], Result], size_of: Callable[[Result], int], *,
                 progress: Listener | None = None, waiting: Listener | None = None) -> Result:
    """`trained_once` without a page: the training shared with whoever asks
    for it at the same moment, and kept for every session. Also for work
    that depends on no visitor, such as the default settings' training
    warmed when the server starts."""
    result = TRAINED_TOKENIZERS.get(key)
    if result is None:
        result = TRAINING_JOBS.run(key, training, progress=progress, waiting=waiting)
        TRAINED_TOKENIZERS.put(key, result, size_of(result))
    return result


def trained_result(key: Hashable):
    """What a training shared by every session gave, if it is kept; else None."""
    return TRAINED_TOKENIZERS.get(key)


def _cancel(key) -> None:
    st.session_state[CANCELLED] = key


def approximate_size(tokenizer: Tokenizer) -> int:
    """Bytes a tokenizer holds, roughly: its tokens, its tables, tiktoken's copy."""
    return 400 * (len(tokenizer.vocab) + len(tokenizer.trace)) + 3 * sum(map(len, tokenizer.vocab.values()))


def train_from_recipe(recipe: Recipe) -> TrainedTokenizer:
    corpus = recipe.corpus()
    settings = dict(vocab_size=recipe.vocab_size, pattern=recipe.pattern, units=recipe.units,
                    special_tokens=recipe.special_tokens)
    return TrainedTokenizer(train_on(corpus, **settings), corpus, recipe.label(), recipe, training_key(corpus, settings))


# ------------------------------------------------------------- the session


def session_trained() -> TrainedTokenizer | None:
    return st.session_state.get(TRAINED)


def restore_trained_from_link() -> None:
    """A link made while a trained tokenizer was in use carries its recipe;
    opened in a session that does not have that tokenizer, train it again."""
    recipe = Recipe.from_link(linked_value(TRAINED))
    trained = session_trained()
    if recipe is None or (trained is not None and trained.recipe == recipe):
        return
    try:
        st.session_state[TRAINED] = train_from_recipe(recipe)
    except ValueError as error:
        st.warning(f"The link's trained tokenizer could not be rebuilt: {markdown_literal(str(error))}")


def loaded_tokenizers() -> dict[str, Tokenizer]:
    """Tokenizers this session loaded from files, by file name."""
    return st.session_state.setdefault(LOADED_TOKENIZERS, {})


def keep_loaded(file_name: str, tokenizer: Tokenizer) -> str:
    """Add a tokenizer loaded from a file to the session (a file of the same
    name replaces the old one, and only the newest few are kept); returns
    its picker name."""
    loaded = loaded_tokenizers()
    loaded.pop(file_name, None)
    loaded[file_name] = tokenizer
    while len(loaded) > MAX_LOADED_TOKENIZERS:
        loaded.pop(next(iter(loaded)))
    return LOADED + file_name


def tokenizer_choices() -> dict[str, str]:
    """Picker name -> label that says what the tokenizer is, the session's
    own tokenizers first."""
    choices = {}
    trained = session_trained()
    if trained is not None:
        choices[TRAINED_HERE] = f"Trained here — {_made_of(trained.tokenizer)}, on {trained.corpus_label}"
    for file_name, tokenizer in loaded_tokenizers().items():
        choices[LOADED + file_name] = f"Loaded from {file_name} — {_made_of(tokenizer)}"
    sizes = f"{STARTER_RECIPE['vocab_size']:,} tokens, {PRESET_LABELS[STARTER_RECIPE['pattern']]} split"
    choices[STARTER] = f"Starter — {sizes}, on {catalog()['english_prose'].title}"
    choices.update(BUNDLED_ENCODINGS)
    return choices


def short_label(name: str) -> str:
    """A picker name with its size and split, for a table row or a chart's axis."""
    if name in BUNDLED_ENCODINGS:
        return name
    tokenizer = tokenizer_by_name(name)
    if isinstance(tokenizer, HuggingFaceTokenizer):
        return f"{name} ({len(tokenizer.vocab):,}, {tokenizer.kind})"
    pattern = tokenizer.pattern_name if tokenizer.pattern_name != "custom" else "custom split"
    return f"{name} ({len(tokenizer.vocab):,}, {pattern})"


def _made_of(tokenizer: Tokenizer) -> str:
    if isinstance(tokenizer, HuggingFaceTokenizer):  # a model folder
        chat = ", with a chat template" if tokenizer.chat is not None else ""
        return f"{len(tokenizer.vocab):,} tokens, {tokenizer.kind} run by Hugging Face's tokenizers{chat}"
    units = "" if tokenizer.units == "bytes" else ", characters"
    split = PRESET_LABELS.get(tokenizer.pattern_name, "a custom regex")
    return f"{len(tokenizer.vocab):,} tokens{units}, {split} split"


def tokenizer_by_name(name: str) -> Tokenizer:
    if name == TRAINED_HERE and session_trained() is not None:
        return session_trained().tokenizer
    if name.startswith(LOADED) and name[len(LOADED):] in loaded_tokenizers():
        return loaded_tokenizers()[name[len(LOADED):]]
    if name == STARTER:
        return starter_tokenizer()
    if name in BUNDLED_ENCODINGS:
        return bundled_encoding(name)
    raise KeyError(f"No tokenizer {name!r} in this session.")


def shared_tokenizer(name: str) -> Tokenizer:
    """A tokenizer every session shares (the starter, a bundled or zoo
    encoding), made without a page to report to: for the warm-up."""
    return make_starter_tokenizer() if name == STARTER else load_shared_encoding(name)


def corpus_pieces(fingerprint: str, corpus, pattern: str, special_tokens: tuple) -> dict[str, int]:
    """A corpus's pieces and their counts under a split pattern (what the
    training view shows beside each merge), counted once for every session:
    kept here, in a module the server imports once, because a page's own
    script runs anew at every rerun and a cache made there starts empty."""
    return PIECE_COUNTS.get_or_make(
        (fingerprint, pattern, special_tokens), lambda: count_pieces(corpus, pattern, special_tokens),
        lambda pieces: sum(100 + 2 * len(piece) for piece in pieces),  # a dict entry, a str and an int
    )
