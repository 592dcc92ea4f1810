"""Picky BPE (Chizhov et al. 2024, "BPE Gets Picky: Efficient Vocabulary
Refinement During Tokenizer Training"): BPE that removes the tokens a merge
leaves behind.

After BPE merges "ould" and " w" into " would", "ould" may hardly ever occur
on its own any more: nearly all its uses were inside " would". Such an
intermediate token wastes a place in the vocabulary (and its embedding is
barely trained). Picky BPE measures, for each of the two tokens just merged,

    IoS (intersection over self) = merges made / the token's uses before them

and removes a token whose IoS is above the threshold: every occurrence left
is split back into the tokens it was made of (those still there), and a
later merge learns another token in its place, so that the vocabulary keeps
its size. A threshold of 1 never removes anything: plain BPE.

The rules follow the authors' code (pchizhov/picky_bpe, bpe_trainer.py):
the first token of the pair is checked, then the second (a pair of a token
with itself, once); "above" is strict (`merged / (freq + merged) >
threshold`); single units are never removed; a token made again after its
removal is a new id here, with the same bytes. Encoding replays merges and
removals in training's order (`engine.replay_tokenizer`). This is the
readable version; where it is built, engine/native/research.c takes the
same steps in C (`native_research`).
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Mapping, Sequence

from ..engine.merge_learning import MergeState, MergeStep, Progress
from ..engine.patterns import pattern_name
from ..engine.replay_tokenizer import RemovalStep, ReplayTokenizer
from ..engine.tokenizer import Units
from ..engine.training import (
    checked_specials,
    collector_paused,
    counted_pieces,
    finished_vocabulary,
    merge_budget,
    training_units,
)
from . import native_research

# Merges and removals may undo each other for a while; training stops, saying
# so, after this many events per token asked for (real corpora need ~1.3).
MAX_EVENTS_PER_TOKEN = 20


def check_threshold(threshold: float) -> None:
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 < threshold <= 1:
        raise ValueError(f"The Picky BPE threshold must be above 0 and at most 1; got {threshold!r}.")


def train_picky(
    corpus: str | Mapping[str, int],
    *,
    vocab_size: int,
    threshold: float = 0.9,
    pattern: str = "cl100k",
    special_tokens: Sequence[str] = (),
    units: Units = "bytes",
    progress: Progress | None = None,
    deadline: float | None = None,
) -> ReplayTokenizer:
    """Picky BPE to `vocab_size` tokens left (base units included, special
    tokens on top), removing tokens whose IoS is above `threshold`."""
    check_threshold(threshold)
    special_tokens = checked_specials(special_tokens)
    with collector_paused():
        pieces = counted_pieces(corpus, pattern, special_tokens)
        base_tokens, piece_units = training_units(pieces, units)
        wanted = len(base_tokens) + merge_budget(vocab_size, None, len(base_tokens), units)
        max_events = MAX_EVENTS_PER_TOKEN * wanted
        learned = native_research.picky(pieces, units, base_tokens, threshold, wanted, max_events, progress, deadline)
        if learned is None:  # the C version is not built, or cannot be exact here: the same steps in Python
            training = _PickyTraining(piece_units, base_tokens, threshold)
            stop_reason = training.run(wanted, progress, deadline)
            learned = training.trace, training.removals, stop_reason
        trace, removals, stop_reason = learned
        vocab, special_ids, unknown_id = finished_vocabulary(base_tokens, trace, units, special_tokens)
        return ReplayTokenizer(
            name=f"Picky BPE ({pattern_name(pattern)}, threshold {threshold:g}, {len(vocab) - len(removals):,} tokens)",
            pattern=pattern,
            vocab=vocab,
            units=units,
            special_tokens=special_ids,
            merges=[(step.pair, step.new_id) for step in trace],
            trace=trace,
            removals=removals,
            stop_reason=stop_reason,
            unknown_id=unknown_id,
            algorithm="picky",
            settings={"threshold": threshold},
        )


class _PickyTraining:
    """The engine's merge state, with each token's uses counted, and where
    each merged token stands (so that a removal finds its occurrences)."""

    def __init__(self, piece_units, base_tokens: Sequence[bytes | str], threshold: float):
        piece_units = list(piece_units)
        self.state = MergeState(piece_units)
        self.threshold = threshold
        self.first_merge_id = len(base_tokens)
        self.tokens = list(base_tokens)
        self.lengths = [1] * len(base_tokens)  # in units
        self.parts_of: list[tuple[int, int] | None] = [None] * len(base_tokens)
        self.present = [True] * len(base_tokens)
        self.present_with: dict[bytes | str, int] = {token: index for index, token in enumerate(base_tokens)}
        self.uses = [0] * len(base_tokens)
        for units, count in piece_units:
            for unit in units:
                self.uses[unit] += count
        self.where: dict[int, array] = {}  # merged token -> positions it was put at (some stale since)
        self.trace: list[MergeStep] = []
        self.removals: list[RemovalStep] = []

    def run(self, wanted: int, progress: Progress | None, deadline: float | None) -> str | None:
        size, base = len(self.tokens), self.first_merge_id
        for _ in range(MAX_EVENTS_PER_TOKEN * wanted):
            if size >= wanted:
                if progress is not None:
                    progress(wanted - base, wanted - base)
                return None
            if deadline is not None and time.monotonic() > deadline:
                return f"the time allowed ran out at {size:,} of {wanted:,} tokens"
            best = self.state.best_pair()
            if best is None:
                return f"no adjacent pair is left to merge at {size:,} tokens"
            size += 1 - self.merge(*best)
            if progress is not None and len(self.trace) % 50 == 0:
                progress(min(size, wanted) - base, wanted - base)  # tokens learned, as `train` counts merges
        return f"merges and removals kept undoing each other: stopped at {size:,} of {wanted:,} tokens"

    def merge(self, pair: tuple[int, int], count: int) -> int:
        """Merge `pair`, then remove what it leaves behind; return how many tokens were removed."""
        state, tokens = self.state, self.tokens
        new_id = len(tokens)
        candidates = array("q", state.pair_positions[pair])
        before = state.corpus_tokens
        state.merge(pair, new_id)
        merged = before - state.corpus_tokens
        token = tokens[pair[0]] + tokens[pair[1]]
        tokens.append(token)
        self.lengths.append(self.lengths[pair[0]] + self.lengths[pair[1]])
        self.parts_of.append(pair)
        self.present.append(True)
        self.present_with.setdefault(token, new_id)
        self.uses.append(merged)
        self.where[new_id] = array("q", (position for position in candidates if state.token[position] == new_id))
        self.trace.append(MergeStep(pair, new_id, count, token, state.corpus_tokens))
        removed = 0
        left, right = pair
        for side in (left,) if left == right else (left, right):
            self.uses[side] -= merged * (2 if left == right else 1)
            ios = merged / (self.uses[side] + merged)
            if side >= self.first_merge_id and ios > self.threshold:
                self.remove(side, ios)
                removed += 1
        return removed

    def remove(self, token_id: int, ios: float) -> None:
        self.present[token_id] = False
        if self.present_with.get(self.tokens[token_id]) == token_id:
            del self.present_with[self.tokens[token_id]]
        parts = [part for half in self.parts_of[token_id] for part in self.walk(half)]
        for part in parts:
            self.uses[part] += self.uses[token_id]
        self.uses[token_id] = 0
        placed = self.state.split(token_id, parts, self.lengths, self.where.pop(token_id, ()))
        for position in placed:
            if self.state.token[position] >= self.first_merge_id:
                self.where.setdefault(self.state.token[position], array("q")).append(position)
        self.removals.append(RemovalStep(len(self.trace), token_id, tuple(parts), ios, self.state.corpus_tokens))

    def walk(self, token_id: int) -> list[int]:
        """The tokens still there that make up `token_id`: itself, a token
        made again since with its bytes, or its two parts, walked in turn
        (language.py, `Token.walk`)."""
        if self.present[token_id]:
            return [token_id]
        again = self.present_with.get(self.tokens[token_id])
        if again is not None:
            return [again]
        return [part for half in self.parts_of[token_id] for part in self.walk(half)]
