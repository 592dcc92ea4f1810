"""The Train page's default training, done once at build time.

A first visit to the Train page trains on the English sample with the
page's default settings: the same merges for every visitor of every server,
yet the first visitor waited for a worker process to start and train them.
So that training is done at build time (`sample_corpora/build_train.py`)
and shipped in `train.json`, under what it was trained from: the corpus's
digest (`bpe_core.engine.corpus.corpus_fingerprint`, a SHA-256) and the settings. Training
is deterministic, so the app uses the shipped tokenizer while both match
what a visitor asks for, and trains anything else itself; the tests compare
the file with a new training.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from ..corpora.samples import SAMPLES_DIR
from ..engine.tokenizer import Tokenizer
from ..formats.native import tokenizer_from_dict, tokenizer_to_dict

SHIPPED_FILE = SAMPLES_DIR / "train.json"
DEFAULT_SAMPLE = "english_prose"  # the Train page's defaults: its sample ...
DEFAULT_SETTINGS = dict(vocab_size=1_000, pattern="cl100k", units="bytes", special_tokens=("<|endoftext|>",))  # ...


def _settings_key(settings: dict) -> str:
    """Settings as one comparable string (tuples and lists alike)."""
    return json.dumps({name: list(value) if isinstance(value, tuple) else value for name, value in settings.items()},
                      sort_keys=True)


def write_shipped(trainings: list[tuple[str, dict, Tokenizer]], path: Path = SHIPPED_FILE) -> None:
    """Ship `trainings`: (corpus fingerprint, settings, what training gave)."""
    stored = [{"corpus_fingerprint": fingerprint, "settings": json.loads(_settings_key(settings)),
               "tokenizer": tokenizer_to_dict(tokenizer)} for fingerprint, settings, tokenizer in trainings]
    path.write_text(json.dumps(stored, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")


def read_shipped(path: Path = SHIPPED_FILE) -> dict[tuple[str, str], Tokenizer]:
    """The shipped tokenizers by (corpus fingerprint, settings); none when the file is missing."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {(entry["corpus_fingerprint"], _settings_key(entry["settings"])): tokenizer_from_dict(entry["tokenizer"])
            for entry in stored}


@functools.cache
def _shipped() -> dict[tuple[str, str], Tokenizer]:
    return read_shipped()


def shipped_training(corpus_fingerprint: str, settings: dict) -> Tokenizer | None:
    """What training a corpus (by its fingerprint) with `settings` gives, if it was shipped; one
    tokenizer for every caller (tokenizers are read-only)."""
    return _shipped().get((corpus_fingerprint, _settings_key(settings)))
