"""Training's hot loops in C, where they are built: the same results, faster.

`corpus` and `merge_learning` are training as it reads best, and the code
the pages step through. `native/` holds the same two steps in C, compiled
by pip into the extension module `_native_training` (see setup.py):

- counting: split.c splits a text with a preset pattern as the `regex`
  module does, piece for piece, and count.c counts the pieces in a table
  kept in order of first appearance. Threads count chunks at once (the C
  code runs without the GIL), and their tables add up in text order, as
  the Python counts of chunks do.
- learning: learn.c is `merge_learning`'s algorithm on machine integers
  (the same layout of the corpus, the same pair statistics, the same lazy
  heap), so the same merges, order, counts and ties.

tests/test_native_training.py holds each equal to its Python version.
Training uses them wherever it can: when the module is built, for a preset
split, and for pieces within what learn.c handles exactly (counts that fit
64 bits, fewer than 2^31 units). Elsewhere the functions here give None,
or count with `regex`, and Python does the work: a slower result, never a
different one. `NATIVE` says whether the module is there.
"""

from __future__ import annotations

import os
import struct
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from .merge_learning import MergeStep, Progress, below_min_count, no_pair_left, out_of_time
from .patterns import pattern_name, split_pieces
from .specials import split_on_specials
from .tokenizer import Units

try:
    from . import _native_training
except ImportError:  # not built: no C compiler when pip installed the project
    _native_training = None

NATIVE = _native_training is not None


def draw_hash_key(module) -> None:
    """Give a C extension module (this one, `_native_research`) a new key
    for the hash that places pieces and pairs in its tables, from
    os.urandom: no corpus can then be made of pieces or pairs that all
    collide there (see native/siphash.h). Nothing learned depends on it."""
    module.seed_hash(*struct.unpack("<QQ", os.urandom(16)))


if _native_training is not None:
    draw_hash_key(_native_training)

# The presets split.c knows, by their numbers there.
_SPLITS = {} if _native_training is None else {
    "gpt2": _native_training.SPLIT_GPT2,
    "cl100k": _native_training.SPLIT_CL100K,
    "o200k": _native_training.SPLIT_O200K,
}


def can_count(pattern: str) -> bool:
    """Whether `count_chunks` here can count text split with `pattern`."""
    return _native_training is not None and pattern_name(pattern) in _SPLITS


def utf8_error(data: bytes | memoryview) -> int:
    """Where the first byte of `data` that starts no UTF-8 character is
    (where Python's decoder would stop), or -1 if there is none."""
    return _native_training.utf8_error(data)


def last_cut(data: bytes | memoryview) -> int:
    """The last place in UTF-8 bytes where a preset's split may be cut (see
    `corpus.cut_points`), or 0: `corpus.last_cut` without a string."""
    return _native_training.last_cut(data)


def count_chunks(
    chunks: Iterable[str | bytes], pattern: str, special_tokens: tuple[str, ...] = (), *, workers: int = 1
) -> dict[str, int]:
    """`corpus.count_chunks` in C, for a preset `pattern` (see `can_count`):
    the piece counts of consecutive chunks of a text (strings, or UTF-8
    bytes checked by `utf8_error`), each counted by one of `workers` threads
    while this one reads the next, added up in order."""
    split = _SPLITS[pattern_name(pattern)]
    total = _native_training.PieceCounts()
    if workers == 1:
        for chunk in chunks:
            total.add(_counted_chunk(chunk, split, pattern, special_tokens))
        return total.to_dict()
    with ThreadPoolExecutor(workers) as threads:
        pending: deque[Future] = deque()  # the chunks' counts, in text order, until added up
        for chunk in chunks:
            pending.append(threads.submit(_counted_chunk, chunk, split, pattern, special_tokens))
            while len(pending) > 2 * workers or (pending and pending[0].done()):  # memory stays bounded
                total.add(pending.popleft().result())
        while pending:
            total.add(pending.popleft().result())
    return total.to_dict()


def _counted_chunk(text: str | bytes, split: int, pattern: str, special_tokens: tuple[str, ...]):
    """The pieces of one chunk with their counts (a PieceCounts). Special
    tokens cut the text and are not counted, as in `corpus.count_chunk`; a
    segment holding a character newer than split.c's Unicode tables (see
    native/unsettled.h) is split by `regex`, as Python training splits it."""
    counts = _native_training.PieceCounts()
    if isinstance(text, bytes):  # read from a file, never with special tokens to cut at
        if counts.count_bytes(text, split):
            return counts
        text = text.decode("utf-8")
    for segment, is_special in split_on_specials(text, special_tokens):
        if not is_special and not counts.count(segment, split):
            counts.add_pieces(split_pieces(segment, pattern))
    return counts

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
    if _native_training is None or type(pieces) is not dict or not 0 < min_count < 2**63:
        return None  # a count the C loop's 64-bit integers cannot hold: Python's learner takes any
    alphabet = None if units == "bytes" else "".join(base_tokens)
    report_every = max(1, num_merges // 200)  # as often as the Python version reports
    learned = _native_training.learn_merges(pieces, alphabet, num_merges, min_count, deadline, progress, report_every)
    if learned is None:
        return None
    steps, stop, stop_count = learned
    rows = memoryview(steps).cast("q")  # per merge: left, right, count, corpus tokens after
    tokens = list(base_tokens)
    # Each id as one int object, which every pair holding it shares: read
    # from the rows, 10,000 merges would make 20,000 more ints (32 bytes each).
    ids = list(range(len(tokens)))
    trace = []
    for left, right, count, corpus_tokens in zip(rows[0::4], rows[1::4], rows[2::4], rows[3::4]):
        new_id = len(tokens)
        tokens.append(tokens[left] + tokens[right])
        ids.append(new_id)
        trace.append(MergeStep((ids[left], ids[right]), new_id, count, tokens[new_id], corpus_tokens))
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
