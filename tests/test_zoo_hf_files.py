"""Gemma 3 and DeepSeek V3, shipped as their makers' tokenizer.json files,
give exactly the ids transformers gives for the same files.

The reference is transformers' `AutoTokenizer` loaded from the makers'
files, unpacked here with the standard library (not with this project's
reader), and Hugging Face's `tokenizers`, which transformers runs them in.
Loading transformers takes seconds, so its comparisons run with the slow
tests; `tokenizers` alone stands for it in the quick loop.
"""

import functools
import gzip
import lzma
import unicodedata

import pytest
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import load_encoding
from bpe_core.analysis.replay import replay
from bpe_core.vocabularies.catalogue import CATALOGUE
from tests.conftest import ROOT
from tests.texts import TRICKY_TEXTS, assigned_characters

NAMES = ["gemma3", "deepseek_v3"]
FILES = ROOT / "bpe_core" / "vocabularies" / "files"
SHIPPED = {"gemma3": ("gemma3_tokenizer.json.xz", "gemma3_tokenizer_config.json.xz"),
           "deepseek_v3": ("deepseek_v3_tokenizer.json.gz", "deepseek_v3_tokenizer_config.json.gz")}
PARALLEL = [path.read_text(encoding="utf-8") for path in sorted((ROOT / "sample_corpora" / "parallel").glob("*.txt"))]
# Where these two differ from other tokenizers: runs of spaces that Gemma's
# merge list ranks pair by pair, its ">▁</" piece (the one place a word
# joins the next), literal "▁", HTML tags and newline runs it always finds
# as added tokens, its byte fallback; DeepSeek's digits, CJK runs, kana
# marks and unassigned kana code points, which its three Splits cut apart.
OWN_TEXTS = [
    "a  b   c    d     e" + " " * 40 + "f", "x>  </b> y> </z>", "▁▁▁ literal ▁ x  ▁", "hahahahaha ------ ======== ........",
    "<table><tr><td>1</td></tr></table>\n\n\n\t\t<unused12> <mask> [multimodal]", "ሰላም 𝔘𝔫 \U0010fffd",
    "<start_of_turn>user\nhi<end_of_turn>\n<start_of_turn>model\n", "<image_soft_token><bos><eos>",
    "1234567 ٣٤٥ ²³ 中文字 日本語です ア゛゙カ・ー 12中3", "\u3040\u3040あ\u3097 x\u3098", "abc\u3000中  1 ",
    "<｜User｜>hi<｜Assistant｜>ok<｜end▁of▁sentence｜>", "<｜tool▁calls▁begin｜><｜place▁holder▁no▁7｜><|EOT|>",
]
TEXTS = TRICKY_TEXTS + PARALLEL + OWN_TEXTS
# The added tokens Hugging Face finds in any text though they are not special
# (DeepSeek's "<｜User｜>" and tool markers): here they follow tiktoken's rules
# for special tokens, so `encode_ordinary` is compared on text without them.
DEEPSEEK_ALWAYS_FOUND = ("<｜User｜>", "<｜Assistant｜>", "<｜fim", "<｜tool")


def unpacked(name: str, which: int) -> bytes:
    path = FILES / SHIPPED[name][which]
    return (lzma.decompress if path.suffix == ".xz" else gzip.decompress)(path.read_bytes())


@functools.cache
def hugging_face(name: str) -> tokenizers.Tokenizer:
    return tokenizers.Tokenizer.from_str(unpacked(name, 0).decode("utf-8"))


@functools.cache
def transformers_folder(name: str):
    """transformers' tokenizer for the shipped files, from a folder of their own."""
    import tempfile
    from pathlib import Path

    from transformers import AutoTokenizer

    folder = Path(tempfile.mkdtemp(prefix=f"{name}-"))
    (folder / "tokenizer.json").write_bytes(unpacked(name, 0))
    (folder / "tokenizer_config.json").write_bytes(unpacked(name, 1))
    return AutoTokenizer.from_pretrained(folder)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_ids_equal_transformers_on_the_edge_cases_and_every_script(name):
    tokenizer, reference = load_encoding(name), transformers_folder(name)
    for text in TEXTS:
        assert tokenizer.encode(text, allowed_special="all") == reference.encode(text, add_special_tokens=False), text[:40]
        if name == "deepseek_v3" and any(marker in text for marker in DEEPSEEK_ALWAYS_FOUND):
            continue
        if name == "gemma3" and "<mask>" in text:  # transformers' GemmaTokenizer makes its default mask token
            continue  # special, where the file says it is not: split, transformers spells it out
        expected = reference(text, add_special_tokens=False, split_special_tokens=True)["input_ids"]
        assert tokenizer.encode_ordinary(text) == expected, text[:40]


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=300, deadline=None)
@given(text=st.text(assigned_characters(), max_size=60) | st.text(st.sampled_from(" \t\n▁>a</-中あ゙1"), max_size=40))
def test_fuzzed_ids_equal_transformers(name, text):
    assert load_encoding(name).encode(text, allowed_special="all") == \
        transformers_folder(name).encode(text, add_special_tokens=False)


QUICK_AND_SLOW = [pytest.param(TEXTS, id="every text", marks=pytest.mark.slow), pytest.param(OWN_TEXTS, id="their own")]


@pytest.mark.parametrize("texts", QUICK_AND_SLOW)
@pytest.mark.parametrize("name", NAMES)
def test_ids_equal_hugging_faces_tokenizers_and_spans_tile_the_text(name, texts):
    tokenizer = load_encoding(name)
    for text in texts:
        spans = tokenizer.encode_with_offsets(text, allowed_special="all")
        assert [span.id for span in spans] == hugging_face(name).encode(text, add_special_tokens=False).ids, text[:40]
        data = text.encode("utf-8")
        assert [span.start for span in spans[1:]] == [span.end for span in spans[:-1]], text[:40]
        assert not spans or (spans[0].start, spans[-1].end) == (0, len(data)), text[:40]


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=60, deadline=None)
@given(text=st.text(assigned_characters(), max_size=40) | st.text(st.sampled_from(" \t\n▁>a</-中あ゙1x"), max_size=40))
def test_fuzzed_ids_equal_hugging_faces_tokenizers(name, text):
    assert load_encoding(name).encode(text, allowed_special="all") == hugging_face(name).encode(text, add_special_tokens=False).ids


@functools.cache
def deepseeks_splits() -> tokenizers.pre_tokenizers.PreTokenizer:
    """The three Split pre-tokenizers of DeepSeek V3's file, run by Hugging Face."""
    import json

    from tokenizers.pre_tokenizers import Sequence, Split

    steps = json.loads(unpacked("deepseek_v3", 0))["pre_tokenizer"]["pretokenizers"]
    assert [step["type"] for step in steps] == ["Split", "Split", "Split", "ByteLevel"]
    return Sequence([Split(tokenizers.Regex(step["pattern"]["Regex"]), "isolated") for step in steps[:3]])


@settings(max_examples=150, deadline=None)
@given(text=st.text(assigned_characters(), max_size=50)
       | st.text(st.sampled_from(" \t\r\n\u3000123٣中文あア゛・゙!?.,'\"aZ\u0301\x00\u200b\u3040\u3097"), max_size=40))
def test_deepseeks_one_regex_cuts_text_as_its_three_splits_do(text):
    """The pieces `DEEPSEEK_V3_PATTERN` cuts are those of the file's own
    Splits, kana block's unassigned code points included. (On characters
    newer than Hugging Face's Unicode tables, such as Unicode 17's U+323B0,
    the `regex` module's letters are not Oniguruma's: see `assigned_characters`.)"""
    import regex

    from bpe_core.vocabularies.zoo import DEEPSEEK_V3_PATTERN

    assert regex.findall(DEEPSEEK_V3_PATTERN, text) == [piece for piece, _ in deepseeks_splits().pre_tokenize_str(text)]


def test_gemmas_merge_list_ranks_pairs_not_tokens():
    """Runs of spaces: Gemma lists the merges that make one run far apart, so
    ranking by the token made (tiktoken's rule, SentencePiece's score)
    gives other ids; its own rule gives Hugging Face's."""
    gemma = load_encoding("gemma3")
    text = "a" + " " * 7 + "b" + " " * 33 + "c"
    assert gemma.encode(text) == hugging_face("gemma3").encode(text, add_special_tokens=False).ids
    merges = gemma.merge_list.merges
    run = {gemma.pieces.index("▁" * length) for length in range(2, 32)}
    made_by_runs = [rank for rank, made in enumerate(gemma.merge_list.made) if made in run]
    assert made_by_runs != sorted(made_by_runs, key=lambda rank: gemma.merge_list.made[rank])  # pairs, not tokens, in order
    assert len(merges) // 2 > len(set(gemma.merge_list.made))  # several pairs make one token


def test_gemmas_kept_form_answers_as_its_merge_list_read_plainly():
    """The compact form keeps the merges grouped by left piece and each
    token's first merge, so that a load builds no dict of half a million
    pairs: every pair's rank and every token's first pair agree with the
    list itself, and the form reads back as it was written."""
    from bpe_core.vocabularies.merge_list_bpe import MergeList

    gemma = load_encoding("gemma3")
    merges, made = gemma.merge_list.merges, gemma.merge_list.made
    pairs = list(zip(merges[::2], merges[1::2]))
    rank_of = {pair: rank for rank, pair in enumerate(pairs)}
    first_pair = {}
    for rank, token_id in enumerate(made):
        first_pair.setdefault(token_id, pairs[rank])
    sample = range(0, len(pairs), 997)
    assert [gemma.rank_of_pair(*pairs[rank]) for rank in sample] == [rank_of[pairs[rank]] for rank in sample]
    assert gemma.rank_of_pair(pairs[0][1], pairs[0][0]) == rank_of.get((pairs[0][1], pairs[0][0]))
    assert all(gemma.merge_parts(token_id) == first_pair.get(token_id) for token_id in range(0, gemma.n_vocab, 101))
    assert gemma.token_bytes(gemma.pieces.index("▁Hello")) == b" Hello"
    assert MergeList.unpack(gemma.merge_list.pack()) == gemma.merge_list


@pytest.mark.parametrize("name", NAMES)
def test_special_tokens_follow_tiktokens_rules_and_gemmas_other_added_tokens_are_always_found(name):
    tokenizer = load_encoding(name)
    assert tokenizer.n_vocab == CATALOGUE[name].n_vocab
    special = "<start_of_turn>" if name == "gemma3" else "<｜begin▁of▁sentence｜>"
    with pytest.raises(ValueError, match="disallowed special token"):
        tokenizer.encode(f"a{special}b")
    assert tokenizer.encode(special, allowed_special="all") == [tokenizer.special_tokens[special]]
    assert len(tokenizer.encode_ordinary(special)) > 1
    assert tokenizer.decode(tokenizer.encode(f"a{special}b", allowed_special="all")) == f"a{special}b"
    if name == "gemma3":  # "\n\n" and "<table>" are added tokens, not special ones: found in any text
        assert tokenizer.encode_ordinary("a\n\n<table>") == hugging_face(name).encode("a\n\n<table>").ids[1:]


@pytest.mark.parametrize("name", NAMES)
def test_encode_replay_ends_in_encodes_tokens(name):
    tokenizer = load_encoding(name)
    for text in ["Hello  world, café ሰ", "x>  </b>\n\n<b>", "strawberry 12345 日本語"]:
        story = replay(tokenizer, text)
        assert story.tokens == tokenizer.encode_ordinary(text)
        ranks = [merge.rank for merge in story.order]
        assert ranks == sorted(ranks)


def test_a_damaged_kept_form_is_made_again_and_never_trusted(tmp_path, monkeypatch):
    from bpe_core.vocabularies import derived_files

    monkeypatch.setenv("BPE_CORE_CACHE", str(tmp_path))
    made = []
    assert derived_files.derived("demo", "ab" * 32, lambda: made.append(1) or b"form") == b"form"
    assert derived_files.derived("demo", "ab" * 32, lambda: made.append(1) or b"other") == b"form"  # kept
    (kept,) = tmp_path.iterdir()
    kept.write_bytes(kept.read_bytes()[:-1] + b"X")  # damaged: its digest no longer matches
    assert derived_files.derived("demo", "ab" * 32, lambda: made.append(1) or b"again") == b"again"
    assert derived_files.derived("demo", "cd" * 32, lambda: made.append(1) or b"new source") == b"new source"
    assert len(made) == 3


def test_an_unwritable_cache_folder_costs_time_not_the_tokenizer(tmp_path, monkeypatch):
    from bpe_core.vocabularies import derived_files

    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("BPE_CORE_CACHE", str(blocked / "cache"))
    assert derived_files.derived("demo", "ab" * 32, lambda: b"form") == b"form"


def test_the_makers_terms_ship_beside_the_files():
    sources = (FILES / "SOURCES.md").read_text(encoding="utf-8")
    for name in NAMES:
        for file in SHIPPED[name]:
            assert file in sources
    assert "Gemma is provided under and subject to the Gemma Terms of Use" in (FILES / "NOTICE.gemma").read_text()
    assert "3.2 Use Restrictions" in (FILES / "LICENSE.gemma").read_text()
    assert "Attachment A" in (FILES / "LICENSE.deepseek-model").read_text()
    assert unicodedata.is_normalized("NFC", sources)


def test_deepseeks_pattern_is_trusted_and_the_readable_engine_agrees():
    from bpe_core.engine.patterns import pattern_name

    tokenizer = load_encoding("deepseek_v3")
    assert pattern_name(tokenizer.pattern) == "deepseek_v3"  # a maker's pattern: split without a deadline
    for text in OWN_TEXTS + TRICKY_TEXTS[:20]:
        assert tokenizer.encode_ordinary(text) == tokenizer.encode_ordinary(text, reference=True), text[:40]
