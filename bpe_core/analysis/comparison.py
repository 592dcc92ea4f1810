"""One text, several tokenizers: what the Compare page computes.

The page asks three questions of the same text encoded by several tokenizers:

- how many tokens does each need? (`summary_rows`)
- where do they split the text differently? (`differing_stretches`,
  `stretch_table`)
- which token holds each character? (`character_owners`, for the view that
  stacks the tokenizations line by line, see `drawing.comparison`)

Results are token spans from `Tokenizer.encode_with_offsets`, keyed by the
tokenizer's name. Spans are UTF-8 *byte* offsets, because a byte-level token
may hold only part of a character ("あ" = E3 81 82 can become E3 81 + 82);
every function here copes with that instead of assuming whole characters.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..engine.tokenizer import TokenSpan
from ..engine.utf8 import encodable
from .labels import label_text, visible_marker

Results = Mapping[str, Sequence[TokenSpan]]


# ------------------------------------------------------------------ summary


def summary_rows(text: str, results: Results) -> list[dict[str, str | int | float | None]]:
    """One row per tokenizer, in the given order, keyed by the table's column names.

    "vs best" is tokens / fewest tokens, so the best tokenizer reads 1.00 and
    one that needs half as many tokens again reads 1.50. Ratios are None
    when there is nothing to divide by (no tokens at all).
    """
    text = encodable(text)
    n_bytes, n_chars = len(text.encode("utf-8")), len(text)
    fewest = min((len(spans) for spans in results.values()), default=0)
    return [
        {
            "tokenizer": name,
            "tokens": len(spans),
            "bytes/token": _ratio(n_bytes, len(spans)),
            "chars/token": _ratio(n_chars, len(spans)),
            "vs best": _ratio(len(spans), fewest),
        }
        for name, spans in results.items()
    ]


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


# --------------------------------------------------- where the splits differ


@dataclass(frozen=True)
class Stretch:
    """A stretch of text that the tokenizers split differently.

    `start`/`end` are byte offsets; `text` is for display only (bytes of a
    character cut at the stretch's edge become U+FFFD); `tokens` holds each
    tokenizer's tokens inside the stretch, as bytes.
    """

    start: int
    end: int
    text: str
    tokens: dict[str, list[bytes]]


def differing_stretches(text: str, results: Results) -> list[Stretch]:
    """The stretches where the tokenizers disagree, in text order.

    An *agreement point* is a byte offset where every tokenizer has a token
    boundary (the start and the end of the text always are). No token
    crosses an agreement point, so the text falls into stretches between
    consecutive ones; a stretch agrees when all tokenizers cover it with the
    same spans (then, one token each), and differs otherwise. This is the
    coarsest way to cut the text so that each difference stands alone.
    """
    data = encodable(text).encode("utf-8")
    points = _agreement_points(len(data), results.values())
    grouped = {name: _spans_per_stretch(spans, points) for name, spans in results.items()}
    stretches = []
    for index, (start, end) in enumerate(zip(points, points[1:])):
        inside = {name: groups[index] for name, groups in grouped.items()}
        if len({tuple((span.start, span.end) for span in spans) for spans in inside.values()}) > 1:
            tokens = {name: [data[span.start : span.end] for span in spans] for name, spans in inside.items()}
            stretches.append(Stretch(start, end, data[start:end].decode("utf-8", errors="replace"), tokens))
    return stretches


def _agreement_points(n_bytes: int, tokenizations: Sequence[Sequence[TokenSpan]]) -> list[int]:
    boundary_sets = [{offset for span in spans for offset in (span.start, span.end)} for spans in tokenizations]
    common = set.intersection(*boundary_sets) if boundary_sets else set()
    return sorted(common | {0, n_bytes})


def _spans_per_stretch(spans: Sequence[TokenSpan], points: Sequence[int]) -> list[list[TokenSpan]]:
    """The spans inside each stretch between consecutive points; spans come
    in text order and none crosses a point, so one pass suffices."""
    groups, index = [], 0
    for end in points[1:]:
        group = []
        while index < len(spans) and spans[index].end <= end:
            group.append(spans[index])
            index += 1
        groups.append(group)
    return groups


def stretch_table(stretches: Sequence[Stretch]) -> list[dict[str, str]]:
    """Rows for a plain-text table: the stretch, then each tokenizer's tokens
    joined by " | ", with whitespace and partial characters made visible."""
    return [
        {"stretch": shown_text(stretch.text)}
        | {name: " | ".join(label_text(token) for token in tokens) for name, tokens in stretch.tokens.items()}
        for stretch in stretches
    ]


# -------------------------------------------------------- visible characters


def shown_text(text: str) -> str:
    """`text` with every invisible character replaced by its one-character marker."""
    return "".join(visible_marker(char) or char for char in text)


# ------------------------------------------------------------ aligned rows


def display_lines(text: str, width: int) -> list[tuple[int, int]]:
    """(start, end) character ranges of the lines to draw: a line ends after
    each "\\n" and after `width` characters."""
    if width < 1:
        raise ValueError(f"A display line must be at least 1 character wide, not {width!r}.")
    ranges, start = [], 0
    for position, char in enumerate(text, start=1):
        if char == "\n" or position - start == width:
            ranges.append((start, position))
            start = position
    if start < len(text):
        ranges.append((start, len(text)))
    return ranges


def character_owners(spans: Sequence[TokenSpan], offsets: Sequence[int]) -> list[tuple[int, ...]]:
    """For each character (byte offsets `offsets`), the indices of the tokens
    holding its bytes, in order: one token usually, several for a character
    split across tokens, none for text the split pattern skips."""
    n_bytes = offsets[-1]
    owner_of_byte = [-1] * n_bytes
    for index, span in enumerate(spans):
        if span.start >= n_bytes:
            break
        end = min(span.end, n_bytes)
        owner_of_byte[span.start : end] = [index] * (end - span.start)
    return [
        tuple(dict.fromkeys(owner for owner in owner_of_byte[start:end] if owner >= 0))
        for start, end in zip(offsets, offsets[1:])
    ]
