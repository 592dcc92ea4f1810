"""What the step-through view computes about a training run at step k.

Training records its trace (each merge with its count and the corpus's
length afterwards), so most of the view is read from the trace. Two things
are computed: the pairs that competed for a merge, and the corpus's length
before any merge.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..corpus import count_pieces
from ..merge_learning import Pair, rank_pairs
from ..tokenizer import Tokenizer


def candidate_pairs(
    tokenizer: Tokenizer, corpus: str | Mapping[str, int], step: int, top: int = 10
) -> list[tuple[Pair, int]]:
    """The `top` most frequent pairs of `corpus` after `step` merges, with
    their counts, ranked as training ranks them (the next merge is first)."""
    tokenizer.check_step(step)
    pieces = count_pieces(corpus, tokenizer.pattern, tuple(tokenizer.special_tokens))
    encoded = ((tokenizer.piece_at_step(piece, step), count) for piece, count in pieces.items())
    return rank_pairs(encoded)[:top]


def corpus_tokens_at(tokenizer: Tokenizer, step: int, corpus_bytes: int, corpus_chars: int) -> int:
    """The training corpus's length in tokens after `step` merges: from the
    trace, and before any merge one token per base unit (byte, or character
    in the character variant)."""
    if step:
        return tokenizer.trace[step - 1].corpus_tokens
    return corpus_bytes if tokenizer.units == "bytes" else corpus_chars
