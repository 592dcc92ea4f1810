"""Encoding one piece: merge the adjacent pair with the lowest rank, repeat.

This is the whole of BPE encoding. A piece starts as one part per unit (byte
or character); while some adjacent pair of parts can merge, the pair whose
merge has the lowest rank is merged, the leftmost one on a tie. With the
learned pairs as the rule, this replays training's merges in order, because
a merge can only create pairs that contain its new token, and those rank
later. (tiktoken's rule, below, may also merge two parts that training never
paired; see `tokenizer`.)

Two tokenizers differ only in how they say whether two parts merge, so that
is a parameter, `rank_of(left_id, right_id, start, end)`:

- tiktoken looks up the *bytes* of the would-be token (units start..end) in
  its ranks; ids are ranks, so the merged part's id is that rank.
- replaying training looks up the *pair of ids* in the learned merges, which
  reproduces the training state exactly, also after only the first k merges.

Which mergeable pair goes first is the other choice, `priority`: by default
the lowest id, because ids are ranks (tiktoken, and training here);
SentencePiece's BPE instead merges the pair whose piece has the highest
score (see `sentencepiece_model`), and a Hugging Face merge list the pair
listed first (`pair_priority`: the rank belongs to the pair, and two pairs
may make the same token; see `merge_list_bpe`). Ties go to the leftmost
pair either way.

BPE-dropout (Provilkov et al. 2020) is the same loop with one more choice,
`dropped`: asked before each merge, it may skip it; the skipped merges are
set aside and return after the next merge that happens, so that every step
draws again among all the merges possible then, and the piece ends when
every possible merge was skipped (see `bpe_core.algorithms.dropout`).

The naive loop rescans all pairs after every merge (quadratic in the piece
length, see tiktoken's `_educational.py`). Keeping candidate merges in a heap
makes it O(n log n), which matters for long pieces: whitespace runs, or the
whole text when there is no pre-tokenization. A heap entry goes stale when
one of its parts merges elsewhere; it is recognised on pop because the parts
now there no longer give the recorded rank, and skipped.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence

RankOf = Callable[[int, int, int, int], "int | None"]
OnMerge = Callable[[int, int, int, int], None]
Priority = Callable[[int], float]
PairPriority = Callable[[int, int], float]


def merge_lowest_rank_first(
    unit_ids: Sequence[int], rank_of: RankOf, on_merge: OnMerge | None = None, priority: Priority | None = None,
    pair_priority: PairPriority | None = None, dropped: Callable[[], bool] | None = None,
) -> list[tuple[int, int, int]]:
    """Run BPE on one piece; return its tokens as (id, start, end) unit spans.

    `unit_ids` holds one id per unit of the piece. `rank_of(left_id,
    right_id, start, end)` returns the id of the token made by merging the
    adjacent parts that cover units start..end, or None if they do not merge.
    `on_merge(new_id, start, middle, end)`, if given, hears every merge as it
    happens (the parts start..middle and middle..end became new_id), so that
    a replay shows exactly what encoding did. `priority(new_id)`, if
    given, orders the merges instead of the new id itself (lowest first);
    `pair_priority(left_id, right_id)` orders them by the pair merged.
    `dropped()`, if given, is asked before each merge whether to skip it
    (BPE-dropout, see above).
    """

    def order(rank: int, left_id: int, right_id: int) -> float:
        if pair_priority is not None:
            return pair_priority(left_id, right_id)
        return rank if priority is None else priority(rank)

    size = len(unit_ids)
    ids = list(unit_ids)  # ids[s]: id of the part starting at unit s
    end = list(range(1, size + 1))  # end[s]: where that part ends; -1 once absorbed
    previous = list(range(-1, size - 1))  # previous[s]: start of the part before it

    candidates = []  # (priority, start of left part, id of the token made)
    for start in range(size - 1):
        rank = rank_of(ids[start], ids[start + 1], start, start + 2)
        if rank is not None:
            candidates.append((order(rank, ids[start], ids[start + 1]), start, rank))
    heapq.heapify(candidates)
    skipped = []  # merges dropped since the last merge made

    while candidates:
        candidate = heapq.heappop(candidates)
        _, left, rank = candidate
        right = end[left]
        if right == -1 or right == size:  # absorbed, or has no right neighbour
            continue
        if rank_of(ids[left], ids[right], left, end[right]) != rank:  # stale entry
            continue
        if dropped is not None and dropped():
            skipped.append(candidate)
            continue
        if on_merge is not None:
            on_merge(rank, left, right, end[right])
        ids[left], end[left], end[right] = rank, end[right], -1
        after = end[left]
        if after < size:
            previous[after] = left
            rank = rank_of(ids[left], ids[after], left, end[after])
            if rank is not None:
                heapq.heappush(candidates, (order(rank, ids[left], ids[after]), left, rank))
        before = previous[left]
        if before >= 0:
            rank = rank_of(ids[before], ids[left], before, end[left])
            if rank is not None:
                heapq.heappush(candidates, (order(rank, ids[before], ids[left]), before, rank))
        for candidate in skipped:  # they may happen at the next step (or have gone stale)
            heapq.heappush(candidates, candidate)
        skipped.clear()

    tokens, start = [], 0
    while start < size:
        tokens.append((ids[start], start, end[start]))
        start = end[start]
    return tokens
