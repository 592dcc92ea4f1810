"""A visitor's regex never takes the server: it is compiled here only once a
probe (a capped process, in its turn) has compiled it small; the server
keeps it in one bounded cache only; when no probe can be had it is refused
for now, never compiled untried; a job compiles it under its own caps; and
its deadlines count the thread's own processor time
(see `bpe_core.sandbox.untrusted_regex` and `untrusted_split`)."""

import errno
import gc
import json
import multiprocessing
import sys
import threading
import time
import weakref

import pytest
import regex

from bpe_core import train
from bpe_core.engine.patterns import compile_pattern
from bpe_core.formats import TokenizerFileError, hf_tokenizer_json, tokenizer_from_hf_json
from bpe_core.jobs import budgeted_jobs
from bpe_core.jobs.budgeted_jobs import Budget, JobWords, run_within_budget
from bpe_core.sandbox import untrusted_regex
from bpe_core.sandbox.machine_turns import MachineTurns
from bpe_core.sandbox.untrusted_regex import COMPILE_MEMORY_BYTES, CompiledCache, compile_untrusted
from bpe_core.sandbox.untrusted_split import split_within

REGEX_CACHE = sys.modules[regex.compile.__module__]._cache  # the `regex` module's own: 500 patterns of any size


@pytest.fixture
def fresh_verdicts():
    """Verdicts and compiled regexes of this test only."""
    untrusted_regex._verdict.cache_clear()
    untrusted_regex.COMPILED.clear()
    yield
    untrusted_regex._verdict.cache_clear()
    untrusted_regex.COMPILED.clear()


@pytest.mark.parametrize("source", [r"(?:b{1000}){1000}", r"(?:b{1200}){1200}", r"(?:b{300}){300}"])
def test_a_short_regex_that_compiles_to_megabytes_is_refused(source, fresh_verdicts):
    """Seventeen characters that compile to hundreds of MB passed a probe
    of 512 MB, then were compiled again in the server, and kept."""
    with pytest.raises(ValueError, match=f"more than {COMPILE_MEMORY_BYTES // 1_000_000} MB to compile"):
        compile_untrusted(source)


def test_a_tokenizer_json_cannot_bring_one_either(fresh_verdicts):
    document = json.loads(hf_tokenizer_json(train("aaab aaab", num_merges=2, pattern=r"\w+|\s")))
    document["pre_tokenizer"]["pretokenizers"][0]["pattern"] = {"Regex": r"(?:b{1000}){1000}"}
    with pytest.raises(TokenizerFileError, match="MB to compile"):
        tokenizer_from_hf_json(json.dumps(document), "upload")


def test_the_server_keeps_a_visitors_regex_in_the_bounded_cache_only(fresh_verdicts):
    """Once dropped from the sandbox's cache, nothing holds a visitor's
    compiled split pattern or its loop: not the split's own caches, nor the
    `regex` module's."""
    source = r"[a-z]+|[0-9]+|\s"
    compiled = compile_pattern(source)
    assert not any(key[0] == source for key in REGEX_CACHE)
    held = weakref.ref(compiled)
    del compiled
    untrusted_regex.COMPILED.clear()
    gc.collect()
    assert held() is None
    assert compile_pattern(source).findall("ab 12") == ["ab", " ", "12"]  # judged already: compiled again, no probe


def test_the_cache_of_compiled_regexes_is_bounded_by_entries_and_by_bytes():
    cache = CompiledCache(max_entries=3, max_bytes=10_000_000, min_bytes=1_000)
    for number in range(5):
        cache.keep((f"p{number}", 0), regex.compile(f"p{number}"), 10)
    assert len(cache) == 3 and cache.get(("p0", 0)) is None and cache.get(("p4", 0)) is not None
    cache.keep(("big", 0), regex.compile("big"), 9_000_000)  # the least recently used go first
    assert cache.size() <= 10_000_000 and cache.get(("big", 0)) is not None and cache.get(("p4", 0)) is not None


class NoProcesses:
    """A machine where no process can be started (too many open files)."""

    Pipe = staticmethod(multiprocessing.Pipe)

    class Process:
        def __init__(self, *args, **kwargs):
            pass

        def start(self):
            raise OSError(errno.EMFILE, "Too many open files")


def test_when_no_probe_can_start_the_regex_is_refused_for_now_not_compiled_here(fresh_verdicts, monkeypatch):
    monkeypatch.setattr(untrusted_regex, "worker_context", lambda: NoProcesses)
    with pytest.raises(ValueError, match="could not start a process to try it in"):
        compile_untrusted(r"q+z")
    monkeypatch.undo()  # processes again: the regex is judged afresh, not refused for good
    assert compile_untrusted(r"q+z").match("qqz")


@pytest.mark.slow  # a probe's wait
def test_probes_take_turns_on_the_whole_machine(fresh_verdicts, monkeypatch, tmp_path):
    checks = MachineTurns(tmp_path, cores=1)
    monkeypatch.setattr(untrusted_regex, "CHECK_TURNS", checks)
    monkeypatch.setattr(untrusted_regex, "PROBE_WAIT_SECONDS", 0.5)
    with checks.turn(wait_seconds=0):  # another visitor's probe, in another process of the server, say
        with pytest.raises(ValueError, match="busy trying other regexes"):
            compile_untrusted(r"k+j")
    assert compile_untrusted(r"k+j").match("kkj")  # its turn came: judged then, not refused for good


def compile_in_a_job(source: str, *, deadline, progress) -> tuple[bool, int]:
    """In a job's worker: compile a visitor's split pattern; whether this
    process started a fork server of its own, and how many processes it started."""
    from multiprocessing import forkserver

    compile_pattern(source)
    return forkserver._forkserver._forkserver_pid is not None, len(multiprocessing.active_children())


@pytest.mark.slow  # a worker process
def test_a_job_compiles_a_visitors_regex_under_its_own_caps_starting_nothing(monkeypatch, tmp_path):
    """A probe from inside a job escaped the job's memory cap and its turn,
    and started a second fork server to do it."""
    monkeypatch.setattr(budgeted_jobs, "MACHINE_TURNS", MachineTurns(tmp_path, cores=1))
    budget, words = Budget(seconds=60, memory_bytes=1_000_000_000), JobWords("Compiling", "do it elsewhere")
    assert run_within_budget(compile_in_a_job, (r"[a-z]+|\d+|\s",), budget, words) == (False, 0)
    with pytest.raises(ValueError, match="MB to compile"):  # and refuses what the server's probe refuses
        run_within_budget(compile_in_a_job, (r"(?:b{1000}){1000}",), budget, words)


# A split whose cost grows with its text (a lookahead to the end of each word).
SLOW_SPLIT = r"\w(?=\w*)|\s"


def own_seconds_to_split(text: str) -> float:
    started = time.thread_time()
    split_within(regex.compile(SLOW_SPLIT), text, seconds=600)
    return time.thread_time() - started


def test_a_split_deadline_counts_its_own_threads_time_not_the_servers():
    """Four sessions split at once, each within three times what its split
    takes alone: each finishes. The `regex` module's clock is the whole
    process's, which runs four times as fast as each thread's: each stopped
    at three quarters of its work."""
    text = "word " * 2_000
    while own_seconds_to_split(text) < 0.05:  # long enough for the clocks to tell apart, on any machine
        text += text
    alone = own_seconds_to_split(text)
    results = []

    def split():
        try:
            results.append(len(split_within(regex.compile(SLOW_SPLIT), text, seconds=3 * alone)))
        except TimeoutError as error:
            results.append(error)

    threads = [threading.Thread(target=split) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [len(text)] * 4


@pytest.mark.slow  # a probe's wait
def test_a_visitors_chat_template_takes_its_turn_in_the_line_for_checks(monkeypatch, tmp_path):
    from bpe_core.sandbox import jinja_chat

    checks = MachineTurns(tmp_path, cores=1)
    monkeypatch.setattr(jinja_chat, "CHECK_TURNS", checks)
    waits = jinja_chat.RENDER_WAIT_SECONDS
    monkeypatch.setattr(jinja_chat, "RENDER_WAIT_SECONDS", 0.5)
    turns = [{"role": "user", "content": "hi"}]
    with checks.turn(wait_seconds=0), pytest.raises(jinja_chat.TemplateProblem, match="busy checking"):
        jinja_chat.render_untrusted("{{ messages[0].content }}", turns, {})
    monkeypatch.setattr(jinja_chat, "RENDER_WAIT_SECONDS", waits)  # a busy machine's wait, as in the app
    assert jinja_chat.render_untrusted("{{ messages[0].content }}", turns, {}).text == "hi"
