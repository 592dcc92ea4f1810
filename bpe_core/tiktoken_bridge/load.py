"""`tiktoken.load` when bpe_core stands in for tiktoken: rank files read, offline.

tiktoken's loader downloads OpenAI's files from their URLs (and caches
them); here those URLs are answered from this package (`blobs`), checked
against the same SHA-256, and any other URL is refused: nothing is ever
fetched. Local files are read as tiktoken reads them, and a hash, when
given, is checked as tiktoken checks it.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

from ..formats.data_gym import ranks_from_data_gym
from ..formats.tiktoken_file import parse_tiktoken_ranks
from .blobs import BLOBS, blob


def read_file(blobpath: str) -> bytes:
    """A local file's bytes, or one of OpenAI's files by its URL (see `blobs`)."""
    if "://" not in blobpath:
        return Path(blobpath).read_bytes()
    if blobpath not in BLOBS:
        raise OSError(f"bpe_core reads no network: {blobpath} is not one of OpenAI's files it ships "
                      "(give a local path)")
    return blob(blobpath)


def check_hash(data: bytes, expected_hash: str) -> bool:
    return hashlib.sha256(data).hexdigest() == expected_hash


def read_file_cached(blobpath: str, expected_hash: str | None = None) -> bytes:
    """`read_file`, checked against `expected_hash` when given. (Nothing is
    downloaded, so there is nothing to cache.)"""
    contents = read_file(blobpath)
    if expected_hash and not check_hash(contents, expected_hash):
        raise ValueError(f"Hash mismatch for data from {blobpath} (expected {expected_hash}).")
    return contents


def load_tiktoken_bpe(tiktoken_bpe_file: str, expected_hash: str | None = None) -> dict[bytes, int]:
    """The ranks of a `.tiktoken` file: "base64(token) rank" per line."""
    return parse_tiktoken_ranks(read_file_cached(tiktoken_bpe_file, expected_hash))


def data_gym_to_mergeable_bpe_ranks(
    vocab_bpe_file: str,
    encoder_json_file: str,
    vocab_bpe_hash: str | None = None,
    encoder_json_hash: str | None = None,
    clobber_one_byte_tokens: bool = False,
) -> dict[bytes, int]:
    """The ranks of GPT-2's original files, vocab.bpe and encoder.json (see `formats.data_gym`)."""
    return ranks_from_data_gym(read_file_cached(vocab_bpe_file, vocab_bpe_hash),
                               read_file_cached(encoder_json_file, encoder_json_hash),
                               clobber_one_byte_tokens=clobber_one_byte_tokens)


def dump_tiktoken_bpe(bpe_ranks: dict[bytes, int], tiktoken_bpe_file: str) -> None:
    """Write ranks as a `.tiktoken` file (a local path)."""
    in_rank_order = sorted(bpe_ranks.items(), key=lambda item: item[1])
    Path(tiktoken_bpe_file).write_bytes(b"".join(base64.b64encode(token) + b" %d\n" % rank for token, rank in in_rank_order))


__all__ = ["check_hash", "data_gym_to_mergeable_bpe_ranks", "dump_tiktoken_bpe", "load_tiktoken_bpe", "read_file",
           "read_file_cached"]
