"""Hostile files, patterns and links: each gets one clear message (a page's
error box, or one "error:" line and exit status 1 from the command line),
bounded time and memory, and nothing the user had is lost."""

import json

import pytest

from bpe_core import PatternError, train
from bpe_core.formats import TokenizerFileError, tokenizer_from_file, tokenizer_from_json, tokenizer_to_json
from bpe_core.untrusted_regex import compile_untrusted
from pages.common.names import PAGES
from tests.apptest import messages, open_page
from tests.cli import run_cli


def chain_of_merges(count: int) -> str:
    """A saved tokenizer whose merges each add one byte to the last token:
    small as a file, quadratic as tokens (N = 40,000: 0.4 MB, 800 MB)."""
    merges = [[97, 97]] + [[256 + index, 97] for index in range(count - 1)]
    return json.dumps({"format": "bpe-playground-tokenizer", "version": 1, "units": "bytes",
                       "pattern": "gpt2", "merges": merges})


# ------------------------------------------------------------------ files


@pytest.mark.parametrize("count", [40_000, 200_000])
def test_a_chain_of_merges_is_refused_before_it_is_built(count):
    with pytest.raises(TokenizerFileError, match="more than 32 MB of text by merge 7,998"):
        tokenizer_from_file("chain.json", chain_of_merges(count).encode())


def test_a_chain_of_merges_on_the_command_line_is_one_line(tmp_path):
    path = tmp_path / "chain.json"
    path.write_text(chain_of_merges(40_000))
    code, _, err = run_cli("encode", "--tokenizer", path, stdin=b"hello")
    assert code == 1 and err.startswith("error: ") and err.count("\n") == 1 and "32 MB" in err


@pytest.mark.parametrize("document, message", [
    ('{"format": "bpe-playground-tokenizer", "version": 1, "units": "bytes", "merges": [[' + "9" * 5000 + ", 97]]}",
     "5,000 digits long"),
    ('{"format": "bpe-playground-tokenizer", "version": NaN, "units": "bytes", "merges": []}', "NaN is not a number"),
    ('{"model": {"type": "BPE", "vocab": {"a": Infinity}, "merges": []}}', "Infinity is not a number"),
])
def test_numbers_json_does_not_allow_are_named(document, message):
    with pytest.raises(TokenizerFileError, match=message):
        tokenizer_from_file("hostile.json", document.encode())


@pytest.mark.parametrize("name, document, message", [
    ("chain.json", chain_of_merges(40_000), "more than 32 MB of text"),
    ("digits.json", '{"format": "bpe-playground-tokenizer", "version": 1, "units": "bytes", "merges": [['
     + "9" * 5000 + ", 97]]}", "5,000 digits long"),
])
def test_a_hostile_tokenizer_upload_is_a_message_and_the_picker_keeps_its_choice(name, document, message):
    at = open_page("pages/inspect.py")
    at.file_uploader(key="inspect_upload").upload(name, document.encode(), "application/json").run()
    assert any(f"Cannot use “{name}”" in error and message in error for error in messages(at.error))
    assert at.selectbox(key="inspect_tokenizer").value == "cl100k_base"
    assert not at.exception


# --------------------------------------------------------------- patterns


@pytest.mark.parametrize("pattern, message", [
    (r"(?R)?a", "recursively"),
    (r"x(?1)?(y)", "recursively"),
    (r"(?P<w>\w)(?&w)", "recursively"),
    ("|".join(f"word{index}" for index in range(50_000)), "the limit is 1,000"),
    (r"(?:a{65535}){65535}", "MB to compile or to match"),
    (r"(?:(?:a{1000}){1000}){1000}", "MB to compile or to match"),
])
def test_patterns_that_would_take_the_machine_are_refused_as_pattern_errors(pattern, message):
    with pytest.raises(PatternError, match=message):
        train("some text to split", num_merges=3, pattern=pattern)


def test_a_tokenizer_file_cannot_smuggle_such_a_pattern():
    saved = json.loads(tokenizer_to_json(train("aaab aaab", num_merges=2, pattern="gpt2")))
    saved["pattern"] = r"(?:a{65535}){65535}"
    with pytest.raises(TokenizerFileError, match="MB to compile or to match"):
        tokenizer_from_json(json.dumps(saved))


def test_a_search_regex_is_held_to_the_same_bounds():
    with pytest.raises(ValueError, match="recursively"):
        compile_untrusted(r"(?R)?a")


@pytest.mark.parametrize("pattern, message", [(r"(?R)?a", "recursively"), (r"(?:a{65535}){65535}", "MB to compile")])
def test_the_train_page_refuses_them_and_keeps_its_tokenizer(pattern, message):
    at = open_page("pages/train.py")
    before = at.session_state["trained"].tokenizer
    at.selectbox(key="train_pattern").set_value("custom").run()
    at.text_input(key="train_custom").input(pattern).run()
    assert any(message in error for error in messages(at.error)), messages(at.error)
    assert at.session_state["trained"].tokenizer.pattern_name == "custom"  # the default custom regex trained
    assert not at.exception


def test_the_command_line_refuses_them_in_one_line(tmp_path):
    code, _, err = run_cli("train", "-", "--merges", 3, "--pattern", r"(?R)?a", "-o", tmp_path / "t.json", stdin=b"aaa")
    assert code == 1 and err.startswith("error: ") and "recursively" in err and err.count("\n") == 1


# ------------------------------------------------------------------ links

HOSTILE_NUMBERS = ["Infinity", "-Infinity", "NaN", "1e309", "9" * 5000, "-1", "3.5", "true", "[", "0x10"]


def test_a_trained_value_with_infinity_or_huge_numbers_is_ignored():
    for value in ['["english_prose",null,Infinity,"cl100k","bytes",[]]', '["english_prose",null,NaN,"cl100k","bytes",[]]',
                  '["english_prose",null,-Infinity,"cl100k","bytes",[]]', '["english_prose",null,1e400,"cl100k","bytes",[]]',
                  '["english_prose",null,' + "9" * 5000 + ',"cl100k","bytes",[]]', '["english_prose",null,300.5,"cl100k","bytes",[]]',
                  '["english_prose",null,true,"cl100k","bytes",[]]', '["english_prose",null,300,"cl100k","words",[]]']:
        at = open_page("pages/compare.py", query={"trained": value})
        assert "trained" not in at.session_state or at.session_state["trained"] is None, value


@pytest.mark.parametrize("page", [page.file for page in PAGES], ids=lambda file: file.split("/")[-1])
def test_every_page_survives_hostile_numbers_in_every_parameter_it_reads(page):
    """Every widget a link can set, on every page, given values that are not
    numbers, not finite or not of any sane size."""
    first = open_page(page)
    parameters = sorted({*first.query_params, *(key for key in first.session_state if not key.startswith("$$"))})
    for rotation in range(3):
        query = {key: HOSTILE_NUMBERS[(index + rotation) % len(HOSTILE_NUMBERS)] for index, key in enumerate(parameters)}
        open_page(page, query=query)  # fails on any exception
