"""The vocabulary table: one row per token, facts checked against tiktoken and Unicode."""

import unicodedata

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_core import train
from bpe_core.analysis import vocabulary, vocabulary_search
from bpe_core.analysis.vocabulary import (
    CATEGORIES,
    DIGITS,
    MIXED,
    NON_SCRIPT_CATEGORIES,
    NOT_UTF8,
    SPECIAL,
    SYMBOLS,
    WHITESPACE,
    code_points,
    script_counts,
    script_of,
    token_detail,
)
from bpe_core.analysis.vocabulary_search import filter_tokens, regex_matches, search, sort_tokens, vocabulary_table
from bpe_core.drawing.palette import PALETTE
from bpe_core.drawing.tables import TOKEN_CHARS_SHOWN, table_html
from bpe_core.drawing.vocabulary import script_bars_html
from bpe_core.vocabularies.catalogue import load_encoding
from bpe_core.vocabularies.openai import tiktoken_encoding
from tests.apptest import horizontal_bars

TEXT = "the cat sat on the mat; the cat ate the rat. こんにちは、こんにちは! Привет, привет."


@pytest.fixture(scope="module")
def gpt2():
    return vocabulary_table(load_encoding("gpt2"))


@pytest.fixture(scope="module")
def cl100k():
    return vocabulary_table(load_encoding("cl100k_base"))


@pytest.fixture(scope="module")
def o200k():
    return vocabulary_table(load_encoding("o200k_base"))


@pytest.fixture(scope="module")
def trained():
    return train(TEXT, num_merges=40, pattern="gpt2", special_tokens=("<|endoftext|>",))


def row(table: pd.DataFrame, token_id: int) -> pd.Series:
    return table.set_index("id").loc[token_id]


# ------------------------------------------------------------------ rows


@pytest.mark.slow
@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_one_row_per_token_and_special_token_in_id_order(name):
    reference = tiktoken_encoding(name)
    table = vocabulary_table(load_encoding(name))
    token_bytes = {}
    for token_id in range(reference.n_vocab):  # cl100k_base has unused ids before its special tokens
        try:
            token_bytes[token_id] = reference.decode_single_token_bytes(token_id)
        except KeyError:
            pass
    assert table["id"].tolist() == list(token_bytes)
    assert table["bytes"].tolist() == [len(token) for token in token_bytes.values()]
    assert table["special"].sum() == len(reference.special_tokens_set)
    assert set(table.loc[table["special"], "text"]) == reference.special_tokens_set


def test_gpt2_end_of_text_is_special(gpt2):
    endoftext = row(gpt2, 50256)
    assert endoftext["special"] and endoftext["text"] == "<|endoftext|>"
    assert endoftext["script"] == SPECIAL and not endoftext["leading_space"]
    assert gpt2.loc[~gpt2["special"], "id"].max() == 50255


def test_gpt2_the_with_a_space(gpt2):
    (the,) = tiktoken_encoding("gpt2").encode(" the")
    facts = row(gpt2, the)
    assert the == 262
    assert facts["text"] == "·the" and facts["string"] == " the"
    assert facts["leading_space"] and facts["script"] == "Latin"
    assert (facts["bytes"], facts["characters"], facts["valid_utf8"]) == (4, 4, True)
    assert pd.isna(facts["learned_at_step"])  # a bundled encoding has no training history


@pytest.mark.slow
def test_cl100k_has_tokens_that_are_not_utf8_on_their_own(cl100k):
    reference = tiktoken_encoding("cl100k_base")
    broken = cl100k[~cl100k["valid_utf8"]]
    assert len(broken) > 100
    for token_id in broken["id"].head(20):
        with pytest.raises(UnicodeDecodeError):
            reference.decode_single_token_bytes(token_id).decode("utf-8")
    assert set(broken["script"]) == {NOT_UTF8}
    assert broken["characters"].isna().all()
    assert broken["text"].str.contains("<[0-9A-F]{2}", regex=True).all()  # shown as <E3 81>, not �


def decodes_alone(encoding, token_id: int) -> bool:
    """Whether a token's bytes are valid UTF-8 on their own (tiktoken's bytes)."""
    try:
        encoding.decode_single_token_bytes(token_id).decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


@pytest.mark.slow
def test_valid_utf8_agrees_with_decoding_every_token(cl100k):
    reference = tiktoken_encoding("cl100k_base")


    assert cl100k["valid_utf8"].tolist() == [decodes_alone(reference, token_id) for token_id in cl100k["id"]]


@pytest.mark.slow
def test_o200k_has_devanagari_and_han_tokens(o200k):
    def names(text: str) -> list[str]:
        return [unicodedata.name(char, "") for char in text if unicodedata.category(char)[0] in "LM"]

    devanagari = o200k[o200k["script"] == "Devanagari"]
    han = o200k[o200k["script"] == "Han (CJK)"]
    assert len(devanagari) > 1_000 and len(han) > 1_000
    for text in devanagari["string"].head(50):
        assert sum(name.startswith("DEVANAGARI") for name in names(text)) * 2 > len(names(text))
    for text in han["string"].head(50):
        assert sum(name.startswith("CJK") for name in names(text)) * 2 > len(names(text))
    encoding = tiktoken_encoding("o200k_base")
    hindi = {row(o200k, token_id)["script"] for token_id in encoding.encode("नमस्ते दुनिया")}
    chinese = {row(o200k, token_id)["script"] for token_id in encoding.encode("你好世界")}
    assert "Devanagari" in hindi and "Han (CJK)" in chinese


def test_leading_space_means_the_first_byte_is_a_space(gpt2):
    first_is_space = [
        not special and token.startswith(" ") for token, special in zip(gpt2["string"], gpt2["special"])
    ]
    assert gpt2["leading_space"].tolist() == first_is_space


# --------------------------------------------------------------- trained


def test_learned_at_step_follows_the_trace(trained):
    table = vocabulary_table(trained)
    steps = dict(zip(table["id"], table["learned_at_step"]))
    assert len(trained.trace) == 40
    for number, merge in enumerate(trained.trace, start=1):
        assert steps[merge.new_id] == number
        assert row(table, merge.new_id)["bytes"] == len(merge.token)
    learned = {merge.new_id for merge in trained.trace}
    assert all(pd.isna(step) for token_id, step in steps.items() if token_id not in learned)
    assert row(table, trained.special_tokens["<|endoftext|>"])["special"]


def test_character_level_tokenizer_has_steps_and_text():
    tokenizer = train(TEXT, num_merges=10, units="chars", pattern="gpt2")
    table = vocabulary_table(tokenizer)
    assert len(table) == len(tokenizer.vocab)
    for number, merge in enumerate(tokenizer.trace, start=1):
        assert row(table, merge.new_id)["learned_at_step"] == number
        assert row(table, merge.new_id)["string"] == merge.token
    assert table["valid_utf8"].all()


def test_token_detail_of_a_learned_token(trained):
    merge = trained.trace[4]
    detail = token_detail(trained, merge.new_id)
    assert detail.step == 5 and detail.parts == merge.pair
    assert bytes.fromhex(detail.hex) == merge.token
    assert trained.token_bytes(merge.pair[0]) + trained.token_bytes(merge.pair[1]) == merge.token


def test_token_detail_of_bundled_and_unknown_ids():
    gpt2 = load_encoding("gpt2")
    detail = token_detail(gpt2, 262)
    assert (detail.label, detail.hex, detail.step, detail.parts) == ("·the", "20 74 68 65", None, None)
    assert token_detail(gpt2, 50256).special
    with pytest.raises(ValueError, match="ids run from 0 to 50256"):
        token_detail(gpt2, 60_000)


def test_code_points_name_every_character_and_stray_byte():
    points = code_points("a\u00a0あ".encode() + b"\xe3\x81")
    assert [point["code point"] for point in points] == ["U+0061", "U+00A0", "U+3042", "", ""]
    assert points[1]["name"] == "NO-BREAK SPACE"
    assert [point["character"] for point in points[-2:]] == ["<E3>", "<81>"]


# ---------------------------------------------------------------- scripts


@pytest.mark.parametrize(
    "text, script",
    [
        ("hello", "Latin"),
        (" Привет", "Cyrillic"),
        ("नमस्ते", "Devanagari"),  # vowel signs and virama are marks, still Devanagari
        ("こんにちは", "Hiragana/Katakana"),
        ("カタカナ", "Hiragana/Katakana"),
        ("世界", "Han (CJK)"),
        ("한국어", "Hangul"),
        ("ሰላም", "Ethiopic"),
        ("မြန်မာ", "Myanmar"),
        ("สวัสดี", "Thai"),
        ("שלום", "Hebrew"),
        ("مرحبا", "Arabic"),
        ("café2024", "Latin"),  # digits do not vote
        (" 2024", DIGITS),
        ("١٢٣", DIGITS),  # Arabic-Indic digits are digits too
        (" \n\t", WHITESPACE),
        ("!=", SYMBOLS),
        ("👍🏽", SYMBOLS),
        ("aб", MIXED),
    ],
)
def test_script_of(text, script):
    assert script_of(text) == script


@given(st.text(max_size=12))
def test_script_of_any_text_is_a_known_category(text):
    assert script_of(text) in CATEGORIES


@given(st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=12))
def test_an_ascii_token_with_letters_is_latin_as_its_letters_vote(text):
    """script_of's quick path for ASCII: only its letters vote, and every one votes Latin."""
    assert all(vocabulary.letter_script(char) is None for char in text if not char.isalpha())
    if any(char.isalpha() for char in text):
        assert {vocabulary.letter_script(char) for char in text if char.isalpha()} == {"Latin"}
        assert script_of(text) == "Latin"


@pytest.mark.slow
def test_script_counts_add_up_and_come_most_first(o200k):
    counts = script_counts(o200k["script"])
    assert counts == o200k["script"].value_counts().to_dict()  # pandas' count, an oracle of its own
    assert list(counts.values()) == sorted(counts.values(), reverse=True)
    assert next(iter(counts)) == "Latin"


def test_script_bars_are_sorted_in_palette_colours_and_escaped(gpt2):
    counts = script_counts(gpt2["script"])
    shuffled = dict(reversed(counts.items()))  # the fewest first: drawn largest first all the same
    bars = horizontal_bars(script_bars_html(shuffled))
    drawn = {script: int(bar.text.replace(",", "")) for script, (bar,) in bars.rows.items()}
    assert drawn == counts
    assert list(drawn.values()) == sorted(counts.values(), reverse=True)
    lengths = [bar.length for (bar,) in bars.rows.values()]
    assert lengths == sorted(lengths, reverse=True) and lengths[0] > 50 * lengths[-1]  # one scale: Latin dwarfs the rest
    assert bars.rows["Latin"][0].colour == PALETTE[0] and bars.legend["a script"] == PALETTE[0]
    assert {bar.colour for script, (bar,) in bars.rows.items() if script in NON_SCRIPT_CATEGORIES} == {PALETTE[-1]}
    assert "&lt;b&gt;" in script_bars_html({"<b>": 3}) and "<b>" not in script_bars_html({"<b>": 3})


def test_a_plain_table_draws_tokens_as_tokens_escaped_and_cut():
    """The first rows' table: a token is the user's bytes, so a `<b>` or a `*` in it stays text (never
    markup, never Markdown), in type that shows each character; a very long one is cut; a missing count is empty."""
    import re

    frame = pd.DataFrame({
        "id": [7, 8, 9],
        "to<ken>": ["<b>&amp;", "*·x*", "é" * (TOKEN_CHARS_SHOWN + 5)],
        "characters": pd.array([3, None, 85], dtype="Int64"),
    })
    markup = table_html(frame, {"id": "{:d}", "characters": "{:,}"}, {"to<ken>": "<i>help</i>"}, tokens={"to<ken>"})
    cells = [re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row) for row in re.findall(r"<tr>(.*?)</tr>", markup)]
    assert cells == [
        ["id", "to&lt;ken&gt;", "characters"],
        ["7", "&lt;b&gt;&amp;amp;", "3"],
        ["8", "*·x*", ""],
        ["9", "é" * TOKEN_CHARS_SHOWN + "…", "85"],
    ]
    assert 'title="&lt;i&gt;help&lt;/i&gt;"' in markup
    assert markup.count('<td class="tok">') == 3 and markup.count('<td class="num">') == 2 * 3


# ------------------------------------------------------ search and filters


def test_search_by_text_matches_what_is_shown(gpt2):
    typed_space = search(gpt2, text=" the")
    shown_dot = search(gpt2, text="·the")
    assert typed_space["id"].tolist() == shown_dot["id"].tolist()
    assert 262 in typed_space["id"].tolist()
    assert typed_space["string"].str.contains(" the", regex=False).all()
    assert len(search(gpt2, text="THE", ignore_case=True)) > len(search(gpt2, text="THE"))


@pytest.mark.slow
def test_search_by_text_finds_stray_bytes(cl100k):
    found = search(cl100k, text="<E3 81>")
    assert len(found) > 0 and not found["valid_utf8"].any()


@pytest.mark.slow  # seconds: worker processes or whole vocabularies
def test_search_by_regex_uses_the_tokens_own_text(gpt2):
    found = search(gpt2, regex=r"^ \d{3}$")
    assert len(found) > 100
    assert all(len(text) == 4 and text[0] == " " and text[1:].isdigit() for text in found["string"])
    han = search(gpt2, regex=r"\p{Han}")
    assert len(han) > 0 and all(any("CJK" in unicodedata.name(c, "") for c in t) for t in han["string"])
    assert len(search(gpt2, regex="^the$", ignore_case=True)) == 3  # the, The, THE


def test_search_by_id_and_combined(gpt2):
    assert search(gpt2, id=262)["text"].tolist() == ["·the"]
    assert search(gpt2, id=10**9).empty
    assert search(gpt2, text="the", id=262)["id"].tolist() == [262]
    assert search(gpt2, text="cat", id=262).empty
    assert len(search(gpt2)) == len(gpt2)


def test_bad_regex_is_a_clear_value_error(gpt2):
    with pytest.raises(ValueError, match=r"'\(unclosed' cannot be searched for: it is not a valid regular expression \(missing \)"):
        search(gpt2, regex="(unclosed")


@pytest.mark.usefixtures("quick_regex_deadlines")
def test_catastrophic_regex_is_stopped_with_a_message():
    import regex

    long_token = pd.Series(["a" * 60 + "b"])
    with pytest.raises(ValueError, match="takes too long"):
        regex_matches(long_token, regex.compile(r"(a|aa)+$"))


def test_filters(gpt2):
    latin_or_greek = filter_tokens(gpt2, ["Latin", "Greek"])
    assert set(latin_or_greek["script"]) == {"Latin", "Greek"}
    broken = filter_tokens(gpt2, only_not_utf8=True)
    assert len(broken) == (~gpt2["valid_utf8"]).sum() > 0
    spaced = filter_tokens(gpt2, ["Latin"], only_leading_space=True)
    assert spaced["string"].str.startswith(" ").all() and 262 in spaced["id"].tolist()


def test_sorting(trained, gpt2):
    longest = sort_tokens(gpt2, "length")
    assert longest["bytes"].is_monotonic_decreasing and longest["bytes"].iloc[0] == gpt2["bytes"].max()
    by_step = sort_tokens(vocabulary_table(trained), "step")
    assert by_step["learned_at_step"].head(40).tolist() == list(range(1, 41))
    assert sort_tokens(longest, "id")["id"].tolist() == gpt2["id"].tolist()
    with pytest.raises(ValueError, match="Cannot sort by 'colour'"):
        sort_tokens(gpt2, "colour")


def test_a_regex_is_refused_when_the_whole_vocabulary_takes_too_long(gpt2, monkeypatch):
    """Each token alone may be quick while the pass over 50,000 of them is
    not: the pass has its own limit (set to nothing here, so any pattern
    reaches it)."""
    monkeypatch.setattr(vocabulary_search, "REGEX_SECONDS_IN_ALL", 0.0)
    with pytest.raises(ValueError, match="too long over the whole vocabulary"):
        search(gpt2, regex=r"e")


def test_the_unknown_character_token_has_a_category_of_its_own():
    tok = train("abcabc", num_merges=2, pattern="none", units="chars")
    table = vocabulary_table(tok)
    assert table.loc[table["id"] == tok.unknown_id, "script"].item() == "unknown character"
