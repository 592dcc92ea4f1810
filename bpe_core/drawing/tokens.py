"""HTML for text coloured by token: pure functions, no Streamlit.

What the reader must be able to see:

- where every token starts and ends (alternating colours, and a hairline
  gap between tokens so that two neighbours of one colour stay apart);
- whitespace, which tokenizers care about a lot: a space is shown as "·",
  a tab as "→", a line break as "↵" followed by a real break;
- tokens that hold only part of a UTF-8 character (byte-level BPE splits
  "あ" = E3 81 82 into E3 81 + 82): their bytes, "<E3 81>", and in the
  tooltip the character they belong to, instead of a lone "�";
- special tokens, framed.

Every piece of user text is HTML-escaped here, in one place, so that typed
markup or script is shown as text and never interpreted.
"""

from __future__ import annotations

import html
from collections.abc import Collection, Sequence

from ..analysis.labels import byte_offsets, split_stray_bytes, visible_marker
from ..tokenizer import TokenSpan
from ..utf8 import encodable, text_of
from .palette import PALETTE, colour_for

TOKEN_CSS = """
<style>
.bpe-text { font-family: ui-monospace, "DejaVu Sans Mono", "Noto Sans Mono", monospace;
  font-size: var(--bpe-font-size, 1.05rem); line-height: 2.0; color: #111;
  white-space: pre-wrap; overflow-wrap: anywhere; }
.bpe-tok { border-radius: 3px; padding: 1px 0; margin-right: 1px;
  box-decoration-break: clone; -webkit-box-decoration-break: clone; }
.bpe-ws { color: #444; opacity: 0.75; }
.bpe-bytes { font-size: 0.8em; color: #222; border: 1px dotted #222; border-radius: 2px; padding: 0 1px; }
.bpe-special { outline: 2px dashed #222; font-weight: 700; }
.bpe-id { font-size: 0.85em; padding: 0 2px; }
.bpe-dropped { color: #888; text-decoration: line-through; }
.bpe-new { outline: 3px solid #111; outline-offset: -1px; font-weight: 700; }
.bpe-more { color: #555; font-style: italic; }
</style>
"""


def _visible_char(char: str) -> str:
    """One character of a token label, escaped, with whitespace made visible."""
    marker = visible_marker(char)
    if marker is None:
        return html.escape(char)
    return f'<span class="bpe-ws">{marker}</span>' + ("\n" if char == "\n" else "")


def label_html(token_bytes: bytes) -> str:
    """A token's visible text: its characters, and any bytes that are only
    part of a character as <E3 81>."""
    return "".join(
        f'<span class="bpe-bytes">&lt;{run}&gt;</span>' if stray else "".join(map(_visible_char, run))
        for run, stray in split_stray_bytes(token_bytes)
    )


def _characters_around(data: bytes, start: int, end: int) -> str:
    """The whole characters that the bytes start..end are part of."""
    while start > 0 and data[start] & 0xC0 == 0x80:
        start -= 1
    while end < len(data) and data[end] & 0xC0 == 0x80:
        end += 1
    return data[start:end].decode("utf-8", errors="replace")


def token_tooltip(index: int, token_id: int | None, token_bytes: bytes, context: str | None) -> str:
    """Hover text: position, id, bytes, text (and the character a partial
    token belongs to). Without an id it describes a pre-token piece."""
    size = f"{len(token_bytes)} byte{'s' * (len(token_bytes) != 1)}"
    lines = [f"token {index + 1} · id {token_id} · {size}" if token_id is not None else f"piece {index + 1} · {size}"]
    lines.append("bytes: " + " ".join(f"{byte:02X}" for byte in token_bytes[:24]) + (" …" if len(token_bytes) > 24 else ""))
    try:
        text = token_bytes.decode("utf-8")
        lines.append(f"text: {text!r}" if len(text) <= 60 else f"text: {text[:60]!r}…")
    except UnicodeDecodeError:
        if context:
            codes = ", ".join(f"'{c}' U+{ord(c):04X}" for c in context[:4])
            lines.append(f"part of {codes}")
    return "\n".join(lines)


def token_html(
    text: str,
    spans: Sequence[TokenSpan],
    *,
    special_ids: Collection[int] = (),
    show_ids: bool = False,
    colour_by: str = "position",
    font_size: str | None = None,
    pieces: bool = False,
    highlight_ids: Collection[int] = (),
    max_tokens: int | None = None,
) -> str:
    """`text` as a row of coloured tokens (spans from `encode_with_offsets`).

    `highlight_ids` are outlined (e.g. the token the current merge made);
    with `max_tokens`, the view stops there and says how many are left.
    With `pieces`, the spans are pre-token pieces and have no ids."""
    data = encodable(text).encode("utf-8")
    parts, position = [], 0
    shown = spans if max_tokens is None else spans[:max_tokens]
    for index, span in enumerate(shown):
        if span.start > position:  # text the split pattern dropped
            parts.append(f'<span class="bpe-dropped">{label_html(data[position:span.start])}</span>')
        token_bytes = data[span.start : span.end]
        partial = text_of(token_bytes) is None
        context = _characters_around(data, span.start, span.end) if partial else None
        label = f'<span class="bpe-id">{span.id}</span>' if show_ids else label_html(token_bytes)
        classes = "bpe-tok"
        if span.id in special_ids:
            classes += " bpe-special"
        if span.id in highlight_ids:
            classes += " bpe-new"
        parts.append(
            f'<span class="{classes}" style="background:{colour_for(index, span.id, colour_by)}" '
            f'title="{html.escape(token_tooltip(index, None if pieces else span.id, token_bytes, context))}">{label}</span>'
        )
        position = span.end
    if len(shown) < len(spans):
        parts.append(f'<span class="bpe-more"> … and {len(spans) - len(shown):,} more tokens</span>')
    elif position < len(data):
        parts.append(f'<span class="bpe-dropped">{label_html(data[position:])}</span>')
    style = f' style="--bpe-font-size:{html.escape(font_size)}"' if font_size else ""
    return f'{TOKEN_CSS}<div class="bpe-text"{style}>{"".join(parts)}</div>'


def pieces_html(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """`text` coloured by pre-token piece (character spans from `piece_spans`),
    to show what a split pattern does; unmatched text is struck through."""
    as_tokens = []
    offsets = byte_offsets(text)
    for index, (start, end) in enumerate(spans):
        as_tokens.append(TokenSpan(index, offsets[start], offsets[end]))
    return token_html(text, as_tokens, pieces=True)


CHIP_CSS = """
<style>
.bpe-chips { font-family: ui-monospace, "DejaVu Sans Mono", "Noto Sans Mono", monospace; color: #111; }
.bpe-chip { display: inline-block; border-radius: 4px; padding: 2px 6px; margin: 2px; white-space: pre; }
.bpe-chip small { color: #333; font-size: 0.7em; margin-left: 4px; }
.bpe-merge { font-size: var(--bpe-font-size, 1.6rem); line-height: 2.2; }
.bpe-merge .bpe-op { margin: 0 0.4em; color: #444; }
.bpe-vocab { line-height: 1.9; }
</style>
"""


def chip_html(token_bytes: bytes, token_id: int, colour: str) -> str:
    """One token as a labelled chip: its text (or bytes) and its id."""
    return (
        f'<span class="bpe-chip" style="background:{colour}" '
        f'title="{html.escape(token_tooltip(0, token_id, token_bytes, None))}">'
        f"{label_html(token_bytes)}<small>{token_id}</small></span>"
    )


def merge_html(
    left: tuple[int, bytes], right: tuple[int, bytes], new: tuple[int, bytes],
    font_size: str | None = None, colour_by: str = "role",
) -> str:
    """A merge as an equation of chips: left + right → new (each (id, bytes)).

    Coloured by role (left, right, result always look the same), or by id,
    to match token views that colour by id."""
    style = f' style="--bpe-font-size:{html.escape(font_size)}"' if font_size else ""
    role_colours = (PALETTE[0], PALETTE[1], PALETTE[5])
    chips = [
        chip_html(token, token_id, colour_for(0, token_id, "id") if colour_by == "id" else role_colour)
        for (token_id, token), role_colour in zip((left, right, new), role_colours)
    ]
    return (
        f'{CHIP_CSS}<div class="bpe-chips bpe-merge"{style}>{chips[0]}'
        f'<span class="bpe-op">+</span>{chips[1]}<span class="bpe-op">→</span>{chips[2]}</div>'
    )


def vocabulary_html(tokens: Sequence[tuple[int, bytes]], colour_by: str = "id") -> str:
    """Learned tokens as a wrap of chips, in the order given."""
    chips = "".join(chip_html(token, token_id, colour_for(i, token_id, colour_by)) for i, (token_id, token) in enumerate(tokens))
    return f'{CHIP_CSS}<div class="bpe-chips bpe-vocab">{chips}</div>'
