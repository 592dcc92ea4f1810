"""The Tax page's Gini coefficients and script shares, run headless with
Streamlit's AppTest, against tiktoken's own counts computed here. (The
first view's Gini is checked by test_page_tax.py, on the page it opens.)"""

import statistics

import pytest

from bpe_core.analysis.tax import languages, parallel_text
from bpe_core.corpora.udhr import declaration_texts, declarations
from bpe_core.vocabularies.openai import tiktoken_encoding
from tests import apptest

PAGE = "pages/tax.py"
OPENAI = ["gpt2", "cl100k_base", "o200k_base"]


def tiktoken_tokens(name: str, text: str) -> int:
    return len(tiktoken_encoding(name).encode(text, disallowed_special=()))


def gini(values) -> float:
    """The textbook mean absolute difference over twice the mean."""
    n, mean = len(values), sum(values) / len(values)
    return sum(abs(x - y) for x in values for y in values) / (2 * n * n * mean)


def shows_each_tokenizers_gini_over_the_passage(at) -> None:
    """The tax's default view (opened by test_page_tax.py's test of a first
    visit: a page open is seconds) shows each tokenizer's Gini."""
    for name in OPENAI:
        per_line = [tiktoken_tokens(name, parallel_text(code)) / 20 for code in languages()]
        assert apptest.metric(at, f"Gini · {name}") == f"{gini(per_line):.3f}"
    assert float(apptest.metric(at, "Gini · gpt2")) > float(apptest.metric(at, "Gini · o200k_base"))
    assert apptest.metric(at, "Gini · llama3")  # every tokenizer chosen
    assert any("Gini coefficient of per-language token cost" in caption.value for caption in at.caption)


def test_the_scripts_section_sets_each_scripts_share_of_the_vocabulary_beside_its_premium():
    at = apptest.open_page(PAGE, query={"tax_section": "scripts"})
    (table,) = [table for table in apptest.html_tables(at) if "cl100k_base: vocabulary" in table.columns]
    arabic = table.set_index("script").loc["Arabic"]
    assert arabic["languages"] == "Arabic, Persian, Urdu"
    english = tiktoken_tokens("cl100k_base", parallel_text("en"))
    median = statistics.median(tiktoken_tokens("cl100k_base", parallel_text(code)) / english
                               for code in ("ar", "fa", "ur"))
    assert arabic["cl100k_base: premium"] == f"{median:.2f}×" == "3.42×"
    assert arabic["cl100k_base: vocabulary"] == "0.10%"  # 97 of 100,256 ordinary tokens
    assert table["script"].iloc[0] == "Myanmar"  # the most taxed script first, under the first tokenizer (gpt2)
    assert list(table.columns[2:4]) == ["gpt2: vocabulary", "gpt2: premium"]


@pytest.mark.slow  # the atlas: 527 declarations
def test_the_atlas_shows_each_tokenizers_gini_over_the_complete_declarations():
    at = apptest.open_page(PAGE, query={"tax_corpus": "udhr", "tax_tokenizers": ["gpt2", "o200k_base"]})
    texts = declaration_texts()
    costs = [tiktoken_tokens("gpt2", texts[code]) for code, declaration in declarations().items() if declaration.whole]
    assert apptest.metric(at, "Gini · gpt2") == f"{gini(costs):.3f}"
    assert float(apptest.metric(at, "Gini · o200k_base")) < float(apptest.metric(at, "Gini · gpt2"))
