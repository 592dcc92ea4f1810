"""The bundled vocabularies' health and scripts, shipped with the app
(`bpe_core.analysis.shipped_health`): measured on today's corpus by
today's rule, of today's tokenizers, and never used for anything else."""

import json

import pytest

from bpe_core.analysis import shipped_health
from bpe_core.analysis.shipped_health import (
    PARTIAL_IDS_SHIPPED,
    SHIPPED_FILE,
    corpus_sha256,
    measure,
    read_shipped,
    shipped,
    write_shipped,
)
from bpe_core.analysis.shipped_health import (
    shipped_health as shipped_entry,
)
from bpe_core.analysis.shipped_tax import shipped as shipped_costs
from bpe_core.analysis.vocab_health import health_corpus
from bpe_core.vocabularies.catalogue import LISTED, encoding_source, load_encoding


def test_every_bundled_tokenizer_is_shipped_for_what_it_is_read_from_here_on_todays_corpus():
    digest, entries = read_shipped()
    assert digest == corpus_sha256(health_corpus()), "the bundled texts changed: run build_vocab_health.py"
    assert list(entries) == LISTED
    for name, entry in entries.items():
        assert entry.source == encoding_source(name), f"{name} is read from other files: run build_vocab_health.py"
        # The same tokenizer as the shipped costs, whose fingerprints test_shipped_tax checks against today's.
        assert entry.fingerprint == shipped_costs()[name].fingerprint, name
        assert shipped_entry(name, entry.fingerprint) == entry


@pytest.mark.slow  # measures two vocabularies on 6 MB of text: seconds
@pytest.mark.parametrize("name", ["gpt2", "mistral_v3"])  # byte-level BPE; SentencePiece, whose texts follow an anchor
def test_the_shipped_measures_are_todays(name):
    tokenizer = load_encoding(name)
    fresh = measure(name, tokenizer, health_corpus())
    stored = shipped()[name]
    assert fresh.fingerprint == stored.fingerprint
    assert fresh.health.unreachable == stored.health.unreachable
    assert fresh.health.residues == stored.health.residues
    assert fresh.health.partial_characters[:PARTIAL_IDS_SHIPPED] == stored.health.partial_characters
    assert (fresh.partial_count, fresh.health.tokens, fresh.health.tokens_seen, fresh.scripts) == \
        (stored.partial_count, stored.health.tokens, stored.health.tokens_seen, stored.scripts)


def test_an_entry_is_used_only_for_the_tokenizer_it_was_measured_on(monkeypatch):
    gpt2 = shipped()["gpt2"]
    assert shipped_entry("gpt2") is gpt2
    assert shipped_entry("gpt2", "another fingerprint") is None  # a tokenizer of the same name, changed
    assert shipped_entry("a visitor's tokenizer") is None
    monkeypatch.setattr(shipped_health, "encoding_source", lambda name: "llama-models==99.0")
    assert shipped_entry("llama3") is None
    monkeypatch.setattr(shipped_health, "encoding_source", lambda name: None)  # its package is not installed
    assert shipped_entry("gpt2") is None


def test_a_file_of_another_rule_or_none_at_all_gives_nothing(tmp_path):
    digest, entries = read_shipped()
    path = tmp_path / "vocab_health.json"
    write_shipped(entries, digest, path)
    assert read_shipped(path) == (digest, entries)
    stored = json.loads(SHIPPED_FILE.read_text(encoding="utf-8"))
    stored["rule"]["max_ratio"] = 0.5
    path.write_text(json.dumps(stored), encoding="utf-8")
    assert read_shipped(path) == (None, {})
    assert read_shipped(tmp_path / "missing.json") == (None, {})
