"""HTML for text coloured by token: pure functions, no Streamlit.

What the reader must be able to see, honestly:

- where every token starts and ends: neighbours differ in colour, a token
  never wraps inside itself, and lines break only where the text could;
- whitespace, which tokenizers care about a lot: a space is shown as "·",
  a tab as "→", a line break as "↵" followed by a real break;
- characters that tokens split: byte-level BPE may cut "あ" (E3 81 82) into
  E3 81 + 82, and any tokenizer may cut "👍🏽" or "é" (e + accent) between
  the code points drawn as one. Such a character is drawn once, as its
  glyph, over a bar of the tokens that share it; each token's bytes are on
  its card;
- right-to-left text in its reading order: each token is isolated (drawn
  as one unit), and runs of right-to-left tokens read right to left;
- what a token is: hovering, focusing (Tab into the view, then ← →) or
  clicking a token opens its card: id, bytes, rank or merge step, and the
  two tokens it was merged from;
- special tokens, framed.

Every piece of user text is HTML-escaped here, in one place, so that typed
markup or script is shown as text and never interpreted.
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass

import regex

from ..analysis.labels import byte_offsets, label_text, split_stray_bytes, visible_marker
from ..engine.tokenizer import TokenSpan
from ..engine.utf8 import encodable
from .palette import PALETTE, colour_class, colour_for

# A token's or a chip's colour is a class (bpe-c0 ... bpe-c8), one rule per
# palette colour in each stylesheet, not an inline style on each of the
# thousands of spans of a view: fewer bytes to send, and to parse and match.
COLOUR_CSS = "".join(f".{colour_class(colour)} {{ background: {colour}; }}\n" for colour in PALETTE)

# A token is positioned (the anchor of its card) only while its card shows:
# a positioned inline box is a paint layer of its own to the browser, and a
# view of thousands of them was thousands of layers to lay out and paint.
TOKEN_CSS = """
<style>
.bpe-text { font-family: ui-monospace, "DejaVu Sans Mono", "Noto Sans Mono", monospace;
  font-size: var(--bpe-font-size, 1.05rem); line-height: 2.1; color: #111; white-space: pre-wrap; }
.bpe-text:focus { outline: 2px solid #225588; outline-offset: 4px; }
.bpe-tok { white-space: pre; unicode-bidi: isolate; border-radius: 3px;
  padding: 1px 0; margin-right: 1px; box-decoration-break: clone; -webkit-box-decoration-break: clone;
  cursor: default; }
.bpe-tok:focus { outline: 2px solid #111; outline-offset: 1px; }
.bpe-rtl { unicode-bidi: isolate; }
.bpe-ws { color: #444; opacity: 0.75; }
.bpe-bytes { font-size: 0.8em; color: #222; border: 1px dotted #222; border-radius: 2px; padding: 0 1px; }
.bpe-special { outline: 2px dashed #222; font-weight: 700; }
.bpe-id { font-size: 0.85em; padding: 0 2px; }
.bpe-dropped { color: #888; text-decoration: line-through; white-space: pre; }
.bpe-new { outline: 3px solid #111; outline-offset: -1px; font-weight: 700; }
.bpe-more { color: #555; font-style: italic; }
.bpe-cluster { display: inline-flex; flex-direction: column; vertical-align: bottom; line-height: 1.5;
  border-radius: 3px; margin-right: 1px; unicode-bidi: isolate; }
.bpe-glyph { white-space: pre; text-align: center; padding: 0 2px; }
.bpe-parts { display: flex; gap: 1px; height: 0.45em; }
.bpe-part { flex: var(--bytes) 1 0; min-width: 4px; padding: 0; margin: 0; border: 1px solid #333;
  border-radius: 2px; }
.bpe-tok[data-card]:hover, .bpe-tok[data-card]:focus { position: relative; }
.bpe-tok[data-card]:hover::after, .bpe-tok[data-card]:focus::after { content: attr(data-card);
  position: absolute; left: 0; top: calc(100% + 4px); z-index: 1000; white-space: pre; direction: ltr;
  font: 0.8rem/1.45 system-ui, sans-serif; font-weight: 400; color: #111; background: #fff;
  border: 1px solid #333; border-radius: 4px; padding: 4px 8px; box-shadow: 0 2px 6px rgba(0, 0, 0, 0.25);
  pointer-events: none; }
""" + COLOUR_CSS + """</style>
"""

# In a token view, the arrow keys walk from token to token (each shows its
# card while it has the focus), and Home and End go to the first and last;
# Tab enters and leaves the view as one stop. The app runs this on every
# page, a saved page (`standalone`) runs it too.
TOKEN_KEYS_JS = """
if (!window.bpeTokenKeys) {
  window.bpeTokenKeys = true;
  document.addEventListener("keydown", (event) => {
    const view = event.target.closest && event.target.closest(".bpe-text");
    const moves = { ArrowRight: 1, ArrowLeft: -1, Home: -Infinity, End: Infinity };
    if (!view || !(event.key in moves)) return;
    const tokens = [...view.querySelectorAll(".bpe-tok")];
    if (!tokens.length) return;
    const at = event.target === view ? -1 : tokens.indexOf(event.target.closest(".bpe-tok"));
    const next = Math.min(Math.max(at + moves[event.key], 0), tokens.length - 1);
    event.preventDefault();
    tokens[next].focus();
  });
}
"""

# Scripts written without spaces: a line may break between any two of their
# tokens, as it may between their characters.
_UNSPACED_SCRIPTS = ("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "THAI", "LAO", "KHMER", "MYANMAR", "TIBETAN")
_LONGEST_UNBROKEN = 40  # characters of tokens without a break opportunity before one is allowed anyway


# ------------------------------------------------------------------ labels


def _visible_char(char: str) -> str:
    """One character of a token label, escaped, with whitespace made visible."""
    marker = visible_marker(char)
    if marker is None:
        return html.escape(char, quote=False)  # text, not an attribute: quotes need no escape
    return f'<span class="bpe-ws">{marker}</span>' + ("\n" if char == "\n" else "")


def label_html(token_bytes: bytes) -> str:
    """A token's visible text: its characters, and any bytes that are only
    part of a character as <E3 81> (for a token shown on its own, such as
    a chip; in running text such bytes are drawn as part of their glyph)."""
    return "".join(
        f'<span class="bpe-bytes">&lt;{run}&gt;</span>' if stray else "".join(map(_visible_char, run))
        for run, stray in split_stray_bytes(token_bytes)
    )


def _attribute(text: str) -> str:
    """`text` escaped for an attribute value in double quotes: & < > and "
    (an apostrophe is harmless there, and as &#x27; it took six bytes of
    many a card, which quotes the tokens a token was merged from)."""
    return html.escape(text, quote=False).replace('"', "&quot;")


def _hex(data: bytes, limit: int = 24) -> str:
    return " ".join(f"{byte:02X}" for byte in data[:limit]) + (" …" if len(data) > limit else "")


def card_text(heading: str, token_bytes: bytes, about: str | None, part_of: str | None = None) -> str:
    """A token's card, as lines of plain text: what it is, its bytes, and
    its text or the character it is part of. `about` comes from
    `analysis.token_cards` (rank or merge step, and parents)."""
    size = f"{len(token_bytes)} byte{'s' * (len(token_bytes) != 1)}"
    lines = [heading] + ([about] if about else []) + [f"bytes: {_hex(token_bytes)} ({size})"]
    if part_of is not None:
        lines.append(f"part of {part_of}")
    else:
        lines.append(f"text: {label_text(token_bytes[:120])}" + ("…" if len(token_bytes) > 120 else ""))
    return "\n".join(lines)


def _character_names(chars: str) -> str:
    return ", ".join(f"'{char}' U+{ord(char):04X}" for char in chars[:4]) + (" …" if len(chars) > 4 else "")


# ------------------------------------------------------------- structure


@dataclass(frozen=True)
class _Token:
    index: int  # position in the view (0 = first token)
    span: TokenSpan


@dataclass(frozen=True)
class _Unit:
    """What the view draws as one: a token, several tokens that share the
    bytes of a character (a cluster), or text the split pattern dropped."""

    start: int  # byte offsets in the text
    end: int
    tokens: tuple[_Token, ...]  # empty for dropped text

    @property
    def dropped(self) -> bool:
        return not self.tokens


def grapheme_ends(data: bytes, offset: int = 0) -> set[int]:
    """Byte offsets (counted from `offset`) where a user-perceived character
    (a grapheme cluster: "é" as e + accent, "👍🏽", "👩‍💻", a flag) ends."""
    ends = set()
    for match in regex.finditer(r"\X", data.decode("utf-8", errors="replace")):
        offset += len(match[0].encode("utf-8"))
        ends.add(offset)
    return ends


def _units(data: bytes, spans: Sequence[TokenSpan]) -> Iterator[_Unit]:
    """The tokens in order, with dropped text between them, and tokens that
    split a character (a byte sequence, or a cluster of code points drawn
    as one, such as "👍🏽") grouped with their neighbours until every unit
    holds whole characters."""
    if not spans:
        return
    ends = grapheme_ends(data[spans[0].start : spans[-1].end], spans[0].start)
    position, cluster = spans[0].start, []
    for index, span in enumerate(spans):
        if not cluster and span.start > position:
            yield _Unit(position, span.start, ())
        if span.start == span.end and not cluster:  # a token that covers no text (SentencePiece's dummy prefix)
            yield _Unit(span.start, span.end, (_Token(index, span),))
            continue
        cluster.append(_Token(index, span))
        if span.end in ends or span.end >= spans[-1].end:
            yield _Unit(cluster[0].span.start, span.end, tuple(cluster))
            cluster = []
        position = span.end
    if cluster:  # cut off inside a character (a view stopped early)
        yield _Unit(cluster[0].span.start, cluster[-1].span.end, tuple(cluster))


def _direction(text: str) -> str | None:
    """"rtl" or "ltr" from the first strongly directional character, or None."""
    for char in text:
        kind = unicodedata.bidirectional(char)
        if kind == "L":
            return "ltr"
        if kind in ("R", "AL"):
            return "rtl"
    return None


def _right_to_left(texts: Sequence[str]) -> list[bool]:
    """Which units read right to left. A unit without a direction of its own
    (spaces, digits, punctuation) takes that of its neighbours when both
    agree; a line break always ends a run."""
    line_break = "break"
    directions = [line_break if "\n" in text else _direction(text) for text in texts]
    before, last = [], None  # the nearest direction (or line break) before each unit ...
    for direction in directions:
        before.append(last)
        last = direction if direction is not None else last
    after, last = [], None  # ... and after it
    for direction in reversed(directions):
        after.append(last)
        last = direction if direction is not None else last
    after.reverse()
    return [
        direction == "rtl" or (direction is None and before[index] == after[index] == "rtl")
        for index, direction in enumerate(directions)
    ]


def _unspaced(char: str) -> bool:
    return unicodedata.name(char, "").startswith(_UNSPACED_SCRIPTS)


# ------------------------------------------------------------------ views


def token_html(
    text: str,
    spans: Sequence[TokenSpan],
    *,
    cards: Mapping[int, str] | None = None,
    special_ids: Collection[int] = (),
    show_ids: bool = False,
    colour_by: str = "position",
    font_size: str | None = None,
    pieces: bool = False,
    highlight_ids: Collection[int] = (),
    max_tokens: int | None = None,
    styled: bool = True,
) -> str:
    """`text` as a row of coloured tokens (spans from `encode_with_offsets`).

    `cards` says where each id comes from (see `analysis.token_cards`), for
    its card; `highlight_ids` are outlined (e.g. the token the current merge
    made); with `max_tokens`, the view stops there and says how many are
    left. With `pieces`, the spans are pre-token pieces and have no ids.
    Without `styled`, the view comes without its stylesheet (TOKEN_CSS):
    for a page that carries it once for all its views."""
    data = encodable(text).encode("utf-8")
    shown = spans if max_tokens is None or len(spans) <= max_tokens else spans[:max_tokens]
    view = _View(data, cards or {}, frozenset(special_ids), frozenset(highlight_ids), show_ids, colour_by, pieces)
    body = view.dropped(0, shown[0].start) if shown and shown[0].start else ""
    body += "".join(view.parts(list(_units(data, shown))))
    if len(shown) < len(spans):
        body += f'<span class="bpe-more"> … and {len(spans) - len(shown):,} more tokens</span>'
    elif shown and shown[-1].end < len(data):
        body += view.dropped(shown[-1].end, len(data))
    elif not shown and data:
        body += view.dropped(0, len(data))
    style = f' style="--bpe-font-size:{html.escape(font_size)}"' if font_size else ""
    return f'{TOKEN_CSS if styled else ""}<div class="bpe-text" tabindex="0"{style}>{body}</div>'


def token_markup(data: bytes, spans: Sequence[TokenSpan], *, special_ids: Collection[int] = ()) -> list[str]:
    """The tokens `spans` of the UTF-8 text `data` (and text dropped between
    them), coloured by id, unnumbered and without their cards: a stretch of
    a larger view put together elsewhere (see `drawing.training_view`),
    which gives each token its card by its `data-id` when it is shown.

    The markup comes in parts, one per unit drawn (a token, or the tokens
    sharing a character), which join into the stretch: a merge redraws one
    unit of a long stretch, so its versions can share the others."""
    view = _View(data, None, frozenset(special_ids), frozenset(), False, "id", False, numbered=False)
    return view.parts(list(_units(data, spans)))


def dropped_markup(dropped: bytes) -> str:
    """Text the split pattern drops (tiktoken drops it too): struck through."""
    return f'<span class="bpe-dropped">{label_html(dropped)}</span>'


def flow(texts: Sequence[str]) -> tuple[list[bool], list[bool]]:
    """For consecutive stretches of text drawn as units: which read right to
    left, and before which a line may break. `token_html` lays out its
    units this way; a view assembled from stretches elsewhere does too."""
    breaks, unbroken = [], 0
    for index, text in enumerate(texts):
        may_break = index > 0 and _may_break_between(texts[index - 1], text, unbroken)
        breaks.append(may_break)
        unbroken = len(text) if may_break else unbroken + len(text)
    return _right_to_left(texts), breaks


def _may_break_between(before: str, after: str, unbroken: int) -> bool:
    """Where the text itself could break a line: at whitespace, between
    characters of scripts written without spaces, after a hyphen or slash;
    and, so that a line can always end, after a long unbroken stretch."""
    if not before or not after:
        return True
    return (
        before[-1].isspace() or after[0].isspace() or _unspaced(before[-1]) or _unspaced(after[0])
        or before[-1] in "-/" or unbroken >= _LONGEST_UNBROKEN
    )


@dataclass(frozen=True)
class _View:
    """How one view draws its units (the settings of one `token_html` call)."""

    data: bytes
    cards: Mapping[int, str] | None  # None: cards are given elsewhere, by id
    special_ids: frozenset[int]
    highlight_ids: frozenset[int]
    show_ids: bool
    colour_by: str
    pieces: bool
    numbered: bool = True  # cards say "token 12"; stretches drawn for a larger view cannot know

    def parts(self, units: list[_Unit]) -> list[str]:
        """Units in order, one part each: right-to-left runs isolated, and a
        break opportunity wherever the text itself could break a line."""
        texts = [self.data[unit.start : unit.end].decode("utf-8", errors="replace") for unit in units]
        rtl, breaks = flow(texts)
        parts = []
        for index, (unit, text) in enumerate(zip(units, texts)):
            part = "<wbr>" if breaks[index] else ""
            if rtl[index] and (index == 0 or not rtl[index - 1]):
                part += '<span class="bpe-rtl" dir="rtl">'
            part += self.dropped(unit.start, unit.end) if unit.dropped else self.unit(unit, text)
            if rtl[index] and (index + 1 == len(units) or not rtl[index + 1]):
                part += "</span>"
            parts.append(part)
        return parts

    def dropped(self, start: int, end: int) -> str:
        return dropped_markup(self.data[start:end])

    def unit(self, unit: _Unit, text: str) -> str:
        if len(unit.tokens) == 1 or self.show_ids:
            return "".join(self.token(token, self.label(token)) for token in unit.tokens)
        return self.cluster(unit, text)

    def label(self, token: _Token) -> str:
        if self.show_ids:
            return f'<span class="bpe-id">{token.span.id}</span>'
        if token.span.start == token.span.end:  # covers no text: SentencePiece's "▁" before a text
            return '<span class="bpe-ws">▁</span>'
        return label_html(self.data[token.span.start : token.span.end])

    def colour(self, token: _Token) -> str:
        return colour_for(token.index, token.span.id, self.colour_by)

    def token(self, token: _Token, label: str, *, extra_class: str = "", style: str = "", part_of: str | None = None) -> str:
        span = token.span
        classes = "bpe-tok" + extra_class
        if span.id in self.special_ids:
            classes += " bpe-special"
        if span.id in self.highlight_ids:
            classes += " bpe-new"
        token_bytes = self.data[span.start : span.end]
        card = ""
        if self.pieces:
            card = card_text(f"piece {token.index + 1}", token_bytes, None, part_of)
        elif self.cards is not None or part_of is not None:
            number = f"token {token.index + 1} · " if self.numbered else ""
            about = self.cards.get(span.id) if self.cards is not None else None
            card = card_text(f"{number}id {span.id}", token_bytes, about, part_of)
        card_attribute = f' data-card="{_attribute(card)}"' if card else ""
        style_attribute = f' style="{style}"' if style else ""
        return (
            f'<span class="{classes} {colour_class(self.colour(token))}" tabindex="-1" data-id="{span.id}"'
            f"{style_attribute}{card_attribute}>{label}</span>"
        )

    def cluster(self, unit: _Unit, text: str) -> str:
        """Tokens that share a character's bytes: the glyph once, over a bar
        with one segment per token, as wide as its share of the bytes."""
        size = unit.end - unit.start
        stops, done = [], 0
        for token in unit.tokens:
            length = token.span.end - token.span.start
            colour = self.colour(token)
            stops.append(f"{colour} {100 * done / size:.1f}% {100 * (done + length) / size:.1f}%")
            done += length
        part_of = _character_names(text)
        segments = "".join(
            self.token(token, "", extra_class=" bpe-part", style=f"--bytes:{token.span.end - token.span.start}",
                       part_of=part_of)
            for token in unit.tokens
        )
        glyph = "".join(map(_visible_char, text))
        return (
            f'<span class="bpe-cluster" style="background:linear-gradient(90deg,{",".join(stops)})">'
            f'<span class="bpe-glyph">{glyph}</span><span class="bpe-parts">{segments}</span></span>'
        )


def pieces_html(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """`text` coloured by pre-token piece (character spans from `piece_spans`),
    to show what a split pattern does; unmatched text is struck through."""
    offsets = byte_offsets(text)
    as_tokens = [TokenSpan(index, offsets[start], offsets[end]) for index, (start, end) in enumerate(spans)]
    return token_html(text, as_tokens, pieces=True)


# ----------------------------------------------------------------- counts

COUNTS_CSS = """
<style>
.bpe-counts { display: flex; flex-wrap: wrap; gap: 0.5rem 2.5rem; margin-bottom: 0.75rem; color: #111;
  font-family: "Source Sans Pro", system-ui, sans-serif; }
.bpe-count small { display: block; font-size: 0.875rem; color: #31333f; }
.bpe-count b { font-size: 1.8rem; font-weight: 400; line-height: 1.3; }
.bpe-count[title] small { text-decoration: underline dotted; cursor: help; }
</style>
"""


def counts_html(text: str, token_count: int) -> str:
    """What a text costs, in one row: tokens, characters, UTF-8 bytes, words
    and bytes per token, each figure under its label (numbers only: no
    user text goes in)."""
    size = len(encodable(text).encode("utf-8"))
    figures = {
        "Tokens": f"{token_count:,}",
        "Characters": f"{len(text):,}",
        "Bytes (UTF-8)": f"{size:,}",
        "Words": f"{len(text.split()):,}",
        "Bytes per token": f"{size / token_count:.2f}" if token_count else "–",
    }
    return figures_html(figures)


def figures_html(figures: Mapping[str, str], notes: Mapping[str, str] | None = None) -> str:
    """Figures in one row, each under its label (label -> figure; `notes`:
    label -> what it means, shown on hover): one element for the browser to
    draw, where a row of st.metric is one per figure and a widget type to
    load. Labels, figures and notes are the page's own words, escaped here."""
    notes = notes or {}
    cells = "".join(
        f'<div class="bpe-count"{_title(notes.get(label))}><small>{html.escape(label)}</small>'
        f"<b>{html.escape(value)}</b></div>"
        for label, value in figures.items()
    )
    return f'{COUNTS_CSS}<div class="bpe-counts">{cells}</div>'


def _title(note: str | None) -> str:
    return f' title="{html.escape(note)}"' if note else ""


# ------------------------------------------------------------------ chips

CHIP_CSS = """
<style>
.bpe-chips { font-family: ui-monospace, "DejaVu Sans Mono", "Noto Sans Mono", monospace; color: #111; }
.bpe-chip { display: inline-block; border-radius: 4px; padding: 2px 6px; margin: 2px; white-space: pre; }
.bpe-chip small { color: #333; font-size: 0.7em; margin-left: 4px; }
.bpe-merge { font-size: var(--bpe-font-size, 1.6rem); line-height: 2.2; }
.bpe-merge .bpe-op { margin: 0 0.4em; color: #444; }
.bpe-vocab { line-height: 1.9; }
""" + COLOUR_CSS + """</style>
"""


def chip_html(token_bytes: bytes, token_id: int, colour: str) -> str:
    """One token as a labelled chip: its text (or bytes) and its id, on
    `colour` (one of PALETTE)."""
    card = _attribute(card_text(f"id {token_id}", token_bytes, None))
    return (
        f'<span class="bpe-chip {colour_class(colour)}" title="{card}">'
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
