"""A tokenizer whose training removed tokens as well as merging them (Picky
BPE, see `bpe_core.algorithms.picky`), encoding by replaying both.

Its vocabulary is what is left: the base units and the merged tokens that
were never removed. Its `merges` and `trace` are every merge learned, as for
any tokenizer trained here (merge k made id first_merge_id + k - 1, so a step
is still a number of merges); `removals` says which tokens left, after which
merge, into which parts, and why (`RemovalStep`). Encoding replays the events
in training's order (`event_replay`): a piece that is itself a token of the
vocabulary is that token, as in the reference tokenizer and in tiktoken.

A step of the step control is a number of merges, each with the removals it
caused (`encode_at_step`), or a number of events, merges and removals each
on its own (`events`, `encode_at_event`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from .event_replay import Events, replay_events
from .merge_learning import MergeStep
from .merge_loop import OnMerge
from .tokenizer import Token, Tokenizer
from .utf8 import encodable

_CACHED_PIECES = 100_000  # pieces remembered, as the Tokenizer's own cache


class RemovalStep(NamedTuple):
    """A token removed after a merge, as the step control shows it."""

    after: int  # merges learned before it: it follows merge `after`
    token_id: int  # the token removed
    parts: tuple[int, ...]  # what each of its occurrences became
    ios: float  # of its uses before that merge, the share inside the merge's new token
    corpus_tokens: int  # length of the whole training corpus, in tokens, afterwards


class ReplayTokenizer(Tokenizer):
    """A tokenizer with removals (see the module's docstring). `vocab` holds
    every token ever made, the removed ones too; `removals` the removals in
    the order made."""

    def __init__(self, *, vocab: Mapping[int, Token], removals: Sequence[RemovalStep], **arguments):
        self.removals: list[RemovalStep] = list(removals)
        removed = {removal.token_id for removal in self.removals}
        self.removed_tokens: dict[int, Token] = {token_id: vocab[token_id] for token_id in removed}
        super().__init__(vocab={token_id: token for token_id, token in vocab.items() if token_id not in removed}, **arguments)
        self._events = self._indexed_events()
        self._replayed = functools.lru_cache(maxsize=_CACHED_PIECES)(self._replayed_piece)

    @property
    def events(self) -> list[MergeStep | RemovalStep]:
        """Every merge and removal, in training's order."""
        events: list[MergeStep | RemovalStep] = []
        removals = iter(self.removals)
        removal = next(removals, None)
        for done, step in enumerate(self.trace):
            while removal is not None and removal.after == done:
                events.append(removal)
                removal = next(removals, None)
            events.append(step)
        while removal is not None:
            events.append(removal)
            removal = next(removals, None)
        return events

    def _indexed_events(self) -> Events:
        merges, removals = [], []
        for number, event in enumerate(self.events):
            if isinstance(event, RemovalStep):
                removals.append((number, event.token_id, event.parts))
            else:
                merges.append((number, event.pair, event.new_id))
        lengths = [0] * (max([*self.vocab, *self.removed_tokens], default=-1) + 1)
        for token_id, token in [*self.vocab.items(), *self.removed_tokens.items()]:
            lengths[token_id] = len(token)
        return Events(merges, removals, lengths)

    def event_number(self, step: int) -> int:
        """How many events there are up to merge `step` and the removals it caused."""
        self.check_step(step)
        return step + sum(1 for removal in self.removals if removal.after <= step)

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes a token stands for, a removed one's too (the trace names them)."""
        removed = self.removed_tokens.get(token_id)
        if removed is not None:
            return removed if isinstance(removed, bytes) else removed.encode("utf-8")
        return super().token_bytes(token_id)

    # --------------------------------------------------------------- encoding

    def _whole_text_engine(self, step, reference):
        return None  # tiktoken's rule is not this tokenizer's: every piece is replayed here

    def _piece_encoder(self, step: int | None, reference: bool):
        if step is None:
            return self._piece_ids
        stop = self.event_number(step)
        return functools.cache(lambda piece: self._replayed(piece, stop))

    def _piece_ids(self, piece: str) -> tuple[int, ...]:
        whole = self._ids_by_token.get(self.units_of(piece))
        return (whole,) if whole is not None else self._replayed(piece, None)

    _reference_piece_ids = _piece_ids

    def _replayed_piece(self, piece: str, stop: int | None) -> tuple[int, ...]:
        return tuple(token_id for token_id, _, _ in replay_events(self.unit_ids(self.units_of(piece)), self._events, stop))

    def encode_at_event(self, text: str, event: int, *, allowed_special=frozenset(), disallowed_special="all") -> list[int]:
        """Encode with the first `event` events (merges and removals) only."""
        if isinstance(event, bool) or not isinstance(event, int) or not 0 <= event:
            raise ValueError(f"An event number is a whole number, 0 or more; got {event!r}.")
        allowed = self.allowed_specials(text, allowed_special, disallowed_special)
        return self._encode_here(encodable(text), allowed, functools.cache(lambda piece: self._replayed(piece, event)))

    def piece_history(self, piece: str) -> list[tuple[int, tuple[tuple[int, int, int], ...]]]:
        """How the replay changes `piece`: (events done, its tokens as (id,
        start, end) unit spans then), after every event that changes it,
        from (0, single units) on; event k is `events[k - 1]`. The step
        control shows each removal as a step of its own from this."""
        units = self.unit_ids(self.units_of(piece))
        history: list = [(0, tuple((unit, start, start + 1) for start, unit in enumerate(units)))]
        replay_events(units, self._events, history=history)
        return history

    def merge_piece(self, piece: str, on_merge: OnMerge | None = None) -> list[tuple[int, int, int]]:
        """The piece's tokens, as encoding makes them, and (to `on_merge`)
        the merges that build each of them from units, in the order learned.
        The removals on the way are not told: what is shown is how each
        final token is made."""
        tokens = replay_events(self.unit_ids(self.units_of(piece)), self._events)
        if on_merge is not None:
            built: list[tuple[int, int, int, int]] = []
            for token_id, start, end in tokens:
                self._merges_within(token_id, start, end, built)
            for merge in sorted(built):
                on_merge(*merge)
        return tokens

    def _merges_within(self, token_id: int, start: int, end: int, built: list) -> None:
        parts = self.merge_parts(token_id)
        if parts is None:
            return
        middle = start + len(self.removed_tokens.get(parts[0]) or self.vocab[parts[0]])
        built.append((token_id, start, middle, end))
        self._merges_within(parts[0], start, middle, built)
        self._merges_within(parts[1], middle, end, built)

    def _arguments(self) -> dict:
        return {**super()._arguments(), "vocab": {**self.vocab, **self.removed_tokens}, "removals": self.removals}

    def __reduce__(self) -> tuple:
        return _made_again, (type(self), self._arguments())


def _made_again(kind: type, arguments: dict) -> ReplayTokenizer:
    return kind(**arguments)
