"""Words, found the same way in every language: ICU's word boundaries.

Fertility (tokens per word, Rust et al., "How Good is Your Tokenizer?",
ACL 2021) needs words, and spaces do not give them everywhere: Thai, Lao,
Khmer, Burmese, Chinese and Japanese write words without spaces between
them, so splitting at whitespace counts a whole sentence as one "word".

ICU, the Unicode library behind browsers and operating systems, finds word
boundaries by Unicode's rules (UAX #29) where spaces separate words, and
with its dictionaries for those six scripts. Here a word is a segment that
holds a letter, a combining mark or a digit; punctuation and whitespace are
not words. One honest caveat: dictionary segmentation cuts a word it does
not know (the parallel corpus's invented town "Nareva", say) into smaller
pieces, so counts in those scripts are approximate, and fertility with them.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Sequence

import regex

from ..engine.tokenizer import TokenSpan, TokenSpans

HOW_WORDS_ARE_COUNTED = (
    "Words are found by ICU's word boundaries: Unicode's rules (UAX #29) where spaces separate words, and ICU's "
    "dictionaries for Thai, Lao, Khmer, Burmese, Chinese and Japanese, which write no spaces between words. A word "
    "is a segment with a letter, mark or digit; punctuation is not a word. Dictionaries cut words they do not know "
    "(names such as the invented town Nareva) into pieces, so word counts in those scripts are approximate."
)

_WORDLIKE = regex.compile(r"[\p{L}\p{M}\p{N}]")


@functools.lru_cache(maxsize=256)
def word_spans(text: str, language: str = "en") -> tuple[tuple[int, int], ...]:
    """The (start, end) character span of every word of `text`. `language`
    is an ICU locale ("th", "ja"); the dictionaries go by script anyway."""
    from icu4py.breakers import WordBreaker

    index_of = _code_points_by_utf16_offset(text)  # ICU counts UTF-16 code units
    spans = []
    for start, end in WordBreaker(text, language).segments():
        start, end = index_of[start], index_of[end]
        if _WORDLIKE.search(text, start, end):
            spans.append((start, end))
    return tuple(spans)


def _code_points_by_utf16_offset(text: str) -> dict[int, int]:
    offsets, position = {0: 0}, 0
    for index, char in enumerate(text, start=1):
        position += 2 if ord(char) > 0xFFFF else 1
        offsets[position] = index
    return offsets


def count_words(text: str, language: str = "en") -> int:
    return len(word_spans(text, language))


def word_byte_spans(text: str, language: str = "en") -> list[tuple[int, int]]:
    """`word_spans` in UTF-8 bytes, as tokens' offsets are counted."""
    byte_at = list(itertools.accumulate((len(char.encode("utf-8")) for char in text), initial=0))
    return [(byte_at[start], byte_at[end]) for start, end in word_spans(text, language)]


def split_words(text: str, spans: Sequence[TokenSpan], language: str = "en") -> int:
    """How many words of `text` have a token boundary inside them, that is,
    take more than one token (`spans` from `encode_with_offsets`)."""
    return words_split(word_byte_spans(text, language), spans)


def words_split(words: Iterable[tuple[int, int]], spans: Sequence[TokenSpan]) -> int:
    """How many of `words` (UTF-8 byte spans, as `word_byte_spans` gives
    them) have a token boundary strictly inside them. The boundaries are
    marked in a bytearray, one byte per byte of text, whose `find` looks
    inside each word at C's speed (a count of the UDHR meets millions of
    tokens and 905,000 words)."""
    if isinstance(spans, TokenSpans):
        starts, ends = spans.offsets()
    else:
        starts, ends = [span.start for span in spans], [span.end for span in spans]
    boundary = bytearray(max(ends, default=0) + 1)
    for offset in itertools.chain(starts, ends):
        boundary[offset] = 1
    return sum(boundary.find(1, start + 1, end) != -1 for start, end in words)
