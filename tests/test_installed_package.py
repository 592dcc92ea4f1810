"""The package as pip installs it from its wheel, used from a folder outside
the checkout, offline (tests/installed.py: the virtual environment .ci/run
makes): the command line gives tiktoken's ids, the sample corpora and the
UDHR are there, and the real tiktoken finds the package's tokenizers and,
from a cache the package fills, OpenAI's files. The wheel holds exactly
the repository's files, each where pyproject.toml maps it."""

import hashlib
import json
import subprocess
import zipfile

import pytest

from bpe_core import load_encoding, save_tokenizer, train
from bpe_core.corpora.samples import catalog
from bpe_core.corpora.udhr import declarations
from bpe_core.tiktoken_bridge.plugin import USER_TOKENIZERS_VARIABLE, ZOO_NAMES
from bpe_core.vocabularies.openai import ENCODINGS, tiktoken_encoding
from tests.conftest import ROOT
from tests.installed import required, run_installed
from tests.texts import TRICKY_TEXTS

pytestmark = pytest.mark.slow

TEXT = "".join(TRICKY_TEXTS[:12]) + "\n"


def test_the_command_line_gives_tiktokens_ids_from_any_folder(tmp_path):
    out = run_installed("-m", "bpe_core", "encode", "--encoding", "cl100k_base", "-", folder=tmp_path, stdin=TEXT)
    assert list(map(int, out.split())) == tiktoken_encoding("cl100k_base").encode(TEXT)
    where = run_installed("-c", "import bpe_core; print(bpe_core.__file__)", folder=tmp_path)
    assert "site-packages" in where and str(ROOT) not in where  # the installed package, not this checkout


def test_the_sample_corpora_and_the_udhr_are_installed_with_it(tmp_path):
    code = """
import hashlib, json
from bpe_core.corpora.samples import catalog
from bpe_core.corpora.udhr import declarations
print(json.dumps({"samples": {id: hashlib.sha256(json.dumps(s.load()).encode()).hexdigest() for id, s in catalog().items()},
                  "declarations": sorted(declarations())}))
"""
    installed = json.loads(run_installed("-c", code, folder=tmp_path))
    assert installed["samples"] == {id: hashlib.sha256(json.dumps(sample.load()).encode()).hexdigest()
                                    for id, sample in catalog().items()}
    assert installed["declarations"] == sorted(declarations())


def test_the_real_tiktoken_finds_the_plugin_and_reads_openais_files_from_the_filled_cache(tmp_path):
    save_tokenizer(train(TEXT * 5, num_merges=100, pattern="o200k"), tmp_path / "mine.json")
    run_installed("-m", "bpe_core", "tiktoken-cache", "--dir", tmp_path / "cache", folder=tmp_path)
    code = """
import json, sys, tiktoken
text = sys.stdin.read()
print(json.dumps({"names": tiktoken.list_encoding_names(),
                  "ids": {name: tiktoken.get_encoding(name).encode(text) for name in ["whisper", "mine", "gpt2", "o200k_harmony"]}}))
"""
    answer = json.loads(run_installed("-c", code, folder=tmp_path, stdin=TEXT, TIKTOKEN_CACHE_DIR=str(tmp_path / "cache"),
                                      **{USER_TOKENIZERS_VARIABLE: str(tmp_path)}))
    assert set(answer["names"]) == {*ZOO_NAMES, "mine", *ENCODINGS}
    mine = train(TEXT * 5, num_merges=100, pattern="o200k")
    assert answer["ids"] == {"whisper": load_encoding("whisper").encode(TEXT), "mine": mine.encode(TEXT),
                             "gpt2": tiktoken_encoding("gpt2").encode(TEXT),
                             "o200k_harmony": tiktoken_encoding("o200k_harmony").encode(TEXT)}


def test_the_wheel_holds_the_repositorys_files_where_pyproject_maps_them():
    tracked = subprocess.run(["git", "ls-files", "bpe_core", "sample_corpora"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.splitlines()
    plugin = "bpe_core/tiktoken_bridge/tiktoken_ext/"
    expected = {f"tiktoken_ext/{path.removeprefix(plugin)}" if path.startswith(plugin)
                else f"bpe_core/corpora/{path}" if path.startswith("sample_corpora/") else path for path in tracked}
    with zipfile.ZipFile(required("PACKAGE_WHEEL")) as wheel:  # its metadata, and any module compiled from a source
        held = {name for name in wheel.namelist() if ".dist-info/" not in name and not name.endswith((".so", ".pyd"))}
    assert held == expected
