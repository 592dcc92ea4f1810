"""Training learns exactly the reference algorithm's merges, fast."""

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_core import PatternError, train
from tests import reference_bpe
from tests.reference_bpe import naive_train
from tests.tiktoken_oracle import published_pattern

PATTERNS = ["none", "gpt2", "cl100k", "o200k", r"\S+|\s+"]


def trace_tuples(tokenizer):
    return [(s.pair, s.new_id, s.count, s.corpus_tokens) for s in tokenizer.trace]


def test_wikipedia_example_aaabdaaabac():
    tok = train("aaabdaaabac", num_merges=3, pattern="none")
    assert [(s.pair, s.new_id) for s in tok.trace] == [((97, 97), 256), ((256, 97), 257), ((257, 98), 258)]
    assert [s.token for s in tok.trace] == [b"aa", b"aaa", b"aaab"]
    # Overlapping occurrences count, as in the reference: "aaa" holds (a, a) twice.
    assert tok.trace[0].count == 4
    assert tok.encode("aaabdaaabac") == [258, 100, 258, 97, 99]
    assert tok.trace[-1].corpus_tokens == 5


def test_textbook_word_counts_sennrich_2016():
    corpus = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    tok = train(corpus, num_merges=4, pattern="none", units="chars")
    assert [s.token for s in tok.trace] == ["es", "est", "lo", "low"]
    assert [s.count for s in tok.trace] == [9, 9, 7, 7]
    # 3*5 + 5*2 + 6*6 + 6*3 = 79 characters, minus one per merged "es"
    assert tok.trace[0].corpus_tokens == 79 - 9


def test_vocab_size_counts_bytes_and_merges():
    tok = train("the cat sat on the mat " * 20, vocab_size=260)
    assert len(tok.merges) == 4
    assert [new_id for _, new_id in tok.merges] == [256, 257, 258, 259]
    assert len(tok.vocab) == 260


def test_special_tokens_get_ids_after_the_merges_and_are_not_learned():
    text = "hello world<|endoftext|>hello there<|endoftext|>" * 10
    tok = train(text, num_merges=20, special_tokens=["<|endoftext|>"])
    assert tok.special_tokens == {"<|endoftext|>": 256 + len(tok.merges)}
    assert not any(b"<|" in s.token for s in tok.trace)
    ids = tok.encode("hi<|endoftext|>", allowed_special="all")
    assert ids[-1] == tok.special_tokens["<|endoftext|>"]


def test_the_reference_splits_with_the_patterns_tiktoken_publishes():
    """The naive trainer's patterns are written out in tests/reference_bpe.py,
    not taken from the engine: they are tiktoken's, character for character."""
    for preset, encoding in {"gpt2": "r50k_base", "cl100k": "cl100k_base", "o200k": "o200k_base"}.items():
        assert reference_bpe.PATTERNS[preset] == published_pattern(encoding), preset


def test_the_reference_split_cuts_at_special_tokens_longest_first():
    assert reference_bpe.split_at_specials("a<|x|>b<|x|y|>c<|x|>", ["<|x|>", "<|x|y|>"]) == ["a", "b", "c"]
    assert reference_bpe.split_at_specials("ab", []) == ["ab"]
    assert reference_bpe.split_into_pieces("Hello world!!", "gpt2") == ["Hello", " world", "!!"]


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("units", ["bytes", "chars"])
def test_equals_reference_on_random_texts(pattern, units):
    rng = random.Random(f"{pattern}{units}")
    for _ in range(60):
        alphabet = rng.choice(["ab", "abc ", "aé😀 \n", "xy 12.,'\t"])
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 80)))
        merges = rng.randint(1, 50)
        expected, _ = naive_train(text, merges, pattern, units=units)
        tok = train(text, num_merges=merges, pattern=pattern, units=units)
        assert trace_tuples(tok) == expected, text


def test_equals_reference_with_special_tokens_in_the_text():
    rng = random.Random("specials")
    specials = ["<|end|>", "<|end|>!"]  # one the start of the other: the longer one is the token
    for _ in range(30):
        text = "".join(rng.choice(["ab", "a b", "<|end|>", "<|end|>!", "<|en", "d|>", " ba!"]) for _ in range(30))
        expected, _ = naive_train(text, 20, "cl100k", special_tokens=specials)
        assert trace_tuples(train(text, num_merges=20, pattern="cl100k", special_tokens=specials)) == expected, text


def test_equals_reference_on_real_text_with_ties():
    text = open(__file__, encoding="utf-8").read()
    expected, _ = naive_train(text, 120, "gpt2")
    assert trace_tuples(train(text, num_merges=120, pattern="gpt2")) == expected


@given(
    st.dictionaries(st.text("abcd", min_size=1, max_size=8), st.integers(1, 9), min_size=1, max_size=8),
    st.integers(1, 30),
)
def test_equals_reference_on_word_counts(corpus, merges):
    expected, _ = naive_train(corpus, merges, "none")
    assert trace_tuples(train(corpus, num_merges=merges, pattern="none")) == expected


def test_min_count_stops_early_and_says_why():
    expected, _ = naive_train("abababcdcd xyxy", 10, "none", min_count=2)
    tok = train("abababcdcd xyxy", num_merges=10, pattern="none", min_count=2)
    assert trace_tuples(tok) == expected
    assert "below min_count=2" in tok.stop_reason


def test_stops_when_no_pair_is_left():
    tok = train("abc", vocab_size=1000, pattern="none")
    assert len(tok.merges) == 2
    assert "no adjacent pair is left" in tok.stop_reason


def test_completed_training_has_no_stop_reason():
    assert train("abcabc", num_merges=2, pattern="none").stop_reason is None


def test_progress_reports_up_to_the_total():
    calls = []
    train("the quick brown fox " * 50, num_merges=30, progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (30, 30)
    assert all(total == 30 for _, total in calls)
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)


def test_corpus_tokens_equal_the_encoded_training_text():
    text = "low lower lowest newer newest wider widest " * 7
    tok = train(text, num_merges=15, pattern="gpt2")
    for step in (0, 1, 10, 15):
        length = len(tok.encode_at_step(text, step))
        assert length == (tok.trace[step - 1].corpus_tokens if step else len(text.encode()))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(corpus="", vocab_size=300), "empty"),
        (dict(corpus={}, vocab_size=300), "empty"),
        (dict(corpus="abc", vocab_size=100), "at least 256"),
        (dict(corpus="abc", vocab_size=1, units="chars"), "at least 3"),
        (dict(corpus="abc", vocab_size=10**9), "at most"),
        (dict(corpus="abc"), "exactly one"),
        (dict(corpus="abc", vocab_size=300, num_merges=3), "exactly one"),
        (dict(corpus="abc", num_merges=-1), "non-negative"),
        (dict(corpus="abc", vocab_size="300"), "integer"),
        (dict(corpus="abc", num_merges=3, units="words"), "units"),
        (dict(corpus="abc", num_merges=3, min_count=0), "min_count"),
        (dict(corpus={"low": 0}, num_merges=3), "positive integer"),
        (dict(corpus={"": 2}, num_merges=3), "non-empty string"),
        (dict(corpus="abc", num_merges=3, special_tokens="<s>"), "list of strings"),
        (dict(corpus="abc", num_merges=3, special_tokens=["<s>", "<s>"]), "duplicate"),
    ],
)
def test_bad_arguments_raise_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        train(**kwargs)


@pytest.mark.parametrize(
    "pattern, message",
    [("(unclosed", "not a valid regular expression"), (r"\w*", "empty string"), ("", "empty")],
)
def test_bad_custom_patterns_are_refused(pattern, message):
    with pytest.raises(PatternError, match=message):
        train("some text", num_merges=3, pattern=pattern)


@pytest.mark.usefixtures("quick_regex_deadlines")
def test_catastrophic_pattern_times_out_with_a_message():
    # Harmless on the sample text a custom pattern is tried on first (see
    # untrusted_regex); exponential on a long run of "x" with no "y".
    with pytest.raises(PatternError, match="catastrophic backtracking"):
        train("x" * 40 + "z", num_merges=3, pattern=r"(?:x|xx)+y|\s+|[^\s]")


@pytest.mark.usefixtures("quick_regex_deadlines")
def test_a_pattern_that_backtracks_on_the_sample_text_is_refused_before_training():
    with pytest.raises(PatternError, match="backtracks catastrophically"):
        train("a" * 40 + "b", num_merges=3, pattern=r"(a|aa)+$")
