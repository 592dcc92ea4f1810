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
import unicodedata
from collections.abc import Collection, Sequence

from .tokenizer import TokenSpan

# Paul Tol's "light" scheme: distinguishable with colour-blindness and made
# for black text on top. https://personal.sron.nl/~pault/#sec:qualitative
PALETTE = ["#77AADD", "#EE8866", "#EEDD88", "#FFAABB", "#99DDFF", "#44BB99", "#BBCC33", "#AAAA00", "#DDDDDD"]

WHITESPACE_MARKERS = {" ": "·", "\t": "→", "\r": "␍", "\n": "↵"}

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
</style>
"""


def colour_for(index: int, token_id: int, colour_by: str = "position") -> str:
    """The background of a token: by its position (neighbours always differ),
    or stably by its id (the same token has the same colour everywhere)."""
    if colour_by == "id":
        return PALETTE[(token_id * 2654435761) % 2**32 % len(PALETTE)]
    return PALETTE[index % len(PALETTE)]


def _visible_char(char: str) -> str:
    """One character of a token label, escaped, with whitespace made visible."""
    if char in WHITESPACE_MARKERS:
        marker = f'<span class="bpe-ws">{WHITESPACE_MARKERS[char]}</span>'
        return marker + "\n" if char == "\n" else marker
    category = unicodedata.category(char)
    if category == "Cc":  # control characters: their Unicode "control picture" or code
        code = ord(char)
        shown = chr(0x2400 + code) if code < 0x20 else ("␡" if code == 0x7F else f"U+{code:04X}")
        return f'<span class="bpe-ws">{shown}</span>'
    if category == "Zs":  # other spaces (no-break, thin, ideographic ...)
        return '<span class="bpe-ws">·</span>'
    return html.escape(char)


def label_html(token_bytes: bytes) -> str:
    """A token's visible text: its characters, and any bytes that are only
    part of a character as <E3 81>."""
    text = token_bytes.decode("utf-8", errors="surrogateescape")
    out, stray = [], []
    for char in text + "\0":  # sentinel flushes the last run of stray bytes
        if 0xDC80 <= ord(char) <= 0xDCFF:  # a byte that is not a whole character
            stray.append(f"{ord(char) - 0xDC00:02X}")
            continue
        if stray:
            out.append(f'<span class="bpe-bytes">&lt;{" ".join(stray)}&gt;</span>')
            stray = []
        out.append(_visible_char(char))
    return "".join(out[:-1])


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
) -> str:
    """`text` as a row of coloured tokens (spans from `encode_with_offsets`).

    With `pieces`, the spans are pre-token pieces and have no ids."""
    data = text.encode("utf-8")
    parts, position = [], 0
    for index, span in enumerate(spans):
        if span.start > position:  # text the split pattern dropped
            parts.append(f'<span class="bpe-dropped">{label_html(data[position:span.start])}</span>')
        token_bytes = data[span.start : span.end]
        partial = _is_partial(token_bytes)
        context = _characters_around(data, span.start, span.end) if partial else None
        label = f'<span class="bpe-id">{span.id}</span>' if show_ids else label_html(token_bytes)
        classes = "bpe-tok bpe-special" if span.id in special_ids else "bpe-tok"
        parts.append(
            f'<span class="{classes}" style="background:{colour_for(index, span.id, colour_by)}" '
            f'title="{html.escape(token_tooltip(index, None if pieces else span.id, token_bytes, context))}">{label}</span>'
        )
        position = span.end
    if position < len(data):
        parts.append(f'<span class="bpe-dropped">{label_html(data[position:])}</span>')
    style = f' style="--bpe-font-size:{html.escape(font_size)}"' if font_size else ""
    return f'{TOKEN_CSS}<div class="bpe-text"{style}>{"".join(parts)}</div>'


def _is_partial(token_bytes: bytes) -> bool:
    try:
        token_bytes.decode("utf-8")
        return False
    except UnicodeDecodeError:
        return True


def pieces_html(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """`text` coloured by pre-token piece (character spans from `piece_spans`),
    to show what a split pattern does; unmatched text is struck through."""
    as_tokens = []
    offsets = _byte_offsets(text)
    for index, (start, end) in enumerate(spans):
        as_tokens.append(TokenSpan(index, offsets[start], offsets[end]))
    return token_html(text, as_tokens, pieces=True)


def _byte_offsets(text: str) -> list[int]:
    """UTF-8 byte offset of every character position (and of the end)."""
    offsets, total = [0], 0
    for char in text:
        total += len(char.encode("utf-8"))
        offsets.append(total)
    return offsets
