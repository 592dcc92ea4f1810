"""Comparing tokenizers: counts, where the splits differ, and the aligned view."""

import html
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_core import TokenSpan, train
from bpe_core.analysis.comparison import differing_stretches, display_lines, stretch_table, summary_rows
from bpe_core.analysis.labels import label_text
from bpe_core.drawing.comparison import BEST_COLOUR, OTHER_COLOUR, aligned_rows_html, stretches_html, token_count_bars
from bpe_core.drawing.palette import PALETTE
from bpe_core.vocabularies.catalogue import load_encoding
from bpe_core.vocabularies.openai import tiktoken_encoding

OPENAI = ["gpt2", "cl100k_base", "o200k_base"]
MIXED_TEXT = "Hello, world!  naïve café\n\tdef f(x): return x**2  # 12345\nこんにちは 👩‍💻 <|endoftext|>"


def spans_from_boundaries(boundaries: list[int]) -> list[TokenSpan]:
    """Fake tokens between consecutive boundaries, with made-up ids."""
    return [TokenSpan(index, start, end) for index, (start, end) in enumerate(zip(boundaries, boundaries[1:]))]


def byte_tokenizer():
    """No merges: every byte is its own token, so characters get split."""
    return train("xyz", num_merges=0, pattern="none")


def encode_all(text: str, names=OPENAI, *, with_bytes: bool = False) -> dict[str, list[TokenSpan]]:
    """Spans of `text` by the OpenAI tokenizers, after a byte-per-token one if asked."""
    results = {"bytes": byte_tokenizer().encode_with_offsets(text)} if with_bytes else {}
    results = results | {name: load_encoding(name).encode_with_offsets(text, disallowed_special=()) for name in names}
    return results


# ------------------------------------------------------------------ summary


def test_summary_counts_are_tiktokens():
    text = MIXED_TEXT
    rows = summary_rows(text, encode_all(text))
    assert [row["tokenizer"] for row in rows] == OPENAI
    for row in rows:
        expected = len(tiktoken_encoding(row["tokenizer"]).encode(text, disallowed_special=()))
        assert row["tokens"] == expected
        assert row["bytes/token"] == pytest.approx(len(text.encode()) / expected)
        assert row["chars/token"] == pytest.approx(len(text) / expected)
    fewest = min(row["tokens"] for row in rows)
    assert [row["vs best"] for row in rows] == pytest.approx([row["tokens"] / fewest for row in rows])
    assert min(row["vs best"] for row in rows) == 1.0


def test_summary_ratios_count_bytes_and_characters_separately():
    text = "éé"  # 2 characters, 4 bytes
    results = {"pairs": spans_from_boundaries([0, 2, 4]), "bytes": spans_from_boundaries([0, 1, 2, 3, 4])}
    rows = summary_rows(text, results)
    assert rows == [
        {"tokenizer": "pairs", "tokens": 2, "bytes/token": 2.0, "chars/token": 1.0, "vs best": 1.0},
        {"tokenizer": "bytes", "tokens": 4, "bytes/token": 1.0, "chars/token": 0.5, "vs best": 2.0},
    ]


def test_summary_of_empty_text_has_no_ratios():
    rows = summary_rows("", {"a": [], "b": []})
    assert [row["tokens"] for row in rows] == [0, 0]
    assert all(row[column] is None for row in rows for column in ("bytes/token", "chars/token", "vs best"))


# ----------------------------------------------------------------- stretches


def test_one_differing_stretch_where_one_tokenizer_splits_further():
    results = {"A": spans_from_boundaries([0, 2, 4]), "B": spans_from_boundaries([0, 1, 2, 4])}
    stretches = differing_stretches("abcd", results)
    assert len(stretches) == 1
    stretch = stretches[0]
    assert (stretch.start, stretch.end, stretch.text) == (0, 2, "ab")
    assert stretch.tokens == {"A": [b"ab"], "B": [b"a", b"b"]}


def test_identical_tokenizations_have_no_differences():
    spans = encode_all(MIXED_TEXT, ["cl100k_base"])["cl100k_base"]
    assert differing_stretches(MIXED_TEXT, {"one": spans, "two": list(spans)}) == []


def test_a_boundary_counts_only_if_every_tokenizer_has_it():
    # A and B agree on offset 2, C does not: "abcd" is one stretch, not two.
    cuts = {"A": [0, 2, 4], "B": [0, 2, 4], "C": [0, 4]}
    results = {name: spans_from_boundaries(boundaries) for name, boundaries in cuts.items()}
    stretches = differing_stretches("abcd", results)
    assert [(s.start, s.end) for s in stretches] == [(0, 4)]
    assert stretches[0].tokens == {"A": [b"ab", b"cd"], "B": [b"ab", b"cd"], "C": [b"abcd"]}


def test_text_one_tokenizer_skips_is_a_difference():
    results = {"all": spans_from_boundaries([0, 1, 2]), "skips b": [TokenSpan(0, 0, 1)]}
    stretches = differing_stretches("ab", results)
    assert [(s.start, s.end, s.text) for s in stretches] == [(1, 2, "b")]
    assert stretches[0].tokens == {"all": [b"b"], "skips b": []}


def test_partial_characters_of_a_byte_level_tokenizer():
    text = "あい"
    stretches = differing_stretches(text, encode_all(text, ["cl100k_base"], with_bytes=True))
    assert [(s.start, s.end, s.text) for s in stretches] == [(0, 3, "あ"), (3, 6, "い")]
    assert stretches[0].tokens == {"bytes": [b"\xe3", b"\x81", b"\x82"], "cl100k_base": ["あ".encode()]}


def test_a_stretch_that_cuts_a_character_is_still_displayable():
    # Both tokenizers cut "あ" after its first byte, so the stretch starts mid-character.
    results = {"A": spans_from_boundaries([0, 1, 3]), "B": spans_from_boundaries([0, 1, 2, 3])}
    [stretch] = differing_stretches("あ", results)
    assert (stretch.start, stretch.end) == (1, 3)
    assert stretch.text == "\ufffd\ufffd"
    assert stretch.tokens == {"A": [b"\x81\x82"], "B": [b"\x81", b"\x82"]}


def test_a_special_token_is_compared_like_any_other_token():
    text = "hi<|endoftext|>"
    results = {
        "cl100k": load_encoding("cl100k_base").encode_with_offsets(text, allowed_special="all"),
        "bytes": byte_tokenizer().encode_with_offsets(text),
    }
    special = [s for s in differing_stretches(text, results) if s.text == "<|endoftext|>"]
    assert len(special) == 1
    assert special[0].tokens["cl100k"] == [b"<|endoftext|>"]
    assert special[0].tokens["bytes"] == [bytes([byte]) for byte in b"<|endoftext|>"]


@given(st.text(alphabet=st.sampled_from("ab é\nあ👍1'"), max_size=40))
def test_outside_the_stretches_every_tokenizer_has_the_same_tokens(text):
    results = encode_all(text, with_bytes=True)
    stretches = differing_stretches(text, results)
    data = text.encode()

    def outside(spans):
        return [(s.start, s.end) for s in spans if not any(d.start <= s.start < d.end for d in stretches)]

    assert len({tuple(outside(spans)) for spans in results.values()}) == 1
    for stretch in stretches:
        for tokens in stretch.tokens.values():
            assert b"".join(tokens) == data[stretch.start : stretch.end]


def test_stretch_table_shows_tokens_as_plain_text():
    text = " world\n\nあ"
    rows = stretch_table(differing_stretches(text, encode_all(text, ["cl100k_base"], with_bytes=True)))
    assert rows == [
        {"stretch": "·world", "bytes": "· | w | o | r | l | d", "cl100k_base": "·world"},
        {"stretch": "↵↵", "bytes": "↵ | ↵", "cl100k_base": "↵↵"},
        {"stretch": "あ", "bytes": "<E3> | <81> | <82>", "cl100k_base": "あ"},
    ]



def table_cells(markup: str) -> list[list[str]]:
    """The text of each row's cells (the header first) of an HTML table, as a browser reads it."""
    from html.parser import HTMLParser

    class Cells(HTMLParser):
        def __init__(self):
            super().__init__()
            self.rows, self.cell = [], None

        def handle_starttag(self, tag, attrs):
            if tag == "tr":
                self.rows.append([])
            elif tag in ("td", "th"):
                self.cell = ""

        def handle_endtag(self, tag):
            if tag in ("td", "th"):
                self.rows[-1].append(self.cell)
                self.cell = None

        def handle_data(self, data):
            if self.cell is not None:
                self.cell += data

    parser = Cells()
    parser.feed(markup)
    return parser.rows


def test_the_stretches_are_shown_as_text_never_as_markup_or_markdown():
    rows = [{"stretch": "**a**\\_b_", "gpt2": "<b>x</b> | <script>alert(1)</script>", "o200k_base": "`c` | &amp;"}]
    markup = stretches_html(rows)
    assert "<b>" not in markup and "<script" not in markup
    assert table_cells(markup) == [["stretch", "gpt2", "o200k_base"], list(rows[0].values())]
    assert "max-height" not in markup.split("</style>")[1]


def test_a_long_list_of_stretches_scrolls_under_its_header():
    text = "    x\n" * 30
    rows = stretch_table(differing_stretches(text, encode_all(text, ["gpt2", "cl100k_base"])))
    markup = stretches_html(rows, max_height_rem=26)
    assert 'style="max-height:26rem"' in markup and "position: sticky" in markup
    cells = table_cells(markup)
    assert cells[0] == ["stretch", "gpt2", "cl100k_base"] and len(cells) == len(rows) + 1
    assert cells[1] == list(rows[0].values())


@given(st.binary(max_size=12) | st.text(max_size=8).map(str.encode))
def test_label_text_is_the_same_on_its_quick_paths_as_run_by_run(token):
    """label_text's quick paths (whole characters, whitespace markers) give
    what drawing the token run by run gives."""
    from bpe_core.analysis.labels import split_stray_bytes, visible_marker

    run_by_run = "".join(f"<{run}>" if stray else "".join(visible_marker(char) or char for char in run)
                         for run, stray in split_stray_bytes(token))
    assert label_text(token) == run_by_run

def test_label_text_shows_whitespace_and_stray_bytes():
    assert label_text(b" a\tb\r\n") == "·a→b␍↵"
    assert label_text(b" \xe3\x81") == "·<E3 81>"
    assert label_text("\x00\u00a0".encode()) == "␀·"


# -------------------------------------------------------------- aligned rows


def visible(markup: str) -> str:
    """What a reader sees: tags removed, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def body_of(markup: str) -> str:
    """The aligned rows without the style sheet and the note under them."""
    return re.sub(r"<style>.*?</style>", "", markup, flags=re.S).split('<p class="cmp-note">')[0]


def aligned_lines(markup: str) -> list[dict[str, str]]:
    """For each display line: row name -> the characters that row shows."""
    lines = []
    for line in body_of(markup).split('<div class="cmp-line">')[1:]:
        rows = {}
        for row in line.split('<div class="cmp-row">')[1:]:
            name, characters = row.split("</span>", 1)
            rows[visible(name)] = visible(characters)
        lines.append(rows)
    return lines


def test_each_display_line_shows_the_same_characters_in_every_row():
    text = "Tabs\tand spaces,  naïve 日本語 👍🏽\nsecond line that is long enough to wrap"
    lines = aligned_lines(aligned_rows_html(text, encode_all(text, with_bytes=True), line_width=12))
    assert len(lines) == 7  # 31 characters up to the line break: 12 + 12 + 7; then 12 + 12 + 12 + 3
    for line in lines:
        assert list(line) == ["bytes", *OPENAI]
        assert len(set(line.values())) == 1  # character for character the same
    assert "".join(line["gpt2"] for line in lines) == text.replace(" ", "·").replace("\t", "→").replace("\n", "↵")


def test_display_lines_break_after_newlines_and_at_the_width():
    assert display_lines("abcdefg", 3) == [(0, 3), (3, 6), (6, 7)]
    assert display_lines("ab\ncd", 80) == [(0, 3), (3, 5)]
    assert display_lines("", 80) == []
    with pytest.raises(ValueError, match="at least 1 character wide"):
        display_lines("abc", 0)


def test_a_boundary_bar_at_the_start_of_every_token():
    text = "Hello world"
    markup = body_of(aligned_rows_html(text, encode_all(text, ["cl100k_base"], with_bytes=True)))
    rows = markup.split('<div class="cmp-row">')[1:]
    assert [row.count('class="cmp-start"') for row in rows] == [11, 2]


def test_no_boundary_bar_where_a_token_continues_on_the_next_line():
    text = "Hello world"  # cl100k: "Hello", " world"; lines of 3: "Hel", "lo ", "wor", "ld"
    markup = body_of(aligned_rows_html(text, encode_all(text, ["cl100k_base"]), line_width=3))
    lines = markup.split('<div class="cmp-line">')[1:]
    assert [line.count('class="cmp-start"') for line in lines] == [1, 1, 0, 0]


def test_characters_take_their_tokens_colours():
    text = "Hello world"
    markup = aligned_rows_html(text, encode_all(text, ["cl100k_base"]))
    assert f'style="background:{PALETTE[0]}" title="token 1 · id 9906 · Hello">Hello</span>' in markup
    assert f'style="background:{PALETTE[1]}" title="token 2 · id 1917 · ·world"><span class="cmp-ws">·</span>world' in markup


def test_characters_that_could_join_their_neighbours_are_boxed_and_ascii_is_text():
    """A box each keeps a vowel sign or an emoji modifier from joining a
    letter another row draws apart; printable ASCII never joins."""
    text = "naïve नमस्ते 👍🏽"
    markup = aligned_rows_html(text, encode_all(text, ["gpt2"]))
    for char in "ïनमस्ते👍🏽":
        assert f"<span>{char}</span>" in markup
    assert not [char for char in "nave" if f"<span>{char}</span>" in markup]


def test_a_character_split_across_tokens_is_striped_and_says_so():
    text = "あ"
    markup = body_of(aligned_rows_html(text, encode_all(text, ["cl100k_base"], with_bytes=True)))
    bytes_row, cl100k_row = markup.split('<div class="cmp-row">')[1:]
    stripes = f"{PALETTE[0]} 0.0% 33.3%, {PALETTE[1]} 33.3% 66.7%, {PALETTE[2]} 66.7% 100.0%"
    assert f"linear-gradient(90deg, {stripes})" in bytes_row
    assert "split across 3 tokens" in bytes_row and "&lt;E3&gt;" in bytes_row
    assert "gradient" not in cl100k_row and "split" not in cl100k_row


def test_user_markup_in_the_aligned_view_is_escaped():
    text = '<b>x</b><script>alert(1)</script><img src=x onerror="alert(2)">'
    markup = body_of(aligned_rows_html(text, encode_all(text)))
    assert "<script" not in markup and "<img" not in markup and "<b>" not in markup
    for title in re.findall(r'title="([^"]*)"', markup):
        assert "<" not in title
    assert all(row == text.replace(" ", "·") for row in aligned_lines(markup)[0].values())


def test_a_long_text_is_capped_with_a_note():
    text = "ab " * 2000
    markup = aligned_rows_html(text, encode_all(text, ["gpt2", "cl100k_base"]), max_chars=4_000)
    assert "Showing the first 4,000 of 6,000 characters." in markup
    for name in ("gpt2", "cl100k_base"):
        assert len("".join(line[name] for line in aligned_lines(markup))) == 4_000


# --------------------------------------------------------------------- bars


def bars(markup: str) -> list[tuple[str, str, str, str]]:
    """(name, value written, height, colour) of each bar of a bar chart."""
    names = re.findall(r"<span>([^<]*)</span>", markup.split('class="bpe-bars-names"')[1])
    drawn = re.findall(r'<span class="bpe-bar-value">([^<]*)</span><div class="bpe-bar-fill" '
                       r'style="height: calc\(\(100% - [0-9.]+rem\) \* ([0-9.]+)\); background: ([^"]*)"', markup)
    return [(name, value, height, colour) for name, (value, height, colour) in zip(names, drawn, strict=True)]


def test_bars_are_as_high_as_their_token_counts_and_the_fewest_are_green():
    rows = summary_rows("abcd", {"A": spans_from_boundaries([0, 2, 4]), "B": spans_from_boundaries([0, 1, 2, 3, 4])})
    markup = token_count_bars(rows)
    assert "Tokens for this text (fewest in green)" in markup
    assert bars(markup) == [("A", "2", "0.5000", BEST_COLOUR), ("B", "4", "1.0000", OTHER_COLOUR)]
    assert 'title="A: 2 tokens"' in markup


def test_bar_names_cannot_carry_markup():
    rows = [{"tokenizer": 'loaded: <a href="http://x">x</a>.json', "tokens": 3}]
    markup = token_count_bars(rows)
    assert "<a " not in markup
    assert bars(markup)[0][0] == "loaded: &lt;a href=&quot;http://x&quot;&gt;x&lt;/a&gt;.json"
