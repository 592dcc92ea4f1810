"""BoundlessBPE (Schmidt et al. 2025, "Boundless Byte Pair Encoding: Breaking
the Pre-tokenization Barrier"): BPE that may also join whole pretokens.

Pre-tokenization keeps BPE inside words. BoundlessBPE adds *supermerges*:
two adjacent pretokens that have each become a single token (" of", " the")
may merge into one (" of the"), and superwords merge further. Each step takes
the more frequent of the best ordinary pair and the best supermerge pair (a
tie goes to the supermerge).

The rules follow the paper's code (kensho-technologies/boundlessbpe,
boundlessbpetrain.py, `FasterHalfDirectRegexTokenizer`):
- a pretoken may join a superword once a merge has left it whole, and only
  if it is made of letters (at least two characters, a letter after the
  first) with spaces, underscores and apostrophes: numbers, punctuation and
  line breaks stay apart (`MERGEABLE`, regexconstants.py);
- a pair whose bytes are already a token is never merged, in either kind;
- here without the paper's deletions (its tau > 1 runs; Picky BPE's
  removals are `--algorithm picky`).

Both kinds run on the engine's merge state: ordinary pairs over the
pretokens, counted; supermerge pairs over the runs of adjacent mergeable
pretokens, counted, where a pair waits (refused, set aside) until both its
pretokens are whole. This is the readable version; where it is built,
engine/native/research.c takes the same steps in C (`native_research`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

import regex

from ..engine.merge_learning import UNLINKED, MergeState, MergeStep, Pair, Progress
from ..engine.patterns import pattern_name, split_pieces
from ..engine.specials import split_on_specials
from ..engine.superwords import SuperwordTokenizer
from ..engine.training import (
    checked_specials,
    collector_paused,
    finished_vocabulary,
    merge_budget,
    training_units,
)
from ..engine.utf8 import encodable
from . import native_research

# IMPROVED_MERGE_PATTERN of regexconstants.py, on the decoded token.
MERGEABLE = regex.compile(r"^(?=.+\p{L})(?:\p{L}\p{M}*|[ _'\u2019])+$")
_PRETOKEN = 1 << 40  # ids of pretokens in the superword state, above any token's


def mergeable(piece: str) -> bool:
    """Whether a pretoken may ever join a superword."""
    return MERGEABLE.match(piece) is not None


def pieces_and_runs(text: str, pattern: str, special_tokens: Sequence[str] = ()) -> tuple[dict[str, int], dict[tuple[str, ...], int]]:
    """The text's pretokens, counted (as `corpus.count_pieces` counts them),
    and its runs of two or more adjacent mergeable pretokens, counted: the
    only places a supermerge can happen. One split for both: a preset split
    tiles the text, so consecutive pieces are adjacent."""
    counts: dict[str, int] = {}
    runs: dict[tuple[str, ...], int] = {}
    fits: dict[str, bool] = {}  # a text repeats most of its pieces
    for segment, is_special in split_on_specials(text, special_tokens):
        if is_special:
            continue
        run: list[str] = []
        for piece in split_pieces(segment, pattern):
            known = counts.get(piece)
            if known is None:
                counts[piece], fits[piece] = 1, mergeable(piece)
            else:
                counts[piece] = known + 1
            if fits[piece]:
                run.append(piece)
                continue
            if len(run) > 1:
                runs[tuple(run)] = runs.get(tuple(run), 0) + 1
            run = []
        if len(run) > 1:
            runs[tuple(run)] = runs.get(tuple(run), 0) + 1
    return counts, runs


def train_boundless(
    corpus: str,
    *,
    vocab_size: int,
    pattern: str = "cl100k",
    special_tokens: Sequence[str] = (),
    progress: Progress | None = None,
    deadline: float | None = None,
) -> SuperwordTokenizer:
    """BoundlessBPE, byte-level, to `vocab_size` tokens (special tokens on top)."""
    if not isinstance(corpus, str):
        raise TypeError("BoundlessBPE learns from a text (which pretokens are adjacent), not word counts.")
    if pattern_name(pattern) in ("custom", "none"):
        raise ValueError("BoundlessBPE joins pretokens that tile the text: choose a preset split (gpt2, cl100k, o200k).")
    special_tokens = checked_specials(special_tokens)
    corpus = encodable(corpus)
    with collector_paused():
        segments = [segment for segment, is_special in split_on_specials(corpus, special_tokens) if not is_special]
        if not segments:
            raise ValueError("The corpus is empty: there is no text to learn merges from.")
        wanted = 256 + merge_budget(vocab_size, None, 256, "bytes")
        learned = native_research.boundless(segments, pattern, wanted, progress, deadline)
        if learned is None:  # the C version is not built, or cannot be exact here: the same steps in Python
            pieces, runs = pieces_and_runs(corpus, pattern, special_tokens)
            training = _BoundlessTraining(pieces, training_units(pieces, "bytes")[1], runs)
            stop_reason = training.run(wanted, progress, deadline)
            learned = training.trace, training.supermerges, stop_reason
        trace, supermerges, stop_reason = learned
        vocab, special_ids, _ = finished_vocabulary([bytes([byte]) for byte in range(256)], trace, "bytes", special_tokens)
        return SuperwordTokenizer(
            name=f"BoundlessBPE ({pattern_name(pattern)}, {len(trace)} merges, {len(supermerges)} supermerges)",
            pattern=pattern,
            vocab=vocab,
            special_tokens=special_ids,
            merges=[(step.pair, step.new_id) for step in trace],
            supermerges=supermerges,
            trace=trace,
            stop_reason=stop_reason,
            algorithm="boundless",
        )


class _BoundlessTraining:
    """Two merge states: `words` over the pretokens (BPE's own), `runs` over
    runs of pretokens, where each pretoken is one unit (`_PRETOKEN` + its
    index) until it is whole, and a superword is its token's id."""

    def __init__(self, pieces: Mapping[str, int], piece_units, runs: Mapping[tuple[str, ...], int]):
        self.tokens: list[bytes] = [bytes([byte]) for byte in range(256)]
        self.known = set(self.tokens)
        self.words = MergeState(piece_units)
        self.start_of: dict[bytes, int] = {}  # a pretoken -> its first position in `words`
        position = 0
        for piece in pieces:
            encoded = piece.encode("utf-8")
            self.start_of[encoded] = position
            position += len(encoded)
        unit_of: dict[str, int] = {}  # numbered by first appearance in the runs
        for run in runs:
            for piece in run:
                if piece not in unit_of:
                    unit_of[piece] = _PRETOKEN + len(unit_of)
        self.pretoken_unit = {piece.encode("utf-8"): unit for piece, unit in unit_of.items()}
        self.unit_bytes = {unit: piece for piece, unit in self.pretoken_unit.items()}
        self.runs = MergeState(([unit_of[piece] for piece in run], count) for run, count in runs.items())
        self.whole: dict[int, int] = {}  # pretoken unit -> its token, once a merge has made it whole
        self.waiting: dict[int, list[Pair]] = {}  # pretoken unit -> supermerge pairs refused until it is whole
        for pair in self.runs.pair_count:  # no pretoken is whole yet: every pair waits
            self.waits(pair)
        self.runs.withhold(self.runs.pair_count)
        self.trace: list[MergeStep] = []
        self.supermerges: list[int] = []
        self.joined = 0  # tokens the supermerges saved

    def run(self, wanted: int, progress: Progress | None, deadline: float | None) -> str | None:
        while len(self.tokens) < wanted:
            if deadline is not None and time.monotonic() > deadline:
                return f"the time allowed ran out at {len(self.tokens):,} of {wanted:,} tokens"
            word = self.words.best_pair(self.new_word)
            join = self.runs.best_pair(self.new_superword)
            if word is None and join is None:
                return f"no adjacent pair is left to merge at {len(self.tokens):,} tokens"
            if join is None or (word is not None and word[1] > join[1]):
                self.merge_words(*word)
            else:
                self.join_pretokens(*join)
            if progress is not None and len(self.tokens) % 50 == 0:
                progress(len(self.tokens) - 256, wanted - 256)
        if progress is not None:
            progress(wanted - 256, wanted - 256)
        return None

    def bytes_of(self, unit: int) -> bytes:
        return self.unit_bytes[unit] if unit >= _PRETOKEN else self.tokens[unit]

    def new_word(self, pair: Pair) -> bool:
        return self.tokens[pair[0]] + self.tokens[pair[1]] not in self.known

    def new_superword(self, pair: Pair) -> bool:
        """Whether the runs may merge `pair` now: both sides whole, and a new token."""
        return not self.waits(pair) and self.bytes_of(pair[0]) + self.bytes_of(pair[1]) not in self.known

    def waits(self, pair: Pair) -> bool:
        """Whether a side of `pair` is a pretoken not whole yet; if so, the
        pair waits for it (see `merge_words`)."""
        for unit in pair:
            if unit >= _PRETOKEN and unit not in self.whole:
                self.waiting.setdefault(unit, []).append(pair)
                return True
        return False

    def merge_words(self, pair: Pair, count: int) -> None:
        new_id = len(self.tokens)
        self.words.merge(pair, new_id)
        token = self.add(pair, new_id, count, self.tokens[pair[0]] + self.tokens[pair[1]])
        unit = self.pretoken_unit.get(token)
        start = self.start_of.get(token)
        if unit is not None and self.words.token[start] == new_id and self.words.following[start] == UNLINKED:
            self.whole[unit] = new_id  # the pretoken is one token now: its supermerges may happen
            for waiting in self.waiting.pop(unit, ()):
                if not self.waits(waiting):  # else it waits for its other side, outside the heap
                    self.runs.reconsider(waiting)

    def join_pretokens(self, pair: Pair, count: int) -> None:
        new_id = len(self.tokens)
        before = self.runs.corpus_tokens
        self.runs.merge(pair, new_id)
        self.joined += before - self.runs.corpus_tokens
        token_pair = tuple(self.whole.get(unit, unit) for unit in pair)
        self.add(token_pair, new_id, count, self.bytes_of(pair[0]) + self.bytes_of(pair[1]))
        self.supermerges.append(new_id)

    def add(self, pair: Pair, new_id: int, count: int, token: bytes) -> bytes:
        self.tokens.append(token)
        self.known.add(token)
        self.trace.append(MergeStep(pair, new_id, count, token, self.words.corpus_tokens - self.joined))
        return token
