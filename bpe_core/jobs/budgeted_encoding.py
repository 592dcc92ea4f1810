"""Encoding for a view, within a budget of text and of time.

A page encodes whatever is typed, pasted or linked, at every change, in the
server's one process. The C encoder encodes 200,000 characters in about a
hundredth of a second; the readable engine (custom split patterns, character-
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

from ..engine.encoding_base import EncodingBase
from ..engine.specials import SpecialChoice, split_on_specials
from ..engine.tokenizer import TokenSpan
from ..engine.utf8 import encodable

MAX_VIEW_CHARS = 200_000
VIEW_SECONDS = 3.0


@dataclass(frozen=True)
class ViewEncoding:
    text: str  # the part of the text the spans cover: all of it, or a prefix
    spans: Sequence[TokenSpan]
    left_out: str | None  # what was not encoded and why, or None


def encode_within_budget(
    tokenizer: EncodingBase,
    text: str,
    *,
    allowed_special: SpecialChoice = frozenset(),
    step: int | None = None,
    max_chars: int | None = None,
    seconds: float | None = None,
) -> ViewEncoding:
    """`tokenizer.encode_with_offsets(text)` (special-token text that is not
    allowed is plain text) for as much of `text` as the budget allows.
    A split pattern that fails raises PatternError, as encoding does.

    Special tokens are dealt with here, once: the text is cut at each one
    allowed, which becomes its own span, and the ordinary text between them
    is encoded as plain text."""
    max_chars = MAX_VIEW_CHARS if max_chars is None else max_chars
    seconds = VIEW_SECONDS if seconds is None else seconds
    deadline = time.monotonic() + seconds
    shown = text[:max_chars]
    allowed = tokenizer.allowed_specials(shown, allowed_special, disallowed_special=())
    segments = split_on_specials(shown, allowed)
    too_long = f"a view encodes at most {max_chars:,} characters"
    if len(segments) == 1 and not segments[0][1]:  # the common case: no special token to cut at
        spans = tokenizer.encode_with_offsets(shown, disallowed_special=(), step=step)
        return ViewEncoding(shown, spans, _left_out(text, len(shown), too_long))
    spans: list[TokenSpan] = []
    chars = offset = 0
    for segment, is_special in segments:
        if chars and not is_special and time.monotonic() > deadline:  # a special token costs nothing;
            break  # the first text is shown whatever it costs
        size = len(encodable(segment).encode("utf-8"))  # as encoding measures it
        if is_special:
            spans.append(TokenSpan(tokenizer.special_tokens[segment], offset, offset + size))
        else:
            for span in tokenizer.encode_with_offsets(segment, disallowed_special=(), step=step):
                spans.append(TokenSpan(span.id, span.start + offset, span.end + offset))
        chars += len(segment)
        offset += size
    out_of_time = f"encoding the rest would take longer than the {seconds:g} s a view may take"
    why = out_of_time if chars < len(shown) else too_long
    return ViewEncoding(shown[:chars], spans, _left_out(text, chars, why))


def _left_out(text: str, chars: int, why: str) -> str | None:
    if chars == len(text):
        return None
    return f"The tokens shown are those of the first {chars:,} of {len(text):,} characters: {why}."
