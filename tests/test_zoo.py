"""The model zoo: Llama 3 and 4, Tekken and Mistral's v3 SentencePiece model,
read from their makers' packages, give exactly their makers' ids.

The makers' own libraries are the reference: llama-models' `Tokenizer`,
mistral-common's `Tekkenizer`, and `sentencepiece` itself. Llama 4 and
Tekken take a second or two to load twice (ours and the maker's), so they
run with the slow tests; Llama 3 and Mistral v3 stand for them in the quick loop.
"""

import functools
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_core import load_encoding
from bpe_core.engine import c_encoder
from bpe_core.engine.patterns import pattern_name
from bpe_core.vocabularies.catalogue import CATALOGUE, LISTED
from bpe_core.vocabularies.sentencepiece_model import SentencePieceTokenizer
from bpe_core.vocabularies.zoo import ModelPackageMissing, mistral_v3_model_file, tekkenizer
from tests.cli import run_cli
from tests.conftest import ROOT
from tests.texts import TRICKY_TEXTS

TIKTOKEN_STYLE = ["llama3", pytest.param("llama4", marks=pytest.mark.slow), pytest.param("tekken", marks=pytest.mark.slow)]
EVERY_MODEL = [*TIKTOKEN_STYLE, "mistral_v3"]
PARALLEL = [(ROOT / "sample_corpora" / "parallel" / f"{code}.txt").read_text(encoding="utf-8")
            for code in ("hi", "my", "am", "ar", "th", "zh", "ka")]
TEXTS = TRICKY_TEXTS + PARALLEL


@functools.cache
def maker_encode(name: str):
    """The maker's own encode, special-token text as plain text."""
    if name in ("llama3", "llama4"):
        maker = importlib.import_module(f"llama_models.{name}.tokenizer").Tokenizer.get_instance()
        return lambda text: maker.encode(text, bos=False, eos=False)
    if name == "tekken":
        maker = tekkenizer()
        return lambda text: maker.encode(text, bos=False, eos=False)
    import sentencepiece

    processor = sentencepiece.SentencePieceProcessor(model_file=str(mistral_v3_model_file()))
    return processor.encode


@pytest.mark.parametrize("name", EVERY_MODEL)
def test_ids_equal_the_makers_own_library(name):
    """The fast engine is this project's (the C encoder, or the readable
    merge loop where it is not built), over the maker's table; the maker's
    library is its own code (tiktoken's Rust under llama-models and
    mistral-common, sentencepiece's C++), so it is a reference that shares
    no code with what it checks."""
    tokenizer, expected = load_encoding(name), maker_encode(name)
    for text in TEXTS:
        assert tokenizer.encode_ordinary(text) == expected(text), text[:40]
        assert tokenizer.encode(text, disallowed_special=()) == expected(text), text[:40]


@pytest.mark.parametrize("name", ["llama3", pytest.param("llama4", marks=pytest.mark.slow)])
def test_llama_wraps_llama_models_own_table_and_encodes_it_in_c(name):
    """The zoo's Llama wraps what llama-models reads: its ranks are that
    Encoding's ranks (one table, not a copy), its pattern and special tokens
    the maker's. Encoding them is this project's: the C encoder, not the
    maker's tiktoken Encoding (which is why the test above can fail)."""
    module = importlib.import_module(f"llama_models.{name}.tokenizer")
    tokenizer = load_encoding(name)
    maker = module.Tokenizer(Path(module.__file__).with_name("tokenizer.model"))
    assert tokenizer.mergeable_ranks == maker.model._mergeable_ranks
    assert tokenizer.pattern == maker.model._pat_str
    assert tokenizer.special_tokens == maker.special_tokens
    assert len(tokenizer.vocab) + len(tokenizer.special_tokens) == maker.model.n_vocab
    assert tokenizer._text_encoder is not None or not c_encoder.available()
    assert "tiktoken" not in type(tokenizer._text_encoder).__module__


@pytest.mark.parametrize("name", TIKTOKEN_STYLE)
def test_tiktoken_style_models_equal_the_makers_ids_in_the_readable_engine(name):
    """The readable engine (this project's split with `regex` and its merge
    loop) against the maker's own library."""
    tokenizer, expected = load_encoding(name), maker_encode(name)
    # the model's own pattern is one the C splitter implements: the fast engine runs
    assert tokenizer._text_encoder is not None or not c_encoder.available()
    assert pattern_name(tokenizer.pattern) in (name, "o200k")  # Llama 4 splits as GPT-4o does
    for text in TEXTS:
        assert tokenizer.encode_ordinary(text, reference=True) == expected(text), text[:40]


def test_the_sentencepiece_merge_loop_written_out_gives_sentencepieces_ids():
    tokenizer = load_encoding("mistral_v3")
    for text in TEXTS + ["[REFERENCE_DOC_1]x [INST] <s>", "▁x ▁▁y", " " * 9 + "a" + " " * 4]:
        assert tokenizer.encode_ordinary(text, reference=True) == maker_encode("mistral_v3")(text), text[:40]


@pytest.mark.parametrize("name", EVERY_MODEL)
def test_spans_tile_the_text_and_cover_each_tokens_bytes(name):
    tokenizer = load_encoding(name)
    for text in TEXTS:
        data = text.encode("utf-8")
        spans = tokenizer.encode_with_offsets(text, disallowed_special=())
        assert [span.start for span in spans[1:]] == [span.end for span in spans[:-1]]
        assert (spans[0].start, spans[-1].end) == (0, len(data)) if spans else text == ""
        assert tokenizer.decode_bytes(span.id for span in spans) == data
        for index, span in enumerate(spans):
            token = tokenizer.token_bytes(span.id)
            if index == 0 and isinstance(tokenizer, SentencePieceTokenizer) and token.startswith(b" "):
                token = token[1:]  # the dummy prefix: a space SentencePiece put there, not the text
            assert data[span.start : span.end] == token


@pytest.mark.parametrize("name", EVERY_MODEL)
def test_special_tokens_are_the_makers_and_follow_tiktokens_rules(name):
    tokenizer = load_encoding(name)
    assert tokenizer.n_vocab == CATALOGUE[name].n_vocab
    bos = {"llama3": "<|begin_of_text|>", "llama4": "<|begin_of_text|>"}.get(name, "<s>")
    with pytest.raises(ValueError, match="disallowed special token"):
        tokenizer.encode(f"{bos}hello")
    ids = tokenizer.encode(f"{bos}hello world", allowed_special="all")
    assert ids[0] == tokenizer.special_tokens[bos]
    assert ids[1:] == tokenizer.encode_ordinary("hello world")
    assert tokenizer.decode(ids) == f"{bos}hello world"
    if name in ("llama3", "llama4"):
        maker = importlib.import_module(f"llama_models.{name}.tokenizer").Tokenizer.get_instance()
        assert ids == maker.encode(f"{bos}hello world", bos=False, eos=False, allowed_special="all")
    if name == "tekken":  # special tokens come first; ordinary ids are shifted past them
        assert tokenizer.special_tokens["<s>"] == tekkenizer().bos_id == 1
        assert min(tokenizer.vocab) == len(tokenizer.special_tokens) == 1_000


def test_sentencepiece_pieces_are_shown_honestly():
    tokenizer = load_encoding("mistral_v3")
    spans = tokenizer.encode_with_offsets("日本 ሰ")
    pieces = [tokenizer.pieces[span.id] for span in spans]
    assert pieces == ["▁", "日", "本", "▁", "<0xE1>", "<0x88>", "<0xB0>"]
    assert (spans[0].start, spans[0].end) == (0, 0)  # the dummy prefix stands for no text
    assert [tokenizer.token_bytes(span.id) for span in spans[-3:]] == [b"\xe1", b"\x88", b"\xb0"]
    assert [(span.start, span.end) for span in spans[-3:]] == [(7, 8), (8, 9), (9, 10)]  # one byte each
    assert tokenizer.token_bytes(tokenizer.encode_ordinary("Hello")[0]) == b" Hello"  # "▁Hello"
    assert tokenizer.decode(tokenizer.encode_ordinary(" Hello  world")) == " Hello  world"


def test_sentencepiece_merge_order_is_by_score_and_merge_parts_follow_it():
    tokenizer = load_encoding("mistral_v3")
    runs = tokenizer._mergeable["▁▁▁▁"]
    assert tokenizer.scores[runs] < tokenizer.scores[tokenizer._mergeable["▁the"]]  # whitespace runs merge last
    left, right = tokenizer.merge_parts(tokenizer._mergeable["▁Hello"])
    assert tokenizer.pieces[left] + tokenizer.pieces[right] == "▁Hello"
    assert min(tokenizer.scores[left], tokenizer.scores[right]) > tokenizer.scores[tokenizer._mergeable["▁Hello"]]
    assert tokenizer.merge_parts(tokenizer._mergeable["日"]) is None


@pytest.mark.parametrize(("name", "module", "package"), [
    ("llama3", "llama_models", "llama-models"),
    ("tekken", "mistral_common", "mistral-common"),
    ("mistral_v3", "sentencepiece", "sentencepiece"),
])
def test_a_missing_package_is_named_with_its_pip_command(monkeypatch, name, module, package):
    for loaded in [key for key in sys.modules if key == module or key.startswith(module + ".")]:
        monkeypatch.delitem(sys.modules, loaded)
    monkeypatch.setitem(sys.modules, module, None)  # "import module" now fails, as when it is not installed
    with pytest.raises(ModelPackageMissing, match=f"pip install {package}$"):
        CATALOGUE[name].load(name)


def test_the_command_line_names_a_missing_package_in_one_line():
    code = "import sys; sys.modules['llama_models'] = None\nfrom bpe_core.cli import main\nsys.exit(main(['encode', '--encoding', 'llama3', '-']))"
    result = subprocess.run([sys.executable, "-c", code], input="hi", capture_output=True, text=True, cwd=ROOT, timeout=120,
                            check=False)
    assert result.returncode == 1
    assert result.stderr.startswith("error: llama3") and result.stderr.count("\n") == 1
    assert "pip install llama-models" in result.stderr


def test_the_makers_packages_load_only_when_a_zoo_model_is_asked_for():
    code = (
        "import json, sys\nfrom bpe_core import load_encoding, train\n"
        "train('low lower lowest ' * 20, vocab_size=270).encode('lowest'); load_encoding('cl100k_base').encode('x')\n"
        "before = sorted(m for m in ('llama_models', 'mistral_common', 'sentencepiece', 'pydantic', 'numpy') if m in sys.modules)\n"
        "load_encoding('mistral_v3').encode('x')\n"
        "print(json.dumps([before, 'sentencepiece' in sys.modules, 'pydantic' in sys.modules]))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                            check=False)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [[], True, False]  # the SentencePiece model needs no pydantic


def test_the_command_line_encodes_and_compares_with_zoo_models(tmp_path):
    from tests.cli import run_cli

    text = "\n".join(PARALLEL)
    (tmp_path / "text.txt").write_text(text, encoding="utf-8")
    code, out, _ = run_cli("encode", "--encoding", "mistral_v3", "--json", tmp_path / "text.txt")
    assert code == 0 and json.loads(out) == maker_encode("mistral_v3")(text)
    code, out, _ = run_cli("compare", tmp_path / "text.txt", "--with", "llama3", "--with", "mistral_v3", "--json")
    assert code == 0
    assert json.loads(out) == {name: len(maker_encode(name)(text)) for name in ("llama3", "mistral_v3")}


@pytest.mark.slow  # loads every vocabulary (in this process: what the worker loaded before is kept)
def test_the_tax_command_leaves_out_a_zoo_model_whose_package_is_missing_and_says_so(sentencepiece_missing):
    code, out, err = run_cli("tax", "--json")
    assert code == 0, err
    assert list(json.loads(out)["tokenizers"]) == [name for name in LISTED if name != "mistral_v3"]
    assert err.startswith("note: mistral_v3") and "pip install sentencepiece" in err


# Fuzzing (with the slow tests; HYPOTHESIS_PROFILE=fuzz runs 10,000 examples each).

awkward_text = st.one_of(
    st.text(alphabet=st.characters(codec="utf-8"), max_size=200),
    st.lists(st.sampled_from(["\u200d", "\ufe0f", "\u0301", "\u093f", "\u1039", " ", "  ", "\t", "\n", "\r\n", "\u3000",
                              "▁", "a", "字", "ሰ", "မ", "9", "123456", "\U0001f469", "\U0001f3fd", "<s>", "[INST]"]),
             max_size=80).map("".join),
    st.builds(lambda char, count: char * count, st.characters(codec="utf-8"), st.integers(1, 2_000)),
)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["llama3", "mistral_v3"])
@given(text=awkward_text)
def test_fuzzed_ids_equal_the_makers_and_spans_tile_the_text(name, text):
    tokenizer = load_encoding(name)
    spans = tokenizer.encode_with_offsets(text, disallowed_special=())
    assert [span.id for span in spans] == maker_encode(name)(text)
    data = text.encode("utf-8", "surrogatepass")
    assert [span.start for span in spans[1:]] == [span.end for span in spans[:-1]]
    assert not spans or (spans[0].start, spans[-1].end) == (0, len(data))


@pytest.mark.slow
@given(text=awkward_text)
def test_fuzzed_sentencepiece_merge_loop_equals_sentencepiece(text):
    tokenizer = load_encoding("mistral_v3")
    assert tokenizer.encode_ordinary(text, reference=True) == maker_encode("mistral_v3")(text)
    if "▁" not in text:  # SentencePiece writes a space as ▁, so a ▁ typed in the text comes back a space
        assert tokenizer.decode(tokenizer.encode_ordinary(text)) == text


@pytest.mark.parametrize("name", TIKTOKEN_STYLE)
def test_the_c_splitter_implements_each_models_own_pattern(name):
    """Each model's split pattern, as its maker's package gives it, is one
    the C encoder splits by hand (a maker who changed it would otherwise
    lose the fast engine unnoticed; the ids would stay right)."""
    assert c_encoder.SPLIT_NAMES.get(load_encoding(name).pattern)
