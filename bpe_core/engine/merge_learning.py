"""Learning BPE merges: the reference algorithm, made fast.

The reference algorithm (Sennrich et al. 2016; minbpe; every tutorial):

    repeat:
        count every adjacent pair of tokens in the corpus
        pick the most frequent pair; on a tie, the one that occurs first
        replace it everywhere, left to right, by a new token

This module learns exactly the same merges, in the same order, with the same
counts, but without recounting the corpus after every merge:

1. Identical pieces are stored once with a weight (a word seen 500 times is
   one piece of weight 500), so the work scales with the vocabulary of the
   text, not its length.
2. The pieces lie in one array of token positions linked as lists, so a
   merge rewires two neighbours instead of rebuilding a sequence.
3. Pair counts are kept current: a merge at one position only changes the
   pairs around it. Each pair keeps the sorted positions where it occurs, so
   a merge visits only its own occurrences. In all, the merge work is bounded
   by the number of tokens in the (deduplicated) corpus.
4. The best pair comes from a heap ordered by (-count, first position). Its
   entries may be out of date, but only in one direction: a pair that
   already exists can only *lose* occurrences (new pairs all contain the new
   token), so its count only falls and its first occurrence only moves
   right. A stale entry therefore sorts too early, never too late; when one
   reaches the top it is refreshed and pushed back, and the first entry that
   is up to date is the true best pair.

Positions never move (merging just unlinks the right-hand token), so the
first occurrence of a pair is the smallest position holding it: pieces are
laid out in order of first appearance in the text, which makes that position
the pair's first occurrence in the whole corpus, as in the reference.

The later algorithms (`bpe_core.algorithms`) change the loop, not the state:
a rule may refuse a pair (SuperBPE's longest superwords, BoundlessBPE's
pretokens that are not whole yet), and a token may be split back into its
parts (Picky BPE's removals), the reverse of a merge.
"""

from __future__ import annotations

import heapq
import itertools
import time
from array import array
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

Pair = tuple[int, int]
Progress = Callable[[int, int], None]

UNLINKED = -1  # a neighbour index meaning "none": the piece ends here
_ABSORBED = -1  # the token id of a position merged into its left neighbour


class MergeStep(NamedTuple):
    """One learned merge, as the step-through view shows it."""

    pair: Pair  # the ids that were merged
    new_id: int  # the id of the new token
    count: int  # occurrences of the pair when it was chosen (overlaps count)
    token: bytes | str  # what the new token stands for
    corpus_tokens: int  # length of the whole training corpus, in tokens, afterwards


class MergeState:
    """The deduplicated corpus as linked token lists, with live pair statistics."""

    def __init__(self, pieces: Iterable[tuple[Sequence[int], int]]):
        # Machine integers, not lists of Python ints: a 10 MB corpus has
        # millions of positions, and a list spends 36 bytes on each.
        token: list[int] = []  # token id at each position (_ABSORBED once merged away)
        following = array("q")  # next position in the same piece
        preceding = array("q")  # previous position in the same piece
        weight: list[int] = []  # how often the piece holding the position occurs
        pair_count: dict[Pair, int] = {}
        pair_positions: dict[Pair, array] = {}  # ascending; may hold stale positions
        corpus_tokens = 0
        for units, count in pieces:
            first, size = len(token), len(units)
            token.extend(units)
            following.extend(range(first + 1, first + size))
            following.append(UNLINKED)
            preceding.append(UNLINKED)
            preceding.extend(range(first, first + size - 1))
            weight.extend([count] * size)
            corpus_tokens += size * count
            for position, pair in enumerate(itertools.pairwise(units), first):
                pair_count[pair] = pair_count.get(pair, 0) + count
                positions = pair_positions.get(pair)
                if positions is None:
                    pair_positions[pair] = positions = array("q")
                positions.append(position)
        self.token, self.following, self.preceding, self.weight = token, following, preceding, weight
        self.corpus_tokens = corpus_tokens
        self.pair_count, self.pair_positions = pair_count, pair_positions
        # A pair seen once can only lose that occurrence (see `merge`): it waits
        # outside the heap until the best pair left is seen once too (most
        # pairs of a long text without repeats, SuperBPE's second stage, never
        # get there), and `_let_in_the_once_seen` lets them all in.
        self.seen_once: list[Pair] | None = [pair for pair, count in pair_count.items() if count == 1]
        self.heap = [(-count, pair_positions[pair][0], pair) for pair, count in pair_count.items() if count > 1]
        heapq.heapify(self.heap)

    def _holds(self, position: int, pair: Pair) -> bool:
        right = self.following[position]
        return (
            self.token[position] == pair[0]
            and right != UNLINKED
            and self.token[right] == pair[1]
        )

    def _first_position(self, pair: Pair) -> int:
        positions = self.pair_positions[pair]
        stale = 0
        while not self._holds(positions[stale], pair):
            stale += 1
        del positions[:stale]
        return positions[0]

    def best_pair(self, allowed: Callable[[Pair], bool] | None = None) -> tuple[Pair, int] | None:
        """The most frequent pair (earliest first occurrence on a tie) that
        `allowed` accepts, and its count. Stale heap entries on top are
        refreshed (see the module's docstring); a refused pair leaves the
        heap, not to be offered again until `reconsider` brings it back."""
        heap = self.heap
        while self._let_in_the_once_seen() or heap:
            negative_count, first, pair = heap[0]
            count = self.pair_count.get(pair, 0)
            if count == 0:
                heapq.heappop(heap)
            elif count != -negative_count:
                heapq.heapreplace(heap, (-count, first, pair))
            elif allowed is not None and not allowed(pair):  # before the first position: it may move right, not back
                heapq.heappop(heap)
            elif (actual_first := self._first_position(pair)) != first:
                heapq.heapreplace(heap, (-count, actual_first, pair))
            else:
                return pair, count
        return None

    def _let_in_the_once_seen(self) -> bool:
        """Put the pairs seen once into the heap when nothing above 1 is
        left in it (an entry's count is never below the pair's); say whether
        any came in."""
        if self.seen_once is None or (self.heap and -self.heap[0][0] > 1):
            return False
        waiting, self.seen_once = self.seen_once, None
        for pair in waiting:
            if self.pair_count.get(pair) == 1:
                heapq.heappush(self.heap, (-1, self._first_position(pair), pair))
        return bool(self.heap)

    def reconsider(self, pair: Pair) -> None:
        """Offer a pair that `best_pair` refused again (if it still occurs)."""
        count = self.pair_count.get(pair)
        if count:
            heapq.heappush(self.heap, (-count, self._first_position(pair), pair))

    def leading_pairs(self, number: int) -> list[tuple[Pair, int]]:
        """The `number` best pairs with their counts, best first. Stale heap
        entries that surface on the way are refreshed (see the module's
        docstring); the pairs found stay in the heap."""
        heap, found = self.heap, []
        while (self._let_in_the_once_seen() or heap) and len(found) < number:
            negative_count, first, pair = heap[0]
            count = self.pair_count.get(pair, 0)
            if count == 0 or any(pair == known for _, _, known in found):  # gone, or a second entry (see `split`)
                heapq.heappop(heap)
            elif count != -negative_count:
                heapq.heapreplace(heap, (-count, first, pair))
            elif (actual_first := self._first_position(pair)) != first:
                heapq.heapreplace(heap, (-count, actual_first, pair))
            else:
                found.append(heapq.heappop(heap))
        for entry in found:
            heapq.heappush(heap, entry)
        return [(pair, -negative_count) for negative_count, _, pair in found]

    def merge(self, pair: Pair, new_id: int) -> None:
        """Replace every occurrence of `pair`, left to right, by `new_id`.

        At each occurrence "x A B y" becomes "x Z y": the pairs (x, A) and
        (B, y) lose one occurrence (times the piece's weight), and (x, Z) and
        (Z, y) gain one. This is the hot loop of training, so it works on
        local names and settles the lost pairs once, after the pass.
        """
        token, following, preceding, weight = self.token, self.following, self.preceding, self.weight
        pair_count = self.pair_count
        count_of = pair_count.get
        left_id, right_id = pair
        unlinked, absorbed = UNLINKED, _ABSORBED
        emptied: list[Pair] = []  # pairs that lost all their occurrences
        created: dict[Pair, list[int]] = {}  # new pairs (all contain new_id) and where
        positions_of = created.setdefault
        merged = 0  # occurrences merged, each counted as often as its piece occurs
        for left in self.pair_positions.pop(pair):
            right = following[left]
            if token[left] != left_id or right == unlinked or token[right] != right_id:
                continue  # a stale position, or consumed by an overlapping merge ("aaa")
            before, after, occurrences = preceding[left], following[right], weight[left]
            if before != unlinked:
                old_pair = (token[before], left_id)
                remaining = pair_count[old_pair] - occurrences
                pair_count[old_pair] = remaining
                if not remaining:
                    emptied.append(old_pair)
                new_pair = (token[before], new_id)
                pair_count[new_pair] = count_of(new_pair, 0) + occurrences
                positions_of(new_pair, []).append(before)
            if after != unlinked:
                old_pair = (right_id, token[after])
                remaining = pair_count[old_pair] - occurrences
                pair_count[old_pair] = remaining
                if not remaining:
                    emptied.append(old_pair)
                new_pair = (new_id, token[after])
                pair_count[new_pair] = count_of(new_pair, 0) + occurrences
                positions_of(new_pair, []).append(left)
                preceding[after] = left
            token[left], token[right] = new_id, absorbed
            following[left] = after
            merged += occurrences
        self.corpus_tokens -= merged
        del pair_count[pair]
        for old_pair in emptied:
            if pair_count.get(old_pair) == 0:  # gone: forget it; its heap entry dies when it surfaces
                del pair_count[old_pair]
                self.pair_positions.pop(old_pair, None)
        for new_pair, positions in created.items():
            if new_pair in pair_count:
                self.pair_positions[new_pair] = array("q", positions)
                if pair_count[new_pair] == 1 and self.seen_once is not None:
                    self.seen_once.append(new_pair)
                else:
                    heapq.heappush(self.heap, (-pair_count[new_pair], positions[0], new_pair))


    def split(self, token_id: int, parts: Sequence[int], unit_lengths: Sequence[int], positions: Iterable[int]) -> list[int]:
        """Replace `token_id` wherever it stands at one of `positions` (the
        others are stale, and skipped) by `parts`, whose lengths in units
        are `unit_lengths[part]`; return where each part now starts.

        The reverse of a merge: at each occurrence "x T y" becomes
        "x P1 ... Pk y", so (x, T) and (T, y) lose an occurrence and (x, P1),
        (P1, P2), ..., (Pk, y) gain one. Positions keep their place: a token
        at position p covers the units from p on, and its parts start at p
        and after each other, where merges had absorbed them. Unlike a
        merge, a split makes pairs that may already exist more frequent, or
        occur earlier; each of those gets a fresh heap entry (its older one
        now sorts too late, and is refreshed or dropped when it surfaces)."""
        token, following, preceding, weight = self.token, self.following, self.preceding, self.weight
        offsets = list(itertools.accumulate((unit_lengths[part] for part in parts[:-1]), initial=0))
        change: dict[Pair, int] = {}  # pair -> its count's change
        gained: dict[Pair, list[int]] = {}  # pair -> where it now starts
        placed: list[int] = []
        for start in positions:
            if token[start] != token_id:
                continue
            occurrences = weight[start]
            before, after = preceding[start], following[start]
            places = [start + offset for offset in offsets]
            for left, right in ((before, start), (start, after)):
                if left != UNLINKED and right != UNLINKED:
                    pair = (token[left], token[right])
                    change[pair] = change.get(pair, 0) - occurrences
            for place, part in zip(places, parts):
                token[place] = part
            chain = [before] * (before != UNLINKED) + places + [after] * (after != UNLINKED)
            for left, right in itertools.pairwise(chain):
                following[left], preceding[right] = right, left
                pair = (token[left], token[right])
                change[pair] = change.get(pair, 0) + occurrences
                gained.setdefault(pair, []).append(left)
            following[places[-1]] = after
            self.corpus_tokens += (len(parts) - 1) * occurrences
            placed += places
        for pair, delta in change.items():
            count = self.pair_count.get(pair, 0) + delta
            if count:
                self.pair_count[pair] = count
            else:
                self.pair_count.pop(pair, None)
                self.pair_positions.pop(pair, None)
        for pair, starts in gained.items():
            if change[pair] > 0:
                known = self.pair_positions.get(pair, ())
                self.pair_positions[pair] = array("q", sorted({*known, *starts}))
                heapq.heappush(self.heap, (-self.pair_count[pair], self._first_position(pair), pair))
        return placed


def learn_merges(
    pieces: Iterable[tuple[Sequence[int], int]],
    base_tokens: Sequence[bytes | str],
    num_merges: int,
    min_count: int = 1,
    progress: Progress | None = None,
    deadline: float | None = None,
    allowed: Callable[[bytes | str], bool] | None = None,
) -> tuple[list[MergeStep], str | None]:
    """Learn up to `num_merges` merges over weighted pieces: (base-token ids, count).

    `base_tokens[i]` is what id i stands for (a byte, or a character, or a
    token learned before); merge k gets id len(base_tokens) + k. Returns the
    merges, and why training stopped early (None if all `num_merges` were
    learned). With a `deadline` (a `time.monotonic()` reading), training
    stops there with what it has. With `allowed`, a pair whose token it
    refuses is never merged (the next best is).
    """
    state = MergeState(pieces)
    tokens = list(base_tokens)
    rule = None if allowed is None else (lambda pair: allowed(tokens[pair[0]] + tokens[pair[1]]))
    learned: list[MergeStep] = []
    report_every = max(1, num_merges // 200)
    stop_reason = None
    for step in range(num_merges):
        if deadline is not None and time.monotonic() > deadline:
            stop_reason = out_of_time(step, num_merges)
            break
        best = state.best_pair(rule)
        if best is None:
            stop_reason = no_pair_left(step)
            break
        pair, count = best
        if count < min_count:
            stop_reason = below_min_count(step, count, min_count)
            break
        new_id = len(tokens)
        state.merge(pair, new_id)
        tokens.append(tokens[pair[0]] + tokens[pair[1]])
        learned.append(MergeStep(pair, new_id, count, tokens[new_id], state.corpus_tokens))
        if progress is not None and (step + 1) % report_every == 0:
            progress(step + 1, num_merges)
    if progress is not None:
        progress(num_merges, num_merges)
    return learned, stop_reason


# Why training stopped early, in the words `stop_reason` gives the user (the
# C version of `learn_merges`, see `native_training`, stops for the same reasons).


def out_of_time(step: int, num_merges: int) -> str:
    return f"the time allowed ran out after {step:,} of {num_merges:,} merges"


def no_pair_left(step: int) -> str:
    return f"no adjacent pair is left to merge after {step} merges"


def below_min_count(step: int, count: int, min_count: int) -> str:
    times = "once" if count == 1 else f"{count} times"
    return f"after {step} merges the most frequent pair occurs {times}, below min_count={min_count}"


def leading_pairs_by_step(
    pieces: Iterable[tuple[Sequence[int], int]], merges: Sequence[tuple[Pair, int]], steps: range, top: int
) -> list[list[tuple[Pair, int]]]:
    """Replay `merges` on weighted pieces, (base-token ids, count), and
    before merge k + 1 for each k in `steps` rank the `top` pairs as
    training ranks them (the first is the merge training chose, when the
    pieces are its whole corpus). A merge whose pair the pieces do not hold
    (they are a part of the corpus) changes nothing here."""
    state = MergeState(pieces)
    rankings = []
    for step, (pair, new_id) in enumerate(merges[: steps.stop]):
        if step in steps:
            rankings.append(state.leading_pairs(top))
        if pair in state.pair_count:
            state.merge(pair, new_id)
    if steps.stop > len(merges) and len(merges) in steps:
        rankings.append(state.leading_pairs(top))
    return rankings
