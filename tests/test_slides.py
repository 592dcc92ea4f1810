"""Slide export: the SVG is valid, escaped XML with one box per token; the
PNG is a real image of the same layout; boxes never overlap or overflow."""

import io
import itertools
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageFont

from bpe_core import TokenSpan, train
from bpe_core.analysis.labels import label_text
from bpe_core.drawing.palette import PALETTE
from bpe_core.drawing.slides import layout_tokens, tokens_png, tokens_svg
from bpe_core.vocabularies.catalogue import load_encoding
from tests.required import require
from tests.texts import TRICKY_TEXTS

SVG = "{http://www.w3.org/2000/svg}"
DEJAVU_MONO = Path("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf")
NOTO_CJK = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
NOTO_EMOJI = Path("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf")


def require_font(path: Path):
    """Drawing a script needs its font; .ci/run installs DejaVu and the Noto
    fonts (fonts-dejavu-core, fonts-noto-cjk, fonts-noto-color-emoji)."""
    require(path.exists(), f"{path} is not installed (.ci/run installs it with apt)", "REQUIRE_BROWSER_TESTS")


def cl100k_spans(text):
    return load_encoding("cl100k_base").encode_with_offsets(text, allowed_special="all")


@pytest.fixture(scope="module")
def bytes_only():
    """Every byte its own token: partial characters everywhere."""
    return train("xyz", num_merges=0, pattern="none")


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def token_rects(root):
    return root.findall(f"{SVG}rect[@class='token']")


def labels(root):
    return [element.text or "" for element in root.findall(f"{SVG}text[@class='label']")]


def rows(layout):
    ordered = sorted(layout.boxes, key=lambda box: (box.y, box.x))
    return [list(row) for _, row in itertools.groupby(ordered, key=lambda box: box.y)]


def assert_boxes_fit(layout):
    for row in rows(layout):
        for left, right in itertools.pairwise(row):
            assert left.x + left.width < right.x, (left, right)
        assert row[0].x >= 0 and row[-1].x + row[-1].width <= layout.width
    assert all(box.y + box.height <= layout.height for box in layout.boxes)


def png_image(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    return image.convert("RGB")


def rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))


# --------------------------------------------------------------------- SVG


@pytest.mark.parametrize("text", TRICKY_TEXTS)
def test_svg_is_xml_with_one_box_and_label_per_token(text):
    spans = cl100k_spans(text)
    root = parse(tokens_svg(text, spans, title=f"cl100k_base · {len(spans)} tokens"))
    assert len(token_rects(root)) == len(spans)
    data = text.encode()
    for label, span in zip(labels(root), spans, strict=True):
        full = label_text(data[span.start : span.end])
        assert label == full or (label.endswith("…") and full.startswith(label[:-1]))  # too long for a row


def test_hostile_text_and_title_stay_text():
    payload = "<script>alert(1)</script><img src=x onerror=alert(2)>\"'&"
    svg = tokens_svg(payload, cl100k_spans(payload), title='"/><script>alert(3)</script>\x01\ufffe')
    assert "<script" not in svg and "<img" not in svg
    assert "&lt;script&gt;" in svg
    root = parse(svg)
    assert "".join(labels(root)) == payload.replace(" ", "·")
    (title,) = root.findall(f"{SVG}text[@class='caption']")
    assert title.text.startswith('"/><script>alert(3)</script>')  # escaped, shown as typed


def test_whitespace_partial_bytes_and_specials_are_shown(bytes_only):
    root = parse(tokens_svg("a b\tc", cl100k_spans("a b\tc")))
    assert "".join(labels(root)) == "a·b→c"
    root = parse(tokens_svg("あ", bytes_only.encode_with_offsets("あ")))
    assert labels(root) == ["<E3>", "<81>", "<82>"]
    text = "x<|endoftext|>y"
    svg = tokens_svg(text, cl100k_spans(text), special_ids={100257})
    (special,) = [rect for rect in token_rects(parse(svg)) if rect.get("stroke-dasharray")]
    assert special.get("x") == str(layout_tokens(text, cl100k_spans(text)).boxes[1].x)


def test_ids_instead_of_text():
    root = parse(tokens_svg("Hello world", cl100k_spans("Hello world"), show_ids=True))
    assert labels(root) == ["9906", "1917"]


def test_svg_draws_exactly_the_layout():
    text = TRICKY_TEXTS[2]
    spans = cl100k_spans(text)
    layout = layout_tokens(text, spans, width=500, font_size=20, colour_by="id")
    root = parse(tokens_svg(text, spans, width=500, font_size=20, colour_by="id"))
    drawn = [(int(r.get("x")), int(r.get("y")), int(r.get("width")), r.get("fill")) for r in token_rects(root)]
    assert drawn == [(box.x, box.y, box.width, box.colour) for box in layout.boxes]
    assert root.get("width") == "500" and root.get("height") == str(layout.height)


# ------------------------------------------------------------------ layout


@pytest.mark.slow
@given(text=st.text(max_size=300), width=st.integers(200, 1600), font_size=st.integers(8, 48))
def test_boxes_never_overlap_and_stay_inside(text, width, font_size):
    layout = layout_tokens(text, cl100k_spans(text), width=width, font_size=font_size, title=text[:80] or None)
    assert_boxes_fit(layout)
    parse(tokens_svg(text, cl100k_spans(text), width=width, font_size=font_size, title=text[:80] or None))


@pytest.mark.parametrize(
    "text, end, font_path",
    [
        (" tokenization", None, DEJAVU_MONO),
        ("あ", 2, DEJAVU_MONO),  # the first two of its three bytes: <E3 81>
        ("你好世界", None, NOTO_CJK),
        ("日本語のテキスト", None, NOTO_CJK),
    ],
)
def test_a_box_is_wide_enough_for_its_label_in_a_real_font(text, end, font_path):
    require_font(font_path)
    token = text.encode()[:end]
    layout = layout_tokens(text, [TokenSpan(0, 0, len(token))], font_size=28)
    (box,) = layout.boxes
    assert box.label == label_text(token)
    measured = ImageFont.truetype(str(font_path), 28).getlength(box.label)
    assert measured <= box.width - 2 * layout.padding


def test_line_breaks_start_new_rows():
    text = "one\ntwo\n\nthree"
    layout = layout_tokens(text, cl100k_spans(text))
    starts = {box.label: box for box in layout.boxes}
    assert starts["two"].x == starts["one"].x  # both start a row
    assert starts["two"].y > starts["one"].y
    assert starts["three"].y > starts["two"].y


def test_wrapping_at_the_width():
    text = "word " * 200
    layout = layout_tokens(text, cl100k_spans(text), width=400)
    assert len(rows(layout)) > 10
    assert_boxes_fit(layout)


def one_token(text: str) -> list[TokenSpan]:
    return [TokenSpan(0, 0, len(text.encode()))]


def test_wide_characters_take_two_cells():
    (ascii_box,) = layout_tokens("ab", one_token("ab")).boxes
    (cjk_box,) = layout_tokens("你好", one_token("你好")).boxes
    (emoji_box,) = layout_tokens("👍👍", one_token("👍👍")).boxes
    assert cjk_box.width == emoji_box.width > ascii_box.width


def test_a_token_too_long_for_a_row_is_shortened():
    text = "a" * 3000
    tok = train(text, num_merges=12, pattern="none")  # tokens of up to 2,048 "a"s
    layout = layout_tokens(text, tok.encode_with_offsets(text), width=600)
    assert any(box.label.endswith("…") for box in layout.boxes)
    assert_boxes_fit(layout)


def test_too_many_tokens_end_with_a_note():
    text = "word " * 100
    spans = cl100k_spans(text)
    root = parse(tokens_svg(text, spans, max_tokens=30))
    assert len(token_rects(root)) == 30
    (note,) = root.findall(f"{SVG}text[@class='caption']")
    assert note.text == f"… and {len(spans) - 30} more tokens"


def test_empty_text_is_a_small_clear_slide():
    root = parse(tokens_svg("", []))
    assert token_rects(root) == []
    assert [caption.text for caption in root.findall(f"{SVG}text[@class='caption']")] == ["(no tokens)"]
    image = png_image(tokens_png("", [], title="empty"))
    assert image.width == 1200 and image.height < 200


def test_a_width_too_small_for_any_text_is_refused():
    with pytest.raises(ValueError, match="no room"):
        layout_tokens("abc", cl100k_spans("abc"), width=60, font_size=28)


# --------------------------------------------------------------------- PNG


def test_png_is_an_image_of_the_layout():
    text = TRICKY_TEXTS[2]
    spans = cl100k_spans(text)
    layout = layout_tokens(text, spans, width=800)
    image = png_image(tokens_png(text, spans, width=800))
    assert image.size == (800, layout.height)
    for box in layout.boxes:  # inside the box, left of the label: the box's own colour
        assert image.getpixel((box.x + 2, box.y + box.height // 2)) == rgb(box.colour)
    assert len(image.getcolors(maxcolors=100_000)) > len(PALETTE) + 1  # text was drawn, anti-aliased


@pytest.mark.slow
@pytest.mark.parametrize("font_size", [12, 28, 40])
def test_png_of_every_tricky_text_opens(font_size):
    text = "\n".join(TRICKY_TEXTS)
    spans = cl100k_spans(text)
    image = png_image(tokens_png(text, spans, font_size=font_size, title="all", special_ids={100257, 100258, 100276}))
    assert image.size == (1200, layout_tokens(text, spans, font_size=font_size, title="all").height)


def box_pixels(text: str) -> Image.Image:
    """The PNG's box for `text` drawn as one token."""
    (box,) = layout_tokens(text, one_token(text)).boxes
    image = png_image(tokens_png(text, one_token(text)))
    return image.crop((box.x, box.y, box.x + box.width, box.y + box.height))


def test_every_script_is_drawn_with_real_letters():
    require_font(NOTO_CJK)
    # A font without a character draws its "missing glyph" box, the same
    # for every character; real letters all differ from each other.
    letters = ["你", "好", "한", "न", "ש", "ሰ", "ض", "ж", "ภ", "ↄ"]
    assert len({box_pixels(letter).tobytes() for letter in letters}) == len(letters)


def test_emoji_are_drawn_in_colour():
    require_font(NOTO_EMOJI)
    area = box_pixels("👍")
    warm = sum(count for count, (red, _, blue) in area.getcolors(maxcolors=100_000) if red > 200 and blue < 120)
    assert warm > 20  # the yellow thumb, on a blue box


def test_lone_surrogates_are_drawn_as_encoding_saw_them():
    text = "a\ud800b"  # broken input: encoding replaces the surrogate by U+FFFD
    root = parse(tokens_svg(text, cl100k_spans(text)))
    assert "".join(labels(root)) == "a\ufffdb"
    png_image(tokens_png(text, cl100k_spans(text)))


def test_a_title_with_control_characters_still_draws():
    title = "tab\there\x1e\u2029next \ud800 end"
    image = png_image(tokens_png("x", cl100k_spans("x"), title=title))
    assert image.width == 1200
    (caption,) = parse(tokens_svg("x", cl100k_spans("x"), title=title)).findall(f"{SVG}text[@class='caption']")
    assert caption.text == "tab→here␞↵next \ufffd end"


@pytest.mark.slow
@settings(max_examples=25)
@given(text=st.text(max_size=120))
def test_any_text_makes_a_png(text):
    image = png_image(tokens_png(text, cl100k_spans(text), width=600, font_size=20, title=text[:40] or None))
    assert image.width == 600


@pytest.mark.slow
def test_a_text_of_line_breaks_makes_a_bounded_picture():
    text = "a\n" * 200_000  # one row per line break: without a bound, a 1200 x 3,000,000 picture
    spans = load_encoding("cl100k_base").encode_with_offsets(text)
    layout = layout_tokens(text, spans, max_tokens=None)
    assert layout.height < 12_000
    assert "more tokens" in layout.captions[-1].text


def test_a_literal_return_symbol_is_not_a_line_break():
    text = "a ↵ b"
    spans = load_encoding("cl100k_base").encode_with_offsets(text)
    assert len({box.y for box in layout_tokens(text, spans).boxes}) == 1
