"""The Vocabulary page's health section, run headless with Streamlit's
AppTest: a bundled vocabulary's health is the shipped one, at once (checked
on the default view by test_page_vocabulary.py); any other is checked when
asked, in a worker; every token is escaped."""

import re

import pytest
from streamlit.testing.v1 import AppTest

from bpe_core import Tokenizer, load_encoding
from bpe_core.analysis.labels import label_text
from bpe_core.analysis.shipped_health import shipped
from bpe_core.analysis.vocab_health import unreachable_tokens
from pages.common.tokenizers import TrainedTokenizer
from tests import apptest

PAGE = "pages/vocabulary.py"
HEALTH_OPEN = "vocab_health_open"
CHECK = "vocab_health_check"
XSS = "<script>alert(1)</script> "


def open_tables(at: AppTest) -> AppTest:
    at.session_state[HEALTH_OPEN] = True  # what a click on the box tells the page
    at.run()
    assert not at.exception
    return at


def table_with(at: AppTest, column: str):
    (table,) = [table for table in apptest.html_tables(at) if column in table.columns]
    return table


def shows_the_shipped_health_of_cl100k_base(at: AppTest) -> None:
    """A bundled vocabulary's health is the shipped one, at once, and its
    tables come on demand. (Called by test_page_vocabulary.py's test of the
    default view, on the page it opened: a page open is seconds.)"""
    entry = shipped()["cl100k_base"]
    assert apptest.metric(at, "Unreachable") == "0"
    assert apptest.metric(at, "Not UTF-8 alone") == f"{entry.partial_count:,}" == "773"
    assert apptest.metric(at, "Intermediate residues") == \
        f"{len(entry.health.residues):,} of {entry.health.tokens_seen:,} made"
    assert not [button for button in at.button if button.key == CHECK]  # nothing to check: measured at build time
    assert not [table for table in apptest.html_tables(at) if "absorbed" in table.columns]  # drawn once opened
    open_tables(at)
    residues = table_with(at, "absorbed")
    cl100k = load_encoding("cl100k_base")
    first = entry.health.residues[0]
    assert residues.iloc[0].tolist() == [first.id, label_text(cl100k.token_bytes(first.id)), first.kept,
                                         first.absorbed, f"{first.ratio:.1%}", label_text(cl100k.token_bytes(first.into))]
    assert len(residues) == 50 and "The first 50 of 332." in [caption.value for caption in at.caption]
    assert any("None: every token whose bytes are text" in caption.value for caption in at.caption)


@pytest.mark.slow  # reads whisper's 50,000 tokens into the page's table
def test_the_unreachable_tokens_show_what_their_text_becomes():
    at = open_tables(apptest.open_page(PAGE, query={"vocab_tokenizer": "whisper"}))
    unreachable = table_with(at, "its text becomes")
    assert len(unreachable) == 5  # contractions in capitals, which its split pattern (GPT-2's) cuts: "'S", "'T" ...
    row = unreachable.set_index("id").loc[11460]
    assert (row["token"], row["its text becomes"], row["ids"]) == ("'S", "' + S", "6 50")


@pytest.mark.slow  # a worker process
def test_a_visitors_vocabulary_is_checked_when_asked_and_shown_escaped():
    # Tokens of markup that the split pattern cuts apart: unreachable, and shown in the table.
    markup = [b"<script>alert(1)</script>", b"<img src=x onerror=alert(1)>"]
    tokenizer = Tokenizer(name="markup", pattern="cl100k", vocab={**{i: bytes([i]) for i in range(256)},
                                                                  256: markup[0], 257: markup[1]})
    at = apptest.open_page(PAGE, trained=TrainedTokenizer(tokenizer, XSS, "a script tag"))
    at.selectbox(key="vocab_tokenizer").set_value("trained here").run()
    assert not at.exception
    with pytest.raises(AssertionError, match="no figure"):
        apptest.metric(at, "Unreachable")  # nothing measured until asked
    at.button(key=CHECK).click().run()
    assert not at.exception
    assert [found.id for found in unreachable_tokens(tokenizer)] == [256, 257]  # what the worker found, found here
    assert apptest.metric(at, "Unreachable") == "2"
    assert apptest.metric(at, "Not UTF-8 alone") == "128"  # bytes 80-FF
    assert re.fullmatch(r"0 of [\d,]+ made", apptest.metric(at, "Intermediate residues"))  # nothing to absorb
    open_tables(at)  # kept for every session: not checked again
    assert not [button for button in at.button if button.key == CHECK]
    assert table_with(at, "its text becomes")["token"].tolist() == list(map(label_text, markup))
    shown = re.sub(r"<style>.*?</style>", "", apptest.all_html(at), flags=re.DOTALL)
    assert "&lt;script&gt;" in shown and not re.search(r"<script|<img", shown)
