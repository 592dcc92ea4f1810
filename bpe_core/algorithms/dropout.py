"""BPE-dropout (Provilkov et al. 2020, "BPE-Dropout: Simple and Effective
Subword Regularization"): encoding that skips each merge with probability p.

Plain BPE gives a word one segmentation. With dropout, every time a merge
could happen it is skipped with probability p (it may still happen at a
later step, when it is drawn again); a piece is done when every merge
possible was skipped. So " unrelated" is mostly one token, sometimes
" un" + "related", now and then " unre" + "l" + "ated": a model trained on such
text sees how words are built. With p = 0 this is plain encoding (the merge
loop, `merge_loop`, over the learned pairs); with p = 1, nothing merges.

As in the reference implementations (subword-nmt's `--dropout`, Hugging
Face's `BPE(dropout=p)`), a piece that is itself a token still goes through
its merges, and every occurrence of a piece is drawn anew. Draws come from a
seeded generator: the same seed gives the same segmentation.
"""

from __future__ import annotations

import collections
import random
import weakref

from ..engine.merge_loop import merge_lowest_rank_first
from ..engine.patterns import split_pieces
from ..engine.replay_tokenizer import ReplayTokenizer
from ..engine.specials import split_on_specials
from ..engine.superwords import SuperwordTokenizer
from ..engine.tokenizer import Tokenizer
from ..engine.utf8 import encodable

MAX_SAMPLES = 10_000  # segmentations sampled at once for a page


def check_dropout(p: float) -> None:
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p < 1:
        raise ValueError(f"The dropout probability must be at least 0 and below 1; got {p!r}.")


def dropout_problem(tokenizer) -> str | None:
    """Why BPE-dropout is not defined for `tokenizer`, in one line; None
    when it is: for BPE, and for BoundlessBPE, whose supermerges are merges
    too (each skipped with probability p, as its pieces' merges are)."""
    if not isinstance(tokenizer, Tokenizer):
        return f"BPE-dropout skips BPE merges; {tokenizer.name!r} is no BPE tokenizer."
    if isinstance(tokenizer, ReplayTokenizer):
        return (f"BPE-dropout is not defined for {tokenizer.name}: its encoding replays merges and removals "
                "in training's order, where time only goes forward, so a skipped merge cannot be drawn again at the "
                "next step as BPE-dropout draws it (and its authors define no dropout). Encode it without dropout.")
    return None


def encode_with_dropout(tokenizer: Tokenizer, text: str, p: float, seed: int = 0, *,
                        allowed_special: frozenset[str] = frozenset()) -> list[int]:
    """`text`'s ids with each merge skipped with probability `p`; the special
    tokens in `allowed_special` are those tokens, others ordinary text.
    BoundlessBPE: each piece's merges, then the supermerges over each run of
    pieces that came out as one token each, every one of them skippable."""
    check_dropout(p)
    if p == 0 and isinstance(tokenizer, Tokenizer):
        return tokenizer.encode(text, allowed_special=allowed_special, disallowed_special=())
    return _encoder_for(tokenizer)(tokenizer, text, p, random.Random(seed).random, allowed_special)


class _DropoutEncoder:
    """Encoding with dropout for one tokenizer: its merge table, for as many
    draws as asked. One per tokenizer (`_encoder_for`), so a page that reruns
    builds it once; it keeps no reference to the tokenizer (passed at each
    call), so that cache lets a tokenizer go when nothing else holds it."""

    def __init__(self, tokenizer: Tokenizer):
        problem = dropout_problem(tokenizer)
        if problem:
            raise ValueError(problem)
        self.joins = isinstance(tokenizer, SuperwordTokenizer)
        within = self._within(tokenizer)
        # (left, right) -> the id their merge makes, or None.
        if within.merges_recorded:
            self.merge_id = {pair: new_id for pair, new_id in within.merges}.get
        else:
            self.merge_id = _MergesFromRanks(within).get

    def _within(self, tokenizer: Tokenizer) -> Tokenizer:
        """What encodes each piece: BoundlessBPE's without its supermerges."""
        return tokenizer.within_pieces if self.joins else tokenizer

    def __call__(self, tokenizer: Tokenizer, text: str, p: float, draw,
                 allowed_special: frozenset[str] = frozenset()) -> list[int]:
        within, merge_id = self._within(tokenizer), self.merge_id

        def dropped() -> bool:
            return draw() < p

        ids: list[int] = []
        run: list[int] = []  # BoundlessBPE: ids of neighbouring pieces that are one token each, to join

        def join_run() -> None:
            ids.extend(token_id for token_id, _, _ in tokenizer.join_run(run, dropped=dropped))
            run.clear()

        for segment, is_special in split_on_specials(encodable(text), allowed_special):
            if is_special:
                if self.joins:
                    join_run()
                ids.append(tokenizer.special_tokens[segment])
                continue
            for piece in split_pieces(segment, tokenizer.pattern):
                parts = [token_id for token_id, _, _ in merge_lowest_rank_first(
                    within.unit_ids(within.units_of(piece)),
                    lambda left, right, start, end: merge_id((left, right)),
                    dropped=dropped,
                )]
                if self.joins and len(parts) == 1:
                    run.extend(parts)
                    continue
                if self.joins:
                    join_run()
                ids += parts
        if self.joins:
            join_run()
        return ids


class _MergesFromRanks:
    """The merges of a tokenizer that keeps ranks alone (tiktoken's files),
    each recovered when first asked: recovering all 100,000 of cl100k_base
    up front took 2.5 s, while one text asks about a few hundred pairs.

    A pair merges when its concatenation is a token whose own merge
    (`merge_parts`) is this pair, as in the table `merges` recovers. Only
    merges are kept (at most one per token); a pair that makes no token
    costs two lookups each time it is asked."""

    def __init__(self, tokenizer: Tokenizer):
        self.tokenizer = weakref.proxy(tokenizer)  # kept by `_encoders`, which must not keep the tokenizer
        self.recovered: dict[tuple[int, int], int] = {}

    def get(self, pair: tuple[int, int]) -> int | None:
        new_id = self.recovered.get(pair)
        if new_id is None:
            tokenizer = self.tokenizer
            left, right = (tokenizer.vocab.get(token_id) for token_id in pair)
            merged = None if left is None or right is None else tokenizer.mergeable_ranks.get(left + right)
            if merged is not None and tokenizer.merge_parts(merged) == pair:
                new_id = self.recovered[pair] = merged
        return new_id


_encoders: weakref.WeakKeyDictionary[Tokenizer, _DropoutEncoder] = weakref.WeakKeyDictionary()


def _encoder_for(tokenizer: Tokenizer) -> _DropoutEncoder:
    """The tokenizer's dropout encoder, made on first use and kept while
    the tokenizer lives (a weak key: this cache keeps no tokenizer alive)."""
    encoder = _encoders.get(tokenizer)
    if encoder is None:
        encoder = _encoders[tokenizer] = _DropoutEncoder(tokenizer)
    return encoder


def segmentations(tokenizer: Tokenizer, word: str, p: float, samples: int, seed: int = 0) -> list[tuple[tuple[bytes, ...], int]]:
    """How often each segmentation of `word` comes out in `samples` draws
    (seeds seed, seed + 1, ...), most frequent first: the tokens' bytes."""
    return [(tuple(map(tokenizer.token_bytes, ids)), count) for ids, count in sampled_ids(tokenizer, word, p, samples, seed)]


def sampled_ids(tokenizer: Tokenizer, word: str, p: float, samples: int, seed: int = 0) -> list[tuple[tuple[int, ...], int]]:
    """`segmentations`, as the tokens' ids."""
    if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= MAX_SAMPLES:
        raise ValueError(f"Sample between 1 and {MAX_SAMPLES:,} segmentations; got {samples!r}.")
    check_dropout(p)
    if p == 0:
        return [(tuple(tokenizer.encode(word, disallowed_special=())), samples)]
    encode = _encoder_for(tokenizer)
    counts = collections.Counter(
        tuple(encode(tokenizer, word, p, random.Random(seed + offset).random)) for offset in range(samples)
    )
    return counts.most_common()
