"""The Compare page's drawings: bars of token counts, and the
tokenizations stacked line by line so that their boundaries line up.

Plain functions returning HTML; every piece of user text is escaped here.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from itertools import groupby

from ..analysis.comparison import Results, character_owners, display_lines
from ..analysis.labels import byte_offsets, label_text, visible_marker
from ..engine.tokenizer import TokenSpan
from ..engine.utf8 import encodable
from .bars import Bar, bars_html, bars_panel
from .palette import PALETTE, colour_for

BEST_COLOUR = PALETTE[5]  # green in Paul Tol's "light" scheme
OTHER_COLOUR = PALETTE[0]  # blue


MAX_ALIGNED_CHARS = 4_000  # beyond this the aligned view shows a prefix



def token_count_bars(rows: Sequence[Mapping]) -> str:
    """Bars of tokens per tokenizer (rows from `summary_rows`), as HTML; the
    fewest are green so the winner is visible at a glance, the rest blue."""
    fewest = min((row["tokens"] for row in rows), default=0)
    return bars_html(bars_panel("Tokens for this text (fewest in green)", [
        Bar(row["tokenizer"], row["tokens"], BEST_COLOUR if row["tokens"] == fewest else OTHER_COLOUR,
            f"{row['tokens']:,}", f"{row['tokenizer']}: {row['tokens']:,} tokens")
        for row in rows
    ]))


ALIGNED_CSS = """
<style>
.cmp { font-family: ui-monospace, "DejaVu Sans Mono", "Noto Sans Mono", monospace;
  font-size: 0.95rem; color: #111; overflow-x: auto; }
.cmp-line { margin-bottom: 0.7rem; }
.cmp-row { display: flex; line-height: 1.7; white-space: pre; }
.cmp-row > span { flex: none; }
.cmp-row > span > span:not(.cmp-ws) { display: inline-block; }
.cmp-name { width: 7rem; overflow: hidden; text-overflow: ellipsis; padding-right: 0.5rem;
  font-family: sans-serif; font-size: 0.75rem; color: #444; align-self: center; }
.cmp-start { box-shadow: inset 2px 0 0 #111; }
.cmp-ws { color: #444; opacity: 0.75; }
.cmp-dropped { color: #888; text-decoration: line-through; }
.cmp-note { color: #555; font-style: italic; font-family: sans-serif; }
</style>
"""


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
    owners = {name: character_owners(spans, first_bytes) for name, spans in results.items()}
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
    """Escaped characters. Any but printable ASCII is in a box of its own,
    so that no row joins letters another row draws apart (Devanagari vowel
    signs, emoji sequences split between tokens): the rows would no longer
    line up. Printable ASCII never joins, so it stays text, a box fewer per
    character for the browser to lay out. Whitespace and controls are dimmed
    so they read as markers, not text."""
    parts = []
    for kind, group in groupby(chars, key=_character_kind):
        group = "".join(group)
        if kind == "ascii":
            parts.append(html.escape(group))
        elif kind == "marker":
            parts.append(f'<span class="cmp-ws">{"".join(visible_marker(char) for char in group)}</span>')
        else:
            parts.extend(f"<span>{html.escape(char)}</span>" for char in group)
    return "".join(parts)


def _character_kind(char: str) -> str:
    if visible_marker(char) is not None:
        return "marker"
    return "ascii" if " " < char < "\x7f" else "boxed"


STRETCHES_CSS = """
<style>
.cmp-stretches { overflow: auto; border: 1px solid rgba(49, 51, 63, 0.1); border-radius: 0.5rem; }
.cmp-stretches table { border-collapse: collapse; width: 100%; font-size: 0.875rem; }
.cmp-stretches th, .cmp-stretches td { padding: 0.25rem 0.5rem; text-align: left; vertical-align: top;
  border-bottom: 1px solid rgba(49, 51, 63, 0.1); white-space: pre-wrap; overflow-wrap: anywhere; }
.cmp-stretches th { position: sticky; top: 0; background: #f8f9fb; color: #555; font-weight: 400;
  font-family: sans-serif; }
.cmp-stretches td { font-family: ui-monospace, "DejaVu Sans Mono", "Noto Sans Mono", monospace; }
.cmp-stretches tr:last-child td { border-bottom: none; }
</style>
"""


def stretches_html(rows: Sequence[Mapping[str, str]], *, max_height_rem: float | None = None) -> str:
    """The differing stretches (rows from `stretch_table`) as a plain table
    of text, every cell escaped: tokens are shown exactly as they are, never
    read as Markdown (a `*` or `\\` in a token stays one). One piece of HTML
    for the whole table: a table element would draw each of its cells as
    Markdown, a fifth of a second for 200 rows. With `max_height_rem`, the
    table scrolls under its header beyond that height."""
    columns = list(rows[0]) if rows else []
    head = "".join(f"<th>{html.escape(name)}</th>" for name in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(row[name])}</td>" for name in columns) + "</tr>" for row in rows
    )
    height = f' style="max-height:{max_height_rem}rem"' if max_height_rem else ""
    return (f'{STRETCHES_CSS}<div class="cmp-stretches"{height}><table><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>")

