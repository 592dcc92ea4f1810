"""bpe_core and tiktoken, each standing in for the other (bpe_core/tiktoken_bridge):
code written for tiktoken runs on bpe_core with tiktoken's ids and never
reaches the network; the real tiktoken finds bpe_core's tokenizers through
its plugin, and OpenAI's files in a cache filled from the bundled ones.

The oracle is the real tiktoken: its `Encoding` (its Rust engine and
special-token rules), its loaders, its registry of plugins and its cache,
which checks every file against the SHA-256 tiktoken itself pins.
(tests/test_tiktoken_clients.py runs published libraries on both.)
"""

import hashlib
import json
import os
import socket
import subprocess
import sys

import pytest
import tiktoken.load
import tiktoken.model
import tiktoken_ext.openai_public

from bpe_core import get_encoding, load_encoding, save_tokenizer, train
from bpe_core.engine.real_tiktoken import TiktokenEncoding
from bpe_core.tiktoken_bridge import load, plugin
from bpe_core.tiktoken_bridge.blobs import BLOB_STORE, BLOBS
from bpe_core.tiktoken_bridge.cache import cache_file_name
from bpe_core.vocabularies.openai import MODEL_PREFIX_TO_ENCODING, MODEL_TO_ENCODING, tiktoken_encoding
from tests.cli import run_cli
from tests.conftest import ROOT
from tests.texts import TRICKY_TEXTS

CL100K_URL, CL100K_PIN = f"{BLOB_STORE}/encodings/cl100k_base.tiktoken", BLOBS[f"{BLOB_STORE}/encodings/cl100k_base.tiktoken"].sha256
TEXTS = [*TRICKY_TEXTS, "a <|endoftext|> b", "def f(x):\n    return x  # <|fim_prefix|>"]
CUSTOM_PATTERN = r"\w+|\s+|[^\w\s]+"  # split in Python, each piece merged by the C encoder (engine/piece_bpe.py)


def run_python(code: str, stdin: str = "", **environment) -> str:
    """`python -c CODE` with this checkout importable, in a folder of its own; its standard output."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), **environment}
    result = subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, text=True, env=env,
                            cwd=ROOT / "tests", timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


# ------------------------------------------------------------- bpe_core as tiktoken

# What code written for tiktoken does with it, once bpe_core stands in (HOW):
# the encodings by name and by model, tiktoken's constructor over ranks from
# tiktoken.load, a tokenizer trained here with its own split, and the modules' names.
AS_TIKTOKEN = """
import json, sys
import bpe_core
{how}
import tiktoken
texts = json.loads(sys.stdin.read())
gpt4 = tiktoken.encoding_for_model("gpt-4")
ranks = tiktoken.load.load_tiktoken_bpe({url!r}, {pin!r})
mine = tiktoken.Encoding("mine", pat_str=gpt4._pat_str, mergeable_ranks=ranks, special_tokens={{"<|x|>": 100300}})
trained = bpe_core.train(" ".join(texts) * 3, num_merges=200, pattern={custom!r})
print(json.dumps({{
    "bpe_core": [tiktoken is bpe_core, tiktoken.core.Encoding is bpe_core.Encoding, type(mine) is bpe_core.Encoding],
    "gpt-4": [gpt4.encode(text, allowed_special="all") for text in texts],
    "gpt-4o": [tiktoken.get_encoding(tiktoken.model.encoding_name_for_model("gpt-4o")).encode_ordinary(t) for t in texts],
    "mine": [mine.encode(text + "<|x|>", allowed_special={{"<|x|>"}}) for text in texts],
    "trained": [trained.encode(text, disallowed_special=()) for text in texts],
    "models": [tiktoken.model.MODEL_TO_ENCODING, tiktoken.model.MODEL_PREFIX_TO_ENCODING],
    "names": tiktoken.registry.list_encoding_names(),
}}))
"""
# The call puts tiktoken's submodules in place too: `import tiktoken.model` and `from tiktoken.core import ...`.
BY_THE_CALL = """bpe_core.stand_in_for_tiktoken()
import tiktoken.core, tiktoken.load, tiktoken.model, tiktoken.registry
from tiktoken.core import Encoding
from tiktoken.model import MODEL_TO_ENCODING, encoding_for_model"""


@pytest.mark.parametrize("how", [BY_THE_CALL, "sys.modules['tiktoken'] = bpe_core"], ids=["the call", "sys.modules"])
def test_code_written_for_tiktoken_gets_tiktokens_ids_from_bpe_core(how):
    code = AS_TIKTOKEN.format(how=how, url=CL100K_URL, pin=CL100K_PIN, custom=CUSTOM_PATTERN)
    answer = json.loads(run_python(code, json.dumps(TEXTS)))
    assert answer["bpe_core"] == [True, True, True]
    gpt4, gpt4o = tiktoken_encoding("cl100k_base"), tiktoken_encoding("o200k_base")
    assert answer["gpt-4"] == [gpt4.encode(text, allowed_special="all") for text in TEXTS]
    assert answer["gpt-4o"] == [gpt4o.encode_ordinary(text) for text in TEXTS]
    theirs = TiktokenEncoding("mine", pat_str=gpt4._pat_str, mergeable_ranks=gpt4._mergeable_ranks,
                              special_tokens={"<|x|>": 100300})
    assert answer["mine"] == [theirs.encode(text + "<|x|>", allowed_special={"<|x|>"}) for text in TEXTS]
    trained = train(" ".join(TEXTS) * 3, num_merges=200, pattern=CUSTOM_PATTERN)
    assert answer["trained"] == [trained.encode(text, disallowed_special=(), reference=True) for text in TEXTS]
    assert answer["models"] == [tiktoken.model.MODEL_TO_ENCODING, tiktoken.model.MODEL_PREFIX_TO_ENCODING]
    assert answer["names"] == list(tiktoken_ext.openai_public.ENCODING_CONSTRUCTORS)  # tiktoken lists OpenAI's


# tiktoken's own Encoding, which bpe_core still builds (bpe_core/engine/real_tiktoken.py), asked for only
# after bpe_core stands in for tiktoken: bpe_core imports it on first use, by then under bpe_core's name.
REAL_ENCODING_AFTER_THE_STAND_IN = """
import json, sys
import bpe_core
imported_with_bpe_core = sorted(name for name in sys.modules if name.split(".")[0] == "tiktoken")
sys.modules["tiktoken"] = bpe_core
from bpe_core.engine.real_tiktoken import TiktokenEncoding
from bpe_core.formats import to_tiktoken
texts = json.loads(sys.stdin.read())
trained = bpe_core.train(" ".join(texts) * 3, num_merges=200, pattern="cl100k", special_tokens=["<|end|>"])
mine, gpt4 = to_tiktoken(trained), bpe_core.tiktoken_encoding("cl100k_base")
import tiktoken
print(json.dumps({
    "imported with bpe_core": imported_with_bpe_core,
    "stand-in": [tiktoken is bpe_core, sorted(name for name in sys.modules if name.split(".")[0] == "tiktoken")],
    "classes": [type(mine) is TiktokenEncoding, type(gpt4) is TiktokenEncoding, TiktokenEncoding is not bpe_core.Encoding,
                TiktokenEncoding.__init__.__code__.co_filename],
    "to_tiktoken": [mine.encode(text + "<|end|>", allowed_special="all") for text in texts],
    "openai": [gpt4.encode(text, allowed_special="all") for text in texts],
    "unstable": [trained.encode_with_unstable(text) for text in UNFINISHED],
}))
"""
UNFINISHED = ["hello wor", "def f(x):\n    ret", "  12", "don'"]  # texts that more text would tokenize otherwise


def test_the_real_tiktoken_is_found_when_bpe_core_stands_in_before_it_was_imported():
    code = REAL_ENCODING_AFTER_THE_STAND_IN.replace("UNFINISHED", repr(UNFINISHED))
    answer = json.loads(run_python(code, json.dumps(TEXTS)))
    assert answer["imported with bpe_core"] == []  # not before it is needed
    assert answer["stand-in"] == [True, ["tiktoken"]]  # still standing in, the real modules out of sight
    assert answer["classes"] == [True, True, True, tiktoken.core.__file__]
    trained = train(" ".join(TEXTS) * 3, num_merges=200, pattern="cl100k", special_tokens=["<|end|>"])
    theirs = tiktoken.core.Encoding("mine", pat_str=trained.pattern, mergeable_ranks=dict(trained.mergeable_ranks),
                                    special_tokens=trained.special_tokens)
    assert answer["to_tiktoken"] == [theirs.encode(text + "<|end|>", allowed_special="all") for text in TEXTS]
    unstable = [theirs.encode_with_unstable(text) for text in UNFINISHED]  # the completions are a set: any order
    assert [[stable, sorted(completions)] for stable, completions in answer["unstable"]] == \
        [[stable, sorted(completions)] for stable, completions in unstable]
    gpt4 = tiktoken_encoding("cl100k_base")  # built in this process, where nothing stands in
    assert answer["openai"] == [gpt4.encode(text, allowed_special="all") for text in TEXTS]


def test_training_on_the_command_line_does_not_import_tiktoken(tmp_path):
    """tiktoken's import is a tenth of the command's memory at 1 MB, and training never needs it."""
    (tmp_path / "corpus.txt").write_text("the cat sat on the mat, the end. " * 50)
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "bpe_core", "train", "corpus.txt", "--merges", "20",
                             "-o", "out.json"], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0 and (tmp_path / "out.json").exists(), result.stderr[-3000:]
    imported = [line.rpartition("|")[2].strip() for line in result.stderr.splitlines() if line.startswith("import time:")]
    assert "bpe_core.engine.training" in imported
    assert [name for name in imported if name.split(".")[0] in ("tiktoken", "tiktoken_ext")] == []

def test_the_model_tables_are_tiktokens_in_its_order():
    """Prefixes are tried in order, so the order is part of the table."""
    assert list(MODEL_TO_ENCODING.items()) == list(tiktoken.model.MODEL_TO_ENCODING.items())
    assert list(MODEL_PREFIX_TO_ENCODING.items()) == list(tiktoken.model.MODEL_PREFIX_TO_ENCODING.items())


@pytest.fixture
def no_network(monkeypatch):
    """Any connection or name lookup fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"a connection was attempted: {args!r}")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # the real tiktoken reads local files without caching them


def test_tiktoken_load_reads_openais_files_from_the_package_and_refuses_other_urls(tmp_path, no_network):
    local = tmp_path / "cl100k_base.tiktoken"
    local.write_bytes(load.read_file(CL100K_URL))
    theirs = tiktoken.load.load_tiktoken_bpe(str(local), CL100K_PIN)  # tiktoken checks the file against its pin
    assert load.load_tiktoken_bpe(CL100K_URL, CL100K_PIN) == theirs
    assert load.load_tiktoken_bpe(str(local)) == theirs
    with pytest.raises(ValueError, match="Hash mismatch"):
        load.load_tiktoken_bpe(str(local), "0" * 64)
    with pytest.raises(OSError, match="reads no network: https://example.org/mine.tiktoken is not one of OpenAI's"):
        load.load_tiktoken_bpe("https://example.org/mine.tiktoken")
    load.dump_tiktoken_bpe(theirs, str(tmp_path / "again.tiktoken"))
    assert tiktoken.load.load_tiktoken_bpe(str(tmp_path / "again.tiktoken")) == theirs


@pytest.mark.slow
def test_makers_loaders_that_import_tiktoken_after_the_stand_in_give_the_same_ids():
    """Meta's and Mistral's loaders build a tiktoken `Encoding` themselves:
    imported after the stand-in they build bpe_core's."""
    code = """
import json, sys
import bpe_core
bpe_core.stand_in_for_tiktoken()
texts = json.loads(sys.stdin.read())
encodings = {name: bpe_core.load_encoding(name) for name in ("llama3", "tekken")}
import llama_models.llama3.tokenizer, mistral_common.tokens.tokenizers.tekken
assert llama_models.llama3.tokenizer.tiktoken is bpe_core and mistral_common.tokens.tokenizers.tekken.tiktoken is bpe_core
print(json.dumps({name: [e.encode(t, allowed_special="all") for t in texts] for name, e in encodings.items()}))
"""
    answer = json.loads(run_python(code, json.dumps(TEXTS)))
    assert answer == {name: [load_encoding(name).encode(text, allowed_special="all") for text in TEXTS]
                      for name in ("llama3", "tekken")}


# --------------------------------------------------------- the real tiktoken, with bpe_core's


@pytest.fixture
def users_folder(tmp_path, monkeypatch):
    """A user's folder of trained tokenizers, as BPE_CORE_TIKTOKEN_DIR names it:
    one byte-level, one over characters, one named as an OpenAI encoding is."""
    corpus = " ".join(TEXTS) * 3
    save_tokenizer(train(corpus, num_merges=300, pattern="cl100k", special_tokens=["<|end|>"]), tmp_path / "mine.json")
    save_tokenizer(train(corpus, num_merges=30, units="chars"), tmp_path / "letters.json")
    save_tokenizer(train(corpus, num_merges=10), tmp_path / "cl100k_base.json")
    monkeypatch.setenv(plugin.USER_TOKENIZERS_VARIABLE, str(tmp_path))
    return tmp_path


def test_the_plugin_gives_tiktoken_a_users_tokenizers_and_leaves_clashing_names_out(users_folder):
    with pytest.warns(UserWarning, match=r"cl100k_base\.json is not offered to tiktoken: 'cl100k_base' is already"):
        constructors = plugin.encoding_constructors()
    assert list(constructors) == [*plugin.ZOO_NAMES, "letters", "mine"]
    theirs = TiktokenEncoding(**constructors["mine"]())
    ours = train(" ".join(TEXTS) * 3, num_merges=300, pattern="cl100k", special_tokens=["<|end|>"])
    assert [theirs.encode(text + "<|end|>", allowed_special="all") for text in TEXTS] == \
        [ours.encode(text + "<|end|>", allowed_special="all") for text in TEXTS]
    with pytest.raises(ValueError, match="'letters' was trained on characters; tiktoken's encodings are byte-level"):
        constructors["letters"]()


def test_tiktoken_finds_the_plugin_by_its_namespace_package(users_folder):
    """The module the wheel installs as tiktoken_ext/bpe_core.py, found by
    tiktoken's own registry among its plugins (here: its folder added to
    the namespace package, as installing it does)."""
    code = f"""
import json, sys, tiktoken_ext
tiktoken_ext.__path__.append({str(ROOT / "bpe_core" / "tiktoken_bridge" / "tiktoken_ext")!r})
import tiktoken
texts = json.loads(sys.stdin.read())
print(json.dumps({{"names": tiktoken.list_encoding_names(),
                  "whisper": [tiktoken.get_encoding("whisper").encode(t, allowed_special="all") for t in texts],
                  "mine": [tiktoken.get_encoding("mine").encode(t, allowed_special="all") for t in texts]}}))
"""
    answer = json.loads(run_python(code, json.dumps(TEXTS), TIKTOKEN_CACHE_DIR=""))
    assert sorted(answer["names"]) == sorted([*tiktoken_ext.openai_public.ENCODING_CONSTRUCTORS, *plugin.ZOO_NAMES,
                                              "letters", "mine"])
    assert answer["whisper"] == [load_encoding("whisper").encode(text, allowed_special="all") for text in TEXTS]
    mine = train(" ".join(TEXTS) * 3, num_merges=300, pattern="cl100k", special_tokens=["<|end|>"])
    assert answer["mine"] == [mine.encode(text, allowed_special="all") for text in TEXTS]


@pytest.mark.slow
@pytest.mark.parametrize("name", plugin.ZOO_NAMES)
def test_the_zoos_tokenizers_in_tiktoken_give_their_ids(name):
    theirs = TiktokenEncoding(**plugin.ENCODING_CONSTRUCTORS[name]())
    ours = load_encoding(name)
    assert [theirs.encode(text, allowed_special="all") for text in TEXTS] == \
        [ours.encode(text, allowed_special="all") for text in TEXTS]
    assert theirs.n_vocab == ours.n_vocab


@pytest.mark.slow
def test_the_cache_command_gives_the_real_tiktoken_every_openai_encoding_offline(tmp_path, monkeypatch):
    """tiktoken's own constructors (tiktoken_ext/openai_public.py) read the
    cache the command fills, check each file against their pins, and never
    download: a file missing or unlike tiktoken's would make them try."""
    code, out, err = run_cli("tiktoken-cache", "--dir", tmp_path)
    assert code == 0, err
    assert [line.split() for line in out.splitlines()] == [
        [about.file_name, str(tmp_path / cache_file_name(url))] for url, about in BLOBS.items()]
    assert err == f"tiktoken reads these instead of downloading them when TIKTOKEN_CACHE_DIR={tmp_path}\n"
    assert {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in tmp_path.iterdir()} == {
        hashlib.sha1(url.encode()).hexdigest(): about.sha256 for url, about in BLOBS.items()}

    urls = [f"{BLOB_STORE}/gpt-2/encodings/main/{name}" for name in ("vocab.bpe", "encoder.json")]
    pins = [BLOBS[url].sha256 for url in urls]
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # tiktoken reads the local files as they are
    theirs = tiktoken.load.data_gym_to_mergeable_bpe_ranks(*(str(tmp_path / cache_file_name(url)) for url in urls), *pins)
    assert load.data_gym_to_mergeable_bpe_ranks(*urls, *pins) == theirs  # GPT-2's files, read by the stand-in

    def download(blobpath):
        raise AssertionError(f"tiktoken would download {blobpath}")

    monkeypatch.setattr(tiktoken.load, "read_file", download)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    for name, constructor in tiktoken_ext.openai_public.ENCODING_CONSTRUCTORS.items():
        theirs = TiktokenEncoding(**constructor())
        assert [theirs.encode(text, allowed_special="all") for text in TEXTS] == \
            [get_encoding(name).encode(text, allowed_special="all") for text in TEXTS], name
    assert run_cli("tiktoken-cache")[1] == out  # tiktoken's folder by its variable: the same files, the same place
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    assert run_cli("tiktoken-cache") == (
        1, "", "error: TIKTOKEN_CACHE_DIR is empty, which tells tiktoken to keep no cache: set it to a folder\n")
