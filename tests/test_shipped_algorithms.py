"""The Algorithms page's default tokenizers and per-language counts, shipped
with the app (`bpe_core.analysis.shipped_algorithms`): they are what the
trainers make today, and the page's numbers from them are the direct
computation."""

import json

import pytest

from bpe_core.analysis.algorithms import (
    ALGORITHMS,
    ALL_LANGUAGES,
    ON_THE_ENGINE,
    RIVALS,
    corpus_parts,
    language_tokens,
    measure_algorithm,
    train_rival,
    training_settings,
    word_language,
)
from bpe_core.analysis.shipped_algorithms import (
    BPE_PATTERN,
    DEFAULT_CORPUS,
    DEFAULT_THRESHOLD,
    DEFAULT_TRANSITION,
    DEFAULT_VOCAB_SIZE,
    shipped_language_tokens,
    shipped_tokenizer,
    write_shipped,
)
from bpe_core.formats.native import tokenizer_to_json
from bpe_core.jobs import budgeted_training
from bpe_core.jobs.budgeted_training import TRAINERS
from pages.common import tokenizers
from tests.apptest import html_tables, open_page

TRAINING_TEXT, HELD_OUT_TEXT = corpus_parts(DEFAULT_CORPUS)
LANGUAGES_TEXT = corpus_parts(ALL_LANGUAGES)[0]


def default_settings(algorithm: str) -> dict:
    return training_settings(algorithm, DEFAULT_VOCAB_SIZE, pattern=BPE_PATTERN, transition=DEFAULT_TRANSITION,
                             threshold=DEFAULT_THRESHOLD)


@pytest.mark.slow  # trains all six, twice
def test_the_shipped_tokenizers_and_counts_are_what_the_trainers_make_today():
    for algorithm in ON_THE_ENGINE:  # deterministic: the very same tokenizer and counts
        settings = default_settings(algorithm)
        fresh = TRAINERS[algorithm](TRAINING_TEXT, **settings)
        assert tokenizer_to_json(shipped_tokenizer(algorithm, TRAINING_TEXT, settings)) == tokenizer_to_json(fresh)
        on_languages = TRAINERS[algorithm](LANGUAGES_TEXT, **settings)
        assert shipped_language_tokens(algorithm, LANGUAGES_TEXT, settings) == language_tokens(on_languages)
    # Hugging Face's trainers number pieces in no fixed order, and WordPiece
    # breaks ties between equally good pairs differently from run to run.
    shipped = {algorithm: shipped_tokenizer(algorithm, TRAINING_TEXT, default_settings(algorithm)) for algorithm in RIVALS}
    unigram = train_rival("unigram", TRAINING_TEXT, DEFAULT_VOCAB_SIZE)
    assert set(shipped["unigram"].pieces.values()) == set(unigram.pieces.values())
    wordpiece = train_rival("wordpiece", TRAINING_TEXT, DEFAULT_VOCAB_SIZE)
    shipped_pieces, fresh_pieces = set(shipped["wordpiece"].pieces.values()), set(wordpiece.pieces.values())
    assert len(shipped_pieces) == len(fresh_pieces) and len(shipped_pieces & fresh_pieces) > 0.97 * len(fresh_pieces)


def test_only_the_default_text_and_settings_are_shipped(tmp_path):
    for algorithm in ALGORITHMS:
        settings = default_settings(algorithm)
        assert shipped_tokenizer(algorithm, TRAINING_TEXT, settings) is not None
        assert shipped_language_tokens(algorithm, LANGUAGES_TEXT, settings) is not None
        assert shipped_tokenizer(algorithm, TRAINING_TEXT, {**settings, "vocab_size": DEFAULT_VOCAB_SIZE + 500}) is None
        assert shipped_tokenizer(algorithm, TRAINING_TEXT + "x", settings) is None
        assert shipped_tokenizer(algorithm, TRAINING_TEXT, settings, tmp_path / "missing.json") is None
    assert shipped_tokenizer("superbpe", TRAINING_TEXT, {**default_settings("superbpe"), "transition": 1500}) is None
    assert shipped_tokenizer("picky", TRAINING_TEXT, {**default_settings("picky"), "threshold": 0.8}) is None


def test_the_file_reads_back_the_same_tokenizers(tmp_path):
    kept = [(algorithm, TRAINING_TEXT, default_settings(algorithm),
             shipped_tokenizer(algorithm, TRAINING_TEXT, default_settings(algorithm))) for algorithm in ALGORITHMS]
    counts = [("bpe", LANGUAGES_TEXT, default_settings("bpe"), {"en": 3, "de": 4})]
    write_shipped(kept, counts, tmp_path / "algorithms.json")
    for algorithm, text, settings, tokenizer in kept:
        again = shipped_tokenizer(algorithm, text, settings, tmp_path / "algorithms.json")
        if algorithm in RIVALS:
            assert json.loads(again.to_json()) == json.loads(tokenizer.to_json())
        else:
            assert type(again) is type(tokenizer) and tokenizer_to_json(again) == tokenizer_to_json(tokenizer)
    assert shipped_language_tokens("bpe", LANGUAGES_TEXT, default_settings("bpe"), tmp_path / "algorithms.json") == \
        {"en": 3, "de": 4}


def test_the_page_opens_on_the_shipped_tokenizers_without_training(monkeypatch):
    def refuse(*arguments, **settings):
        raise AssertionError("the default page trained")

    monkeypatch.setattr(tokenizers, "train_within_budget", refuse)
    for name in ("train_within_budget", "train_rival_within_budget"):  # the page imports them as it runs
        monkeypatch.setattr(budgeted_training, name, refuse)
    at = open_page("pages/algorithms.py")
    assert not at.exception and not at.warning and not at.error
    table = html_tables(at)[0].set_index("algorithm")
    language = word_language(DEFAULT_CORPUS)
    assert list(table.index) == list(ALGORITHMS.values())
    for algorithm in ALGORITHMS:
        tokenizer = shipped_tokenizer(algorithm, TRAINING_TEXT, default_settings(algorithm))
        cost = measure_algorithm(algorithm, tokenizer, HELD_OUT_TEXT, language).cost
        assert table.loc[ALGORITHMS[algorithm], "tokens"] == cost.tokens
