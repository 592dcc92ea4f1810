"""Pre-tokenization: the regex that cuts text into pieces before BPE runs.

BPE never merges across a piece boundary, so the split pattern decides what a
token *can* be. With GPT-2's pattern " the" is one piece (and can become one
token) while "the." never can; with no pattern at all a token may swallow
spaces and punctuation ("e t", "ing.").

The presets are tiktoken's patterns, character for character, so that a
tokenizer trained here splits text exactly as the OpenAI encodings do. Like
tiktoken, text that the pattern does not match is dropped: the presets match
every character, a custom pattern may not (see `uncovered_spans`).
"""

from __future__ import annotations

import contextlib
import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import regex

# GPT-2 and GPT-3 (tiktoken's r50k_base); an equivalent, faster form of the
# pattern in the GPT-2 release.
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""

# GPT-3.5 and GPT-4 (cl100k_base): case-insensitive contractions, numbers in
# groups of at most three digits, a letter run may take one leading symbol.
CL100K_PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""

# GPT-4o (o200k_base): words split at case changes (camelCase), contractions
# attached to their word, combining marks kept with their letters.
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

# "No pre-tokenization", as in the tutorials: the whole text is one piece.
WHOLE_TEXT_PATTERN = r"""[\s\S]+"""

PRESETS = {
    "none": WHOLE_TEXT_PATTERN,
    "gpt2": GPT2_PATTERN,
    "cl100k": CL100K_PATTERN,
    "o200k": O200K_PATTERN,
}

# SuperBPE's second stage (Liu et al. 2025): the official code splits with
# SUPERWORD_CUTS through Hugging Face's Split(behavior="isolated"), which
# keeps the text between matches as pieces too (PythonNut/superbpe,
# scripts/extend_tokenizer.sh and utils.py). So only digit runs, runs of two
# or more symbols, and spaces before whitespace are cut off; everything
# else, spaces before words and line breaks included, stays together, and
# tokens may span words (" of the", ",\nAnd"). As a findall pattern: a cut,
# or a run of characters where no cut begins: letters, whitespace other than
# a space, a symbol not followed by another, a space before a non-space that
# does not start two symbols.
SUPERWORD_CUTS = r"""\p{N}{1,3}| ?[^\s\p{L}\p{N}]{2,}[\r\n/]*| +(?!\S)"""
SUPERWORD_PATTERN = SUPERWORD_CUTS + "|" + (
    r"""(?:\p{L}+|[^\S ]|[^\s\p{L}\p{N}](?![^\s\p{L}\p{N}])| (?=\S)(?![^\s\p{L}\p{N}]{2}))+"""
)

# Patterns that an algorithm here trains with (see `bpe_core.algorithms`):
# trusted like the presets, but never offered as a choice of split.
ALGORITHM_PATTERNS = {"superbpe": SUPERWORD_PATTERN}

# How the presets are named where people choose one.
PRESET_LABELS = {"none": "none (whole text)", "gpt2": "GPT-2", "cl100k": "GPT-4 (cl100k)", "o200k": "GPT-4o (o200k)"}

# The split patterns of other makers' models (Llama 3, Tekken), by model
# name. A pattern joins when its model loads (see `zoo`), read from the
# maker's own package, never copied here. Like the presets, such a pattern
# is trusted: its maker splits every text with it (through tiktoken), so
# this engine splits with it too without a deadline: in C where the C
# encoder implements it (`c_encoder.SPLIT_NAMES`: the zoo's models'), with
# `regex` otherwise. A model whose pattern is a preset's (Llama 4 uses
# o200k's) keeps the preset's name.
MODEL_PATTERNS: dict[str, str] = {}

# A custom pattern may backtrack catastrophically ("(a|aa)+$"), so it splits
# a text within a deadline, in CPU seconds (see `untrusted_split`); one that
# runs out is refused with a message instead of freezing the app.
CUSTOM_PATTERN_TIMEOUT_SECONDS = 2.0


class PatternError(ValueError):
    """A custom split pattern that cannot be used: it does not compile, can
    match the empty string, or takes too long on the text."""


def pattern_source(pattern: str) -> str:
    """The regex for a preset's (or an algorithm's) name, or the custom regex itself."""
    return PRESETS.get(pattern) or ALGORITHM_PATTERNS.get(pattern, pattern)


def pattern_name(pattern: str) -> str:
    """The preset name for `pattern` (a name or a preset's regex), the
    algorithm's or the model's name for theirs, else "custom"."""
    if pattern in PRESETS or pattern in ALGORITHM_PATTERNS:
        return pattern
    for name, source in [*PRESETS.items(), *ALGORITHM_PATTERNS.items(), *MODEL_PATTERNS.items()]:
        if pattern == source:
            return name
    return "custom"


def register_model_pattern(name: str, source: str) -> None:
    """Trust a model's split pattern, as read from its maker's package (see
    MODEL_PATTERNS). A pattern that a preset already names stays a preset."""
    if pattern_name(source) == "custom":
        MODEL_PATTERNS[name] = source


def check_pattern(pattern: str) -> None:
    """Refuse an unusable split pattern now, before any work, as
    `compile_pattern` would. A preset, a model's or an algorithm's pattern
    is known to be usable: it is compiled at its first use (see
    `trusted_regex`), not here."""
    if pattern_name(pattern) == "custom":
        compile_pattern(pattern)


@functools.cache
def trusted_regex(source: str) -> regex.Pattern:
    """`regex.compile` for the engine's own patterns, the module loaded on
    first use: training with a preset splits and counts in C (see
    `native_training`), and the command line that does it starts without
    `regex` (1.7 MB, its largest import)."""
    import regex

    return regex.compile(source)


def compile_pattern(pattern: str) -> regex.Pattern:
    """Compile a preset name or a custom regex, refusing unusable ones.

    A custom regex comes from a user, a link or a file, so it is compiled
    as untrusted (see `untrusted_regex`: bounded memory and time, and kept
    only in the sandbox's bounded cache), and so is the loop it splits
    texts with (see `untrusted_split`), here and now: a forked helper,
    which may start no process to try it in, finds it ready. One that
    matches the empty string is refused too: it would produce empty pieces
    (or, with `regex`, loop over every position), never what was meant.
    """
    source = pattern_source(pattern)
    if not source:
        raise PatternError("The split pattern is empty; choose a preset or type a regex.")
    if pattern_name(pattern) != "custom":
        return _compile_trusted(source)
    from ..sandbox.untrusted_regex import compile_untrusted  # see `_sandboxed`
    from ..sandbox.untrusted_split import looped

    try:
        compiled = compile_untrusted(source)
        looped(compiled)
    except ValueError as error:
        raise PatternError(f"The split pattern cannot be used: {error}.") from None
    if _matches_empty(source):
        raise PatternError(EMPTY_MATCHES)
    return compiled


EMPTY_MATCHES = (
    "The split pattern matches the empty string; use + instead of * so that every piece holds at least one character."
)


@functools.lru_cache(maxsize=64)
def _compile_trusted(source: str) -> regex.Pattern:
    """A preset's or a maker's pattern, compiled once for good."""
    compiled = trusted_regex(source)
    if compiled.match("") is not None or _finds_empty(compiled, timeout=None):
        raise PatternError(EMPTY_MATCHES)
    return compiled


@functools.lru_cache(maxsize=256)
def _matches_empty(source: str) -> bool:
    """Whether a custom pattern matches the empty string, judged once (kept
    by its text, not its compiled program)."""
    from ..sandbox.untrusted_regex import compile_untrusted  # see `_sandboxed`
    from ..sandbox.untrusted_split import within_own_time

    compiled = compile_untrusted(source)
    if compiled.match("") is not None:
        return True
    try:
        return within_own_time(functools.partial(_finds_empty, compiled), 1.0)
    except TimeoutError:  # a slow pattern is the probe's and the deadline's concern, not this check's
        return False


# Where a pattern that never matches "" alone may still match emptily: at a
# word boundary (\b), before a letter ((?=a)), at the end of a line ($).
_EMPTY_MATCH_SAMPLE = "a b, 1\n\té-"


def _finds_empty(compiled: regex.Pattern, timeout: float | None) -> bool:
    return any(match.start() == match.end() for match in compiled.finditer(_EMPTY_MATCH_SAMPLE, timeout=timeout))


# `_sandboxed`: only custom patterns import the sandbox (`untrusted_regex`,
# `untrusted_split`), which loads multiprocessing; the presets never need it,
# and the command line starts faster without (a megabyte, 15 ms).


@contextlib.contextmanager
def _deadline_as_pattern_error():
    try:
        yield
    except TimeoutError:
        raise PatternError(
            f"The split pattern took longer than {CUSTOM_PATTERN_TIMEOUT_SECONDS:g} s on this "
            "text (catastrophic backtracking?). Simplify it, e.g. avoid nested "
            "quantifiers such as (a+)+."
        ) from None
    except (MemoryError, RecursionError):
        raise PatternError(
            "The split pattern needs more memory than there is to match this text; simplify it."
        ) from None


def split_pieces(text: str, pattern: str) -> list[str]:
    """Cut `text` into pre-token pieces (the matches of `pattern`, in order)."""
    compiled = compile_pattern(pattern)
    if pattern_name(pattern) != "custom":  # trusted, and none matches the empty string
        return compiled.findall(text) if compiled.groups == 0 else [match[0] for match in compiled.finditer(text)]
    from ..sandbox.untrusted_split import split_within  # see `_sandboxed`

    with _deadline_as_pattern_error():
        return split_within(compiled, text, CUSTOM_PATTERN_TIMEOUT_SECONDS)


def piece_spans(text: str, pattern: str) -> list[tuple[int, int]]:
    """The (start, end) character span of every piece, in order."""
    compiled = compile_pattern(pattern)
    if pattern_name(pattern) != "custom":
        return [match.span() for match in compiled.finditer(text)]
    from ..sandbox.untrusted_split import spans_within  # see `_sandboxed`

    with _deadline_as_pattern_error():
        return spans_within(compiled, text, CUSTOM_PATTERN_TIMEOUT_SECONDS)


def uncovered_spans(text: str, pattern: str) -> list[tuple[int, int]]:
    """Character spans of text that no piece covers (and that encoding drops)."""
    gaps, position = [], 0
    for start, end in piece_spans(text, pattern):
        if start > position:
            gaps.append((position, start))
        position = end
    if position < len(text):
        gaps.append((position, len(text)))
    return gaps
