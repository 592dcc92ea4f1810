"""Counting a corpus in chunks, in parallel and from files gives exactly the
counts of counting it whole: the same pieces, counts and first-appearance
order (which decides ties in training), so the same merges."""

import io
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_core import corpus, corpus_files, train
from bpe_core.corpus import count_chunk, count_pieces, cut_points, text_chunks
from bpe_core.corpus_files import CorpusFileError, corpus_paths, count_files, read_counts, stream_chunks
from bpe_core.samples import catalog
from tests.cli import run_cli
from tests.texts import TRICKY_TEXTS

PRESET_PATTERNS = ["gpt2", "cl100k", "o200k"]
MIXED = "\n".join(TRICKY_TEXTS + [catalog()["japanese"].load()[:3_000], catalog()["python_code"].load()[:3_000]])


def whole(text: str, pattern: str, special_tokens=()) -> dict[str, int]:
    return count_chunk(text, pattern, special_tokens)


@pytest.mark.parametrize("pattern", PRESET_PATTERNS)
def test_chunks_cut_where_every_split_has_a_boundary(pattern):
    chunks = list(text_chunks(MIXED, pattern, size=200))
    assert len(chunks) > 10 and "".join(chunks) == MIXED
    counted = corpus.merged_counts(count_chunk(chunk, pattern) for chunk in chunks)
    assert list(counted.items()) == list(whole(MIXED, pattern).items())


@given(text=st.lists(st.sampled_from(list("ab \n\r\t\u00a0'’.,!1234ZéあS") + ["\r\n", "<|x|>", "\u0301", "'s", "'LL", "👍"]),
                    max_size=300).map("".join),
       pattern=st.sampled_from(PRESET_PATTERNS), size=st.integers(1, 40))
def test_any_text_counts_the_same_in_chunks(text, pattern, size):
    specials = ("<|x|>",)
    counted = corpus.merged_counts(count_chunk(chunk, pattern, specials) for chunk in text_chunks(text, pattern, specials, size))
    assert list(counted.items()) == list(whole(text, pattern, specials).items())


def test_patterns_that_promise_no_boundary_are_not_cut():
    assert cut_points(MIXED, "none", size=10) == []
    assert cut_points(MIXED, r"\w+|\s+|[^\w\s]+", size=10) == []
    assert cut_points(MIXED, "cl100k", ("<|end of text|>",), size=10) == []  # a cut could fall inside this special


def test_counting_in_worker_processes_gives_the_same_counts(monkeypatch):
    monkeypatch.setattr(corpus, "CHUNK_CHARS", 500)
    text = MIXED * 3
    parallel = count_pieces(text, "cl100k", ("<|endoftext|>",), workers=2)
    assert list(parallel.items()) == list(whole(text, "cl100k", ("<|endoftext|>",)).items())


def test_a_stream_read_in_small_blocks_counts_the_same(monkeypatch):
    monkeypatch.setattr(corpus_files, "READ_BYTES", 37)  # blocks end inside characters, mostly
    data = MIXED.encode("utf-8")
    chunks = list(stream_chunks(io.BytesIO(data), "mixed", "o200k"))
    assert len(chunks) > 10 and "".join(chunks) == MIXED
    counted = corpus.merged_counts(count_chunk(chunk, "o200k") for chunk in chunks)
    assert list(counted.items()) == list(whole(MIXED, "o200k").items())


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
