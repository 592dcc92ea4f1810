"""Qwen, Whisper and Claude 1/2 on the pages: every picker offers them,
labelled with who made them, and the counts, tokens and tables the pages
show are the makers' (see tests/test_zoo_more.py for the references).
Whisper, the smallest, runs in the quick loop; the others with the slow
tests."""

import re

import pytest

from bpe_core import load_encoding
from bpe_core.analysis.tax import parallel_text
from bpe_core.vocabularies.catalogue import CATALOGUE
from pages.common.tokenizers import OPENAI_ENCODINGS
from pages.common.widgets import DEMO_TEXT
from tests.apptest import all_html, component_data, html_tables, metric, open_page
from tests.test_page_tax import change, premiums
from tests.test_page_tax import open_page as open_tax_page
from tests.test_page_zoo import PICKERS, on_page
from tests.test_zoo_more import NAMES, maker_encode

EVERY = ["whisper", *(pytest.param(name, marks=pytest.mark.slow) for name in ("qwen", "claude_legacy"))]


@pytest.mark.slow  # seconds: five pages opened
def test_every_picker_offers_them_with_an_honest_label():
    for path, key in PICKERS.items():
        labels = open_page(path).selectbox(key=key).options
        for name in NAMES:
            assert any(label.startswith(f"{name} — {CATALOGUE[name].maker} · ") for label in labels), (path, name)
    labels = open_page("pages/compare.py").multiselect(key="compare_tokenizers").options
    claude = next(label for label in labels if label.startswith("claude_legacy — "))
    assert "Anthropic · Claude 1 / 2 only (later Claude's is unpublished)" in claude
    assert "whisper" not in OPENAI_ENCODINGS  # a speech model's vocabulary is not a default reference for text


@pytest.mark.parametrize("name", EVERY)
def test_home_inspect_and_compare_count_the_makers_tokens(name):
    expected = len(maker_encode(name, DEMO_TEXT))
    for path in (None, "pages/inspect.py"):
        at = on_page(path, PICKERS[path], name)
        assert metric(at, "Tokens") == f"{expected:,}"
        assert len(re.findall(r'class="bpe-tok', all_html(at))) == expected
    at = open_page("pages/compare.py")
    at.multiselect(key="compare_tokenizers").set_value(["cl100k_base", name]).run()
    assert not at.exception
    assert html_tables(at)[0].set_index("tokenizer").loc[name, "tokens"] == expected


@pytest.mark.slow  # seconds: a whole vocabulary's table
@pytest.mark.parametrize("name", NAMES)
def test_the_vocabulary_lists_every_token_and_replay_ends_in_the_makers_tokens(name):
    at = on_page("pages/vocabulary.py", "vocab_tokenizer", name)
    tokenizer = load_encoding(name)
    assert metric(at, "Tokens") == f"{len(tokenizer.vocab) + len(tokenizer.special_tokens):,}"  # Whisper's empty token left out
    text = " strawberry ሰላም 你好"
    at = on_page("pages/replay.py", "replay_tokenizer", name)
    at.text_input(key="replay_text").input(text).run()
    assert not at.exception
    view = component_data(at)
    state = re.search(r'bpe-replay bpe-state".*?</div>', view["frames"][view["total"]], flags=re.S).group(0)
    assert [int(i) for i in re.findall(r"<small>(\d+)</small>", state)] == maker_encode(name, text)


@pytest.mark.slow  # seconds: the whole parallel corpus through several vocabularies
def test_the_fairness_lab_measures_them_with_the_makers_counts():
    at = open_tax_page()
    assert all(any(label.startswith(f"{name} — ") for label in at.multiselect(key="tax_tokenizers").options)
               for name in NAMES)
    change(at, at.multiselect(key="tax_tokenizers"), NAMES)
    table = premiums(at)
    for name in NAMES:
        counts = {code: len(maker_encode(name, parallel_text(code))) for code in ("my", "en")}
        assert table.loc["Burmese", name] == counts["my"] / counts["en"]
