"""SuperBPE, BoundlessBPE, Picky BPE and BPE-dropout on the engine, held to
their reference code.

Where the reference runs offline (Picky BPE: pchizhov/picky_bpe; BoundlessBPE:
kensho-technologies/boundlessbpe), its output on small corpora is recorded
here, with the commit it came from; SuperBPE's trainer is a Rust fork of
Hugging Face `tokenizers` that cannot be built here, so its rule is held to
its own pre-tokenizer (Hugging Face's `Split`, which runs here) and to a
naive reading of the fork's trainer written out below; BPE-dropout to the
distribution its definition gives, worked by hand.

The references break ties between equally frequent pairs their own ways;
the engine takes the pair that occurs first. The recorded examples have no
tie that the rules decide differently (or are compared up to the first).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import load_tokenizer
from bpe_core.algorithms.boundless import train_boundless
from bpe_core.algorithms.dropout import encode_with_dropout, segmentations
from bpe_core.algorithms.picky import train_picky
from bpe_core.algorithms.superbpe import allowed_superword, train_superbpe
from bpe_core.engine.patterns import CL100K_PATTERN, split_pieces
from bpe_core.engine.replay_tokenizer import RemovalStep
from bpe_core.engine.superwords import SuperwordTokenizer
from bpe_core.engine.tokenizer import Tokenizer
from bpe_core.engine.training import train
from bpe_core.formats import tokenizer_from_json, tokenizer_to_json

from .cli import run_cli
from .reference_bpe import naive_merges, pair_counts, replace_pair, text_chunks

ENGLISH_SAMPLE_DIR = Path(__file__).parent.parent / "sample_corpora"
ENGLISH_SAMPLE = (ENGLISH_SAMPLE_DIR / "english_prose.txt").read_text(encoding="utf-8")  # Alice in Wonderland


# ---------------------------------------------------------------- SuperBPE

# PythonNut/superbpe scripts/extend_tokenizer.sh, line 5 (bbd0976): the second
# stage's split, as Hugging Face's Split(behavior="isolated") applies it.
SUPERBPE_STAGE_TWO_REGEX = r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]{2,}[\r\n/]*| +(?!\S)"

SPLIT_SAMPLES = [
    "Hello,  world!! 12345 of the\n\nx",
    "CHAPTER I.\nDown the Rabbit-Hole\n\n\nAlice was beginning...  to get",
    "def f(x):\n    return x ** 2  # square\n",
    "a:b  c  ", "   ", "..", " .. \r\n/", "日本語、テスト。 a",
]


@pytest.mark.parametrize("text", SPLIT_SAMPLES)
def test_superbpe_splits_as_the_official_pre_tokenizer(text):
    from tokenizers import Regex, pre_tokenizers

    official = pre_tokenizers.Split(Regex(SUPERBPE_STAGE_TWO_REGEX), behavior="isolated")
    assert split_pieces(text, "superbpe") == [piece for piece, _ in official.pre_tokenize_str(text)]


@given(st.text(alphabet=st.sampled_from(list(" \n\t\r.,!?:;/-'\"aZé059日\u0301\u00a0")), max_size=40))
@settings(max_examples=200, deadline=None)
def test_superbpe_split_matches_the_official_one_on_any_text(text):
    from tokenizers import Regex, pre_tokenizers

    official = pre_tokenizers.Split(Regex(SUPERBPE_STAGE_TWO_REGEX), behavior="isolated")
    assert split_pieces(text, "superbpe") == [piece for piece, _ in official.pre_tokenize_str(text)]


def test_superbpe_refuses_what_the_official_trainer_skips():
    # trainer.rs 724-735 of alisawuffles/tokenizers-superbpe (757f2a5), by hand
    assert allowed_superword(b" of the")
    assert allowed_superword(b",\nAnd so")  # a newline does not separate words there
    assert allowed_superword(b" a b c d")  # four words
    assert not allowed_superword(b" a b c d e")  # five
    assert not allowed_superword(b"Note: the")  # ": "
    assert allowed_superword(b"a:b")


def naive_superbpe(text: str, transition: int, vocab_size: int):
    """The official rule, the slow way: stage 1 is BPE with cl100k's split;
    stage 2 re-splits the text (Hugging Face's Split, isolated), replays the
    stage-1 merges in order on those words (trainer.rs 557-673), then goes
    on, skipping for good any pair whose token holds ": " or more than four
    words (687-806). Ties: the first in the text, as the engine."""
    from tokenizers import Regex, pre_tokenizers

    stage_one = naive_merges(text_chunks(text, "cl100k")[0], 256, transition - 256)
    words = [list(piece.encode()) for piece, _ in
             pre_tokenizers.Split(Regex(SUPERBPE_STAGE_TWO_REGEX), behavior="isolated").pre_tokenize_str(text)]
    tokens = [bytes([byte]) for byte in range(256)]
    for pair, new_id, _, _ in stage_one:
        words = [replace_pair(word, pair, new_id) for word in words]
        tokens.append(tokens[pair[0]] + tokens[pair[1]])
    learned, refused = [step[:2] for step in stage_one], set()
    while len(tokens) < vocab_size:
        counts = {pair: count for pair, count in pair_counts(words).items() if pair not in refused}
        if not counts:
            break
        pair = max(counts, key=counts.get)
        if not allowed_superword(tokens[pair[0]] + tokens[pair[1]]):
            refused.add(pair)
            continue
        learned.append((pair, len(tokens)))
        words = [replace_pair(word, pair, len(tokens)) for word in words]
        tokens.append(tokens[pair[0]] + tokens[pair[1]])
    return learned


SUPERBPE_CORPUS = (
    "Note: the cat sat on the mat. Note: the dog sat on the log.\n"
    "The cat and the dog sat on the mat, and the cat sat on the dog.\n" * 3
    + "Of the cat, of the dog: of the mat. 12 cats, 345 dogs!!\n"
)


@pytest.mark.parametrize("transition, vocab_size", [(256, 300), (270, 330), (300, 340)])
def test_superbpe_learns_the_official_rules_merges(transition, vocab_size):
    tokenizer = train_superbpe(SUPERBPE_CORPUS, vocab_size=vocab_size, transition=transition)
    assert tokenizer.merges == naive_superbpe(SUPERBPE_CORPUS, transition, vocab_size)
    assert tokenizer.settings == {"transition": transition}
    superwords = [tokenizer.token_bytes(new_id) for _, new_id in tokenizer.merges[transition - 256:]]
    assert any(b" " in token.strip() for token in superwords)  # some token spans words
    assert not any(b": " in token for token in superwords)


# ---------------------------------------------------------------- Picky BPE

# pchizhov/picky_bpe at 038fcb9, bpe_trainer.py run on each corpus (one line
# per word, repeated), vocabulary 20 (its 4 special tokens included),
# coverage 1.0; the events are its `events` log, the encodings its
# picky_tokenize.BPEModel._encode_word_by_events("▁" + word).
PICKY_REFERENCE = {
    ("you26 would19 should5 old11 out14", 0.9): (
        [["merge", "o", "u", "ou"], ["merge", "l", "d", "ld"], ["merge", "▁", "y", "▁y"], ["merge", "▁y", "ou", "▁you"],
         ["remove", "▁y", ["▁", "y"]], ["merge", "ou", "ld", "ould"], ["merge", "▁", "w", "▁w"],
         ["merge", "▁w", "ould", "▁would"], ["remove", "▁w", ["▁", "w"]], ["merge", "▁", "ou", "▁ou"],
         ["remove", "ou", ["o", "u"]], ["merge", "▁ou", "t", "▁out"], ["remove", "▁ou", ["▁", "o", "u"]],
         ["merge", "▁", "o", "▁o"]],
        {"old": ["▁o", "ld"], "should": ["▁", "s", "h", "ould"], "would": ["▁would"], "ol": ["▁o", "l"],
         "shou": ["▁", "s", "h", "o", "u"], "woul": ["▁", "w", "o", "u", "l"], "oldold": ["▁o", "ld", "o", "ld"],
         "wouldwould": ["▁would", "w", "ould"], "youyou": ["▁you", "y", "o", "u"], "wouldst": ["▁would", "s", "t"],
         "scold": ["▁", "s", "<UNK>", "o", "ld"], "outed": ["▁out", "<UNK>", "d"]},
    ),
    ("you26 would19 should5 old11 out14", 0.7): (
        [["merge", "o", "u", "ou"], ["merge", "l", "d", "ld"], ["merge", "▁", "y", "▁y"], ["merge", "▁y", "ou", "▁you"],
         ["remove", "▁y", ["▁", "y"]], ["merge", "ou", "ld", "ould"], ["merge", "▁", "w", "▁w"],
         ["merge", "▁w", "ould", "▁would"], ["remove", "▁w", ["▁", "w"]], ["remove", "ould", ["ou", "ld"]],
         ["merge", "▁", "ou", "▁ou"], ["remove", "ou", ["o", "u"]], ["merge", "▁ou", "t", "▁out"],
         ["remove", "▁ou", ["▁", "o", "u"]], ["merge", "▁", "o", "▁o"], ["merge", "▁o", "ld", "▁old"],
         ["remove", "▁o", ["▁", "o"]], ["merge", "▁", "s", "▁s"]],
        {"old": ["▁old"], "should": ["▁s", "h", "o", "u", "ld"], "ol": ["▁", "o", "l"], "sh": ["▁s", "h"],
         "oldold": ["▁old", "o", "ld"], "wouldwould": ["▁would", "w", "o", "u", "ld"],
         "shouldshould": ["▁s", "h", "o", "u", "ld", "s", "h", "o", "u", "ld"], "scold": ["▁s", "<UNK>", "o", "ld"]},
    ),
    ("sold24 cold19 would14 you3 could12", 0.9): (
        [["merge", "l", "d", "ld"], ["merge", "o", "ld", "old"], ["merge", "▁", "c", "▁c"], ["merge", "o", "u", "ou"],
         ["merge", "ou", "ld", "ould"], ["remove", "ld", ["l", "d"]], ["merge", "▁", "s", "▁s"],
         ["merge", "▁s", "old", "▁sold"], ["remove", "▁s", ["▁", "s"]], ["merge", "▁c", "old", "▁cold"],
         ["remove", "old", ["o", "l", "d"]], ["merge", "▁", "w", "▁w"], ["merge", "▁w", "ould", "▁would"],
         ["remove", "▁w", ["▁", "w"]], ["merge", "▁c", "ould", "▁could"], ["remove", "▁c", ["▁", "c"]],
         ["remove", "ould", ["ou", "l", "d"]], ["merge", "▁", "y", "▁y"], ["merge", "▁y", "ou", "▁you"],
         ["remove", "▁y", ["▁", "y"]], ["remove", "ou", ["o", "u"]]],
        {"cold": ["▁cold"], "could": ["▁could"], "col": ["▁", "c", "o", "l"], "coul": ["▁", "c", "o", "u", "l"],
         "coldcold": ["▁cold", "c", "o", "l", "d"], "wouldwould": ["▁would", "w", "o", "u", "l", "d"],
         "scold": ["▁", "s", "c", "o", "l", "d"], "outed": ["▁", "o", "u", "<UNK>", "<UNK>", "d"]},
    ),
}


def picky_words(spec: str) -> dict[str, int]:
    """"you26 would19" -> {"▁you": 26, "▁would": 19}: the reference's corpus as word counts."""
    return {"▁" + word.rstrip("0123456789"): int(word.lstrip("abcdefghijklmnopqrstuvwxyz")) for word in spec.split()}


def events_as_text(tokenizer) -> list:
    text = tokenizer.token_bytes
    events = []
    for event in tokenizer.events:
        if isinstance(event, RemovalStep):
            events.append(["remove", text(event.token_id).decode(), [text(part).decode() for part in event.parts]])
        else:
            events.append(["merge", text(event.pair[0]).decode(), text(event.pair[1]).decode(), event.token])
    return events


@pytest.mark.parametrize("spec, threshold", list(PICKY_REFERENCE))
def test_picky_removes_what_the_reference_removes(spec, threshold):
    events, _ = PICKY_REFERENCE[spec, threshold]
    # The reference's vocabulary of 20 holds its 4 special tokens.
    tokenizer = train_picky(picky_words(spec), vocab_size=16, threshold=threshold, units="chars", pattern="none")
    assert events_as_text(tokenizer) == events


@pytest.mark.parametrize("spec, threshold", list(PICKY_REFERENCE))
def test_picky_encodes_as_the_reference_replays(spec, threshold):
    _, encoded = PICKY_REFERENCE[spec, threshold]
    tokenizer = train_picky(picky_words(spec), vocab_size=16, threshold=threshold, units="chars", pattern="none")
    for word, tokens in encoded.items():
        ids = tokenizer.encode("▁" + word)
        assert ["<UNK>" if token_id == tokenizer.unknown_id else tokenizer.token_bytes(token_id).decode()
                for token_id in ids] == tokens, word


def test_picky_threshold_one_is_plain_bpe():
    text = ENGLISH_SAMPLE[:20_000]
    picky = train_picky(text, vocab_size=500, threshold=1.0)
    assert not picky.removals
    assert picky.merges == train(text, vocab_size=500).merges


def test_picky_keeps_the_vocabulary_size_and_shows_each_removal():
    tokenizer = train_picky(ENGLISH_SAMPLE[:40_000], vocab_size=600, threshold=0.9)
    assert len(tokenizer.vocab) == 600
    assert len(tokenizer.merges) == 600 - 256 + len(tokenizer.removals) > 600 - 256
    for removal in tokenizer.removals:
        assert removal.ios > 0.9
        assert removal.token_id not in tokenizer.vocab
        made_by = tokenizer.trace[removal.after - 1]  # the merge whose IoS removed it
        assert removal.token_id in made_by.pair
        assert b"".join(map(tokenizer.token_bytes, removal.parts)) == tokenizer.token_bytes(removal.token_id)
    # A step of its own: a token with uses left outside the merge that removed
    # it is in the text just before the removal, and split just after.
    removal = next(removal for removal in tokenizer.removals if removal.ios < 1)
    event = tokenizer.events.index(removal)  # events done before it
    pieces = split_pieces(ENGLISH_SAMPLE[:40_000], "cl100k")
    piece = next(piece for piece in pieces if removal.token_id in tokenizer.encode_at_event(piece, event))
    after = tokenizer.encode_at_event(piece, event + 1)
    assert removal.token_id not in after and all(part in after for part in removal.parts)
    history = tokenizer.piece_history(piece)  # what the step control steps through, removals included
    assert event + 1 in [done for done, _ in history]
    for done, tokens in history:
        assert [token_id for token_id, _, _ in tokens] == tokenizer.encode_at_event(piece, done)


# ---------------------------------------------------------------- BoundlessBPE

BOUNDLESS_DOCUMENTS = ["of the cat, of the dog; a big red hat", "of the cat sat in the hat", "of the dog! of the cat? yes no"]
# kensho-technologies/boundlessbpe at 9c7ef2e, FasterHalfDirectRegexTokenizer(1.1,
# cl100k's pattern) trained on these three documents to 285 tokens: its merges
# (words_state.merges) and supermerges (superwords_state.merges) in their one order.
BOUNDLESS_REFERENCE_EVENTS = [
    ["merge", " ", "t"], ["merge", " t", "h"], ["merge", " th", "e"], ["merge", "a", "t"], ["merge", "o", "f"],
    ["supermerge", "of", " the"], ["merge", " ", "c"], ["merge", " c", "at"], ["supermerge", "of the", " cat"],
    ["merge", " ", "d"], ["merge", " ", "h"], ["merge", " ", "of"], ["supermerge", " of", " the"], ["merge", " d", "o"],
    ["merge", " do", "g"], ["merge", " h", "at"], ["supermerge", " of the", " cat"], ["supermerge", " of the", " dog"],
    ["supermerge", " the", " hat"], ["supermerge", "of the", " dog"], ["merge", " ", "a"], ["merge", " ", "b"],
    ["merge", " ", "i"], ["merge", " ", "n"], ["merge", " ", "r"], ["merge", " ", "s"], ["merge", " ", "y"],
    ["merge", " b", "i"], ["merge", " bi", "g"],
]
# At event 10, (" ", "d"), (" ", "h") and (" ", "of") occur 3 times each: the
# reference takes the smallest bytes, the engine the first in the text.
BOUNDLESS_UNTIED = 9
# Its FasterRegexInference.encode_ordinary_chunks, with the model above.
BOUNDLESS_REFERENCE_ENCODED = {
    "of the cat": ["of the cat"],
    "in the dog of the cat": ["i", "n", " the", " dog", " of the cat"],
    "the hat, of the big red hat": ["t", "h", "e", " hat", ",", " of the", " big", " r", "e", "d", " hat"],
    "of the of the of the cat": ["of the", " of the", " of the cat"],
    "in, red. red. the hat. no of,": ["i", "n", ",", " r", "e", "d", ".", " r", "e", "d", ".", " the hat", ".", " n", "o", " of", ","],
    "cat a. sat. sat a. of the": ["c", "at", " a", ".", " s", "at", ".", " s", "at", " a", ".", " of the"],
    "cat in the red big in the red. cat,": ["c", "at", " i", "n", " the", " r", "e", "d", " big", " i", "n", " the", " r",
                                           "e", "d", ".", " cat", ","],
    "a big dog, cat zebra, yes": ["a", " big", " dog", ",", " cat", " ", "z", "e", "b", "r", "a", ",", " y", "e", "s"],
}


def test_boundless_learns_what_the_reference_learns():
    tokenizer = train_boundless("\n".join(BOUNDLESS_DOCUMENTS), vocab_size=285)
    text = lambda token_id: tokenizer.token_bytes(token_id).decode()
    ours = [["supermerge" if new_id in tokenizer.supermerges else "merge", text(left), text(right)]
            for (left, right), new_id in tokenizer.merges]
    assert ours[:BOUNDLESS_UNTIED] == BOUNDLESS_REFERENCE_EVENTS[:BOUNDLESS_UNTIED]
    assert ours[BOUNDLESS_UNTIED] != BOUNDLESS_REFERENCE_EVENTS[BOUNDLESS_UNTIED]  # the tie, decided apart


def reference_boundless_model() -> SuperwordTokenizer:
    """The reference's trained events as a tokenizer of this engine."""
    tokens = [bytes([byte]) for byte in range(256)]
    ids = {token: index for index, token in enumerate(tokens)}
    merges, supermerges = [], []
    for kind, left, right in BOUNDLESS_REFERENCE_EVENTS:
        new_id = len(tokens)
        merges.append(((ids[left.encode()], ids[right.encode()]), new_id))
        tokens.append(left.encode() + right.encode())
        ids[tokens[-1]] = new_id
        if kind == "supermerge":
            supermerges.append(new_id)
    return SuperwordTokenizer(name="reference", pattern="cl100k", vocab=dict(enumerate(tokens)), merges=merges,
                              supermerges=supermerges)


@pytest.mark.parametrize("text", list(BOUNDLESS_REFERENCE_ENCODED))
def test_boundless_encodes_as_the_reference_inference(text):
    tokenizer = reference_boundless_model()
    assert [tokenizer.token_bytes(token_id).decode() for token_id in tokenizer.encode(text)] == BOUNDLESS_REFERENCE_ENCODED[text]


def test_boundless_superwords_join_whole_pretokens_only():
    tokenizer = train_boundless(ENGLISH_SAMPLE[:40_000], vocab_size=700)
    assert tokenizer.supermerges
    for new_id in tokenizer.supermerges:
        token = tokenizer.token_bytes(new_id).decode()
        assert len(split_pieces(token, CL100K_PATTERN)) >= 2  # spans pretokens
        assert all(any(char.isalpha() for char in piece) for piece in split_pieces(token, CL100K_PATTERN))


# ---------------------------------------------------------------- BPE-dropout

def abc_tokenizer() -> Tokenizer:
    """Units a, b, c; merges (a, b), then (b, c), then (ab, c)."""
    return Tokenizer(name="abc", pattern="none", units="chars", vocab=dict(enumerate(["a", "b", "c", "ab", "bc", "abc"])),
                     merges=[((0, 1), 3), ((1, 2), 4), ((3, 2), 5)])


@pytest.mark.parametrize("p", [0.1, 0.5])
def test_dropout_draws_segmentations_as_the_definition_gives(p):
    # By hand (Provilkov et al., Algorithm 1): (a,b) survives its draw with 1-p
    # and then (ab,c) its own; else (b,c) survives with 1-p; else nothing.
    expected = {("abc",): (1 - p) ** 2, ("ab", "c"): (1 - p) * p, ("a", "bc"): p * (1 - p), ("a", "b", "c"): p * p}
    samples = 4_000
    seen = dict(segmentations(abc_tokenizer(), "abc", p, samples))
    for segmentation, probability in expected.items():
        count = seen.get(tuple(part.encode() for part in segmentation), 0)
        spread = math.sqrt(samples * probability * (1 - probability))
        assert abs(count - samples * probability) < 4.5 * spread + 1, (segmentation, count)


@given(st.text(max_size=60), st.integers(0, 2**32))
@settings(max_examples=60, deadline=None)
def test_dropout_always_decodes_to_the_text(trained_english, text, seed):
    assert trained_english.decode(encode_with_dropout(trained_english, text, 0.3, seed)) == text


@given(st.text(max_size=60))
@settings(max_examples=60, deadline=None)
def test_dropout_of_zero_is_plain_encoding(trained_english, text):
    assert encode_with_dropout(trained_english, text, 0.0, 5) == trained_english.encode_ordinary(text)


def test_dropout_segments_differently_per_seed(trained_english):
    text = ENGLISH_SAMPLE[50_000:52_000]
    runs = {tuple(encode_with_dropout(trained_english, text, 0.1, seed)) for seed in range(5)}
    assert len(runs) == 5
    assert encode_with_dropout(trained_english, text, 0.1, 3) == encode_with_dropout(trained_english, text, 0.1, 3)
    assert all(len(run) > len(trained_english.encode(text)) for run in runs)


def test_dropout_of_one_is_refused_and_almost_one_merges_little(trained_english):
    with pytest.raises(ValueError, match="below 1"):
        encode_with_dropout(trained_english, "hello", 1.0)
    assert len(encode_with_dropout(trained_english, "hello world", 0.999, 1)) >= 9


# ---------------------------------------------------------------- every algorithm

@pytest.fixture(scope="module")
def trained_english():
    return train(ENGLISH_SAMPLE[:30_000], vocab_size=600)



@pytest.fixture(scope="module")
def research_tokenizers():
    text = ENGLISH_SAMPLE[:40_000]
    return {
        "superbpe": train_superbpe(text, vocab_size=700, transition=550, special_tokens=["<|endoftext|>"]),
        "boundless": train_boundless(text, vocab_size=700, special_tokens=["<|endoftext|>"]),
        "picky": train_picky(text, vocab_size=700, threshold=0.9, special_tokens=["<|endoftext|>"]),
    }


@given(text=st.text(max_size=80))
@settings(max_examples=80, deadline=None)
@pytest.mark.parametrize("name", ["superbpe", "boundless", "picky"])
def test_every_algorithm_round_trips_any_text(research_tokenizers, name, text):
    tokenizer = research_tokenizers[name]
    ids = tokenizer.encode(text, disallowed_special=())
    assert tokenizer.decode(ids) == text
    assert [span.id for span in tokenizer.encode_with_offsets(text, disallowed_special=())] == ids


@pytest.mark.parametrize("name", ["superbpe", "boundless", "picky"])
def test_every_algorithm_saves_loads_and_steps(research_tokenizers, name, tmp_path):
    tokenizer = research_tokenizers[name]
    path = tmp_path / f"{name}.json"
    path.write_text(tokenizer_to_json(tokenizer), encoding="utf-8")
    again = load_tokenizer(path)
    text = ENGLISH_SAMPLE[60_000:63_000] + "<|endoftext|>"
    assert type(again) is type(tokenizer) and again.fingerprint == tokenizer.fingerprint
    assert again.encode(text, allowed_special="all") == tokenizer.encode(text, allowed_special="all")
    assert again.algorithm == name
    # The step control's states: none merged at 0, all at the end, fewer tokens as steps go.
    steps = len(tokenizer.trace)
    lengths = [len(tokenizer.encode_at_step(text, step, allowed_special="all")) for step in (0, steps // 2, steps)]
    assert lengths[0] == len(text.encode()) - len("<|endoftext|>") + 1
    assert lengths[0] > lengths[1] > lengths[2]
    assert tokenizer.encode_at_step(text, steps, reference=True, allowed_special="all") == \
        tokenizer.encode_at_step(text, steps, allowed_special="all")


def test_algorithms_that_split_the_text_anew_refuse_word_counts():
    with pytest.raises(TypeError, match="not word counts"):
        train_superbpe({"low": 5, "lower": 2}, vocab_size=300, transition=280)
    with pytest.raises(TypeError, match="not word counts"):
        train_boundless({"low": 5, "lower": 2}, vocab_size=300)
    with pytest.raises(TypeError, match="a whole number"):  # a wrong type is a TypeError, as Python's own are
        train_superbpe("low lower", vocab_size=300, transition=280.0)


def test_files_with_broken_extras_are_refused(research_tokenizers):
    from bpe_core.formats import TokenizerFileError

    picky = json.loads(tokenizer_to_json(research_tokenizers["picky"]))
    picky["removals"][0][2] = [1, 2]
    with pytest.raises(TokenizerFileError, match="parts"):
        tokenizer_from_json(json.dumps(picky))
    boundless = json.loads(tokenizer_to_json(research_tokenizers["boundless"]))
    boundless["supermerges"].append(5)
    with pytest.raises(TokenizerFileError, match="supermerges"):
        tokenizer_from_json(json.dumps(boundless))


# ---------------------------------------------------------------- the pages' analyses

@pytest.mark.parametrize("name", ["superbpe", "boundless", "picky"])
def test_every_algorithm_goes_through_the_pages_analyses(research_tokenizers, name):
    from bpe_core.analysis.comparison import differing_stretches, summary_rows
    from bpe_core.analysis.compression import checkpoints, held_out_curve, training_curve
    from bpe_core.analysis.replay import merge_tree, replay
    from bpe_core.analysis.vocabulary import token_detail
    from bpe_core.analysis.vocabulary_search import vocabulary_table

    tokenizer = research_tokenizers[name]
    text = ENGLISH_SAMPLE[70_000:71_000]
    story = replay(tokenizer, text)  # Replay: the merges end in the tokens encoding gives
    assert story.tokens == tokenizer.encode(text)
    assert any(merge.joins_pieces for merge in story.order) == (name == "boundless")  # BoundlessBPE's supermerges
    longest = max(tokenizer.vocab, key=lambda token_id: len(tokenizer.vocab[token_id]))
    assert merge_tree(tokenizer, longest).merges >= 1
    table = vocabulary_table(tokenizer)  # Vocabulary
    assert len(table) == len(tokenizer.vocab) + len(tokenizer.special_tokens)
    assert token_detail(tokenizer, longest).step is not None
    steps = checkpoints(len(tokenizer.trace), base_vocab=tokenizer.first_merge_id)  # Compression
    curve = held_out_curve(tokenizer, text, steps)
    assert curve[-1].bytes_per_token > curve[0].bytes_per_token
    assert training_curve(tokenizer, 40_000, 40_000)
    spans = {"mine": tokenizer.encode_with_offsets(text), "bpe": research_tokenizers["picky"].encode_with_offsets(text)}
    assert summary_rows(text, spans) and differing_stretches(text, spans) is not None  # Compare


@pytest.mark.slow
@pytest.mark.parametrize("name", ["superbpe", "boundless", "picky"])
def test_every_algorithm_works_in_the_pages(research_tokenizers, name):
    from pages.common.names import COMPARE_TOKENIZERS, LOADED_TOKENIZERS

    from .apptest import open_page

    file_name = f"{name}.json"
    at = open_page("pages/inspect.py", inspect_upload_open=True)  # loaded as a visitor loads it
    at.file_uploader(key="inspect_upload").upload(
        file_name, tokenizer_to_json(research_tokenizers[name]).encode(), "application/json").run()
    assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
    assert at.selectbox(key="inspect_tokenizer").value == f"loaded: {file_name}"
    loaded = {LOADED_TOKENIZERS: {file_name: research_tokenizers[name]}}
    picked = f"loaded: {file_name}"
    for page, session in [
        ("pages/vocabulary.py", {"vocab_tokenizer": picked}),
        ("pages/replay.py", {"replay_tokenizer": picked}),
        ("pages/compare.py", {COMPARE_TOKENIZERS: [picked, "cl100k_base"]}),
        ("pages/tax.py", {"tax_view_tokenizer": picked}),
    ]:
        at = open_page(page, **loaded, **session)  # fails on any exception
        assert not at.error, (page, [e.value for e in at.error])


@pytest.mark.slow
def test_the_papers_direction_on_held_out_english():
    """Trained on 300 kB of Shakespeare, measured on Alice in Wonderland, all
    at 2,000 tokens: SuperBPE takes clearly fewer tokens than BPE (the paper:
    up to 33% fewer at 200k), BoundlessBPE fewer too, Picky BPE no more."""
    shakespeare = (ENGLISH_SAMPLE_DIR / "tiny_shakespeare.txt").read_text(encoding="utf-8")[:300_000]
    held_out = ENGLISH_SAMPLE
    tokens = {name: len(tokenizer.encode(held_out)) for name, tokenizer in {
        "bpe": train(shakespeare, vocab_size=2000),
        "superbpe": train_superbpe(shakespeare, vocab_size=2000, transition=1600),
        "boundless": train_boundless(shakespeare, vocab_size=2000),
        "picky": train_picky(shakespeare, vocab_size=2000, threshold=0.9),
    }.items()}
    assert tokens["superbpe"] < 0.98 * tokens["bpe"]
    assert tokens["boundless"] < tokens["bpe"]
    assert tokens["picky"] <= 1.005 * tokens["bpe"]


# ---------------------------------------------------------------- the command line

@pytest.mark.parametrize("options, says", [
    (["--algorithm", "superbpe", "--transition", "600"], "below the vocabulary size"),
    (["--algorithm", "superbpe", "--transition", "700"], "below the vocabulary size"),
    (["--algorithm", "superbpe", "--transition", "100"], "at least 256"),
    (["--algorithm", "picky", "--picky-threshold", "0"], "above 0 and at most 1"),
    (["--algorithm", "picky", "--picky-threshold", "1.5"], "above 0 and at most 1"),
    (["--algorithm", "boundless", "--units", "chars"], "byte-level"),
])
def test_train_refuses_bad_settings_in_one_line_before_any_work(tmp_path, options, says):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(ENGLISH_SAMPLE[:5_000], encoding="utf-8")
    code, out, err = run_cli("train", corpus, "--vocab-size", 600, *options, "-o", tmp_path / "out.json")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("error: ") and says in err
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("p", ["1", "-0.1", "1.5"])
def test_encode_refuses_a_dropout_outside_its_range(tmp_path, p):
    code, out, err = run_cli("encode", "--encoding", "gpt2", "--dropout", p, stdin=b"hello")
    assert (code, out) == (2, "") and err.count("\n") == 1 and "below 1" in err


@pytest.mark.parametrize("algorithm, options", [
    ("superbpe", ["--transition", "500"]), ("boundless", []), ("picky", ["--picky-threshold", "0.9"]),
])
def test_train_each_algorithm_from_the_command_line(tmp_path, algorithm, options):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(ENGLISH_SAMPLE[:30_000], encoding="utf-8")
    saved = tmp_path / f"{algorithm}.json"
    code, _, err = run_cli("train", corpus, "--vocab-size", 600, "--algorithm", algorithm, *options, "-o", saved)
    assert code == 0, err
    tokenizer = load_tokenizer(saved)
    assert tokenizer.algorithm == algorithm and len(tokenizer.vocab) == 600
    text = ENGLISH_SAMPLE[40_000:40_500]
    code, out, _ = run_cli("encode", "--tokenizer", saved, "--json", stdin=text.encode())
    assert code == 0 and json.loads(out) == tokenizer.encode(text)


def test_encode_with_dropout_from_the_command_line(tmp_path, trained_english):
    saved = tmp_path / "bpe.json"
    saved.write_text(tokenizer_to_json(trained_english), encoding="utf-8")
    text = ENGLISH_SAMPLE[40_000:41_000]
    runs = [run_cli("encode", "--tokenizer", saved, "--dropout", "0.1", "--seed", seed, "--json", stdin=text.encode())
            for seed in (1, 1, 2)]
    assert all(code == 0 for code, _, _ in runs)
    first, again, other = (json.loads(out) for _, out, _ in runs)
    assert first == again != other
    assert trained_english.decode(first) == text
    code, out, _ = run_cli("encode", "--tokenizer", saved, "--dropout", "0", "--json", stdin=text.encode())
    assert code == 0 and json.loads(out) == trained_english.encode(text)


# ---------------------------------------------------------------- a page's worker

@pytest.mark.parametrize("algorithm, settings", [
    ("superbpe", {"transition": 450}), ("boundless", {}), ("picky", {"threshold": 0.9}),
])
def test_each_algorithm_trains_in_a_pages_worker_as_here(algorithm, settings):
    from bpe_core.jobs.budgeted_training import TRAINERS, Budget, train_within_budget

    text = ENGLISH_SAMPLE[:20_000]
    heard = []
    there = train_within_budget(text, Budget(seconds=60, memory_bytes=1_000_000_000), algorithm=algorithm,
                                progress=lambda done, total: heard.append((done, total)), vocab_size=500, **settings)
    here = TRAINERS[algorithm](text, vocab_size=500, **settings)
    assert type(there) is type(here) and tokenizer_to_json(there) == tokenizer_to_json(here)
    assert heard[-1] == (500 - 256, 500 - 256) and all(0 <= done <= total for done, total in heard)


# ---------------------------------------------------------------- Compression's axis for Picky BPE

def test_picky_bpes_compression_curves_count_tokens_not_merges(research_tokenizers):
    """Picky BPE removes tokens as it merges: a curve's x-axis is the
    vocabulary's size at that step (merges less removals), and the training
    text's length there is the one after the removals, from the trace."""
    from bpe_core.analysis.compression import (
        checkpoints,
        corpus_tokens_at,
        held_out_curve,
        training_curve,
        vocabulary_at,
    )

    picky = research_tokenizers["picky"]
    merges = len(picky.trace)
    assert vocabulary_at(picky, merges) == len(picky.vocab) == 700 < picky.first_merge_id + merges
    for step in (0, 1, merges // 3, merges):  # by the definition: every token made and not removed by then
        made = set(range(picky.first_merge_id + step))
        gone = {removal.token_id for removal in picky.removals if removal.after <= step}
        assert vocabulary_at(picky, step) == len(made - gone)
    text = ENGLISH_SAMPLE[:40_000]
    curve = training_curve(picky, len(text.encode()), len(text))
    assert curve[-1].vocab_size == 700
    removal = next(removal for removal in picky.removals if removal.ios < 1)  # its occurrences left are split: longer text
    assert corpus_tokens_at(picky, removal.after, 0, 0) == \
        [later.corpus_tokens for later in picky.removals if later.after == removal.after][-1] > \
        picky.trace[removal.after - 1].corpus_tokens
    held = held_out_curve(picky, ENGLISH_SAMPLE[70_000:72_000], checkpoints(merges, base_vocab=picky.first_merge_id))
    assert [point.vocab_size for point in held] == [vocabulary_at(picky, step) for step in
                                                   checkpoints(merges, base_vocab=picky.first_merge_id)]
    bpe = research_tokenizers["superbpe"]  # removes nothing: merges are tokens
    assert vocabulary_at(bpe, 10) == bpe.first_merge_id + 10


def test_replay_shows_boundless_supermerges_as_steps_that_join_pieces(research_tokenizers):
    """Encode replay's steps for BoundlessBPE: each piece's merges, then the
    supermerges that join neighbouring whole pieces; every state the steps
    pass through covers the text, and the last is what encoding gives."""
    from bpe_core.analysis.replay import replay
    from bpe_core.drawing.replay import replay_frames

    boundless = research_tokenizers["boundless"]
    text = " It was the best of the times, and the worst of the world."
    story = replay(boundless, text)
    assert story.tokens == boundless.encode(text)
    joins = [merge for merge in story.order if merge.joins_pieces]
    assert joins and all(merge.made.id in boundless.supermerges for merge in joins)
    assert all(merge.made.id not in boundless.supermerges for merge in story.order if not merge.joins_pieces)
    ranks = [merge.rank for merge in story.order]
    for piece in story.pieces:
        assert [merge.rank for merge in piece.merges] == sorted(merge.rank for merge in piece.merges)
    for step in range(story.steps + 1):  # every state tiles the text's bytes
        covered = b"".join(piece.part_bytes(part) for piece, parts in zip(story.pieces, story.state(step)) for part in parts)
        assert covered == text.encode()
    assert ranks == sorted(ranks)  # lowest rank first, across pieces
    frames = replay_frames(story)
    step = story.order.index(joins[0]) + 1
    assert "join into a superword" in frames["headings"][step] and "supermerge, rank" in frames["headings"][step]


# ---------------------------------------------------------------- dropout beyond BPE

def test_boundless_dropout_skips_supermerges_as_merges_by_the_definition():
    """BPE-dropout on BoundlessBPE, by hand: " a" and " b" each merge (or
    not) with 1-p, and only if both came out whole, their supermerge with 1-p."""

    vocab = {byte: bytes([byte]) for byte in range(256)} | {256: b" a", 257: b" b", 258: b" a b"}
    tokenizer = SuperwordTokenizer(name="by hand", pattern="cl100k", vocab=vocab,
                                   merges=[((32, 97), 256), ((32, 98), 257), ((256, 257), 258)], supermerges=[258])
    assert tokenizer.encode(" a b") == [258]
    p, samples = 0.3, 4_000
    expected = {(b" a b",): (1 - p) ** 3, (b" a", b" b"): (1 - p) ** 2 * p, (b" ", b"a", b" b"): p * (1 - p),
                (b" a", b" ", b"b"): (1 - p) * p, (b" ", b"a", b" ", b"b"): p * p}
    seen = dict(segmentations(tokenizer, " a b", p, samples))
    assert set(seen) <= set(expected)
    for segmentation, probability in expected.items():
        spread = math.sqrt(samples * probability * (1 - probability))
        assert abs(seen.get(segmentation, 0) - samples * probability) < 4.5 * spread + 1, segmentation


@given(st.text(max_size=60), st.integers(0, 2**32))
@settings(max_examples=40, deadline=None)
def test_boundless_dropout_decodes_to_the_text_and_zero_is_plain(research_tokenizers, text, seed):
    boundless = research_tokenizers["boundless"]
    assert boundless.decode(encode_with_dropout(boundless, text, 0.3, seed)) == text
    assert encode_with_dropout(boundless, text, 0.0, seed) == boundless.encode(text, disallowed_special=())


def test_dropout_is_refused_for_picky_bpe_in_one_line(research_tokenizers, tmp_path):
    from bpe_core.algorithms.dropout import dropout_problem

    picky = research_tokenizers["picky"]
    with pytest.raises(ValueError, match="not defined for Picky BPE") as refused:
        encode_with_dropout(picky, "the world", 0.1)
    assert "\n" not in str(refused.value) and "Encode it without dropout" in str(refused.value)
    assert encode_with_dropout(picky, "the world", 0) == picky.encode("the world")  # p = 0 is plain encoding
    assert dropout_problem(research_tokenizers["boundless"]) is None and dropout_problem(research_tokenizers["superbpe"]) is None
    saved = tmp_path / "picky.json"
    saved.write_text(tokenizer_to_json(picky), encoding="utf-8")
    code, _, err = run_cli("encode", "--tokenizer", saved, "--dropout", "0.1", stdin=b"the world")
    assert code != 0 and "not defined for Picky BPE" in err and "Traceback" not in err


# ---------------------------------------------------------------- the step control

def test_the_step_control_shows_picky_bpes_removals_as_steps(research_tokenizers):
    from bpe_core.analysis.training_view import piece_versions
    from bpe_core.drawing.training_view import training_run_view
    from bpe_core.engine.corpus import count_pieces

    picky = research_tokenizers["picky"]
    text = ENGLISH_SAMPLE[:40_000]
    events = picky.events
    view = training_run_view(picky, text, count_pieces(text, picky.pattern, ("<|endoftext|>",)), range(0, len(events) + 1))
    assert view["total"] == len(events) == len(picky.trace) + len(picky.removals)
    for step, event in enumerate(events, start=1):
        heading = view["headings"][step]
        if isinstance(event, RemovalStep):
            assert "removed</b>" in heading and f"{event.ios:.2f} of its uses were inside" in heading
            assert f"<small>{event.token_id}</small>" in heading and view["merges"][step][:3] == [-1, -1, -1]
        else:
            assert "merge" in heading and view["merges"][step][2] == event.new_id
    assert view["vocabSizes"][0] == picky.first_merge_id and view["vocabSizes"][-1] == len(picky.vocab) == 700
    assert view["curve"][-1] == [len(events), events[-1].corpus_tokens]
    for piece in (" would", " rabbit", " Alice", " thought"):  # each piece's last version is how it encodes
        (history,) = piece_versions(picky, piece)
        assert [token_id for token_id, _, _ in history[-1][1]] == picky.encode(piece)


def test_the_step_control_marks_superbpes_transition_and_boundless_supermerges(research_tokenizers):
    from bpe_core.drawing.training_view import training_run_view
    from bpe_core.engine.corpus import count_pieces

    text = ENGLISH_SAMPLE[:40_000]
    superbpe = research_tokenizers["superbpe"]
    steps = range(0, len(superbpe.trace) + 1)
    view = training_run_view(superbpe, text, count_pieces(text, superbpe.pattern, ("<|endoftext|>",)), steps)
    first_of_stage_two = 550 - 256 + 1
    assert "the transition" in view["headings"][first_of_stage_two]
    assert all("stage 1" in view["headings"][step] for step in range(1, first_of_stage_two))
    assert all("stage 2" in view["headings"][step] for step in range(first_of_stage_two + 1, len(steps)))
    for step in range(first_of_stage_two - 1):  # stage 1's pairs counted within words: the first is the one merged
        (left, right, _), *_ = view["pairs"][step]
        assert (left, right) == superbpe.trace[step].pair
    boundless = research_tokenizers["boundless"]
    view = training_run_view(boundless, text, count_pieces(text, boundless.pattern, ("<|endoftext|>",)),
                             range(0, len(boundless.trace) + 1))
    marked = {step for step, heading in enumerate(view["headings"]) if heading and "a supermerge" in heading}
    assert marked == {step for step, merge in enumerate(boundless.trace, start=1) if merge.new_id in boundless.supermerges}
    assert marked
