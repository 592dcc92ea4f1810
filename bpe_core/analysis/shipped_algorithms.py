"""The Three algorithms page's default tokenizers, trained once.

A first visit to the page trains BPE, WordPiece and Unigram on the first
bundled corpus to the default vocabulary size: three worker processes and
seconds of training, the same work for every visitor of every server. So
the three are trained at build time (`sample_corpora/build_three_algorithms.py`) and shipped in
`three_algorithms.json`, under the SHA-256 of the text they were trained on
and the vocabulary size; the page uses them while both match, and trains
anything else itself. The tests train them again and compare (BPE here is
deterministic; Hugging Face's trainers number pieces in no fixed order and
WordPiece breaks some ties differently from run to run, so a shipped one is
one such run, as a server's own training would be).
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

from ..algorithms.hf_trainers import HFTokenizer
from ..corpora.samples import SAMPLES_DIR
from ..formats.native import tokenizer_from_dict, tokenizer_to_dict

SHIPPED_FILE = SAMPLES_DIR / "three_algorithms.json"
DEFAULT_CORPUS = "english_prose"  # what a first visit trains on ...
DEFAULT_VOCAB_SIZE = 2_000  # ... to this size
BPE_PATTERN = "cl100k"  # the split pattern of the page's BPE


def training_sha256(training_text: str) -> str:
    return hashlib.sha256(training_text.encode("utf-8")).hexdigest()


def write_shipped(training_text: str, vocab_size: int, three: dict, path: Path = SHIPPED_FILE) -> None:
    """Keep the three tokenizers (by algorithm: "bpe", "wordpiece", "unigram")."""
    stored = {
        "training_sha256": training_sha256(training_text), "vocab_size": vocab_size,
        "bpe": tokenizer_to_dict(three["bpe"]),
        **{algorithm: {"name": three[algorithm].name, "tokenizer": three[algorithm].to_json()}
           for algorithm in ("wordpiece", "unigram")},
    }
    path.write_text(json.dumps(stored, separators=(",", ":")) + "\n", encoding="utf-8")


@functools.cache
def _read_shipped(path: Path = SHIPPED_FILE) -> tuple[str, int, dict] | None:
    """(training text's SHA-256, vocabulary size, the three tokenizers), read once; None without a file."""
    from tokenizers import Tokenizer as HuggingFaceTokenizer

    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    three = {"bpe": tokenizer_from_dict(stored["bpe"])}
    for algorithm in ("wordpiece", "unigram"):
        entry = stored[algorithm]
        three[algorithm] = HFTokenizer(entry["name"], HuggingFaceTokenizer.from_str(entry["tokenizer"]), algorithm)
    return stored["training_sha256"], stored["vocab_size"], three


def shipped_three(training_text: str, vocab_size: int, path: Path = SHIPPED_FILE) -> dict | None:
    """The three tokenizers trained on `training_text` to `vocab_size`, if they were shipped."""
    stored = _read_shipped(path)
    if stored is None or (stored[0], stored[1]) != (training_sha256(training_text), vocab_size):
        return None
    return dict(stored[2])
