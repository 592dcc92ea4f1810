"""The reference algorithm, written the slow, obvious way (as in minbpe).

Every test of the fast trainer compares against this; the training
benchmark uses it as the naive peer. It recounts every pair of the whole
corpus after every merge.
"""

from __future__ import annotations

from bpe_core.engine.patterns import split_pieces
from bpe_core.engine.specials import split_on_specials


def pair_counts(chunks: list[list[int]]) -> dict[tuple[int, int], int]:
    """Counts of adjacent pairs; dict order is order of first occurrence."""
    counts: dict[tuple[int, int], int] = {}
    for ids in chunks:
        for pair in zip(ids, ids[1:]):
            counts[pair] = counts.get(pair, 0) + 1
    return counts


def replace_pair(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """Replace every occurrence of `pair`, scanning left to right."""
    merged, index = [], 0
    while index < len(ids):
        if index + 1 < len(ids) and (ids[index], ids[index + 1]) == pair:
            merged.append(new_id)
            index += 2
        else:
            merged.append(ids[index])
            index += 1
    return merged


def text_chunks(corpus, pattern: str, special_tokens=(), units: str = "bytes") -> tuple[list[list[int]], list]:
    """The corpus as one id list per piece occurrence, in text order, and the base tokens."""
    if isinstance(corpus, str):
        words = [
            piece
            for segment, is_special in split_on_specials(corpus, special_tokens)
            if not is_special
            for piece in split_pieces(segment, pattern)
        ]
    else:
        words = [word for word, count in corpus.items() for _ in range(count)]
    if units == "bytes":
        return [list(word.encode("utf-8")) for word in words], [bytes([b]) for b in range(256)]
    alphabet = list(dict.fromkeys(char for word in words for char in word))
    index = {char: i for i, char in enumerate(alphabet)}
    return [[index[char] for char in word] for word in words], alphabet


def naive_merges(chunks: list[list[int]], first_new_id: int, num_merges: int, min_count: int = 1):
    """The reference loop: recount, pick max (first occurrence wins ties), replace.
    Returns [(pair, new_id, count, corpus_tokens)]."""
    steps = []
    for step in range(num_merges):
        counts = pair_counts(chunks)
        if not counts:
            break
        pair = max(counts, key=counts.get)
        if counts[pair] < min_count:
            break
        new_id = first_new_id + step
        chunks = [replace_pair(ids, pair, new_id) for ids in chunks]
        steps.append((pair, new_id, counts[pair], sum(map(len, chunks))))
    return steps


def naive_train(corpus, num_merges: int, pattern: str = "cl100k", special_tokens=(), units: str = "bytes", min_count: int = 1):
    """Returns [(pair, new_id, count, corpus_tokens)] and the base tokens."""
    chunks, base = text_chunks(corpus, pattern, special_tokens, units)
    return naive_merges(chunks, len(base), num_merges, min_count), base
