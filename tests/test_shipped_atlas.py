"""The atlas's shipped counts (`sample_corpora/udhr/token_counts.json`,
made by `build_counts.py`), every one counted again: the words of every
declaration, and under every tokenizer the file holds, the tokens of every
declaration as written and after NFC and the words a token boundary falls
inside.

Tokens are counted in this process by the engine's C encoder (about a
second a tokenizer for the 527 declarations); the engine's ids are held to
each maker's elsewhere (tests/test_native_encoding.py on every declaration,
tests/test_zoo.py, tests/test_zoo_more.py, tests/test_zoo_hf_files.py).
Gemma 3, which the engine encodes in Python (half a minute), is counted by
Hugging Face's `tokenizers` over Google's file, its reference (a quarter of
that). Which words are split is counted here, from where the tokens
fall, not with the atlas's code. Each tokenizer is loaded once for all of
this (one test each).
"""

import functools
import itertools
import unicodedata

import numpy as np
import pytest

from bpe_core.analysis.atlas import precomputed, read_precomputed
from bpe_core.analysis.words import word_spans
from bpe_core.corpora.udhr import declaration_texts, declarations, source
from bpe_core.vocabularies.catalogue import encoding_source, load_encoding
from tests.test_zoo_hf_files import hugging_face

pytestmark = pytest.mark.slow

SHIPPED = read_precomputed()
REBUILD = "run sample_corpora/udhr/build_counts.py"
# Where a token boundary falls in the text as written: the tokens' bytes
# laid end to end, from before the space SentencePiece puts in front of a
# text (Mistral v3's dummy prefix, which its first token holds). Qwen
# composes the text (NFC) and Claude 1/2 normalizes it (NFKC) before
# tokenizing: where that changes a declaration, its tokens tile the changed
# text, and the engine's spans, mapped back to the text as typed, are used.
NORMALIZATION = {"qwen": "NFC", "claude_legacy": "NFKC"}
DUMMY_PREFIX_BYTES = {"mistral_v3": 1}
BY_HUGGING_FACE = {"gemma3"}


def test_the_counts_are_of_todays_declarations_and_name_what_each_tokenizer_is_read_from():
    assert SHIPPED is not None, f"token_counts.json is missing or of other texts: {REBUILD}"
    assert SHIPPED.declarations_sha256 == source()["declarations_sha256"] and precomputed() == SHIPPED
    for name in SHIPPED.tokenizers:
        assert SHIPPED.sources[name] == encoding_source(name), f"{name} is read from elsewhere: {REBUILD}"


@functools.cache
def words() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """ICU's words of every declaration whose words it can find, as the
    UTF-8 byte offsets of their starts and ends, by code."""
    about, words = declarations(), {}
    for code, text in declaration_texts().items():
        if about[code].words_known:
            byte_at = np.fromiter(itertools.accumulate((len(char.encode("utf-8")) for char in text), initial=0),
                                  dtype=np.int64)
            spans = np.array(word_spans(text, about[code].bcp47), dtype=np.int64).reshape(-1, 2)
            words[code] = (byte_at[spans[:, 0]], byte_at[spans[:, 1]])
    return words


def test_every_declarations_words_are_counted_as_shipped():
    assert SHIPPED.words == {code: len(starts) for code, (starts, ends) in words().items()}


@pytest.mark.parametrize("name", list(SHIPPED.tokenizers) if SHIPPED else [])
def test_every_declarations_tokens_and_split_words_are_counted_as_shipped(name):
    tokenizer, kept = load_encoding(name), SHIPPED.tokenizers[name]
    assert kept.fingerprint == tokenizer.fingerprint, f"{name} changed: {REBUILD}"
    texts, about, known = declaration_texts(), declarations(), words()
    if name in BY_HUGGING_FACE:
        reference = hugging_face(name)
        encode = lambda text: reference.encode(text, add_special_tokens=False).ids
    else:
        encode = tokenizer.encode_ordinary
    sizes = np.zeros(max(tokenizer.vocab) + 1, dtype=np.int64)
    for token_id, token in tokenizer.vocab.items():
        sizes[token_id] = len(token)
    tokens, nfc_tokens, split = {}, {}, {}
    for code, text in texts.items():
        ids = encode(text)
        tokens[code] = len(ids)
        if not about[code].nfc:
            nfc_tokens[code] = len(encode(unicodedata.normalize("NFC", text)))
        if code not in known:
            continue
        form = NORMALIZATION.get(name)
        if form is not None and unicodedata.normalize(form, text) != text:
            spans = tokenizer.encode_with_offsets(text, disallowed_special=())
            assert len(spans) == len(ids), (code, "the spans are not the tokens counted")
            boundaries = np.unique([edge for span in spans for edge in (span.start, span.end)])
        else:
            boundaries = np.cumsum(np.concatenate(([-DUMMY_PREFIX_BYTES.get(name, 0)], sizes[ids])))
            assert boundaries[-1] == len(text.encode("utf-8")), (code, "the tokens do not tile the text")
        split[code] = words_split(*known[code], boundaries)
    assert [code for code in texts if kept.tokens[code] != tokens[code]] == []
    assert kept.tokens == tokens
    assert kept.nfc_tokens == nfc_tokens
    assert [code for code in known if kept.split_words[code] != split[code]] == []
    assert kept.split_words == split


def words_split(starts: np.ndarray, ends: np.ndarray, boundaries: np.ndarray) -> int:
    """How many of the words (byte offsets of their starts and ends) have a
    token boundary (sorted byte offsets) strictly inside them."""
    first_after_start = np.searchsorted(boundaries, starts, side="right")
    inside = first_after_start < len(boundaries)
    return int(np.count_nonzero(boundaries[first_after_start[inside]] < ends[inside]))
