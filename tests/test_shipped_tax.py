"""The bundled tokenizers' costs on the parallel corpus, shipped with the app
(`bpe_core.analysis.shipped_tax`): they are today's tokenizers' on today's
texts, and the page measures anew whatever they are not."""

import pytest

from bpe_core.analysis import shipped_tax
from bpe_core.analysis.shipped_tax import corpus_sha256, read_shipped, shipped, shipped_costs
from bpe_core.analysis.tax import costs_of, languages, parallel_text
from bpe_core.vocabularies.catalogue import LISTED, encoding_source, load_encoding


def test_every_bundled_tokenizer_is_shipped_for_what_it_is_read_from_here():
    assert set(shipped()) == set(LISTED)
    for name, entry in shipped().items():
        assert entry.source == encoding_source(name), f"{name} is read from other files: run build_costs.py"
        assert set(entry.costs) == set(languages())
        assert shipped_costs(name) is entry.costs


@pytest.mark.slow  # loads and measures every vocabulary
def test_the_shipped_costs_are_todays_tokenizers_on_todays_texts():
    texts = {code: parallel_text(code) for code in languages()}
    for name, entry in shipped().items():
        tokenizer = load_encoding(name)
        assert entry.fingerprint == tokenizer.fingerprint, f"{name} changed: run build_costs.py"
        assert entry.costs == costs_of(tokenizer, texts), name


def test_a_tokenizer_read_from_other_files_is_measured_anew(monkeypatch):
    monkeypatch.setattr(shipped_tax, "encoding_source", lambda name: "llama-models==99.0" if name == "llama3" else
                        encoding_source(name))
    assert shipped_costs("llama3") is None
    assert shipped_costs("gpt2") is not None
    monkeypatch.setattr(shipped_tax, "encoding_source", lambda name: None)  # its package is not installed
    assert shipped_costs("gpt2") is None


def test_costs_measured_on_other_texts_are_not_used(tmp_path):
    path = tmp_path / "token_costs.json"
    stored = read_shipped()
    shipped_tax.write_shipped(stored, path)
    assert read_shipped(path) == stored
    path.write_text(path.read_text().replace(corpus_sha256(), "0" * 64))
    assert read_shipped(path) == {}
    assert read_shipped(tmp_path / "missing.json") == {}

