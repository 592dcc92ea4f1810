"""The Vocabulary page, run headless with Streamlit's AppTest."""

import functools
import json
import re
import subprocess
import sys

import pytest
from streamlit.testing.v1 import AppTest

from bpe_core import train
from bpe_core.vocabularies.openai import tiktoken_encoding
from pages.common.tokenizers import TrainedTokenizer
from tests import apptest
from tests.conftest import ROOT
from tests.test_page_vocab_health import shows_the_shipped_health_of_cl100k_base
from tests.test_vocabulary import decodes_alone

PAGE = "pages/vocabulary.py"
XSS = "<script>alert(1)</script> "


def open_page(**query) -> AppTest:
    return apptest.open_page(PAGE, query=query)


def pick(at: AppTest, name: str) -> AppTest:
    at.selectbox(key="vocab_tokenizer").set_value(name).run()
    assert not at.exception
    return at


def matches(at: AppTest):
    """Every match, as the data grid holds them: drawn once its box is opened."""
    if not at.dataframe:
        at.session_state["vocab_grid_open"] = True  # what a click on the box tells the page
        at.run()
        assert not at.exception
    return at.dataframe[0].value


def metric(at: AppTest, label: str) -> str:
    return apptest.metric(at, label)


def first_rows(at: AppTest):
    """The plain table of the first matches, as a reader sees it."""
    (table,) = [table for table in apptest.html_tables(at) if "token" in table.columns]
    return table


def first_rows_markup(at: AppTest) -> str:
    (markup,) = [element.value for element in at.html if 'class="bpe-table"' in element.value and ">token</th>" in element.value]
    return markup


@pytest.mark.slow
def test_search_gpt2_for_the_with_a_space():
    at = pick(open_page(), "gpt2")
    at.text_input(key="vocab_text").input(" the").run()
    assert not at.exception
    table = matches(at)
    assert 262 in table["id"].tolist()
    assert table["string"].str.contains(" the", regex=False).all()
    assert metric(at, "Matches") == f"{len(table):,}"
    assert metric(at, "Tokens") == "50,257"


@pytest.mark.slow
def test_filter_tokens_that_are_not_utf8():
    at = pick(open_page(), "gpt2")
    at.toggle(key="vocab_not_utf8").set_value(True).run()
    assert not at.exception
    table = matches(at)
    reference = tiktoken_encoding("gpt2")


    assert table["id"].tolist() == [token_id for token_id in range(reference.n_vocab) if not decodes_alone(reference, token_id)]


@pytest.mark.slow  # seconds: worker processes or whole vocabularies
def test_bad_regex_is_a_message_not_a_traceback():
    at = pick(open_page(), "gpt2")
    at.text_input(key="vocab_regex").input("(unclosed").run()
    assert not at.exception
    assert [re.sub(r"\\(.)", r"\1", error.value) for error in at.error] == [  # as shown: Markdown escapes undone
        "'(unclosed' cannot be searched for: it is not a valid regular expression (missing ) at position 9)."
    ]
    assert metric(at, "Matches") == "–"


@pytest.mark.slow
def test_sort_longest_first_and_filter_by_script():
    at = pick(open_page(), "o200k_base")
    at.multiselect(key="vocab_scripts").set_value(["Devanagari"])
    at.segmented_control(key="vocab_sort").set_value("length").run()
    assert not at.exception
    table = matches(at)
    assert set(table["script"]) == {"Devanagari"} and len(table) > 1_000
    assert table["bytes"].is_monotonic_decreasing
    assert script_bars(at)["Devanagari"] == len(table)  # the bars count the whole vocabulary, filtered or not


def test_a_link_reproduces_the_view():
    at = open_page(vocab_tokenizer="gpt2", vocab_regex=r"^ \d{4}$", vocab_sort="longest first", vocab_detail="262")
    assert at.text_input(key="vocab_regex").value == r"^ \d{4}$"
    table = matches(at)
    assert len(table) > 0 and table["string"].str.fullmatch(r" \d{4}").all()
    assert "id 262 · 4 bytes (hex): `20 74 68 65`" in [text.value for text in at.markdown]  # " the", in hex


@pytest.mark.slow  # seconds: worker processes or whole vocabularies
def test_unknown_id_in_detail_is_a_message():
    at = pick(open_page(), "gpt2")
    at.number_input(key="vocab_detail").set_value(60_000).run()
    assert not at.exception
    assert any("ids run from 0 to 50256" in error.value for error in at.error)


def chips(at: AppTest):
    """The page's own token HTML (not the header's copy-link button)."""
    return [element for element in at.get("html") if "bpe-chip" in element.proto.body]


@pytest.fixture(scope="module")
def xss_tokenizer():
    return train(XSS * 40, num_merges=30, pattern="none")


def test_a_token_holding_markup_is_shown_escaped(xss_tokenizer):
    at = apptest.open_page(PAGE, trained=TrainedTokenizer(xss_tokenizer, XSS * 40, "a script tag"))
    pick(at, "trained here")
    at.text_input(key="vocab_text").input("<script>").run()
    assert not at.exception
    rows = re.sub(r"<style>.*?</style>", "", first_rows_markup(at), flags=re.DOTALL)
    assert "&lt;script&gt;" in rows and not re.search(r"<script|<img|onerror", rows)
    table = matches(at)
    (script_tag,) = table.loc[table["string"] == "<script>", "id"]
    at.number_input(key="vocab_detail").set_value(int(script_tag)).run()
    body = "".join(element.proto.body for element in chips(at))
    assert "&lt;script&gt;" in body
    assert not re.search(r"<script|<img|onerror", re.sub(r"<style>.*?</style>", "", body, flags=re.DOTALL))


def test_trained_tokenizer_shows_steps_and_the_merge(xss_tokenizer):
    at = apptest.open_page(PAGE, trained=TrainedTokenizer(xss_tokenizer, XSS * 40, "a script tag"))
    pick(at, "trained here")
    assert any("learned at step" in info.value for info in at.info)
    at.segmented_control(key="vocab_sort").set_value("step").run()
    table = matches(at)
    merges = len(xss_tokenizer.trace)
    assert table["learned_at_step"].head(merges).tolist() == list(range(1, merges + 1))
    last = xss_tokenizer.trace[-1]
    at.number_input(key="vocab_detail").set_value(last.new_id).run()
    assert any(f"Learned at step {merges}" in caption.value for caption in at.caption)
    assert any('class="bpe-op">+' in element.proto.body for element in chips(at))


def test_the_uploader_is_drawn_only_once_its_box_is_opened():
    at = open_page()
    assert "Load a tokenizer" in apptest.popover_labels(at)
    assert not at.get("file_uploader") and not [box for box in at.selectbox if box.key == "vocab_upload_pattern"]
    at.session_state["vocab_upload_open"] = True  # what a click on the expander tells the page
    at.run()
    assert not at.exception
    assert at.selectbox(key="vocab_upload_pattern").value == "cl100k"
    assert at.get("file_uploader")  # where a file of one's own is given


def script_bars(at: AppTest) -> dict[str, int]:
    """The bars of tokens per script the page drew: script -> count, top to bottom."""
    (bars,) = [apptest.horizontal_bars(element.value) for element in at.html if "bpe-hbars" in element.value]
    assert bars.title == "Tokens per script"
    return {script: int(bar.text.replace(",", "")) for script, (bar,) in bars.rows.items()}


def test_the_script_bars_count_the_tokenizers_table_and_are_made_once():
    from bpe_core.analysis.vocabulary import script_counts
    from pages.common.tokenizers import tokenizer_by_name
    from pages.common.vocabulary_tables import script_bars_of, table_of

    at = open_page()
    tokenizer = tokenizer_by_name(at.session_state["vocab_tokenizer"])
    made = script_bars_of(tokenizer)
    assert made is script_bars_of(tokenizer)  # shared by every rerun and session, not made again
    drawn = script_bars(at)
    assert drawn == script_counts(table_of(tokenizer)["script"])
    assert list(drawn.values()) == sorted(drawn.values(), reverse=True)  # the largest on top
    assert not apptest.charts(at)  # no plotly.js to load for a few bars


def test_the_default_view_is_plain_html_and_the_grid_comes_on_demand():
    from pages.common.tokenizers import tokenizer_by_name
    from pages.common.vocabulary_tables import table_of

    at = open_page()
    assert not at.dataframe and not at.metric and not at.get("download_button")  # each a costly kind of element
    table = table_of(tokenizer_by_name("cl100k_base"))
    assert [metric(at, label) for label in ("Tokens", "Matches", "Not valid UTF-8", "Longest (bytes)")] == [
        "100,261", "100,261", f"{(~table['valid_utf8']).sum():,}", f"{table['bytes'].max():,}"]
    rows = first_rows(at)
    assert rows["id"].tolist() == list(range(20))  # the first 20 tokens, in id order
    assert rows["token"][0] == "!" and '<td class="tok">!</td>' in first_rows_markup(at)  # drawn as a token
    assert "The first 20 of 100,261 matches" in " ".join(caption.value for caption in at.caption)
    grid_box, health_box = at.expander  # the health section's box comes last
    assert grid_box.label.startswith("All the matches in a grid") and health_box.label.startswith("Which tokens")
    table = matches(at)  # opens the box
    assert len(table) == 100_261 and at.get("download_button")
    at.text_input(key="vocab_text").input(" the").run()  # fewer matches: the open box stays open
    assert at.dataframe and 0 < len(at.dataframe[0].value) < 100_261
    shows_the_shipped_health_of_cl100k_base(at)  # the health section: see test_page_vocab_health.py


def test_the_first_rows_show_spaces_and_stray_bytes_as_the_grid_does():
    at = open_page(vocab_tokenizer="gpt2", vocab_text="·the")
    rows = first_rows(at).set_index("id")
    assert rows.loc[262, "token"] == "·the"  # " the": its space shown
    at = open_page(vocab_tokenizer="gpt2", vocab_not_utf8="true")
    reference = tiktoken_encoding("gpt2")
    stray = next(token_id for token_id in range(reference.n_vocab) if not decodes_alone(reference, token_id))
    assert first_rows(at)["id"][0] == stray
    assert first_rows(at)["token"][0] == f"<{reference.decode_single_token_bytes(stray).hex(' ').upper()}>"  # <A1>


def test_the_popover_labels_say_what_is_chosen_from_a_link_and_after_a_change():
    at = open_page(vocab_tokenizer="gpt2", vocab_text=" the", vocab_ignore_case="true", vocab_scripts=["Latin"],
                   vocab_leading_space="true", vocab_sort="longest first", vocab_detail="262")
    assert [apptest.shown(label) for label in apptest.popover_labels(at)] == [
        "Tokenizer: GPT-2 (gpt2)", "Search: “·the” in any case", "Filter: Latin · leading space", "Sort: longest first", "Load a tokenizer",
        "Token id 262"]
    at.text_input(key="vocab_text").input("").run()
    at.text_input(key="vocab_regex").input("[*]").run()
    at.number_input(key="vocab_id").set_value(9).run()
    at.multiselect(key="vocab_scripts").set_value(["Latin", "Greek", "Han (CJK)", "Thai"]).run()
    at.toggle(key="vocab_leading_space").set_value(False).run()
    at.segmented_control(key="vocab_sort").set_value("id").run()
    at.number_input(key="vocab_detail").set_value(300).run()
    assert not at.exception
    labels = apptest.popover_labels(at)
    assert [apptest.shown(label) for label in labels] == [
        "Tokenizer: GPT-2 (gpt2)", "Search: regex [*] in any case, id 9", "Filter: Latin, Greek +2", "Sort: id", "Load a tokenizer", "Token id 300"]
    assert "[*]" not in labels[1]  # what the user typed goes in literally: Markdown's punctuation escaped
    assert apptest.popover_labels(open_page()) == ["Tokenizer: GPT-4 (cl100k_base)", "Search: every token", "Filter: none", "Sort: id", "Load a tokenizer",
                                           "Token: the first match (id 0)"]


def test_a_label_says_what_the_control_shows_when_a_link_names_no_option_it_offers():
    """A link's sort or script that the page does not offer is dropped: the labels say what the controls
    then show, not what the link asked for."""
    at = open_page(vocab_sort="shortest", vocab_scripts=["Latin", "Klingon"])
    assert at.segmented_control(key="vocab_sort").value == "id" and at.multiselect(key="vocab_scripts").value == ["Latin"]
    assert [apptest.shown(label) for label in apptest.popover_labels(at)][2:4] == ["Filter: Latin", "Sort: id"]


@pytest.mark.parametrize("linked", ["length", "longest first"])  # the id; the label, as older links carry it
def test_a_link_naming_the_sort_by_its_id_or_its_label_opens_that_sort(linked):
    at = open_page(vocab_sort=linked)
    assert at.segmented_control(key="vocab_sort").value == "length"
    assert apptest.shown(apptest.popover_labels(at)[3]) == "Sort: longest first"
    assert at.query_params["vocab_sort"] == "length"  # the link keeps the id
    at.segmented_control(key="vocab_sort").set_value("id").run()
    assert "vocab_sort" not in at.query_params  # the default leaves the link
    at.segmented_control(key="vocab_sort").set_value("step").run()
    assert at.query_params["vocab_sort"] == "step"


@pytest.mark.slow  # seconds: the page drawn twice, the table read for the comparison and the search
def test_the_first_view_reads_no_table_and_shows_what_the_table_would(monkeypatch):
    """A first visit reads none of the vocabulary's table (most of a second
    of it): its figures, first rows and bars of scripts are had without it,
    and the page is the very page drawn from the table; a search reads it."""
    from bpe_core.analysis.vocabulary import script_counts
    from bpe_core.analysis.vocabulary_search import vocabulary_table
    from bpe_core.drawing.tables import table_rows
    from bpe_core.drawing.vocabulary import script_bars_html
    from pages.common import vocabulary_tables
    from pages.common.shared_cache import SharedCache
    from pages.common.vocabulary_tables import FIRST_ROWS, Figures

    tables = SharedCache(max_entries=4, max_bytes=100_000_000)
    monkeypatch.setattr(vocabulary_tables, "TABLES", tables)
    for cache in ("FIGURES", "HEADS", "SCRIPT_BARS", "SEARCHES"):  # made anew, as on a fresh server
        monkeypatch.setattr(vocabulary_tables, cache, SharedCache(max_entries=8, max_bytes=1_000_000))
    first_view = open_page()
    assert tables.size == (0, 0)

    @functools.cache  # one table, read once for the three
    def from_the_table(tokenizer):
        return vocabulary_table(tokenizer)

    monkeypatch.setattr(vocabulary_tables, "first_rows_of",
                        lambda tokenizer: table_rows(from_the_table(tokenizer).head(FIRST_ROWS)))
    monkeypatch.setattr(vocabulary_tables, "figures_of", lambda tokenizer: Figures(
        len(table := from_the_table(tokenizer)), int((~table["valid_utf8"]).sum()), int(table["bytes"].max())))
    monkeypatch.setattr(vocabulary_tables, "script_bars_of",
                        lambda tokenizer: script_bars_html(script_counts(from_the_table(tokenizer)["script"])))
    from_table = open_page()
    for kind in ("html", "markdown", "caption", "info", "expander"):
        assert [element.proto for element in first_view.get(kind)] == [element.proto for element in from_table.get(kind)], kind
    assert "The first 20 of 100,261 matches" in " ".join(caption.value for caption in first_view.caption)

    first_view.text_input(key="vocab_text").input(" the").run()
    assert tables.size[0] == 1  # a search reads the table, once


FIRST_VIEW_THEN_A_SEARCH = """
import json, sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file({app!r}, default_timeout=120)
at.switch_page("pages/vocabulary.py")
at.run()
first_view = ["pandas" in sys.modules, [caption.value for caption in at.caption], [element.exception for element in at.exception]]
at.text_input(key="vocab_text").input(" the").run()
print(json.dumps([first_view, "pandas" in sys.modules, [caption.value for caption in at.caption]]))
"""


@pytest.mark.slow  # seconds: a fresh process, as a fresh server
def test_a_first_visit_imports_no_pandas_and_a_search_does():
    """Importing pandas is half a second of a first visit's server time: the
    first view (every token in id order) lists its first rows without it;
    the first search, filter, sort or grid reads the whole table into a
    DataFrame, importing it then."""
    code = FIRST_VIEW_THEN_A_SEARCH.format(app=str(ROOT / "app.py"))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    (loaded, captions, exceptions), loaded_by_search, searched = json.loads(result.stdout.strip().splitlines()[-1])
    assert not exceptions and any(caption.startswith("The first 20 of 100,261 matches") for caption in captions)
    assert not loaded
    assert loaded_by_search and any(re.match(r"The first 20 of [\d,]+ matches", caption) for caption in searched)


def test_the_first_rows_and_figures_read_alone_are_the_tables(xss_tokenizer):
    """Of a tokenizer trained here too (its steps), and of one whose two special tokens share an id (gpt-oss)."""
    from bpe_core import load_encoding
    from bpe_core.analysis.vocabulary_search import vocabulary_table
    from bpe_core.drawing.tables import table_rows
    from bpe_core.vocabularies.catalogue import CATALOGUE
    from pages.common.vocabulary_tables import FIRST_ROWS, figures_of, first_rows_of

    table = vocabulary_table(xss_tokenizer)
    assert first_rows_of(xss_tokenizer) == table_rows(table.head(FIRST_ROWS))
    assert figures_of(xss_tokenizer) == (len(table), (~table["valid_utf8"]).sum(), table["bytes"].max())
    assert figures_of(load_encoding("o200k_harmony")).tokens == CATALOGUE["o200k_harmony"].n_vocab  # each id once
