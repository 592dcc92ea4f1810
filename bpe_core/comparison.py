"""One text, several tokenizers: the Compare page's logic, pure and testable.

The page asks three questions of the same text encoded by several tokenizers:

- how many tokens does each need? (`summary_rows`, `token_count_figure`)
- where do they split the text differently? (`differing_stretches`,
  `stretch_table`)
- what does that look like? (`aligned_rows_html`: the tokenizations stacked
  line by line, so that boundaries line up vertically)

Results are token spans from `Tokenizer.encode_with_offsets`, keyed by the
tokenizer's name. Spans are UTF-8 *byte* offsets, because a byte-level token
may hold only part of a character ("あ" = E3 81 82 can become E3 81 + 82);
every function here copes with that instead of assuming whole characters.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby

import plotly.graph_objects as go

from .render import PALETTE, byte_offsets, colour_for, label_text, visible_marker
from .tokenizer import TokenSpan
from .utf8 import encodable

Results = Mapping[str, Sequence[TokenSpan]]

BEST_COLOUR = PALETTE[5]  # green in Paul Tol's "light" scheme
OTHER_COLOUR = PALETTE[0]  # blue

MAX_ALIGNED_CHARS = 4_000  # beyond this the aligned view shows a prefix


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


def token_count_figure(rows: Sequence[Mapping]) -> go.Figure:
    """Bars of tokens per tokenizer (rows from `summary_rows`); the fewest
    are green so the winner is visible at a glance, the rest blue."""
    fewest = min((row["tokens"] for row in rows), default=0)
    figure = go.Figure(
        go.Bar(
            x=[html.escape(row["tokenizer"]) for row in rows],  # plotly reads a little HTML in labels
            y=[row["tokens"] for row in rows],
            marker_color=[BEST_COLOUR if row["tokens"] == fewest else OTHER_COLOUR for row in rows],
            text=[f"{row['tokens']:,}" for row in rows],
            textposition="outside",
            cliponaxis=False,  # keep the number above the tallest bar visible
            hovertemplate="%{x}: %{y:,} tokens<extra></extra>",
        )
    )
    figure.update_layout(
        title="Tokens for this text (fewest in green)",
        xaxis_title="Tokenizer",
        yaxis_title="Tokens",
        font_size=14,
        title_font_size=16,
        showlegend=False,
        margin=dict(t=60, b=40, l=60, r=20),
        height=340,
    )
    return figure


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

ALIGNED_CSS = """
<style>
.cmp { font-family: ui-monospace, "DejaVu Sans Mono", "Noto Sans Mono", monospace;
  font-size: 0.95rem; color: #111; overflow-x: auto; }
.cmp-line { margin-bottom: 0.7rem; }
.cmp-row { display: flex; line-height: 1.7; white-space: pre; }
.cmp-row > span { flex: none; }
.cmp-row > span > span { display: inline-block; }
.cmp-name { width: 7rem; overflow: hidden; text-overflow: ellipsis; padding-right: 0.5rem;
  font-family: sans-serif; font-size: 0.75rem; color: #444; align-self: center; }
.cmp-start { box-shadow: inset 2px 0 0 #111; }
.cmp-ws { color: #444; opacity: 0.75; }
.cmp-dropped { color: #888; text-decoration: line-through; }
.cmp-note { color: #555; font-style: italic; font-family: sans-serif; }
</style>
"""


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


def aligned_rows_html(
    text: str, results: Results, *, line_width: int = 80, max_chars: int = MAX_ALIGNED_CHARS
) -> str:
    """The text once per tokenizer, interleaved line by line.

    Every row of a line shows the same characters in a monospace font, each
    on the colour of the token holding its first byte, with a dark bar at
    the left edge of every token (an inset shadow, which takes no width).
    So the rows stay character-aligned and the eye can run down a column to
    see who splits where. A character split across tokens gets stripes of
    their colours. Only the first `max_chars` characters are drawn, so a
    long text keeps the page responsive.
    """
    text = encodable(text)
    shown = text[:max_chars]
    first_bytes = byte_offsets(shown)
    data = text.encode("utf-8")
    owners = {name: _character_owners(spans, first_bytes) for name, spans in results.items()}
    lines = []
    for start, end in display_lines(shown, line_width):
        rows = (
            _row_html(name, shown[start:end], first_bytes[start:end], owners[name][start:end], spans, data)
            for name, spans in results.items()
        )
        lines.append(f'<div class="cmp-line">{"".join(rows)}</div>')
    note = ""
    if len(text) > len(shown):
        note = f'<p class="cmp-note">Showing the first {len(shown):,} of {len(text):,} characters.</p>'
    return f'{ALIGNED_CSS}<div class="cmp">{"".join(lines)}</div>{note}'


def _character_owners(spans: Sequence[TokenSpan], offsets: Sequence[int]) -> list[tuple[int, ...]]:
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


def _row_html(
    name: str,
    line: str,
    first_bytes: Sequence[int],
    owners: Sequence[tuple[int, ...]],
    spans: Sequence[TokenSpan],
    data: bytes,
) -> str:
    """One tokenizer's row of one line: its name, then runs of characters
    that belong to the same token."""
    runs = []
    cells = zip(line, first_bytes, owners)
    for owner, run in groupby(cells, key=lambda cell: cell[2]):
        run = list(run)
        starts_token = bool(owner) and spans[owner[0]].start == run[0][1]
        runs.append(_run_html("".join(char for char, _, _ in run), owner, starts_token, spans, data))
    label = html.escape(name)
    return f'<div class="cmp-row"><span class="cmp-name" title="{label}">{label}</span>{"".join(runs)}</div>'


def _run_html(
    chars: str, owner: tuple[int, ...], starts_token: bool, spans: Sequence[TokenSpan], data: bytes
) -> str:
    """Characters of one token on the token's colour, the token in the tooltip.
    A character split across tokens is always a run of its own: its
    neighbours cannot have the same tokens, since tokens are contiguous."""
    if not owner:
        title = "Not in any token: this tokenizer's split pattern skips this text."
        return f'<span class="cmp-dropped" title="{html.escape(title)}">{_visible_html(chars)}</span>'
    if len(owner) == 1:
        background = colour_for(owner[0], spans[owner[0]].id)
        title = _token_description(owner[0], spans[owner[0]], data)
    else:
        background = _stripes([colour_for(index, spans[index].id) for index in owner])
        title = f"“{chars}” (U+{ord(chars):04X}) is split across {len(owner)} tokens:\n" + "\n".join(
            _token_description(index, spans[index], data) for index in owner
        )
    boundary = ' class="cmp-start"' if starts_token else ""
    return (
        f'<span{boundary} style="background:{background}" title="{html.escape(title)}">'
        f"{_visible_html(chars)}</span>"
    )


def _token_description(index: int, span: TokenSpan, data: bytes) -> str:
    return f"token {index + 1} · id {span.id} · {label_text(data[span.start : span.end])}"


def _stripes(colours: Sequence[str]) -> str:
    """A background of equal vertical stripes, one per colour."""
    share = 100 / len(colours)
    stops = ", ".join(
        f"{colour} {index * share:.1f}% {(index + 1) * share:.1f}%" for index, colour in enumerate(colours)
    )
    return f"linear-gradient(90deg, {stops})"


def _visible_html(chars: str) -> str:
    """Escaped characters, each in a box of its own so that no row joins
    letters another row draws apart (Devanagari vowel signs, emoji sequences
    split between tokens): the rows would no longer line up. Whitespace and
    controls are dimmed so they read as markers, not text."""
    parts = []
    for char in chars:
        marker = visible_marker(char)
        parts.append(f"<span>{html.escape(char)}</span>" if marker is None else f'<span class="cmp-ws">{marker}</span>')
    return "".join(parts)
