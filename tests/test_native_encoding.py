"""The C encoder (bpe_core/engine/native): tiktoken's ids on every text, the
readable engine's ids, and the same ids when it is not built.

The oracle is tiktoken itself (tests/tiktoken_oracle.py): tiktoken's own
constructors and loader read OpenAI's rank files, shipped here, and check
each file's SHA-256 against the hash tiktoken pins. Nothing of bpe_core
builds it.
"""

import json
import os
import random
import subprocess
import sys

import pytest
import regex
import tiktoken
from hypothesis import given
from hypothesis import strategies as st

from bpe_core import train
from bpe_core.corpora.udhr import declaration_texts
from bpe_core.engine import c_encoder
from bpe_core.engine.tokenizer import Tokenizer
from bpe_core.vocabularies.catalogue import load_encoding
from bpe_core.vocabularies.openai import openai_encoding
from tests.conftest import ROOT
from tests.texts import TRICKY_TEXTS, assigned_characters
from tests.tiktoken_oracle import tiktokens_own

NAMES = ["r50k_base", "cl100k_base", "o200k_base"]
PARALLEL = sorted((ROOT / "sample_corpora" / "parallel").glob("*.txt"))

built = pytest.mark.skipif(not c_encoder.available(), reason="the C encoder is not built (pip install -r requirements.txt)")


def test_the_c_encoder_is_built():
    """CI (REQUIRE_NATIVE=1, set by .ci/run) must run the C encoder, never
    fall back to the slow path unnoticed."""
    if not c_encoder.available():
        message = "bpe_core.engine._native is not built: run pip install -r requirements.txt (it compiles setup.py's extension)"
        if os.environ.get("REQUIRE_NATIVE"):
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope="module")
def oracle():
    """name -> tiktoken's own Encoding, read by tiktoken's loader (see tests/tiktoken_oracle.py)."""
    return {name: tiktokens_own(name) for name in NAMES}


def assert_same_ids(ours, theirs, text: str) -> None:
    """encode_ordinary, encode with every special token allowed, and encode
    with special-token text as plain text, all three."""
    label = repr(text[:60])
    assert ours.encode_ordinary(text) == theirs.encode_ordinary(text), label
    assert ours.encode(text, allowed_special="all") == theirs.encode(text, allowed_special="all"), label
    assert ours.encode(text, disallowed_special=()) == theirs.encode(text, disallowed_special=()), label


# ----------------------------------------------------------- the classes


@built
@pytest.mark.slow
def test_every_code_point_is_in_tiktokens_classes():
    """The generated table (Unicode 16.0) against tiktoken's own regex
    engine, code point by code point: a pattern of one class over a text of
    every code point keeps exactly that class's characters."""
    everything = "".join(chr(code) for code in range(0x110000) if not 0xD800 <= code < 0xE000)
    table = c_encoder._native.class_table()
    single_bytes = {bytes([byte]): byte for byte in range(256)}
    classes = {
        r"\p{L}": c_encoder._native.CLASS_LETTER, r"\p{N}": c_encoder._native.CLASS_NUMBER,
        r"\s": c_encoder._native.CLASS_SPACE, r"\p{M}": c_encoder._native.CLASS_MARK,
        r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]": c_encoder._native.CLASS_UPPER_RUN,
        r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]": c_encoder._native.CLASS_LOWER_RUN,
    }
    for pattern, bit in classes.items():
        probe = tiktoken.Encoding("probe", pat_str=pattern, mergeable_ranks=single_bytes, special_tokens={})
        kept = bytes(probe.encode_ordinary(everything)).decode("utf-8")
        ours = "".join(char for char in everything if table[ord(char)] & bit)
        assert kept == ours, pattern
    assert c_encoder._native.UNICODE_VERSION == "16.0.0"


# ------------------------------------------------------------- the split

SPLITS = sorted(c_encoder.SPLIT_NAMES.items(), key=lambda item: item[1])
TRICKY_CHARACTERS = list("aZ'sStTlLdDvVeErRmM \n\r\t1234!./-_<|>") + [
    "ſ", "é", "\u0301", "\u3000", "漢", "ǅ", "ʰ", "Ⅻ", "٣", "\u00a0", "\u2028", "\x85", "ß", "Ω", "ω", "🙂", "\x0b",
]


@built
@pytest.mark.parametrize(("pattern", "split_name"), SPLITS, ids=[name for _, name in SPLITS])
@given(text=st.text(alphabet=st.one_of(st.sampled_from(TRICKY_CHARACTERS), assigned_characters()), max_size=40))
def test_the_hand_written_split_cuts_where_the_regex_does(pattern, split_name, text):
    """Each pattern split.c implements, against Python's `regex` on the
    same text (characters that Unicode 14 had, where both tables agree)."""
    assert c_encoder._native.split(text, getattr(c_encoder._native, split_name)) == regex.findall(pattern, text)


# ------------------------------------------------- tiktoken's ids, always


@built
@pytest.mark.parametrize("name", NAMES)
def test_same_ids_as_tiktoken_on_every_script_and_edge_case(name, oracle):
    ours, theirs = load_encoding(name), oracle[name]
    for text in [*TRICKY_TEXTS, *(path.read_text(encoding="utf-8") for path in PARALLEL)]:
        assert_same_ids(ours, theirs, text)
    texts = [path.read_text(encoding="utf-8") for path in PARALLEL]
    assert ours.encode_ordinary_batch(texts) == theirs.encode_ordinary_batch(texts)
    assert ours.encode_batch(texts, allowed_special="all") == theirs.encode_batch(texts, allowed_special="all")


@built
@pytest.mark.parametrize("name", NAMES)
def test_same_ids_as_tiktoken_on_the_declarations(name, oracle):
    """A tenth of the UDHR's 527 translations in the fast suite, every one
    in the slow."""
    ours, theirs = load_encoding(name), oracle[name]
    declarations = declaration_texts()
    for language in sorted(declarations)[::10]:
        text = declarations[language]
        assert ours.encode_ordinary(text) == theirs.encode_ordinary(text), language


@built
@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_same_ids_as_tiktoken_on_every_declaration(name, oracle):
    ours, theirs = load_encoding(name), oracle[name]
    for language, text in sorted(declaration_texts().items()):
        assert ours.encode_ordinary(text) == theirs.encode_ordinary(text), language


# Letters of Unicode 15, 16 and 17: tiktoken's tables stop at 16, so
# U+088F (17) is a symbol to it and takes the line breaks after it along.
NEWER_LETTERS = ["\u088f", "\ua7ce", "\u1c89", "\u0295", "\U0001e5d0", "\U00011f02", "\U000323b0"]


@built
@pytest.mark.parametrize("name", NAMES)
def test_same_ids_as_tiktoken_after_the_newest_letters(name, oracle):
    ours, theirs = load_encoding(name), oracle[name]
    for letter in NEWER_LETTERS:
        for text in (letter + "\n\n\n", "a" + letter + " b", letter * 5 + "\n\n x", f"{letter}'s {letter}'S"):
            assert_same_ids(ours, theirs, text)


@built
@pytest.mark.parametrize("name", NAMES)
@given(text=st.text(alphabet=st.characters(codec="utf-8"), max_size=200))
def test_same_ids_as_tiktoken_on_any_unicode(name, oracle, text):
    assert_same_ids(load_encoding(name), oracle[name], text)


@built
@pytest.mark.parametrize("name", NAMES)
@given(runs=st.lists(st.tuples(st.sampled_from([*TRICKY_CHARACTERS, *NEWER_LETTERS, "<|endoftext|>"]),
                               st.integers(1, 300)), max_size=6))
def test_same_ids_as_tiktoken_on_runs(name, oracle, runs):
    """Runs of one character: long pieces (merged with a heap), whitespace
    before words and line breaks, digits in threes."""
    assert_same_ids(load_encoding(name), oracle[name], "".join(char * count for char, count in runs))


@built
@pytest.mark.parametrize("name", NAMES)
def test_same_ids_as_tiktoken_on_long_runs(name, oracle):
    ours, theirs = load_encoding(name), oracle[name]
    for char in [" ", "\n", "7", "漢", "a", " \n", "\u3000", "ab"]:
        assert_same_ids(ours, theirs, char * 20_000)
        assert_same_ids(ours, theirs, "x " + char * 20_000 + " y")


@built
@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_same_ids_as_tiktoken_on_a_megabyte(name, oracle):
    ours, theirs = load_encoding(name), oracle[name]
    rng = random.Random(34)
    scripts = [path.read_text(encoding="utf-8") for path in PARALLEL]
    mixed = "".join(rng.choice(scripts)[:rng.randrange(100, 3000)] for _ in range(800))[:1_000_000]
    # Runs of one class: 200,000 characters are as far past every cut-off of the engine (the cache's
    # 256 bytes, a piece's merge heap) as a megabyte, at a fifth of tiktoken's time on them.
    for text in [mixed, "a" * 200_000, "漢字仮名交じり文" * 25_000, "1234567890" * 20_000, (" \n" * 100_000)]:
        assert ours.encode_ordinary(text) == theirs.encode_ordinary(text), repr(text[:20])


@built
def test_lone_surrogates_become_the_replacement_character_as_in_tiktoken(oracle):
    ours, theirs = load_encoding("cl100k_base"), oracle["cl100k_base"]
    for text in ["a\ud800b", "\udfff", "x \ud83d<|endoftext|>\ude00 y"]:
        assert_same_ids(ours, theirs, text)


@built
def test_special_tokens_are_read_where_allowed_and_nowhere_else(oracle):
    ours, theirs = load_encoding("o200k_base"), oracle["o200k_base"]
    text = "<|endoftext|><|endofprompt|>a<|endoftext|> <|endofprompt|>\n\n<|endoftext|>"
    for allowed in ("all", {"<|endoftext|>"}, {"<|endofprompt|>"}, set()):
        assert ours.encode(text, allowed_special=allowed, disallowed_special=()) == theirs.encode(
            text, allowed_special=allowed, disallowed_special=())


# ------------------------------------------------ other makers, trained here


@built
def test_llama3_gives_llama_models_own_ids():
    """Llama 3's tokenizer as llama-models builds it (a tiktoken Encoding of
    the maker's), against ours, split in C by the Llama 3 rules."""
    from pathlib import Path

    from llama_models.llama3 import tokenizer as llama_tokenizer

    maker = llama_tokenizer.Tokenizer(Path(llama_tokenizer.__file__).with_name("tokenizer.model")).model
    ours = load_encoding("llama3")
    assert ours._text_encoder is not None
    for text in [*TRICKY_TEXTS, *(path.read_text(encoding="utf-8") for path in PARALLEL)]:
        assert ours.encode(text, allowed_special="all") == maker.encode(text, allowed_special="all"), text[:40]


@built
@pytest.mark.parametrize("name", ["qwen", "whisper", "claude_legacy", "llama3"])
def test_the_c_splitter_implements_the_zoos_patterns(name):
    """So every byte-level model of the zoo encodes in C (test_zoo holds
    their ids to the makers')."""
    assert c_encoder.split_number(load_encoding(name).pattern) is not None


@pytest.fixture(scope="module")
def trained_tokenizers():
    corpus = "".join(path.read_text(encoding="utf-8") for path in PARALLEL)
    return {pattern: train(corpus if pattern != "none" else corpus[:20_000], vocab_size=2_000, pattern=pattern,
                           special_tokens=["<|endoftext|>"])
            for pattern in ("gpt2", "cl100k", "o200k", "none")}


@built
@pytest.mark.parametrize("pattern", ["gpt2", "cl100k", "o200k", "none"])
def test_tokenizers_trained_here_give_tiktokens_ids(trained_tokenizers, pattern):
    tok = trained_tokenizers[pattern]
    theirs = tiktoken.Encoding("trained", pat_str=tok.pattern, mergeable_ranks=dict(tok.mergeable_ranks),
                               special_tokens=tok.special_tokens)
    assert tok._text_encoder is not None
    for text in [*TRICKY_TEXTS, *(path.read_text(encoding="utf-8")[:20_000] for path in PARALLEL)]:
        assert_same_ids(tok, theirs, text)


@built
@pytest.mark.parametrize("pattern", ["gpt2", "cl100k", "o200k", "none"])
@given(text=st.text(alphabet=assigned_characters(), max_size=120))
def test_tokenizers_trained_here_encode_as_the_readable_merge_loop(trained_tokenizers, pattern, text):
    tok = trained_tokenizers[pattern]
    assert tok.encode(text, allowed_special="all") == tok.encode(text, allowed_special="all", reference=True)


# --------------------------------------------------- without the C encoder


def test_without_the_c_encoder_the_ids_are_the_same(monkeypatch, oracle):
    """A checkout used without installing has no compiled extension: the
    engine then encodes in Python alone, to the same ids."""
    monkeypatch.setattr(c_encoder, "_native", None)
    for name in NAMES:
        ours = openai_encoding(name)
        assert ours._text_encoder is None
        for text in TRICKY_TEXTS[:30]:
            assert ours.encode(text, allowed_special="all") == oracle[name].encode(text, allowed_special="all"), text
    custom = Tokenizer(name="c", pattern=r"\p{L}+|\s+|[^\s\p{L}]+", vocab={byte: bytes([byte]) for byte in range(256)})
    assert custom.encode("ab  c!") == list(b"ab  c!")


@built
def test_the_c_encoder_refuses_what_it_cannot_encode():
    """A byte with no token (a vocabulary of characters lacks some) is a
    clear error, never a wrong id."""
    encoder = c_encoder.piece_encoder({b"a": 0, b"\xc3\xa9": 1})
    assert c_encoder.encode_pieces(encoder, ["a", "é", b"a"]) == [0, 1, 0]
    with pytest.raises(ValueError, match="no token"):
        c_encoder.encode_pieces(encoder, ["b"])


# In a process of its own: the key is set before the first table, then cl100k_base encodes.
ENCODE_UNDER_KEY = """
import json, sys
from bpe_core.engine import _native, c_encoder  # c_encoder draws a key as it is imported: before ours
key = json.loads(sys.argv[1])
if key is not None:
    _native.seed_hash(*key)
from bpe_core.vocabularies.catalogue import load_encoding
ids = load_encoding("cl100k_base").encode(sys.argv[2])
try:
    _native.seed_hash(1, 2)
    refused = False
except RuntimeError:
    refused = True
print(json.dumps([[_native.token_hash(token.encode()) for token in json.loads(sys.argv[3])], ids, refused]))
"""
TOKENS = ["", "a", " the", "\u6f22\u5b57", "12345678", "a much longer token than eight bytes"]


@built
def test_the_encoders_tables_are_placed_under_a_key_drawn_per_process_and_the_ids_never_depend_on_it():
    """bpe.c places tokens (and the pieces it caches) by SipHash-1-3 under the
    module's key, drawn as c_encoder is imported, so that no uploaded
    vocabulary can be made of tokens that all collide there (every lookup
    would walk them all). token_hash is the hash those tables call: it
    follows the key seed_hash gives, the ids do not, and once an encoder's
    table is made the key stays."""
    from tests.test_native_counting import siphash

    text = "Hello, world! Здравствуй, мир! 你好，世界！ " * 20
    keys = [[0x0706050403020100, 0x0F0E0D0C0B0A0908], None]  # the SipHash paper's key, then one drawn
    processes = [subprocess.Popen([sys.executable, "-c", ENCODE_UNDER_KEY, json.dumps(key), text, json.dumps(TOKENS)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env={**os.environ, "PYTHONPATH": str(ROOT)}) for key in keys]
    runs = []
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err[-2000:]
        runs.append(json.loads(out))
    assert runs[0][0] == [siphash(1, 3, bytes(range(16)), token.encode()) for token in TOKENS]
    assert runs[1][0] != runs[0][0]  # a key of its own
    assert all(ids == tiktokens_own("cl100k_base").encode(text) for _, ids, _ in runs)
    assert all(refused for _, _, refused in runs)
