"""The research algorithms' loops in C (engine/native/research.c, through
algorithms/native_research.py) train exactly what their Python versions
(algorithms/superbpe.py, boundless.py, picky.py) do: the same merges and supermerges,
ties included, in the same order, with the same counts, corpus lengths and
stop reasons, and the same removals; and training falls back to Python where C cannot be exact.

Without the extension module built these tests skip, with the reason; CI
sets REQUIRE_NATIVE=1, where its absence fails instead.
"""

import json
import os
import subprocess
import sys
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core.algorithms import boundless, native_research, picky, superbpe
from bpe_core.corpora.samples import catalog
from bpe_core.engine import native_training
from bpe_core.engine.corpus import count_pieces
from bpe_core.engine.patterns import CL100K_PATTERN, SUPERWORD_PATTERN
from tests.conftest import ROOT
from tests.test_native_counting import siphash

if not native_research.NATIVE:
    if os.environ.get("REQUIRE_NATIVE"):
        raise ImportError(
            "bpe_core.algorithms._native_research is not built: pip install -r requirements.txt compiles it"
        )
    pytest.skip("the C extension is not built (pip install -r requirements.txt builds it)", allow_module_level=True)


# Each character's classes in C's tables; 128: unsettled (C leaves it to `regex`), 1: a letter.
CLASSES = native_training._native_training.character_classes()


def in_python(trainer, *args, **kwargs):
    """Run a trainer as where the module is not built."""
    native_research._native_research, module = None, native_research._native_research
    try:
        return trainer(*args, **kwargs)
    finally:
        native_research._native_research = module


def steps(tokenizer):
    """All that training decided: merges, supermerges, removals, and why it stopped."""
    supermerges, removals = getattr(tokenizer, "supermerges", None), getattr(tokenizer, "removals", None)
    return tokenizer.trace, supermerges, removals, tokenizer.stop_reason


def assert_same(trainer, text, **settings_):
    """`trainer` learns in C what it learns in Python; its tokenizer."""
    trained = trainer(text, **settings_)
    assert steps(trained) == steps(in_python(trainer, text, **settings_))
    return trained


# English prose, code, Japanese, emoji, and a page of each of several scripts.
ENGLISH, CODE, JAPANESE, EMOJI = (catalog()[name].load() for name in ("english_prose", "python_code", "japanese",
                                                                      "emoji_and_unicode"))
CORPORA = {
    "english": ENGLISH[:15_000],
    "code": CODE[:10_000],
    "japanese": JAPANESE[:6_000],
    "emoji": EMOJI[:6_000],
    "multilingual": ENGLISH[:3_000] + JAPANESE[:3_000] + EMOJI[:3_000]
    + "Всеобщая декларация прав человека. Kila mtu ana haki ya kuishi. 人人生而自由，在尊严和权利上一律平等。 "
    + "Ελληνικά: όλοι οι άνθρωποι γεννιούνται ελεύθεροι. हिन्दी में सभी मनुष्य स्वतंत्र हैं। ",
}


@pytest.mark.parametrize("vocab_size", [300, 1_000])
@pytest.mark.parametrize("corpus", list(CORPORA))
def test_boundless_learns_in_c_what_it_learns_in_python(corpus, vocab_size):
    text = CORPORA[corpus]
    trained = assert_same(boundless.train_boundless, text, vocab_size=vocab_size)
    assert corpus in ('japanese', 'emoji') or vocab_size < 1_000 or trained.supermerges  # compared too


@pytest.mark.parametrize("pattern", ["gpt2", "o200k"])
def test_boundless_learns_the_same_with_every_preset_and_special_tokens(pattern):
    text = "<|doc|>".join(CORPORA["english"][start : start + 1_500] for start in range(0, 15_000, 1_500))
    settings_ = {"vocab_size": 800, "pattern": pattern, "special_tokens": ["<|doc|>"]}
    assert_same(boundless.train_boundless, text, **settings_)


@given(st.text(alphabet=st.sampled_from(list(" \n\t.,'’_-aabbcé\u0301日本1")), max_size=200),
       st.integers(256, 400))
@settings(max_examples=80, deadline=None)
def test_boundless_learns_the_same_on_any_text(text, vocab_size):
    if not text:
        return
    assert_same(boundless.train_boundless, text, vocab_size=vocab_size)


def test_boundless_stops_as_python_does_when_no_pair_is_left():
    text = "the cat and the hat, the cat and the bat " * 5
    trained = boundless.train_boundless(text, vocab_size=2_000)
    assert trained.stop_reason.startswith("no adjacent pair is left")
    assert steps(trained) == steps(in_python(boundless.train_boundless, text, vocab_size=2_000))


def test_a_character_newer_than_the_c_split_is_trained_in_python():
    newer = next(chr(code) for code in range(0x110000) if CLASSES[code] & 128 and CLASSES[code] & 1)
    text = (f"the word {newer}ab and the other word " * 20)
    assert native_research.boundless([text], "cl100k", 400) is None
    assert_same(boundless.train_boundless, text, vocab_size=400)


SPLIT_ALPHABET = [*" \n\t\r.,!?:;/-'\"aZé059日\u0301\u00a0\u2003", "<|x|>"]  # "<|x|>": a special token


@given(st.lists(st.sampled_from(SPLIT_ALPHABET), max_size=60).map("".join))
@settings(max_examples=150, deadline=None)
def test_superbpe_splits_in_c_as_the_regex_does(text):
    assert native_research.superword_pieces(text, ["<|x|>"]) == count_pieces(text, SUPERWORD_PATTERN, ("<|x|>",))


def test_superbpe_splits_every_bundled_corpus_in_c_as_the_regex_does():
    for sample in ("english_prose", "python_code", "japanese", "emoji_and_unicode", "tiny_shakespeare"):
        text = catalog()[sample].load()
        in_c = native_research.superword_pieces(text)
        assert list(in_c.items()) == list(count_pieces(text, SUPERWORD_PATTERN).items())
    newer = next(chr(code) for code in range(0x110000) if CLASSES[code] & 128)
    assert native_research.superword_pieces(f"a {newer} b") is None  # split by the regex instead


@pytest.mark.parametrize("transition, vocab_size", [(300, 800), (700, 1_000)])
@pytest.mark.parametrize("corpus", list(CORPORA))
def test_superbpe_learns_its_second_stage_in_c_as_in_python(corpus, transition, vocab_size):
    text = CORPORA[corpus]
    trained = superbpe.train_superbpe(text, vocab_size=vocab_size, transition=transition)
    python = in_python(superbpe.train_superbpe, text, vocab_size=vocab_size, transition=transition)
    assert steps(trained) == steps(python)


@pytest.mark.parametrize("pattern", ["gpt2", "o200k", r"\w+|\W"])  # the last only Python's encoder splits
def test_superbpe_learns_the_same_with_every_stage_one_split(pattern):
    text = CORPORA["english"][:4_000] + CORPORA["multilingual"][:3_000]
    settings_ = {"vocab_size": 600, "transition": 400, "pattern": pattern}
    assert_same(superbpe.train_superbpe, text, **settings_)


def test_superbpe_in_c_refuses_what_the_official_trainer_skips(monkeypatch):
    """Its rule, in C: Python's refuses superwords on this corpus (": ", more
    than four words), and C learns the same superwords, all allowed."""
    text = "Note: the cat sat on the mat and then the cat sat on the hat. " * 40
    rule, refused = superbpe.allowed_superword, []

    def counted_rule(token):
        refused.extend([token] * (not rule(token)))
        return rule(token)

    trained = superbpe.train_superbpe(text, vocab_size=600, transition=300)
    monkeypatch.setattr(superbpe, "allowed_superword", counted_rule)
    python = in_python(superbpe.train_superbpe, text, vocab_size=600, transition=300)
    assert refused and steps(trained) == steps(python)
    assert all(rule(step.token) for step in trained.trace[300 - 256 :])


@given(st.text(alphabet=st.sampled_from(list(" \n:.,'aabbcé日1")), min_size=1, max_size=200), st.integers(257, 300))
@settings(max_examples=60, deadline=None)
def test_superbpe_learns_the_same_on_any_text(text, transition):
    settings_ = {"vocab_size": transition + 60, "transition": transition}
    assert_same(superbpe.train_superbpe, text, **settings_)


@pytest.mark.parametrize("threshold", [0.9, 0.5])
@pytest.mark.parametrize("vocab_size", [300, 1_000])
@pytest.mark.parametrize("corpus", list(CORPORA))
def test_picky_learns_and_removes_in_c_what_it_does_in_python(corpus, vocab_size, threshold):
    text = CORPORA[corpus]
    trained = assert_same(picky.train_picky, text, vocab_size=vocab_size, threshold=threshold)
    assert vocab_size < 1_000 or trained.removals  # the removals were compared too


@pytest.mark.parametrize("settings_", [
    {"units": "chars", "threshold": 0.7},  # the textbook's characters, not bytes
    {"pattern": "gpt2", "threshold": 0.3},  # many removals, tokens made again after their removal
    {"pattern": "none", "threshold": 0.8},
])
def test_picky_learns_the_same_with_characters_and_other_splits(settings_):
    text = CORPORA["english"][:8_000] + CORPORA["multilingual"][:4_000]
    trained = assert_same(picky.train_picky, text, vocab_size=700, **settings_)
    made_again = len({step.token for step in trained.trace}) < len(trained.trace)
    assert trained.removals and (made_again or settings_["threshold"] > 0.3)


def test_picky_learns_the_same_from_word_counts():
    counts = {"low": 5, "lower": 2, "newest": 6, "widest": 3, "lowest": 4, "newer": 3, "wider": 2}
    for threshold in (0.9, 0.5, 0.2):
        assert_same(picky.train_picky, counts, vocab_size=280, threshold=threshold)


def test_picky_stops_as_python_does_when_merges_and_removals_undo_each_other(monkeypatch):
    monkeypatch.setattr(picky, "MAX_EVENTS_PER_TOKEN", 1)  # 800 merges for 800 tokens: too few with removals
    text = CORPORA["english"]
    trained = picky.train_picky(text, vocab_size=800, threshold=0.3)
    assert trained.stop_reason.startswith("merges and removals kept undoing each other")
    assert steps(trained) == steps(in_python(picky.train_picky, text, vocab_size=800, threshold=0.3))


@given(st.text(alphabet=st.sampled_from(list(" \n.,'aabbbcé日1")), min_size=1, max_size=200),
       st.integers(256, 330), st.sampled_from([0.2, 0.5, 0.9, 1.0]))
@settings(max_examples=50, deadline=None)
def test_picky_learns_the_same_on_any_text(text, vocab_size, threshold):
    settings_ = {"vocab_size": vocab_size, "threshold": threshold}
    assert_same(picky.train_picky, text, **settings_)


def test_boundless_counts_the_runs_as_python_does_with_ids_past_65_536():
    """The runs' units are numbered from the vocabulary's size on: at 70,000
    they lie past 2^16, where count_pairs_by_sorting's keys (two ids and a
    position in 64 bits) would not fit, and learn.c's count_pairs counts
    them instead: the same pairs, numbers and supermerges as in Python."""
    text = "the cat and the hat, the cat and the bat " * 5
    trained = boundless.train_boundless(text, vocab_size=70_000)
    assert trained.supermerges and trained.stop_reason.startswith("no adjacent pair is left")
    assert steps(trained) == steps(in_python(boundless.train_boundless, text, vocab_size=70_000))


# In a process of its own: each module's key set before its first table, then it trains and says its pairs' hashes.
TRAIN_UNDER_KEYS = """
import json, sys
from bpe_core.engine import _native_training
from bpe_core.algorithms import _native_research, boundless, picky
from bpe_core.engine.training import train
keys, pairs, text = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
_native_training.seed_hash(*keys[0])
_native_research.seed_hash(*keys[1])
learned = [[(step.pair, step.count) for step in trained.trace] for trained in
           (train(text, vocab_size=600), picky.train_picky(text, vocab_size=600, threshold=0.5),
            boundless.train_boundless(text[:2000], vocab_size=70_000))]
refused = []
for module in (_native_training, _native_research):
    try:
        module.seed_hash(1, 2)
    except RuntimeError:
        refused.append(True)
hashes = [[module.pair_hash(*pair) for pair in pairs] for module in (_native_training, _native_research)]
print(json.dumps([learned, hashes, refused]))
"""
PAIRS = [(0, 0), (97, 98), (256, 97), (70_000, 1), (2**31 - 1, 2**31 - 2)]


def test_the_tables_of_pairs_are_placed_under_each_modules_key_and_nothing_learned_depends_on_it():
    """learn.c's count_pairs and Picky BPE's pair map place pairs by SipHash-1-3
    of the two ids under the module's key, as count.c places pieces, so that
    no corpus can be made whose pairs collide there. pair_hash is the hash
    those tables call (learn.c's, compiled into each module): it follows the
    key seed_hash gives that module, and the merges do not (plain BPE, Picky
    BPE, and BoundlessBPE past 2^16 ids, where count_pairs counts its runs)."""
    paper = [0x0706050403020100, 0x0F0E0D0C0B0A0908]  # the SipHash paper's key
    other = [0x243F6A8885A308D3, 0x13198A2E03707344]
    settings_ = ([paper, other], [other, paper])  # each module under each key, never the other's
    processes = [subprocess.Popen([sys.executable, "-c", TRAIN_UNDER_KEYS, json.dumps(keys), json.dumps(PAIRS),
                                   CORPORA["english"][:10_000]], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}) for keys in settings_]
    runs = []
    for process in processes:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err[-2000:]
        runs.append(json.loads(out))

    def oracle(key):
        key_bytes = key[0].to_bytes(8, "little") + key[1].to_bytes(8, "little")
        return [siphash(1, 3, key_bytes, (left << 32 | right).to_bytes(8, "little")) for left, right in PAIRS]

    for (learned, hashes, refused), keys in zip(runs, settings_):
        assert hashes == [oracle(keys[0]), oracle(keys[1])]  # each module's own key, in learn.c too
        assert refused == [True, True]  # once its tables were made, a module's key stays
        assert learned == runs[0][0] and all(learned)
    assert oracle(paper) != oracle(other)


def counted_while_in_c(call, attempts=100):
    """Whether this thread counted while another ran `call` (a C function),
    from the call's start to its end, in one of up to `attempts` calls.
    This thread gives up the GIL at every count (sleep(0)), and no thread
    takes it by force meanwhile (the switch interval is made far longer than
    a call): so a call that keeps the GIL sees no count, every time, and one
    that releases it sees this thread count as soon as the machine runs it
    during a call (the attempts give a busy machine time to)."""
    ticks, counted, done = [0], [], threading.Event()

    def in_c():
        for _ in range(attempts):
            before = ticks[0]
            call()
            if ticks[0] > before:
                counted.append(True)
                break
        done.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(5)
    try:
        thread = threading.Thread(target=in_c)
        thread.start()
        while not done.is_set():
            ticks[0] += 1
            time.sleep(0)
        thread.join()
    finally:
        sys.setswitchinterval(interval)
    return bool(counted)


@pytest.mark.parametrize("algorithm", ["superbpe", "boundless", "picky"])
def test_the_research_loops_let_other_threads_run_while_they_train(algorithm):
    """research.c's loops train without the GIL (between progress reports,
    none here), so that the server's other threads draw pages meanwhile: this
    thread counts on while one trains (one holding the GIL would never let
    it). Nothing is timed: see counted_while_in_c."""
    module, text = native_research._native_research, CORPORA["english"] * 4
    split, units = native_training._native_training.SPLIT_CL100K, [bytes([byte]) for byte in range(256)]
    phrases, pieces = count_pieces(text, SUPERWORD_PATTERN), count_pieces(text, CL100K_PATTERN)
    calls = {  # the C functions themselves, to 3,000 tokens
        "superbpe": lambda: module.superword_merges(phrases, split, units, 3_000 - 256, None, None, 3_000),
        "boundless": lambda: module.boundless([text], split, 3_000, None, None),
        "picky": lambda: module.picky(pieces, None, 0.9, 3_000, 10**6, None, None),
    }
    assert counted_while_in_c(calls[algorithm])
