"""The bundled vocabularies' health and scripts, measured once.

Checking every token of a 200,000-token vocabulary and encoding the bundled
corpus with it takes seconds to tens of seconds, the same for every visitor
of every server; so does sorting its tokens by script. So both are measured
at build time (`sample_corpora/build_vocab_health.py`) and shipped in
`vocab_health.json`, each tokenizer's under

- its source (`catalogue.encoding_source`) and fingerprint: a page finds a
  bundled tokenizer's entry by name and uses it only while both match what
  it is read from here and the tokenizer it has;
- the corpus's SHA-256 and the residue rule (`vocab_health.MIN_SEEN`,
  `MAX_RATIO`): residues counted on other texts, or by another rule, are
  not today's.

An entry holds every unreachable token (with what its text becomes), the
count and first ids of the partial characters, every residue, the tokens
the corpus made, and how many tokens each script holds (`vocabulary.script_of`).
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import astuple, dataclass
from pathlib import Path

from ..corpora.samples import SAMPLES_DIR
from ..vocabularies.catalogue import encoding_source
from .vocab_health import MAX_RATIO, MIN_SEEN, Residue, Unreachable, VocabularyHealth, vocabulary_health
from .vocabulary import script_counts, vocabulary_columns

SHIPPED_FILE = SAMPLES_DIR / "vocab_health.json"
PARTIAL_IDS_SHIPPED = 64  # the first ones, as examples: the Vocabulary page's filter lists them all


@dataclass(frozen=True)
class ShippedHealth:
    """One bundled tokenizer's measures, and what names what was measured."""

    source: str
    fingerprint: str
    health: VocabularyHealth  # its partial_characters: the first PARTIAL_IDS_SHIPPED only
    partial_count: int
    scripts: dict[str, int]  # script (or category) -> tokens, special tokens included, most first


def measure(name: str, tokenizer, texts: list[str]) -> ShippedHealth:
    """A bundled tokenizer's entry, measured now on `texts` (the bundled corpus)."""
    health = vocabulary_health(tokenizer, texts)
    scripts = script_counts(vocabulary_columns(tokenizer)["script"])
    return ShippedHealth(encoding_source(name), tokenizer.fingerprint, health, len(health.partial_characters), scripts)


def corpus_sha256(texts: list[str]) -> str:
    """One digest of the corpus's texts, in order."""
    digest = hashlib.sha256()
    for text in texts:
        digest.update(hashlib.sha256(text.encode("utf-8")).digest())
    return digest.hexdigest()


def rule() -> dict:
    return {"min_seen": MIN_SEEN, "max_ratio": MAX_RATIO}


def write_shipped(entries: dict[str, ShippedHealth], corpus_digest: str, path: Path = SHIPPED_FILE) -> None:
    stored = {"corpus_sha256": corpus_digest, "rule": rule(),
              "tokenizers": {name: _stored(entry) for name, entry in entries.items()}}
    path.write_text(json.dumps(stored, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")


def _stored(entry: ShippedHealth) -> dict:
    health = entry.health
    return {
        "source": entry.source, "fingerprint": entry.fingerprint, "tokens": health.tokens,
        "unreachable": [[found.id, list(found.becomes)] for found in health.unreachable],
        "partial_count": entry.partial_count, "partial_first": health.partial_characters[:PARTIAL_IDS_SHIPPED],
        "residues": None if health.residues is None else [list(astuple(residue)) for residue in health.residues],
        "tokens_seen": health.tokens_seen, "scripts": entry.scripts,
    }


def read_shipped(path: Path = SHIPPED_FILE) -> tuple[str | None, dict[str, ShippedHealth]]:
    """The corpus digest the file was measured on and its entries by name;
    none when the file is missing or was measured by another rule."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, {}
    if stored.get("rule") != rule():
        return None, {}
    entries = {}
    for name, entry in stored["tokenizers"].items():
        residues = entry["residues"]
        health = VocabularyHealth(
            tokens=entry["tokens"],
            unreachable=[Unreachable(token_id, tuple(becomes)) for token_id, becomes in entry["unreachable"]],
            partial_characters=entry["partial_first"],
            residues=None if residues is None else [Residue(*residue) for residue in residues],
            tokens_seen=entry["tokens_seen"],
        )
        entries[name] = ShippedHealth(entry["source"], entry["fingerprint"], health, entry["partial_count"],
                                      entry["scripts"])
    return stored["corpus_sha256"], entries


@functools.cache
def shipped() -> dict[str, ShippedHealth]:
    """The shipped `vocab_health.json`'s entries, read once."""
    return read_shipped()[1]


def shipped_health(name: str, fingerprint: str | None = None) -> ShippedHealth | None:
    """A bundled tokenizer's entry, when it was measured on what `name` is
    read from here (and, given a `fingerprint`, on that very tokenizer);
    None when it must be measured."""
    entry = shipped().get(name)
    if entry is None or entry.source != encoding_source(name):
        return None
    if fingerprint is not None and entry.fingerprint != fingerprint:
        return None
    return entry
