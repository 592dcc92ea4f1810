"""Special tokens: strings such as "<|endoftext|>" that map to reserved ids.

They are never produced by merges. Because a model treats them as control
signals, text that merely *contains* one is suspicious (prompt injection), so
tiktoken refuses it unless the caller says what to do; this module keeps the
same rules:

- `allowed_special`: these strings in the text become their special ids;
- `disallowed_special` ("all" = every special not allowed): finding one
  raises ValueError;
- anything else is encoded as ordinary text, byte by byte.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Iterable
from typing import Literal

SpecialChoice = Literal["all"] | Collection[str]

# Every special token becomes part of a regex that tiktoken compiles and
# every encoding runs; a thousand of a thousand characters each is past
# what its engine will build. Real tokenizers stay far below these (Llama
# 3's 256 special tokens are at most 28 characters long).
MAX_SPECIAL_TOKENS = 10_000
MAX_SPECIAL_TOKEN_CHARS = 256
MAX_SPECIAL_TEXT_CHARS = 100_000  # all of them together


def special_tokens_problem(specials: Collection[str]) -> str | None:
    """Why these special tokens are more than a tokenizer may have, or None."""
    longest = max(specials, key=len, default="")
    total = sum(map(len, specials))
    if len(specials) > MAX_SPECIAL_TOKENS:
        return f"there are {len(specials):,} special tokens; the limit is {MAX_SPECIAL_TOKENS:,}"
    if len(longest) > MAX_SPECIAL_TOKEN_CHARS:
        return f"a special token is {len(longest):,} characters long; the limit is {MAX_SPECIAL_TOKEN_CHARS:,}"
    if total > MAX_SPECIAL_TEXT_CHARS:
        return f"the special tokens hold {total:,} characters; the limit is {MAX_SPECIAL_TEXT_CHARS:,}"
    return None


@functools.lru_cache(maxsize=64)
def _alternation(specials: frozenset[str]) -> re.Pattern:
    # Longest first, so that a special that is a prefix of another never wins.
    # The standard library's `re`, not `regex`: these are plain strings, and
    # `regex` searches for a long literal in time quadratic in its length.
    ordered = sorted(specials, key=lambda special: (-len(special), special))
    return re.compile("|".join(re.escape(special) for special in ordered))


def split_on_specials(text: str, specials: Iterable[str]) -> list[tuple[str, bool]]:
    """Cut `text` at every occurrence of a special string.

    Returns (segment, is_special) in order; ordinary segments are never empty.
    """
    specials = frozenset(specials)
    if not specials:
        return [(text, False)] if text else []
    return cut_at_matches(text, _alternation(specials))


def cut_at_matches(text: str, pattern: re.Pattern) -> list[tuple[str, bool]]:
    """`text` cut at every match of `pattern`: (segment, is_match) in order,
    the segments between matches never empty."""
    segments, position = [], 0
    for match in pattern.finditer(text):
        if match.start() > position:
            segments.append((text[position : match.start()], False))
        segments.append((match[0], True))
        position = match.end()
    if position < len(text):
        segments.append((text[position:], False))
    return segments


def special_spans(text: str, specials: Iterable[str]) -> list[tuple[int, int]]:
    """Where `split_on_specials` finds a special string in `text`: (start, end) of each."""
    specials = frozenset(specials)
    return [match.span() for match in _alternation(specials).finditer(text)] if specials else []


def found_in(text: str, specials: Iterable[str]) -> list[str]:
    """The special-token strings that occur in `text`, sorted."""
    return sorted(special for special in set(specials) if special in text)


def resolve_specials(
    all_specials: Collection[str], allowed_special: SpecialChoice, disallowed_special: SpecialChoice
) -> tuple[frozenset[str], frozenset[str]]:
    """Turn tiktoken-style arguments into (allowed, disallowed) sets."""
    # Strings that are not special tokens of this tokenizer stay plain text (tiktoken does the same).
    allowed = frozenset(all_specials) if allowed_special == "all" else frozenset(allowed_special) & frozenset(all_specials)
    if disallowed_special == "all":
        disallowed = frozenset(all_specials) - allowed
    else:
        disallowed = frozenset(disallowed_special)
    return allowed, disallowed


def check_no_disallowed(text: str, disallowed: frozenset[str]) -> None:
    """Raise ValueError, worded as tiktoken words it, if `text` holds a disallowed special."""
    if not disallowed:
        return
    match = _alternation(disallowed).search(text)
    if match:
        token = match[0]
        raise ValueError(
            f"Encountered text corresponding to disallowed special token {token!r}.\n"
            "If you want this text to be encoded as a special token, "
            f"pass it to `allowed_special`, e.g. `allowed_special={{{token!r}, ...}}`.\n"
            "If you want this text to be encoded as normal text, disable the check for this token "
            f"by passing `disallowed_special=(enc.special_tokens_set - {{{token!r}}})`.\n"
            "To disable this check for all special tokens, pass `disallowed_special=()`.\n"
        )
