"""OpenAI's files by the addresses tiktoken downloads them from, answered here, offline.

tiktoken's OpenAI encodings (its `tiktoken_ext/openai_public.py`) read their
files from OpenAI's blob store, each pinned by its SHA-256: a rank file for
r50k_base, p50k_base (and p50k_edit), cl100k_base and o200k_base (and
o200k_harmony), and GPT-2's two original files for gpt2. The rank files
ship in this package (`vocabularies.openai`); GPT-2's files hold exactly
r50k_base's ranks in their older form and are written again from them
(`formats.data_gym`). Either way a file is checked against tiktoken's pin
before it is given out: it is the file tiktoken would download, or an error.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from ..formats.data_gym import data_gym_files
from ..vocabularies.bundled_files import BundledFileError
from ..vocabularies.catalogue import load_encoding
from ..vocabularies.openai import ENCODINGS, rank_file_contents

BLOB_STORE = "https://openaipublic.blob.core.windows.net"


@dataclass(frozen=True)
class Blob:
    """One file tiktoken downloads, and how this package makes it."""

    file_name: str  # as people know it
    sha256: str  # tiktoken's pin
    make: Callable[[], bytes]


@functools.cache
def _gpt2_files() -> tuple[bytes, bytes]:
    """GPT-2's vocab.bpe and encoder.json, written from r50k_base (seconds: every merge is recovered from the ranks)."""
    return data_gym_files(load_encoding("r50k_base"))


_RANK_FILES = ("r50k_base", "p50k_base", "cl100k_base", "o200k_base")

BLOBS: dict[str, Blob] = {
    **{f"{BLOB_STORE}/encodings/{name}.tiktoken": Blob(f"{name}.tiktoken", ENCODINGS[name].sha256,
                                                       functools.partial(rank_file_contents, name))
       for name in _RANK_FILES},
    f"{BLOB_STORE}/gpt-2/encodings/main/vocab.bpe": Blob(
        "vocab.bpe", "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5", lambda: _gpt2_files()[0]),
    f"{BLOB_STORE}/gpt-2/encodings/main/encoder.json": Blob(
        "encoder.json", "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783", lambda: _gpt2_files()[1]),
}


def blob(url: str) -> bytes:
    """The file tiktoken downloads from `url`, made here and checked
    against tiktoken's pin (KeyError: a URL not answered here)."""
    about = BLOBS[url]
    contents = about.make()
    if hashlib.sha256(contents).hexdigest() != about.sha256:
        raise BundledFileError(f"{about.file_name} made here does not match tiktoken's pinned SHA-256 {about.sha256}")
    return contents
