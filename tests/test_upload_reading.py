"""An uploaded tokenizer file is unpacked and parsed in a capped process,
never in the server: a 48 KB gzip of nested JSON held every session for
seconds and grew the server by a gigabyte (see `jobs.budgeted_reading`)."""

import gzip
import io
import json
import time
import zipfile

import pytest

from bpe_core import train
from bpe_core.formats import TokenizerFileError, hf_folder, reading, tokenizer_from_file, tokenizer_to_json
from bpe_core.formats.reading import MAX_UNPACKED_BYTES
from bpe_core.jobs import budgeted_reading
from bpe_core.jobs.budgeted_jobs import Budget
from bpe_core.jobs.budgeted_reading import folder_from_upload, tokenizer_from_upload


@pytest.fixture
def nothing_parsed_here(monkeypatch):
    """This process (the server) may not unpack or parse an upload; the
    worker, a fresh process of the fork server, is not touched by this."""

    def refuse(*args, **kwargs):
        raise AssertionError("an upload was parsed in the server's process")

    monkeypatch.setattr(reading, "strict_json", refuse)
    monkeypatch.setattr(reading.zlib, "decompressobj", refuse)
    monkeypatch.setattr(hf_folder.zipfile, "ZipFile", refuse)


def json_bomb() -> bytes:
    """A 50 MB JSON document of empty lists, gzipped to a few hundred KB."""
    lists = (MAX_UNPACKED_BYTES - len(b'{"a":[]}')) // 3
    return gzip.compress(b'{"a":[' + b"[]," * (lists - 1) + b"[]]}", 1)


def test_a_json_bomb_is_one_line_and_costs_the_server_nothing(nothing_parsed_here):
    bomb = json_bomb()
    assert len(bomb) < 500_000
    started = time.process_time()
    with pytest.raises(TokenizerFileError, match="opens 16,666,666 lists and objects") as refused:
        tokenizer_from_upload("bomb.json.gz", bomb)
    assert "\n" not in str(refused.value)
    assert time.process_time() - started < 1.0  # the server's own processor time: the unpacking was elsewhere


def test_a_file_over_its_caps_is_one_line(nothing_parsed_here, monkeypatch):
    """What the checks cannot foresee, the worker's memory cap stops."""
    monkeypatch.setattr(budgeted_reading, "READING_BUDGET", Budget(seconds=60, memory_bytes=20_000_000))
    huge = b'{"model": {"vocab": {' + b",".join(b'"%d": %d' % (n, n) for n in range(300_000)) + b"}}}"
    with pytest.raises(TokenizerFileError, match=r"Reading this file needs more than the 0\.0 GB") as refused:
        tokenizer_from_upload("huge.json", gzip.compress(huge))
    assert "\n" not in str(refused.value)


def test_a_good_upload_read_in_its_worker_is_the_tokenizer_read_here(nothing_parsed_here, monkeypatch):
    saved = tokenizer_to_json(train("low lower lowest " * 20, num_merges=12, pattern=r"\w+|\s", special_tokens=["<s>"]))
    uploaded = tokenizer_from_upload("mine.json.gz", gzip.compress(saved.encode()))
    monkeypatch.undo()
    assert uploaded.fingerprint == tokenizer_from_file("mine.json", saved.encode()).fingerprint
    assert uploaded.encode("lowest <s>", allowed_special="all")[-1] == uploaded.special_tokens["<s>"]


@pytest.mark.parametrize("data, message", [
    (b"[1]", "not an object"),
    (gzip.compress(b"x" * (MAX_UNPACKED_BYTES + 1), 1), "unpacks to more than 50 MB"),
    (b'{"a": ' * 100_000, "nested too deeply"),
], ids=["a JSON list", "a gzip of over 50 MB", "nesting"])
def test_a_bad_upload_is_one_line_from_its_worker(data, message, nothing_parsed_here):
    with pytest.raises(TokenizerFileError, match=message) as refused:
        tokenizer_from_upload("bad.json", data)
    assert "\n" not in str(refused.value)


@pytest.fixture
def zipped_folder() -> bytes:
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as folder:
        folder.writestr("model/tokenizer.json", '{"version": "1.0"}')
        folder.writestr("model/tokenizer_config.json", json.dumps({"chat_template": "{{ messages }}"}))
    return archive.getvalue()


def test_a_zipped_folder_is_unpacked_in_its_worker(zipped_folder, nothing_parsed_here):
    read = folder_from_upload("model.zip", zipped_folder)
    assert read.tokenizer_json == '{"version": "1.0"}' and read.chat_template == "{{ messages }}"
    with pytest.raises(TokenizerFileError, match="zip"):
        folder_from_upload("broken.zip", b"PK\x03\x04 not really")
