"""Published libraries written for tiktoken give the same answers with bpe_core
standing in for it as with the real tiktoken: langchain-text-splitters'
chunks (TokenTextSplitter, RecursiveCharacterTextSplitter.from_tiktoken_encoder),
tokencost's counts (count_string_tokens, count_message_tokens), semchunk's
chunks and offsets (chunkerify) and ttok's counts, ids, texts and tokens,
errors included.

They run in the virtual environment .ci/run makes with the package's wheel
and those libraries from the package registry (tests/installed.py), by
tests/tiktoken_clients.py: once with the real tiktoken, reading OpenAI's
files from a cache that the wheel's `tiktoken-cache` command filled (tiktoken
checks each against its pin), and once with bpe_core, with no cache at all.
Neither run may reach the network.
"""

import json

import pytest

from bpe_core.corpora.samples import catalog
from tests.conftest import ROOT
from tests.installed import run_installed
from tests.texts import TRICKY_TEXTS

pytestmark = pytest.mark.slow

DRIVER = ROOT / "tests" / "tiktoken_clients.py"
TEXTS = [sample.load()[:3_000] for sample in catalog().values() if sample.kind == "text"] + TRICKY_TEXTS


@pytest.fixture(scope="module")
def answers(tmp_path_factory) -> dict[str, dict]:
    """Each library's answers, with each tiktoken."""
    folder = tmp_path_factory.mktemp("clients")
    (folder / "cache").mkdir()
    (folder / "no cache").mkdir()
    run_installed("-m", "bpe_core", "tiktoken-cache", "--dir", folder / "cache", folder=folder)
    return {
        which: json.loads(run_installed(DRIVER, which, folder=folder, stdin=json.dumps(TEXTS),
                                        TIKTOKEN_CACHE_DIR=str(folder / cache)))
        for which, cache in [("tiktoken", "cache"), ("bpe_core", "no cache")]
    }


def test_each_run_used_the_tiktoken_it_was_given(answers):
    assert answers["tiktoken"]["tiktoken is"] == "tiktoken" and answers["bpe_core"]["tiktoken is"] == "bpe_core"


@pytest.mark.parametrize("library", ["langchain TokenTextSplitter", "langchain RecursiveCharacterTextSplitter.from_tiktoken_encoder",
                                     "tokencost count_string_tokens", "tokencost count_message_tokens",
                                     "semchunk chunkerify", "ttok"])
def test_a_library_answers_alike_on_bpe_core_and_on_tiktoken(answers, library):
    theirs, ours = answers["tiktoken"][library], answers["bpe_core"][library]
    assert list(ours) == list(theirs)
    for setting in theirs:
        assert ours[setting] == theirs[setting], f"{library}, {setting}"


def test_the_answers_are_worth_comparing(answers):
    """Long texts cut into many chunks, counts that differ by encoding, and
    the errors tiktoken raises for special tokens, said alike."""
    theirs = answers["tiktoken"]
    chunks = theirs["langchain TokenTextSplitter"]["cl100k_base, 64 tokens, overlap 8"]
    assert max(len(text_chunks) for text_chunks in chunks if isinstance(text_chunks, list)) > 10
    assert any(isinstance(answer, str) and "disallowed special token" in answer for answer in chunks)
    counts = theirs["tokencost count_string_tokens"]
    assert counts["gpt-4o"] != counts["gpt-4"] != counts["davinci"]
    assert theirs["ttok"]["a special token"][0] == 1
    assert theirs["ttok"]["--allow-special"] == [0, "64494 220 199999 2105\n"]  # <|endoftext|> is o200k_base's 199999
