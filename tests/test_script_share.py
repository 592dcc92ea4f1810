"""Script share (`bpe_core.analysis.script_share`): each script's share of a
vocabulary beside what its languages' text costs, on counts made up here
and on the bundled vocabularies."""

import pytest

from bpe_core import load_encoding, train
from bpe_core.analysis.script_share import passage_scripts, script_shares
from bpe_core.analysis.shipped_health import shipped
from bpe_core.analysis.tax import languages, parallel_text, premiums
from bpe_core.analysis.vocabulary import script_counts, vocabulary_columns


def test_each_passage_language_is_under_the_script_of_most_of_its_letters():
    scripts = passage_scripts()
    assert sorted(code for codes in scripts.values() for code in codes) == sorted(languages())
    assert scripts["Arabic"] == ("ar", "fa", "ur")
    assert scripts["Cyrillic"] == ("ru", "uk")
    assert "ja" in scripts["Hiragana/Katakana"] and "zh" in scripts["Han (CJK)"]
    assert {"en", "vi", "yo"} <= set(scripts["Latin"])


def test_shares_and_median_premiums_counted_by_hand():
    counts = {"Latin": 900, "Arabic": 20, "digits": 75, "not UTF-8 alone": 5, "special token": 3}
    cost = {code: 1.0 for code in languages()} | {"ar": 3.0, "fa": 5.0, "ur": 4.0}
    shares = {share.script: share for share in script_shares(counts, cost)}
    assert shares["Arabic"].tokens == 20
    assert shares["Arabic"].share == pytest.approx(20 / 1_000)  # special tokens are not counted in the vocabulary
    assert shares["Arabic"].premium == 4.0  # the median of 3, 5 and 4
    assert shares["Latin"].share == pytest.approx(0.9) and shares["Latin"].premium == 1.0
    assert shares["Myanmar"].tokens == 0 and shares["Myanmar"].share == 0.0  # a script the vocabulary never learned


def test_under_cl100k_base_arabic_holds_a_sliver_of_the_vocabulary_and_pays_over_three_times():
    cost = premiums({"cl100k_base": load_encoding("cl100k_base")})["cl100k_base"]
    arabic = next(share for share in script_shares(shipped()["cl100k_base"].scripts, cost) if share.script == "Arabic")
    assert arabic.tokens == 97 and f"{arabic.share:.2%}" == "0.10%"
    assert arabic.premium == pytest.approx(3.42, abs=0.01)
    o200k = premiums({"o200k_base": load_encoding("o200k_base")})["o200k_base"]
    wider = next(share for share in script_shares(shipped()["o200k_base"].scripts, o200k) if share.script == "Arabic")
    assert wider.share > 30 * arabic.share and wider.premium < arabic.premium / 2


def test_a_vocabulary_trained_on_arabic_gives_it_a_share():
    text = parallel_text("en") * 20 + parallel_text("ar") * 20
    tokenizer = train(text, vocab_size=600)
    counts = script_counts(vocabulary_columns(tokenizer)["script"])
    cost = premiums({"mine": tokenizer})["mine"]
    shares = {share.script: share for share in script_shares(counts, cost)}
    assert shares["Arabic"].tokens == counts["Arabic"] > 50
    assert shares["Arabic"].share == pytest.approx(counts["Arabic"] / tokenizer.n_vocab)
    assert shares["Greek"].tokens == 0 and shares["Greek"].premium > shares["Arabic"].premium
