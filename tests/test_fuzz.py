"""Property-based fuzzing over arbitrary and awkward Unicode.

For every bundled encoding and for tokenizers trained here with every split
pattern and both unit kinds: decoding inverts encoding, and the ids equal
tiktoken's, from the fast engine and from the readable one. The texts mix
any Unicode with what breaks tokenizers: combining marks, ZWJ sequences,
controls, lone surrogates (which a Python string may hold and UTF-8 may
not), long runs of one character, of one script or of whitespace, and
right-to-left text between Latin and digits with bidi controls. The
default run is small (CI); the dedicated run checks 10,000 examples per
property:

    HYPOTHESIS_PROFILE=fuzz pytest tests/test_fuzz.py
"""

import functools
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import train
from bpe_core.corpora.samples import catalog
from bpe_core.engine import tokenizer as tokenizer_module
from bpe_core.engine.utf8 import encodable
from bpe_core.formats import to_tiktoken
from bpe_core.vocabularies.catalogue import load_encoding
from bpe_core.vocabularies.openai import tiktoken_encoding
from tests.texts import TRICKY_TEXTS, assigned_characters

pytestmark = pytest.mark.slow  # many awkward texts each; HYPOTHESIS_PROFILE=fuzz runs far more

COMBINING = ["\u0301", "\u0308", "\u0327", "\u093f", "\u0941", "\u102d", "\u1039", "\u0e31", "\u05b4", "\u20dd"]
JOINERS = ["\u200d", "\u200c", "\ufe0f", "\ufe0e", "\U0001f3fd", "\U0001f469", "\U0001f4bb", "\U0001f1ef", "\U0001f1f5"]
CONTROLS = ["\x00", "\x01", "\x07", "\x1b", "\x7f", "\x85", "\u2028", "\u2029", "\ufeff", "\ufffd"]
SPACES = [" ", "\t", "\n", "\r", "\r\n", "\u00a0", "\u2009", "\u3000", "\x0b", "\x0c"]
LETTERS = ["a", "Z", "é", "ß", "字", "あ", "한", "ሰ", "မ", "\U0001f44d", "9", "'", "<|endoftext|>"]

# Right-to-left words among left-to-right ones, digits of three systems, and
# the controls that set direction (LRM, RLM, ALM, embeddings, overrides, isolates).
RIGHT_TO_LEFT = ["שלום", "עולם", "مرحبا", "بالعالم", "سلام", "دنیا", "ܫܠܡܐ", "ދިވެހި", "\u05b4", "\u064b", "\ufb1d"]
LEFT_TO_RIGHT = ["hello", "World", "GPT-4o", "e.g.", "x86_64"]
DIGITS = ["2024", "3.14", "١٢٣", "۴۵۶", "-7", "%", "$"]
BIDI_CONTROLS = ["\u200e", "\u200f", "\u061c", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e",
                 "\u2066", "\u2067", "\u2068", "\u2069"]

# Blocks of one script each, for long runs in a single script: scripts
# without spaces between words make pieces as long as the run.
SCRIPT_BLOCKS = [(0x0041, 0x005A), (0x0400, 0x04FF), (0x05D0, 0x05EA), (0x0620, 0x064A), (0x0900, 0x097F),
                 (0x0E01, 0x0E3A), (0x1000, 0x109F), (0x3041, 0x3096), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3),
                 (0x1F300, 0x1F5FF)]

one_script_run = st.sampled_from(SCRIPT_BLOCKS).flatmap(
    lambda block: st.text(alphabet=assigned_characters(min_codepoint=block[0], max_codepoint=block[1]),
                          min_size=200, max_size=3_000)
)
mixed_direction = st.lists(
    st.sampled_from(RIGHT_TO_LEFT + LEFT_TO_RIGHT + DIGITS + BIDI_CONTROLS + [" ", " ", "\n", ", ", "."]),
    max_size=60,
).map("".join)
with_lone_surrogates = st.lists(
    st.one_of(st.characters(codec="utf-8"), st.characters(categories=["Cs"]), st.sampled_from(LETTERS)), max_size=80
).map("".join)

awkward_text = st.one_of(
    st.text(alphabet=st.characters(codec="utf-8"), max_size=200),
    st.lists(st.sampled_from(COMBINING + JOINERS + CONTROLS + SPACES + LETTERS), max_size=80).map("".join),
    st.builds(lambda char, count: char * count, st.characters(codec="utf-8"), st.integers(1, 3_000)),
    st.builds(lambda run, count: "".join(run) * count, st.lists(st.sampled_from(SPACES), min_size=1, max_size=4),
              st.integers(1, 800)),
    one_script_run,
    mixed_direction,
    with_lone_surrogates,
)

# The same, in characters that every Unicode table here agrees on (see
# tests.texts.assigned_characters): for comparing the readable engine with
# tiktoken. Lone surrogates are in it too: both engines read them as U+FFFD.
assigned_text = st.one_of(
    st.text(alphabet=assigned_characters(), max_size=200),
    st.lists(st.sampled_from(COMBINING + JOINERS + CONTROLS + SPACES + LETTERS), max_size=80).map("".join),
    st.builds(lambda char, count: char * count, assigned_characters(), st.integers(1, 3_000)),
    one_script_run,
    mixed_direction,
    st.lists(st.one_of(assigned_characters(), st.characters(categories=["Cs"])), max_size=80).map("".join),
)

BUNDLED = ["gpt2", "r50k_base", "cl100k_base", "o200k_base"]
PATTERNS = ["none", "gpt2", "cl100k", "o200k", r"\p{L}+|\p{N}+|\s+|[^\s\p{L}\p{N}]+"]


@functools.cache
def corpus() -> str:
    texts = [catalog()[name].load()[:20_000] for name in ("english_prose", "japanese", "python_code", "emoji_and_unicode")]
    return "\n".join(texts + TRICKY_TEXTS)


@functools.cache
def trained_tokenizer(pattern: str, units: str):
    text = corpus() if pattern != "none" else corpus()[:8_000]
    return train(text, num_merges=400, pattern=pattern, units=units, special_tokens=["<|endoftext|>"])


# This file runs with the slow tests only: it keeps 150 examples per property
# in every full run, where the rest of the suite takes the default profile's
# few; HYPOTHESIS_PROFILE=fuzz runs its 10,000.
FUZZ_SAMPLE = settings(max_examples=max(150, settings().max_examples))


@pytest.fixture(scope="module", params=[(pattern, units) for pattern in PATTERNS for units in ("bytes", "chars")],
                ids=lambda param: f"{param[0][:8]}-{param[1]}")
def trained(request):
    return trained_tokenizer(*request.param)


@pytest.fixture(scope="module", params=PATTERNS, ids=lambda pattern: f"{pattern[:8]}-bytes")
def byte_level_trained(request):
    """tiktoken is byte-level: only these have an export to compare with."""
    return trained_tokenizer(request.param, "bytes")


@pytest.mark.parametrize("name", BUNDLED)
@FUZZ_SAMPLE
@given(text=awkward_text)
def test_bundled_encodings_match_tiktoken_and_round_trip(name, text):
    ours, reference = load_encoding(name), tiktoken_encoding(name)
    ids = ours.encode(text, allowed_special="all")
    assert ids == reference.encode(text, allowed_special="all")
    assert ours.decode(ids) == encodable(text)  # lone surrogates become U+FFFD, as in tiktoken


@pytest.mark.parametrize("name", BUNDLED)
@FUZZ_SAMPLE
@given(text=assigned_text)
def test_the_readable_engine_matches_tiktoken(name, text):
    ours, reference = load_encoding(name), tiktoken_encoding(name)
    assert ours.encode(text, allowed_special="all", reference=True) == reference.encode(text, allowed_special="all")


@FUZZ_SAMPLE
@given(text=awkward_text)
def test_trained_tokenizers_round_trip(trained, text):
    ids = trained.encode(text, allowed_special="all")
    text = encodable(text)  # lone surrogates become U+FFFD
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


@FUZZ_SAMPLE
@given(text=assigned_text)
def test_trained_tokenizers_give_their_tiktoken_exports_ids_in_both_engines(byte_level_trained, text):
    expected = to_tiktoken(byte_level_trained).encode(text, allowed_special="all")
    assert byte_level_trained.encode(text, allowed_special="all") == expected
    assert byte_level_trained.encode(text, allowed_special="all", reference=True) == expected


def _split_keeping(text: str, specials) -> list[str]:
    from bpe_core.engine.specials import split_on_specials

    return [segment for segment, _ in split_on_specials(text, specials)]


@FUZZ_SAMPLE
@given(text=awkward_text)
def test_offsets_tile_the_text_exactly(text):
    tok = load_encoding("o200k_base")
    spans = tok.encode_with_offsets(text, allowed_special="all")
    data = encodable(text).encode("utf-8")
    assert b"".join(data[span.start:span.end] for span in spans) == data
    assert all(tok.token_bytes(span.id) == data[span.start:span.end] for span in spans)


small_alphabet_text = st.builds(
    lambda alphabet, picks: "".join(alphabet[i % len(alphabet)] for i in picks),
    st.sampled_from(["ab", "abc", "aab", "abcd", "ab ", "abc  ", "aé ", "あい"]),
    st.lists(st.integers(0, 3), min_size=2, max_size=80),
)


# Each example trains a tokenizer and replays every one of its steps: the
# dedicated run takes a fifth as many examples here as elsewhere (2,000),
# which keeps the whole run under ten minutes on one core.
@settings(max_examples=max(150, settings().max_examples // 5))
@given(corpus=small_alphabet_text, probes=st.lists(small_alphabet_text, max_size=6), pattern=st.sampled_from(["none", "gpt2"]))
def test_every_step_gives_the_same_ids_by_tiktoken_and_by_replaying_the_merges(corpus, probes, pattern):
    """Small alphabets make BPE build the same bytes from many pairs: the
    case where tiktoken's rule (merge whatever forms the lowest-ranked
    token) could part from replaying the learned pairs. For a vocabulary
    BPE trained, it never does."""
    tok = train(corpus, num_merges=40, pattern=pattern)
    with mock.patch.object(tokenizer_module, "_REPLAYED_CHARS", 0):  # tiktoken's engine even for short texts
        for step in range(len(tok.merges) + 1):
            for text in [corpus, *probes]:
                assert tok.encode_at_step(text, step) == tok.encode_at_step(text, step, reference=True), (step, text)
