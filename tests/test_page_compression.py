"""The Compression page, run headless with Streamlit's AppTest."""

import pytest
from streamlit.testing.v1 import AppTest

from bpe_core import train
from bpe_core.analysis.compression import corpus_text, split_held_out
from bpe_core.encodings import tiktoken_encoding
from pages.common.tokenizers import TRAINED_HERE, TrainedTokenizer
from tests.apptest import charts
from tests.apptest import open_page as open_app

PAGE = "pages/compression.py"


NUMBERS_OPEN = "compression_numbers"  # the expander of the numbers


def open_page(**session) -> AppTest:
    """The page with its numbers open (drawn only while open)."""
    return open_app(PAGE, **{NUMBERS_OPEN: True, **session})


def test_the_numbers_are_drawn_only_once_opened():
    at = open_app(PAGE)
    (expander,) = at.expander
    assert expander.label == "The numbers" and not at.dataframe  # no rows sent, no data grid loaded
    at.session_state[NUMBERS_OPEN] = True  # what a click on the expander tells the page
    at.run()
    (table,) = at.dataframe
    assert len(table.value) > 1_000


@pytest.fixture(scope="module")
def page() -> AppTest:
    return open_page()


def chart(at: AppTest) -> dict:
    (figure,) = charts(at)
    return figure


def numbers(at: AppTest):
    (table,) = at.dataframe
    return table.value


@pytest.mark.slow
def test_opens_on_english_japanese_and_code_with_chart_and_download(page):
    assert page.multiselect(key="compression_corpora").value == ["english_prose", "japanese", "python_code"]
    groups = {trace.get("legendgroup") for trace in chart(page)["data"]} - {None}
    assert len(groups) == 3
    (download,) = page.download_button
    assert download.proto.label == "Download the numbers (CSV)"
    assert set(numbers(page).series) == {"training", "held-out", "gpt2", "cl100k_base", "o200k_base"}


def test_reference_numbers_are_tiktokens_counts_on_the_held_out_text(page):
    table = numbers(page)
    _, held_out_text = split_held_out(corpus_text("japanese"))
    corpus = page.multiselect(key="compression_corpora").format_func("japanese")
    for name in ["gpt2", "cl100k_base", "o200k_base"]:
        (row,) = table[(table.corpus == corpus) & (table.series == name)].itertuples()
        tokens = len(tiktoken_encoding(name).encode_ordinary(held_out_text))
        assert row.bytes_per_token == len(held_out_text.encode()) / tokens
        assert row.chars_per_token == len(held_out_text) / tokens


def test_metric_and_log_axis_switch_without_error(page):
    page.segmented_control(key="compression_metric").set_value("chars").run()
    assert not page.exception
    assert chart(page)["layout"]["yaxis"]["title"]["text"] == "Characters per token"
    page.toggle(key="compression_log_x").set_value(False).run()
    assert not page.exception
    assert chart(page)["layout"]["xaxis"]["type"] == "linear"


def test_reference_points_are_the_chosen_encodings_and_none_removes_their_rows(page):
    page.multiselect(key="compression_references").set_value([]).run()
    assert not page.exception
    assert set(numbers(page).series) == {"training", "held-out"}
    page.multiselect(key="compression_references").set_value(["o200k_base", "mistral_v3"]).run()
    assert not page.exception
    assert {"o200k_base", "mistral_v3"} <= set(numbers(page).series)
    page.multiselect(key="compression_references").set_value(["gpt2", "cl100k_base", "o200k_base"]).run()


def test_a_single_parallel_language_works():
    at = open_page()
    at.multiselect(key="compression_corpora").set_value(["parallel/hi"]).run()
    assert not at.exception
    assert set(numbers(at).corpus) == {"Parallel corpus: Hindi"}
    assert chart(at)["data"]


def test_no_corpus_asks_for_one():
    at = open_page()
    at.multiselect(key="compression_corpora").set_value([]).run()
    assert not at.exception
    assert "Choose at least one corpus" in at.info[0].value
    assert not charts(at)


def test_the_train_pages_tokenizer_is_plotted_from_its_own_trace():
    text = corpus_text("parallel/en") * 3
    tokenizer = train(text, vocab_size=400, pattern="cl100k")
    at = open_page(trained=TrainedTokenizer(tokenizer, text, "pasted text"))
    at.multiselect(key="compression_corpora").set_value([TRAINED_HERE]).run()
    assert not at.exception
    table = numbers(at)
    training = table[table.series == "training"]
    assert training.vocab_size.iloc[-1] == 256 + len(tokenizer.trace)
    assert training.bytes_per_token.iloc[-1] == len(text.encode()) / tokenizer.trace[-1].corpus_tokens
    assert "held-out" not in set(table.series)


def test_the_chart_follows_the_reference_points_and_settings_chosen():
    """The chart of bundled corpora is shared by every session: it is the
    one of the settings and reference points chosen, never another's."""
    def markers(at):
        return {trace["name"] for trace in chart(at)["data"] if trace.get("mode") == "markers"}

    at = open_page()
    assert markers(at) == {"gpt2", "cl100k_base", "o200k_base"}
    at.multiselect(key="compression_references").set_value([]).run()
    assert markers(at) == set()
    at.multiselect(key="compression_references").set_value(["o200k_base", "mistral_v3"]).run()
    assert markers(at) == {"o200k_base", "mistral_v3"}
    other = open_page()  # another visitor, on the defaults
    assert markers(other) == {"gpt2", "cl100k_base", "o200k_base"}
    at.multiselect(key="compression_corpora").set_value(["japanese"]).run()
    assert {trace.get("legendgroup") for trace in chart(at)["data"]} - {None} == {
        at.multiselect(key="compression_corpora").format_func("japanese")}
