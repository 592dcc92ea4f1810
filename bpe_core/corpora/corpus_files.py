"""Corpora in files: files, folders and glob patterns, read block by block.

A real tokenizer's corpus is larger than memory. Training needs only the
piece counts (see `corpus`), and the counts of consecutive chunks of a text
add up to the counts of the whole, so a file is read in blocks; each block
is cut at the last place where the split has a boundary anyway, counted,
and the rest carried into the next block. Each file is a text of its own:
no piece runs from one file into the next. Where the pieces are counted in
C (`native_training`), blocks stay bytes: checked, cut and counted as
UTF-8, never made Python strings (which take up to four bytes a character).
A byte order mark at a file's start (Windows Notepad writes one) says that
the file is UTF-8: it is not text, so both readers leave it out, and the
corpus's first piece does not begin with it.

Counts also come ready-made, as JSON `{"piece": count, ...}`: written by
`--save-counts`, or by any engine that splits text with the same pattern
and counts the pieces at scale. They merge with everything else, in the
order given (first appearances decide ties in training).
"""

from __future__ import annotations

import codecs
import glob
import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from ..engine import native_training
from ..engine.corpus import (
    MAX_CHUNK_CHARS,
    add_counts,
    can_cut,
    checked_counts,
    chunk_size,
    count_chunks,
    last_cut,
    worker_count,
)
from ..formats.reading import strict_json

READ_BYTES = MAX_CHUNK_CHARS  # a block of a file read at once (at most), and counted as one chunk
COUNTS_SUFFIX = ".json"  # a file of ready-made counts (or word counts), not text
BOM = "\ufeff"  # as a file's first character, a byte order mark: left out (anywhere else it is text)
BOM_BYTES = BOM.encode()

Progress = Callable[[int], None]  # hears how many more bytes were read


class CorpusFileError(ValueError):
    """A corpus file that cannot be read, or is not UTF-8 text or counts."""


def corpus_paths(specs: Iterable[str]) -> list[Path]:
    """The files that `specs` name: files, every file under a folder (sorted,
    hidden ones left out), and glob patterns ("data/**/*.txt")."""
    paths: list[Path] = []
    for spec in specs:
        if any(char in spec for char in "*?["):
            matches = sorted(Path(name) for name in glob.glob(spec, recursive=True) if Path(name).is_file())
            if not matches:
                raise CorpusFileError(f"{spec} matches no file")
            paths.extend(matches)
        elif Path(spec).is_dir():
            found = sorted(
                path for path in Path(spec).rglob("*")
                if path.is_file() and not any(part.startswith(".") for part in path.relative_to(spec).parts)
            )
            if not found:
                raise CorpusFileError(f"{spec} holds no file")
            paths.extend(found)
        elif Path(spec).is_file():
            paths.append(Path(spec))
        else:
            raise CorpusFileError(f"cannot read {spec}: no such file or folder")
    return paths


def count_files(
    paths: Iterable[Path],
    pattern: str,
    special_tokens: tuple[str, ...] = (),
    *,
    workers: int | None = None,
    progress: Progress | None = None,
) -> dict[str, int]:
    """The piece counts of text files and ready-made counts (`*.json`),
    merged in order; text is read block by block and counted by `workers`
    processes (by default one per core, for a large corpus)."""
    paths = list(paths)
    text_bytes = sum(path.stat().st_size for path in paths if path.suffix != COUNTS_SUFFIX)
    if workers is None:
        workers = worker_count(text_bytes)
    block_bytes = min(READ_BYTES, chunk_size(text_bytes, workers))
    total: dict[str, int] | None = None
    texts: list[Path] = []

    def add(counts: dict[str, int]) -> None:
        nonlocal total
        if total is None:
            total = counts  # the first counts are the total so far: no copy of millions of pieces
        else:
            add_counts(total, counts)

    def flush_texts() -> None:
        if texts:
            chunks = (chunk for path in texts for chunk in file_chunks(path, pattern, special_tokens, progress, block_bytes))
            add(count_chunks(chunks, pattern, special_tokens, workers=workers))
            texts.clear()

    for path in paths:
        if path.suffix == COUNTS_SUFFIX:
            flush_texts()
            add(read_counts(path))
            if progress is not None:
                progress(path.stat().st_size)
        else:
            texts.append(path)
    flush_texts()
    return {} if total is None else total


def file_chunks(
    path: Path, pattern: str, special_tokens: tuple[str, ...] = (), progress: Progress | None = None, block_bytes: int | None = None
) -> Iterator[str]:
    """A text file in chunks that end where the split has a boundary; a
    pattern that promises no such place gets the whole file at once."""
    try:
        with open(path, "rb") as stream:
            yield from readable_chunks(stream, str(path), pattern, special_tokens, progress, block_bytes)
    except OSError as error:
        raise CorpusFileError(f"cannot read {path}: {error.strerror or error}") from None


def readable_chunks(
    stream: BinaryIO,
    name: str,
    pattern: str,
    special_tokens: tuple[str, ...] = (),
    progress: Progress | None = None,
    block_bytes: int | None = None,
) -> Iterator[str | bytes]:
    """A byte stream's text in chunks for `count_chunks`: as UTF-8 bytes
    where C counts the pieces (a preset pattern, no special tokens to cut
    at), else as strings (`stream_chunks`)."""
    if native_training.can_count(pattern) and not special_tokens:
        return stream_utf8_chunks(stream, name, progress, block_bytes)
    return stream_chunks(stream, name, pattern, special_tokens, progress, block_bytes)


def stream_chunks(
    stream: BinaryIO,
    name: str,
    pattern: str,
    special_tokens: tuple[str, ...] = (),
    progress: Progress | None = None,
    block_bytes: int | None = None,
    first_byte: int = 0,
) -> Iterator[str]:
    """The UTF-8 text of a byte stream in chunks of about `block_bytes` (see
    `file_chunks`). A block with no place to cut is kept, and the next block
    read is twice as large, so that a long stretch without one (a megabyte
    of digits) costs time in proportion to its length. `first_byte`: where
    the stream starts in its file, if not at the start (for messages)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    cuttable = can_cut(pattern)
    block_bytes = block_bytes or READ_BYTES
    wanted = block_bytes
    carried, offset = "", first_byte  # offset: bytes of the file before this block
    at_start = first_byte == 0  # no character read yet from the file's start (see BOM)
    while True:
        block = stream.read(wanted if cuttable else -1)  # -1: all of it
        pending = decoder.getstate()[0]  # the start of a character cut by the last block
        try:
            text = carried + decoder.decode(block, final=not block)
        except UnicodeDecodeError as error:
            position = offset - len(pending) + error.start
            raise CorpusFileError(
                f"{name} is not UTF-8 text (byte 0x{error.object[error.start]:02x} at offset {position:,})"
            ) from None
        offset += len(block)
        if progress is not None and block:
            progress(len(block))
        if at_start and text:  # the file's first character
            text, at_start = text.removeprefix(BOM), False
        if not block:
            if text:
                yield text
            return
        cut = last_cut(text, special_tokens) if cuttable else 0
        if cut == 0:
            carried, wanted = text, 2 * wanted
            continue
        yield text[:cut]
        carried, wanted = text[cut:], block_bytes


def stream_utf8_chunks(
    stream: BinaryIO, name: str, progress: Progress | None = None, block_bytes: int | None = None
) -> Iterator[bytes]:
    """`stream_chunks` for a preset pattern, in UTF-8 bytes: the same
    chunks, checked as UTF-8 (the same message for a byte that is not) but
    never decoded, for counting in C (see `native_training`)."""
    block_bytes = block_bytes or READ_BYTES
    wanted = block_bytes
    carried, offset = b"", 0  # offset: where `carried` starts in the stream
    at_start = True  # `carried` starts the stream, and may be the start of a byte order mark (see BOM)
    while True:
        block = stream.read(wanted)
        if progress is not None and block:
            progress(len(block))
        data = carried + block
        if at_start:
            if block and len(data) < len(BOM_BYTES) and BOM_BYTES.startswith(data):
                carried = data  # too short to tell yet
                continue
            if data.startswith(BOM_BYTES):
                data, offset = data[len(BOM_BYTES):], len(BOM_BYTES)
            at_start = False
        error = native_training.utf8_error(data)
        if error >= 0 and (not block or error < len(data) - 3):  # not a character the block's end cut in two
            raise CorpusFileError(f"{name} is not UTF-8 text (byte 0x{data[error]:02x} at offset {offset + error:,})")
        if not block:
            if data:
                yield data
            return
        cut = native_training.last_cut(memoryview(data)[: len(data) if error < 0 else error])
        if cut == 0:
            carried, wanted = data, 2 * wanted
            continue
        yield data[:cut]
        carried, offset, wanted = data[cut:], offset + cut, block_bytes


def read_counts(path: Path) -> dict[str, int]:
    """Ready-made piece counts (or word counts) from a JSON object file."""
    try:
        return parse_counts(path.read_bytes(), str(path))
    except OSError as error:
        raise CorpusFileError(f"cannot read {path}: {error.strerror or error}") from None


def parse_counts(data: bytes, name: str) -> dict[str, int]:
    """Ready-made piece counts (or word counts) from the bytes of a JSON
    object file called `name`."""
    try:
        parsed = strict_json(data)
    except (ValueError, RecursionError) as error:  # not JSON, NaN or Infinity, a number of 5,000 digits
        raise CorpusFileError(f"{name} is not valid JSON ({error})") from None
    if not isinstance(parsed, dict):
        raise CorpusFileError(f'{name} must hold piece or word counts, e.g. {{"low": 5, "lower": 2}}')
    try:
        return checked_counts(parsed)
    except ValueError as error:
        raise CorpusFileError(f"{name}: {error}") from None


def write_counts(counts: dict[str, int], path: Path) -> None:
    """Piece counts as JSON, in order of first appearance, for `read_counts`."""
    path.write_text(json.dumps(counts, ensure_ascii=False), encoding="utf-8")
