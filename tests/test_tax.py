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
    ParityRow,
    TaxRow,
    corpus_table,
    languages,
    measure,
    parallel_lines,
    parallel_text,
    parity_experiment,
    premiums,
    row_figures,
    tax_table,
    training_mix,
)
from bpe_core.analysis.words import split_words, word_spans
from bpe_core.vocabularies.catalogue import LISTED, load_encoding
from bpe_core.vocabularies.openai import tiktoken_encoding
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
    cost = measure(tok, "Hello world, hello tokenizers")  # Hello| world|,| hello| token|izers
    assert cost == Cost(tokens=6, bytes=29, chars=29, words=4, split_words=1)
    assert cost.bytes_per_token == 29 / 6 and cost.chars_per_token == 29 / 6
    assert cost.fertility == 6 / 4 and cost.split_share == 1 / 4


def test_words_are_found_in_scripts_written_without_spaces():
    """Thai and Japanese have no spaces between words: ICU's dictionaries find them."""
    thai = "ภาษาไทยไม่มีช่องว่างระหว่างคำ"  # "Thai has no spaces between words"
    assert len(thai.split()) == 1
    assert [thai[start:end] for start, end in word_spans(thai, "th")] == [
        "ภาษา", "ไทย", "ไม่มี", "ช่อง", "ว่าง", "ระหว่าง", "คำ"]  # language, Thai, has no, space, between, word
    japanese = "私は東京に住んでいます"  # "I live in Tokyo"
    words = [japanese[start:end] for start, end in word_spans(japanese, "ja")]
    assert "".join(words) == japanese and "東京" in words and len(words) >= 6
    assert word_spans("👍 don't, 𝐀𝐁 x", "en") == ((2, 7), (9, 11), (12, 13))  # punctuation is no word; astral letters are
    assert measure(load_encoding("o200k_base"), thai, "th").words == 7


def test_split_words_counts_token_boundaries_inside_words():
    from bpe_core.engine.tokenizer import TokenSpan

    text = "ab cd"  # words (0, 2) and (3, 5)
    assert split_words(text, [TokenSpan(1, 0, 2), TokenSpan(2, 2, 5)]) == 0  # " cd" is one token
    assert split_words(text, [TokenSpan(1, 0, 1), TokenSpan(2, 1, 2), TokenSpan(3, 2, 5)]) == 1
    assert split_words(text, [TokenSpan(1, 0, 3), TokenSpan(2, 3, 4), TokenSpan(3, 4, 5)]) == 1


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
    code, out, err = run_cli("tax", "--json", "--with", "gpt2", "--with", "o200k_base", "--with", "mistral_v3")
    assert code == 0, err
    printed = json.loads(out)
    assert set(printed["tokenizers"]) == {"gpt2", "o200k_base", "mistral_v3"}
    rows = corpus_table({name: load_encoding(name) for name in printed["tokenizers"]})
    assert printed["tokenizers"] == {
        name: {row.code: row_figures(row) for row in rows if row.tokenizer == name} for name in printed["tokenizers"]}
    assert printed["tokenizers"]["gpt2"]["my"]["premium"] == premiums({"gpt2": load_encoding("gpt2")})["gpt2"]["my"]
    assert printed["base"] == "en" and "ICU" in printed["words"]


@pytest.mark.slow
def test_cli_json_measures_every_openai_and_zoo_tokenizer_by_default_and_the_parity_experiment():
    code, out, err = run_cli("tax", "--json", "--parity", "800")
    assert code == 0, err
    printed = json.loads(out)
    assert list(printed["tokenizers"]) == LISTED
    experiment = parity_experiment(800)  # the same training as the command line's (deterministic); counted here
    hindi = printed["parity"]["languages"]["hi"]
    assert {figure: hindi[figure] for figure in ("plain_premium", "parity_premium", "token_change")} == \
        hugging_faces_figures(experiment, "hi")
    assert_the_removed_share_is_what_is_left_of_the_tax(hindi["plain_premium"], hindi["parity_premium"],
                                                       hindi["tax_removed"])
    assert printed["parity"]["languages"]["en"]["tax_removed"] is None
    n_vocab = experiment.plain.hf.get_vocab_size(), experiment.parity.hf.get_vocab_size()
    assert printed["parity"]["n_vocab"] == {"plain": n_vocab[0], "parity": n_vocab[1]}


def test_cli_table_and_bad_base():
    code, out, _ = run_cli("tax", "--encoding", "gpt2")
    assert code == 0 and "Burmese (my)" in out
    names = ["gpt2", "o200k_harmony", "claude_legacy", "whisper"]  # long names side by side stay apart
    code, out, _ = run_cli("tax", *(argument for name in names for argument in ("--encoding", name)))
    header = out.splitlines()[1].split()
    assert code == 0 and header == ["language", *names]
    code, _, err = run_cli("tax", "--base", "xx")
    assert code == 1 and "unknown base language" in err


def test_content_cost_scales_with_the_premium():
    from bpe_core.analysis.tax import content_cost

    english = content_cost(1.0, 100_000, price_per_million=2.0, context_window=128_000)
    burmese = content_cost(3.0, 100_000, price_per_million=2.0, context_window=128_000)
    assert (english.tokens, english.price, english.fits) == (100_000, 0.2, 1.0)
    assert (burmese.tokens, burmese.price) == (300_000, 0.6)
    assert burmese.fits == 128_000 / 300_000


# The parity experiment's figures are checked against Hugging Face's own
# counts of the held-out sentences under the two trained tokenizers, read
# here from the corpus files, not against the experiment's own rows.


def hugging_faces_counts(hf_tokenizer) -> dict[str, int]:
    """Hugging Face's own token count of each language's held-out sentences."""
    counts = {}
    for path in sorted(PARALLEL_DIR.glob("*.txt")):
        held_out = "\n".join(path.read_text(encoding="utf-8").splitlines()[HELD_OUT_LINES]) + "\n"
        counts[path.stem] = len(hf_tokenizer.encode(held_out, add_special_tokens=False).ids)
    return counts


def hugging_faces_figures(experiment, code: str, base: str = "en") -> dict[str, float]:
    """A language's figures from those counts: its premium under each
    tokenizer (its tokens over the base language's, as Petrov et al. define
    it) and its tokens under parity-aware BPE relative to plain BPE."""
    return every_languages_hugging_faces_figures(experiment, base)[code]


def every_languages_hugging_faces_figures(experiment, base: str = "en") -> dict[str, dict[str, float]]:
    """`hugging_faces_figures` of every language, from one count of each."""
    plain, parity = hugging_faces_counts(experiment.plain.hf), hugging_faces_counts(experiment.parity.hf)
    return {code: {"plain_premium": plain[code] / plain[base], "parity_premium": parity[code] / parity[base],
                   "token_change": parity[code] / plain[code] - 1} for code in plain}


def assert_the_removed_share_is_what_is_left_of_the_tax(plain_premium, parity_premium, removed):
    """The share of the tax removed, by what it means: the tax (the premium
    above 1) that is left under parity-aware BPE is the rest of the plain tax."""
    assert plain_premium > 1
    assert parity_premium - 1 == pytest.approx((1 - removed) * (plain_premium - 1))


def test_the_share_of_the_tax_removed_on_worked_examples():
    def row(plain_premium: float, parity_premium: float) -> ParityRow:
        cost = Cost(tokens=100, bytes=100, chars=100, words=20, split_words=0)
        return ParityRow("xx", TaxRow("plain", "xx", cost, plain_premium, 1.0),
                         TaxRow("parity", "xx", cost, parity_premium, 1.0))

    assert row(3.0, 2.0).tax_removed == 0.5  # a tax of 2 became 1: half of it removed
    assert row(3.0, 1.0).tax_removed == 1.0  # parity with the base language
    assert row(3.0, 3.0).tax_removed == 0.0
    assert row(3.0, 3.5).tax_removed == -0.25  # the tax grew by a quarter
    assert row(1.0, 0.9).tax_removed is None and row(0.8, 1.2).tax_removed is None  # no tax to remove


@pytest.fixture(scope="module")
def parity():
    return parity_experiment(1_500)


def test_parity_aware_training_lowers_the_tax_at_the_same_vocabulary_size(parity):
    assert parity.plain.hf.get_vocab_size() == parity.parity.hf.get_vocab_size() == parity.plain.n_vocab
    figures = every_languages_hugging_faces_figures(parity)
    assert sorted(row.code for row in parity.rows) == sorted(figures)  # every language, each once
    for row in parity.rows:
        assert {"plain_premium": row.plain.premium, "parity_premium": row.parity.premium,
                "token_change": row.token_change} == figures[row.code], row.code
    plain_worst = max(row.plain.premium for row in parity.rows)
    assert max(row.parity.premium for row in parity.rows) < plain_worst
    hindi = parity.row("hi")
    assert hindi.parity.premium < hindi.plain.premium and 0 < hindi.tax_removed < 1
    assert_the_removed_share_is_what_is_left_of_the_tax(hindi.plain.premium, hindi.parity.premium, hindi.tax_removed)
    assert parity.row("en").token_change > 0  # English pays: its merges went to other languages


def test_a_language_without_tax_has_none_to_remove(parity):
    english = parity.row("en")
    assert english.plain.premium == english.parity.premium == 1.0 and english.tax_removed is None


@pytest.mark.slow
def test_where_one_trainer_runs_out_of_pairs_the_other_stops_at_the_same_size():
    experiment = parity_experiment(20_000)  # far more merges than pairs seen twice in the passage
    assert experiment.plain.n_vocab == experiment.parity.n_vocab < 256 + 20_000
