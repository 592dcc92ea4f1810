"""Encode replay: how BPE turns a short text into its tokens, merge by merge,
and how any token was built from bytes (its merge tree).

tiktoken hands back ids and hides the merges that made them. Here the merge
loop (`merge_loop`) runs with its `on_merge` hook and with the very rank
lookup `Tokenizer.encode` uses (the bytes of the would-be token, looked up in
the vocabulary; ids are ranks), so the replay ends in exactly the tokens
`encode_ordinary` gives, and every step is a merge encoding really makes.

SentencePiece's BPE (Mistral v3) tells the same story differently: it has
no split pattern, starts from the characters of its normalized text (a
space is "▁", and a "▁" goes in front), merges the pair whose piece has the
highest *score* first, and a character it lacks is its byte-fallback pieces
from the start (they never merge). Its replay shows pieces as SentencePiece
spells them, "▁" included, and orders merges by score.

`drawing.replay` draws the story with the same chips as every other page.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
from dataclasses import dataclass

from ..engine.patterns import split_pieces
from ..engine.superwords import SuperwordTokenizer
from ..engine.tokenizer import Token, Tokenizer
from ..engine.utf8 import encodable
from ..vocabularies.merge_list_bpe import MergeListTokenizer
from ..vocabularies.normalized import NormalizingTokenizer
from ..vocabularies.sentencepiece_model import SentencePieceTokenizer

MAX_REPLAY_CHARS = 60  # a word or a short phrase: every state of every piece is kept

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
    score: float | None = None  # SentencePiece: the made piece's score, which orders merges instead
    listed: int | None = None  # a Hugging Face merge list (Gemma 3): where the pair is listed, its rank
    joins_pieces: bool = False  # BoundlessBPE's supermerge: two neighbouring pieces, each one token, join

    @property
    def rank(self) -> int:
        """Ids are ranks (the lower, the earlier BPE applies the merge), but
        in a merge list, where the pair is listed."""
        return self.made.id if self.listed is None else self.listed

    @property
    def label(self) -> str:
        """What decided this merge's turn: "rank 1,234" (a supermerge's:
        "supermerge, rank 1,234") or "score -3,973"."""
        if self.score is not None:
            return f"score {self.score:,.0f}"
        return f"supermerge, rank {self.rank:,}" if self.joins_pieces else f"rank {self.rank:,}"


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
    by_score: bool = False  # SentencePiece: merges go highest score first

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


def replay(tokenizer: Tokenizer | SentencePieceTokenizer, text: str) -> Replay:
    """Encode `text` (special-token text as plain text, like `encode_ordinary`)
    and record every merge. Text the split pattern drops has no piece.

    Meant for a word or a phrase: every state of a piece is kept, which
    costs memory quadratic in the piece's length."""
    if isinstance(tokenizer, SentencePieceTokenizer):
        return _replay_by_score(tokenizer, text)
    if isinstance(tokenizer, MergeListTokenizer):
        return _replay_merge_list(tokenizer, text)
    if isinstance(tokenizer, SuperwordTokenizer):
        return _replay_with_supermerges(tokenizer, text)
    if isinstance(tokenizer, NormalizingTokenizer):  # Qwen, Claude 1/2: BPE runs on the normalized text
        text = tokenizer.normalize(text)
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


def _replay_with_supermerges(tokenizer: SuperwordTokenizer, text: str) -> Replay:
    """BoundlessBPE's encoding, recorded: each piece merged on its own, then
    every run of neighbouring pieces that are one token each joined by the
    supermerges (`SuperwordTokenizer.join_run`). Pieces a supermerge joins
    are shown as one: the replay of a group holds its pieces' merges and
    the supermerges over them, lowest rank first, which is an order encoding
    could take (a piece's last merge makes its whole token, which is ranked
    below any supermerge that joins it)."""
    words = tokenizer.within_pieces
    pieces = [_replay_piece(words, piece, 0) for piece in split_pieces(encodable(text), tokenizer.pattern)]
    groups: list[tuple[int, int]] = []  # runs of pieces a superword joins, as (first, end) piece indices
    joins: list[tuple[int, int, int, int]] = []  # supermerges, as (new id, first, middle, end) piece indices
    run: list[int] = []  # indices of neighbouring pieces that are one token each

    def close_run() -> None:
        if run:
            tokens = tokenizer.join_run([pieces[index].tokens[0] for index in run],
                                        lambda new_id, start, middle, end: joins.append(
                                            (new_id, run[start], run[middle], run[0] + end)))
            groups.extend((run[0] + start, run[0] + end) for _, start, end in tokens)
            run.clear()

    for index, piece in enumerate(pieces):
        if len(piece.tokens) == 1:
            run.append(index)
            continue
        close_run()
        groups.append((index, index + 1))
    close_run()
    replayed = tuple(_joined(pieces[first:end], [(new_id, start - first, middle - first, stop - first)
                                                 for new_id, start, middle, stop in joins if first <= start < end], number)
                     for number, (first, end) in enumerate(groups))
    order = tuple(heapq.merge(*(piece.merges for piece in replayed), key=lambda merge: merge.rank))
    return Replay(text, replayed, order)


def _joined(pieces: list[PieceReplay], joins: list[tuple[int, int, int, int]], index: int) -> PieceReplay:
    """Pieces a superword joins (or one piece alone) as one piece of the
    replay: their merges, in units of the whole, and the supermerges
    (`joins`, in pieces counted from the first), all applied lowest rank first."""
    if len(pieces) == 1:
        piece = pieces[0]
        return PieceReplay(piece.text, piece.units, piece.states,
                           tuple(dataclasses.replace(merge, piece=index) for merge in piece.merges), piece.shortcut)
    starts = list(itertools.accumulate((len(piece.units) for piece in pieces), initial=0))
    events = []  # (rank, kind, start, middle, end): a piece's merges first among equals, as they happened
    for number, piece in enumerate(pieces):
        for merge in piece.merges:
            offset = starts[number]
            events.append((merge.made.id, 0, offset + merge.left.start, offset + merge.right.start, offset + merge.made.end))
    for new_id, start, middle, end in joins:
        events.append((new_id, 1, starts[start], starts[middle], starts[end]))
    units = pieces[0].units[:0].join(piece.units for piece in pieces)
    state = [Part(unit_id, start, start + 1) for start, unit_id in enumerate(_units_of(pieces))]
    states, merges = [tuple(state)], []
    for new_id, kind, start, middle, end in sorted(events, key=lambda event: event[:2]):
        position = next(number for number, part in enumerate(state) if part.start == start)
        made = Part(new_id, start, end)
        merges.append(Merge(index, position, state[position], state[position + 1], made, joins_pieces=bool(kind)))
        state[position : position + 2] = [made]
        states.append(tuple(state))
    return PieceReplay("".join(piece.text for piece in pieces), units, tuple(states), tuple(merges), shortcut=False)


def _units_of(pieces: list[PieceReplay]) -> list[int]:
    """The unit ids of pieces, one after the other (a piece's first state is its units)."""
    return [part.id for piece in pieces for part in piece.states[0]]


def _replay_by_score(tokenizer: SentencePieceTokenizer, text: str) -> Replay:
    """SentencePiece's merge loop over the whole normalized text, recorded.
    Parts span UTF-8 bytes of the normalized text, so a byte-fallback piece
    covers its one byte of a character and a "▁" shows as itself."""
    normalized, symbols = tokenizer.symbols(text)
    if not symbols:
        return Replay(text, (), (), by_score=True)
    byte_at = list(itertools.accumulate((len(char.encode("utf-8")) for char in normalized), initial=0))
    starts, ends = [], []  # each symbol's byte span
    for index, (token_id, start, end) in enumerate(symbols):
        if index and symbols[index - 1][1:] == (start, end):  # the next byte-fallback piece of a character
            starts.append(ends[-1])
            ends.append(ends[-1] + 1)
        elif tokenizer.is_byte_fallback(token_id):  # the first
            starts.append(byte_at[start])
            ends.append(byte_at[start] + 1)
        else:
            starts.append(byte_at[start])
            ends.append(byte_at[end])
    state = [Part(token_id, start, end) for (token_id, _, _), start, end in zip(symbols, starts, ends)]
    states, merges = [tuple(state)], []

    def record(new_id: int, start: int, middle: int, end: int) -> None:
        position = next(i for i, part in enumerate(state) if part.start == starts[start])
        made = Part(new_id, starts[start], ends[end - 1])
        merges.append(Merge(0, position, state[position], state[position + 1], made, tokenizer.scores[new_id]))
        state[position : position + 2] = [made]
        states.append(tuple(state))

    tokenizer.merge_symbols([token_id for token_id, _, _ in symbols], on_merge=record)
    piece = PieceReplay(normalized, normalized.encode("utf-8"), tuple(states), tuple(merges), shortcut=False)
    return Replay(text, (piece,), tuple(merges), by_score=True)


def _replay_merge_list(tokenizer: MergeListTokenizer, text: str) -> Replay:
    """A merge list's loop (Gemma 3) over each word of the normalized text
    (an added token is a word that never merges), recorded; merges go in
    the order the list ranks their pairs. Parts span UTF-8 bytes of the
    word, so a byte piece covers its one byte and a "▁" shows as itself."""
    pieces = []
    for index, (word, is_added) in enumerate(tokenizer.words(text)):
        data = word.encode("utf-8")
        if is_added:
            made = Part(tokenizer.encode(word, allowed_special="all")[0], 0, len(data))
            pieces.append(PieceReplay(word, data, ((made,),), (), shortcut=False))
            continue
        starts, ends, position = [], [], 0
        for char in word:
            ids = tokenizer.symbol_ids(char)
            width = len(char.encode("utf-8"))
            for number in range(len(ids)):  # one symbol, or one per byte of a character it has no piece for
                starts.append(position + (number if len(ids) > 1 else 0))
                ends.append(position + (number + 1 if len(ids) > 1 else width))
            position += width
        symbol_ids = tokenizer.symbol_ids(word)
        state = [Part(token_id, start, end) for token_id, start, end in zip(symbol_ids, starts, ends)]
        states, merges = [tuple(state)], []

        def record(new_id: int, start: int, middle: int, end: int, index=index, state=state, states=states,
                   merges=merges, starts=starts, ends=ends) -> None:
            position = next(i for i, part in enumerate(state) if part.start == starts[start])
            made = Part(new_id, starts[start], ends[end - 1])
            left, right = state[position], state[position + 1]
            merges.append(Merge(index, position, left, right, made, listed=tokenizer.rank_of_pair(left.id, right.id)))
            state[position : position + 2] = [made]
            states.append(tuple(state))

        tokenizer.merge_symbols(symbol_ids, on_merge=record)
        pieces.append(PieceReplay(word, data, tuple(states), tuple(merges), shortcut=False))
    order = tuple(heapq.merge(*(piece.merges for piece in pieces), key=lambda merge: merge.rank))
    return Replay(text, tuple(pieces), order)


# -------------------------------------------------------------- merge tree


def shown_bytes(tokenizer: Tokenizer | SentencePieceTokenizer, token_id: int) -> bytes:
    """A token as the replay draws it: its bytes, or for SentencePiece the
    piece as it spells it ("▁Hello"), as the replay's states show it."""
    if isinstance(tokenizer, (SentencePieceTokenizer, MergeListTokenizer)):
        tokenizer.token_bytes(token_id)  # refuses an id that is not a token
        return tokenizer.spelled(token_id)
    return tokenizer.token_bytes(token_id)

UNIT = "unit"  # a single byte (or character): where every token starts
SPECIAL = "special"  # a special token: added whole, never merged
UNSPLITTABLE = "unsplittable"  # no merge of two lower-ranked tokens makes it

LEAF_NOTES = {
    SPECIAL: "special token: added whole, never made by a merge",
    UNSPLITTABLE: "no merge made this token: it cannot be built from two tokens that merge before it",
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


def merge_tree(tokenizer: Tokenizer | SentencePieceTokenizer, token_id: int) -> MergeTree:
    """The merge tree of `token_id`: the learned merges of a trained
    tokenizer, or for gpt2/cl100k/o200k the merges their ranks imply, found
    one token at a time (`Tokenizer.merge_parts`); for SentencePiece, the
    merges its scores imply, with pieces spelled as it spells them ("▁").
    An id that is not a token raises ValueError with the valid range."""
    token = shown_bytes(tokenizer, token_id)  # also refuses an id that is not a token
    if token_id in tokenizer.special_tokens.values():
        return MergeTree(token_id, token, leaf=SPECIAL)
    if isinstance(tokenizer, (SentencePieceTokenizer, MergeListTokenizer)):
        if tokenizer.is_byte_fallback(token_id) or len(tokenizer.pieces[token_id]) == 1:
            return MergeTree(token_id, token, leaf=UNIT)
    elif len(tokenizer.vocab.get(token_id, token)) == 1:  # a token Picky BPE removed is a merge's part, not in `vocab`
        return MergeTree(token_id, token, leaf=UNIT)
    pair = tokenizer.merge_parts(token_id)
    if pair is None:
        return MergeTree(token_id, token, leaf=UNSPLITTABLE)
    return MergeTree(token_id, token, parts=tuple(merge_tree(tokenizer, part) for part in pair))
