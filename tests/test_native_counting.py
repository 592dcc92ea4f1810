"""Counting in C (engine/native/count.c over split.c) gives exactly the
counts of counting with the `regex` module: the same pieces, counts and
first-appearance order (which decides ties in training), from strings and
from files read as bytes, in one thread or several, with special tokens,
for every preset; and a file that is not UTF-8 gets the same message.

Without the extension module built these tests skip, with the reason; CI
sets REQUIRE_NATIVE=1, where its absence fails instead.
"""

import io
import itertools
import json
import os
import random
import subprocess
import sys

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core.corpora import corpus_files
from bpe_core.corpora.corpus_files import CorpusFileError, count_files, stream_chunks, stream_utf8_chunks
from bpe_core.corpora.samples import catalog
from bpe_core.engine import corpus, native_training
from bpe_core.engine.corpus import LETTER_THEN_OTHER, count_pieces
from tests.conftest import ROOT
from tests.test_corpus import AWKWARD_TEXT, MIXED, PRESET_PATTERNS, SPECIALS, whole
from tests.texts import TRICKY_TEXTS

if not native_training.NATIVE:
    if os.environ.get("REQUIRE_NATIVE"):
        raise ImportError("bpe_core.engine._native_training is not built: pip install -r requirements.txt compiles it")
    pytest.skip("the C extension is not built (pip install -r requirements.txt builds it)", allow_module_level=True)

from bpe_core.engine import _native_training  # noqa: E402

# Letters of Unicode 17 (Sidetic, Tai Yo), a letter whose category changed
# after 16.0 (U+0295, Ll to Lo), and their neighbours: split.c's tables are
# Unicode 16.0's, and `regex` has newer ones.
NEWER_THAN_SPLIT_C = ["\U00010940\U00010941", "\U0001e6c0", "\u0295", "a\u0295b", "\U00010940\n\n"]


def natively(text, pattern, special_tokens=(), workers=1):
    assert native_training.can_count(pattern)
    return native_training.count_chunks([text], pattern, special_tokens, workers=workers)


@pytest.mark.parametrize("pattern", PRESET_PATTERNS)
def test_every_tricky_text_counts_as_regex_splits_it(pattern):
    for text in TRICKY_TEXTS + NEWER_THAN_SPLIT_C:
        assert list(natively(text, pattern).items()) == list(whole(text, pattern).items()), text


@pytest.mark.parametrize("pattern", PRESET_PATTERNS)
@pytest.mark.parametrize("sample", ["english_prose", "python_code", "japanese", "emoji_and_unicode"])
def test_the_bundled_corpora_count_the_same(sample, pattern):
    text = catalog()[sample].load()
    assert list(count_pieces(text, pattern).items()) == list(whole(text, pattern).items())


@settings(max_examples=300)
@given(text=AWKWARD_TEXT, pattern=st.sampled_from(PRESET_PATTERNS))
def test_any_text_counts_the_same(text, pattern):
    assert list(natively(text, pattern).items()) == list(whole(text, pattern).items())
    assert list(natively(text, pattern, SPECIALS).items()) == list(whole(text, pattern, SPECIALS).items())


def test_characters_newer_than_split_c_are_split_by_regex():
    text = "x \u0295\u0295abc  \U00010940\U00010940\n\n  y"
    for pattern in PRESET_PATTERNS:
        assert list(natively(text, pattern).items()) == list(whole(text, pattern).items())
    counts = _native_training.PieceCounts()
    assert not counts.count(text, _native_training.SPLIT_O200K) and len(counts) == 0  # refused, nothing counted


def test_split_c_classes_every_settled_character_as_regex_does():
    """The C tables and the installed `regex` agree on every character that
    counting trusts C with (what unsettled.h leaves out: everything
    assigned in Unicode 16.0 whose category no later version changed)."""
    classes = _native_training.character_classes()
    every = "".join(map(chr, itertools.chain(range(0xD800), range(0xE000, 0x110000))))  # all but surrogates
    questions = {1: r"\p{L}", 2: r"\p{N}", 4: r"\s", 8: r"\p{M}", 16: r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]",
                 32: r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]"}
    unsettled = {code_point for code_point, bits in enumerate(classes) if bits & 128}
    for bit, question in questions.items():
        said_by_regex = {ord(char) for run in regex.findall(f"{question}+", every) for char in run}
        said_by_c = {code_point for code_point, bits in enumerate(classes) if bits & bit}
        assert not (said_by_regex ^ said_by_c) - unsettled, f"classes differ from regex's for {question}"


@pytest.mark.parametrize("workers", [1, 2])
def test_chunks_counted_by_threads_add_up_in_text_order(monkeypatch, workers):
    text = (MIXED + "".join(NEWER_THAN_SPLIT_C)) * 5
    chunks = list(corpus.text_chunks(text, "cl100k", SPECIALS, size=300))
    assert len(chunks) > 20
    counted = native_training.count_chunks(iter(chunks), "cl100k", SPECIALS, workers=workers)
    assert list(counted.items()) == list(whole(text, "cl100k", SPECIALS).items())


@settings(max_examples=200)
@given(text=AWKWARD_TEXT.map(lambda text: text.replace("<|x|>", "\u0295")), pattern=st.sampled_from(PRESET_PATTERNS),
       block=st.integers(1, 40))
def test_a_stream_read_as_bytes_counts_as_read_as_text(text, pattern, block):
    chunks = list(stream_utf8_chunks(io.BytesIO(text.encode()), "text", block_bytes=block))
    assert b"".join(chunks) == text.encode()
    for cut in itertools.accumulate(len(chunk.decode()) for chunk in chunks[:-1]):
        assert regex.compile(LETTER_THEN_OTHER).match(text, cut)  # where every split has a boundary
    counted = native_training.count_chunks(chunks, pattern)
    assert list(counted.items()) == list(whole(text, pattern).items())


def test_files_are_read_as_bytes_and_count_as_the_text(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus_files, "READ_BYTES", 1_000)
    text = catalog()["japanese"].load() + "".join(NEWER_THAN_SPLIT_C) + catalog()["python_code"].load()
    (tmp_path / "corpus.txt").write_text(text, encoding="utf-8")
    read = []
    count_chunks = native_training.count_chunks

    def noting_what_is_read(chunks, *args, **kwargs):
        chunks = list(chunks)
        read.extend(chunks)
        return count_chunks(chunks, *args, **kwargs)

    monkeypatch.setattr(native_training, "count_chunks", noting_what_is_read)
    counts = count_files([tmp_path / "corpus.txt"], "o200k", workers=2)
    assert len(read) > 10 and all(isinstance(chunk, bytes) for chunk in read)
    assert list(counts.items()) == list(whole(text, "o200k").items())


@given(st.binary(max_size=60), st.integers(1, 9))
def test_bytes_that_are_not_utf8_get_the_message_of_reading_as_text(data, block):
    data = b"ok word " + data + " and more".encode()

    def outcome(reader):
        try:
            return "".join(chunk if isinstance(chunk, str) else chunk.decode() for chunk in reader)
        except CorpusFileError as error:
            return str(error)

    as_text = outcome(stream_chunks(io.BytesIO(data), "f.txt", "cl100k", block_bytes=block))
    assert outcome(stream_utf8_chunks(io.BytesIO(data), "f.txt", block_bytes=block)) == as_text



# A file's first character U+FEFF is a byte order mark, not text; anywhere else it is text (a zero-width
# no-break space). Read in blocks as small as one byte, so that the mark is cut between reads.
MARKED = "\ufeffhello\ufeff world\n"
UNMARKED = "hello\ufeff world\n"


@pytest.mark.parametrize("block", [1, 2, 3, 4, 1_000])
def test_a_byte_order_mark_at_a_files_start_is_left_out_by_both_readers(block):
    as_bytes = b"".join(stream_utf8_chunks(io.BytesIO(MARKED.encode()), "f.txt", block_bytes=block))
    as_text = "".join(stream_chunks(io.BytesIO(MARKED.encode()), "f.txt", "cl100k", block_bytes=block))
    assert as_bytes.decode() == as_text == UNMARKED
    # A Dask block that starts in the middle of a file (first_byte) starts with text, whatever it is.
    assert "".join(stream_chunks(io.BytesIO(MARKED.encode()), "f.txt", "cl100k", block_bytes=block, first_byte=9)) == MARKED
    for data, text in ((b"\xef\xbb\xbf", ""), (b"\xef\xbb\xbf\xef\xbb\xbf", "\ufeff")):  # one mark is left out, once
        assert "".join(stream_chunks(io.BytesIO(data), "f.txt", "cl100k", block_bytes=block)) == text
        assert b"".join(stream_utf8_chunks(io.BytesIO(data), "f.txt", block_bytes=block)).decode() == text
    for reader in (stream_chunks(io.BytesIO(b"\xef\xbb"), "f.txt", "cl100k", block_bytes=block),  # half a mark
                   stream_utf8_chunks(io.BytesIO(b"\xef\xbb"), "f.txt", block_bytes=block)):
        with pytest.raises(CorpusFileError, match=r"f\.txt is not UTF-8 text \(byte 0xef at offset 0\)"):
            list(reader)
    bad = b"\xef\xbb\xbfok \xff"  # offsets stay the file's, mark included
    for reader in (stream_chunks(io.BytesIO(bad), "f.txt", "cl100k", block_bytes=block),
                   stream_utf8_chunks(io.BytesIO(bad), "f.txt", block_bytes=block)):
        with pytest.raises(CorpusFileError, match=r"\(byte 0xff at offset 6\)"):
            list(reader)


@pytest.mark.parametrize("special_tokens", [(), ("<|x|>",)], ids=["read as bytes, counted in C", "read as text"])
def test_files_that_start_with_a_byte_order_mark_count_as_their_text(tmp_path, special_tokens):
    """Each file of a corpus: both files' marks are left out, on either reader."""
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_bytes(MARKED.encode())
    assert corpus_files.readable_chunks(io.BytesIO(), "", "cl100k", special_tokens).__name__ == \
        ("stream_chunks" if special_tokens else "stream_utf8_chunks")
    counts = count_files([tmp_path / "a.txt", tmp_path / "b.txt"], "cl100k", special_tokens, workers=1)
    assert list(counts.items()) == list(corpus.merged_counts([whole(UNMARKED, "cl100k"), whole(UNMARKED, "cl100k")]).items())
    assert counts["hello"] == 2 and "\ufeffhello" not in counts


def siphash(c_rounds: int, d_rounds: int, key: bytes, message: bytes) -> int:
    """SipHash-c-d as its paper gives it (Aumasson and Bernstein, 2012), the oracle for count.c's."""
    mask = (1 << 64) - 1

    def rotate(x, bits):
        return (x << bits | x >> (64 - bits)) & mask

    def rounds(v, times):
        for _ in range(times):
            v[0] = (v[0] + v[1]) & mask; v[1] = rotate(v[1], 13) ^ v[0]; v[0] = rotate(v[0], 32)  # noqa: E702
            v[2] = (v[2] + v[3]) & mask; v[3] = rotate(v[3], 16) ^ v[2]  # noqa: E702
            v[0] = (v[0] + v[3]) & mask; v[3] = rotate(v[3], 21) ^ v[0]  # noqa: E702
            v[2] = (v[2] + v[1]) & mask; v[1] = rotate(v[1], 17) ^ v[2]; v[2] = rotate(v[2], 32)  # noqa: E702

    k0, k1 = int.from_bytes(key[:8], "little"), int.from_bytes(key[8:], "little")
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D, k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573]
    padded = message + bytes(7 - len(message) % 8) + bytes([len(message) % 256])
    for start in range(0, len(padded), 8):
        word = int.from_bytes(padded[start:start + 8], "little")
        v[3] ^= word
        rounds(v, c_rounds)
        v[0] ^= word
    v[2] ^= 0xFF
    rounds(v, d_rounds)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def test_the_siphash_oracle_gives_the_papers_test_vector():
    assert siphash(2, 4, bytes(range(16)), bytes(range(15))) == 0xA129CA6149BE45E5


# In a process of its own: the key is set before the first table, then the command line trains.
TRAIN_WITH_KEY = """
import json, sys
from bpe_core.engine import native_training, _native_training
key = json.loads(sys.argv[1])
if key is not None:
    _native_training.seed_hash(*key)
from bpe_core.cli.main import main
assert main(["train", sys.argv[2], "--vocab-size", "800", "-o", sys.argv[3]]) in (0, None)
print(json.dumps([_native_training.piece_hash(piece.encode()) for piece in json.loads(sys.argv[4])]))
"""
PIECES = ["", "hello", " world", "\u6f22\u5b57\u304b\u306a", "a" * 8, "b" * 20]


def test_the_tables_hash_is_keyed_per_process_and_the_merges_never_depend_on_it(tmp_path):
    """Where pieces land in count.c's table depends on the key; which merges
    training learns (ties included: first appearances decide them) does not."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(catalog()["english_prose"].load()[:50_000] + catalog()["japanese"].load())

    keys = [[0x0706050403020100, 0x0F0E0D0C0B0A0908], None, None]  # the paper's key, then two drawn
    processes = [subprocess.Popen([sys.executable, "-c", TRAIN_WITH_KEY, json.dumps(key), str(corpus),
                                   str(tmp_path / f"{index}.json"), json.dumps(PIECES)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env={**os.environ, "PYTHONPATH": str(ROOT)}) for index, key in enumerate(keys)]
    hashes, merges = [], []
    for index, process in enumerate(processes):
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err[-2000:]
        hashes.append(json.loads(out))
        merges.append(json.loads((tmp_path / f"{index}.json").read_text())["merges"])
    key = bytes(range(16))
    assert hashes[0] == [siphash(1, 3, key, piece.encode()) for piece in PIECES]  # SipHash-1-3
    assert len({tuple(run) for run in hashes}) == 3  # each key places the pieces elsewhere
    assert len(merges[0]) == 800 - 256 and all(run == merges[0] for run in merges)

def test_utf8_error_is_where_pythons_decoder_stops():
    rng = random.Random(8)
    pieces = [b"a", b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"\xef\xbb\xbf",  # valid
              b"\xed\xa0\x80", b"\xc0\xaf", b"\xe0\x80", b"\xf4\x90\x80\x80", b"\xff", b"\x80", b"\xf5\x80",  # never
              b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98"]  # cut short
    for _ in range(20_000):
        data = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        try:
            data.decode("utf-8")
            expected = -1
        except UnicodeDecodeError as error:
            expected = error.start
        assert native_training.utf8_error(data) == expected, data


def test_a_table_made_without_its_init_refuses_to_count_instead_of_crashing():
    """PieceCounts.__new__ alone makes a table without slots: every method
    says so (before, counting into it wrote through a null pointer and the
    process died)."""
    table_type = _native_training.PieceCounts
    table = table_type.__new__(table_type)
    for use in (lambda: table.count("abc", 0), lambda: table.add_pieces(["a"]), table.to_dict,
                lambda: table_type().add(table)):
        with pytest.raises(RuntimeError, match="not initialised"):
            use()
