"""The Algorithms page's default measures, shipped with the app
(`pages.common.algorithm_measures`): they are what measuring the shipped
tokenizers gives today, and the page drawn from them is the page drawn
from a live measurement."""

import pytest

from bpe_core.analysis.algorithms import corpus_parts, word_language
from bpe_core.analysis.shipped_algorithms import DEFAULT_CORPUS
from pages.common import algorithm_measures
from pages.common.algorithm_measures import (
    default_tokenizers,
    measure,
    measures_key,
    shipped_measures,
    write_shipped,
)
from tests.apptest import open_page

HELD_OUT_TEXT = corpus_parts(DEFAULT_CORPUS)[1]
SHOWN = ("html", "markdown", "caption", "warning", "info", "expander", "popover")


@pytest.mark.slow  # seconds: the held-out text encoded by six tokenizers, the page drawn twice
def test_the_shipped_measures_are_todays_and_the_page_drawn_from_them_is_the_live_one(monkeypatch):
    tokenizers = default_tokenizers()
    shipped = shipped_measures(tokenizers, HELD_OUT_TEXT)
    assert shipped is not None, "not shipped: python sample_corpora/build_algorithm_measures.py"
    assert shipped == measure(tokenizers, HELD_OUT_TEXT, word_language(DEFAULT_CORPUS)), \
        "stale: python sample_corpora/build_algorithm_measures.py"
    from_data = open_page("pages/algorithms.py")
    monkeypatch.setattr(algorithm_measures, "shipped_measures", lambda *arguments: None)  # the page imports it anew
    live = open_page("pages/algorithms.py")
    for kind in SHOWN:
        assert [element.proto for element in from_data.get(kind)] == [element.proto for element in live.get(kind)], kind


def test_only_those_tokenizers_on_that_text_find_them(tmp_path):
    tokenizers = default_tokenizers()
    assert shipped_measures(tokenizers, HELD_OUT_TEXT + " ") is None
    assert shipped_measures(dict(list(tokenizers.items())[:5]), HELD_OUT_TEXT) is None  # another choice of algorithms
    assert shipped_measures(dict(reversed(tokenizers.items())), HELD_OUT_TEXT) is None  # another order of columns
    assert shipped_measures(tokenizers, HELD_OUT_TEXT, tmp_path / "missing.json") is None
    measures = shipped_measures(tokenizers, HELD_OUT_TEXT)
    write_shipped({measures_key(tokenizers, "text"): measures}, tmp_path / "measures.json")
    assert shipped_measures(tokenizers, "text", tmp_path / "measures.json") == measures  # read back whole
