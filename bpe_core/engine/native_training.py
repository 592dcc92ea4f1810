"""Training's hot loop in C, where it is built: the same merges, faster.

`merge_learning` is the algorithm as it reads best, and the one the pages
step through. `native/learn.c` is the same algorithm on machine integers
(the same layout of the corpus, the same pair statistics, the same lazy
heap), compiled by pip into the extension module `_native_training` (see
setup.py). It learns the same merges, in the same order, with the same
counts and ties, ten to twenty times faster; tests/test_native_training.py
holds the two equal.

Training uses it wherever it can: when the module is built, and the pieces
are within what it handles exactly (counts and lengths that fit 64 bits,
fewer than 2^31 units). Elsewhere `learn_merges` here gives None and the
Python version runs: a slower result, never a different one. `NATIVE` says
whether the module is there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .merge_learning import MergeStep, Progress, below_min_count, no_pair_left, out_of_time
from .tokenizer import Units

try:
    from . import _native_training
except ImportError:  # not built: no C compiler when pip installed the project
    _native_training = None

NATIVE = _native_training is not None

_OUT_OF_TIME, _NO_PAIR_LEFT, _BELOW_MIN_COUNT = 1, 2, 3  # why the C loop stopped early (native/learn.c)


def learn_merges(
    pieces: Mapping[str, int],
    units: Units,
    base_tokens: Sequence[bytes | str],
    num_merges: int,
    min_count: int = 1,
    progress: Progress | None = None,
    deadline: float | None = None,
) -> tuple[list[MergeStep], str | None] | None:
    """`merge_learning.learn_merges` over the pieces themselves ({piece:
    count}, in order of first appearance) as training numbers their units
    (`training.training_units`): UTF-8 bytes, or characters in the order of
    `base_tokens`. None where the C version is not there or cannot be exact."""
    if _native_training is None or type(pieces) is not dict:
        return None
    alphabet = None if units == "bytes" else "".join(base_tokens)
    report_every = max(1, num_merges // 200)  # as often as the Python version reports
    learned = _native_training.learn_merges(pieces, alphabet, num_merges, min_count, deadline, progress, report_every)
    if learned is None:
        return None
    steps, stop, stop_count = learned
    tokens = list(base_tokens)
    trace = []
    for left, right, count, corpus_tokens in steps:
        tokens.append(tokens[left] + tokens[right])
        trace.append(MergeStep((left, right), len(tokens) - 1, count, tokens[-1], corpus_tokens))
    if progress is not None:
        progress(num_merges, num_merges)
    stop_reason = None
    if stop == _OUT_OF_TIME:
        stop_reason = out_of_time(len(trace), num_merges)
    elif stop == _NO_PAIR_LEFT:
        stop_reason = no_pair_left(len(trace))
    elif stop == _BELOW_MIN_COUNT:
        stop_reason = below_min_count(len(trace), stop_count, min_count)
    return trace, stop_reason
