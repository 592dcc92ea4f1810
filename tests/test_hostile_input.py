"""Hostile files, patterns and links: each gets one clear message (a page's
error box, or one "error:" line and exit status 1 from the command line),
bounded time and memory, and nothing the user had is lost."""

import base64
import json

import pytest

from bpe_core import PatternError, load_encoding, train
from bpe_core.formats import (
    TokenizerFileError,
    hf_tokenizer_json,
    tokenizer_from_file,
    tokenizer_from_json,
    tokenizer_to_json,
)
from bpe_core.jobs.budgeted_encoding import encode_within_budget
from bpe_core.jobs.budgeted_training import Budget, OverBudgetError, train_within_budget
from bpe_core.sandbox.untrusted_regex import compile_untrusted
from pages.common.names import PAGES
from pages.common.tokenizers import TRAINED_HERE, TrainedTokenizer
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


# Named by the file: a test's id goes into the environment (PYTEST_CURRENT_TEST), and
# the 0.5 MB document as its id made the environment too large for a new program
# (Linux takes at most 128 KB per variable): the fork server, started for the job
# that reads the upload, could not start, and the upload found no process.
@pytest.mark.parametrize("name, document, message", [
    ("chain.json", chain_of_merges(40_000), "more than 32 MB of text"),
    ("digits.json", '{"format": "bpe-playground-tokenizer", "version": 1, "units": "bytes", "merges": [['
     + "9" * 5000 + ", 97]]}", "5,000 digits long"),
], ids=["chain.json", "digits.json"])
def test_a_hostile_tokenizer_upload_is_a_message_and_the_picker_keeps_its_choice(name, document, message):
    at = open_page("pages/inspect.py", inspect_upload_open=True)  # the uploader is drawn while open
    at.file_uploader(key="inspect_upload").upload(name, document.encode(), "application/json").run()
    assert any(f"Cannot use “{name}”" in error and message in error for error in messages(at.error))
    assert at.selectbox(key="inspect_tokenizer").value == "cl100k_base"
    assert not at.exception


def native_file(**fields) -> str:
    saved = json.loads(tokenizer_to_json(train("aaab aaab", num_merges=2, pattern="gpt2", special_tokens=["<s>"])))
    saved.update(fields)
    return json.dumps(saved)


def hf_file(edit) -> str:
    document = json.loads(hf_tokenizer_json(train("aaab aaab", num_merges=2, pattern="gpt2", special_tokens=["<s>"])))
    edit(document)
    return json.dumps(document)


def rank_file(last_line: str) -> str:
    return "".join(f"{base64.b64encode(bytes([byte])).decode()} {byte}\n" for byte in range(256)) + last_line


def _set_training(document: dict, name: str, value) -> None:
    document["training"][name][0] = value


@pytest.mark.parametrize("document, message", [
    # every number a saved tokenizer holds: versions, ids, counts
    (native_file(version=1.0), "Unsupported file version 1.0"),
    (native_file(version=True), "Unsupported file version True"),
    (native_file(special_tokens={"<s>": 10**17}), "ids are whole numbers from 0 to 999,999"),
    (native_file(special_tokens={"<s>": 2**40}), "ids are whole numbers from 0 to 999,999"),
    (native_file(special_tokens={"<s>": -1}), "ids are whole numbers from 0 to 999,999"),
    (native_file(special_tokens={"<s>": 258.0}), "ids are whole numbers from 0 to 999,999"),
    (native_file(special_tokens={"<s>": 777_777}).replace("777777", "1e309"), "the number 1e309 is too large"),
    (native_file(merges=[[97, 97], [10**17, 97]]), "Merge 1 is not a pair of earlier ids"),
    (native_file(training={"counts": [3, -1], "corpus_tokens": [5, 4], "stop_reason": None}), "each 0 or more"),
    (native_file(training={"counts": [3, 2], "corpus_tokens": [5, 4.0], "stop_reason": None}), "one integer per merge"),
    # the work its special tokens ask for
    (native_file(special_tokens={f"<{index}>": 258 + index for index in range(10_001)}), "10,001 special tokens"),
    (native_file(special_tokens={"x" * 5_000_000: 258}), "5,000,000 characters long"),
    (native_file(special_tokens={f"<{index}>" + "x" * 250: 258 + index for index in range(400)}), "the limit is 100,000"),
    # a Hugging Face tokenizer.json's ids
    (hf_file(lambda document: document["model"]["vocab"].update({"aa": 10**17})), "ids are whole numbers"),
    (hf_file(lambda document: document["added_tokens"][0].update(id=2**40)), "ids are whole numbers"),
    (hf_file(lambda document: document["added_tokens"][0].update(id=True)), "ids are whole numbers"),
    # a rank file's ranks: digits 0-9 only, within range
    (rank_file("YWE= 99999999999999999"), "ids are whole numbers from 0 to 999,999"),
    (rank_file("YWE= " + "9" * 4_000), "is not a token id"),
    (rank_file("YWE= +300"), "is not a token id"),
    (rank_file("YWE= 3_00"), "is not a token id"),
    (rank_file("YWE= \u0663\u0660\u0660"), "is not a token id"),
    (rank_file("YWE= 3e2"), "is not a token id"),
], ids=lambda value: value if len(value) < 80 else f"{value[:60]}...")  # short ids: see the upload test above
def test_every_number_in_a_tokenizer_file_is_read_strictly(document, message):
    with pytest.raises(TokenizerFileError, match=message):
        tokenizer_from_file("hostile.tiktoken" if document[0] != "{" else "hostile.json", document.encode())


def test_a_file_at_the_limits_still_loads():
    specials = {f"<|reserved_{index}|>": 300 + index for index in range(256)}
    tokenizer = tokenizer_from_json(native_file(special_tokens=specials))
    assert tokenizer.encode("<|reserved_255|>", allowed_special="all") == [555]


def test_a_huge_special_token_id_on_the_command_line_is_one_line(tmp_path):
    path = tmp_path / "huge_id.json"
    path.write_text(native_file(special_tokens={"<s>": 10**17}))
    code, _, err = run_cli("encode", "--tokenizer", path, stdin=b"hello")
    assert code == 1 and err.startswith("error: ") and err.count("\n") == 1 and "999,999" in err


def test_training_refuses_special_tokens_beyond_the_limits():
    with pytest.raises(ValueError, match="300 characters long; the limit is 256"):
        train("ab ab", num_merges=1, special_tokens=["x" * 300])


# --------------------------------------------------------------- patterns


@pytest.mark.parametrize("pattern, message", [
    (r"(?R)?a", "recursively"),
    (r"x(?1)?(y)", "recursively"),
    (r"(?P<w>\w)(?&w)", "recursively"),
    ("|".join(f"word{index}" for index in range(50_000)), "the limit is 1,000"),
    (r"(?:a{65535}){65535}", "MB to compile"),
    (r"(?:(?:a{1000}){1000}){1000}", "MB to compile"),
], ids=lambda value: value if len(value) < 80 else f"{value[:60]}...")  # short ids: see the upload test
def test_patterns_that_would_take_the_machine_are_refused_as_pattern_errors(pattern, message):
    with pytest.raises(PatternError, match=message):
        train("some text to split", num_merges=3, pattern=pattern)


@pytest.mark.parametrize("pattern, message", [
    (r"a{99999999999}", "not a valid regular expression"),
    (r"\N{NOT A NAME}", "not a valid regular expression"),
    (r"\L<words>", "not a valid regular expression"),
    (r"\p{Unknown_Script}", "not a valid regular expression"),
    (r"(?P<x>a)(?P=y)", "not a valid regular expression"),
    (r"\b", "matches the empty string"),
    (r"(?=a)", "matches the empty string"),
    (r"\w+|$", "matches the empty string"),
    ("x" * 1_001, "the limit is 1,000"),
])
def test_every_other_pattern_failure_is_a_pattern_error_too(pattern, message):
    with pytest.raises(PatternError, match=message):
        train("some text to split, 123", num_merges=3, pattern=pattern)


def test_a_pattern_that_matches_none_of_the_corpus_says_so():
    with pytest.raises(PatternError, match="matches none of the corpus"):
        train("only letters here", num_merges=3, pattern=r"\d+")


def test_a_tokenizer_file_cannot_smuggle_such_a_pattern():
    saved = json.loads(tokenizer_to_json(train("aaab aaab", num_merges=2, pattern="gpt2")))
    saved["pattern"] = r"(?:a{65535}){65535}"
    with pytest.raises(TokenizerFileError, match="MB to compile"):
        tokenizer_from_json(json.dumps(saved))


def test_a_probe_is_stopped_by_its_processor_time_not_the_clock():
    """A regex that would keep the probe busy past its processor time is
    refused as too slow, by the kernel, whatever the clock says; a busy
    machine only makes the probe wait longer."""
    from bpe_core.sandbox import untrusted_regex

    verdict = untrusted_regex._probe_in_a_throwaway_process(r"(a+)+$", 0, match_seconds=60.0, cpu_seconds=1)
    assert verdict.reason == untrusted_regex.TOO_SLOW


def test_a_search_regex_is_held_to_the_same_bounds():
    with pytest.raises(ValueError, match="recursively"):
        compile_untrusted(r"(?R)?a")


@pytest.mark.slow  # seconds: worker processes or whole vocabularies
@pytest.mark.parametrize("pattern, message", [(r"(?R)?a", "recursively"), (r"(?:a{65535}){65535}", "MB to compile")])
def test_the_train_page_refuses_them_and_keeps_its_tokenizer(pattern, message):
    at = open_page("pages/train.py")
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


def test_the_reported_link_with_infinity_opens_the_page():
    at = open_page("pages/inspect.py", query={"trained": '["english_prose",null,Infinity,"cl100k","bytes",[]]'})
    assert "trained" not in at.session_state or at.session_state["trained"] is None
    assert at.title[0].value == "Inspect"


@pytest.mark.slow
def test_a_trained_value_with_infinity_or_huge_numbers_is_ignored():
    for value in ['["english_prose",null,Infinity,"cl100k","bytes",[]]', '["english_prose",null,NaN,"cl100k","bytes",[]]',
                  '["english_prose",null,-Infinity,"cl100k","bytes",[]]', '["english_prose",null,1e400,"cl100k","bytes",[]]',
                  '["english_prose",null,' + "9" * 5000 + ',"cl100k","bytes",[]]', '["english_prose",null,300.5,"cl100k","bytes",[]]',
                  '["english_prose",null,true,"cl100k","bytes",[]]', '["english_prose",null,300,"cl100k","words",[]]']:
        at = open_page("pages/compare.py", query={"trained": value})
        assert "trained" not in at.session_state or at.session_state["trained"] is None, value


@pytest.mark.slow
@pytest.mark.parametrize("page", [page.file for page in PAGES], ids=lambda file: file.split("/")[-1])
def test_every_page_survives_hostile_numbers_in_every_parameter_it_reads(page):
    """Every widget a link can set, on every page, given values that are not
    numbers, not finite or not of any sane size."""
    first = open_page(page)
    parameters = sorted({*first.query_params, *(key for key in first.session_state if not key.startswith("$$"))})
    for rotation in range(3):
        query = {key: HOSTILE_NUMBERS[(index + rotation) % len(HOSTILE_NUMBERS)] for index, key in enumerate(parameters)}
        open_page(page, query=query)  # fails on any exception


# ---------------------------------------------------- views within a budget


@pytest.fixture(scope="module")
def custom_tokenizer():
    """Trained with a custom split pattern: it encodes through the readable engine."""
    return train("low lower lowest newer newest " * 20, num_merges=30, pattern=r"\w+|\s+|[^\w\s]+",
                 special_tokens=["<|endoftext|>"])


def test_a_view_within_its_budget_is_exactly_the_encoding(custom_tokenizer):
    text = "lowest<|endoftext|>newer é 👍🏽<|endoftext|><|endoftext|>x\ud800y" * 20
    for allowed in ("all", frozenset()):
        for step in (None, 10):
            view = encode_within_budget(custom_tokenizer, text, allowed_special=allowed, step=step)
            expected = custom_tokenizer.encode_with_offsets(text, allowed_special=allowed, disallowed_special=(),
                                                            step=step)
            assert view.left_out is None and view.text == text and list(view.spans) == list(expected)


def test_a_view_out_of_time_shows_an_exact_prefix_and_says_what_is_left_out(custom_tokenizer):
    text = ("lowest" * 50 + "<|endoftext|>") * 40
    view = encode_within_budget(custom_tokenizer, text, allowed_special="all", seconds=0)
    prefix = "lowest" * 50 + "<|endoftext|>"  # the first stretch is always shown
    assert view.text == prefix
    assert list(view.spans) == list(custom_tokenizer.encode_with_offsets(prefix, allowed_special="all"))
    assert view.left_out == (f"The tokens shown are those of the first {len(prefix):,} of {len(text):,} characters: "
                             "encoding the rest would take longer than the 0 s a view may take.")


def test_a_view_encodes_a_bounded_amount_of_text():
    view = encode_within_budget(load_encoding("cl100k_base"), "x" * 300_000)
    assert len(view.text) == 200_000 and "at most 200,000 characters" in view.left_out


@pytest.mark.parametrize("page, tokenizer_key", [
    ("pages/home.py", "home_tokenizer"), ("pages/inspect.py", "inspect_tokenizer"), ("pages/compare.py", None),
])
def test_every_text_view_stops_at_its_budget_and_points_to_the_command_line(
    monkeypatch, custom_tokenizer, page, tokenizer_key
):
    """A long text without spaces, cut by special tokens, under a custom split
    pattern (the readable engine), with no time to spare: each page shows a
    prefix, says how much, and how to encode all of it."""
    from bpe_core.jobs import budgeted_encoding

    monkeypatch.setattr(budgeted_encoding, "VIEW_SECONDS", 0)
    text = ("newest" * 500 + "<|endoftext|>") * 30
    query = {"text": text[:1_000], "home_special": "true", "inspect_special": "true", "compare_special": "true"}
    trained = TrainedTokenizer(custom_tokenizer, "low lower", "test corpus")
    session = {"trained": trained, "shared_text": text}
    if tokenizer_key:
        session[tokenizer_key] = TRAINED_HERE
    else:
        session["compare_tokenizers"] = [TRAINED_HERE, "cl100k_base"]
    at = open_page(page, query=query, **session)
    warnings = messages(at.warning)
    assert any(f"first 3,013 of {len(text):,} characters" in warning and "python -m bpe_core encode" in warning
               for warning in warnings), warnings


# ------------------------------------------------ training within a budget

ROOMY = Budget(seconds=60, memory_bytes=1_000_000_000)


def test_training_in_its_worker_gives_what_training_here_gives():
    text = "low lower lowest newer newest widest " * 30
    heard = []
    tokenizer = train_within_budget(text, ROOMY, progress=lambda done, total: heard.append((done, total)),
                                    vocab_size=300, pattern="gpt2", special_tokens=("<s>",))
    here = train(text, vocab_size=300, pattern="gpt2", special_tokens=("<s>",))
    assert tokenizer_to_json(tokenizer) == tokenizer_to_json(here)
    assert heard[-1] == (44, 44) and all(done <= total for done, total in heard)


def test_bad_settings_are_refused_from_the_worker_as_they_are_here():
    with pytest.raises(PatternError, match="recursively"):
        train_within_budget("some text", ROOMY, num_merges=3, pattern=r"(?R)?a")


@pytest.mark.slow
def test_a_training_out_of_memory_is_a_message_that_points_to_the_command_line():
    text = " ".join(f"{index:x}" for index in range(2_000_000))  # two million different pieces: C counts them in ~70 MB
    with pytest.raises(OverBudgetError, match=r"more than the 0\.1 GB .*python -m bpe_core train"):
        train_within_budget(text, Budget(seconds=60, memory_bytes=60_000_000), vocab_size=1_000, pattern="gpt2")


def test_a_training_out_of_time_is_a_message_that_points_to_the_command_line():
    with pytest.raises(OverBudgetError, match=r"could not even start .*python -m bpe_core train"):
        train_within_budget("low lower lowest " * 100, Budget(seconds=0, memory_bytes=500_000_000), vocab_size=300)


def test_an_exception_in_progress_stops_the_job_at_once(job_worker_gone):
    """How Cancel works: the page's progress callback is a Streamlit call,
    which raises when the user clicks; the worker process is gone with it
    (what is left is a fresh spare, waiting for the next job)."""

    class Cancelled(Exception):
        pass

    def cancel(done, total):
        raise Cancelled

    with pytest.raises(Cancelled):
        train_within_budget("low lower lowest " * 100_000, ROOMY, vocab_size=5_000, progress=cancel)
    assert job_worker_gone()


@pytest.mark.slow  # seconds: worker processes
def test_hugging_faces_trainers_run_in_a_budgeted_process_too():
    from bpe_core.analysis.algorithms import train_rival
    from bpe_core.jobs.budgeted_training import train_rival_within_budget

    text = "the lowest and the newest and the widest of them all\n" * 200
    there = train_rival_within_budget(train_rival, ("unigram", text, 300), ROOMY)
    assert set(there.pieces.values()) == set(train_rival("unigram", text, 300).pieces.values())
    with pytest.raises(OverBudgetError, match="needs more than .*python -m bpe_core train"):
        train_rival_within_budget(train_rival, ("wordpiece", text, 300), Budget(seconds=60, memory_bytes=1_000_000))


@pytest.mark.slow  # seconds: worker processes or whole vocabularies
def test_a_training_waits_for_a_free_core_and_gives_up_with_a_message(monkeypatch, tmp_path):
    from bpe_core.jobs import budgeted_jobs
    from bpe_core.sandbox.machine_turns import MachineTurns

    monkeypatch.setattr(budgeted_jobs, "MACHINE_TURNS", MachineTurns(tmp_path, cores=1))
    monkeypatch.setattr(budgeted_jobs, "MAX_WAIT_SECONDS", 0.6)
    heard = []
    with budgeted_jobs.MACHINE_TURNS.turn(wait_seconds=0):  # every core busy with another visitor's training
        with pytest.raises(OverBudgetError, match="busy with other visitors' jobs .*python -m bpe_core train"):
            train_within_budget("low lower", ROOMY, num_merges=2, waiting=heard.append)
    assert heard and set(heard) == {0}  # the page hears it is waiting, first in line, and can be cancelled
    assert train_within_budget("low lower", ROOMY, num_merges=2).merges  # a free core: it trains


def test_the_train_page_says_when_training_ran_out_of_budget_and_keeps_its_tokenizer(monkeypatch):
    from pages.common import tokenizers

    at = open_page("pages/train.py")
    before = at.session_state["trained"].tokenizer
    monkeypatch.setattr(tokenizers, "TRAINING_BUDGET", Budget(seconds=0, memory_bytes=500_000_000))
    at.segmented_control(key="train_source").set_value("Paste").run()
    at.text_area(key="train_text").input("a text trained only by this test " * 50).run()
    assert any("could not even start learning merges" in warning and "python -m bpe_core train" in warning
               for warning in messages(at.warning)), messages(at.warning)
    assert at.session_state["trained"].tokenizer is before and not at.exception


# ----------------------------------------------------------------- caches


def test_a_shared_cache_evicts_the_least_recently_used_by_entries_and_by_bytes():
    from pages.common.shared_cache import SharedCache

    cache = SharedCache(max_entries=3, max_bytes=100)
    for key in "abc":
        cache.put(key, key.upper(), 10)
    cache.get("a")  # now the most recently used
    cache.put("d", "D", 10)
    assert [cache.get(key) for key in "abcd"] == ["A", None, "C", "D"]
    cache.put("e", "E", 75)  # past the bytes: the least recently used ("a", read first above) goes
    assert [cache.get(key) for key in "acde"] == [None, "C", "D", "E"] and cache.size == (3, 95)
    cache.put("f", "F", 101)  # larger than the whole cache: not kept, nothing evicted for it
    assert cache.get("f") is None and cache.size == (3, 95)
    assert cache.get_or_make("g", lambda: "G", len) == "G" and cache.get("g") == "G"


def test_every_streamlit_cache_is_bounded_by_entries():
    """st.cache_data and st.cache_resource keep every entry unless told
    otherwise; what is large goes through SharedCache, bounded by bytes too."""
    import re

    from tests.conftest import ROOT

    for path in [ROOT / "app.py", *sorted((ROOT / "pages").rglob("*.py"))]:
        for call in re.findall(r"@st\.cache_(?:data|resource)(?:\([^)]*\))?", path.read_text(encoding="utf-8")):
            assert "max_entries=" in call, f"{path.name}: {call}"
