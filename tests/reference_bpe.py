"""The reference algorithm, written the slow, obvious way (as in minbpe).

Every test of the fast trainer compares against this; the training
benchmark uses it as the naive peer. It recounts every pair of the whole
corpus after every merge.

It shares no code with the engine, the split included: the text is cut at
special tokens by a plain scan, and into pieces by the `regex` module with
the published patterns, written out below as tiktoken publishes them
(`tiktoken_ext/openai_public.py`; tests/test_training.py holds them to
tiktoken's), so that a pre-tokenization bug in the engine shows up as a
difference in training.
"""

from __future__ import annotations

import regex

# The split patterns by the engine's preset names: GPT-2's (r50k_base),
# GPT-4's (cl100k_base), GPT-4o's (o200k_base), and none (the whole text).
PATTERNS = {
    "none": r"""[\s\S]+""",
    "gpt2": r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s""",
    "cl100k": r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
    "o200k": "|".join(
        [
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]
    ),
}


def split_at_specials(text: str, special_tokens) -> list[str]:
    """The ordinary text between special tokens, scanning left to right; where
    two special tokens start at one place, the longer one is the token."""
    longest_first = sorted(special_tokens, key=len, reverse=True)
    segments, start, position = [], 0, 0
    while position < len(text):
        special = next((token for token in longest_first if text.startswith(token, position)), None)
        if special is None:
            position += 1
            continue
        segments.append(text[start:position])
        position += len(special)
        start = position
    segments.append(text[start:])
    return [segment for segment in segments if segment]


def split_into_pieces(text: str, pattern: str) -> list[str]:
    """Every non-empty match of the pattern (a preset's name or a regex), in order."""
    return [match[0] for match in regex.finditer(PATTERNS.get(pattern, pattern), text) if match[0]]


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
        words = [piece for segment in split_at_specials(corpus, special_tokens) for piece in split_into_pieces(segment, pattern)]
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
