"""Token HTML shows boundaries, whitespace and partial characters, and escapes everything."""

import html
import re

from bpe_core import train
from bpe_core.drawing.palette import PALETTE, colour_for
from bpe_core.drawing.tokens import label_html, pieces_html, token_html
from bpe_core.encodings import load_encoding
from bpe_core.patterns import piece_spans


def visible_text(markup: str) -> str:
    """What a reader sees: tags removed, entities decoded."""
    without_style = re.sub(r"<style>.*?</style>", "", markup, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", without_style)).strip("\n")


def token_spans(markup: str) -> list[str]:
    return re.findall(r'<span class="bpe-tok[^"]*"', markup)


def test_one_span_per_token_with_id_in_the_tooltip():
    tok = load_encoding("cl100k_base")
    text = "Hello world"
    markup = token_html(text, tok.encode_with_offsets(text))
    assert len(token_spans(markup)) == 2
    assert "id 9906" in markup and "id 1917" in markup
    assert visible_text(markup) == "Hello·world"


def test_whitespace_is_visible_and_lines_still_break():
    assert visible_text(label_html(b" \t\r\nx")) == "·→␍↵\nx"  # a real break after ↵
    assert visible_text(label_html("\u00a0\x00\x7f".encode())) == "·␀␡"


def test_partial_characters_show_their_bytes_and_owner():
    tok = train("xyz", num_merges=0, pattern="none")  # bytes only: every byte its own token
    text = "あ"
    markup = token_html(text, tok.encode_with_offsets(text))
    assert visible_text(markup) == "<E3><81><82>"
    assert "part of &#x27;あ&#x27; U+3042" in markup
    assert "\ufffd" not in markup


def test_mixed_token_shows_text_then_stray_bytes():
    assert visible_text(label_html(b" \xe3\x81")) == "·<E3 81>"


def test_user_markup_is_escaped_never_interpreted():
    payload = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'&'
    tok = load_encoding("o200k_base")
    markup = token_html(payload, tok.encode_with_offsets(payload))
    body = re.sub(r"<style>.*?</style>", "", markup, flags=re.S)
    assert "<script" not in body and "<img" not in body
    assert visible_text(markup) == payload.replace(" ", "·")
    for title in re.findall(r'title="([^"]*)"', markup):
        assert "<" not in title and '"' not in title


def test_neighbours_differ_in_colour_by_position_and_ids_keep_theirs():
    colours = [colour_for(i, 7) for i in range(len(PALETTE) + 1)]
    assert all(a != b for a, b in zip(colours, colours[1:]))
    assert colour_for(0, 42, "id") == colour_for(99, 42, "id")


def test_show_ids_replaces_text_with_ids():
    tok = load_encoding("gpt2")
    markup = token_html("Hello world", tok.encode_with_offsets("Hello world"), show_ids=True)
    assert visible_text(markup) == "15496995"
    assert len(token_spans(markup)) == 2


def test_special_tokens_are_framed():
    tok = load_encoding("gpt2")
    text = "a<|endoftext|>"
    markup = token_html(text, tok.encode_with_offsets(text, allowed_special="all"), special_ids={50256})
    assert markup.count("bpe-special") == 2  # the CSS rule and the one token


def test_text_dropped_by_a_pattern_is_shown_struck_through():
    tok = train("ab cd", num_merges=1, pattern=r"\w+")
    markup = token_html("ab cd", tok.encode_with_offsets("ab cd"))
    assert '<span class="bpe-dropped">' in markup
    assert visible_text(markup) == "ab·cd"


def test_pieces_view_colours_each_pre_token_piece():
    text = "Hello, world's end"
    markup = pieces_html(text, piece_spans(text, "gpt2"))
    assert len(token_spans(markup)) == 5
    assert "piece 1" in markup and not re.search(r"· id \d", markup)


def test_highlighted_tokens_are_outlined():
    tok = train("aaabdaaabac", num_merges=1, pattern="none")
    markup = token_html("aaab", tok.encode_with_offsets("aaab", step=1), highlight_ids={256})
    assert markup.count("bpe-tok bpe-new") == 1


def test_long_views_stop_and_say_how_many_tokens_are_left():
    tok = load_encoding("gpt2")
    text = "word " * 100
    spans = tok.encode_with_offsets(text)
    markup = token_html(text, spans, max_tokens=10)
    assert len(token_spans(markup)) == 10
    assert f"… and {len(spans) - 10} more tokens" in visible_text(markup)
    assert "bpe-dropped\">" not in markup


def test_lone_surrogates_render_as_replacement_characters():
    tok = load_encoding("gpt2")
    text = "a\ud800b"
    markup = token_html(text, tok.encode_with_offsets(text))
    assert visible_text(markup) == "a\ufffdb"



def test_markdown_literal_disarms_markdown_and_streamlit_syntax():
    from bpe_core.drawing.markdown import markdown_literal

    hostile = '![x](http://evil.example/p.png) [link](javascript:alert(1)) :red[red] $x^2$ <b>b</b> **bold** `code`'
    escaped = markdown_literal(hostile)
    readable_as_syntax = re.sub(r"\\.", "", escaped)  # what is left once escaped characters are removed
    assert not re.search(r"[!\[\]()<>*`$:]", readable_as_syntax)
    assert re.sub(r"\\(.)", r"\1", escaped) == hostile  # every character is still there
