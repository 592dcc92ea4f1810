"""The Three algorithms page's default tokenizers, shipped with the app
(`bpe_core.analysis.shipped_algorithms`): they are what the three trainers
make today, and the page's numbers from them are the direct computation."""

import json

import pytest

from bpe_core import train
from bpe_core.analysis.algorithms import ALGORITHMS, RIVALS, corpus_parts, measure_algorithm, train_rival, word_language
from bpe_core.analysis.shipped_algorithms import (
    BPE_PATTERN,
    DEFAULT_CORPUS,
    DEFAULT_VOCAB_SIZE,
    shipped_three,
    write_shipped,
)
from pages.common import tokenizers
from tests.apptest import html_tables, open_page

TRAINING_TEXT, HELD_OUT_TEXT = corpus_parts(DEFAULT_CORPUS)


@pytest.mark.slow  # trains all three
def test_the_shipped_tokenizers_are_what_the_trainers_make_today():
    shipped = shipped_three(TRAINING_TEXT, DEFAULT_VOCAB_SIZE)
    bpe = train(TRAINING_TEXT, vocab_size=DEFAULT_VOCAB_SIZE, pattern=BPE_PATTERN)
    assert shipped["bpe"].fingerprint == bpe.fingerprint
    # Hugging Face's trainers number pieces in no fixed order, and WordPiece
    # breaks ties between equally good pairs differently from run to run.
    unigram = train_rival("unigram", TRAINING_TEXT, DEFAULT_VOCAB_SIZE)
    assert set(shipped["unigram"].pieces.values()) == set(unigram.pieces.values())
    wordpiece = train_rival("wordpiece", TRAINING_TEXT, DEFAULT_VOCAB_SIZE)
    shipped_pieces, fresh_pieces = set(shipped["wordpiece"].pieces.values()), set(wordpiece.pieces.values())
    assert len(shipped_pieces) == len(fresh_pieces) and len(shipped_pieces & fresh_pieces) > 0.97 * len(fresh_pieces)


def test_only_the_default_text_and_size_are_shipped(tmp_path):
    assert set(shipped_three(TRAINING_TEXT, DEFAULT_VOCAB_SIZE)) == set(ALGORITHMS)
    assert shipped_three(TRAINING_TEXT, DEFAULT_VOCAB_SIZE + 500) is None
    assert shipped_three(TRAINING_TEXT + "x", DEFAULT_VOCAB_SIZE) is None
    assert shipped_three(TRAINING_TEXT, DEFAULT_VOCAB_SIZE, tmp_path / "missing.json") is None


def test_the_file_reads_back_the_same_tokenizers(tmp_path):
    three = shipped_three(TRAINING_TEXT, DEFAULT_VOCAB_SIZE)
    write_shipped(TRAINING_TEXT, DEFAULT_VOCAB_SIZE, three, tmp_path / "three.json")
    again = shipped_three(TRAINING_TEXT, DEFAULT_VOCAB_SIZE, tmp_path / "three.json")
    assert again["bpe"].fingerprint == three["bpe"].fingerprint
    for algorithm in RIVALS:
        assert json.loads(again[algorithm].to_json()) == json.loads(three[algorithm].to_json())


def test_the_page_opens_on_the_shipped_tokenizers_without_training(monkeypatch):
    def refuse(*arguments, **settings):
        raise AssertionError("the default page trained")

    monkeypatch.setattr(tokenizers, "train_within_budget", refuse)
    at = open_page("pages/algorithms.py")
    table = html_tables(at)[0].set_index("algorithm")
    language = word_language(DEFAULT_CORPUS)
    for algorithm, tokenizer in shipped_three(TRAINING_TEXT, DEFAULT_VOCAB_SIZE).items():
        cost = measure_algorithm(algorithm, tokenizer, HELD_OUT_TEXT, language).cost
        assert table.loc[ALGORITHMS[algorithm], "tokens"] == cost.tokens
