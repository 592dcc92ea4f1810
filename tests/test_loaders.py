"""Loading your own vocabulary: a .tiktoken rank file or a byte-level BPE
tokenizer.json gives the same ids as tiktoken and Hugging Face do with the
same file; a malformed file is a clear TokenizerFileError."""

import base64
import gzip
import json

import pytest
import tiktoken
from hypothesis import given
from hypothesis import strategies as st
from tiktoken.load import load_tiktoken_bpe
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import pre_tokenizers, trainers
from tokenizers.models import BPE

from bpe_core import train
from bpe_core.engine.patterns import PRESETS
from bpe_core.formats import (
    TokenizerFileError,
    hf_tokenizer_json,
    tiktoken_file_text,
    tokenizer_from_file,
    tokenizer_from_hf_json,
    tokenizer_from_tiktoken_file,
    tokenizer_to_json,
)
from bpe_core.formats.hf_json import byte_to_unicode
from bpe_core.vocabularies.bundled_files import BUNDLED_DIR
from bpe_core.vocabularies.catalogue import load_encoding
from bpe_core.vocabularies.openai import tiktoken_encoding
from tests.texts import TRICKY_TEXTS

CORPUS = "\n".join(TRICKY_TEXTS[2:26]) * 4
PROBES = TRICKY_TEXTS + [CORPUS[:3000]]
SPECIALS = ["<|endoftext|>", "<|pad|>"]
CUSTOM_PATTERN = r"\s?\w+|\s?[^\w\s]+|\s+"

CL100K_GZ = (BUNDLED_DIR / "cl100k_base.tiktoken.gz").read_bytes()
CL100K_SPECIALS = tiktoken_encoding("cl100k_base")._special_tokens


def encode_all(encoder, text):
    return encoder.encode(text, allowed_special="all")


@pytest.fixture(scope="module", params=["gpt2", "cl100k", "o200k", "none", CUSTOM_PATTERN])
def trained(request):
    corpus = CORPUS if request.param != "none" else CORPUS[:4000]
    return train(corpus, vocab_size=700, pattern=request.param, special_tokens=SPECIALS)


@pytest.fixture(scope="module")
def cl100k_upload():
    return tokenizer_from_tiktoken_file(CL100K_GZ, "cl100k", "my cl100k", CL100K_SPECIALS)


# ---------------------------------------------------------------- .tiktoken


def test_bundled_cl100k_file_encodes_like_tiktoken(cl100k_upload):
    reference = tiktoken_encoding("cl100k_base")
    for text in PROBES:
        assert encode_all(cl100k_upload, text) == encode_all(reference, text), text
    assert cl100k_upload.name == "my cl100k"
    assert cl100k_upload.pattern_name == "cl100k"


@given(st.text(max_size=200))
def test_any_text_encodes_like_tiktoken(cl100k_upload, text):
    assert cl100k_upload.encode_ordinary(text) == tiktoken_encoding("cl100k_base").encode_ordinary(text)


def test_compressed_and_plain_files_load_the_same(cl100k_upload):
    plain = tokenizer_from_tiktoken_file(gzip.decompress(CL100K_GZ), "cl100k", "plain")
    assert plain.vocab == cl100k_upload.vocab
    assert plain.special_tokens == {}  # the file holds none; the caller passes them


def test_trained_tokenizer_file_loads_like_tiktoken_loads_it(trained, tmp_path):
    path = tmp_path / "trained.tiktoken"
    path.write_text(tiktoken_file_text(trained))
    specials = {"<|endoftext|>": 5000}
    reference = tiktoken.Encoding(
        "reference", pat_str=trained.pattern, mergeable_ranks=load_tiktoken_bpe(str(path)), special_tokens=specials
    )
    loaded = tokenizer_from_tiktoken_file(path.read_bytes(), trained.pattern, "upload", specials)
    for text in PROBES:
        assert encode_all(loaded, text) == encode_all(reference, text), text
        assert loaded.encode_ordinary(text) == trained.encode_ordinary(text)


def test_a_preset_name_chooses_the_pattern(trained):
    loaded = tokenizer_from_tiktoken_file(tiktoken_file_text(trained).encode(), "gpt2", "upload")
    assert loaded.pattern == PRESETS["gpt2"]


def _rank_lines(*entries: tuple[bytes, int]) -> bytes:
    return b"".join(base64.b64encode(token) + b" %d\n" % rank for token, rank in entries)


ALL_BYTES = _rank_lines(*((bytes([byte]), byte) for byte in range(256)))
NO_ZERO_BYTE = _rank_lines(*((bytes([byte]), byte) for byte in range(1, 256)))


@pytest.mark.parametrize(
    "data, pattern, message",
    [
        (b"", "gpt2", "empty"),
        (b"\n  \n", "gpt2", "empty"),
        (gzip.compress(b"", mtime=0), "gpt2", "empty"),
        (b"\x1f\x8b\x08\x00broken", "gpt2", "gzip-compressed but cannot be unpacked"),
        (b'{"model": {"type": "BPE"}}', "gpt2", "looks like a JSON file"),
        (ALL_BYTES + b"YWI= 256\nnot-base64! 257\n", "gpt2", "Line 258 is not 'base64-token rank'"),
        (ALL_BYTES + b"YWI= 256 extra\n", "gpt2", "Line 257"),
        (ALL_BYTES + b"YWI= many\n", "gpt2", "Line 257"),
        (ALL_BYTES + _rank_lines((b"ab", -3)), "gpt2", "negative rank -3"),
        (ALL_BYTES + _rank_lines((b"ab", 256), (b"cd", 256)), "gpt2", "Rank 256 is given to two tokens"),
        (ALL_BYTES + _rank_lines((b"ab", 256), (b"cd", 257), (b"ab", 258)), "gpt2", "Line 259 lists the token b'ab'"),
        (NO_ZERO_BYTE, "gpt2", r"lacks 1 of the 256 single bytes \(0x00\)"),
        (ALL_BYTES, "(unclosed", "not a valid regular expression"),
        (ALL_BYTES, "a*", "matches the empty string"),
    ],
)
def test_malformed_rank_files_raise_clear_errors(data, pattern, message):
    with pytest.raises(TokenizerFileError, match=message):
        tokenizer_from_tiktoken_file(data, pattern, "upload")


def test_special_ids_that_clash_with_ranks_are_refused():
    with pytest.raises(TokenizerFileError, match="clash"):
        tokenizer_from_tiktoken_file(ALL_BYTES, "gpt2", "upload", {"<|endoftext|>": 97})


# ---------------------------------------------------------- tokenizer.json


def test_our_own_export_loads_back_with_identical_ids(trained):
    loaded = tokenizer_from_hf_json(hf_tokenizer_json(trained), "reloaded")
    assert loaded.pattern == trained.pattern  # GPT-4's Oniguruma rewrite maps back to the preset
    assert loaded.special_tokens == trained.special_tokens
    for text in PROBES:
        assert encode_all(loaded, text) == encode_all(trained, text), text


def test_loaded_export_agrees_with_hugging_face_itself(trained):
    document = hf_tokenizer_json(trained)
    loaded, reference = tokenizer_from_hf_json(document.encode(), "bytes upload"), HFTokenizer.from_str(document)
    for text in PROBES:
        assert encode_all(loaded, text) == reference.encode(text).ids, text


@pytest.fixture(scope="module")
def gpt2_json():
    return hf_tokenizer_json(load_encoding("gpt2"))


@pytest.mark.slow
def test_gpt2_ranks_exported_to_json_match_tiktoken(gpt2_json):
    loaded, reference = tokenizer_from_hf_json(gpt2_json, "gpt2 upload"), tiktoken_encoding("gpt2")
    assert loaded.special_tokens == {"<|endoftext|>": 50256}
    for text in PROBES:
        assert encode_all(loaded, text) == encode_all(reference, text), text


def _as_published_by_openai(gpt2_json: str) -> str:
    """GPT-2's tokenizer.json as on the Hugging Face hub: one merge per
    token, ByteLevel's built-in regex, no ignore_merges, and <|endoftext|>
    both in the vocab and in added_tokens."""
    gpt2 = load_encoding("gpt2")

    def spell(token_id):
        return "".join(byte_to_unicode()[byte] for byte in gpt2.vocab[token_id])

    document = json.loads(gpt2_json)
    document["model"]["merges"] = [f"{spell(left)} {spell(right)}" for (left, right), _ in gpt2.merges]
    document["model"]["ignore_merges"] = False
    document["model"]["vocab"]["<|endoftext|>"] = 50256
    document["pre_tokenizer"] = {
        "type": "ByteLevel",
        "add_prefix_space": False,
        "trim_offsets": True,
        "use_regex": True,
    }
    return json.dumps(document)


@pytest.fixture(scope="module")
def gpt2_published(gpt2_json):
    published = _as_published_by_openai(gpt2_json)
    return tokenizer_from_hf_json(published, "gpt2 hub"), HFTokenizer.from_str(published)


@pytest.mark.slow
def test_gpt2_as_published_matches_tiktoken_and_hugging_face(gpt2_published):
    loaded, hugging_face = gpt2_published
    assert loaded.pattern_name == "gpt2"
    reference = tiktoken_encoding("gpt2")
    for text in PROBES:
        ids = encode_all(loaded, text)
        assert ids == encode_all(reference, text), text
        assert ids == hugging_face.encode(text).ids, text


@pytest.mark.slow
@given(text=st.text(max_size=200))
def test_gpt2_as_published_agrees_with_hugging_face_on_any_text(gpt2_published, text):
    loaded, hugging_face = gpt2_published
    assert encode_all(loaded, text) == hugging_face.encode(text).ids


def test_a_tokenizer_trained_by_hugging_face_loads_with_its_ids():
    hugging_face = HFTokenizer(BPE())
    hugging_face.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=800,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>"],
        show_progress=False,
    )
    hugging_face.train_from_iterator([CORPUS], trainer)
    loaded = tokenizer_from_hf_json(hugging_face.to_str(), "trained by HF")
    assert loaded.special_tokens == {"<|endoftext|>": 0}
    for text in PROBES:
        assert encode_all(loaded, text) == hugging_face.encode(text).ids, text


def _small_document() -> dict:
    tokenizer = train(CORPUS[:2000], num_merges=20, pattern="gpt2", special_tokens=["<|endoftext|>"])
    return json.loads(hf_tokenizer_json(tokenizer))


def _swap_first_two_merged_ids(document):
    vocab = document["model"]["vocab"]
    first, second = (left + right for left, right in document["model"]["merges"][:2])
    vocab[first], vocab[second] = vocab[second], vocab[first]


def _set_pre_tokenizer(value):
    return lambda document: document.update(pre_tokenizer=value)


def _set_split_regex(regex):
    return lambda document: document["pre_tokenizer"]["pretokenizers"][0].update(pattern={"Regex": regex})


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d.update(model={**d["model"], "type": "WordPiece"}), "model is 'WordPiece', not 'BPE'"),
        (lambda d: d.update(model={**d["model"], "type": "Unigram"}), "Unigram tokenize by other rules"),
        (lambda d: d.pop("model"), 'no "model" object'),
        (lambda d: d["model"].pop("vocab"), 'no "vocab" object'),
        (lambda d: d["model"].pop("merges"), 'no "merges" list'),
        (lambda d: d["model"].update(continuing_subword_prefix="##"), "continuing_subword_prefix"),
        (lambda d: d["model"]["vocab"].update({"▁the": 9999}), r'"▁the" contains .* \(U\+2581\)'),
        (lambda d: d["model"]["vocab"].update({"xyz": "5"}), "id '5'"),
        (lambda d: d["model"]["vocab"].update({"xyz": 5}), "id 5 to two tokens"),
        (lambda d: d["model"]["vocab"].update({"": 9999}), r"empty token \(id 9999\)"),
        (lambda d: d["model"]["vocab"].pop(byte_to_unicode()[0]), r"lacks 1 of the 256 single bytes \(0x00\)"),
        (_swap_first_two_merged_ids, "ids are not in merge order: merges"),
        (lambda d: d["model"]["merges"].append(["Ġ", "qqq"]), r'merges\[\d+\] .* "qqq", which is not in the vocab'),
        (lambda d: d["model"]["merges"].append("a"), r"merges\[\d+\] is not a pair of tokens: 'a'"),
        (_set_split_regex("(unclosed"), "Split regex of the pre_tokenizer is unusable: .*not a valid regular expression"),
        (_set_split_regex(r"\d{1,3}+|\D+"), r"possessively, e.g. \{1,3\}\+"),
        (lambda d: d["pre_tokenizer"]["pretokenizers"][0].update(behavior="Removed"), "behavior 'Removed'"),
        (lambda d: d["pre_tokenizer"]["pretokenizers"][0].update(pattern={"String": " "}), "literal String split"),
        (_set_pre_tokenizer(None), 'no "pre_tokenizer"'),
        (_set_pre_tokenizer({"type": "Whitespace"}), "pre_tokenizer is Whitespace;"),
        (_set_pre_tokenizer({"type": "Metaspace", "replacement": "▁"}), "pre_tokenizer is Metaspace;"),
        (_set_pre_tokenizer({"type": "ByteLevel", "add_prefix_space": True}), "add_prefix_space true"),
        (_set_pre_tokenizer({"type": "Sequence", "pretokenizers": "x"}), "Sequence of objects"),
        (lambda d: d.update(normalizer={"type": "NFC"}), r"normalizer \(NFC\)"),
        (lambda d: d.update(added_tokens=[{"id": 5}]), r'added_tokens\[0\] needs a non-empty "content"'),
        (lambda d: d["added_tokens"][0].pop("id"), r"added_tokens\[0\] has the id None; ids are whole numbers"),
        (lambda d: d["added_tokens"][0].update(id=97), 'special token "<|endoftext|>" has id 97, which the vocab'),
    ],
)
def test_malformed_tokenizer_json_names_the_problem(edit, message):
    document = _small_document()
    edit(document)
    with pytest.raises(TokenizerFileError, match=message):
        tokenizer_from_hf_json(json.dumps(document), "upload")


@pytest.mark.parametrize(
    "content, message",
    [
        (b"\x89PNG\r\n\x1a\n", "not valid JSON"),
        ("{not json", "not valid JSON"),
        ("[1, 2, 3]", "holds a JSON list, not an object"),
        ('"tokenizer"', "holds a JSON str"),
        (tokenizer_to_json(train("abcabc", num_merges=2)), "saved by this playground"),
    ],
)
def test_files_that_are_not_tokenizer_json_are_named(content, message):
    with pytest.raises(TokenizerFileError, match=message):
        tokenizer_from_hf_json(content, "upload")


@pytest.mark.parametrize("content", [b"[1]", b" [1, 2, 3]", b"[]"])
def test_an_upload_of_a_json_list_is_named(content):
    """An upload is told apart by its content before it is read as a
    tokenizer.json: a list is JSON too, and must get the same one line."""
    with pytest.raises(TokenizerFileError, match="holds a JSON list, not an object"):
        tokenizer_from_file("upload.json", content)


def test_character_level_export_is_refused_as_not_byte_level():
    chars = train(CORPUS, num_merges=50, pattern="gpt2", units="chars")
    with pytest.raises(TokenizerFileError, match="pre_tokenizer is Split;"):
        tokenizer_from_hf_json(hf_tokenizer_json(chars), "upload")


@pytest.mark.slow
def test_any_tokenizer_file_is_recognised_by_its_content():
    from bpe_core.formats import tokenizer_from_file, tokenizer_to_json
    from bpe_core.vocabularies.bundled_files import BUNDLED_DIR

    trained = train("hello hello world, hello tokens", num_merges=8, pattern="gpt2")
    text = "hello tokens, hello world"
    saved = tokenizer_from_file("mine.json", tokenizer_to_json(trained).encode())
    from_hf = tokenizer_from_file("tokenizer.json", hf_tokenizer_json(load_encoding("gpt2")).encode())
    ranks = tokenizer_from_file("cl100k_base.tiktoken.gz", (BUNDLED_DIR / "cl100k_base.tiktoken.gz").read_bytes(), "cl100k")
    assert saved.encode(text) == trained.encode(text)
    assert from_hf.encode(text) == tiktoken_encoding("gpt2").encode(text)
    assert ranks.encode(text) == tiktoken_encoding("cl100k_base").encode_ordinary(text)
    with pytest.raises(TokenizerFileError, match="not valid JSON"):
        tokenizer_from_file("broken.json", b'{"format": ')


@pytest.mark.slow
def test_a_gzip_compressed_tokenizer_json_is_recognised_after_unpacking():
    from bpe_core.formats import tokenizer_from_file

    packed = gzip.compress(hf_tokenizer_json(load_encoding("gpt2")).encode())
    assert tokenizer_from_file("tokenizer.json.gz", packed).encode("hello") == tiktoken_encoding("gpt2").encode("hello")


def test_a_pinned_rank_file_reads_as_the_checking_parser_reads_it():
    from bpe_core.formats.tiktoken_file import parse_pinned_ranks, parse_tiktoken_ranks

    contents = gzip.decompress((BUNDLED_DIR / "r50k_base.tiktoken.gz").read_bytes())
    assert parse_pinned_ranks(contents) == parse_tiktoken_ranks(contents)
