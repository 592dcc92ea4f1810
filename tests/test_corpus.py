"""Counting a corpus in chunks, in parallel and from files gives exactly the
counts of counting it whole: the same pieces, counts and first-appearance
order (which decides ties in training), so the same merges."""

import io
import json
import sys
import unicodedata
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_core import train
from bpe_core.cli import main
from bpe_core.corpora import corpus_files
from bpe_core.corpora.corpus_files import CorpusFileError, corpus_paths, count_files, read_counts, stream_chunks
from bpe_core.corpora.samples import catalog
from bpe_core.engine import corpus, native_training
from bpe_core.engine.corpus import count_pieces, cut_points, text_chunks
from bpe_core.engine.patterns import split_pieces
from bpe_core.engine.specials import split_on_specials
from bpe_core.sandbox import worker_processes
from tests.cli import run_cli
from tests.texts import TRICKY_TEXTS

PRESET_PATTERNS = ["gpt2", "cl100k", "o200k"]
MIXED = "\n".join(TRICKY_TEXTS + [catalog()["japanese"].load()[:3_000], catalog()["python_code"].load()[:3_000]])


def whole(text: str, pattern: str, special_tokens=()) -> dict[str, int]:
    """The counts of splitting the text in one go, as training once did."""
    pieces = Counter()
    for segment, is_special in split_on_specials(text, special_tokens):
        if not is_special:
            pieces.update(split_pieces(segment, pattern))
    return dict(pieces)


@pytest.mark.parametrize("pattern", PRESET_PATTERNS)
def test_chunks_cut_where_every_split_has_a_boundary(pattern):
    chunks = list(text_chunks(MIXED, pattern, size=200))
    assert len(chunks) > 10 and "".join(chunks) == MIXED
    counted = corpus.merged_counts(whole(chunk, pattern) for chunk in chunks)
    assert list(counted.items()) == list(whole(MIXED, pattern).items())


AWKWARD_TEXT = st.lists(
    st.sampled_from(list("ab \n\r\t\u00a0'’.,!/1234ZéあS字。") + ["\r\n", "<|x|>", "<|x|>y", "\u0301", "\u0e31", "'s", "'LL", "👍"]),
    max_size=300,
).map("".join)
SPECIALS = ("<|x|>", "x|>y")  # they overlap, and hold places where ordinary text may be cut


@given(text=AWKWARD_TEXT, pattern=st.sampled_from(PRESET_PATTERNS), size=st.integers(1, 40))
def test_any_text_counts_the_same_in_chunks(text, pattern, size):
    counted = corpus.merged_counts(whole(chunk, pattern, SPECIALS) for chunk in text_chunks(text, pattern, SPECIALS, size))
    assert list(counted.items()) == list(whole(text, pattern, SPECIALS).items())


@given(text=AWKWARD_TEXT, pattern=st.sampled_from(PRESET_PATTERNS), block=st.integers(1, 40))
def test_any_text_read_in_blocks_counts_the_same(text, pattern, block):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(corpus_files, "READ_BYTES", block)
        chunks = list(stream_chunks(io.BytesIO(text.encode()), "text", pattern, SPECIALS))
    assert "".join(chunks) == text
    counted = corpus.merged_counts(whole(chunk, pattern, SPECIALS) for chunk in chunks)
    assert list(counted.items()) == list(whole(text, pattern, SPECIALS).items())


def test_patterns_that_promise_no_boundary_are_not_cut():
    assert cut_points(MIXED, "none", size=10) == []
    assert cut_points(MIXED, r"\w+|\s+|[^\w\s]+", size=10) == []


def test_no_cut_falls_inside_a_special_token():
    special = "<|end of text|>"  # holds two places where ordinary text may be cut
    text = (special + "ab") * 50
    cuts = cut_points(text, "cl100k", (special,), size=1)
    inside = {start + offset for start in range(0, len(text), len(special) + 2) for offset in range(1, len(special))}
    assert cuts and not inside & set(cuts)
    assert cut_points(text, "cl100k", size=1) and inside & set(cut_points(text, "cl100k", size=1))


def test_japanese_without_spaces_is_cut_at_its_punctuation():
    """Japanese writes no spaces between words: its text is still cut, at a
    letter followed by punctuation ("。", "、"), never between two letters
    (inside a word), each cut the first such place `size` characters or more
    after the one before, and the chunks count as the whole text does."""
    text = "".join(catalog()["japanese"].load()[:5_000].split())  # every space and line break taken out
    size = 500

    def letter_then_punctuation(at: int) -> bool:  # from Unicode's categories, not the engine's regex
        return unicodedata.category(text[at - 1])[0] == "L" and unicodedata.category(text[at])[0] == "P"

    cuts = cut_points(text, "cl100k", size=size)
    assert len(cuts) >= len(text) // size - 1
    assert all(letter_then_punctuation(cut) for cut in cuts)
    for before, cut in zip([0, *cuts], cuts):
        assert cut >= before + size
        assert not any(letter_then_punctuation(at) for at in range(before + size, cut)), (before, cut)
    assert not any(letter_then_punctuation(at) for at in range(cuts[-1] + size, len(text)))  # none left out at the end
    chunks = list(text_chunks(text, "cl100k", size=size))
    assert "".join(chunks) == text  # every character kept
    assert list(corpus.merged_counts(whole(chunk, "cl100k") for chunk in chunks).items()) == \
        list(whole(text, "cl100k").items())


@pytest.mark.parametrize("forked", [True, False], ids=["forked from a single thread", "from the fork server"])
def test_counting_in_worker_processes_gives_the_same_counts(monkeypatch, forked):
    monkeypatch.setattr(corpus, "SPLIT_CHARS", 100)
    monkeypatch.setattr(corpus, "MAX_CHUNK_CHARS", 500)
    monkeypatch.setattr(worker_processes, "_single_threaded", lambda: forked)
    monkeypatch.setattr(native_training, "_native_training", None)  # Python counts, in helper processes
    text = MIXED * 3
    parallel = count_pieces(text, "cl100k", ("<|endoftext|>",), workers=2)
    assert list(parallel.items()) == list(whole(text, "cl100k", ("<|endoftext|>",)).items())


def test_a_stream_read_in_small_blocks_counts_the_same(monkeypatch):
    monkeypatch.setattr(corpus_files, "READ_BYTES", 37)  # blocks end inside characters, mostly
    data = MIXED.encode("utf-8")
    chunks = list(stream_chunks(io.BytesIO(data), "mixed", "o200k"))
    assert len(chunks) > 10 and "".join(chunks) == MIXED
    counted = corpus.merged_counts(whole(chunk, "o200k") for chunk in chunks)
    assert list(counted.items()) == list(whole(MIXED, "o200k").items())


def test_a_long_stretch_without_a_place_to_cut_is_read_in_ever_larger_blocks():
    class CountedReads(io.BytesIO):
        reads = 0

        def read(self, size=-1):
            self.reads += 1
            return super().read(size)

    stream = CountedReads(b"7" * 100_000 + b" word, " * 10)  # digits: no place to cut before the words
    chunks = list(stream_chunks(stream, "digits", "cl100k", block_bytes=10))
    assert chunks[0].startswith("7" * 100_000) and "".join(chunks) == stream.getvalue().decode()
    assert stream.reads < 20  # blocks of 10, 20, 40, ... bytes: each byte is looked at a few times, not 10,000


def test_invalid_utf8_names_the_file_and_the_byte(monkeypatch):
    monkeypatch.setattr(corpus_files, "READ_BYTES", 5)
    data = "héllo wörld\nAnd".encode() + b"\xfe" + b" more"
    with pytest.raises(CorpusFileError, match=r"f\.txt is not UTF-8 text \(byte 0xfe at offset 17\)"):
        list(stream_chunks(io.BytesIO(data), "f.txt", "cl100k"))


@pytest.fixture
def corpus_tree(tmp_path):
    (tmp_path / "books" / "more").mkdir(parents=True)
    (tmp_path / "books" / ".hidden").write_text("never read")
    texts = {"books/a.txt": TRICKY_TEXTS[2], "books/more/b.txt": TRICKY_TEXTS[14], "c.txt": TRICKY_TEXTS[22]}
    for name, text in texts.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path, texts


def test_folders_globs_and_files_are_read_in_order(corpus_tree):
    root, texts = corpus_tree
    paths = corpus_paths([str(root / "books"), str(root / "*.txt")])
    assert [path.relative_to(root).as_posix() for path in paths] == ["books/a.txt", "books/more/b.txt", "c.txt"]
    counted = count_files(paths, "cl100k")
    expected = corpus.merged_counts(whole(texts[name], "cl100k") for name in ["books/a.txt", "books/more/b.txt", "c.txt"])
    assert list(counted.items()) == list(expected.items())
    with pytest.raises(CorpusFileError, match="matches no file"):
        corpus_paths([str(root / "*.md")])


def test_saved_counts_merge_and_train_like_the_text_they_came_from(corpus_tree):
    root, texts = corpus_tree
    code, _, err = run_cli("train", root / "books", "--merges", 30, "-o", root / "t1.json", "--save-counts", root / "books.json")
    assert code == 0, err
    assert list(read_counts(root / "books.json").items()) == list(count_files(corpus_paths([str(root / "books")]), "cl100k").items())
    code, _, err = run_cli("train", root / "books.json", root / "c.txt", "--merges", 30, "-o", root / "t2.json")
    assert code == 0, err
    merged = train(count_files(corpus_paths([str(root / "books"), str(root / "c.txt")]), "cl100k"), num_merges=30)
    assert json.loads((root / "t2.json").read_text())["merges"] == [list(pair) for pair, _ in merged.merges]


def test_a_damaged_counts_file_is_one_clear_line(tmp_path):
    (tmp_path / "counts.json").write_text('{"low": "five"}')
    code, _, err = run_cli("train", tmp_path / "counts.json", "--merges", 3, "-o", tmp_path / "t.json")
    assert code == 1 and err.startswith("error: ") and "count of 'low' must be a positive integer" in err


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_training_from_files_draws_progress_bars_on_a_terminal(corpus_tree):
    root, _ = corpus_tree
    err = Terminal()
    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        assert main(["train", str(root / "books"), str(root / "c.txt"), "--merges", "20", "-o", str(root / "t.json")]) == 0
    size = sum(path.stat().st_size for path in corpus_paths([str(root / "books"), str(root / "c.txt")])) / 1e6
    drawn = err.getvalue()
    assert f"counting [{'#' * 30}] {size:,.1f} / {size:,.1f} MB" in drawn
    assert f"training [{'#' * 30}] 20.0 / 20.0 merges" in drawn


def test_training_from_standard_input_shows_the_megabytes_read(monkeypatch):
    err = Terminal()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(MIXED.encode())))
    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        assert main(["train", "-", "--merges", "5", "-o", "/dev/null"]) == 0
    assert f"counting {len(MIXED.encode()) / 1e6:,.1f} MB" in err.getvalue()
