"""The C version of merge learning (engine/native/learn.c) learns exactly
what the Python one (engine/merge_learning.py) does: the same merges, in
the same order, with the same counts, corpus lengths and stop reasons, ties
broken the same way; and training uses it, and falls back to Python where
it cannot be exact.

Without the extension module built these tests skip, with the reason; CI
sets REQUIRE_NATIVE=1, where its absence fails instead.
"""

import os
import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import train
from bpe_core.corpora.samples import catalog
from bpe_core.engine import merge_learning, native_training
from bpe_core.engine.corpus import count_pieces
from bpe_core.engine.patterns import PRESETS
from bpe_core.engine.training import training_units
from bpe_core.jobs.budgeted_jobs import Budget
from bpe_core.jobs.budgeted_training import train_rival_within_budget

if not native_training.NATIVE:
    if os.environ.get("REQUIRE_NATIVE"):
        raise ImportError("bpe_core.engine._native_training is not built: pip install -r requirements.txt compiles it")
    pytest.skip("the C extension is not built (pip install -r requirements.txt builds it)", allow_module_level=True)


def learned_in_python(pieces, units, num_merges, min_count=1, deadline=None, progress=None):
    base_tokens, piece_units = training_units(pieces, units)
    return merge_learning.learn_merges(piece_units, base_tokens, num_merges, min_count, progress, deadline)


def learned_in_c(pieces, units, num_merges, min_count=1, deadline=None, progress=None):
    base_tokens, _ = training_units(pieces, units)
    learned = native_training.learn_merges(pieces, units, base_tokens, num_merges, min_count, progress, deadline)
    assert learned is not None, "the C version refused pieces it can learn from exactly"
    return learned


def assert_same_learning(pieces, units, num_merges, min_count=1):
    expected = learned_in_python(pieces, units, num_merges, min_count)
    assert learned_in_c(pieces, units, num_merges, min_count) == expected


@pytest.mark.parametrize("units", ["bytes", "chars"])
@pytest.mark.parametrize("pattern", list(PRESETS))
@pytest.mark.parametrize("sample", ["english_prose", "python_code", "japanese", "emoji_and_unicode"])
def test_the_bundled_corpora_learn_the_same_merges(sample, pattern, units):
    text = catalog()[sample].load()[:60_000]
    assert_same_learning(count_pieces(text, pattern), units, 1_500)


@pytest.mark.slow
@pytest.mark.parametrize("pattern", ["cl100k", "o200k"])
def test_a_megabyte_learns_the_same_ten_thousand_merges(pattern):
    pieces = count_pieces(catalog()["tiny_shakespeare"].load(), pattern)
    assert_same_learning(pieces, "bytes", 9_744)


# Ties everywhere: few letters, runs of one letter (overlapping pairs,
# "aaaa"), repeated patterns, equal counts, and counts beyond 32 bits.
TIE_HEAVY_WORDS = st.text(st.sampled_from("aab é😀"), min_size=1, max_size=12)
WORD_COUNTS = st.dictionaries(TIE_HEAVY_WORDS, st.sampled_from([1, 1, 2, 3, 7, 2**40]), min_size=1, max_size=30)


@settings(max_examples=300, deadline=None)
@given(WORD_COUNTS, st.sampled_from(["bytes", "chars"]), st.integers(0, 60), st.sampled_from([1, 1, 2, 5]))
def test_tie_heavy_word_counts_learn_the_same_merges(pieces, units, num_merges, min_count):
    assert_same_learning(pieces, units, num_merges, min_count)


def test_random_corpora_learn_the_same_merges():
    rng = random.Random(34)
    for _ in range(200):
        alphabet = rng.choice(["ab", "abc", "a", "xyz ", "日本語ab", "a\U0001f600b", "ab\n\t "])
        pieces: dict[str, int] = {}
        for _ in range(rng.randrange(1, 60)):
            shape = rng.randrange(3)
            size = rng.randrange(1, 20)
            if shape == 0:  # a run of one letter
                word = rng.choice(alphabet) * size
            elif shape == 1:  # a repeated pattern
                word = ("".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 4))) * size)[:size]
            else:
                word = "".join(rng.choice(alphabet) for _ in range(size))
            pieces[word] = pieces.get(word, 0) + rng.choice([1, 1, 1, 2, 1000])
        assert_same_learning(pieces, rng.choice(["bytes", "chars"]), rng.randrange(0, 120))


def test_a_tie_goes_to_the_pair_that_appears_first():
    for pieces, first in [({"cd": 2, "ab": 2}, "cd"), ({"ab": 2, "cd": 2}, "ab")]:
        assert_same_learning(pieces, "bytes", 2)
        trace, _ = learned_in_c(pieces, "bytes", 1)
        assert trace[0].token == first.encode()


def test_progress_is_heard_as_often_and_a_raise_in_it_stops_training():
    pieces = count_pieces(catalog()["english_prose"].load(), "cl100k")
    heard_python, heard_c = [], []
    learned_in_python(pieces, "bytes", 1_000, progress=lambda *done: heard_python.append(done))
    learned_in_c(pieces, "bytes", 1_000, progress=lambda *done: heard_c.append(done))
    assert heard_c == heard_python and len(heard_c) > 100

    class Stop(Exception):
        pass

    def stop_at_500(done, total):
        if done >= 500:
            raise Stop

    with pytest.raises(Stop):
        learned_in_c(pieces, "bytes", 1_000, progress=stop_at_500)


def test_a_passed_deadline_stops_both_with_the_same_reason():
    pieces = count_pieces(catalog()["english_prose"].load(), "cl100k")
    past = time.monotonic() - 1
    assert learned_in_c(pieces, "bytes", 100, deadline=past) == learned_in_python(pieces, "bytes", 100, deadline=past)
    assert learned_in_c(pieces, "bytes", 100, deadline=past)[1] == "the time allowed ran out after 0 of 100 merges"


def test_training_uses_the_c_version(monkeypatch):
    learned_in_c = []
    learn = native_training.learn_merges
    monkeypatch.setattr(native_training, "learn_merges",
                        lambda *args: learned_in_c.append(learn(*args)) or learned_in_c[-1])
    text = catalog()["english_prose"].load()
    tok = train(text, vocab_size=600, special_tokens=["<|endoftext|>"])
    assert len(learned_in_c) == 1 and learned_in_c[0] is not None
    monkeypatch.setattr(native_training, "_native_training", None)  # as if not built: Python learns
    assert train(text, vocab_size=600, special_tokens=["<|endoftext|>"]).trace == tok.trace


@pytest.mark.parametrize("units", ["bytes", "chars"])
def test_training_gives_the_same_tokenizer_either_way(monkeypatch, units):
    text = catalog()["japanese"].load()
    with_c = train(text, num_merges=800, units=units, special_tokens=["<|endoftext|>"], min_count=2)
    monkeypatch.setattr(native_training, "_native_training", None)
    in_python = train(text, num_merges=800, units=units, special_tokens=["<|endoftext|>"], min_count=2)
    assert (with_c.trace, with_c.stop_reason, with_c.vocab, with_c.special_tokens) == (
        in_python.trace, in_python.stop_reason, in_python.vocab, in_python.special_tokens)


def test_counts_beyond_64_bits_fall_back_to_python():
    pieces = {"ab": 2**70, "abc": 3}
    base_tokens, _ = training_units(pieces, "bytes")
    assert native_training.learn_merges(pieces, "bytes", base_tokens, 5) is None
    tok = train(pieces, num_merges=5, pattern="none")
    assert tok.trace[0].count == 2**70 + 3


def test_a_minimum_count_beyond_64_bits_falls_back_to_python():
    pieces = {"ab": 5, "abc": 3}
    base_tokens, _ = training_units(pieces, "bytes")
    assert native_training.learn_merges(pieces, "bytes", base_tokens, 5, min_count=2**64) is None
    tok = train(pieces, num_merges=5, pattern="none", min_count=2**64)
    assert tok.trace == []  # no pair is seen that often, and nothing overflowed on the way


def trained_in_a_job(text: str) -> tuple[int, list]:
    """In a budgeted job's worker process: train as the app's job does (see
    `budgeted_training`), counting the merge learnings done in C."""
    learned_in_c = []
    learn = native_training.learn_merges

    def noting(*arguments):
        learned = learn(*arguments)
        learned_in_c.append(learned is not None)
        return learned

    native_training.learn_merges = noting
    try:
        tokenizer = train(text, vocab_size=700, deadline=time.monotonic() + 60, progress=lambda *done: None)
    finally:
        native_training.learn_merges = learn
    return sum(learned_in_c), tokenizer.trace


@pytest.mark.slow  # a worker process
def test_the_apps_training_worker_learns_in_c(monkeypatch):
    text = catalog()["english_prose"].load()
    calls, trace = train_rival_within_budget(trained_in_a_job, (text,), Budget(seconds=60, memory_bytes=1_000_000_000))
    assert calls == 1
    monkeypatch.setattr(native_training, "_native_training", None)
    assert trace == train(text, vocab_size=700).trace
