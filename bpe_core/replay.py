"""Encode replay: how BPE turns a short text into its tokens, merge by merge,
and how any token was built from bytes (its merge tree). Pure: no Streamlit.

tiktoken hands back ids and hides the merges that made them. Here the merge
loop (`merge_loop`) runs with its `on_merge` hook and with the very rank
lookup `Tokenizer.encode` uses (the bytes of the would-be token, looked up in
the vocabulary; ids are ranks), so the replay ends in exactly the tokens
`encode_ordinary` gives, and every step is a merge encoding really makes.

The HTML reuses `render`'s chips, so a token looks the same here as on every
other page (visible whitespace, partial characters as <E3 81>, everything
escaped in `render`).
"""

from __future__ import annotations

import heapq
import html
from dataclasses import dataclass

from .patterns import split_pieces
from .render import CHIP_CSS, chip_html, colour_for, label_html
from .tokenizer import Token, Tokenizer
from .utf8 import encodable

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
    units = tokenizer._units_of(piece)
    state = [Part(unit_id, start, start + 1) for start, unit_id in enumerate(tokenizer._unit_ids(units))]
    states, merges = [tuple(state)], []

    def record(new_id: int, start: int, middle: int, end: int) -> None:
        position = next(i for i, part in enumerate(state) if part.start == start)
        made = Part(new_id, start, end)
        merges.append(Merge(index, position, state[position], state[position + 1], made))
        state[position : position + 2] = [made]
        states.append(tuple(state))

    tokenizer.merge_piece(piece, on_merge=record)
    shortcut = bool(merges) and units in tokenizer._ids_by_token
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
    """The merge tree of `token_id`, from `tokenizer.merges`: the learned
    merges of a trained tokenizer, or those recovered from the ranks of
    gpt2/cl100k/o200k (slow the first time, then cached on the tokenizer).
    An id that is not a token raises ValueError with the valid range."""
    parts_of = {new_id: pair for pair, new_id in tokenizer.merges}
    return _tree(tokenizer, token_id, parts_of)


def _tree(tokenizer: Tokenizer, token_id: int, parts_of: dict[int, tuple[int, int]]) -> MergeTree:
    token = tokenizer.token_bytes(token_id)  # also refuses an id that is not a token
    if token_id in tokenizer.special_tokens.values():
        return MergeTree(token_id, token, leaf=SPECIAL)
    if len(tokenizer.vocab[token_id]) == 1:
        return MergeTree(token_id, token, leaf=UNIT)
    pair = parts_of.get(token_id)
    if pair is None:
        return MergeTree(token_id, token, leaf=UNSPLITTABLE)
    return MergeTree(token_id, token, parts=tuple(_tree(tokenizer, part, parts_of) for part in pair))


# --------------------------------------------------------------- rendering

REPLAY_CSS = """
<style>
.bpe-replay { font-size: var(--bpe-font-size, 1.15rem); }
.bpe-piece { display: inline-block; margin: 0 0.7em 0.3em 0; border-bottom: 3px solid #bbb; }
.bpe-pair { display: inline-block; outline: 3px dashed #111; border-radius: 6px; padding: 0 2px; }
.bpe-made { display: inline-block; outline: 3px solid #111; border-radius: 6px; }
.bpe-step { display: flex; align-items: center; gap: 0.6em; padding: 2px 6px; border-bottom: 1px solid #ddd; }
.bpe-step.bpe-current { background: #fff3c4; }
.bpe-step-label { flex: 0 0 auto; min-width: 13em; white-space: nowrap; color: #333; font-size: 0.8em; }
.bpe-shortcut { font-size: 0.8em; color: #333; margin-top: 0.3em; }
.bpe-tree { overflow-x: auto; font-size: var(--bpe-font-size, 1.3rem); padding-bottom: 4px; }
.bpe-node { display: inline-flex; flex-direction: column; align-items: center; vertical-align: top;
  border: 1px solid #888; border-radius: 8px; padding: 3px; margin: 2px; background: #fafafa; }
.bpe-kids { display: flex; align-items: flex-start; }
.bpe-note { font-size: 0.65em; color: #444; max-width: 16em; text-align: center; white-space: normal; }
</style>
"""


def _chip(token_bytes: bytes, token_id: int) -> str:
    """A token as a chip, coloured by id: a token keeps its colour from step
    to step and from the replay to the tree."""
    return chip_html(token_bytes, token_id, colour_for(0, token_id, "id"))


def _piece_html(piece: PieceReplay, parts: tuple[Part, ...], *, pair_at: int | None = None,
                made: Part | None = None) -> str:
    """One piece's parts as chips; the pair about to merge (starting at
    position `pair_at`) is boxed with a dashed line, the token `made` by the
    last merge with a solid one."""
    chips, position = [], 0
    while position < len(parts):
        if position == pair_at:
            pair = "".join(_chip(piece.part_bytes(part), part.id) for part in parts[position : position + 2])
            chips.append(f'<span class="bpe-pair">{pair}</span>')
            position += 2
            continue
        part = parts[position]
        chip = _chip(piece.part_bytes(part), part.id)
        chips.append(f'<span class="bpe-made">{chip}</span>' if part == made else chip)
        position += 1
    return f'<span class="bpe-piece">{"".join(chips)}</span>'


def _frame(body: str, font_size: str | None = None, kind: str = "bpe-replay") -> str:
    style = f' style="--bpe-font-size:{html.escape(font_size)}"' if font_size else ""
    return f'{CHIP_CSS}{REPLAY_CSS}<div class="bpe-chips {kind}"{style}>{body}</div>'


def replay_state_html(replay: Replay, step: int, font_size: str = "2rem") -> str:
    """The text after `step` merges, big enough for a projector: every
    piece's chips (a grey line under each piece: merges never cross it),
    the token this step made framed."""
    last = replay.order[step - 1] if step > 0 else None
    pieces = "".join(
        _piece_html(piece, parts, made=last.made if last is not None and last.piece == index else None)
        for index, (piece, parts) in enumerate(zip(replay.pieces, replay.state(step)))
    )
    return _frame(pieces, font_size, kind="bpe-replay bpe-state")


def replay_html(replay: Replay, current: int | None = None) -> str:
    """Every step as a row: the start (single units); then, per merge, its
    step number and rank, the piece it happens in with the two merging parts
    boxed, and the token they make; last the result. Only the piece that
    changes is shown, since BPE never merges across pieces and the others
    stay as they were. The row of step `current` is highlighted."""
    done = [0] * len(replay.pieces)  # merges applied so far, per piece
    rows = [_row("start", _pieces_html(replay, done), current == 0)]
    for step, merge in enumerate(replay.order, start=1):
        piece = replay.pieces[merge.piece]
        before = _piece_html(piece, piece.states[done[merge.piece]], pair_at=merge.position)
        done[merge.piece] += 1
        made = _chip(piece.part_bytes(merge.made), merge.rank)
        rows.append(_row(f"step {step} · rank {merge.rank:,}", f"{before}→ {made}", current == step))
    rows.append(_row("result", _pieces_html(replay, done) + _shortcut_note(replay), False))
    return _frame("".join(rows))


def _row(label: str, body: str, is_current: bool) -> str:
    classes = "bpe-step bpe-current" if is_current else "bpe-step"
    return f'<div class="{classes}"><span class="bpe-step-label">{label}</span><span>{body}</span></div>'


def _pieces_html(replay: Replay, done: list[int]) -> str:
    return "".join(_piece_html(piece, piece.states[count]) for piece, count in zip(replay.pieces, done))


def _shortcut_note(replay: Replay) -> str:
    """Which pieces encode maps at once, because they are tokens themselves."""
    whole = [label_html(piece.text.encode("utf-8")) for piece in replay.pieces if piece.shortcut]
    if not whole:
        return ""
    return (
        f'<div class="bpe-shortcut">Encode takes a shortcut for {", ".join(f"“{label}”" for label in whole)}: '
        "a piece that is itself a token becomes that token at once. The steps show how that token is built.</div>"
    )


def merge_tree_html(tree: MergeTree, font_size: str = "1.3rem") -> str:
    """The merge tree as nested boxes: each box holds a token's chip and,
    side by side beneath it, the boxes of the two tokens it was merged from.

    Nested boxes rather than a plotly tree or icicle: the chips are the same
    as everywhere else in the app (visible whitespace, a partial character
    as <E3 81>, escaping done once in `render`), a label is never clipped to
    fit a cell, and "made of" reads as "contains", at any size on a projector.
    """
    return _frame(_node_html(tree), font_size, kind="bpe-tree")


def _node_html(tree: MergeTree) -> str:
    note = f'<div class="bpe-note">{LEAF_NOTES[tree.leaf]}</div>' if tree.leaf in LEAF_NOTES else ""
    parts = "".join(map(_node_html, tree.parts))
    parts = f'<div class="bpe-kids">{parts}</div>' if parts else ""
    return f'<div class="bpe-node">{_chip(tree.token, tree.id)}{note}{parts}</div>'
