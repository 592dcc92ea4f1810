"""The step-through view of a training run as data a browser steps through
on its own: JSON-ready, with every piece of text already escaped HTML.

A span of steps is held at once (see `analysis.training_view`): for each
step its merge, the corpus's length and the leading pairs; the shown text
as stretches, each with its HTML after every merge that changed it (made
of fragments that its versions share); the labels and colours of every
token these mention; and the curve of the corpus's length over the whole
run. The browser's part (step_control.js) only picks and joins.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

from ..analysis.token_cards import token_origins
from ..analysis.training_view import WindowPiece, leading_pairs, window_pieces, word_list, word_pieces
from ..engine.corpus import corpus_size, count_pieces
from ..engine.merge_learning import MergeStep, Pair
from ..engine.patterns import PRESETS
from ..engine.replay_tokenizer import RemovalStep, ReplayTokenizer
from ..engine.superwords import SuperwordTokenizer
from ..engine.tokenizer import Tokenizer
from ..engine.utf8 import encodable
from .palette import colour_class, colour_for
from .tokens import card_text, dropped_markup, flow, label_html, token_markup

CURVE_POINTS = 300  # the curve of the corpus's length is drawn through at most this many points
VOCABULARY_SHOWN = 80  # newest learned tokens shown beside the text
WINDOW_CHARS = 1_500  # how much of the training text the view colours
WORDS_SHOWN = 200  # how many words of a word-count corpus the view colours
FULL_PAIRS_BYTES = 5_000_000  # up to this, the leading pairs are counted on the whole corpus ...
PAIRS_WINDOW_CHARS = 1_000_000  # ... above it, on this many characters


def training_run_view(tokenizer: Tokenizer, corpus: str | Mapping[str, int], pieces: Mapping[str, int],
                      steps: range, *, opening: int = 0) -> dict:
    """Everything the step control shows for `steps` of training `tokenizer`
    on `corpus` (`pieces`: its piece counts, `corpus.count_pieces`): the
    first WINDOW_CHARS of the text from `opening` on (a word-count corpus:
    its first WORDS_SHOWN words), with notes that say what is shown."""
    if isinstance(corpus, str):
        text = corpus[opening : opening + WINDOW_CHARS]
        shown = window_pieces(tokenizer, text)
        where = "the start of the text" if opening == 0 else f"from character {opening:,}, where the text proper starts"
        text_note = f"{len(text):,} characters, {where}" if len(corpus) > len(text) else "the whole text"
    else:
        text, spans = word_list(corpus, WORDS_SHOWN)
        shown = word_pieces(tokenizer, text, spans)
        text_note = "each word with its count" + (f", the first {WORDS_SHOWN}" if len(corpus) > WORDS_SHOWN else "")
    size_bytes, size_chars = corpus_size(pieces)
    counted = pieces if size_bytes <= FULL_PAIRS_BYTES else count_pieces(
        corpus[:PAIRS_WINDOW_CHARS], tokenizer.pattern, tuple(tokenizer.special_tokens))
    pairs_note = "on the whole corpus; the first is the one merged" if counted is pieces else (
        f"on the first {PAIRS_WINDOW_CHARS:,} characters; on the whole corpus the first may differ")
    extra = {}
    if isinstance(tokenizer, ReplayTokenizer):  # removals change the pairs: not replayed here
        pairs = [[] for _ in steps]
        pairs_note = "not counted for Picky BPE"
        extra["pairsNone"] = "Its removals put back pairs that a merge had taken: not replayed here."
    elif tokenizer.algorithm == "superbpe" and isinstance(corpus, str):
        pairs = superbpe_leading_pairs(tokenizer, corpus, counted, steps)
        pairs_note = ("stage 1 counted within words, stage 2 across them; stage 2 never merges a pair the official "
                      "trainer refuses (\": \" inside, more than four words), which may lead here")
    else:
        pairs = leading_pairs(tokenizer, counted, steps)
        if isinstance(tokenizer, SuperwordTokenizer):
            pairs_note += "; ordinary pairs only: a supermerge wins when its two whole words are the more frequent"
    view = training_view_data(
        tokenizer, text, shown, pairs, steps,
        corpus_bytes=size_bytes, corpus_chars=size_chars, words=not isinstance(corpus, str),
    )
    return {**view, **extra, "kind": "training", "textNote": text_note, "pairsNote": pairs_note}


def superbpe_leading_pairs(tokenizer: Tokenizer, corpus: str, superword_pieces: Mapping[str, int],
                           steps: range) -> list:
    """SuperBPE's leading pairs: before the transition counted on the pieces
    of its first stage's split (within words), after it on its own (across
    them). The first stage's split is the one its name says."""
    first_stage = tokenizer.settings["transition"] - tokenizer.first_merge_id
    pattern = next((name for name in PRESETS if f"({name}," in tokenizer.name), "cl100k")
    before = range(steps.start, min(steps.stop, first_stage))
    after = range(max(steps.start, first_stage), steps.stop)
    pairs = []
    if before:
        within_words = count_pieces(corpus[:PAIRS_WINDOW_CHARS], pattern, tuple(tokenizer.special_tokens))
        pairs += leading_pairs(tokenizer, within_words, before)
    if after:
        pairs += leading_pairs(tokenizer, superword_pieces, after)
    return pairs


def training_view_data(
    tokenizer: Tokenizer,
    text: str,
    pieces: Sequence[WindowPiece],
    leading_pairs: Sequence[Sequence[tuple[Pair, int]]],
    steps: range,
    *,
    corpus_bytes: int,
    corpus_chars: int,
    words: bool = False,
) -> dict:
    """What the browser needs to show every step in `steps` of `tokenizer`'s
    training: `text` (the start of the corpus) cut into `pieces`, and the
    leading pairs before each step's next merge. With `words`, `text` is a
    word list (`analysis.training_view.word_list`): what lies between its
    pieces are the words' counts, not text the split pattern drops."""
    data = encodable(text).encode("utf-8")
    trace = tokenizer.events if isinstance(tokenizer, ReplayTokenizer) else tokenizer.trace  # each a step
    merges = [_merge_row(trace[step - 1]) if step else None for step in steps]
    shown_ids = {token.id for piece in pieces for _, tokens in piece.versions for token in tokens}
    newest = range(max(1, steps.start - VOCABULARY_SHOWN), steps.stop)
    labelled = (
        {token_id for row in merges if row for token_id in row[:3] if token_id >= 0}
        | {pair_id for ranking in leading_pairs for pair, _ in ranking for pair_id in pair}
        | {_made_at(tokenizer, trace, step) for step in newest if step <= len(trace)}
        | {token_id for step in steps if 0 < step <= len(trace) and isinstance(trace[step - 1], RemovalStep)
           for token_id in (trace[step - 1].token_id, *trace[step - 1].parts)}
    ) - {None}
    n_vocab = tokenizer.n_vocab  # counted over the whole vocabulary: once, not per token
    fragments: dict[str, int] = {}  # HTML -> index: equal markup (" the", a unit a merge left alone) is sent once
    special_ids = set(tokenizer.special_tokens.values())

    def fragment(piece: WindowPiece, tokens) -> list[int]:
        if piece.versions:
            parts = token_markup(data, tokens, special_ids=special_ids)
        elif words:  # a word's count
            parts = [f'<span class="trn-count">{html.escape(data[piece.start : piece.end].decode("utf-8"))}</span>']
        else:  # text the split pattern drops: struck through at every step
            parts = [dropped_markup(data[piece.start : piece.end])]
        return [fragments.setdefault(part, len(fragments)) for part in parts]

    texts = [data[piece.start : piece.end].decode("utf-8", errors="replace") for piece in pieces]
    rtl, breaks = flow(texts)
    stretches = [
        [int(right_to_left), int(may_break), _held_versions(piece, steps, fragment)]
        for piece, right_to_left, may_break in zip(pieces, rtl, breaks)
    ]
    return {
        "total": len(trace),
        "start": steps.start,
        "units": tokenizer.units,
        "firstMergeId": tokenizer.first_merge_id,
        "corpusBytes": corpus_bytes,
        "corpusChars": corpus_chars,
        "initialTokens": corpus_bytes if tokenizer.units == "bytes" else corpus_chars,
        "merges": merges,
        "pairs": [[[left, right, count] for (left, right), count in ranking] for ranking in leading_pairs],
        "labels": {
            token_id: [label_html(tokenizer.token_bytes(token_id)), colour_class(colour_for(0, token_id, "id"))]
            for token_id in sorted(labelled)
            if token_id < n_vocab or token_id in getattr(tokenizer, "removed_tokens", {})
        },
        "cards": {token_id: card_text(f"id {token_id}", tokenizer.token_bytes(token_id), origin)
                  for token_id, origin in token_origins(tokenizer, shown_ids).items()},
        "stretches": stretches,
        "fragments": list(fragments),
        "curve": corpus_curve(tokenizer, corpus_bytes if tokenizer.units == "bytes" else corpus_chars),
        **step_notes(tokenizer, trace, steps),
    }


def _merge_row(step: MergeStep | RemovalStep) -> list[int]:
    """A merge as [left id, right id, new id, count, corpus tokens afterwards];
    a removal (Picky BPE) as [-1, -1, -1, 0, corpus tokens afterwards]."""
    if isinstance(step, RemovalStep):
        return [-1, -1, -1, 0, step.corpus_tokens]
    (left, right) = step.pair
    return [left, right, step.new_id, step.count, step.corpus_tokens]


def _made_at(tokenizer: Tokenizer, trace: Sequence, step: int) -> int | None:
    """The token step `step` made (None for a removal)."""
    event = trace[step - 1]
    return event.new_id if isinstance(event, MergeStep) else None


def _chip(tokenizer: Tokenizer, token_id: int) -> str:
    """A token as the step control's script draws one (`chip` in step_control.js)."""
    return (f'<span class="bpe-chip {colour_class(colour_for(0, token_id, "id"))}">'
            f"{label_html(tokenizer.token_bytes(token_id))}<small>{token_id}</small></span>")


def step_notes(tokenizer: Tokenizer, trace: Sequence, steps: range) -> dict:
    """What the heading says at each step where an algorithm on the engine
    does more than merge: SuperBPE's stage (its transition marked),
    BoundlessBPE's supermerges, Picky BPE's removals (each a step of its
    own, in words: "ould removed: 0.97 of its uses were inside would"). For
    Picky BPE also the vocabulary's size at each step and, for the newest
    tokens, which token each step made and when each removed one left."""
    total = len(trace)
    if isinstance(tokenizer, ReplayTokenizer):
        merges_done, vocab_sizes, made_ids, headings, chips = 0, [], [], [], []
        size = tokenizer.first_merge_id
        first = steps.start
        for event in trace[:first]:
            merges_done += isinstance(event, MergeStep)
            size += 1 if isinstance(event, MergeStep) else -1
        for step in steps:
            event = trace[step - 1] if step else None
            if isinstance(event, MergeStep) and step > first:
                merges_done += 1
                size += 1
            elif isinstance(event, RemovalStep) and step > first:
                size -= 1
            vocab_sizes.append(size)
            made_ids.append(event.new_id if isinstance(event, MergeStep) else None)
            if event is None:
                headings.append(None)
                chips.append(None)
            elif isinstance(event, MergeStep):
                headings.append(f"<b>Step {step:,} of {total:,}: merge {merges_done:,}</b> — the pair occurred "
                                f"<b>{event.count:,}</b> times")
                chips.append(None)
            else:
                inside = next(merge.new_id for merge in reversed(trace[:step - 1]) if isinstance(merge, MergeStep))
                headings.append(f"<b>Step {step:,} of {total:,}: {_chip(tokenizer, event.token_id)} removed</b> — "
                                f"{event.ios:.2f} of its uses were inside {_chip(tokenizer, inside)}; what is left of "
                                "it splits back into its parts")
                chips.append(_chip(tokenizer, event.token_id) + '<span class="bpe-op">→</span>'
                             + '<span class="bpe-op">+</span>'.join(_chip(tokenizer, part) for part in event.parts))
        removed_by = {event.token_id: number for number, event in enumerate(trace, start=1) if isinstance(event, RemovalStep)}
        return {"headings": headings, "chips": chips, "vocabSizes": vocab_sizes, "madeIds": made_ids,
                "removedBy": removed_by, "stepWord": "steps (merges and removals)"}
    if tokenizer.algorithm == "superbpe":
        transition = tokenizer.settings["transition"] - tokenizer.first_merge_id + 1  # the first merge of stage 2
        headings = [None if not step else
                    f"<b>Merge {step:,} of {total:,} — the transition</b>: stage 2 starts, merges may now cross "
                    f"spaces (superwords); the pair occurred <b>{trace[step - 1].count:,}</b> times"
                    if step == transition else
                    f"<b>Merge {step:,} of {total:,}</b> (stage {1 if step < transition else 2}: "
                    f"{'within words' if step < transition else 'superwords'}) — the pair occurred "
                    f"<b>{trace[step - 1].count:,}</b> times"
                    for step in steps]
        return {"headings": headings}
    if isinstance(tokenizer, SuperwordTokenizer):
        superwords = set(tokenizer.supermerges)
        headings = [f"<b>Merge {step:,} of {total:,}: a supermerge</b> — two neighbouring words, each one token, "
                    f"join; the pair occurred <b>{trace[step - 1].count:,}</b> times"
                    if step and trace[step - 1].new_id in superwords else None for step in steps]
        return {"headings": headings} if any(headings) else {}
    return {}


def _held_versions(piece: WindowPiece, steps: range, fragment) -> list[list]:
    """[from step, fragments] for the versions of `piece` that some step in
    `steps` shows: the one in force at the first step, and those after.
    A version's markup is its fragments joined."""
    if not piece.versions:
        return [[0, fragment(piece, ())]]
    held = [(from_step, tokens) for from_step, tokens in piece.versions if from_step < steps.stop]
    first = max(index for index, (from_step, _) in enumerate(held) if from_step <= steps.start)
    return [[from_step, fragment(piece, tokens)] for from_step, tokens in held[first:]]


def corpus_curve(tokenizer: Tokenizer, initial_tokens: int) -> list[list[int]]:
    """[step, corpus tokens] through the whole run, at most CURVE_POINTS of them."""
    trace = tokenizer.events if isinstance(tokenizer, ReplayTokenizer) else tokenizer.trace
    lengths = [initial_tokens] + [step.corpus_tokens for step in trace]
    stride = max(1, len(lengths) // CURVE_POINTS)
    points = [[step, lengths[step]] for step in range(0, len(lengths), stride)]
    if points[-1][0] != len(lengths) - 1:
        points.append([len(lengths) - 1, lengths[-1]])
    return points
