"""`train`: learn a BPE tokenizer from a corpus.

    >>> tok = train("aaabdaaabac", num_merges=3, pattern="none")
    >>> [(step.pair, step.new_id) for step in tok.trace]
    [((97, 97), 256), ((256, 97), 257), ((257, 98), 258)]
    >>> tok.encode("aaabdaaabac")
    [258, 100, 258, 97, 99]
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator, Mapping, Sequence

from . import native_training
from .corpus import count_pieces
from .merge_learning import MergeStep, Progress, learn_merges
from .patterns import PatternError, pattern_name
from .specials import special_tokens_problem
from .tokenizer import UNKNOWN_CHARACTER, Tokenizer, Units
from .utf8 import encodable

# Far above any real tokenizer (o200k has 200k tokens); a guard against typos.
MAX_VOCAB_SIZE = 1_000_000


def train(
    corpus: str | Mapping[str, int],
    *,
    vocab_size: int | None = None,
    num_merges: int | None = None,
    pattern: str = "cl100k",
    special_tokens: Sequence[str] = (),
    units: Units = "bytes",
    min_count: int = 1,
    progress: Progress | None = None,
    deadline: float | None = None,
) -> Tokenizer:
    """Learn BPE merges from `corpus` and return the tokenizer.

    corpus: a text, or word counts such as {"low": 5, "lower": 2}.
    vocab_size / num_merges: give exactly one. With bytes, vocab_size is
        256 + merges; with chars, the alphabet size + merges. Special tokens
        come on top, with ids after the merges.
    pattern: "none" (one piece), "gpt2", "cl100k", "o200k", or a regex.
    units: "bytes" (byte-level BPE, as GPT models use) or "chars" (the
        textbook variant; characters unseen in training become an unknown
        token).
    min_count: stop once the best pair occurs fewer times than this.
    progress: called as progress(merges_done, merges_requested).
    deadline: a `time.monotonic()` reading; training stops there, keeping
        the merges learned so far (`stop_reason` says so).

    Training stops early when no pair is left; `stop_reason` says why.
    """
    if (vocab_size is None) == (num_merges is None):
        raise ValueError("Give exactly one of vocab_size and num_merges.")
    if units not in ("bytes", "chars"):
        raise ValueError(f'units must be "bytes" or "chars", not {units!r}.')
    if isinstance(min_count, bool) or not isinstance(min_count, int) or min_count < 1:
        raise ValueError(f"min_count must be a positive integer, not {min_count!r}.")
    special_tokens = checked_specials(special_tokens)
    with collector_paused():
        pieces = counted_pieces(corpus, pattern, special_tokens)
        base_tokens, piece_units = training_units(pieces, units)
        num_merges = merge_budget(vocab_size, num_merges, len(base_tokens), units)
        learned = native_training.learn_merges(pieces, units, base_tokens, num_merges, min_count, progress, deadline)
        if learned is None:  # the C version is not built, or cannot be exact here: the same merges in Python
            learned = learn_merges(piece_units, base_tokens, num_merges, min_count, progress, deadline)
        trace, stop_reason = learned
        vocab, special_ids, unknown_id = finished_vocabulary(base_tokens, trace, units, special_tokens)
        return Tokenizer(
            name=f"trained ({pattern_name(pattern)}, {len(trace)} merges)",
            pattern=pattern,
            vocab=vocab,
            units=units,
            special_tokens=special_ids,
            merges=[(step.pair, step.new_id) for step in trace],
            trace=trace,
            stop_reason=stop_reason,
            unknown_id=unknown_id,
        )


# The steps of `train` that every algorithm trained on this engine shares
# (see `bpe_core.algorithms`): count the pieces, number their units, and
# make the vocabulary of what was learned.


def counted_pieces(corpus: str | Mapping[str, int], pattern: str, special_tokens: tuple[str, ...] = ()) -> dict[str, int]:
    """The corpus's pieces with their counts (see `corpus.count_pieces`), or
    ValueError when there is nothing to learn from."""
    if isinstance(corpus, str):
        corpus = encodable(corpus)
    pieces = count_pieces(corpus, pattern, special_tokens)
    if not pieces:
        if corpus and pattern_name(pattern) == "custom":
            raise PatternError("The split pattern matches none of the corpus: there is no text to learn merges from.")
        raise ValueError("The corpus is empty: there is no text to learn merges from.")
    return pieces


def training_units(pieces: Mapping[str, int], units: Units) -> tuple[list[bytes | str], Iterator[tuple[Sequence[int], int]]]:
    """The base tokens (the 256 bytes, or the corpus's characters in order of
    first appearance), and each piece as base-token ids with its count."""
    if units not in ("bytes", "chars"):
        raise ValueError(f'units must be "bytes" or "chars", not {units!r}.')
    if units == "bytes":
        return [bytes([byte]) for byte in range(256)], ((piece.encode("utf-8"), count) for piece, count in pieces.items())
    base_tokens: list[bytes | str] = list(dict.fromkeys(char for piece in pieces for char in piece))
    char_ids = {char: index for index, char in enumerate(base_tokens)}
    return base_tokens, (([char_ids[char] for char in piece], count) for piece, count in pieces.items())


def finished_vocabulary(base_tokens: Sequence[bytes | str], trace: Sequence[MergeStep], units: Units,
                        special_tokens: Sequence[str]) -> tuple[dict[int, bytes | str], dict[str, int], int | None]:
    """The vocabulary (id -> token) of the base tokens and the merges, the
    special tokens' ids after them, and the unknown character's id (chars only)."""
    vocab = dict(enumerate(base_tokens))
    vocab.update((step.new_id, step.token) for step in trace)
    next_id = max(vocab) + 1
    unknown_id = None
    if units == "chars":
        unknown_id, next_id = next_id, next_id + 1
        vocab[unknown_id] = UNKNOWN_CHARACTER
    return vocab, {special: next_id + index for index, special in enumerate(special_tokens)}, unknown_id


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cycle collector while training.

    Training allocates hundreds of thousands of small tuples and lists but
    never a reference cycle, so the collector finds nothing; left on, it
    keeps re-scanning the growing pair tables, which costs about a tenth of
    the training time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def merge_budget(vocab_size: int | None, num_merges: int | None, base_size: int, units: str) -> int:
    if num_merges is not None:
        if isinstance(num_merges, bool) or not isinstance(num_merges, int) or num_merges < 0:
            raise ValueError(f"num_merges must be a non-negative integer, not {num_merges!r}.")
        if num_merges > MAX_VOCAB_SIZE:
            raise ValueError(f"num_merges must be at most {MAX_VOCAB_SIZE:,}.")
        return num_merges
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise ValueError(f"vocab_size must be an integer, not {vocab_size!r}.")
    if vocab_size < base_size:
        what = "the 256 byte tokens" if units == "bytes" else f"the corpus's {base_size} distinct characters"
        raise ValueError(f"vocab_size must be at least {base_size} ({what}); got {vocab_size}.")
    if vocab_size > MAX_VOCAB_SIZE:
        raise ValueError(f"vocab_size must be at most {MAX_VOCAB_SIZE:,}; got {vocab_size:,}.")
    return vocab_size - base_size


def checked_specials(special_tokens: Sequence[str]) -> tuple[str, ...]:
    if isinstance(special_tokens, str):
        raise ValueError("special_tokens must be a list of strings, not one string.")
    specials = tuple(special_tokens)
    for special in specials:
        if not isinstance(special, str) or not special:
            raise ValueError(f"Every special token must be a non-empty string, not {special!r}.")
    if len(set(specials)) != len(specials):
        raise ValueError("The special tokens contain a duplicate.")
    if special_tokens_problem(specials):
        raise ValueError(f"Unusable special tokens: {special_tokens_problem(specials)}.")
    return specials
