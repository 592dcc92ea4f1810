"""Token HTML shows boundaries, whitespace and partial characters, and escapes everything."""

import html
import re
from html.parser import HTMLParser

from bpe_core import train
from bpe_core.analysis.token_cards import token_origins
from bpe_core.drawing.palette import PALETTE, colour_for
from bpe_core.drawing.tokens import counts_html, label_html, pieces_html, token_html
from bpe_core.engine.patterns import piece_spans
from bpe_core.vocabularies.catalogue import load_encoding


def visible_text(markup: str) -> str:
    """What a reader sees: tags removed, entities decoded."""
    without_style = re.sub(r"<style>.*?</style>", "", markup, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", without_style)).strip("\n")


def texts_inside(markup: str, class_name: str) -> list[str]:
    """The text inside each element of `class_name`, however deeply nested."""

    class Collector(HTMLParser):
        def __init__(self):
            super().__init__()
            self.depths, self.texts = [], []  # open elements of the class: their depth; their text

        def handle_starttag(self, tag, attributes):
            if tag in ("wbr", "br"):
                return
            self.depth = getattr(self, "depth", 0) + 1
            if class_name in (dict(attributes).get("class") or "").split():
                self.depths.append(self.depth)
                self.texts.append("")

        def handle_endtag(self, tag):
            if self.depths and self.depths[-1] == self.depth:
                self.depths.pop()
            self.depth -= 1

        def handle_data(self, data):
            if self.depths:
                self.texts[-1] += data

    collector = Collector()
    collector.feed(re.sub(r"<style>.*?</style>", "", markup, flags=re.S))
    return collector.texts


def token_spans(markup: str) -> list[str]:
    return re.findall(r'<span class="bpe-tok[^"]*"', markup)


def cards(markup: str) -> list[str]:
    return [html.unescape(card) for card in re.findall(r'data-card="([^"]*)"', markup)]


def test_one_span_per_token_with_a_card_saying_what_it_is():
    tok = load_encoding("cl100k_base")
    text = "Hello world"
    spans = tok.encode_with_offsets(text)
    markup = token_html(text, spans, cards=token_origins(tok, [span.id for span in spans]))
    assert len(token_spans(markup)) == 2
    first, second = cards(markup)
    assert first.startswith("token 1 · id 9906\nrank 9,906: ") and "bytes: 48 65 6C 6C 6F (5 bytes)" in first
    left, right = tok.merge_parts(1917)
    assert f"({left}) + " in second and f"({right})" in second  # the two tokens ' world' was merged from
    assert visible_text(markup) == "Hello·world"
    assert 'title="' not in markup  # a card of its own, not the browser's tooltip


def test_every_token_can_be_focused_and_the_view_entered_by_keyboard():
    tok = load_encoding("cl100k_base")
    markup = token_html("Hello world", tok.encode_with_offsets("Hello world"))
    assert '<div class="bpe-text" tabindex="0"' in markup
    assert markup.count('tabindex="-1"') == 2
    assert ".bpe-tok[data-card]:hover::after, .bpe-tok[data-card]:focus::after" in markup


def test_whitespace_is_visible_and_lines_still_break():
    assert visible_text(label_html(b" \t\r\nx")) == "·→␍↵\nx"  # a real break after ↵
    assert visible_text(label_html("\u00a0\x00\x7f".encode())) == "·␀␡"


def test_a_character_split_across_tokens_is_drawn_once_as_its_glyph():
    tok = train("xyz", num_merges=0, pattern="none")  # bytes only: every byte its own token
    text = "aあ"
    markup = token_html(text, tok.encode_with_offsets(text))
    assert visible_text(markup) == "aあ"  # no <E3> chips, no "�"
    glyph = re.search(r'<span class="bpe-cluster".*?</span></span></span>', markup, flags=re.S).group(0)
    assert glyph.count('class="bpe-tok bpe-part ') == 3 and "linear-gradient" in glyph  # a bar of three tokens under it
    assert [card.splitlines()[1] for card in cards(markup)[1:]] == ["bytes: E3 (1 byte)", "bytes: 81 (1 byte)", "bytes: 82 (1 byte)"]
    assert all("part of 'あ' U+3042" in card for card in cards(markup)[1:])
    assert "\ufffd" not in markup


def test_an_emoji_or_an_accented_letter_is_drawn_whole_over_the_tokens_that_share_it():
    tok = load_encoding("cl100k_base")
    text = "👍🏽 e\u0301"  # a thumb with a skin tone (two code points); e with a combining accent
    markup = token_html(text, tok.encode_with_offsets(text))
    assert visible_text(markup) == text.replace(" ", "·")
    assert texts_inside(markup, "bpe-glyph") == ["👍🏽", "·e\u0301"]  # each drawn once, whole
    assert len(token_spans(markup)) == len(tok.encode(text))


def test_mixed_token_shows_text_then_stray_bytes():
    assert visible_text(label_html(b" \xe3\x81")) == "·<E3 81>"


def test_right_to_left_runs_keep_their_reading_order_and_each_token_is_isolated():
    tok = load_encoding("cl100k_base")
    text = "say مرحبا بالعالم now"
    markup = token_html(text, tok.encode_with_offsets(text))
    assert texts_inside(markup, "bpe-rtl") == ["·مرحبا·بالعالم"]  # both words, and the space between, in one run
    assert visible_text(markup).startswith("say") and visible_text(markup).endswith("·now")
    assert "unicode-bidi: isolate" in markup


def test_lines_break_only_between_tokens_where_the_text_could_break():
    tok = load_encoding("cl100k_base")
    text = "unbelievably long, 東京都"
    markup = token_html(text, tok.encode_with_offsets(text))
    word = visible_text(markup.split("<wbr>")[0])
    assert word == "unbelievably"  # no break opportunity between the word's tokens ...
    assert markup.count("<wbr>") >= 4  # ... but before each space, and between the CJK characters' tokens
    assert ".bpe-tok { white-space: pre;" in markup  # none inside a token


def test_user_markup_is_escaped_never_interpreted():
    payload = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'&'
    tok = load_encoding("o200k_base")
    markup = token_html(payload, tok.encode_with_offsets(payload))
    body = re.sub(r"<style>.*?</style>", "", markup, flags=re.S)
    assert "<script" not in body and "<img" not in body
    assert visible_text(markup) == payload.replace(" ", "·")
    for attribute in re.findall(r'data-card="([^"]*)"', markup):
        assert "<" not in attribute and '"' not in attribute


def test_neighbours_differ_in_colour_by_position_and_ids_keep_theirs():
    colours = [colour_for(i, 7) for i in range(len(PALETTE) + 1)]
    assert all(a != b for a, b in zip(colours, colours[1:]))
    assert colour_for(0, 42, "id") == colour_for(99, 42, "id")


def test_each_token_is_painted_by_a_class_of_the_views_stylesheet_not_an_inline_style():
    tok = load_encoding("cl100k_base")
    text = "Hello world, こんにちは and 👍🏽"
    spans = tok.encode_with_offsets(text)
    for colour_by in ("position", "id"):
        markup = token_html(text, spans, colour_by=colour_by)
        rules = dict(re.findall(r"\.(bpe-c\d) \{ background: (#[0-9A-F]{6}); \}", markup))
        painted = [rules[name] for name in re.findall(r'<span class="bpe-tok[^"]* (bpe-c\d)"', markup)]
        assert painted == [colour_for(index, span.id, colour_by) for index, span in enumerate(spans)]
        assert "background:" not in re.sub(r"<style>.*?</style>", "", markup, flags=re.S).replace(
            "background:linear-gradient", "")  # only a split character's bar has a style of its own


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
    assert cards(markup)[0].startswith("piece 1") and not re.search(r"· id \d", markup)


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



def test_counts_say_what_a_text_costs_in_one_row():
    text = "héllo wörld 👍"
    markup = counts_html(text, 6)
    figures = dict(re.findall(r'<small>([^<]*)</small><b>([^<]*)</b>', markup))
    assert figures == {"Tokens": "6", "Characters": "13", "Bytes (UTF-8)": f"{len(text.encode()):,}",
                       "Words": "3", "Bytes per token": f"{len(text.encode()) / 6:.2f}"}
    assert markup.count('class="bpe-count"') == 5 and markup.count('class="bpe-counts"') == 1
    big = counts_html("a" * 1_234_567, 0)
    assert "<b>1,234,567</b>" in big and "<small>Bytes per token</small><b>–</b>" in big  # no tokens, no ratio


def test_markdown_literal_disarms_markdown_and_streamlit_syntax():
    from bpe_core.drawing.markdown import markdown_literal

    hostile = '![x](http://evil.example/p.png) [link](javascript:alert(1)) :red[red] $x^2$ <b>b</b> **bold** `code`'
    escaped = markdown_literal(hostile)
    readable_as_syntax = re.sub(r"\\.", "", escaped)  # what is left once escaped characters are removed
    assert not re.search(r"[!\[\]()<>*`$:]", readable_as_syntax)
    assert re.sub(r"\\(.)", r"\1", escaped) == hostile  # every character is still there



def test_a_markdown_table_keeps_every_cell_in_its_column_as_typed():
    from bpe_core.drawing.markdown import markdown_table

    rows = [{"turn": "1", "role": "user", "tokens": 12_345}, {"turn": "", "role": "a|b **x** :red[y]", "tokens": 0}]
    lines = markdown_table(rows).splitlines()
    cells = [[re.sub(r"\\(.)", r"\1", cell).strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines]
    assert cells[0] == ["turn", "role", "tokens"]
    assert cells[1] == [":---", ":---", "---:"]  # counts aligned right
    assert cells[2:] == [["1", "user", "12,345"], ["", "a|b **x** :red[y]", "0"]]
    assert not re.search(r"[*:\[\]]", re.sub(r"\\.", "", lines[3]))  # no Markdown or Streamlit syntax left

def test_a_token_that_covers_no_text_is_shown_as_sentencepieces_space_mark():
    tok = load_encoding("mistral_v3")
    spans = tok.encode_with_offsets("東京")
    assert spans[0].start == spans[0].end  # the "▁" SentencePiece puts before a text
    markup = token_html("東京", spans)
    assert visible_text(markup) == "▁東京" and len(token_spans(markup)) == len(spans)
