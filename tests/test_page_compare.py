"""The Compare page, run headless with Streamlit's AppTest."""

import re

from streamlit.testing.v1 import AppTest

from bpe_core.vocabularies.openai import tiktoken_encoding
from tests.apptest import all_html, html_tables, open_page, popover_labels, shown, type_text
from tests.test_comparison import table_cells

OPENAI = ["gpt2", "cl100k_base", "o200k_base"]
KEY = "compare_tokenizers"


def open_compare() -> AppTest:
    return open_page("pages/compare.py")


def compare(at: AppTest, text: str, names=OPENAI) -> AppTest:
    at.session_state["shared_text_box"] = {"text": text}  # as the box sends it when the typist pauses
    at.multiselect(key=KEY).set_value(names)
    at.run()
    assert not at.exception
    return at


def content_html(at: AppTest) -> str:
    """The page's HTML views, without its own scripts."""
    return all_html(at)


def html_views(at: AppTest) -> list[str]:
    return [element.value for element in at.html]


def token_counts(at: AppTest) -> dict[str, int]:
    table = html_tables(at)[0]
    return dict(zip(table["tokenizer"], table["tokens"]))


def test_first_visit_compares_the_home_text_with_the_starter_and_openai_tokenizers():
    at = open_page()
    type_text(at, "Typed on the home page")
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    assert at.multiselect(key=KEY).value == ["starter", *OPENAI]
    assert list(html_tables(at)[0]["tokenizer"]) == ["starter (1,000, cl100k)", *OPENAI]  # what each one is
    assert html_tables(at)[0]["tokens"][1] == len(tiktoken_encoding("gpt2").encode("Typed on the home page"))


def test_token_counts_are_tiktokens():
    text = "Tokenizers split «naïve» text differently: 12345 + 67890 — こんにちは 👩‍💻\n    return x"
    at = compare(open_compare(), text)
    assert token_counts(at) == {name: len(tiktoken_encoding(name).encode(text)) for name in OPENAI}
    table = html_tables(at)[0]
    assert min(table["vs best"]) == "1.00×"


def test_special_tokens_toggle_follows_tiktoken():
    text = "Hello<|endoftext|>world"
    at = compare(open_compare(), text)
    as_plain_text = {name: tiktoken_encoding(name).encode(text, disallowed_special=()) for name in OPENAI}
    assert token_counts(at) == {name: len(ids) for name, ids in as_plain_text.items()}
    assert any("special token" in info.value for info in at.info)
    assert "Special tokens: off" in popover_labels(at)
    at.toggle(key="compare_special").set_value(True).run()
    assert not at.exception
    assert "Special tokens: on" in popover_labels(at)
    as_special = {name: tiktoken_encoding(name).encode(text, allowed_special="all") for name in OPENAI}
    assert token_counts(at) == {name: len(ids) for name, ids in as_special.items()}


def test_fewer_than_two_tokenizers_asks_for_more():
    at = compare(open_compare(), "Hello world", ["gpt2"])
    assert [info.value for info in at.info] == ["Choose at least two tokenizers to compare."]
    assert not html_tables(at) and not content_html(at)


def test_empty_text_asks_for_text():
    at = compare(open_compare(), "", ["gpt2", "cl100k_base"])
    assert any("Type or paste some text" in info.value for info in at.info)
    assert not html_tables(at)


def test_typed_markup_is_shown_escaped():
    payload = "<b>x</b><script>alert(1)</script>"
    at = compare(open_compare(), payload)
    markup = content_html(at)
    assert "&lt;" in markup and "&lt;/" in markup
    assert "<script" not in markup and "<b>" not in markup
    assert not [element for element in at.markdown if "<script" in element.value]


def test_difference_table_is_capped_and_counted():
    at = compare(open_compare(), "    x\n" * 300, ["gpt2", "cl100k_base"])  # gpt2 splits indentation, cl100k not
    (differences,) = [table_cells(markup) for markup in html_views(at) if "cmp-stretches" in markup]
    header, *rows = differences
    assert len(rows) == 200
    assert header == ["stretch", "gpt2", "cl100k_base"]
    # gpt2 has no token for several spaces; cl100k has "   " (then " x" in both)
    assert rows[0] == ["···", "· | · | ·", "···"]
    assert any("300 stretches" in caption.value and "first 200" in caption.value for caption in at.caption)


def test_identical_tokenizers_say_so():
    at = compare(open_compare(), "Hello world", ["gpt2", "cl100k_base"])
    assert any("same places" in message.value for message in at.success)


def test_the_choice_survives_a_page_change():
    at = compare(open_compare(), "Hello world", ["gpt2", "o200k_base"])
    at.switch_page("pages/inspect.py").run()
    at.switch_page("pages/compare.py").run()
    assert at.multiselect(key=KEY).value == ["gpt2", "o200k_base"]
    assert list(html_tables(at)[0]["tokenizer"]) == ["gpt2", "o200k_base"]


def test_the_summary_is_a_plain_table_in_the_grids_number_formats():
    """A few rows nobody needs to sort: a plain table, without the data
    grid's code, its numbers shown as the grid's column formats say."""
    at = open_compare()
    assert not at.dataframe and not at.table
    shown = html_tables(at)[0]
    assert all(isinstance(tokens, int) for tokens in shown["tokens"])  # written whole
    markup = content_html(at)
    assert len(re.findall(r'<td class="num">\d+\.\d\d×</td>', markup)) == len(shown)  # vs best: 1.23×
    assert len(re.findall(r'<td class="num">\d+\.\d\d</td>', markup)) >= len(shown)  # bytes/token: 3.45
    assert 'title="Tokens divided by the fewest' in markup  # the column's help, on its header


def test_the_special_tokens_popover_says_what_a_link_chose():
    at = open_page("pages/compare.py", query={"compare_special": "true"})
    assert at.toggle(key="compare_special").value is True
    assert [shown(label) for label in popover_labels(at)] == ["Tokenizers: Starter, GPT-2, GPT-4 +1", "Special tokens: on", "Summary (CSV)", "All differing stretches (CSV)"]
