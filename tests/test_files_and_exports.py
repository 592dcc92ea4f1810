"""Saving, loading and exporting keep every id; broken files get clear errors."""

import json

import pytest
import tiktoken
from tiktoken.load import load_tiktoken_bpe
from tokenizers import Tokenizer as HFTokenizer

from bpe_core import Tokenizer, train
from bpe_core.corpora.samples import SAMPLES_DIR
from bpe_core.formats import (
    TokenizerFileError,
    hf_tokenizer_json,
    load_tokenizer,
    save_tokenizer,
    tiktoken_file_text,
    to_tiktoken,
    tokenizer_from_json,
    tokenizer_to_json,
)
from bpe_core.formats.native import tokenizer_to_dict
from bpe_core.vocabularies.catalogue import load_encoding
from tests.texts import TRICKY_TEXTS
from tests.tiktoken_oracle import tiktokens_own

CORPUS = "\n".join(TRICKY_TEXTS[2:26]) * 4
PROBES = TRICKY_TEXTS + [CORPUS[:3000]]


@pytest.fixture(scope="module", params=["gpt2", "cl100k", "o200k", "none"])
def trained(request):
    corpus = CORPUS if request.param != "none" else CORPUS[:4000]
    return train(corpus, vocab_size=700, pattern=request.param, special_tokens=["<|endoftext|>", "<|pad|>"])


@pytest.fixture(scope="module")
def trained_chars():
    return train(CORPUS, num_merges=300, pattern="cl100k", units="chars", special_tokens=["<|endoftext|>"])


def encode_all(tok, text):
    """By the readable engine: `encode` itself may be tiktoken's (see
    Tokenizer), and comparing tiktoken with itself would prove nothing."""
    return tok.encode(text, allowed_special="all", reference=True)


def test_save_and_load_round_trip(trained, tmp_path):
    path = tmp_path / "tok.json"
    save_tokenizer(trained, path)
    loaded = load_tokenizer(path)
    assert loaded.merges == trained.merges
    assert loaded.special_tokens == trained.special_tokens
    assert loaded.pattern == trained.pattern
    assert loaded.trace == trained.trace
    assert loaded.stop_reason == trained.stop_reason
    for text in PROBES:
        assert encode_all(loaded, text) == encode_all(trained, text)


def test_the_saved_file_is_jsons_text_of_the_tokenizer(trained_chars, tmp_path):
    # Saving writes long lists a slice at a time (to spare memory); the file
    # must still be, byte for byte, what json.dumps makes of the fields.
    shakespeare = (SAMPLES_DIR / "tiny_shakespeare.txt").read_text(encoding="utf-8")[:300_000]
    many_merges = train(shakespeare, num_merges=2_500, pattern="cl100k", special_tokens=["<|endoftext|>"])
    for tok in (many_merges, trained_chars):
        path = tmp_path / "tok.json"
        save_tokenizer(tok, path)
        expected = json.dumps(tokenizer_to_dict(tok), ensure_ascii=False)
        assert path.read_text(encoding="utf-8") == tokenizer_to_json(tok) == expected
    assert len(json.loads(expected)["merges"]) == 300 and len(tokenizer_to_dict(many_merges)["merges"]) == 2_500


def test_character_tokenizer_round_trips(trained_chars):
    loaded = tokenizer_from_json(tokenizer_to_json(trained_chars))
    assert loaded.vocab == trained_chars.vocab
    assert loaded.unknown_id == trained_chars.unknown_id
    for text in PROBES:
        assert encode_all(loaded, text) == encode_all(trained_chars, text)


@pytest.mark.parametrize(
    "content, message",
    [
        (b"\x89PNG\r\n\x1a\n", "not valid JSON"),
        (b"{not json", "not valid JSON"),
        (b"[1, 2, 3]", "Not a BPE playground tokenizer"),
        (json.dumps({"model": {"type": "BPE"}}).encode(), "Hugging Face tokenizer.json"),
        (json.dumps({"format": "bpe-playground-tokenizer", "version": 99}).encode(), "version 99"),
        (json.dumps({"format": "bpe-playground-tokenizer", "version": 1, "units": "words"}).encode(), "units"),
    ],
)
def test_foreign_or_corrupt_files_raise_clear_errors(tmp_path, content, message):
    path = tmp_path / "upload.json"
    path.write_bytes(content)
    with pytest.raises(TokenizerFileError, match=message):
        load_tokenizer(path)


def _valid_document():
    return json.loads(tokenizer_to_json(train("abcabcabd", num_merges=3, pattern="none")))


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d.update(merges=[[97, 9999]]), "not a pair of earlier ids"),
        (lambda d: d.update(merges=[[97]]), "not a pair of earlier ids"),
        (lambda d: d.update(merges="97 98"), "list of"),
        (lambda d: d.update(pattern="(unclosed"), "split pattern is unusable"),
        (lambda d: d.update(special_tokens={"<s>": "x"}), "special_tokens"),
        (lambda d: d.update(special_tokens={"<s>": 97}), "clash"),
        (lambda d: d["training"].update(counts=[1]), "one integer per merge"),
    ],
)
def test_damaged_fields_are_named(edit, message):
    document = _valid_document()
    edit(document)
    with pytest.raises(TokenizerFileError, match=message):
        tokenizer_from_json(json.dumps(document))


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(TokenizerFileError, match="Cannot read"):
        load_tokenizer(tmp_path / "nope.json")


# -------------------------------------------------------------------- exports


def test_tiktoken_export_gives_identical_ids(trained):
    encoding = to_tiktoken(trained)
    assert isinstance(encoding, tiktoken.Encoding)
    for text in PROBES:
        assert encoding.encode(text, allowed_special="all") == encode_all(trained, text)


def test_tiktoken_file_loads_back_with_tiktoken(trained, tmp_path):
    path = tmp_path / "trained.tiktoken"
    path.write_text(tiktoken_file_text(trained))
    ranks = load_tiktoken_bpe(str(path))
    encoding = tiktoken.Encoding("reloaded", pat_str=trained.pattern, mergeable_ranks=ranks, special_tokens={})
    assert encoding.encode_ordinary(CORPUS[:5000]) == trained.encode_ordinary(CORPUS[:5000])


def test_hugging_face_export_gives_identical_ids(trained):
    hf = HFTokenizer.from_str(hf_tokenizer_json(trained))
    for text in PROBES:
        assert hf.encode(text).ids == encode_all(trained, text), text
    ids = trained.encode_ordinary(CORPUS[:2000])
    assert hf.decode(ids) == trained.decode(ids)


def test_hugging_face_export_of_a_character_tokenizer(trained_chars):
    hf = HFTokenizer.from_str(hf_tokenizer_json(trained_chars))
    for text in PROBES:
        assert hf.encode(text).ids == encode_all(trained_chars, text), text


def test_character_tokenizers_cannot_become_tiktoken(trained_chars):
    with pytest.raises(ValueError, match="byte-level"):
        to_tiktoken(trained_chars)


def test_hugging_face_export_refuses_a_pattern_it_would_read_differently():
    tok = train("12345 678", num_merges=2, pattern=r"\d{1,3}+|\s+")
    with pytest.raises(ValueError, match="atomic group"):
        hf_tokenizer_json(tok)


def test_duplicate_tokens_are_handled_deliberately():
    # "ab"+"c" and "a"+"bc" both make b"abc": ids 257 and 259.
    document = _valid_document()
    document.update(merges=[[97, 98], [256, 99], [98, 99], [97, 258]])
    del document["training"]
    tok = tokenizer_from_json(json.dumps(document))
    assert tok.vocab[257] == tok.vocab[259] == b"abc"
    assert tok.encode("abc") == [257]  # encoding reaches the first id only
    assert tok.decode([259]) == "abc"  # the later id still decodes
    assert tok.encode_at_step("abc", 2) == [257]
    ranks = to_tiktoken(tok)._mergeable_ranks
    assert ranks[b"abc"] == 257 and 259 not in ranks.values()
    hf = HFTokenizer.from_str(hf_tokenizer_json(tok))
    assert 259 not in hf.get_vocab().values()
    for text in ["abc", "abcabc", "xabcbc", "aabbcc"]:
        assert to_tiktoken(tok).encode(text) == tok.encode(text, reference=True) == hf.encode(text).ids


def test_saving_refuses_a_vocabulary_whose_ids_are_not_its_merge_order():
    # ranks: "ab" 256, "xyz" 257 (no merge makes it: x+y is not a token), "abc" 258
    vocab = {byte: bytes([byte]) for byte in range(256)} | {256: b"ab", 257: b"xyz", 258: b"abc"}
    tok = Tokenizer(name="gappy", pattern="gpt2", vocab=vocab)
    assert tok.encode("abc") == [258]
    with pytest.raises(ValueError, match="not a merge history"):
        tokenizer_to_json(tok)
    with pytest.raises(ValueError, match="not a merge history"):
        tokenizer_to_json(load_encoding("gpt2"))


def test_allowed_special_strings_that_are_not_specials_stay_plain_text():
    tok = load_encoding("cl100k_base")
    text = "a<|x|>b"
    assert tok.encode(text, allowed_special={"<|x|>"}) == tiktokens_own("cl100k_base").encode(text, allowed_special={"<|x|>"})


def test_hugging_face_export_names_the_unknown_token_apart_from_the_alphabet():
    tok = train("ab\ufffdab", num_merges=2, pattern="none", units="chars")  # U+FFFD is a character here
    hf = HFTokenizer.from_str(hf_tokenizer_json(tok))
    assert hf.encode("abz").ids == tok.encode("abz")
    assert hf.token_to_id("<unk>") == tok.unknown_id


def test_export_problems_are_known_before_exporting():
    from bpe_core.formats import hf_export_problem

    assert hf_export_problem(train("12345", num_merges=1, pattern="cl100k")) is None
    assert "atomic group" in hf_export_problem(train("12345", num_merges=1, pattern=r"\d{1,3}+|\s+"))


def test_csv_cells_that_would_run_as_formulas_are_shown_as_text():
    import io

    import pandas as pd

    from bpe_core.analysis.downloads import merges_csv

    tok = train("=cmd|' /C calc'!A0 =cmd|' /C calc'!A0 -1+1 @sum", num_merges=30, pattern="none")
    table = pd.read_csv(io.StringIO(merges_csv(tok)), keep_default_na=False, dtype=str)
    for column in ("left", "right", "token"):
        assert not table[column].str.match(r"[=+\-@\t\r]").any()
    assert (table["token"].str.startswith("'=")).any()


def test_a_pattern_oniguruma_cannot_compile_is_reported_before_export():
    from bpe_core.formats import hf_export_problem

    version1 = train("ab cd", num_merges=1, pattern=r"(?V1)[[a-z]--[aeiou]]+|\s+|.")  # Python's regex only
    assert "cannot compile" in hf_export_problem(version1)
