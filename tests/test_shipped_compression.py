"""The Compression page's default curves and reference points, shipped with
the app (`bpe_core.analysis.shipped_compression`): they are what training
and measuring give today, and the page shows them as it shows its own."""

import pytest

from bpe_core import train
from bpe_core.analysis import compression, shipped_compression
from bpe_core.analysis.compression import (
    HELD_OUT_FRACTION,
    ReferencePoint,
    chart_corpora,
    corpus_curves,
    corpus_text,
    split_held_out,
)
from bpe_core.analysis.shipped_compression import (
    DEFAULT_CORPORA,
    DEFAULT_SETTINGS,
    read_shipped,
    reference_key,
    shipped_curves,
    shipped_reference,
    write_shipped,
)
from bpe_core.vocabularies.catalogue import LISTED, load_encoding
from pages.common import tokenizers
from tests.apptest import open_page


def parts(corpus_id: str) -> tuple[str, str]:
    return split_held_out(corpus_text(corpus_id), HELD_OUT_FRACTION)


def test_the_default_chart_and_every_reference_point_are_shipped():
    for corpus_id in DEFAULT_CORPORA:
        assert shipped_curves(*parts(corpus_id), **DEFAULT_SETTINGS) is not None, corpus_id
    for corpus_id in chart_corpora():
        for name in LISTED:
            assert shipped_reference(parts(corpus_id)[1], name) is not None, (corpus_id, name)


@pytest.mark.slow  # trains
def test_the_shipped_curves_are_what_training_and_measuring_give_today():
    for corpus_id in DEFAULT_CORPORA:
        training_text, held_out_text = parts(corpus_id)
        fresh = corpus_curves(train(training_text, **DEFAULT_SETTINGS), training_text, held_out_text)
        assert shipped_curves(training_text, held_out_text, **DEFAULT_SETTINGS) == fresh, corpus_id


def test_the_file_holds_a_reference_point_for_every_corpus_and_encoding_and_no_other():
    _, references = read_shipped()
    assert set(references) == {reference_key(parts(corpus_id)[1], name) for corpus_id in chart_corpora() for name in LISTED}


@pytest.mark.slow  # loads the vocabulary (the tokenizers' own tests load them too: once per process)
@pytest.mark.parametrize("name", LISTED)
def test_every_shipped_reference_point_is_counted_again(name):
    """Each encoding's point on the held-out text of every corpus the chart
    can plot, counted here: its tokens, and the bytes and characters per
    token worked out from them (not with the page's `reference_points`).
    The tokens are the engine's, held to each maker's ids elsewhere
    (tests/test_native_encoding.py, tests/test_zoo*.py). Counting all 35
    corpora takes a tenth of a second a tokenizer (Gemma 3, in Python: a second)."""
    tokenizer = load_encoding(name)
    for corpus_id in chart_corpora():
        held_out_text = parts(corpus_id)[1]
        tokens = len(tokenizer.encode_ordinary(held_out_text))
        counted = ReferencePoint(name, tokenizer.n_vocab, len(held_out_text.encode("utf-8")) / tokens,
                                 len(held_out_text) / tokens)
        assert shipped_reference(held_out_text, name) == counted, corpus_id


def test_other_settings_texts_or_sources_are_not_shipped(monkeypatch):
    training_text, held_out_text = parts("english_prose")
    assert shipped_curves(training_text, held_out_text, 3_500, "cl100k") is None
    assert shipped_curves(training_text + "x", held_out_text, **DEFAULT_SETTINGS) is None
    assert shipped_reference(held_out_text + "x", "gpt2") is None
    monkeypatch.setattr(shipped_compression, "encoding_source", lambda name: "llama-models==99.0")
    assert shipped_reference(held_out_text, "llama3") is None
    monkeypatch.setattr(shipped_compression, "encoding_source", lambda name: None)  # its package is not installed
    assert shipped_reference(held_out_text, "gpt2") is None


def test_the_file_reads_back_as_written(tmp_path):
    curves, references = read_shipped()
    write_shipped(curves, references, tmp_path / "compression.json")
    assert read_shipped(tmp_path / "compression.json") == (curves, references)
    assert read_shipped(tmp_path / "missing.json") == ({}, {})


def test_the_page_draws_the_shipped_default_chart_without_training_or_loading(monkeypatch):
    def refuse(*arguments, **settings):
        raise AssertionError("the default chart trained or loaded a vocabulary")

    monkeypatch.setattr(tokenizers, "train_within_budget", refuse)
    monkeypatch.setattr(compression, "load_encoding", refuse)
    at = open_page("pages/compression.py", compression_numbers=True)  # the numbers open
    (table,) = [frame.value for frame in at.dataframe]
    for corpus_id in DEFAULT_CORPORA:
        training_text, held_out_text = parts(corpus_id)
        label = chart_corpora()[corpus_id]
        shipped = shipped_curves(training_text, held_out_text, **DEFAULT_SETTINGS)
        for series, points in (("training", shipped.training), ("held-out", shipped.held_out)):
            rows = table[(table["corpus"] == label) & (table["series"] == series)]
            assert [tuple(row) for row in rows[["vocab_size", "bytes_per_token", "chars_per_token"]].values] == \
                [tuple(point) for point in points]
        gpt2 = table[(table["corpus"] == label) & (table["series"] == "gpt2")]
        assert tuple(gpt2.iloc[0, 2:]) == tuple(shipped_reference(held_out_text, "gpt2"))[1:]
