"""The bad-input matrix: every kind of bad input gets a clear message, on the
page and in the CLI, and nothing the user had is lost (the previous trained
tokenizer and the text stay). Cases already covered elsewhere are named at
the end of this file."""

import json

import pytest
from streamlit.proto.Block_pb2 import Block as BlockProto
from streamlit.testing.v1 import AppTest

from bpe_core import train
from bpe_core.engine import patterns
from bpe_core.formats import tokenizer_to_json
from tests.apptest import (
    messages,
    metric,
    open_page,
    popover_labels,
    shared_box_text,
    shown,
    type_in_box,
    type_text,
)
from tests.cli import run_cli
from tests.conftest import ROOT


@pytest.fixture
def trained_page():
    """The Train page after training on its default sample."""
    at = open_page("pages/train.py")
    assert at.session_state["trained"] is not None
    return at


def kept(at, before) -> bool:
    return at.session_state["trained"].tokenizer is before and not at.exception


def paste(at, text: str):
    at.segmented_control(key="train_source").set_value("Paste").run()
    at.text_area(key="train_text").input(text).run()
    return at


def test_a_corpus_with_no_pair_to_merge_trains_nothing_and_says_why(trained_page):
    paste(trained_page, "a")
    tokenizer = trained_page.session_state["trained"].tokenizer
    assert tokenizer.merges == []
    assert any("Stopped early: no adjacent pair is left to merge after 0 merges" in s for s in messages(trained_page.caption))


def test_an_empty_upload_is_refused_and_the_previous_tokenizer_stays(trained_page):
    before = trained_page.session_state["trained"].tokenizer
    trained_page.segmented_control(key="train_source").set_value("Upload").run()
    trained_page.file_uploader(key="train_upload").upload("empty.txt", b"", "text/plain").run()
    assert any("“empty.txt” is empty" in e for e in messages(trained_page.error))
    assert kept(trained_page, before)


def test_an_upload_over_the_size_limit_is_refused(trained_page):
    before = trained_page.session_state["trained"].tokenizer
    trained_page.segmented_control(key="train_source").set_value("Upload").run()
    trained_page.file_uploader(key="train_upload").upload("huge.txt", b"a" * 10_000_001, "text/plain").run()
    assert any("the limit is 10 MB" in e for e in messages(trained_page.error))
    assert kept(trained_page, before)


def test_a_pasted_text_over_the_limit_points_to_the_upload(trained_page):
    before = trained_page.session_state["trained"].tokenizer
    paste(trained_page, "word " * 200_001)
    assert any("pasting is limited to 1,000,000" in e and "Upload" in e for e in messages(trained_page.error))
    assert kept(trained_page, before)
    assert len(trained_page.text_area(key="train_text").value) == 1_000_005  # the paste itself is kept


def outside_menus(at, kind: str) -> list[str]:
    """The messages of `kind` ("error", "info", "caption") the page shows outside its menus (st.popover):
    what is seen while every menu is closed."""
    found = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if isinstance(proto, BlockProto) and proto.WhichOneof("type") == "popover":
            return
        if getattr(node, "type", None) == kind:
            found.append(shown(node.value))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return found


def corpus_menu_label(at) -> str:
    return shown(popover_labels(at)[0])


@pytest.mark.parametrize(
    "name, data, label, reason",
    [
        ("latin1.txt", "café".encode("latin-1"), "Corpus: “latin1.txt” (not UTF-8 text)", "not UTF-8 text"),
        ("empty.txt", b" \n", "Corpus: “empty.txt” (empty)", "empty"),
        ("huge.txt", b"a" * 10_000_001, "Corpus: “huge.txt” (over the 10 MB limit)", "over the 10 MB limit"),
    ],
)
def test_a_refused_upload_is_named_as_refused_and_the_page_says_it_keeps_the_previous_tokenizer(
        trained_page, name, data, label, reason):
    before = trained_page.session_state["trained"].tokenizer
    trained_page.segmented_control(key="train_source").set_value("Upload").run()
    trained_page.file_uploader(key="train_upload").upload(name, data, "text/plain").run()
    assert corpus_menu_label(trained_page) == label
    assert outside_menus(trained_page, "error") == [f"Cannot train on “{name}”: it is {reason} (the Corpus menu says more)."]
    assert "Still showing the previous tokenizer." in outside_menus(trained_page, "caption")
    assert kept(trained_page, before)
    trained_page.file_uploader(key="train_upload").upload("good.txt", b"low lower lowest " * 20, "text/plain").run()
    assert corpus_menu_label(trained_page) == "Corpus: “good.txt”"
    assert not outside_menus(trained_page, "error")
    assert "Still showing the previous tokenizer." not in outside_menus(trained_page, "caption")
    assert trained_page.session_state["trained"].corpus_label == "“good.txt”"


def test_a_refused_paste_is_named_as_refused_and_the_page_says_it_keeps_the_previous_tokenizer(trained_page):
    before = trained_page.session_state["trained"].tokenizer
    paste(trained_page, "word " * 200_001)
    assert corpus_menu_label(trained_page) == "Corpus: pasted text, 1,000,005 characters (too long)"
    assert outside_menus(trained_page, "error") == [
        "The pasted text is too long to train on: 1,000,005 characters, up to 1,000,000 (the Corpus menu says "
        "what to do)."]
    assert "Still showing the previous tokenizer." in outside_menus(trained_page, "caption")
    paste(trained_page, "")
    assert corpus_menu_label(trained_page) == "Corpus: paste a text"
    assert outside_menus(trained_page, "info") == ["Paste a text to train on in the Corpus menu."]
    assert "Still showing the previous tokenizer." in outside_menus(trained_page, "caption")
    assert kept(trained_page, before)


@pytest.mark.slow  # seconds: worker processes or whole vocabularies
@pytest.mark.parametrize(
    "pattern, message",
    [
        (r"\w*", "matches the empty string"),
        ("(a|aa)+$", "backtracks catastrophically"),
    ],
)
@pytest.mark.usefixtures("quick_regex_deadlines")
def test_an_unusable_custom_regex_is_refused_and_the_previous_tokenizer_stays(trained_page, pattern, message):
    paste(trained_page, "a" * 60 + "b")
    trained_page.selectbox(key="train_pattern").set_value("custom").run()
    before = trained_page.session_state["trained"].tokenizer
    trained_page.text_input(key="train_custom").input(pattern).run()
    assert any(message in e for e in messages(trained_page.error))
    assert kept(trained_page, before)


def test_a_huge_text_in_the_shared_box_is_kept_and_a_prefix_is_shown():
    at = open_page("pages/inspect.py")
    type_text(at, "abc " * 60_000)
    assert any("240,000 characters" in w.value and "first 200,000" in w.value for w in at.warning)
    assert metric(at, "Characters") == "200,000"
    assert len(shared_box_text(at)) == 240_000  # the box keeps all of it


# ------------------------------------------------------------------- CLI


def cli(*args, stdin: bytes = b""):
    code, _, err = run_cli(*args, stdin=stdin)
    return code, err


def test_cli_no_pair_to_merge(tmp_path):
    code, err = cli("train", "-", "--vocab-size", "300", "-o", str(tmp_path / "t.json"), stdin=b"a")
    assert code == 0 and "stopped early: no adjacent pair is left to merge after 0 merges" in err


@pytest.mark.usefixtures("quick_regex_deadlines")
@pytest.mark.parametrize("pattern, message", [(r"\w*", "matches the empty string"), ("(a|aa)+$", "catastrophic")])
def test_cli_unusable_regex(tmp_path, pattern, message):
    code, err = cli("train", "-", "--merges", "3", "--pattern", pattern, "-o", tmp_path / "t.json", stdin=b"a" * 60 + b"b")
    assert code == 1 and err.startswith("error: ") and message in err and err.count("\n") == 1


def test_cli_truncated_tokenizer_file(tmp_path):
    saved = tokenizer_to_json(train("hello hello world", num_merges=3))
    path = tmp_path / "cut.json"
    path.write_text(saved[: len(saved) // 2])
    code, err = cli("encode", "--tokenizer", str(path), stdin=b"hello")
    assert code == 1 and "not valid JSON" in err


# Covered elsewhere: an empty corpus (test_pages, test_cli); vocab size below
# 256 and above what the corpus allows (test_pages, test_training, test_cli);
# invalid UTF-8 uploads (test_pages, test_cli); a regex that does not compile
# (test_pages, test_cli); special-token text (test_pages, test_cli); token ids
# out of range (test_pages, test_cli); corrupted and foreign files
# (test_files_and_exports, test_pages, test_loaders).


@pytest.mark.slow  # seconds: worker processes or whole vocabularies
def test_a_custom_pattern_that_times_out_on_typed_text_is_explained(trained_page, monkeypatch):
    # Quick on the corpus and on the sample every pattern is tried on first,
    # which are split under a user's deadlines (seconds): only a long run of
    # "x"s, typed later, makes it backtrack. That text alone meets a deadline
    # of 50 ms, and it needs far more at any load (each "x" more takes 1.6
    # times as long: 30 of them 0.7 s of processor time, 40 over a minute),
    # so what runs out is the deadline the message names, never the setup's.
    paste(trained_page, "x y x y xxy xyy " * 20)
    trained_page.selectbox(key="train_pattern").set_value("custom").run()
    trained_page.text_input(key="train_custom").input(r"(?:x|xx)+y|\s+|[^\s]").run()
    assert trained_page.session_state["trained"].tokenizer.pattern_name == "custom"
    monkeypatch.setattr(patterns, "CUSTOM_PATTERN_TIMEOUT_SECONDS", 0.05)
    type_in_box(trained_page, "train_try_box", "x" * 40 + "z")
    assert any("cannot split this text" in e and "took longer than 0.05 s" in e and "catastrophic" in e
               for e in messages(trained_page.error))
    assert not trained_page.exception


def open_home_with_trained(value: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["trained"] = value
    return at.run()


LINKED_TEXT = "low lower lowest newer " * 5


@pytest.mark.slow
def test_a_link_with_a_damaged_or_absurd_trained_value_is_ignored():
    """Ignored: the page opens as without it, trains nothing, says nothing,
    and drops it from the address; the same link with a well-formed recipe
    does rebuild its tokenizer (so the difference is the value's)."""
    absurd_recipes = [[None, LINKED_TEXT, 3.5, "gpt2", "bytes", []], [None, LINKED_TEXT, 10**400, "gpt2", "bytes", []],
                      ["no such sample", None, 300, "gpt2", "bytes", []], [None, LINKED_TEXT, 300, "gpt2", "words", []]]
    damaged = ["[" * 1_000, "not json", "[1, 2]", "x" * 10_000, *map(json.dumps, absurd_recipes)]
    for value in damaged:
        at = open_home_with_trained(value)
        assert not at.exception, value
        assert [title.value for title in at.title] == ["BPE playground"], value
        assert at.session_state["trained"] is None if "trained" in at.session_state else True, value
        assert not at.warning and not at.error, value
        assert "trained" not in at.query_params, value
    recipe = [None, LINKED_TEXT, 300, "gpt2", "bytes", []]
    rebuilt = open_home_with_trained(json.dumps(recipe)).session_state["trained"]
    assert rebuilt.recipe.as_link() == recipe and rebuilt.tokenizer.merges and rebuilt.corpus == LINKED_TEXT
