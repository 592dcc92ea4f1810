"""A tokenizer whose tokens may join whole pieces (BoundlessBPE's
supermerges, see `bpe_core.algorithms.boundless`).

Its merges are of two kinds. Ordinary merges work inside a piece, as in any
BPE. A *supermerge* joins two adjacent pieces that are each a single token
already (" of" and " the" into " of the"), and then superwords in turn. So
encoding is two passes: each piece as BPE makes it (with the ordinary merges
only), then, over every run of adjacent pieces that are one token each, BPE
again with the supermerges, lowest rank first (`merge_loop`). This is what
replaying all the merges in their one order does (the reference's
inference): a supermerge only ever joins pieces that were whole before it was
learned, and a whole piece stays whole.

The pieces must tile the text, as under every preset split: a superword
covers the text of the pieces it joins.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence

from .merge_learning import Pair
from .merge_loop import OnMerge, merge_lowest_rank_first
from .piece_bpe import PieceBPE
from .tokenizer import Token, Tokenizer

_CACHED_PIECES = 200_000  # pieces remembered (as the Tokenizer's own cache)


class SuperwordTokenizer(Tokenizer):
    """BPE with supermerges: `supermerges` lists the ids their merges made."""

    def __init__(self, *, vocab: Mapping[int, Token], merges: Sequence[tuple[Pair, int]], supermerges: Sequence[int],
                 **arguments):
        super().__init__(vocab=vocab, merges=merges, **arguments)
        if self.pattern_name in ("custom", "none"):
            raise ValueError("Supermerges join pieces that tile the text: a preset split pattern is needed, not "
                             f"{self.pattern_name!r}.")
        self.supermerges = sorted(supermerges)
        superwords = set(self.supermerges)
        self._joins = {pair: new_id for pair, new_id in merges if new_id in superwords}
        # Pieces are encoded without the superwords (which never lie inside one piece).
        self._words = Tokenizer(name=f"{self.name}, words", pattern=self.pattern, units=self.units,
                                vocab={token_id: token for token_id, token in vocab.items() if token_id not in superwords},
                                merges=[merge for merge in merges if merge[1] not in superwords])
        self._word_pieces = PieceBPE(self._words.mergeable_ranks)

    def _whole_text_engine(self, step, reference):
        return None  # pieces are encoded one by one: runs of them may join

    def _piece_encoder(self, step: int | None, reference: bool):
        """Pieces without the superwords: in C (remembered), or replayed
        at a step, or by the readable merge loop for the reference."""
        if reference:
            return self._words._reference_piece_ids if step is None else functools.partial(self._words.piece_at_step, step=step)
        if step is None:
            return self._word_piece_ids
        return functools.cache(functools.partial(self._words.piece_at_step, step=step))

    def _word_piece_ids(self, piece: str) -> tuple[int, ...]:
        piece_ids = self._cache.get(piece)
        if piece_ids is None:
            piece_ids = tuple(self._word_pieces(piece))
            if len(self._cache) < _CACHED_PIECES:
                self._cache[piece] = piece_ids
        return piece_ids

    @property
    def within_pieces(self) -> Tokenizer:
        """This tokenizer without its supermerges: how each piece is encoded
        on its own, before any joins it (for Encode replay)."""
        return self._words

    def join_run(self, run: Sequence[int], on_merge: OnMerge | None = None,
                 dropped: Callable[[], bool] | None = None) -> list[tuple[int, int, int]]:
        """A run of adjacent pieces that are one token each (their ids), after
        the supermerges: tokens as (id, first piece, end piece). `on_merge`
        hears each supermerge, in pieces, as the merge loop's does in units;
        `dropped` skips some, as BPE-dropout does (see `merge_loop`)."""
        return merge_lowest_rank_first(run, lambda left, right, start, end: self._joins.get((left, right)), on_merge,
                                       dropped=dropped)

    def _pieces_ids(self, pieces: list[str], piece_ids, step: int | None) -> list[int]:
        limit = None if step is None else self.first_merge_id + step
        joins = self._joins

        def join_of(left: int, right: int, start: int, end: int) -> int | None:
            new_id = joins.get((left, right))
            return None if new_id is None or (limit is not None and new_id >= limit) else new_id

        ids: list[int] = []
        run: list[int] = []  # ids of adjacent pieces that are one token each
        for piece in pieces:
            tokens = piece_ids(piece)
            if len(tokens) == 1:
                run += tokens
                continue
            ids += (token_id for token_id, _, _ in merge_lowest_rank_first(run, join_of))
            ids += tokens
            run = []
        ids += (token_id for token_id, _, _ in merge_lowest_rank_first(run, join_of))
        return ids

    def _arguments(self) -> dict:
        return {**super()._arguments(), "supermerges": self.supermerges}
