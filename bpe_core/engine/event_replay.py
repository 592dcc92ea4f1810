"""Encoding one piece by replaying training's events: merges and removals.

Plain BPE's record is its merges, and encoding replays them (`merge_loop`).
Picky BPE's record also removes tokens: after some merge, a token that now
occurs almost only inside the new one is split back into the tokens it was
made of, everywhere (see `bpe_core.algorithms.picky`). Its encoding replays
both kinds of event in the order training had them, each where it finds
something to act on: a merge where its pair stands (leftmost first, as in
training), a removal where its token stands. Time never goes back: a merge
whose moment has passed does not apply to parts that a removal sets free
later (Chizhov et al.'s `picky_tokenize.py`, `_encode_word_by_events`).

As in `merge_loop`, what may happen next waits in a heap, ordered by event
number and then position, so that a long piece costs O(n log n); an entry
whose parts have changed since is recognised when it surfaces, and skipped.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from collections.abc import Sequence

from .merge_learning import Pair

_MERGE, _REMOVAL = 0, 1


class Events:
    """Training's events, indexed for replaying them: `merges` as (event
    number, (left, right), new id), `removals` as (event number, token,
    parts), and each token's length in units."""

    def __init__(self, merges: Sequence[tuple[int, Pair, int]], removals: Sequence[tuple[int, int, Sequence[int]]],
                 unit_lengths: Sequence[int]):
        # A pair may merge more than once: its token removed, the pair is there again.
        self.merges_of: dict[Pair, list[tuple[int, int]]] = {}
        for event, pair, new_id in merges:
            self.merges_of.setdefault(pair, []).append((event, new_id))
        self.removal_of = {token: (event, tuple(parts)) for event, token, parts in removals}
        self.unit_lengths = unit_lengths

    def next_merge(self, pair: Pair, now: int) -> tuple[int, int] | None:
        """The first merge of `pair` at event `now` or later: (event, new id)."""
        merges = self.merges_of.get(pair)
        if merges is None:
            return None
        index = bisect.bisect_left(merges, (now, -1))
        return merges[index] if index < len(merges) else None


def replay_events(unit_ids: Sequence[int], events: Events, stop: int | None = None,
                  history: list | None = None) -> list[tuple[int, int, int]]:
    """The tokens of one piece, as (id, start, end) unit spans, after the
    events numbered below `stop` (all of them, when None). With `history`,
    each event that changes the piece appends (events done, the piece's
    tokens then) there, for the step control."""
    size = len(unit_ids)
    ids = list(unit_ids)  # ids[s]: the token starting at unit s
    end = list(range(1, size + 1))  # end[s]: where it ends; -1 while inside another token
    previous = list(range(-1, size - 1))  # previous[s]: where the token before it starts
    limit = float("inf") if stop is None else stop
    waiting: list = []  # (event, start, kind, the ids it expects there)

    def offer_merge(left: int, now: int) -> None:
        right = end[left]
        if right < size:
            found = events.next_merge((ids[left], ids[right]), now)
            if found is not None and found[0] < limit:
                heapq.heappush(waiting, (found[0], left, _MERGE, (ids[left], ids[right], found[1])))

    def offer_removal(start: int) -> None:
        found = events.removal_of.get(ids[start])
        if found is not None and found[0] < limit:
            heapq.heappush(waiting, (found[0], start, _REMOVAL, (ids[start],)))

    def tokens() -> list[tuple[int, int, int]]:
        spans, start = [], 0
        while start < size:
            spans.append((ids[start], start, end[start]))
            start = end[start]
        return spans

    for start in range(size - 1):
        offer_merge(start, 0)
    while waiting:
        now, start, kind, expected = heapq.heappop(waiting)
        if end[start] == -1 or ids[start] != expected[0]:
            continue  # stale: the part is gone, or another token stands there
        if kind == _MERGE:
            right = end[start]
            if right == size or ids[right] != expected[1]:
                continue
            ids[start], end[start], end[right] = expected[2], end[right], -1
            if end[start] < size:
                previous[end[start]] = start
                offer_merge(start, now + 1)
            if previous[start] >= 0:
                offer_merge(previous[start], now + 1)
            offer_removal(start)
        else:
            after, places = end[start], [start]
            for part in events.removal_of[expected[0]][1]:
                ids[places[-1]] = part
                places.append(places[-1] + events.unit_lengths[part])
            for left, right in itertools.pairwise(places):
                end[left] = right
                if right < size:
                    previous[right] = left
            assert places[-1] == after, "a token's parts cover exactly its units"
            for place in places[:-1]:
                offer_merge(place, now + 1)
                offer_removal(place)
            if previous[start] >= 0:
                offer_merge(previous[start], now + 1)
        if history is not None:
            if history and history[-1][0] == now + 1:  # the same event again, further along
                history.pop()
            history.append((now + 1, tuple(tokens())))
    return tokens()
