"""The bundled tokenizers' costs on the parallel corpus, measured once.

The fairness lab (the Tax page) shows every bundled tokenizer's premiums on
the 30-language passage by default. Loading the zoo's tokenizers and
measuring each of them on every language takes tens of seconds, and the
result is the same for every visitor of every server. So the costs are
measured at build time (`sample_corpora/parallel/build_costs.py`) and
shipped in `token_costs.json`, for the texts whose SHA-256 it names, each
tokenizer's under

- its source (`catalogue.encoding_source`): the pinned SHA-256 of the file
  it is read from, or its maker's package and version. The page checks it
  without loading anything and measures anew when it differs;
- its fingerprint, which the build script and the tests compare with the
  tokenizer as this project builds it now.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from ..vocabularies.catalogue import encoding_source
from .tax import PARALLEL_DIR, Cost, languages

COSTS_FILE = PARALLEL_DIR / "token_costs.json"


@dataclass(frozen=True)
class ShippedCosts:
    """One tokenizer's costs per language, and what names the tokenizer measured."""

    source: str
    fingerprint: str
    costs: dict[str, Cost]


def corpus_sha256(directory: Path = PARALLEL_DIR) -> str:
    """One digest of the corpus: its manifest and every language's text."""
    digest = hashlib.sha256((directory / "languages.csv").read_bytes())
    for code in languages(directory):
        digest.update((directory / f"{code}.txt").read_bytes())
    return digest.hexdigest()


def read_shipped(path: Path = COSTS_FILE) -> dict[str, ShippedCosts]:
    """The shipped costs by tokenizer name; none when the file is missing or
    was measured on other texts than the corpus shipped now."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if stored.get("corpus_sha256") != corpus_sha256():
        return {}
    return {
        name: ShippedCosts(entry["source"], entry["fingerprint"],
                           {code: Cost(**cost) for code, cost in entry["costs"].items()})
        for name, entry in stored["tokenizers"].items()
    }


def write_shipped(tokenizers: Mapping[str, ShippedCosts], path: Path = COSTS_FILE) -> None:
    stored = {"corpus_sha256": corpus_sha256(), "tokenizers": {name: asdict(entry) for name, entry in tokenizers.items()}}
    path.write_text(json.dumps(stored, separators=(",", ":")) + "\n", encoding="utf-8")


@functools.cache
def shipped() -> dict[str, ShippedCosts]:
    """The shipped `token_costs.json`, read once."""
    return read_shipped()


def shipped_costs(name: str) -> dict[str, Cost] | None:
    """A bundled tokenizer's costs per language, when they were measured on
    what it is read from here; None when it must be measured."""
    entry = shipped().get(name)
    if entry is None or entry.source != encoding_source(name):
        return None
    return entry.costs
