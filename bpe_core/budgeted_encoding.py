"""Encoding for a view, within a budget of text and of time.

A page encodes whatever is typed, pasted or linked, at every change, in the
server's one process. tiktoken's engine encodes 200,000 characters in a
tenth of a second; the readable engine (custom split patterns, character-
level tokenizers, replayed steps) is slower, and a custom regex may spend
its whole deadline on each stretch of text between two special tokens. So
a view encodes at most `MAX_VIEW_CHARS`, stretch by stretch (special tokens
are cut points no token crosses, so each stretch encodes as it would in the
whole), and stops starting new stretches when its time is up. What it
returns covers a prefix of the text, exactly as encoding all of it would,
and says what it left out; the command line has no such budget.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from .specials import SpecialChoice, resolve_specials, split_on_specials
from .tokenizer import Tokenizer, TokenSpan
from .utf8 import encodable

MAX_VIEW_CHARS = 200_000
VIEW_SECONDS = 3.0


@dataclass(frozen=True)
class ViewEncoding:
    text: str  # the part of the text the spans cover: all of it, or a prefix
    spans: Sequence[TokenSpan]
    left_out: str | None  # what was not encoded and why, or None


def encode_within_budget(
    tokenizer: Tokenizer,
    text: str,
    *,
    allowed_special: SpecialChoice = frozenset(),
    step: int | None = None,
    max_chars: int | None = None,
    seconds: float | None = None,
) -> ViewEncoding:
    """`tokenizer.encode_with_offsets(text)` (special-token text that is not
    allowed is plain text) for as much of `text` as the budget allows.
    A split pattern that fails raises PatternError, as encoding does."""
    max_chars = MAX_VIEW_CHARS if max_chars is None else max_chars
    seconds = VIEW_SECONDS if seconds is None else seconds
    deadline = time.monotonic() + seconds
    shown = text[:max_chars]
    allowed, _ = resolve_specials(tokenizer.special_tokens, allowed_special, ())
    stretches = _stretches(shown, allowed)
    if len(stretches) == 1:  # the common case: no special token to cut at
        spans = tokenizer.encode_with_offsets(shown, allowed_special=allowed, disallowed_special=(), step=step)
        too_long = f"a view encodes at most {max_chars:,} characters"
        return ViewEncoding(shown, spans, _left_out(text, len(shown), too_long))
    spans: list[TokenSpan] = []
    chars = offset = 0
    for stretch in stretches:
        if chars and time.monotonic() > deadline:  # the first stretch is shown whatever it costs
            break
        for span in tokenizer.encode_with_offsets(stretch, allowed_special=allowed, disallowed_special=(), step=step):
            spans.append(TokenSpan(span.id, span.start + offset, span.end + offset))
        chars += len(stretch)
        offset += len(encodable(stretch).encode("utf-8"))  # as encoding measures it
    why = (
        f"encoding the rest would take longer than the {seconds:g} s a view may take"
        if chars < len(shown)
        else f"a view encodes at most {max_chars:,} characters"
    )
    return ViewEncoding(shown[:chars], spans, _left_out(text, chars, why))


def _stretches(text: str, allowed: frozenset[str]) -> list[str]:
    """The text cut after each allowed special token (at least one stretch)."""
    stretches, current = [], ""
    for segment, is_special in split_on_specials(text, allowed):
        current += segment
        if is_special:
            stretches.append(current)
            current = ""
    return [*stretches, current] if current or not stretches else stretches


def _left_out(text: str, chars: int, why: str) -> str | None:
    if chars == len(text):
        return None
    return f"The tokens shown are those of the first {chars:,} of {len(text):,} characters: {why}."
