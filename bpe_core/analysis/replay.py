"""Encode replay: how BPE turns a short text into its tokens, merge by merge,
and how any token was built from bytes (its merge tree).

tiktoken hands back ids and hides the merges that made them. Here the merge
loop (`merge_loop`) runs with its `on_merge` hook and with the very rank
lookup `Tokenizer.encode` uses (the bytes of the would-be token, looked up in
the vocabulary; ids are ranks), so the replay ends in exactly the tokens
`encode_ordinary` gives, and every step is a merge encoding really makes.

`drawing.replay` draws the story with the same chips as every other page.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from ..patterns import split_pieces
from ..tokenizer import Token, Tokenizer
from ..utf8 import encodable

# ------------------------------------------------------------------ replay


@dataclass(frozen=True)
class Part:
    """A token covering units start..end (bytes, or characters) of its piece."""

    id: int
    start: int
    end: int


@dataclass(frozen=True)
class Merge:
    """One merge: in piece number `piece`, the neighbours `left` (at
    `position` in the state before) and `right` became `made`."""

    piece: int
    position: int
    left: Part
    right: Part
    made: Part

    @property
    def rank(self) -> int:
        """Ids are ranks: the lower, the earlier BPE applies the merge."""
        return self.made.id


@dataclass(frozen=True)
class PieceReplay:
    """One pre-token piece, from single units to its final tokens.

    `states[k]` is the piece after its first k merges; `merges[k]` turned
    `states[k]` into `states[k + 1]`. `shortcut` says that the whole piece is
    a token, which encode returns at once without merging; the states still
    show how that token is built.
    """

    text: str
    units: Token
    states: tuple[tuple[Part, ...], ...]
    merges: tuple[Merge, ...]
    shortcut: bool

    def part_bytes(self, part: Part) -> bytes:
        """The text a part covers, as bytes (the real characters, also where
        a character-level tokenizer only knows them as "unknown")."""
        units = self.units[part.start : part.end]
        return units if isinstance(units, bytes) else units.encode("utf-8")

    @property
    def tokens(self) -> tuple[int, ...]:
        return tuple(part.id for part in self.states[-1])


@dataclass(frozen=True)
class Replay:
    """The story of encoding a text: its pieces, and `order`, every merge of
    every piece lowest rank first, which is the order BPE applies them in.
    Step k of the replay is the text after the first k merges of `order`."""

    text: str
    pieces: tuple[PieceReplay, ...]
    order: tuple[Merge, ...]

    @property
    def steps(self) -> int:
        return len(self.order)

    def state(self, step: int) -> tuple[tuple[Part, ...], ...]:
        """Every piece's parts after the first `step` merges of `order`."""
        done = [0] * len(self.pieces)
        for merge in self.order[:step]:
            done[merge.piece] += 1
        return tuple(piece.states[count] for piece, count in zip(self.pieces, done))

    @property
    def tokens(self) -> list[int]:
        """The final tokens: what `encode_ordinary(text)` returns."""
        return [token_id for piece in self.pieces for token_id in piece.tokens]


def replay(tokenizer: Tokenizer, text: str) -> Replay:
    """Encode `text` (special-token text as plain text, like `encode_ordinary`)
    and record every merge. Text the split pattern drops has no piece.

    Meant for a word or a phrase: every state of a piece is kept, which
    costs memory quadratic in the piece's length."""
    pieces = tuple(
        _replay_piece(tokenizer, piece, index)
        for index, piece in enumerate(split_pieces(encodable(text), tokenizer.pattern))
    )
    # Interleave the pieces' merges by rank. Each piece keeps its own order,
    # so every step is a state the merge loop really passed through; ties go
    # to the earlier piece.
    order = tuple(heapq.merge(*(piece.merges for piece in pieces), key=lambda merge: merge.rank))
    return Replay(text, pieces, order)


def _replay_piece(tokenizer: Tokenizer, piece: str, index: int) -> PieceReplay:
    units = tokenizer.units_of(piece)
    state = [Part(unit_id, start, start + 1) for start, unit_id in enumerate(tokenizer.unit_ids(units))]
    states, merges = [tuple(state)], []

    def record(new_id: int, start: int, middle: int, end: int) -> None:
        position = next(i for i, part in enumerate(state) if part.start == start)
        made = Part(new_id, start, end)
        merges.append(Merge(index, position, state[position], state[position + 1], made))
        state[position : position + 2] = [made]
        states.append(tuple(state))

    tokenizer.merge_piece(piece, on_merge=record)
    shortcut = bool(merges) and units in tokenizer.mergeable_ranks
    return PieceReplay(piece, units, tuple(states), tuple(merges), shortcut)


# -------------------------------------------------------------- merge tree

UNIT = "unit"  # a single byte (or character): where every token starts
SPECIAL = "special"  # a special token: added whole, never merged
UNSPLITTABLE = "unsplittable"  # no merge of two lower-ranked tokens makes it

LEAF_NOTES = {
    SPECIAL: "special token: added whole, never made by a merge",
    UNSPLITTABLE: "no merge made this token: its bytes cannot be built from two lower-ranked tokens",
}


@dataclass(frozen=True)
class MergeTree:
    """A token and the two tokens it was merged from, down to single units.
    A node without parts says why in `leaf`."""

    id: int
    token: bytes
    parts: tuple[MergeTree, ...] = ()
    leaf: str | None = None

    @property
    def merges(self) -> int:
        """How many merges build this token from units."""
        return 0 if not self.parts else 1 + sum(part.merges for part in self.parts)

    @property
    def depth(self) -> int:
        """The longest chain of merges from a unit up to this token."""
        return 0 if not self.parts else 1 + max(part.depth for part in self.parts)


def merge_tree(tokenizer: Tokenizer, token_id: int) -> MergeTree:
    """The merge tree of `token_id`: the learned merges of a trained
    tokenizer, or for gpt2/cl100k/o200k the merges their ranks imply, found
    one token at a time (`Tokenizer.merge_parts`). An id that is not a token
    raises ValueError with the valid range."""
    token = tokenizer.token_bytes(token_id)  # also refuses an id that is not a token
    if token_id in tokenizer.special_tokens.values():
        return MergeTree(token_id, token, leaf=SPECIAL)
    if len(tokenizer.vocab[token_id]) == 1:
        return MergeTree(token_id, token, leaf=UNIT)
    pair = tokenizer.merge_parts(token_id)
    if pair is None:
        return MergeTree(token_id, token, leaf=UNSPLITTABLE)
    return MergeTree(token_id, token, parts=tuple(merge_tree(tokenizer, part) for part in pair))
