"""The research algorithms' training loops in C, where they are built: the
same results, faster.

`superbpe` and `boundless` are the algorithms as they read best, on the
engine's Python merge state. engine/native/research.c holds the same loops
on learn.c's merge state (the one plain BPE trains on in C), compiled by
pip into the extension module `_native_research` (see setup.py):
SuperBPE's second stage (its split, and its merges with the rule for
superwords), BoundlessBPE whole,
from splitting the text to the last supermerge, and Picky BPE's merges
with its removals.

tests/test_native_research.py holds each equal to its Python version:
the same merges, ties included, in the same order, with the same counts.
Where the module is not built, or an input is beyond what the C loops do
exactly, the functions here give None and Python trains instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine import native_training
from ..engine.merge_learning import MergeStep, Progress, no_pair_left, out_of_time
from ..engine.patterns import pattern_name
from ..engine.replay_tokenizer import RemovalStep
from ..engine.specials import split_on_specials
from ..engine.tokenizer import Units
from ..engine.utf8 import encodable

try:
    from . import _native_research
except ImportError:  # not built: no C compiler when pip installed the project
    _native_research = None

NATIVE = _native_research is not None
if _native_research is not None:
    native_training.draw_hash_key(_native_research)

_DONE, _OUT_OF_TIME, _NO_PAIR_LEFT = 0, 1, 2  # why a C loop stopped (native/learn.c's numbers)
_OUT_OF_EVENTS = 4  # Picky BPE's merges and removals kept undoing each other


def superword_pieces(corpus: str, special_tokens: Sequence[str] = ()) -> dict[str, int] | None:
    """`corpus.count_pieces(corpus, SUPERWORD_PATTERN, special_tokens)` in C
    (SuperBPE's second-stage split), or None where it is not built or the
    text holds a character newer than the C split's tables."""
    if _native_research is None:
        return None
    segments = [segment for segment, is_special in split_on_specials(encodable(corpus), special_tokens) if not is_special]
    return _native_research.superword_pieces(segments)


def superword_merges(
    pieces: dict[str, int],
    pattern: str,
    base_tokens: Sequence[bytes],
    num_merges: int,
    progress: Progress | None = None,
    deadline: float | None = None,
) -> tuple[list[MergeStep], str | None] | None:
    """SuperBPE's second stage in C: `merge_learning.learn_merges` over the
    stage-2 pieces ({piece: count}) as the stage-1 tokenizer (`base_tokens`,
    split with `pattern`) encodes each, with `superbpe.allowed_superword` as
    its rule; or None where it is not built or `pattern` is no preset."""
    split = _split_number(pattern)
    if _native_research is None or split is None or type(pieces) is not dict:
        return None
    report_every = max(1, num_merges // 200)  # as often as learn_merges reports
    learned = _native_research.superword_merges(pieces, split, list(base_tokens), num_merges, deadline, progress,
                                                report_every)
    if learned is None:
        return None
    steps, stop = learned
    trace = _trace(memoryview(steps).cast("q"), 4, list(base_tokens))
    if progress is not None:
        progress(num_merges, num_merges)
    if stop == _OUT_OF_TIME:
        return trace, out_of_time(len(trace), num_merges)
    if stop == _NO_PAIR_LEFT:
        return trace, no_pair_left(len(trace))
    return trace, None


def boundless(
    segments: Sequence[str], pattern: str, wanted: int, progress: Progress | None = None, deadline: float | None = None
) -> tuple[list[MergeStep], list[int], str | None] | None:
    """`boundless._BoundlessTraining` in C over the text's segments (those
    between its special tokens) split with a preset `pattern`: the trace, the
    supermerges' ids and why training stopped early; or None where the C
    version is not built or cannot be exact."""
    split = _split_number(pattern)
    if _native_research is None or split is None:
        return None
    learned = _native_research.boundless(list(segments), split, wanted, deadline, progress)
    if learned is None:
        return None
    steps, stop = learned
    rows = memoryview(steps).cast("q")
    trace = _trace(rows, 5, [bytes([byte]) for byte in range(256)])
    supermerges = [step.new_id for step, joined in zip(trace, rows[4::5]) if joined]
    size = 256 + len(trace)
    if stop == _OUT_OF_TIME:
        return trace, supermerges, f"the time allowed ran out at {size:,} of {wanted:,} tokens"
    if stop == _NO_PAIR_LEFT:
        return trace, supermerges, f"no adjacent pair is left to merge at {size:,} tokens"
    if progress is not None:
        progress(wanted - 256, wanted - 256)
    return trace, supermerges, None


def picky(
    pieces: dict[str, int],
    units: Units,
    base_tokens: Sequence[bytes | str],
    threshold: float,
    wanted: int,
    max_events: int,
    progress: Progress | None = None,
    deadline: float | None = None,
) -> tuple[list[MergeStep], list[RemovalStep], str | None] | None:
    """`picky._PickyTraining` in C over the pieces themselves ({piece:
    count}, in order of first appearance) as training numbers their units:
    the trace, the removals and why training stopped early (its words); or
    None where the C version is not built or cannot be exact."""
    if _native_research is None or type(pieces) is not dict:
        return None
    alphabet = None if units == "bytes" else "".join(base_tokens)
    learned = _native_research.picky(pieces, alphabet, threshold, wanted, max_events, deadline, progress)
    if learned is None:
        return None
    steps, removal_rows, ios, stop, size = learned
    base = len(base_tokens)
    trace = _trace(memoryview(steps).cast("q"), 4, list(base_tokens))
    removals, rows, shares = [], memoryview(removal_rows).cast("q"), memoryview(ios).cast("d")
    start = 0
    for share in shares:
        after, token_id, corpus_tokens, parts = rows[start : start + 4]
        removals.append(RemovalStep(after, token_id, tuple(rows[start + 4 : start + 4 + parts]), share, corpus_tokens))
        start += 4 + parts
    if stop == _OUT_OF_TIME:
        return trace, removals, f"the time allowed ran out at {size:,} of {wanted:,} tokens"
    if stop == _NO_PAIR_LEFT:
        return trace, removals, f"no adjacent pair is left to merge at {size:,} tokens"
    if stop == _OUT_OF_EVENTS:
        return trace, removals, f"merges and removals kept undoing each other: stopped at {size:,} of {wanted:,} tokens"
    if progress is not None:
        progress(wanted - base, wanted - base)
    return trace, removals, None


def _split_number(pattern: str) -> int | None:
    """split.c's number for a preset split pattern, else None."""
    if pattern_name(pattern) not in ("gpt2", "cl100k", "o200k"):
        return None
    return getattr(native_training._native_training, f"SPLIT_{pattern_name(pattern).upper()}", None)


def _trace(rows: memoryview, width: int, tokens: list[bytes]) -> list[MergeStep]:
    """The merge steps of rows of `width` integers (left, right, count,
    corpus tokens after, ...), each new token's id the next after `tokens`."""
    ids = list(range(len(tokens)))  # one int object per id, shared by every pair holding it
    trace = []
    for left, right, count, corpus_tokens in zip(rows[0::width], rows[1::width], rows[2::width], rows[3::width]):
        new_id = len(tokens)
        tokens.append(tokens[left] + tokens[right])
        ids.append(new_id)
        trace.append(MergeStep((ids[left], ids[right]), new_id, count, tokens[new_id], corpus_tokens))
    return trace
