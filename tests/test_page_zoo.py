"""Every picker offers the model zoo, and every page works with each model:
the counts, tokens and tables it shows are the maker's, run headless with
Streamlit's AppTest. Mistral v3 (SentencePiece, the odd one out) runs in
the quick loop; the byte-level models, which are Tokenizers like the OpenAI
encodings the other page tests use, with the slow tests."""

import re

import pytest

from bpe_core.vocabularies.catalogue import CATALOGUE, OpenAIRankFile
from pages.common.widgets import DEMO_TEXT
from tests.apptest import all_html, component_data, html_tables, messages, metric, open_page
from tests.test_page_vocabulary import matches
from tests.test_zoo import maker_encode

EVERY = ["mistral_v3", *(pytest.param(name, marks=pytest.mark.slow) for name in ("llama3", "llama4", "tekken"))]
PICKERS = {
    None: "home_tokenizer",
    "pages/inspect.py": "inspect_tokenizer",
    "pages/vocabulary.py": "vocab_tokenizer",
    "pages/replay.py": "replay_tokenizer",
}

ZOO = [name for name, entry in CATALOGUE.items() if not isinstance(entry.source, OpenAIRankFile)]  # other makers


def on_page(path: str | None, key: str, name: str):
    at = open_page(path)
    at.selectbox(key=key).set_value(name).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_pickers_offer_the_zoo_labelled_with_maker_models_and_size():
    at = open_page("pages/inspect.py")
    labels = at.selectbox(key="inspect_tokenizer").options
    assert all(any(label.startswith(f"{name} — ") for label in labels) for name in ZOO)
    mistral = next(label for label in labels if label.startswith("mistral_v3 — "))
    assert "Mistral" in mistral and "32,768 tokens" in mistral and "SentencePiece" in mistral
    at.selectbox(key="inspect_tokenizer").set_value("mistral_v3").run()
    assert not at.exception
    labels = open_page("pages/compare.py").multiselect(key="compare_tokenizers").options
    assert all(any(label.startswith(f"{name} — ") for label in labels) for name in ZOO)


@pytest.mark.slow
@pytest.mark.parametrize(("path", "key"), [("pages/tax.py", "tax_tokenizers"),
                                           ("pages/compression.py", "compression_references")])
def test_the_tax_and_compression_pickers_offer_the_zoo(path, key):
    labels = open_page(path).multiselect(key=key).options
    assert all(any(label.startswith(name) for label in labels) for name in ZOO)


@pytest.mark.parametrize("name", EVERY)
def test_home_and_inspect_count_the_makers_tokens(name):
    expected = len(maker_encode(name)(DEMO_TEXT))
    for path in (None, "pages/inspect.py"):
        at = on_page(path, PICKERS[path], name)
        assert metric(at, "Tokens") == f"{expected:,}"
        assert len(re.findall(r'class="bpe-tok', all_html(at))) == expected


@pytest.mark.slow  # seconds: worker processes or whole vocabularies
@pytest.mark.parametrize("name", EVERY)
def test_the_vocabulary_lists_every_token(name):
    at = on_page("pages/vocabulary.py", "vocab_tokenizer", name)
    assert metric(at, "Tokens") == f"{CATALOGUE[name].n_vocab:,}"
    table = matches(at)  # the grid, opened
    if name == "mistral_v3":  # SentencePiece's own spelling, and the scores that order merges
        row = table[table.piece == "▁Hello"].iloc[0]
        assert row.text == "·Hello" and row.score < 0
        assert table[table.piece == "<0xE3>"].iloc[0].text == "<E3>"
        at.number_input(key="vocab_detail").set_value(int(row.id)).run()
        assert any("score" in caption for caption in messages(at.caption))


@pytest.mark.parametrize("name", EVERY)
def test_encode_replay_ends_in_the_makers_tokens(name):
    text = " strawberry ሰላም"
    at = on_page("pages/replay.py", "replay_tokenizer", name)
    at.text_input(key="replay_text").input(text).run()
    assert not at.exception
    view = component_data(at)
    state = re.search(r'bpe-replay bpe-state".*?</div>', view["frames"][view["total"]], flags=re.S).group(0)
    assert [int(i) for i in re.findall(r"<small>(\d+)</small>", state)] == maker_encode(name)(text)
    steps = view["table"]
    if name == "mistral_v3":  # merges go by score, and pieces show SentencePiece's ▁
        assert "· score -" in steps and "rank" not in steps and "▁" in state
        assert any("highest score" in info for info in messages(at.info))
    else:
        assert "· rank " in steps


@pytest.mark.parametrize("name", EVERY)
def test_compare_counts_the_makers_tokens(name):  # the Tax page measures every zoo model too: see test_page_tax
    at = open_page("pages/compare.py")
    at.multiselect(key="compare_tokenizers").set_value(["cl100k_base", name]).run()
    assert not at.exception
    summary = html_tables(at)[0].set_index("tokenizer")
    assert summary.loc[name, "tokens"] == len(maker_encode(name)(DEMO_TEXT))


def test_a_missing_package_stops_the_page_with_its_pip_command(sentencepiece_missing):
    at = open_page("pages/inspect.py")
    at.selectbox(key="inspect_tokenizer").set_value("mistral_v3").run()
    assert not at.exception
    assert "pip install sentencepiece" in at.error[0].value


@pytest.mark.slow  # seconds: whole vocabularies
@pytest.mark.parametrize("name", ["deepseek_v3", "gemma3"])
def test_gemma_and_deepseek_on_every_page_with_a_tokenizer_picker(name):
    """Counts, replay and vocabulary for the two shipped as tokenizer.json
    files, held to Hugging Face's tokenizers over the same files."""
    from tests.test_zoo_hf_files import hugging_face

    reference = hugging_face(name)
    expected = len(reference.encode(DEMO_TEXT, add_special_tokens=False).ids)
    for path in (None, "pages/inspect.py"):
        at = on_page(path, PICKERS[path], name)
        assert metric(at, "Tokens") == f"{expected:,}"
    at = on_page("pages/replay.py", "replay_tokenizer", name)
    at.text_input(key="replay_text").input(" strawberry ሰላም").run()
    view = component_data(at)
    state = re.search(r'bpe-replay bpe-state".*?</div>', view["frames"][view["total"]], flags=re.S).group(0)
    assert [int(i) for i in re.findall(r"<small>(\d+)</small>", state)] == \
        reference.encode(" strawberry ሰላም", add_special_tokens=False).ids
    at = on_page("pages/vocabulary.py", "vocab_tokenizer", name)
    assert metric(at, "Tokens") == f"{CATALOGUE[name].n_vocab:,}"
