"""The atlas of the tokenization tax over the UDHR corpus: premiums are
tiktoken's (and the makers') own counts on the shipped texts, the texts are
the package's, and the precomputed counts are those of today's tokenizers."""

import bisect
import itertools
import json
import unicodedata

import pytest

from bpe_core.analysis.atlas import (
    Precomputed,
    TokenizerCounts,
    atlas_rows,
    count_tokenizer,
    counts_for,
    read_precomputed,
    read_words,
    shipped_counts,
    unpacked_words,
    words_per_declaration,
)
from bpe_core.analysis.words import count_words
from bpe_core.corpora.udhr import UDHR_DIR, CorpusFileError, declaration_texts, declarations, source
from bpe_core.vocabularies.catalogue import LISTED, encoding_source, load_encoding
from bpe_core.vocabularies.openai import tiktoken_encoding
from tests.cli import run_cli

# A dozen languages over nine scripts, with and without NFC as written.
DOZEN = ["eng", "deu_1996", "vie", "hin", "mya", "amh", "cmn_hans", "jpn", "arb", "rus", "kor", "tha", "yor"]
OPENAI = ["gpt2", "cl100k_base", "o200k_base"]


def tiktoken_count(name: str, text: str) -> int:
    return len(tiktoken_encoding(name).encode(text, disallowed_special=()))


def test_the_corpus_holds_every_complete_declaration_with_its_metadata():
    about = declarations()
    texts = declaration_texts()
    assert len(about) == len(texts) == source()["declarations"] == 527
    assert list(about) == list(texts)
    english = about["eng"]
    assert (english.name, english.bcp47, english.iso6393, english.direction, english.script) == (
        "English", "en", "eng", "ltr", "Latin")
    assert about["arb"].direction == "rtl" and about["arb"].script == "Arabic"
    assert about["amh"].script == "Ethiopic" and about["jpn"].script == "Japanese"
    assert -90 <= min(d.latitude for d in about.values()) and max(d.longitude for d in about.values()) <= 180


def test_a_declaration_is_its_preamble_articles_and_headings_without_the_title():
    english = declaration_texts()["eng"]
    assert english.startswith("Preamble\nWhereas recognition of the inherent dignity")
    assert "Universal Declaration of Human Rights\n" not in english  # the title
    assert "\nArticle 30\nNothing in this Declaration may be interpreted" in english
    assert english.count("\nArticle ") == 30


def test_texts_are_kept_as_written_and_their_normalization_is_recorded():
    about, texts = declarations(), declaration_texts()
    for code, text in texts.items():
        assert about[code].nfc == unicodedata.is_normalized("NFC", text), code
    assert not about["vie"].nfc and about["eng"].nfc


def test_a_damaged_corpus_file_is_refused(tmp_path):
    for name in ("languages.csv", "source.json"):
        (tmp_path / name).write_bytes((UDHR_DIR / name).read_bytes())
    (tmp_path / "declarations.json.xz").write_bytes(b"not the declarations")
    with pytest.raises(CorpusFileError, match="SHA-256"):
        declaration_texts(tmp_path)


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=[] if name == "gpt2" else pytest.mark.slow) for name in OPENAI])
def test_premiums_are_tiktokens_own_counts_for_a_dozen_languages(name):
    texts = declaration_texts()
    rows = {row.code: row for row in atlas_rows({name: counts_for(name, load_encoding(name))},
                                                 words_per_declaration(), codes=DOZEN)}
    english = tiktoken_count(name, texts["eng"])
    for code in DOZEN:
        assert rows[code].tax.cost.tokens == tiktoken_count(name, texts[code]), code
        assert rows[code].premium == tiktoken_count(name, texts[code]) / english, code
        nfc = tiktoken_count(name, unicodedata.normalize("NFC", texts[code]))
        assert rows[code].nfc_premium == nfc / english, code


def test_any_declaration_can_be_the_base():
    texts = declaration_texts()
    (row,) = atlas_rows({"gpt2": counts_for("gpt2", load_encoding("gpt2"))}, {},
                        base="hin", codes=["eng"])
    assert row.premium == tiktoken_count("gpt2", texts["eng"]) / tiktoken_count("gpt2", texts["hin"])
    with pytest.raises(ValueError, match="no declaration 'xx'"):
        atlas_rows({}, {}, base="xx")


def test_vietnamese_as_written_pays_for_its_decomposed_tones():
    (row,) = atlas_rows({"cl100k_base": counts_for("cl100k_base", load_encoding("cl100k_base"))},
                        words_per_declaration(), codes=["vie"])
    assert row.premium > 4 and row.nfc_premium < 3


def test_words_are_counted_where_icu_knows_them_and_nowhere_else():
    about, texts, words = declarations(), declaration_texts(), words_per_declaration()
    assert {code for code, declaration in about.items() if not declaration.words_known} == {"bod", "iii", "jav_java"}
    assert set(words) == {code for code in about if about[code].words_known}
    for code in ("eng", "tha", "amh"):  # every declaration's: tests/test_shipped_atlas.py (slow)
        assert words[code] == count_words(texts[code], about[code].bcp47)
    (tibetan,) = atlas_rows({"gpt2": counts_for("gpt2", load_encoding("gpt2"))}, words, codes=["bod"])
    assert tibetan.tax.cost.fertility is None and tibetan.tax.cost.split_share is None


def test_a_tokenizer_missing_from_the_precomputed_counts_or_changed_is_counted_afresh():
    stored = read_precomputed()
    assert set(LISTED) >= set(stored.tokenizers)
    kept = stored.tokenizers["gpt2"]
    changed = Precomputed(stored.declarations_sha256, stored.words,
                          {"gpt2": TokenizerCounts("another fingerprint", kept.tokens)})
    assert changed.counts("gpt2", load_encoding("gpt2").fingerprint) is None
    assert changed.counts("cl100k_base", load_encoding("cl100k_base").fingerprint) is None
    assert stored.counts("gpt2", load_encoding("gpt2").fingerprint) is kept


def test_a_bundled_tokenizers_counts_are_found_by_what_it_is_read_from_without_loading_it():
    stored = read_precomputed()
    for name in ("gpt2", "o200k_base", "o200k_harmony"):
        assert shipped_counts(name) == stored.tokenizers[name]
        assert stored.counts_from(name, encoding_source(name)) is stored.tokenizers[name]
    assert stored.counts_from("gpt2", "sha256:" + "0" * 64) is None  # a rank file changed since
    assert stored.counts_from("llama3", "llama-models==9.9.9") is None  # another version of its maker's package
    assert stored.counts_from("llama3", None) is None  # its package is not installed here
    assert stored.counts_from("not bundled", encoding_source("gpt2")) is None


def test_precomputed_counts_of_other_texts_are_not_used(tmp_path):
    path = tmp_path / "token_counts.json"
    path.write_text('{"declarations_sha256": "0000", "words": {}, "tokenizers": {}}', encoding="utf-8")
    assert read_precomputed(path) is None
    assert read_precomputed(tmp_path / "missing.json") is None


# ---------------------------------------------------------------- the CLI


def test_cli_json_gives_every_declarations_premiums_against_any_base():
    code, out, err = run_cli("tax", "--corpus", "udhr", "--json", "--with", "gpt2", "--base", "hin")
    assert code == 0, err
    printed = json.loads(out)
    assert printed["base"] == "hin" and list(printed["tokenizers"]) == ["gpt2"]
    figures = printed["tokenizers"]["gpt2"]
    assert set(figures) == set(declarations()) and figures["hin"]["premium"] == 1.0
    texts = declaration_texts()
    hindi = tiktoken_count("gpt2", texts["hin"])
    for code in ("eng", "vie", "mya"):
        assert figures[code]["tokens"] == tiktoken_count("gpt2", texts[code])
        assert figures[code]["premium"] == tiktoken_count("gpt2", texts[code]) / hindi
    vietnamese = tiktoken_count("gpt2", unicodedata.normalize("NFC", texts["vie"]))
    hindi_nfc = tiktoken_count("gpt2", unicodedata.normalize("NFC", texts["hin"]))
    assert figures["vie"]["nfc_premium"] == vietnamese / hindi_nfc
    assert figures["bod"]["fertility"] is None and figures["eng"]["fertility"] > 1
    assert printed["declarations"]["amh"]["script"] == "Ethiopic" and not printed["declarations"]["amh"]["whole"]


@pytest.mark.slow  # loads every vocabulary
def test_cli_json_measures_every_openai_and_zoo_tokenizer_by_default():
    code, out, err = run_cli("tax", "--corpus", "udhr", "--json")
    assert code == 0, err
    printed = json.loads(out)
    assert printed["base"] == "eng" and list(printed["tokenizers"]) == LISTED
    assert all(len(figures) == len(declarations()) for figures in printed["tokenizers"].values())


def test_cli_table_and_bad_input():
    code, out, _ = run_cli("tax", "--corpus", "udhr", "--with", "gpt2", "--measure", "fertility")
    assert code == 0 and "Tokens per word per declaration" in out
    assert any(line.startswith("bod ") and line.rstrip().endswith("-") for line in out.splitlines())
    code, _, err = run_cli("tax", "--corpus", "udhr", "--base", "en")
    assert code == 1 and "unknown base declaration 'en'" in err
    code, _, err = run_cli("tax", "--corpus", "udhr", "--parity", "100")
    assert code == 1 and "--corpus passage" in err


# ------------------------------------------------- a visitor's tokenizer


@pytest.fixture(scope="module")
def small_tokenizer():
    from bpe_core import train

    return train(declaration_texts()["eng"], vocab_size=400, pattern="cl100k")


@pytest.mark.slow  # a worker process
def test_a_visitors_tokenizer_is_counted_in_a_worker_as_in_this_process(small_tokenizer, job_worker_gone):
    from bpe_core.jobs.budgeted_counting import COUNTING_BUDGET, count_within_budget

    heard = []
    sample = {code: declaration_texts()[code] for code in ("eng", "vie", "bod")}
    counts = count_within_budget(small_tokenizer, COUNTING_BUDGET, texts=sample,
                                 progress=lambda done, total: heard.append((done, total)))
    # Every declaration counted is heard, in order. While a count goes on the
    # page hears the last figure again (nothing yet: 0 of 0), its chance to be cancelled.
    figures = [figure for figure, _ in itertools.groupby(heard) if figure != (0, 0)]
    assert figures == [(1, 3), (2, 3), (3, 3)]
    here = count_tokenizer(small_tokenizer, sample)
    for code, text in sample.items():
        assert counts.tokens[code] == here.tokens[code] == len(small_tokenizer.encode(text, disallowed_special=()))
        assert counts.nfc_tokens.get(code) == here.nfc_tokens.get(code)
        assert counts.split_words.get(code) == here.split_words.get(code)
    assert counts.fingerprint == small_tokenizer.fingerprint
    assert job_worker_gone()


@pytest.mark.slow  # a worker process
def test_counting_past_its_budget_stops_with_a_message(small_tokenizer, job_worker_gone):
    from bpe_core.jobs.budgeted_counting import Budget, count_within_budget
    from bpe_core.jobs.budgeted_jobs import OverBudgetError

    with pytest.raises(OverBudgetError, match=r"Counting this tokenizer .* in the 0\.5 s .*count_tokenizer"):
        count_within_budget(small_tokenizer, Budget(seconds=0.5, memory_bytes=1_500_000_000))
    assert job_worker_gone()


@pytest.mark.slow  # loads two vocabularies
def test_the_tax_lab_page_reports_the_spearman_correlations_with_petrov_et_al():
    import re
    import sys

    from tests.conftest import ROOT

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from petrov_correlation import correlations

    found = correlations()
    page = (ROOT / "docs" / "tax-lab.md").read_text(encoding="utf-8")
    for corpus, label in (("passage", "the 30-language passage"), ("udhr", "the UDHR")):
        (gpt2, languages), (cl100k, _) = found[corpus]["gpt2"], found[corpus]["cl100k_base"]
        row = rf"\| {label} \| {languages} \| {gpt2:.2f} \| {cl100k:.2f} \|"
        assert re.search(row, page), row
    assert found["udhr"]["gpt2"][1] > 150  # languages both cover


# ------------------------------------------------------ the shipped words


def split_by_sets(text: str, words, token_spans) -> int:
    """Words with a token boundary inside them, counted with a sorted set of
    offsets: the first boundary after a word's start is inside the word when
    it comes before its end (the oracle: no code shared with `words.words_split`)."""
    boundaries = sorted({span.start for span in token_spans} | {span.end for span in token_spans})
    inside = 0
    for start, end in words:
        after_start = bisect.bisect_right(boundaries, start)
        inside += after_start < len(boundaries) and boundaries[after_start] < end
    return inside


def icu_words_in_bytes(text: str, language: str) -> list[tuple[int, int]]:
    """ICU's word segments that hold a letter, mark or digit, in UTF-8 byte
    offsets, read from icu4py directly (not through `analysis.words`); in
    numpy arrays, as the declarations hold 5.5 million characters."""
    import numpy as np
    import regex
    from icu4py.breakers import WordBreaker

    segments = np.array(list(WordBreaker(text, language).segments()), dtype=np.int64).reshape(-1, 2)
    code_points = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    before = np.zeros(len(code_points) + 1, dtype=np.int64)  # UTF-16 units, then UTF-8 bytes, before each character
    units_before = before.copy()
    units_before[1:] = np.cumsum(1 + (code_points >= 0x10000))
    before[1:] = np.cumsum(1 + (code_points >= 0x80) + (code_points >= 0x800) + (code_points >= 0x10000))
    runs = np.zeros(len(code_points) + 1, dtype=np.int64)  # +1 where a run of letters, marks, digits starts, -1 after
    for run in regex.finditer(r"[\p{L}\p{M}\p{N}]+", text):
        runs[run.start()] += 1
        runs[run.end()] -= 1
    wordy_before = np.zeros(len(code_points) + 1, dtype=np.int64)
    wordy_before[1:] = np.cumsum(np.cumsum(runs)[:-1])  # such characters before each character
    starts, ends = np.searchsorted(units_before, segments[:, 0]), np.searchsorted(units_before, segments[:, 1])
    wordy = wordy_before[ends] > wordy_before[starts]
    return list(zip(before[starts[wordy]].tolist(), before[ends[wordy]].tolist()))


def test_the_shipped_words_are_for_these_texts_and_their_counts_are_the_precomputed_ones():
    words = read_words()
    assert words is not None, "rebuild words.json.xz (sample_corpora/udhr/build_words.py)"
    about = declarations()
    assert set(words) == {code for code in about if about[code].words_known}
    assert {code: len(packed) // 2 for code, packed in words.items()} == words_per_declaration()
    texts = declaration_texts()
    for code in ("eng", "tha", "jpn", "mya"):  # spaces, and three dictionaries
        assert list(unpacked_words(words[code])) == icu_words_in_bytes(texts[code], about[code].bcp47), code


@pytest.mark.slow  # ICU over 5.5 million characters
def test_the_shipped_words_are_icus_words_of_every_declaration_today():
    words, about = read_words(), declarations()
    for code, text in declaration_texts().items():
        if about[code].words_known:
            assert list(unpacked_words(words[code])) == icu_words_in_bytes(text, about[code].bcp47), \
                f"{code}: ICU finds other words now; rebuild words.json.xz (build_words.py), then token_counts.json"


def test_words_of_other_texts_are_not_used(tmp_path):
    import lzma

    path = tmp_path / "words.json.xz"
    path.write_bytes(lzma.compress(b'{"declarations_sha256": "0000", "icu": "78.3", "words": {}}'))
    assert read_words(path) is None
    assert read_words(tmp_path / "missing.json.xz") is None


def test_a_count_with_the_shipped_words_splits_the_words_icu_finds(small_tokenizer):
    """Shipped declarations are counted with the shipped words; a text that
    is not a shipped declaration's has its words found by ICU."""
    texts, about = declaration_texts(), declarations()
    sample = {code: texts[code] for code in DOZEN}
    counts = count_tokenizer(small_tokenizer, sample)
    for code, text in sample.items():
        spans = small_tokenizer.encode_with_offsets(text, disallowed_special=())
        words = icu_words_in_bytes(text, about[code].bcp47)
        assert counts.split_words[code] == split_by_sets(text, words, spans), code
    changed = {"eng": texts["eng"].replace("Article", "Artikel")}
    spans = small_tokenizer.encode_with_offsets(changed["eng"], disallowed_special=())
    assert count_tokenizer(small_tokenizer, changed).split_words["eng"] == split_by_sets(
        changed["eng"], icu_words_in_bytes(changed["eng"], "en"), spans)
