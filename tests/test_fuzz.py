"""Property-based fuzzing over arbitrary and awkward Unicode.

For every bundled encoding and for tokenizers trained here with every split
pattern and both unit kinds: decoding inverts encoding, and the ids equal
tiktoken's, from the fast engine and from the readable one. The default run is small (CI); the dedicated run checks 10,000
examples per property:

    HYPOTHESIS_PROFILE=fuzz pytest tests/test_fuzz.py
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_core import train
from bpe_core.encodings import load_encoding, tiktoken_encoding
from bpe_core.formats import to_tiktoken
from bpe_core.samples import catalog
from tests.texts import TRICKY_TEXTS, assigned_characters

pytestmark = pytest.mark.slow  # many awkward texts each; HYPOTHESIS_PROFILE=fuzz runs far more

COMBINING = ["\u0301", "\u0308", "\u0327", "\u093f", "\u0941", "\u102d", "\u1039", "\u0e31", "\u05b4", "\u20dd"]
JOINERS = ["\u200d", "\u200c", "\ufe0f", "\ufe0e", "\U0001f3fd", "\U0001f469", "\U0001f4bb", "\U0001f1ef", "\U0001f1f5"]
CONTROLS = ["\x00", "\x01", "\x07", "\x1b", "\x7f", "\x85", "\u2028", "\u2029", "\ufeff", "\ufffd"]
SPACES = [" ", "\t", "\n", "\r", "\r\n", "\u00a0", "\u2009", "\u3000", "\x0b", "\x0c"]
LETTERS = ["a", "Z", "é", "ß", "字", "あ", "한", "ሰ", "မ", "\U0001f44d", "9", "'", "<|endoftext|>"]

awkward_text = st.one_of(
    st.text(alphabet=st.characters(codec="utf-8"), max_size=200),
    st.lists(st.sampled_from(COMBINING + JOINERS + CONTROLS + SPACES + LETTERS), max_size=80).map("".join),
    st.builds(lambda char, count: char * count, st.characters(codec="utf-8"), st.integers(1, 3_000)),
    st.builds(lambda run, count: "".join(run) * count, st.lists(st.sampled_from(SPACES), min_size=1, max_size=4),
              st.integers(1, 800)),
)

# The same, in characters that every Unicode table here agrees on (see
# tests.texts.assigned_characters): for comparing the readable engine with tiktoken.
assigned_text = st.one_of(
    st.text(alphabet=assigned_characters(), max_size=200),
    st.lists(st.sampled_from(COMBINING + JOINERS + CONTROLS + SPACES + LETTERS), max_size=80).map("".join),
    st.builds(lambda char, count: char * count, assigned_characters(), st.integers(1, 3_000)),
)

BUNDLED = ["gpt2", "r50k_base", "cl100k_base", "o200k_base"]
PATTERNS = ["none", "gpt2", "cl100k", "o200k", r"\p{L}+|\p{N}+|\s+|[^\s\p{L}\p{N}]+"]


@pytest.fixture(scope="module")
def corpus() -> str:
    texts = [catalog()[name].load()[:20_000] for name in ("english_prose", "japanese", "python_code", "emoji_and_unicode")]
    return "\n".join(texts + TRICKY_TEXTS)


@pytest.fixture(scope="module", params=[(pattern, units) for pattern in PATTERNS for units in ("bytes", "chars")],
                ids=lambda param: f"{param[0][:8]}-{param[1]}")
def trained(request, corpus):
    pattern, units = request.param
    text = corpus if pattern != "none" else corpus[:8_000]
    return train(text, num_merges=400, pattern=pattern, units=units, special_tokens=["<|endoftext|>"])


@pytest.mark.parametrize("name", BUNDLED)
@given(text=awkward_text)
def test_bundled_encodings_match_tiktoken_and_round_trip(name, text):
    ours, reference = load_encoding(name), tiktoken_encoding(name)
    ids = ours.encode(text, allowed_special="all")
    assert ids == reference.encode(text, allowed_special="all")
    assert ours.decode(ids) == text


@pytest.mark.parametrize("name", BUNDLED)
@given(text=assigned_text)
def test_the_readable_engine_matches_tiktoken(name, text):
    ours, reference = load_encoding(name), tiktoken_encoding(name)
    assert ours.encode(text, allowed_special="all", reference=True) == reference.encode(text, allowed_special="all")


@given(text=awkward_text)
def test_trained_tokenizers_round_trip(trained, text):
    ids = trained.encode(text, allowed_special="all")
    if trained.units == "bytes":
        assert trained.decode(ids) == text
    else:  # characters never seen in training come back as U+FFFD
        alphabet = set(trained.vocab[i] for i in range(trained.first_merge_id))
        specials = trained.special_tokens
        expected = "".join(
            part if part in specials else "".join(c if c in alphabet else "\ufffd" for c in part)
            for part in _split_keeping(text, specials)
        )
        assert trained.decode(ids) == expected


@given(text=assigned_text)
def test_trained_tokenizers_give_their_tiktoken_exports_ids_in_both_engines(trained, text):
    if trained.units != "bytes":
        pytest.skip("tiktoken is byte-level; the character variant has only the readable engine")
    expected = to_tiktoken(trained).encode(text, allowed_special="all")
    assert trained.encode(text, allowed_special="all") == expected
    assert trained.encode(text, allowed_special="all", reference=True) == expected


def _split_keeping(text: str, specials) -> list[str]:
    from bpe_core.specials import split_on_specials

    return [segment for segment, _ in split_on_specials(text, specials)]


@given(text=awkward_text)
def test_offsets_tile_the_text_exactly(text):
    tok = load_encoding("o200k_base")
    spans = tok.encode_with_offsets(text, allowed_special="all")
    data = text.encode("utf-8")
    assert b"".join(data[span.start:span.end] for span in spans) == data
    assert all(tok.token_bytes(span.id) == data[span.start:span.end] for span in spans)


small_alphabet_text = st.builds(
    lambda alphabet, picks: "".join(alphabet[i % len(alphabet)] for i in picks),
    st.sampled_from(["ab", "abc", "aab", "abcd", "ab ", "abc  ", "aé ", "あい"]),
    st.lists(st.integers(0, 3), min_size=2, max_size=80),
)


@given(corpus=small_alphabet_text, probes=st.lists(small_alphabet_text, max_size=6), pattern=st.sampled_from(["none", "gpt2"]))
def test_every_step_gives_the_same_ids_by_tiktoken_and_by_replaying_the_merges(corpus, probes, pattern):
    """Small alphabets make BPE build the same bytes from many pairs: the
    case where tiktoken's rule (merge whatever forms the lowest-ranked
    token) could part from replaying the learned pairs. For a vocabulary
    BPE trained, it never does."""
    tok = train(corpus, num_merges=40, pattern=pattern)
    for step in range(len(tok.merges) + 1):
        for text in [corpus, *probes]:
            assert tok.encode_at_step(text, step) == tok.encode_at_step(text, step, reference=True), (step, text)
