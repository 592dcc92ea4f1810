"""From a training corpus to weighted pre-token pieces.

Training never looks at the text twice: it needs each distinct piece once,
with how often it occurs, in the order the pieces first appear (that order
decides ties between equally frequent pairs, as in the reference algorithm).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping

from .patterns import split_pieces
from .specials import split_on_specials
from .utf8 import encodable


def count_pieces(
    corpus: str | Mapping[str, int], pattern: str, special_tokens: tuple[str, ...] = ()
) -> dict[str, int]:
    """The distinct pre-token pieces of a corpus with their counts, in order of
    first appearance.

    A text is split with `pattern`; special-token strings act as boundaries and
    are not part of any piece (they get their own ids, never learned merges). A
    word-count mapping ({"low": 5, "lower": 2}) is taken as given: each word is
    one piece, weighted by its count.
    """
    if isinstance(corpus, str):
        pieces: Counter[str] = Counter()
        for segment, is_special in split_on_specials(corpus, special_tokens):
            if not is_special:
                pieces.update(split_pieces(segment, pattern))
        return dict(pieces)
    pieces: dict[str, int] = {}
    for word, count in corpus.items():
        if not isinstance(word, str) or not word:
            raise ValueError(f"Word-count corpus: every word must be a non-empty string, got {word!r}.")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"Word-count corpus: the count of {word!r} must be a positive integer, got {count!r}.")
        word = encodable(word)  # a lone surrogate has no UTF-8: U+FFFD, as in text
        pieces[word] = pieces.get(word, 0) + count
    return pieces


def corpus_size(pieces: Mapping[str, int]) -> tuple[int, int]:
    """(bytes, characters) that training sees: the pieces, each times its count.
    Text dropped by the split pattern and special tokens are not counted."""
    size_bytes = sum(len(piece.encode("utf-8")) * count for piece, count in pieces.items())
    size_chars = sum(len(piece) * count for piece, count in pieces.items())
    return size_bytes, size_chars


def corpus_fingerprint(corpus: str | Mapping[str, int]) -> str:
    """A digest of a corpus (a text, or word counts), for keying caches on
    the corpus without hashing or holding its text at every use."""
    data = "text:" + corpus if isinstance(corpus, str) else "counts:" + json.dumps(corpus, sort_keys=True)
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()
