"""The atlas's shipped counts (`sample_corpora/udhr/token_counts.json`,
made by `build_counts.py`), every one counted again: the words of every
declaration, and under every tokenizer the file holds, the tokens of every
declaration as written and after NFC and the words it splits.

Tokens are counted by each tokenizer's reference (tests/reference_encoders.py:
tiktoken's own, the makers' libraries, the makers' code written out), so a
count that is today's but wrong fails as surely as a stale one, and so are
the words a token boundary falls inside (ICU's words), counted here. The
file is apart from the atlas's other tests so that the two can run at once.
"""

import bisect
import itertools
import unicodedata

import pytest

from bpe_core.analysis.atlas import precomputed, read_precomputed
from bpe_core.analysis.words import word_spans
from bpe_core.corpora.udhr import declaration_texts, declarations, source
from bpe_core.vocabularies.catalogue import encoding_source, load_encoding
from tests.reference_encoders import reference_encoder

pytestmark = pytest.mark.slow

SHIPPED = read_precomputed()
# Where a token boundary falls in the text as written: the reference's
# tokens laid end to end, from before the space SentencePiece puts in front
# of a text (Mistral v3's dummy prefix, which its first token holds). Qwen
# composes the text (NFC) and Claude 1/2 normalizes it (NFKC) before
# tokenizing: where that changes a declaration, its tokens tile the changed
# text, and the engine's spans, mapped back to the text as typed, are used.
NORMALIZATION = {"qwen": "NFC", "claude_legacy": "NFKC"}
DUMMY_PREFIX_BYTES = {"mistral_v3": 1}
# Claude 1/2's reference, Hugging Face's tokenizer, takes about 40 s over the
# 527 declarations, ten times the engine; tests/test_zoo_more.py holds the
# engine to it on the parallel corpus, the edge cases and fuzzed text, so
# here its tokens are the engine's.
COUNTED_BY_THE_ENGINE = {"claude_legacy"}


def test_the_counts_are_of_todays_declarations_and_name_what_each_tokenizer_is_read_from():
    rebuild = "run sample_corpora/udhr/build_counts.py"
    assert SHIPPED is not None, f"token_counts.json is missing or of other texts: {rebuild}"
    assert SHIPPED.declarations_sha256 == source()["declarations_sha256"] and precomputed() == SHIPPED
    for name in SHIPPED.tokenizers:
        assert SHIPPED.sources[name] == encoding_source(name), f"{name} is read from elsewhere: {rebuild}"


@pytest.fixture(scope="module")
def words() -> dict[str, list[tuple[int, int]]]:
    """ICU's words of every declaration whose words it can find, as UTF-8
    byte spans, by code."""
    about, words = declarations(), {}
    for code, text in declaration_texts().items():
        if about[code].words_known:
            byte_at = list(itertools.accumulate((len(char.encode("utf-8")) for char in text), initial=0))
            words[code] = [(byte_at[start], byte_at[end]) for start, end in word_spans(text, about[code].bcp47)]
    return words


def test_every_declarations_words_are_counted_as_shipped(words):
    assert SHIPPED.words == {code: len(spans) for code, spans in words.items()}


@pytest.mark.parametrize("name", list(SHIPPED.tokenizers) if SHIPPED else [])
def test_every_declarations_tokens_and_split_words_are_counted_as_shipped(name, words):
    tokenizer, kept = load_encoding(name), SHIPPED.tokenizers[name]
    assert kept.fingerprint == tokenizer.fingerprint, f"{name} changed: rebuild token_counts.json"
    texts, about = declaration_texts(), declarations()
    encode = tokenizer.encode_ordinary if name in COUNTED_BY_THE_ENGINE else reference_encoder(name)
    sizes = {token_id: len(token) for token_id, token in tokenizer.vocab.items()}
    tokens, nfc_tokens, split = {}, {}, {}
    for code, text in texts.items():
        ids = encode(text)
        tokens[code] = len(ids)
        if not about[code].nfc:
            nfc_tokens[code] = len(encode(unicodedata.normalize("NFC", text)))
        if code not in words:
            continue
        form = NORMALIZATION.get(name)
        if form is not None and unicodedata.normalize(form, text) != text:
            spans = tokenizer.encode_with_offsets(text, disallowed_special=())
            assert len(spans) == len(ids), (code, "the engine's spans are not the reference's tokens")
            boundaries = sorted({edge for span in spans for edge in (span.start, span.end)})
        else:
            start = -DUMMY_PREFIX_BYTES.get(name, 0)
            boundaries = list(itertools.accumulate(map(sizes.__getitem__, ids), initial=start))
            assert boundaries[-1] == len(text.encode("utf-8")), (code, "the reference's tokens do not tile the text")
        split[code] = words_split(words[code], boundaries)
    assert [code for code in texts if kept.tokens[code] != tokens[code]] == []
    assert kept.tokens == tokens and kept.nfc_tokens == nfc_tokens
    assert [code for code in words if kept.split_words[code] != split[code]] == []
    assert kept.split_words == split


def words_split(words: list[tuple[int, int]], boundaries: list[int]) -> int:
    """How many of the words (byte spans) have a token boundary (sorted byte
    offsets) strictly inside them."""
    split = 0
    for start, end in words:
        first_after_start = bisect.bisect_right(boundaries, start)
        split += first_after_start < len(boundaries) and boundaries[first_after_start] < end
    return split
