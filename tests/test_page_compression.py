"""The Compression page, run headless with Streamlit's AppTest."""

import pytest
from streamlit.testing.v1 import AppTest

from bpe_core import train
from bpe_core.analysis.compression import corpus_text, split_held_out
from pages.common.tokenizers import TRAINED_HERE, TrainedTokenizer
from tests.apptest import chart_data, charts, popover_labels
from tests.apptest import open_page as open_app
from tests.tiktoken_oracle import tiktokens_own

PAGE = "pages/compression.py"


NUMBERS_OPEN = "compression_numbers"  # the popover of the numbers


def open_page(**session) -> AppTest:
    """The page with its numbers open (drawn only while open)."""
    return open_app(PAGE, **{NUMBERS_OPEN: True, **session})


def test_the_numbers_are_drawn_only_once_opened():
    at = open_app(PAGE)
    assert popover_labels(at)[-1] == "The numbers"
    assert not at.dataframe  # no rows sent, no data grid loaded
    at.session_state[NUMBERS_OPEN] = True  # what a click on the popover tells the page
    at.run()
    (table,) = at.dataframe
    rows = table.value
    # Every point the chart plots (bytes per token by default) is a row of the table, and
    # there is no other row: a corpus's training curve (solid), held-out curve (dashed) and
    # reference points (markers, each named by its encoding); the encodings' names are
    # labels over invisible markers, not points of the data.
    plotted = []
    for trace in charts(at)[0]["data"]:
        if trace.get("hoverinfo") == "skip":
            continue
        series = trace.get("customdata") or [{"solid": "training", "dash": "held-out"}[trace["line"]["dash"]]] * len(trace["x"])
        plotted += [(trace["legendgroup"], *point) for point in zip(series, trace["x"], trace["y"])]
    assert len(plotted) > 3 * 25  # the three default corpora's curves and references
    assert sorted(plotted) == sorted(zip(rows["corpus"], rows["series"], rows["vocab_size"], rows["bytes_per_token"]))
    assert any(caption.value == f"{len(rows):,} rows: every plotted point." for caption in at.caption)


def test_the_default_chart_opens_without_a_progress_bar():
    """Its curves and reference points are shipped: no bar to draw, clear,
    and leave behind as an empty element; other settings are measured with one."""
    at = open_app(PAGE)
    assert len(charts(at)) == 1
    assert not at.get("progress") and not at.get("empty")
    at.number_input(key="compression_vocab").set_value(500).run()
    assert len(charts(at)) == 1 and at.get("empty")  # the bar, cleared once measured


def test_the_default_chart_comes_drawn_and_other_views_do_not():
    """The first view's chart comes with its drawing (pages/common/chart_previews.json),
    shown before plotly.js loads; after a change to the figure, the chart's code or
    the theme, rebuild it: python sample_corpora/build_chart_previews.py"""
    at = open_app(PAGE)
    (data,) = chart_data(at)
    drawing = data["preview"]
    assert drawing and drawing.startswith('<svg class="main-svg"')
    assert "Vocabulary size (tokens)" in drawing and "o200k_base" in drawing and "Rashōmon" in drawing
    at.toggle(key="compression_log_x").set_value(False).run()
    (data,) = chart_data(at)
    assert data["preview"] is None


def settings_labels(at: AppTest) -> list[str]:
    """What the labels of the settings' popovers should say of the widgets' values in this run."""
    corpora = at.multiselect(key="compression_corpora")
    names = {"english_prose": "English prose", "japanese": "Japanese prose", "python_code": "Python code",
             "parallel/hi": "Hindi", "parallel/ja": "Japanese", "emoji_and_unicode": "Emoji chat"}
    references = at.multiselect(key="compression_references").value
    pattern = at.selectbox(key="compression_pattern")
    metric = at.segmented_control(key="compression_metric")
    return [
        "Corpora: " + ", ".join(names[corpus_id] for corpus_id in corpora.value[:3])
        + (f" +{len(corpora.value) - 3}" if len(corpora.value) > 3 else ""),
        f"Vocabulary {at.number_input(key='compression_vocab').value:,}, pattern {pattern.format_func(pattern.value)}",
        "Reference points: " + (", ".join(name.replace("_", "\\_") for name in references) or "none"),
        f"{metric.format_func(metric.value)} per token, {'log' if at.toggle(key='compression_log_x').value else 'linear'} axis",
    ]


def test_the_settings_popovers_say_what_is_chosen_by_default_after_a_change_and_from_a_link():
    at = open_app(PAGE)
    assert popover_labels(at)[:4] == settings_labels(at) == [
        "Corpora: English prose, Japanese prose, Python code", "Vocabulary 3,000, pattern GPT-4 (cl100k)",
        "Reference points: gpt2, cl100k\\_base, o200k\\_base", "Bytes per token, log axis"]
    at.multiselect(key="compression_corpora").set_value(["parallel/hi", "japanese", "python_code", "parallel/ja"])
    at.multiselect(key="compression_references").set_value([])
    at.segmented_control(key="compression_metric").set_value("chars")
    at.toggle(key="compression_log_x").set_value(False).run()
    assert popover_labels(at)[:4] == settings_labels(at)
    assert popover_labels(at)[0] == "Corpora: Hindi, Japanese prose, Python code +1"
    assert popover_labels(at)[2:4] == ["Reference points: none", "Characters per token, linear axis"]
    at.switch_page("pages/home.py").run()
    at.switch_page(PAGE).run()  # the choice is kept for the visit's other pages, and so are the labels
    assert popover_labels(at)[:4] == settings_labels(at) and at.toggle(key="compression_log_x").value is False

    # A link carries the labels the widgets show (Streamlit's binding); the vocabulary size, a number.
    link = {"compression_corpora": ["Parallel corpus: Hindi", "Emoji chat", "no such corpus"],
            "compression_vocab": "5000", "compression_pattern": "GPT-2", "compression_metric": "Characters",
            "compression_log_x": "false", "compression_references": ["mistral_v3"]}
    at = open_app(PAGE, query=link)
    assert at.multiselect(key="compression_corpora").value == ["parallel/hi"]
    assert popover_labels(at)[:4] == settings_labels(at) == [
        "Corpora: Hindi", "Vocabulary 5,000, pattern GPT-2", "Reference points: mistral\\_v3",
        "Characters per token, linear axis"]
    damaged = {"compression_corpora": "english_prose", "compression_vocab": "1e9", "compression_pattern": "gpt2",
               "compression_log_x": "maybe"}  # an id where the label belongs, a size out of range
    at = open_app(PAGE, query=damaged)
    assert popover_labels(at)[:4] == settings_labels(at)


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
        tokens = len(tiktokens_own(name).encode_ordinary(held_out_text))
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
        return {name for trace in chart(at)["data"] if trace.get("mode") == "markers" for name in trace["customdata"]}

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
