"""The step-through view of a training run, computed once so that stepping
needs no more work: everything a browser needs to show any step of a span
of steps on its own.

Three things change from step to step, and each is computed here for every
step at once rather than per step:

- the training text as training had split it: a piece of the text only
  changes when a merge inside it happens, so each piece is replayed once,
  keeping the tokens it had after each merge that changed it (`versions`);
- the pairs that competed for the next merge: the learned merges are
  replayed over the corpus's pieces, ranking the leading pairs before each
  (`merge_learning.leading_pairs_by_step`);
- the merge itself and the corpus's length: read from the trace.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass

from ..engine.merge_learning import Pair, leading_pairs_by_step
from ..engine.merge_loop import merge_lowest_rank_first
from ..engine.patterns import piece_spans
from ..engine.replay_tokenizer import ReplayTokenizer
from ..engine.specials import split_on_specials
from ..engine.tokenizer import Tokenizer, TokenSpan
from .labels import byte_offsets

STEPS_HELD = 1_000  # steps a browser holds at once; beyond them it asks for the next span


def held_steps(step: int, total: int, size: int = STEPS_HELD) -> range:
    """The span of steps (numbers of merges done, 0..total) to hold around
    `step`: mostly ahead of it, since a talk steps forwards."""
    start = max(0, min(step - size // 5, total + 1 - size))
    return range(start, min(total, start + size - 1) + 1)


@dataclass(frozen=True)
class WindowPiece:
    """A stretch of the shown text: a pre-token piece (or one token's part
    of a piece, see `piece_versions`), a special token, or text between
    pieces (that the split pattern drops). `versions` are its tokens (byte
    spans in the whole text) from the step given on: (step, tokens), step
    ascending, the first from step 0. Text between pieces has none."""

    start: int
    end: int
    versions: tuple[tuple[int, tuple[TokenSpan, ...]], ...]

    def tokens_at(self, step: int) -> tuple[TokenSpan, ...]:
        current = ()
        for from_step, tokens in self.versions:
            if from_step > step:
                break
            current = tokens
        return current


def window_pieces(tokenizer: Tokenizer, text: str) -> list[WindowPiece]:
    """`text` cut as training cut it, each piece with its tokens after every
    merge that changed it (special tokens in the text count as specials)."""
    pieces, offset = [], 0
    seen: dict[str, list] = {}
    merge_ids = merge_table(tokenizer)
    for segment, is_special in split_on_specials(text, tokenizer.special_tokens):
        size = len(segment.encode("utf-8"))
        if is_special:
            token = TokenSpan(tokenizer.special_tokens[segment], offset, offset + size)
            pieces.append(WindowPiece(offset, offset + size, ((0, (token,)),)))
        else:
            spans = piece_spans(segment, tokenizer.pattern)
            pieces.extend(_segment_pieces(tokenizer, segment, offset, spans, seen, merge_ids))
        offset += size
    return pieces


def word_list(words: Mapping[str, int], limit: int) -> tuple[str, list[tuple[int, int]]]:
    """The first `limit` words of a word-count corpus as lines "word ×count",
    and where each word is: a word-count corpus is already cut into pieces."""
    lines, spans, position = [], [], 0
    for word, count in list(words.items())[:limit]:
        spans.append((position, position + len(word)))
        line = f"{word} ×{count:,}\n"
        lines.append(line)
        position += len(line)
    return "".join(lines), spans


def word_pieces(tokenizer: Tokenizer, text: str, spans: list[tuple[int, int]]) -> list[WindowPiece]:
    """`word_list`'s text cut at its words (the counts between them are no pieces)."""
    return _segment_pieces(tokenizer, text, 0, spans, {}, merge_table(tokenizer))


def _segment_pieces(tokenizer: Tokenizer, segment: str, offset: int, spans, seen: dict, merge_ids) -> list[WindowPiece]:
    """The pieces at `spans` (character spans) of `segment`, which starts at
    byte `offset`, with the text between them as pieces without tokens."""
    pieces, position = [], 0
    offsets = byte_offsets(segment)
    for start, end in spans:
        if start > position:  # text the pattern drops
            pieces.append(WindowPiece(offset + offsets[position], offset + offsets[start], ()))
        piece = segment[start:end]
        if piece not in seen:
            seen[piece] = piece_versions(tokenizer, piece, merge_ids)
        base = offset + offsets[start]
        unit_bytes = _unit_byte_offsets(tokenizer, piece)
        for versions in seen[piece]:
            first_unit, last_unit = versions[0][1][0][1], versions[0][1][-1][2]
            pieces.append(WindowPiece(base + unit_bytes[first_unit], base + unit_bytes[last_unit], tuple(
                (step, tuple(TokenSpan(token_id, base + unit_bytes[a], base + unit_bytes[b]) for token_id, a, b in parts))
                for step, parts in versions
            )))
        position = end
    if position < len(segment):
        pieces.append(WindowPiece(offset + offsets[position], offset + offsets[-1], ()))
    return pieces


def _unit_byte_offsets(tokenizer: Tokenizer, piece: str) -> list[int]:
    """Byte offset of every unit boundary of a piece (units: bytes or characters)."""
    return list(range(len(piece.encode("utf-8")) + 1)) if tokenizer.units == "bytes" else byte_offsets(piece)


Parts = tuple[tuple[int, int, int], ...]  # (id, first unit, end unit) of each token, in order


def merge_table(tokenizer: Tokenizer) -> dict[Pair, int]:
    """(left id, right id) -> the id of the token they merge into."""
    return {pair: new_id for pair, new_id in tokenizer.merges}


def piece_versions(tokenizer: Tokenizer, piece: str, merge_ids: Mapping[Pair, int] | None = None,
                   ) -> list[list[tuple[int, Parts]]]:
    """How training split `piece`, from step 0 on, after each merge that
    changed it: one list of (step, parts) per token the piece ends up as.

    One replay of the learned merges, lowest rank first (see `merge_loop`),
    applies them in the order training learned them, and a merge's step is
    its rank among the merges. Merges never cross the boundary between two
    final tokens, so each final token's stretch changes on its own: kept
    apart, a long piece (a whole text, with the "none" pattern) costs the
    sum of its tokens' squares, not the square of its length. (`merge_ids`:
    the tokenizer's `merge_table`, made once for the many pieces of a text.)

    Picky BPE's removals undo merges, so its pieces are kept whole, and a
    step is an event, a merge or a removal (`ReplayTokenizer.piece_history`)."""
    if isinstance(tokenizer, ReplayTokenizer):
        return [tokenizer.piece_history(piece)]
    merge_ids = merge_table(tokenizer) if merge_ids is None else merge_ids
    units = tokenizer.unit_ids(tokenizer.units_of(piece))
    merges: list[tuple[int, int, int, int]] = []  # (new id, start, middle, end), in the order applied
    final = merge_lowest_rank_first(
        units, lambda left, right, start, end: merge_ids.get((left, right)),
        lambda new_id, start, middle, end: merges.append((new_id, start, middle, end)),
    )
    inside: dict[int, list[tuple[int, int, int, int]]] = {start: [] for _, start, _ in final}
    final_starts = sorted(inside)
    for merge in merges:  # each merge belongs to the final token that contains it
        inside[final_starts[_last_at_most(final_starts, merge[1])]].append(merge)
    return [
        _versions(tokenizer, units, start, end, inside[start]) for _, start, end in final
    ]


def _last_at_most(sorted_values: list[int], value: int) -> int:
    return bisect.bisect_right(sorted_values, value) - 1


def _versions(tokenizer: Tokenizer, units: list[int], first: int, last: int, merges) -> list[tuple[int, Parts]]:
    """The parts of units first..last after each merge step that changed them."""
    parts = {start: (units[start], start + 1) for start in range(first, last)}  # start -> (id, end), in order
    versions = [(0, _ordered(parts))]
    for new_id, start, middle, end in merges:
        parts[start] = (new_id, end)
        del parts[middle]
        step = new_id - tokenizer.first_merge_id + 1
        if versions[-1][0] == step:  # the same merge again, further along
            versions[-1] = (step, _ordered(parts))
        else:
            versions.append((step, _ordered(parts)))
    return versions


def _ordered(parts: dict[int, tuple[int, int]]) -> Parts:
    # A dict keeps its keys in insertion order and a merge only deletes or
    # updates keys, so the parts stay in text order.
    return tuple((token_id, start, end) for start, (token_id, end) in parts.items())


def leading_pairs(tokenizer: Tokenizer, pieces: Mapping[str, int], steps: range, top: int = 10) -> list[list[tuple[Pair, int]]]:
    """The `top` pairs before the merge after each step in `steps`, ranked as
    training ranks them, counted on `pieces` (piece -> count, in order of
    first appearance: `corpus.count_pieces`)."""
    units = ((tokenizer.unit_ids(tokenizer.units_of(piece)), count) for piece, count in pieces.items())
    return leading_pairs_by_step(units, tokenizer.merges, steps, top)
