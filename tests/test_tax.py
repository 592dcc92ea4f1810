"""Tokenization-tax metrics, the parallel corpus they stand on, and the CLI."""

import json
import re
import unicodedata

import pytest

from bpe_core import train
from bpe_core.analysis.tax import (
    HELD_OUT_LINES,
    PARALLEL_DIR,
    TRAINING_LINES,
    Cost,
    languages,
    measure,
    parallel_lines,
    parallel_text,
    premiums,
    tax_table,
    training_mix,
)
from bpe_core.encodings import load_encoding, tiktoken_encoding
from tests.cli import run_cli

REQUIRED = "en es fr de pt ru vi zh ja ko ar hi el th hy am my".split()
LATIN = {"en", "es", "fr", "de", "pt", "vi", "tr", "sw", "id", "yo"}


# ------------------------------------------------------------- the corpus


def test_manifest_and_files_match():
    files = {path.stem for path in PARALLEL_DIR.glob("*.txt")}
    assert files == set(languages())
    assert set(REQUIRED) <= files
    assert len(files) >= 25
    assert list(languages())[0] == "en"


@pytest.mark.parametrize("code", sorted(languages()))
def test_every_file_is_line_aligned_clean_utf8(code):
    raw = (PARALLEL_DIR / f"{code}.txt").read_bytes()
    text = raw.decode("utf-8")
    assert text == unicodedata.normalize("NFC", text)
    assert text.endswith("\n") and not text.endswith("\n\n") and "\r" not in text
    lines = parallel_lines(code)
    assert len(lines) == len(parallel_lines("en"))
    assert all(line.strip() for line in lines)


@pytest.mark.parametrize("code", sorted(set(languages()) - {"en"}))
def test_no_english_left_in_translations(code):
    english_lines = parallel_lines("en")
    for number, (line, english) in enumerate(zip(parallel_lines(code), english_lines), start=1):
        assert line != english, f"{code} line {number} is the English line"
        if code not in LATIN:
            assert not re.search(r"[A-Za-z]{3,}", line), f"{code} line {number} has Latin words: {line}"
    english_words = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", " ".join(english_lines))}
    english_words -= {"maria", "samir", "nareva"}  # names are spelled alike in Latin scripts
    if code in LATIN:
        words = [w.lower() for w in re.findall(r"[A-Za-z]{4,}", " ".join(parallel_lines(code)))]
        shared = sum(word in english_words for word in words) / max(len(words), 1)
        assert shared < 0.25, f"{code} shares {shared:.0%} of its words with the English"


def test_folder_readme_states_origin_and_no_flores():
    readme = (PARALLEL_DIR / "README.md").read_text(encoding="utf-8")
    assert "written for this project" in readme
    assert "FLORES" in readme


# ------------------------------------------------------------ the metrics


def test_cost_ratios_on_a_hand_counted_case():
    tok = load_encoding("cl100k_base")
    cost = measure(tok, "Hello world, hello tokens")  # Hello| world|,| hello| tokens
    assert cost == Cost(tokens=5, bytes=25, chars=25, words=4)
    assert cost.bytes_per_token == 5.0 and cost.chars_per_token == 5.0 and cost.fertility == 1.25
    assert measure(tok, "日本語", spaces_between_words=False).fertility is None


def test_premium_is_a_ratio_of_totals():
    tok = load_encoding("gpt2")
    texts = {"en": "one two three", "xx": "один два три"}
    rows = {row.code: row for row in tax_table({"gpt2": tok}, texts)}
    english, russian = (len(tiktoken_encoding("gpt2").encode(texts[c])) for c in ("en", "xx"))
    assert rows["xx"].premium == russian / english
    assert rows["en"].premium == 1.0
    assert rows["xx"].byte_premium == len(texts["xx"].encode()) / len(texts["en"].encode())


def test_a_base_text_without_tokens_is_refused():
    tok = train("ab cd", num_merges=1, pattern=r"[a-z]+")  # drops everything but letters
    with pytest.raises(ValueError, match="turns the text of en into no tokens"):
        tax_table({"letters": tok}, {"en": "123 !!", "xx": "abc"})


def test_a_language_without_tokens_is_refused_not_divided_by():
    tok = train("ab cd", num_merges=1, pattern=r"[a-z]+")
    with pytest.raises(ValueError, match="turns the text of xx into no tokens"):
        tax_table({"letters": tok}, {"en": "abc", "xx": "123"})


def test_unknown_base_language_is_refused():
    with pytest.raises(ValueError, match="base language"):
        tax_table({"gpt2": load_encoding("gpt2")}, {"en": "x"}, base="fr")


def test_premiums_over_the_corpus_match_tiktoken_counts():
    table = premiums({"o200k_base": load_encoding("o200k_base")})
    encoding = tiktoken_encoding("o200k_base")
    english = len(encoding.encode(parallel_text("en")))
    assert table["o200k_base"]["my"] == len(encoding.encode(parallel_text("my"))) / english
    assert table["o200k_base"]["en"] == 1.0


def test_training_mix_repeats_each_language_by_its_weight():
    mix = training_mix({"en": 2, "hi": 1})
    english = parallel_text("en", TRAINING_LINES)
    assert mix == english * 2 + parallel_text("hi", TRAINING_LINES)
    assert parallel_lines("en")[HELD_OUT_LINES][0] not in mix


def test_the_tax_follows_the_training_data():
    """The causal experiment: more Hindi in training, lower Hindi premium."""
    codes = list(languages())
    held_out = {code: parallel_text(code, HELD_OUT_LINES) for code in codes}

    def hindi_premium(weights):
        tok = train(training_mix(weights), vocab_size=1_500, pattern="o200k", min_count=2)
        return next(r.premium for r in tax_table({"t": tok}, held_out) if r.code == "hi")

    english_only = hindi_premium({"en": 1})
    balanced = hindi_premium({code: 1 for code in codes})
    hindi_heavy = hindi_premium({**{code: 1 for code in codes}, "hi": 8})
    assert english_only > balanced > hindi_heavy


# ---------------------------------------------------------------- the CLI


def test_cli_json_equals_the_library():
    code, out, err = run_cli("tax", "--json")
    assert code == 0, err
    printed = json.loads(out)
    assert set(printed) == {"gpt2", "cl100k_base", "o200k_base"}
    assert printed == premiums({name: load_encoding(name) for name in printed})


def test_cli_table_and_bad_base():
    code, out, _ = run_cli("tax", "--encoding", "gpt2")
    assert code == 0 and "Burmese (my)" in out
    code, _, err = run_cli("tax", "--base", "xx")
    assert code == 1 and "unknown base language" in err


def test_content_cost_scales_with_the_premium():
    from bpe_core.analysis.tax import content_cost

    english = content_cost(1.0, 100_000, price_per_million=2.0, context_window=128_000)
    burmese = content_cost(3.0, 100_000, price_per_million=2.0, context_window=128_000)
    assert (english.tokens, english.price, english.fits) == (100_000, 0.2, 1.0)
    assert (burmese.tokens, burmese.price) == (300_000, 0.6)
    assert burmese.fits == 128_000 / 300_000
