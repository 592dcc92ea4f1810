"""From a training corpus to weighted pre-token pieces.

Training never looks at the text twice: it needs each distinct piece once,
with how often it occurs, in the order the pieces first appear (that order
decides ties between equally frequent pairs, as in the reference algorithm).

Counting is where a large corpus spends most of its time and memory: the
split pattern visits every character, and a list of all pieces of 10 MB of
text is two million small strings, over a hundred megabytes. So a long text is counted in
chunks, by several processes at once, and each chunk is split in parts:
piece counts add up, part by part and chunk by chunk in text order, to
exactly the counts of the whole. A chunk or a part may only end where every
split of the text has a piece boundary anyway (`cut_points`).
"""

from __future__ import annotations

import bisect
import json
import os
from collections import Counter, deque
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import Future

import regex

from . import native_training
from .patterns import compile_pattern, pattern_name, split_pieces
from .specials import special_spans, split_on_specials
from .utf8 import encodable

SPLIT_CHARS = 250_000  # text split at once: its pieces are a list in memory until counted
MAX_CHUNK_CHARS = 1_000_000  # text a worker process counts at once, and returns one table for
PARALLEL_MIN_CHARS = 2_000_000  # below this, a helper process costs about what it saves

# Where a preset's split always has a boundary, and cutting the text there
# changes no piece: right after a letter that is followed by anything but a
# letter, a combining mark, a digit or an apostrophe (whitespace, "。", ",").
# In every preset a piece that holds a letter is a run of letters (o200k's
# counts combining marks as letters and may end in a contraction, "'s";
# each may start with one symbol or a space) that ends at the first other
# character, looking no further. So it ends right there in the whole text
# and in the chunk alike, and the next piece starts there in both; a piece
# before it never reached that far. (Elsewhere the split peeks ahead:
# `\s+(?!\S)` and `\s++$` decide a run of whitespace by what follows.)
# Whole-text ("none") and custom patterns promise no such place and are
# split in one go.
LETTER_THEN_OTHER = regex.compile(r"(?<=\p{L})(?=[^\p{L}\p{M}\p{N}'])")
_CUTTABLE_PATTERNS = {"gpt2", "cl100k", "o200k"}


def count_pieces(
    corpus: str | Mapping[str, int],
    pattern: str,
    special_tokens: tuple[str, ...] = (),
    *,
    workers: int | None = None,
) -> dict[str, int]:
    """The distinct pre-token pieces of a corpus with their counts, in order of
    first appearance.

    A text is split with `pattern`; special-token strings act as boundaries and
    are not part of any piece (they get their own ids, never learned merges). A
    word-count mapping ({"low": 5, "lower": 2}) is taken as given: each word is
    one piece, weighted by its count. A long text is counted by `workers`
    processes (by default one per CPU core).
    """
    if not isinstance(corpus, str):
        return checked_counts(corpus)
    if workers is None:
        workers = worker_count(len(corpus)) if can_cut(pattern) else 1  # else it is one chunk
    chunks = text_chunks(corpus, pattern, special_tokens, chunk_size(len(corpus), workers))
    return count_chunks(chunks, pattern, special_tokens, workers=workers)


def worker_count(text_size: int | None) -> int:
    """Processes worth counting a text of this many characters (or bytes;
    None for a stream of unknown length) with: one per core this process
    may use, for a large text."""
    if text_size is not None and text_size < PARALLEL_MIN_CHARS:
        return 1
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def chunk_size(text_size: int, workers: int) -> int:
    """Characters (or bytes) per chunk: a few chunks per worker, so that they
    finish together, and few tables to send back and add up."""
    return min(MAX_CHUNK_CHARS, max(SPLIT_CHARS, text_size // (4 * workers)))


def count_chunks(
    chunks: Iterable[str], pattern: str, special_tokens: tuple[str, ...] = (), *, workers: int = 1
) -> dict[str, int]:
    """The piece counts of consecutive chunks of a text (each ending at a
    place where the split has a boundary anyway), counted by `workers`
    processes: this one and `workers - 1` helpers. The chunks may arrive one
    by one, as a file is read; this process counts one itself whenever the
    helpers have enough to do, so none of them waits on another. Under a
    preset pattern C counts them instead, in threads (see `native_training`):
    the same counts, several times faster."""
    if native_training.can_count(pattern):
        return native_training.count_chunks(chunks, pattern, special_tokens, workers=workers)
    compile_pattern(pattern)  # a forked helper finds it compiled (and checked, if it is a custom one)
    helpers = _helper_pool(workers - 1) if workers > 1 else None
    if helpers is None:
        return merged_counts(count_chunk(chunk, pattern, special_tokens) for chunk in chunks)
    with helpers:
        total: dict[str, int] = {}
        pending: deque[Future] = deque()  # counts of the chunks read, in text order, until added up
        for chunk in chunks:
            if sum(not counts.done() for counts in pending) < 2 * (workers - 1):  # one at work, one waiting
                pending.append(helpers.submit(count_chunk, chunk, pattern, special_tokens))
            else:
                pending.append(_done(count_chunk(chunk, pattern, special_tokens)))
            while pending and (pending[0].done() or len(pending) > 2 * workers):  # memory stays bounded
                add_counts(total, pending.popleft().result())
        while pending:
            add_counts(total, pending.popleft().result())
        return total


def _helper_pool(helpers: int):
    """`helpers` helper processes (see `helper_context`), or None where this
    machine cannot start them. (Imported here: counting in C never needs
    multiprocessing, a megabyte at the command line's start.)"""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    from ..sandbox.worker_processes import helper_context

    pool = ProcessPoolExecutor(helpers, mp_context=helper_context())
    try:
        pool.submit(int).result()
    except (OSError, BrokenProcessPool):
        pool.shutdown(cancel_futures=True)
        return None
    return pool


def _done(counts: dict[str, int]) -> Future:
    """Counts made here, in the form of those a helper sends back."""
    future: Future = Future()
    future.set_result(counts)
    return future


def count_chunk(text: str, pattern: str, special_tokens: tuple[str, ...] = ()) -> dict[str, int]:
    """The pieces of one chunk of text with their counts, in order of first
    appearance; split part by part, so that only one part's pieces are ever
    a list."""
    pieces: Counter[str] = Counter()
    for part in text_chunks(text, pattern, special_tokens, SPLIT_CHARS):
        for segment, is_special in split_on_specials(part, special_tokens):
            if not is_special:
                pieces.update(split_pieces(segment, pattern))
    return dict(pieces)


def merged_counts(counts: Iterable[Mapping[str, int]]) -> dict[str, int]:
    """Piece counts added up, first appearances kept in order: the counts of
    consecutive chunks of a text merge into the counts of the whole."""
    total: dict[str, int] = {}
    for more in counts:
        add_counts(total, more)
    return total


def add_counts(total: dict[str, int], more: Mapping[str, int]) -> None:
    """Add `more` piece counts into `total`; new pieces go after the known ones."""
    if not total:
        total.update(more)
        return
    known = total.get
    for piece, count in more.items():
        total[piece] = known(piece, 0) + count


def text_chunks(text: str, pattern: str, special_tokens: tuple[str, ...] = (), size: int = MAX_CHUNK_CHARS) -> Iterator[str]:
    """`text` in consecutive chunks of about `size` characters, each ending
    where the split has a boundary anyway (see `cut_points`)."""
    start = 0
    for cut in cut_points(text, pattern, special_tokens, size):
        yield text[start:cut]
        start = cut
    if start < len(text) or not text:
        yield text[start:]


def cut_points(text: str, pattern: str, special_tokens: tuple[str, ...] = (), size: int = MAX_CHUNK_CHARS) -> list[int]:
    """Positions about `size` characters apart where splitting `text` in two
    changes no piece (see `LETTER_THEN_OTHER`) and cuts no special token in
    two; none for a pattern that promises no such place (see `can_cut`)."""
    if not can_cut(pattern):
        return []
    specials = special_spans(text, special_tokens)
    cuts, position = [], size
    while position < len(text):
        found = LETTER_THEN_OTHER.search(text, position)
        if found is None:
            break
        special = _special_around(specials, found.start())
        if special is not None:  # the place is inside a special token: look after it
            position = special[1]
            continue
        cuts.append(found.start())
        position = found.start() + size
    return cuts


def last_cut(text: str, special_tokens: tuple[str, ...] = ()) -> int:
    """The last place in the first part of a longer text (a block read from
    a file) where it can be cut (see `cut_points`), or 0 if there is none.
    A special token may begin near the end and go on in the rest; no cut
    is made where one could."""
    specials = special_spans(text, special_tokens)
    end = len(text) - max(map(len, special_tokens), default=1) + 1
    while end > 0:
        found = _LAST_CUT.search(text, 0, end)
        if found is None:
            return 0
        special = _special_around(specials, found.start())
        if special is None:
            return found.start()
        end = special[0]
    return 0


_LAST_CUT = regex.compile("(?r)" + LETTER_THEN_OTHER.pattern)


def _special_around(spans: list[tuple[int, int]], position: int) -> tuple[int, int] | None:
    """The span of `spans` (sorted, apart) that `position` falls strictly inside, or None."""
    index = bisect.bisect_left(spans, (position, position)) - 1
    if index >= 0 and spans[index][0] < position < spans[index][1]:
        return spans[index]
    return None


def can_cut(pattern: str) -> bool:
    """Whether a text split with `pattern` can be cut into chunks (see `cut_points`)."""
    return pattern_name(pattern) in _CUTTABLE_PATTERNS


def checked_counts(corpus: Mapping[str, int]) -> dict[str, int]:
    """Word (or piece) counts as training takes them, or ValueError naming what is wrong."""
    if _plainly_valid(corpus):
        return dict(corpus)
    pieces: dict[str, int] = {}
    for word, count in corpus.items():
        if not isinstance(word, str) or not word:
            raise ValueError(f"Word-count corpus: every word must be a non-empty string, got {word!r}.")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"Word-count corpus: the count of {word!r} must be a positive integer, got {count!r}.")
        word = encodable(word)  # a lone surrogate has no UTF-8: U+FFFD, as in text
        pieces[word] = pieces.get(word, 0) + count
    return pieces


def _plainly_valid(corpus: Mapping[str, int]) -> bool:
    """Whether every word is a non-empty string with UTF-8 (no lone
    surrogate) and every count a positive int: the usual case, checked in
    bulk (counted pieces of a large corpus number millions)."""
    if not all(type(word) is str and word for word in corpus):
        return False
    if not all(type(count) is int and count > 0 for count in corpus.values()):
        return False
    try:
        "".join(corpus).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def corpus_size(pieces: Mapping[str, int]) -> tuple[int, int]:
    """(bytes, characters) that training sees: the pieces, each times its count.
    Text dropped by the split pattern and special tokens are not counted."""
    size_bytes = sum(len(piece.encode("utf-8")) * count for piece, count in pieces.items())
    size_chars = sum(len(piece) * count for piece, count in pieces.items())
    return size_bytes, size_chars


def corpus_fingerprint(corpus: str | Mapping[str, int]) -> str:
    """A digest of a corpus (a text, or word counts), for keying caches on
    the corpus without hashing or holding its text at every use."""
    import hashlib  # not at the top: OpenSSL takes 4 MB, which training from the command line never needs

    data = "text:" + corpus if isinstance(corpus, str) else "counts:" + json.dumps(corpus, sort_keys=True)
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()
