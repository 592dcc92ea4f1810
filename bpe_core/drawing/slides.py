"""Slide export: the coloured token view as a standalone SVG or PNG.

A talk needs the picture without the app: a file that opens anywhere, draws
the same tokens in the same colours, and needs no browser and no network.
One function lays the tokens out as boxes (`layout_tokens`); two renderers
draw those boxes, as SVG text or as a Pillow image, so both always agree.

The boxes show what the HTML view shows (see `drawing.tokens`): a space as "·", a
line break as "↵" and then a new row, bytes that are only part of a
character as <E3 81>, special tokens framed. Text that the split pattern
dropped belongs to no token and is not drawn: the tokens on either side
of it are a space apart.

Widths are estimated, not measured, so that the layout needs no fonts: a
monospace cell per character, two for a wide one (CJK, emoji). The PNG is
drawn with a monospace font and, for characters it lacks, the first system
font that has them, so every script of the bundled corpus shows its real
letters rather than empty boxes. Tables need no code here: pandas'
`DataFrame.to_csv` writes them.
"""

from __future__ import annotations

import functools
import io
import math
import unicodedata
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import regex
from PIL import Image, ImageDraw, ImageFont, features

from ..analysis.labels import label_text, visible_marker
from ..engine.tokenizer import TokenSpan
from ..engine.utf8 import encodable
from .palette import colour_for

BACKGROUND = "#FFFFFF"
TEXT_COLOUR = "#111111"
NOTE_COLOUR = "#555555"
SPECIAL_OUTLINE = "#222222"
HIGHLIGHT_OUTLINE = "#111111"
SVG_FONT_FAMILY = "'DejaVu Sans Mono', 'Noto Sans Mono', 'Noto Sans CJK JP', 'Noto Color Emoji', monospace"

# DejaVu Sans Mono advances 0.602 em per character; a little more keeps a
# label inside its box when a fallback font is slightly wider.
CELL_EM = 0.61
LINE_BREAKS = "\n\u2028\u2029"  # characters after which a slide starts a new row

# A grapheme cluster drawn as a colour emoji: 👍, ❤️ (a text symbol with
# the emoji selector), 🇯🇵 (a pair of regional indicators).
_EMOJI = regex.compile(r"\p{Emoji_Presentation}|\uFE0F|\p{Regional_Indicator}")
_GRAPHEME_CLUSTER = regex.compile(r"\X")
# Characters XML 1.0 cannot hold even escaped; a title could contain them.
_NOT_XML = regex.compile(r"[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\U00010000-\U0010FFFF]")


@dataclass(frozen=True)
class Box:
    """One token: a rounded rectangle with its label centred in it."""

    x: int
    y: int
    width: int
    height: int
    label: str
    colour: str
    special: bool
    highlighted: bool = False  # outlined, as the app outlines the token a merge just made


@dataclass(frozen=True)
class Caption:
    """A line of text outside the boxes: the title, or a note."""

    x: int
    y: int
    width: int  # the most it may take
    height: int
    text: str
    colour: str


@dataclass(frozen=True)
class SlideLayout:
    """Everything a renderer needs, in pixels."""

    width: int
    height: int
    font_size: int
    padding: int  # inside a box, left and right of its label
    radius: int  # of a box's corners
    boxes: tuple[Box, ...]
    captions: tuple[Caption, ...]


# ------------------------------------------------------------------ layout


def layout_tokens(
    text: str,
    spans: Sequence[TokenSpan],
    *,
    special_ids: Collection[int] = (),
    highlight_ids: Collection[int] = (),
    show_ids: bool = False,
    colour_by: str = "position",
    width: int = 1200,
    font_size: int = 28,
    title: str | None = None,
    max_tokens: int | None = 2_000,
    max_rows: int = 200,
) -> SlideLayout:
    """Place the tokens (spans from `encode_with_offsets`) as boxes in rows
    of at most `width` pixels, like words on a page.

    A token whose label is too wide for a whole row is shortened with "…".
    With `show_ids`, boxes show ids instead of text; `highlight_ids` are outlined. `max_tokens` and
    `max_rows` keep an image of a whole book (or of a text that is mostly
    line breaks) from exhausting memory; the slide then ends with "… and N
    more tokens".
    """
    metrics = _Metrics(font_size)
    max_cells = metrics.cells_that_fit(width)
    if max_cells < 4:
        raise ValueError(f"A slide {width} pixels wide has no room for text of size {font_size}.")
    data = encodable(text).encode("utf-8")  # the text the spans were measured on
    shown = spans if max_tokens is None else spans[:max_tokens]

    captions, boxes = [], []
    x = y = metrics.margin
    line_width = width - 2 * metrics.margin
    if title:
        title = _shortened(_drawable(title), max_cells)
        captions.append(Caption(x, y, line_width, metrics.box_height, title, TEXT_COLOUR))
        y += metrics.row_pitch
    last_row = metrics.margin + max_rows * metrics.row_pitch
    for index, span in enumerate(shown):
        token_bytes = data[span.start : span.end]
        label = _shortened(str(span.id) if show_ids else label_text(token_bytes), max_cells)
        box_width = metrics.box_width(_cells(label))
        if index and span.start > shown[index - 1].end and x > metrics.margin:
            x += round(metrics.cell)  # text dropped in between (or a word list's counts): a space, not touching boxes
        if x + box_width > width - metrics.margin:
            x, y = metrics.margin, y + metrics.row_pitch
        if y >= last_row:
            shown = shown[:index]
            break
        colour = colour_for(index, span.id, colour_by)
        boxes.append(Box(x, y, box_width, metrics.box_height, label, colour, span.id in special_ids,
                         span.id in highlight_ids))
        x += box_width + metrics.gap
        line_breaks = sum(char in LINE_BREAKS for char in token_bytes.decode("utf-8", errors="replace"))
        if line_breaks:  # a new row; a run of blank lines shows as one empty row
            x, y = metrics.margin, y + min(line_breaks, 2) * metrics.row_pitch

    note = _closing_note(len(spans), len(shown))
    if note:
        if x > metrics.margin:  # the last row has boxes: the note goes below
            y += metrics.row_pitch
        captions.append(Caption(metrics.margin, y, line_width, metrics.box_height, note, NOTE_COLOUR))
    bottom = max(item.y + item.height for item in [*boxes, *captions])  # a note when there are no boxes
    return SlideLayout(
        width=width,
        height=bottom + metrics.margin,
        font_size=font_size,
        padding=metrics.padding,
        radius=metrics.radius,
        boxes=tuple(boxes),
        captions=tuple(captions),
    )


class _Metrics:
    """Sizes that follow from the font size, in whole pixels."""

    def __init__(self, font_size: int):
        self.cell = CELL_EM * font_size
        self.margin = round(0.6 * font_size)
        self.padding = max(2, round(0.25 * font_size))
        self.gap = max(2, round(0.15 * font_size))
        self.radius = max(2, round(0.2 * font_size))
        self.box_height = round(1.5 * font_size)
        self.row_pitch = self.box_height + round(0.35 * font_size)

    def box_width(self, cells: int) -> int:
        return math.ceil(cells * self.cell + 2 * self.padding)

    def cells_that_fit(self, width: int) -> int:
        """The most cells a box can hold and still fit between the margins."""
        return math.floor((width - 2 * self.margin - 2 * self.padding) / self.cell)


def _drawable(title: str) -> str:
    """A title as typed, but with control characters and line separators
    shown as their symbols, as in token labels (they have no glyph, and
    break text layout), and lone surrogates as U+FFFD (they are no text)."""
    return "".join(
        visible_marker(char) if unicodedata.category(char) in ("Cc", "Zl", "Zp") else char
        for char in encodable(title)
    )


def _closing_note(total: int, shown: int) -> str | None:
    if total == 0:
        return "(no tokens)"
    if shown < total:
        return f"… and {total - shown:,} more tokens"
    return None


def _clusters(label: str) -> list[str]:
    """The label's user-perceived characters: "e" + accent, or 👩‍💻, is one."""
    return _GRAPHEME_CLUSTER.findall(label)


def _is_emoji(cluster: str) -> bool:
    return _EMOJI.search(cluster) is not None


def _cluster_cells(cluster: str) -> int:
    """Monospace cells a character takes: two for CJK and emoji, else one."""
    if _is_emoji(cluster) or any(unicodedata.east_asian_width(char) in "WF" for char in cluster):
        return 2
    return 1


def _cells(label: str) -> int:
    return sum(map(_cluster_cells, _clusters(label)))


def _shortened(label: str, max_cells: int) -> str:
    """The label, cut and ended with "…" if it takes more than `max_cells`."""
    if _cells(label) <= max_cells:
        return label
    kept, used = [], 0
    for cluster in _clusters(label):
        used += _cluster_cells(cluster)
        if used > max_cells - 1:  # leave one cell for the "…"
            break
        kept.append(cluster)
    return "".join(kept) + "…"


# --------------------------------------------------------------------- SVG


def tokens_svg(text: str, spans: Sequence[TokenSpan], **options) -> str:
    """The token view as a standalone SVG document (keyword options as for
    `layout_tokens`). All user text is XML-escaped, so markup in it is shown
    as text; fonts are named, never fetched."""
    layout = layout_tokens(text, spans, **options)
    size = {"width": layout.width, "height": layout.height, "viewBox": f"0 0 {layout.width} {layout.height}"}
    font = {"font_family": SVG_FONT_FAMILY, "font_size": layout.font_size}
    parts = [
        f"<svg{_attributes(xmlns='http://www.w3.org/2000/svg', **size, **font)}>",
        f"<rect{_attributes(class_='background', width='100%', height='100%', fill=BACKGROUND)}/>",
    ]
    for caption in layout.captions:
        centre_y = caption.y + caption.height / 2
        parts.append(_svg_text(caption.text, class_="caption", x=caption.x, y=centre_y, fill=caption.colour))
    for box in layout.boxes:
        shape = {"x": box.x, "y": box.y, "width": box.width, "height": box.height, "rx": layout.radius}
        outline = {"stroke": SPECIAL_OUTLINE, "stroke_width": 2, "stroke_dasharray": "6 4"} if box.special else {}
        if box.highlighted:
            outline = {"stroke": HIGHLIGHT_OUTLINE, "stroke_width": 4}
        parts.append(f"<rect{_attributes(class_='token', **shape, fill=box.colour, **outline)}/>")
        centre = {"x": box.x + box.width / 2, "y": box.y + box.height / 2}
        parts.append(_svg_text(box.label, class_="label", **centre, fill=TEXT_COLOUR, text_anchor="middle"))
    parts.append("</svg>")
    return "\n".join(parts)


def _svg_text(content: str, **attributes) -> str:
    return f"<text{_attributes(dominant_baseline='central', **attributes)}>{_xml_text(content)}</text>"


def _attributes(**values) -> str:
    """SVG attributes, quoted and escaped: font_size=28 -> ' font-size="28"'
    (class_ -> class, as "class" is a Python keyword)."""
    return "".join(
        f" {name.rstrip('_').replace('_', '-')}={quoteattr(_xml_safe(str(value)))}" for name, value in values.items()
    )


def _xml_text(content: str) -> str:
    return escape(_xml_safe(content))


def _xml_safe(content: str) -> str:
    return _NOT_XML.sub("\N{REPLACEMENT CHARACTER}", content)


# --------------------------------------------------------------------- PNG

FONT_DIRECTORIES = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"))
# The first of these that is installed draws every label it can ...
PRIMARY_FONTS = (
    "DejaVuSansMono.ttf",
    "NotoSansMono-Regular.ttf",
    "LiberationMono-Regular.ttf",
    "NotoSans-Regular.ttf",  # not monospace, but widths are estimated generously
    "DejaVuSans.ttf",
)
# ... and these, then every other Noto font, draw the characters it lacks.
FALLBACK_FONTS = (
    "NotoSansCJK-Regular.ttc",
    "NotoSans-Regular.ttf",
    "DejaVuSans.ttf",
    "NotoSansSymbols-Regular.ttf",
    "NotoSansSymbols2-Regular.ttf",
)
EMOJI_FONT = "NotoColorEmoji.ttf"
EMOJI_PIXEL_SIZE = 109  # Noto Color Emoji holds bitmaps of this size only
EMOJI_SCALE = 0.9  # of the text size, so that an emoji fits its two cells
_MISSING_CHARACTER = "\U0010FFFD"  # in no font: draws the "missing glyph" box
# A label reads left to right as in the app, even one that starts with
# Arabic or Hebrew ("·سلام" keeps its "·" on the left). Pillow can set the
# direction only with libraqm, which also shapes Arabic and Indic scripts.
_LEFT_TO_RIGHT = {"direction": "ltr"} if features.check("raqm") else {}


def tokens_png(text: str, spans: Sequence[TokenSpan], **options) -> bytes:
    """The token view as PNG bytes (keyword options as for `layout_tokens`),
    drawn with Pillow and the fonts in `FONT_DIRECTORIES`: no browser, no
    network. On a system with no font files at all it still works, with
    Pillow's built-in font (Latin letters only)."""
    layout = layout_tokens(text, spans, **options)
    image = Image.new("RGB", (layout.width, layout.height), BACKGROUND)
    draw_layout(image, layout)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def draw_layout(image: Image.Image, layout: SlideLayout, top: int = 0) -> None:
    """Draw the layout's captions and boxes on `image`, `top` pixels down."""
    draw = ImageDraw.Draw(image)
    for caption in layout.captions:
        label = _label_image(caption.text, layout.font_size, caption.colour, caption.height)
        _paste_fitted(image, label, caption.x, top + caption.y, caption.width, centred=False)
    for box in layout.boxes:
        y = top + box.y
        corners = (box.x, y, box.x + box.width - 1, y + box.height - 1)
        outline = {"outline": SPECIAL_OUTLINE, "width": 3} if box.special else {}
        if box.highlighted:
            outline = {"outline": HIGHLIGHT_OUTLINE, "width": max(3, layout.font_size // 7)}
        draw.rounded_rectangle(corners, radius=layout.radius, fill=box.colour, **outline)
        label = _label_image(box.label, layout.font_size, TEXT_COLOUR, box.height)
        _paste_fitted(image, label, box.x + layout.padding, y, box.width - 2 * layout.padding, centred=True)


def draw_text(image: Image.Image, text: str, x: int, y: int, *, font_size: int, colour: str = TEXT_COLOUR,
              width: int | None = None) -> None:
    """One line of text at (x, y), in the fonts labels use (any script);
    narrowed to `width` if it is wider."""
    label = _label_image(_drawable(text), font_size, colour, round(1.5 * font_size))
    _paste_fitted(image, label, x, y, width or label.width, centred=False)


def text_width(text: str, font_size: int) -> int:
    """How wide `draw_text` draws `text`, in pixels."""
    return _label_image(_drawable(text), font_size, TEXT_COLOUR, round(1.5 * font_size)).width


def _paste_fitted(image: Image.Image, label: Image.Image, left: int, top: int, width: int, *, centred: bool) -> None:
    """Paste a label in a space `width` wide; a label that came out wider
    than estimated (a proportional fallback font) is narrowed to fit."""
    if label.width > width:
        label = label.resize((width, label.height), Image.Resampling.LANCZOS)
    offset = (width - label.width) // 2 if centred else 0
    image.paste(label, (left + offset, top), label)


@functools.lru_cache(maxsize=1024)
def _label_image(label: str, font_size: int, colour: str, height: int) -> Image.Image:
    """The label drawn on a transparent strip `height` high, each run of
    characters in the first font that has them (remembered: tokens repeat)."""
    runs = [_run_image(run, font, font_size, colour, height) for run, font in _font_runs(label, font_size)]
    strip = Image.new("RGBA", (max(1, sum(run.width for run in runs)), height))
    x = 0
    for run in runs:
        strip.alpha_composite(run, (x, (height - run.height) // 2))
        x += run.width
    return strip


def _font_runs(label: str, font_size: int) -> list[tuple[str, ImageFont.FreeTypeFont]]:
    """The label cut where the font must change: [("·", mono), ("👍", emoji)].

    A label is drawn in one font whenever one font has all its characters,
    because joined scripts (Arabic, Devanagari) are shaped only within one
    run; otherwise each character comes from the first font that has it.
    """
    clusters = _clusters(label)
    letters = "".join(cluster[0] for cluster in clusters if not _is_emoji(cluster))
    text_font = _first_font_drawing(letters, font_size)
    runs: list[tuple[str, ImageFont.FreeTypeFont]] = []
    for cluster in clusters:
        if _is_emoji(cluster) and _emoji_font() is not None:
            font = _emoji_font()
        else:
            font = text_font or _first_font_drawing(cluster[0], font_size) or _font(_font_paths()[0], font_size)
        if runs and runs[-1][1] is font:
            runs[-1] = (runs[-1][0] + cluster, font)
        else:
            runs.append((cluster, font))
    return runs


def _run_image(run: str, font, font_size: int, colour: str, height: int) -> Image.Image:
    if font is _emoji_font():
        return _emoji_image(run, font, font_size)
    image = Image.new("RGBA", (max(1, math.ceil(font.getlength(run))), height))
    ImageDraw.Draw(image).text((0, height / 2), run, font=font, fill=colour, anchor="lm", **_LEFT_TO_RIGHT)
    return image


def _emoji_image(run: str, font, font_size: int) -> Image.Image:
    """Colour emoji come as fixed-size bitmaps: draw big, then scale down."""
    width, height = max(1, math.ceil(font.getlength(run))), EMOJI_PIXEL_SIZE * 5 // 4
    image = Image.new("RGBA", (width, height))
    ImageDraw.Draw(image).text((0, height / 2), run, font=font, embedded_color=True, anchor="lm")
    scale = EMOJI_SCALE * font_size / EMOJI_PIXEL_SIZE
    return image.resize((max(1, round(width * scale)), max(1, round(height * scale))), Image.Resampling.LANCZOS)


@functools.lru_cache(maxsize=8192)
def _first_font_drawing(chars: str, font_size: int):
    """The first font, in order of preference, with a glyph for every one of
    `chars`; None if no font has them all."""
    for path in _font_paths():  # fonts load only when needed: most text needs one
        font = _font(path, font_size)
        if all(_draws(font, char) for char in chars):
            return font
    return None


@functools.lru_cache(maxsize=65536)
def _draws(font, char: str) -> bool:
    """Whether the font has a glyph for `char`: a font without one draws its
    "missing glyph" box, the same as for a character no font has. (A font
    that cannot lay the character out at all does not draw it either.)"""
    try:
        return _pixels(font, char) != _missing_glyph_pixels(font)
    except (ValueError, RuntimeError):  # e.g. "raqm_get_glyphs() failed" for a lone variation selector
        return False


@functools.cache
def _missing_glyph_pixels(font) -> bytes:
    return _pixels(font, _MISSING_CHARACTER)


def _pixels(font, char: str) -> bytes:
    """The character drawn in white on black, as raw pixels."""
    side = 3 * round(font.size)
    image = Image.new("L", (side, side))
    ImageDraw.Draw(image).text((0, 0), char, font=font, fill=255)
    return image.tobytes()


def _font_paths() -> list[Path | None]:
    """Fonts in order of preference; [None] (Pillow's built-in font) when
    no font is installed at all, so a PNG can still be made."""
    return _installed_font_paths() or [None]


@functools.cache
def _installed_font_paths() -> list[Path]:
    files = _font_files()
    primary = [files[name] for name in PRIMARY_FONTS if name in files][:1]
    fallbacks = [files[name] for name in FALLBACK_FONTS if name in files]
    other_noto = [path for name, path in sorted(files.items()) if name.startswith("Noto") and "-Regular." in name]
    return list(dict.fromkeys([*primary, *fallbacks, *other_noto]))  # each once, in this order


@functools.cache
def _font_files() -> dict[str, Path]:
    """Font file name -> path, for the fonts installed on this system."""
    files: dict[str, Path] = {}
    for directory in FONT_DIRECTORIES:
        if directory.is_dir():
            for path in sorted(directory.rglob("*")):
                if path.suffix.lower() in (".ttf", ".otf", ".ttc"):
                    files.setdefault(path.name, path)
    return files


@functools.cache
def _font(path: Path | None, size: int):
    return ImageFont.load_default(size) if path is None else ImageFont.truetype(str(path), size)


@functools.cache
def _emoji_font():
    path = _font_files().get(EMOJI_FONT)
    return None if path is None else ImageFont.truetype(str(path), EMOJI_PIXEL_SIZE)
