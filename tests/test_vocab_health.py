"""Vocabulary health (`bpe_core.analysis.vocab_health`): unreachable tokens
against a brute force by tiktoken itself, partial characters and residues
on worked examples counted by hand, the residues' shortcut against a replay
of every merge, and `python -m bpe_core vocab-health`."""

import gzip
import hashlib
import json
import os
from collections import Counter

import pytest
import tiktoken

from bpe_core import load_encoding, save_tokenizer, train
from bpe_core.algorithms.hf_trainers import train_wordpiece
from bpe_core.analysis.labels import label_text
from bpe_core.analysis.shipped_health import shipped
from bpe_core.analysis.vocab_health import (
    MAX_RATIO,
    MIN_SEEN,
    Residue,
    Unreachable,
    health_corpus,
    partial_character_tokens,
    residues,
    unreachable_tokens,
    usage,
    vocabulary_health,
)
from bpe_core.corpora.samples import SAMPLES_DIR, catalog
from bpe_core.engine.patterns import split_pieces
from bpe_core.engine.tokenizer import Tokenizer
from bpe_core.vocabularies.openai import BUNDLED_DIR
from tests.cli import run_cli

OPENAI_URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"
# tiktoken's gpt2 is r50k_base's ranks, pattern and special token under another name (its files are
# GPT-2's own vocab.bpe and encoder.json, not shipped here): the oracle for gpt2 is r50k_base.
ORACLE_NAMES = {"gpt2": "r50k_base", "cl100k_base": "cl100k_base", "o200k_base": "o200k_base"}
BYTES = {token_id: bytes([token_id]) for token_id in range(256)}


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    """name -> tiktoken's own Encoding, read by tiktoken's own loader from
    the bundled rank files (put in its cache folder): no code of bpe_core."""
    cache = tmp_path_factory.mktemp("tiktoken_cache")
    for name in ORACLE_NAMES.values():
        key = hashlib.sha1(OPENAI_URL.format(name).encode()).hexdigest()
        (cache / key).write_bytes(gzip.decompress((BUNDLED_DIR / f"{name}.tiktoken.gz").read_bytes()))
    saved = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    try:
        yield {name: tiktoken.get_encoding(theirs) for name, theirs in ORACLE_NAMES.items()}
    finally:
        if saved is None:
            del os.environ["TIKTOKEN_CACHE_DIR"]
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = saved


def brute_force_unreachable(encoding: tiktoken.Encoding) -> dict[int, list[int]]:
    """Every token of `encoding`, tried one by one: those whose bytes are
    UTF-8 and whose text tiktoken does not encode as that one token, with
    what it encodes them to instead."""
    special = set(encoding._special_tokens.values())
    found = {}
    for token_id in range(encoding.n_vocab):
        if token_id in special:
            continue
        try:
            text = encoding.decode_single_token_bytes(token_id).decode("utf-8")
        except KeyError:  # an id that is no token
            continue
        except UnicodeDecodeError:  # part of a character: not text to encode
            continue
        ids = encoding.encode_ordinary(text)
        if ids != [token_id]:
            found[token_id] = ids
    return found


@pytest.mark.slow  # every token of three vocabularies, twice: seconds each
@pytest.mark.parametrize("name", list(ORACLE_NAMES))
def test_the_unreachable_tokens_are_those_a_brute_force_with_tiktoken_finds(name, oracle):
    ours = load_encoding(name)
    assert dict(ours.mergeable_ranks) == oracle[name]._mergeable_ranks  # the same vocabulary, so the same question
    expected = brute_force_unreachable(oracle[name])
    assert {found.id: list(found.becomes) for found in unreachable_tokens(ours)} == expected
    assert {found.id: list(found.becomes) for found in shipped()[name].health.unreachable} == expected  # as shipped
    if name == "o200k_base":  # twelve there (none in gpt2 or cl100k_base), such as " I'", which its pattern cuts
        assert len(expected) == 12
        assert [ours.token_bytes(part) for part in expected[ours.encode_single_token(" I'")]] == [b" I", b"'"]
    else:
        assert expected == {}


def hand_made(vocab: dict[int, bytes], pattern: str = "cl100k") -> Tokenizer:
    return Tokenizer(name="hand-made", pattern=pattern, vocab={**BYTES, **vocab})


def test_unreachable_and_partial_tokens_of_a_hand_made_vocabulary():
    tokenizer = hand_made({256: b"ab", 257: b"b a", 258: b"ab", 259: b"\xe3\x81"})
    # "b a" is cut by the split pattern into "b" and " a", which are no merged tokens;
    # 258 has 256's bytes, and encoding gives the first; bytes 80-FF and E3 81 are parts of characters.
    assert unreachable_tokens(tokenizer) == [Unreachable(257, (98, 32, 97)), Unreachable(258, (256,))]
    assert partial_character_tokens(tokenizer) == [*range(0x80, 0x100), 259]


def test_special_tokens_are_not_ordinary_text_and_are_never_called_unreachable():
    tokenizer = Tokenizer(name="with a special", pattern="cl100k", vocab=BYTES, special_tokens={"<|end|>": 256})
    assert unreachable_tokens(tokenizer) == []


# --------------------------------------------------------------- residues

WOULD = {256: b"ou", 257: b"ld", 258: b"ould", 259: b" w", 260: b" would"}


def test_residues_counted_by_hand():
    """ " would would could": each " would" is made o+u, l+d, ou+ld, ' '+w,
    ' w'+ould; " could" stops at ' ', 'c', 'ould' (there is no " c").

    kept (F1):     " would" 2, "ould" 1, ' ' 1, 'c' 1
    absorbed (F2): "ou" 3, "ld" 3, "ould" 2, " w" 2
    """
    tokenizer = hand_made(WOULD)
    used = usage(tokenizer, [" would would could"])
    assert {token: used.kept[token] for token in used.kept} == {260: 2, 258: 1, 32: 1, 99: 1}
    assert dict(used.absorbed) == {256: 3, 257: 3, 258: 2, 259: 2}
    # Made at least 3 times and kept under half of them: "ou" 0/3, "ld" 0/3, "ould" 1/3 ("·w" was made twice only).
    found = residues(used, min_seen=3, max_ratio=0.5)
    assert found == [Residue(256, 0, 3, 260), Residue(257, 0, 3, 260), Residue(258, 1, 2, 260)]
    assert found[2].ratio == pytest.approx(1 / 3)
    assert residues(used, min_seen=3, max_ratio=1 / 3) == found[:2]  # "below", not "at"
    assert residues(used) == []  # the default rule wants ten sightings


def replayed_usage(tokenizer: Tokenizer, text: str) -> tuple[Counter, Counter]:
    """F1 and F2 by replaying every merge of every piece with the merge
    loop's own hook: each merge's two parts that were themselves made by a
    merge are absorbed; what is left of a piece is kept."""
    kept, absorbed = Counter(), Counter()
    for piece in split_pieces(text, tokenizer.pattern):
        whole = tokenizer.mergeable_ranks.get(tokenizer.units_of(piece))
        made = {}  # (start, end) of a part -> its id, for parts made by a merge

        def record(new_id: int, start: int, middle: int, end: int, made: dict = made) -> None:
            for part in ((start, middle), (middle, end)):
                if part in made:
                    absorbed[made.pop(part)] += 1
            made[start, end] = new_id

        parts = tokenizer.merge_piece(piece, on_merge=record)
        assert whole is None or [part[0] for part in parts] == [whole]  # the shortcut gives what the merges give
        kept.update(part[0] for part in parts)
    return kept, absorbed


@pytest.mark.parametrize("tokenizer", [
    pytest.param(lambda: load_encoding("gpt2"), id="gpt2"),
    pytest.param(lambda: train(catalog()["english_prose"].load(), vocab_size=1_000), id="trained"),
])
def test_counting_by_merge_trees_equals_replaying_every_merge(tokenizer):
    tokenizer = tokenizer()
    text = catalog()["english_prose"].load()[:40_000] + catalog()["japanese"].load()[:3_000]
    used = usage(tokenizer, [text])
    kept, absorbed = replayed_usage(tokenizer, text)
    assert used.kept == kept
    assert used.absorbed == absorbed
    assert sum(absorbed.values()) > 10_000  # a test with something in it


def test_a_vocabulary_without_merges_has_no_residues_to_find():
    wordpiece = train_wordpiece(["low lower lowest newer wider\n"] * 50, 60)
    health = vocabulary_health(wordpiece, texts=["low lower"])
    assert health.residues is None and health.tokens_seen is None
    continuations = [token_id for token_id, piece in wordpiece.pieces.items() if piece.startswith("##")]
    assert continuations and not {found.id for found in health.unreachable} & set(continuations)


def test_the_health_corpus_is_every_bundled_text():
    texts = health_corpus()
    samples = [sample for sample in catalog().values() if sample.kind == "text"]
    assert len(samples) == 6  # aaabdaaabac too; the textbook's word counts are no text
    assert len(texts) == 6 + 30 + 527  # samples, the passage's languages, the declarations
    assert texts[0] == samples[0].load() and catalog()["tiny_shakespeare"].load() in texts
    assert sum(map(len, texts)) > 6_000_000


# ------------------------------------------------------------ the command


def test_vocab_health_json_of_a_trained_tokenizer_file(tmp_path):
    tokenizer = train(catalog()["english_prose"].load(), vocab_size=600)
    path = tmp_path / "tok.json"
    save_tokenizer(tokenizer, path)
    code, out, err = run_cli("vocab-health", "--tokenizer", path, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["unreachable"] == [found.id for found in unreachable_tokens(tokenizer)]
    assert report["partial_characters"] == partial_character_tokens(tokenizer)
    assert set(range(0x80, 0x100)) <= set(report["partial_characters"])  # no byte above 7F is a character alone
    assert report["residue_rule"]["min_seen"] == MIN_SEEN and report["residue_rule"]["max_ratio"] == MAX_RATIO
    assert report["residues"]  # the counting itself is checked above, against a replay of every merge
    for residue in report["residues"]:
        assert residue["kept"] + residue["absorbed"] >= MIN_SEEN
        assert residue["ratio"] == residue["kept"] / (residue["kept"] + residue["absorbed"]) < MAX_RATIO
        assert residue["token"] == label_text(tokenizer.token_bytes(residue["id"]))


def test_vocab_health_summary_names_examples_on_the_corpus_given():
    prose = str(SAMPLES_DIR / catalog()["english_prose"].file)
    code, out, err = run_cli("vocab-health", "--encoding", "gpt2", "--corpus", prose)
    assert code == 0, err
    assert "unreachable: 0" in out
    assert "not UTF-8 alone: 344" in out
    assert f"tokens made on {prose} (made at least 10 times" in out
    # GPT-2's first merge, " t", made on the way to " the" nearly every time it is made.
    assert "'·t': kept " in out and "most often into '·the'" in out
    code, out, err = run_cli("vocab-health", "--encoding", "gpt2", "--corpus", prose, "--json")
    assert json.loads(out)["residue_rule"]["corpus"] == prose


@pytest.mark.parametrize("arguments, message", [
    (["--tokenizer", "missing.json"], "error: cannot read missing.json"),
    (["--encoding", "gpt2", "--corpus", "missing.txt"], "error: cannot read missing.txt"),
    (["--encoding", "gpt9"], "invalid choice"),
    ([], "one of the arguments --encoding --tokenizer is required"),
])
def test_vocab_health_bad_input_is_one_line(arguments, message):
    code, out, err = run_cli("vocab-health", *arguments)
    assert code in (1, 2) and out == ""
    assert message in err and "Traceback" not in err


# ------------------------------------------------------------ the drawing


def test_the_tables_show_each_token_escaped_with_what_it_becomes_and_its_counts():
    from bpe_core.drawing.health import residues_html, unreachable_html
    from tests.apptest import _TableReader

    def tables(markup: str):
        reader = _TableReader()
        reader.feed(markup)
        return reader.tables

    tokenizer = hand_made({256: b"<b>x", 257: b"ou", 258: b"ould"})
    markup = unreachable_html(tokenizer, unreachable_tokens(tokenizer))
    ((head, rows),) = tables(markup)
    assert head == ["id", "token", "its text becomes", "ids"]
    assert rows == [[256, "<b>x", "< + b + > + x", "60 98 62 120"]]  # the split pattern cuts "<b" and ">x"
    assert "&lt;b&gt;x" in markup and "<b>x" not in markup
    markup = residues_html(tokenizer, [Residue(257, 1, 3, 258)])
    ((head, rows),) = tables(markup)
    assert rows == [[257, "ou", 1, 3, "25.0%", "ould"]]
