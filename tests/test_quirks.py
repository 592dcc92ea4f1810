"""The Quirks gallery's examples: every fact they state is tiktoken's, and
every explanation is computed from the tokenizers it is given."""

import ast
import html
import re
import unicodedata
from pathlib import Path

import pytest

from bpe_core import train
from bpe_core.analysis import quirks
from bpe_core.analysis.labels import label_text
from bpe_core.analysis.quirks import QUIRKS, Quirk
from bpe_core.drawing.quirks import CARDS_CSS, card_html
from bpe_core.vocabularies.catalogue import load_encoding
from bpe_core.vocabularies.openai import tiktoken_encoding
from tests.test_render import visible_text

OPENAI = ("gpt2", "cl100k_base", "o200k_base")
QUIRK_BY_ID = {quirk.id: quirk for quirk in QUIRKS}


def tokenizers_for(quirk: Quirk) -> dict:
    return {name: load_encoding(name) for name in quirk.tokenizers}


def explanation(quirk_id: str) -> str:
    quirk = QUIRK_BY_ID[quirk_id]
    return "\n".join(quirk.explain(tokenizers_for(quirk)))


def reference_line(quirk_id: str, name: str) -> str:
    """The explanation's statement about one tokenizer."""
    return next(line for line in explanation(quirk_id).splitlines() if line.startswith(f"{name}:"))


# ------------------------------------------------- tiktoken, the reference


def tiktoken_covering(name: str, text: str, part: str) -> list[int]:
    """tiktoken's tokens touching the first `part` of `text`, located by
    adding up the byte lengths of tiktoken's own tokens."""
    encoding = tiktoken_encoding(name)
    start = len(text[: text.index(part)].encode())
    end = start + len(part.encode())
    covering, position = [], 0
    for token in encoding.encode(text):
        size = len(encoding.decode_single_token_bytes(token))
        if position < end and position + size > start:
            covering.append(token)
        position += size
    return covering


def tiktoken_label(name: str, ids) -> str:
    encoding = tiktoken_encoding(name)
    return " | ".join(label_text(encoding.decode_single_token_bytes(token)) for token in ids)


def tiktoken_vocabulary(name: str) -> list[bytes]:
    return tiktoken_encoding(name).token_byte_values()


# --------------------------------------------------------------- the list


def test_at_least_eight_quirks_each_with_a_view_and_known_tokenizers():
    assert len(QUIRKS) >= 8
    assert len(QUIRK_BY_ID) == len(QUIRKS), "quirk ids must be unique"
    for quirk in QUIRKS:
        assert quirk.view in ("inspect", "compare")
        assert 2 <= len(quirk.tokenizers) <= 3 and set(quirk.tokenizers) <= set(OPENAI)
        assert quirk.title and quirk.text
        assert quirk.inspect_tokenizer == quirk.tokenizers[0]


def test_the_issue_examples_are_all_there():
    texts = " ".join(quirk.text for quirk in QUIRKS)
    skin_tone, zero_width_joiner = "\N{EMOJI MODIFIER FITZPATRICK TYPE-4}", "\u200d"
    for example in ("strawberry", "9.11", "9.9", " hello", " SolidGoldMagikarp", "    ", skin_tone, zero_width_joiner):
        assert example in texts


def test_one_quirk_is_multilingual_with_burmese():
    scripts = {unicodedata.name(char).split()[0] for quirk in QUIRKS for char in quirk.text if char.isalpha()}
    assert {"LATIN", "MYANMAR"} <= scripts


@pytest.mark.parametrize("quirk", QUIRKS, ids=lambda quirk: quirk.id)
def test_the_card_counts_are_tiktokens(quirk):
    card = visible_text(card_html(quirk, tokenizers_for(quirk)))
    for name in quirk.tokenizers:
        count = len(tiktoken_encoding(name).encode(quirk.text))
        assert f"{name} · {count:,} token{'s' * (count != 1)}" in card


# ------------------------------------------------------ each quirk's facts


def test_strawberry_is_one_token_after_a_space_and_hides_its_letters():
    word = "strawberry"
    for name in OPENAI:
        in_question = tiktoken_covering(name, quirks.STRAWBERRY_TEXT, word)
        alone = tiktoken_encoding(name).encode(word)
        assert in_question == tiktoken_encoding(name).encode(" " + word) and len(in_question) == 1
        line = reference_line("strawberry", name)
        assert f"(id {in_question[0]})" in line
        assert f"{len(alone)} tokens: {tiktoken_label(name, alone)}" in line
        per_token = [tiktoken_encoding(name).decode_single_token_bytes(token).count(b"r") for token in alone]
        assert sum(per_token) == word.count("r")
        assert ", ".join(map(str, per_token[:-1])) + f" and {per_token[-1]}" in line
    assert f"has {word.count('r')} letters" in explanation("strawberry")


def test_decimals_are_split_at_the_point_as_tiktoken_splits_them():
    for name in OPENAI:
        line = reference_line("decimals", name)
        for number in ("9.11", "9.9"):
            assert f"{number} is {tiktoken_label(name, tiktoken_covering(name, quirks.DECIMALS_TEXT, number))}" in line
        eleven = tiktoken_encoding(name).encode("11")
        assert len(eleven) == 1 and eleven[0] in tiktoken_covering(name, quirks.DECIMALS_TEXT, "9.11")


def test_digit_groups_follow_each_pattern():
    for name in OPENAI:
        groups = tiktoken_covering(name, quirks.DIGITS_TEXT, "1234567890")
        longest = max(len(token) for token in tiktoken_vocabulary(name) if token.isdigit())
        line = reference_line("digits", name)
        assert tiktoken_label(name, groups) in line
        assert f"longest digit token has {longest} digits" in line
        assert quirks.longest_digit_token(load_encoding(name)) == longest
    for name in ("cl100k_base", "o200k_base"):  # `\p{N}{1,3}` in their split patterns
        assert quirks.digit_group_limit(load_encoding(name)) == 3
        assert "groups of at most 3" in reference_line("digits", name)
        assert all(len(tiktoken_encoding(name).decode_single_token_bytes(t)) <= 3
                   for t in tiktoken_covering(name, quirks.DIGITS_TEXT, "1234567890"))
    assert quirks.digit_group_limit(load_encoding("gpt2")) is None
    assert "keeps a run of digits whole" in reference_line("digits", "gpt2")


def test_each_spelling_of_hello_is_its_own_token():
    quirk = QUIRK_BY_ID["leading_space"]
    for name in quirk.tokenizers:
        ids = [tiktoken_encoding(name).encode(variant) for variant in quirks.HELLO_VARIANTS]
        singles = [variant_ids[0] for variant_ids in ids if len(variant_ids) == 1]
        assert len(singles) == len(set(singles)) >= 4  # hello, ·hello, Hello, ·Hello
        line = reference_line("leading_space", name)
        for variant_ids in ids:
            assert f"{tiktoken_label(name, variant_ids)} = {' '.join(map(str, variant_ids))}" in line
            assert all(token in tiktoken_encoding(name).encode(quirk.text) for token in variant_ids)


def test_a_trailing_space_is_a_token_of_its_own():
    for name in OPENAI:
        encoding = tiktoken_encoding(name)
        last = encoding.encode(quirks.TRAILING_SPACE_TEXT)[-1]
        assert encoding.decode_single_token_bytes(last) == b" "
        line = reference_line("trailing_space", name)
        assert f"last token is · (id {last})" in line
        for word in (" Paris", "Paris"):
            (token,) = encoding.encode(word)
            assert f"(id {token})" in line


def test_solid_gold_magikarp_is_one_token_in_gpt2_only():
    word = " SolidGoldMagikarp"
    (glitch,) = tiktoken_encoding("gpt2").encode(word)
    assert f"1 token: ·SolidGoldMagikarp (id {glitch})" in reference_line("glitch_token", "gpt2")
    assert tiktoken_covering("gpt2", quirks.GLITCH_TEXT, word) == [glitch]
    for name in ("cl100k_base", "o200k_base"):
        pieces = tiktoken_encoding(name).encode(word)
        assert len(pieces) > 1
        assert f"{len(pieces)} tokens: {tiktoken_label(name, pieces)}" in reference_line("glitch_token", name)
    assert "Rumbelow & Watkins (2023)" in QUIRK_BY_ID["glitch_token"].source


def test_indentation_costs_a_token_per_space_in_gpt2_only():
    text = quirks.INDENTATION_TEXT
    for name in OPENAI:
        encoding = tiktoken_encoding(name)
        tokens = [encoding.decode_single_token_bytes(token) for token in encoding.encode(text)]
        spaces = [len(token) for token in tokens if token and not token.strip(b" ")]
        longest = max(len(token) for token in tiktoken_vocabulary(name) if token and not token.strip(b" "))
        line = reference_line("indentation", name)
        assert line.startswith(f"{name}: {len(tokens)} tokens, {len(spaces)} of them only spaces")
        assert f"({sum(spaces)} spaces)" in line
        assert f"its longest token of spaces is {longest} space" in line
        assert tiktoken_label(name, tiktoken_covering(name, text, "    result")) in line
    assert quirks.longest_space_token(load_encoding("gpt2")) == 1
    assert quirks.longest_space_token(load_encoding("cl100k_base")) > 4


def test_emoji_costs_and_split_bytes_are_tiktokens():
    text = quirks.EMOJI_TEXT
    for name in OPENAI:
        line = reference_line("emoji", name)
        for emoji in (quirks.SKIN_TONE_THUMBS_UP, quirks.FAMILY):
            assert f"{emoji} {len(tiktoken_covering(name, text, emoji))} tokens" in line
        assert tiktoken_label(name, tiktoken_covering(name, text, quirks.THUMBS_UP)) in line
    thumbs_up = tiktoken_covering("cl100k_base", text, quirks.THUMBS_UP)
    assert len(thumbs_up) > 1 and "<" in tiktoken_label("cl100k_base", thumbs_up)  # bytes of one emoji, split
    assert "7 code points, 25 bytes" in explanation("emoji")  # 4 people + 3 joiners; 4 × 4 + 3 × 3 bytes


def test_greeting_costs_per_language_are_tiktokens():
    for name in OPENAI:
        costs = {
            language: len(tiktoken_covering(name, quirks.GREETINGS_TEXT, line))
            for language, line in quirks.GREETINGS.items()
        }
        assert quirks.greeting_costs(load_encoding(name)) == costs
        line = reference_line("greetings", name)
        assert f"English {costs['English']}" in line
        assert f"Burmese {costs['Burmese']} ({costs['Burmese'] / costs['English']:.1f}×)" in line
    burmese = {name: quirks.greeting_costs(load_encoding(name))["Burmese"] for name in OPENAI}
    assert burmese["gpt2"] > burmese["o200k_base"]


# ----------------------------------------------- explanations are live


@pytest.mark.parametrize("quirk", QUIRKS, ids=lambda quirk: quirk.id)
def test_explanations_follow_the_tokenizers_they_are_given(quirk):
    """Give each name another tokenizer: the statements change with it."""
    real = tokenizers_for(quirk)
    swapped = dict(zip(real, reversed(list(real.values()))))
    assert quirk.explain(swapped) != quirk.explain(real)


@pytest.mark.parametrize("quirk", QUIRKS, ids=lambda quirk: quirk.id)
def test_explanations_work_for_any_tokenizer(quirk):
    """A small vocabulary has none of the tokens the quirks are about."""
    small = train("the cat sat on the mat. " * 20 + "def f():\n    return 1\n", vocab_size=300)
    lines = quirk.explain({name: small for name in quirk.tokenizers})
    card = card_html(quirk, {name: small for name in quirk.tokenizers})
    count = len(small.encode(quirk.text))
    assert lines and f"{count:,} token" in visible_text(card)


def test_no_token_id_or_count_is_typed_into_the_module():
    """Numbers in the explanations come from tokenizers; the source holds none."""
    tree = ast.parse(Path(quirks.__file__).read_text(encoding="utf-8"))
    numbers = {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and type(node.value) is int}
    assert numbers <= {0, 1}, numbers


# ------------------------------------------------------------- escaping


def test_card_escapes_every_text():
    payload = '<script>alert(1)</script><img src=x onerror=alert(2)>'
    quirk = Quirk("xss", f"Title {payload}", f"text {payload}", "compare", OPENAI[:2],
                  explain=lambda tokenizers: [f"explained {payload}"], source=f"source {payload}")
    card = card_html(quirk, tokenizers_for(quirk))
    assert "<script" not in card and "<img" not in card
    for shown in (f"Title {payload}", f"explained {payload}", f"source {payload}"):
        assert html.escape(shown) in card
    assert payload.replace(" ", "·") in visible_text(card)


def test_byte_labels_in_explanations_reach_the_card_escaped():
    quirk = QUIRK_BY_ID["emoji"]
    card = card_html(quirk, tokenizers_for(quirk))
    facts = re.search(r'<ul class="quirk-facts">(.*)</ul>', card, flags=re.DOTALL)[1]
    assert "&lt;F0 9F&gt;" in facts and "<F0" not in facts


def test_a_card_carries_the_token_style_once_for_all_its_rows():
    quirk = QUIRK_BY_ID["strawberry"]
    card = card_html(quirk, tokenizers_for(quirk))
    assert card.count('class="bpe-text"') == len(quirk.tokenizers) > 1
    assert card.count(".bpe-tok[data-card]:hover::after") == 1  # hover cards still styled, once
    bare = card_html(quirk, tokenizers_for(quirk), styled=False)  # for a page that styles all its cards once
    assert "<style>" not in bare and bare == card.removeprefix(CARDS_CSS)
