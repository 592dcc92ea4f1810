"""The Tax page's two experiments, trained as every training for a visitor is
(`tokenizers.trained_once`: a worker process within the training budget, a
progress bar, a place in line, Cancel; identical requests share one job and
its result is kept for every session).

- Train your own: this engine's BPE on a mix of the passage's languages.
- Parity: plain against parity-aware BPE, by Hugging Face
  (`bpe_core.analysis.tax.parity_experiment`).

Their default settings depend on no visitor: `warm_tax_experiments` trains
them without a page (the server's warm-up calls it, see `warm_up`), and the
OpenAI encodings' held-out rows the first experiment is drawn beside are
measured once for every session. A visit meanwhile draws each as a
placeholder that fills in (`mix_still_warming`, `parity_still_warming`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import streamlit as st

from bpe_core import Tokenizer
from bpe_core.analysis.tax import (
    HELD_OUT_LINES,
    ParityExperiment,
    TaxRow,
    languages,
    parallel_text,
    tax_table,
    training_mix,
)
from bpe_core.jobs.budgeted_training import parity_within_budget
from bpe_core.jobs.shared_jobs import Listener
from pages.common.shared_cache import SharedCache
from pages.common.tokenizers import (
    OPENAI_ENCODINGS,
    TRAINING_BUDGET,
    approximate_size,
    bpe_training,
    load_shared_encoding,
    train_on,
    train_shared,
    trained_once,
    trained_result,
    training_key,
)
from pages.common.warming import still_warming

DEFAULT_WEIGHTS = {"en": 1}  # English only
DEFAULT_VOCAB_SIZE = 2_000
DEFAULT_PATTERN = "o200k"
DEFAULT_MERGES = 1_500
DEFAULT_BASE = "en"
MIX_MIN_COUNT = 2  # pairs seen only once are not merged: no memorising the one-off pairs of a single passage


def mix_settings(vocab_size: int, pattern: str) -> dict:
    return dict(vocab_size=vocab_size, pattern=pattern, min_count=MIX_MIN_COUNT)


def mix_corpus(weights: Mapping[str, int]) -> str:
    """The training text of a mix (language code -> how often its sentences
    are repeated), its languages in one order however they were chosen."""
    return training_mix(dict(sorted(weights.items())))


def mix_still_warming(weights: Mapping[str, int], vocab_size: int, pattern: str) -> bool:
    """True, with a placeholder drawn, while the warm-up is still training
    the default mix (see `warming.still_warming`)."""
    if (dict(weights), vocab_size, pattern) != (DEFAULT_WEIGHTS, DEFAULT_VOCAB_SIZE, DEFAULT_PATTERN):
        return False
    return _still_training(training_key(mix_corpus(weights), mix_settings(vocab_size, pattern)),
                           "The tokenizer trained on this mix")


def parity_still_warming(num_merges: int, base: str) -> bool:
    """Likewise for the parity experiment at its default settings."""
    if (num_merges, base) != (DEFAULT_MERGES, DEFAULT_BASE):
        return False
    return _still_training(parity_key(num_merges, base), "Plain and parity-aware BPE")


def _still_training(key, what: str) -> bool:
    return still_warming(lambda: trained_result(key) is not None, what)


def mix_tokenizer(weights: Mapping[str, int], vocab_size: int, pattern: str) -> Tokenizer:
    """BPE trained on the training sentences of the mix, shared by every session."""
    return train_on(mix_corpus(weights), **mix_settings(vocab_size, pattern))


@st.cache_data(max_entries=32, show_spinner=False)
def mix_held_out_rows(fingerprint: str, base: str, name: str, _tokenizer: Tokenizer) -> list[TaxRow]:
    """A tokenizer trained on a mix (`fingerprint` names it) on the held-out
    sentences, as `name`: measured once for every session."""
    return tax_table({name: _tokenizer}, held_out_texts(), base)


def held_out_texts() -> dict[str, str]:
    return {code: parallel_text(code, HELD_OUT_LINES) for code in languages()}


def parity_result(num_merges: int, base: str) -> ParityExperiment:
    """Plain and parity-aware BPE with `num_merges` merges, measured against
    `base`, trained once for every session."""
    return trained_once(parity_key(num_merges, base), parity_training(num_merges, base), describe=parity_stage,
                        size_of=experiment_size)


def parity_training(num_merges: int, base: str) -> Callable[[Listener, Listener], ParityExperiment]:
    """The parity experiment as a job for `trained_once` and `train_shared`."""
    def training(progress, waiting) -> ParityExperiment:
        return parity_within_budget(num_merges, base, TRAINING_BUDGET, progress=progress, waiting=waiting)

    return training


def parity_key(num_merges: int, base: str) -> tuple:
    return "parity experiment", num_merges, base


def parity_stage(done: int, total: int) -> str:
    return (f"Training plain and parity-aware BPE… step {min(done + 1, total)} of {total}" if total
            else "Training plain and parity-aware BPE…")


def experiment_size(experiment: ParityExperiment) -> int:
    """Bytes the experiment holds, roughly: two vocabularies and Hugging Face's copies."""
    return 1_000 * (experiment.plain.n_vocab + experiment.parity.n_vocab)


OPENAI_HELD_OUT_ROWS = SharedCache(max_entries=len(languages()), max_bytes=5_000_000)  # a few KB per base


def openai_held_out_rows(base: str) -> list[TaxRow]:
    """The OpenAI encodings on the held-out sentences, measured against
    `base`: the same for every session, measured once (the warm-up measures
    the default base's)."""
    return OPENAI_HELD_OUT_ROWS.get_or_make(
        base, lambda: tax_table({name: load_shared_encoding(name) for name in OPENAI_ENCODINGS}, held_out_texts(), base),
        lambda rows: 1_000 * len(rows))


def warm_tax_experiments() -> None:
    """Train both experiments' default settings as a visitor's first visit
    would, but with no page to report to (in the bounded worker, shared with
    any visitor who asks meanwhile, kept for every session), and measure the
    OpenAI encodings beside them. Call it when the server starts."""
    corpus, settings = mix_corpus(DEFAULT_WEIGHTS), mix_settings(DEFAULT_VOCAB_SIZE, DEFAULT_PATTERN)
    train_shared(training_key(corpus, settings), bpe_training(corpus, settings), approximate_size)
    train_shared(parity_key(DEFAULT_MERGES, DEFAULT_BASE), parity_training(DEFAULT_MERGES, DEFAULT_BASE),
                 experiment_size)
    openai_held_out_rows(DEFAULT_BASE)
