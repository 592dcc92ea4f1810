"""The Train page's default training, shipped with the app
(`bpe_core.analysis.shipped_training`): it is what training gives today, and the
page's first visit shows it without training."""

import pytest

from bpe_core import train
from bpe_core.analysis.shipped_training import (
    DEFAULT_SAMPLE,
    DEFAULT_SETTINGS,
    read_shipped,
    shipped_training,
    write_shipped,
)
from bpe_core.corpora.samples import catalog
from bpe_core.engine.corpus import corpus_fingerprint
from bpe_core.formats.native import tokenizer_to_dict
from pages.common import tokenizers
from tests.apptest import component_data, open_page

CORPUS = catalog()[DEFAULT_SAMPLE].load()


def test_the_shipped_default_is_what_training_gives_today():
    shipped = shipped_training(corpus_fingerprint(CORPUS), DEFAULT_SETTINGS)
    assert shipped is not None
    assert tokenizer_to_dict(shipped) == tokenizer_to_dict(train(CORPUS, **DEFAULT_SETTINGS))  # merges, counts, trace


def test_other_corpora_or_settings_are_not_shipped():
    fingerprint = corpus_fingerprint(CORPUS)
    assert shipped_training(corpus_fingerprint(CORPUS + "x"), DEFAULT_SETTINGS) is None
    for changed in (dict(vocab_size=1_001), dict(pattern="gpt2"), dict(units="chars"), dict(special_tokens=())):
        assert shipped_training(fingerprint, {**DEFAULT_SETTINGS, **changed}) is None, changed


def test_the_file_reads_back_as_written(tmp_path):
    ((fingerprint, _), tokenizer), = read_shipped().items()
    write_shipped([(fingerprint, DEFAULT_SETTINGS, tokenizer)], tmp_path / "train.json")
    assert {key: tokenizer_to_dict(value) for key, value in read_shipped(tmp_path / "train.json").items()} == \
        {key: tokenizer_to_dict(value) for key, value in read_shipped().items()}
    assert read_shipped(tmp_path / "missing.json") == {}


def test_the_page_opens_on_the_shipped_training_without_training(monkeypatch):
    def refuse(*arguments, **settings):
        raise AssertionError("the default view trained")

    monkeypatch.setattr(tokenizers, "train_within_budget", refuse)
    at = open_page("pages/train.py")
    assert not at.exception
    trained = at.session_state["trained"]
    assert trained.tokenizer is shipped_training(corpus_fingerprint(CORPUS), DEFAULT_SETTINGS)
    assert trained.recipe.sample == DEFAULT_SAMPLE  # a link still rebuilds it
    assert component_data(at)["total"] == len(trained.tokenizer.trace)


@pytest.mark.slow  # a worker process trains
def test_other_settings_are_trained_as_before():
    at = open_page("pages/train.py")
    at.number_input(key="train_vocab").set_value(600).run()
    assert not at.exception and len(at.session_state["trained"].tokenizer.merges) == 600 - 256
