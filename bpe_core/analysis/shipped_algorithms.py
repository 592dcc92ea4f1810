"""The Algorithms page's default tokenizers and per-language counts, made once.

A first visit to the page trains six algorithms on the first bundled corpus
to the default vocabulary size (SuperBPE and Unigram take seconds each), and
its per-language view trains them again on the 30-language passage: the
same work for every visitor of every server. So that work is done at build
time (`sample_corpora/build_algorithms.py`) and shipped in `algorithms.json`:
each tokenizer under the SHA-256 of the text it was trained on and its
settings, and for the passage only what the page shows of them (each
language's tokens). The page uses an entry while its text and settings
match, and trains anything else itself. The tests train them again and
compare (the engine's trainers are deterministic; Hugging Face's trainers
number pieces in no fixed order and WordPiece breaks some ties differently
from run to run, so a shipped one is one such run, as a server's own
training would be).
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..algorithms.hf_trainers import HFTokenizer
from ..corpora.samples import SAMPLES_DIR
from ..engine.tokenizer import Tokenizer
from ..formats.native import tokenizer_from_dict, tokenizer_to_dict

SHIPPED_FILE = SAMPLES_DIR / "algorithms.json"
DEFAULT_CORPUS = "english_prose"  # what a first visit trains on ...
DEFAULT_VOCAB_SIZE = 2_000  # ... to this size ...
DEFAULT_TRANSITION = 1_600  # ... SuperBPE's second stage from here (80%, as the command line's default) ...
DEFAULT_THRESHOLD = 0.9  # ... and Picky BPE's threshold (the paper's and the command line's)
BPE_PATTERN = "cl100k"  # the split pattern of the page's algorithms on the engine


def training_sha256(training_text: str) -> str:
    return hashlib.sha256(training_text.encode("utf-8")).hexdigest()


def _key(algorithm: str, training_text_sha256: str, settings: Mapping) -> str:
    return json.dumps([algorithm, training_text_sha256, dict(sorted(settings.items()))])


def write_shipped(tokenizers: Sequence[tuple[str, str, dict, Tokenizer | HFTokenizer]],
                  language_tokens: Sequence[tuple[str, str, dict, Mapping[str, int]]],
                  path: Path = SHIPPED_FILE) -> None:
    """Keep tokenizers and per-language token counts, each as (algorithm,
    the text it was trained on, its settings, what to keep)."""
    def stored(tokenizer) -> dict:
        if isinstance(tokenizer, HFTokenizer):
            return {"name": tokenizer.name, "hf": tokenizer.to_json()}
        return {"native": tokenizer_to_dict(tokenizer)}

    data = {
        "tokenizers": [{"algorithm": algorithm, "training_sha256": training_sha256(text), "settings": settings,
                        "tokenizer": stored(tokenizer)}
                       for algorithm, text, settings, tokenizer in tokenizers],
        "language_tokens": [{"algorithm": algorithm, "training_sha256": training_sha256(text), "settings": settings,
                             "tokens": dict(tokens)}
                            for algorithm, text, settings, tokens in language_tokens],
    }
    path.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")


@functools.cache
def _read_shipped(path: Path = SHIPPED_FILE) -> tuple[dict, dict]:
    """(tokenizers, language counts), each by `_key`, read once; empty without a file."""
    from tokenizers import Tokenizer as HuggingFaceTokenizer

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}, {}
    tokenizers = {}
    for entry in data["tokenizers"]:
        stored = entry["tokenizer"]
        if "hf" in stored:
            tokenizer = HFTokenizer(stored["name"], HuggingFaceTokenizer.from_str(stored["hf"]), entry["algorithm"])
        else:
            tokenizer = tokenizer_from_dict(stored["native"])
        tokenizers[_key(entry["algorithm"], entry["training_sha256"], entry["settings"])] = tokenizer
    counts = {_key(entry["algorithm"], entry["training_sha256"], entry["settings"]): entry["tokens"]
              for entry in data["language_tokens"]}
    return tokenizers, counts


def shipped_tokenizer(algorithm: str, training_text: str, settings: Mapping,
                      path: Path = SHIPPED_FILE) -> Tokenizer | HFTokenizer | None:
    """`algorithm` trained on `training_text` with `settings`, if it was shipped."""
    return _read_shipped(path)[0].get(_key(algorithm, training_sha256(training_text), settings))


def shipped_language_tokens(algorithm: str, training_text: str, settings: Mapping,
                            path: Path = SHIPPED_FILE) -> dict[str, int] | None:
    """What `analysis.algorithms.language_tokens` counts of `algorithm`
    trained on `training_text` with `settings`, if it was shipped."""
    found = _read_shipped(path)[1].get(_key(algorithm, training_sha256(training_text), settings))
    return None if found is None else dict(found)
