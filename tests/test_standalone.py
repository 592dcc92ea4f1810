"""Views saved as one HTML file (bpe_core.drawing.standalone), read as text:
everything is inlined, the step control is the app's own script, user text
is escaped, the page may make no request, and a talk's file stays small.
How the files behave in a browser is in test_browser_saved_pages.py."""

import base64
import hashlib
import json
import re

import pytest

from bpe_core import load_encoding, train
from bpe_core.corpora.samples import catalog
from bpe_core.drawing.standalone import SavedPageError, replay_page, token_view_page, training_page
from bpe_core.drawing.step_control import CONTROL_CSS, CONTROL_JS

XSS = '<img src=x onerror="alert(1)"></script><script>alert(2)</script>'


@pytest.fixture(scope="module")
def alice():
    sample = catalog()["english_prose"]
    corpus = sample.load()
    tokenizer = train(corpus, vocab_size=1_000, pattern="cl100k", special_tokens=("<|endoftext|>",))
    return tokenizer, corpus, sample


@pytest.fixture(scope="module")
def saved_training(alice):
    tokenizer, corpus, sample = alice
    return training_page(tokenizer, corpus, corpus_label=sample.title, opening=sample.opening_offset(corpus))


def scripts(page: str) -> list[str]:
    return re.findall(r'<script type="module">(.*?)</script>', page, flags=re.S)


def embedded(page: str, element_id: str):
    found = re.search(rf'<script type="application/json" id="{element_id}">(.*?)</script>', page, flags=re.S)
    return json.loads(found[1])


@pytest.mark.slow
def test_a_saved_training_page_holds_every_step_of_the_run_in_a_few_hundred_kilobytes(alice, saved_training):
    tokenizer = alice[0]
    view = embedded(saved_training, "sa-view")
    settings = embedded(saved_training, "sa-settings")
    assert view["total"] == len(tokenizer.trace) == 744
    assert settings["start"] == 0 and settings["held"] == 745  # every step, 0 to 744: nothing to fetch
    assert len(view["merges"]) == len(view["pairs"]) == 745
    assert len(saved_training.encode("utf-8")) < 1_000_000  # 0.30 MB when written


@pytest.mark.slow
def test_the_saved_page_runs_the_apps_own_step_control_and_style(saved_training):
    (script,) = scripts(saved_training)
    body = CONTROL_JS.split("export default function (", 1)[1]
    assert body in script  # the very same code, its default export named for the page to call
    assert "function mountStepControl(" in script and "export default" not in script
    assert CONTROL_CSS in saved_training


@pytest.mark.slow
def test_the_page_may_make_no_request_and_run_only_its_own_script(saved_training):
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', saved_training)[1]
    assert "default-src 'none'" in policy
    (script,) = scripts(saved_training)
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in policy
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", saved_training)


@pytest.mark.slow
def test_user_text_in_a_saved_page_is_escaped():
    tokenizer = train(f"{XSS} " * 20, vocab_size=270, pattern="gpt2")
    page = training_page(tokenizer, f"{XSS} " * 20, corpus_label=XSS)
    assert "<img" not in page and "<script>alert" not in page
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in page  # the label, shown as text
    for element_id in ("sa-view", "sa-settings"):  # data may hold no "<", which could end its element
        raw = re.search(rf'id="{element_id}">(.*?)</script>', page, flags=re.S)[1]
        assert "<" not in raw
    view = token_view_page(load_encoding("cl100k_base"), XSS)
    assert "<img" not in view and "<script>alert" not in view
    replay = replay_page(load_encoding("cl100k_base"), XSS[:40])
    assert "<img" not in replay


def test_a_replay_page_holds_every_merge_and_the_merge_tree():
    page = replay_page(load_encoding("cl100k_base"), "unbelievably")
    view = embedded(page, "sa-view")
    assert view["kind"] == "frames" and view["total"] == len(view["frames"]) - 1 == 9
    assert "Merge tree of the longest token" in page


@pytest.mark.slow
def test_a_token_view_page_has_cards_and_counts():
    text = "Tokenizers don't see words"
    page = token_view_page(load_encoding("o200k_base"), text, colour_by="id")
    tokens = load_encoding("o200k_base").encode(text)
    assert page.count('class="bpe-tok') == len(tokens)
    assert f"Tokens<b>{len(tokens)}</b>" in page
    assert "data-card=\"token 1 · id " in page and "rank 4,421: 'T' (51) + 'oken' (2488)" in page


@pytest.mark.parametrize("make, message", [
    (lambda: replay_page(load_encoding("gpt2"), ""), "give a word"),
    (lambda: replay_page(load_encoding("gpt2"), "x" * 61), "up to 60"),
    (lambda: token_view_page(load_encoding("gpt2"), ""), "give a text"),
])
def test_bad_input_gets_a_clear_message(make, message):
    with pytest.raises(SavedPageError, match=message):
        make()


@pytest.mark.slow
def test_a_run_longer_than_a_page_holds_is_refused_with_what_to_do(alice):
    tokenizer, corpus, _ = alice
    with pytest.raises(SavedPageError, match="744 merges; a saved page holds up to 100.*smaller vocabulary"):
        training_page(tokenizer, corpus, corpus_label="Alice", max_steps=100)


def test_a_word_count_corpus_is_saved_with_its_words():
    corpus = catalog()["textbook_word_counts"].load()
    tokenizer = train(corpus, vocab_size=270, pattern="gpt2")
    view = embedded(training_page(tokenizer, corpus, corpus_label="words"), "sa-view")
    assert view["textNote"].startswith("each word with its count") and view["total"] == len(tokenizer.trace)
