"""SuperBPE (Liu et al. 2025, "SuperBPE: Space travel for language
models"): BPE in two stages, so that tokens may span words.

1. Ordinary BPE, its split pattern keeping words apart, up to the
   *transition*: a vocabulary of T tokens.
2. Training goes on over a split that keeps spaces inside pieces
   (`patterns.SUPERWORD_PATTERN`): the text as stage 1 tokenized it is
   merged further into *superwords* such as " of the" or ", and".

Two rules of the official trainer (alisawuffles/tokenizers-superbpe,
tokenizers/src/models/bpe/trainer.rs, `do_train_extend`) refuse a stage-2
merge for good: a token may not hold ": " (a colon then a space), and may
not hold more than four words (parts between spaces). The tokenizer then
encodes like any other, with the stage-2 split.

Stage 2 starts from the text as the stage-1 tokenizer encodes each stage-2
piece: the official code replays the stage-1 merges on those pieces, which
gives the same tokens except where a learned pair would straddle a stage-1
piece boundary (no corpus in the tests has one), at a tenth of the cost.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from ..engine import native_training
from ..engine.merge_learning import MergeStep, Progress, learn_merges
from ..engine.patterns import SUPERWORD_PATTERN, pattern_name
from ..engine.tokenizer import Tokenizer
from ..engine.training import checked_specials, collector_paused, counted_pieces, finished_vocabulary, training_units
from . import native_research

MAX_WORDS = 4  # trainer.rs: "skip any multi-word tokens consisting of n or more Ġ"


def allowed_superword(token: bytes) -> bool:
    """Whether stage 2 may learn `token`: no ": " in it, and at most four words."""
    return b": " not in token and sum(1 for word in token.split(b" ") if word) <= MAX_WORDS


def check_transition(transition: int, vocab_size: int) -> None:
    """Refuse a transition that leaves either stage nothing to do."""
    if isinstance(transition, bool) or not isinstance(transition, int):
        raise TypeError(f"The transition is a vocabulary size, a whole number; got {transition!r}.")
    if not 256 <= transition < vocab_size:
        raise ValueError(
            f"The transition must be at least 256 (the byte tokens) and below the vocabulary size "
            f"({vocab_size:,}); got {transition:,}."
        )


def train_superbpe(
    corpus: str,
    *,
    vocab_size: int,
    transition: int,
    pattern: str = "cl100k",
    special_tokens: Sequence[str] = (),
    progress: Progress | None = None,
    deadline: float | None = None,
) -> Tokenizer:
    """SuperBPE, byte-level: stage 1 with `pattern` to `transition` tokens,
    stage 2 (superwords) to `vocab_size`. Steps 1..T-256 of the trace are
    stage 1's merges; `settings["transition"]` is T."""
    if not isinstance(corpus, str):
        raise TypeError("SuperBPE learns from a text (its second stage splits it anew), not word counts.")
    check_transition(transition, vocab_size)
    special_tokens = checked_specials(special_tokens)
    stage_one_merges = transition - 256
    with collector_paused():
        pieces = counted_pieces(corpus, pattern, special_tokens)
        base_tokens, piece_units = training_units(pieces, "bytes")
        report = None if progress is None else (lambda done, total: progress(done, vocab_size - 256))
        stage_one, stop_reason = (  # plain BPE: in C where it is built, the same merges (see `train`)
            native_training.learn_merges(pieces, "bytes", base_tokens, stage_one_merges, progress=report,
                                         deadline=deadline)
            or learn_merges(piece_units, base_tokens, stage_one_merges, progress=report, deadline=deadline)
        )
        vocab, _, _ = finished_vocabulary(base_tokens, stage_one, "bytes", ())
        trace = list(stage_one)
        if deadline is None or time.monotonic() <= deadline:  # stage 1 may stop early on a small corpus: stage 2 goes on
            report = None if progress is None else (lambda done, total: progress(stage_one_merges + done, vocab_size - 256))
            stage_two, stop_reason = _second_stage(
                corpus, special_tokens, pattern, vocab, stage_one, vocab_size - transition, report, deadline
            )
            trace += stage_two
        vocab, special_ids, _ = finished_vocabulary(base_tokens, trace, "bytes", special_tokens)
        return Tokenizer(
            name=f"SuperBPE ({pattern_name(pattern)}, transition {transition:,}, {len(trace)} merges)",
            pattern=SUPERWORD_PATTERN,
            vocab=vocab,
            special_tokens=special_ids,
            merges=[(step.pair, step.new_id) for step in trace],
            trace=trace,
            stop_reason=stop_reason,
            algorithm="superbpe",
            settings={"transition": transition},
        )


def _second_stage(corpus: str, special_tokens: tuple[str, ...], pattern: str, vocab: dict[int, bytes],
                  stage_one: Sequence[MergeStep], num_merges: int, progress: Progress | None,
                  deadline: float | None) -> tuple[list[MergeStep], str | None]:
    """Stage 2: the text split anew (`SUPERWORD_PATTERN`), each piece as the
    stage-1 tokenizer encodes it, merged further under `allowed_superword`.
    In C where it is built (`native_research`): the same pieces and merges."""
    pieces = native_research.superword_pieces(corpus, special_tokens) or counted_pieces(
        corpus, SUPERWORD_PATTERN, special_tokens
    )
    learned = native_research.superword_merges(pieces, pattern, list(vocab.values()), num_merges, progress, deadline)
    if learned is not None:
        return learned
    first = Tokenizer(name="stage 1", pattern=pattern, vocab=vocab, merges=[(step.pair, step.new_id) for step in stage_one])
    units = ((first.encode_ordinary(piece), count) for piece, count in pieces.items())
    return learn_merges(units, list(vocab.values()), num_merges, progress=progress, deadline=deadline,
                        allowed=allowed_superword)
