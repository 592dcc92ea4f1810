"""The Encode replay page's drawings: the text at a step, every step as a
row, and a token's merge tree, all with the chips every page uses (a token
keeps its colour from step to step and from the replay to the tree).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from ..analysis.replay import LEAF_NOTES, MergeTree, Part, PieceReplay, Replay
from .palette import colour_for
from .tokens import CHIP_CSS, chip_html, label_html, merge_html

REPLAY_CSS = """
<style>
.bpe-replay { font-size: var(--bpe-font-size, 1.15rem); }
.bpe-piece { display: inline-block; margin: 0 0.7em 0.3em 0; border-bottom: 3px solid #bbb; }
.bpe-pair { display: inline-block; outline: 3px dashed #111; border-radius: 6px; padding: 0 2px; }
.bpe-made { display: inline-block; outline: 3px solid #111; border-radius: 6px; }
.bpe-step { display: flex; align-items: center; gap: 0.6em; padding: 2px 6px; border-bottom: 1px solid #ddd; }
.bpe-step.bpe-current { background: #fff3c4; }
.bpe-step-label { flex: 0 0 auto; min-width: 13em; white-space: nowrap; color: #333; font-size: 0.8em; }
.bpe-share { flex: 0 0 auto; width: 6em; height: 0.7em; background: #eee; }
.bpe-share > i { display: block; height: 100%; background: #5b84c4; }
.bpe-dropout .bpe-step-label { min-width: 11em; }
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


def replay_html(replay: Replay) -> str:
    """Every step as a row: the start (single units); then, per merge, its
    step number and rank (or score, for SentencePiece), the piece it happens
    in with the two merging parts boxed, and the token they make; last the result. Only the piece that
    changes is shown, since BPE never merges across pieces and the others
    stay as they were. Each row carries its step number: the step control
    marks the current one (`.bpe-current`)."""
    done = [0] * len(replay.pieces)  # merges applied so far, per piece
    rows = [_row("start", _pieces_html(replay, done), 0)]
    for step, merge in enumerate(replay.order, start=1):
        piece = replay.pieces[merge.piece]
        before = _piece_html(piece, piece.states[done[merge.piece]], pair_at=merge.position)
        done[merge.piece] += 1
        made = _chip(piece.part_bytes(merge.made), merge.rank)
        rows.append(_row(f"step {step} · {merge.label}", f"{before}→ {made}", step))
    rows.append(_row("result", _pieces_html(replay, done) + _shortcut_note(replay)))
    return _frame("".join(rows))


def _row(label: str, body: str, step: int | None = None) -> str:
    number = f' data-step="{step}"' if step is not None else ""
    return f'<div class="bpe-step"{number}><span class="bpe-step-label">{label}</span><span>{body}</span></div>'


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


def replay_frames(replay: Replay) -> dict:
    """Every step of the replay drawn, for the step control to show in the
    browser (see pages/common/stepper.py): a heading and the text at each
    step with the merge just made, and every step as a row below. The
    styles come once, with the rows: a copy in every frame would be sent,
    and restyle the view, at every step."""
    headings, frames = [], []
    styles = CHIP_CSS + REPLAY_CSS  # carried once, by the table, which is always shown with the frames
    for step in range(replay.steps + 1):
        state = replay_state_html(replay, step).removeprefix(styles)
        if step == 0:
            headings.append(f"<b>Step 0 of {replay.steps}</b>: no merges yet, every unit (byte or character) is its own token.")
            frames.append(state)
            continue
        merge = replay.order[step - 1]
        piece = replay.pieces[merge.piece]
        turn = "the pair whose piece has the highest score" if replay.by_score else "the lowest-ranked pair that can merge"
        if merge.joins_pieces:
            turn = "two neighbouring pieces, each one token already, join into a superword"
        headings.append(f"<b>Step {step} of {replay.steps}</b>: {turn}, {html.escape(merge.label)}.")
        left, right, made = ((part.id, piece.part_bytes(part)) for part in (merge.left, merge.right, merge.made))
        frames.append(state + merge_html(left, right, made, colour_by="id").removeprefix(CHIP_CSS))
    order = "highest score first" if replay.by_score else "lowest rank first"
    table = f"<h4>All {replay.steps} steps, {order}</h4>{replay_html(replay)}"
    return {"kind": "frames", "total": replay.steps, "headings": headings, "frames": frames, "table": table}


def segmentations_html(tokenizer, samples: Sequence[tuple[tuple[int, ...], int]], total: int) -> str:
    """BPE-dropout's segmentations of one text, most frequent first: a row
    each, its tokens as chips (coloured by id, as in the replay), how many
    of the `total` draws gave it, and that share as a bar."""
    rows = []
    for ids, count in samples:
        chips = "".join(_chip(tokenizer.token_bytes(token_id), token_id) for token_id in ids)
        share = count / total
        rows.append(
            f'<div class="bpe-step"><span class="bpe-step-label">{count:,} × · {share:.1%} · {len(ids)} '
            f'token{"s" * (len(ids) != 1)}</span><span class="bpe-share"><i style="width:{100 * share:.1f}%"></i></span>'
            f"<span>{chips}</span></div>"
        )
    return _frame("".join(rows), kind="bpe-replay bpe-dropout")


def merge_tree_html(tree: MergeTree, font_size: str = "1.3rem") -> str:
    """The merge tree as nested boxes: each box holds a token's chip and,
    side by side beneath it, the boxes of the two tokens it was merged from.

    Nested boxes rather than a plotly tree or icicle: the chips are the same
    as everywhere else in the app (visible whitespace, a partial character
    as <E3 81>, escaping done once in `drawing.tokens`), a label is never clipped to
    fit a cell, and "made of" reads as "contains", at any size on a projector.
    """
    return _frame(_node_html(tree), font_size, kind="bpe-tree")


def _node_html(tree: MergeTree) -> str:
    note = f'<div class="bpe-note">{LEAF_NOTES[tree.leaf]}</div>' if tree.leaf in LEAF_NOTES else ""
    parts = "".join(map(_node_html, tree.parts))
    parts = f'<div class="bpe-kids">{parts}</div>' if parts else ""
    return f'<div class="bpe-node">{_chip(tree.token, tree.id)}{note}{parts}</div>'
