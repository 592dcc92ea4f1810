"""Splitting with a custom pattern: the loop that reads the deadline once per
256 pieces (see `bpe_core.sandbox.untrusted_split`) gives exactly `findall`'s pieces,
and a pattern that runs away on a text is still stopped with a message."""

import pytest
import regex
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bpe_core import PatternError, train
from bpe_core.engine.patterns import MODEL_PATTERNS, PRESETS, split_pieces
from bpe_core.sandbox import untrusted_split
from bpe_core.sandbox.untrusted_split import looped, spans_within, split_within
from tests.texts import TRICKY_TEXTS

CUSTOM = r"\p{L}+|\p{N}+|\s+|[^\s\p{L}\p{N}]+"  # the benchmark's (benchmarks/encode_speed.py)
LLAMA3 = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"


def findall_pieces(compiled: regex.Pattern, text: str) -> list[str]:
    """What the split must give: `findall`'s whole matches, empty ones left out."""
    return [match[0] for match in compiled.finditer(text, timeout=5) if match[0]]


@pytest.fixture
def no_piece_by_piece(monkeypatch):
    """The split may not fall back to one match per piece: it is the loop's."""
    def refuse(*args):
        raise AssertionError("split one match per piece, not by the loop")

    monkeypatch.setattr(untrusted_split, "_one_match_each", refuse)


@pytest.mark.parametrize("source", [*PRESETS.values(), *MODEL_PATTERNS.values(), CUSTOM, LLAMA3])
def test_the_presets_and_common_patterns_split_through_the_loop_as_findall_does(source, no_piece_by_piece):
    compiled = regex.compile(source)
    assert looped(compiled) is not None
    for text in TRICKY_TEXTS:
        assert split_within(compiled, text, seconds=5) == findall_pieces(compiled, text)
        assert spans_within(compiled, text, seconds=5) == [m.span() for m in compiled.finditer(text) if m[0]]


@pytest.mark.parametrize(
    "source, text",
    [
        (r"(a)\1|b", "aab ab"),  # a group of its own: the loop's would renumber it
        (r"(?:cat){e<=1}|\s", "xcat cut"),  # fuzzy: findall starts the match earlier
        (r"(?p)a|ab", "abab"),  # POSIX: leftmost-longest over the loop's whole match
        (r"(?r)ab|b", "abbab"),  # matched right to left
        (r"\Gab", "abxab"),  # where the search started
        (r"a\Kb|c", "abcab"),  # where the reported match starts
        (r"a(*SKIP)(*FAIL)|\w", "bab"),  # a verb acts on the whole match
        ("(?x) a b  # a comment that would swallow the loop's brackets", "ab ab"),
        ("x" * 990 + r"|\S|\s", "some text"),  # the loop around it is longer than a custom regex may be
    ],
)
def test_patterns_a_loop_would_change_split_one_match_per_piece(source, text):
    compiled = regex.compile(source)
    assert looped(compiled) is None
    assert split_within(compiled, text, seconds=5) == findall_pieces(compiled, text)


def test_a_pattern_that_matches_empty_within_a_text_splits_as_findall_does():
    compiled = regex.compile(r"(?<=q)x*|b")  # empty between "q" and "b", and the loop would stop there
    assert looped(compiled) is not None
    for text in ["aqxb qb", "qqq", "bbb qxxxb"]:
        assert split_within(compiled, text, seconds=5) == findall_pieces(compiled, text)
        assert spans_within(compiled, text, seconds=5) == [m.span() for m in compiled.finditer(text) if m[0]]


@pytest.mark.usefixtures("quick_regex_deadlines")
@pytest.mark.parametrize(
    "pattern, run_of_x",
    [
        (r"(?:x|xx)+y|\s+|[^\s]", 40),  # overlapping branches under a quantifier: exponential
        (r"(?:x+)+y|\s+|[^\s]", 40),  # nested quantifiers: exponential
        (r"x*x*x*x*x*y|\S|\s", 3_000),  # adjacent quantifiers over the same letters: polynomial
        (r"x++y|\S|\s", 300_000),  # no backtracking, but every start scans to the end: quadratic
    ],
)
def test_a_pattern_that_runs_away_on_the_loop_is_still_stopped(pattern, run_of_x):
    assert looped(regex.compile(pattern)) is not None  # the loop's way, not findall's
    with pytest.raises(PatternError, match="took longer than .*catastrophic backtracking"):
        split_pieces("x" * run_of_x + "z", pattern)


@pytest.mark.usefixtures("quick_regex_deadlines")
def test_a_pattern_that_runs_away_one_match_per_piece_is_still_stopped():
    pattern = r"(x|xx)+y|\s+|[^\s]"
    assert looped(regex.compile(pattern)) is None
    with pytest.raises(PatternError, match="catastrophic backtracking"):
        split_pieces("x" * 40 + "z", pattern)


# ---------------------------------------------------------------- properties
# Random patterns over a small alphabet (classes, anchors, lookarounds,
# atomic groups, greedy, lazy and possessive quantifiers), some of which
# match the empty string, on random short texts.

ATOMS = ["a", "b", "A", " ", "1", r"\s", r"\S", r"\w", r"\d", r"\p{L}", r"\p{Lu}", "[ab]", "[^a ]", ".",
         r"\n", "^", "$", r"\b", r"\B", r"\A", r"\Z", r"\m", r"\M", "(?i:a)"]
QUANTIFIERS = ["*", "+", "?", "{1,2}", "{2}", "*?", "+?", "??", "*+", "++", "?+", "{0,2}+"]


def _patterns() -> st.SearchStrategy[str]:
    def grown(inner):
        return st.one_of(
            st.tuples(inner, inner).map("".join),
            st.tuples(inner, inner).map(lambda pair: f"(?:{pair[0]}|{pair[1]})"),
            st.tuples(inner, st.sampled_from(QUANTIFIERS)).map(lambda pair: f"(?:{pair[0]}){pair[1]}"),
            st.tuples(st.sampled_from(["(?>", "(?=", "(?!", "(?<=", "(?<!"]), inner).map(lambda pair: f"{pair[0]}{pair[1]})"),
        )

    part = st.recursive(st.sampled_from(ATOMS), grown, max_leaves=6)
    return st.lists(part, min_size=1, max_size=3).map("|".join)


TEXTS = st.text(alphabet="abAB 1\n.é", max_size=40)


@pytest.fixture
def short_runs(monkeypatch):
    """Runs of 3 pieces, so that a short text takes several; and the loop
    compiled here directly (the probe has its own tests)."""
    monkeypatch.setattr(untrusted_split, "PIECES_PER_CALL", 3)
    monkeypatch.setattr(untrusted_split, "compile_untrusted", regex.compile)


@pytest.mark.slow  # a second or more of drawing patterns; HYPOTHESIS_PROFILE=fuzz draws far more
@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(source=_patterns(), text=TEXTS)
def test_the_loop_gives_findall_pieces_and_spans_for_any_pattern(short_runs, source, text):
    try:
        compiled = regex.compile(source)
    except regex.error:  # such as a quantified anchor
        assume(False)
    try:
        expected = [match.span() for match in compiled.finditer(text, timeout=5) if match[0]]
    except TimeoutError:  # the drawn pattern runs away on this text even in findall: no case for the loop
        assume(False)
    # The loop may not time out where findall did not: its deadline is this thread's own
    # processor time (not the clock, which a busy machine stretches), and a minute of it is
    # far beyond the few seconds findall took at most. A TimeoutError here fails the test.
    spans = spans_within(compiled, text, seconds=60)
    pieces = split_within(compiled, text, seconds=60)
    assert spans == expected
    assert pieces == [text[start:end] for start, end in expected]


@pytest.fixture(scope="module")
def custom_tokenizer():
    return train("low lower lowest newer newest 1234 ... " * 20, num_merges=30, pattern=CUSTOM)


@pytest.mark.slow
@given(text=st.text(max_size=200) | st.sampled_from(TRICKY_TEXTS))
def test_ids_through_the_loop_equal_ids_one_match_per_piece(custom_tokenizer, text):
    through_the_loop = custom_tokenizer.encode_ordinary(text)
    custom_tokenizer.clear_cache()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(untrusted_split, "looped", lambda compiled: None)
        one_match_each = custom_tokenizer.encode_ordinary(text)
    assert through_the_loop == one_match_each
