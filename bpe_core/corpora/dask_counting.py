"""Counting a corpus on a Dask cluster: past one machine, the same counts.

Training needs only the piece counts of a corpus (see `corpus`), and the
counts of consecutive stretches of a text add up, in text order, to the
counts of the whole. So a cluster can count a corpus of any size: each
file is cut into blocks of about `BLOCK_BYTES`, a worker reads its block
where the data lives (any fsspec URL: s3://, gs://, hdfs://, file://, a
path on a shared file system) and counts it with this package's own code
(`corpus_files.stream_chunks`, `corpus.count_chunk`: the same `regex`
pattern and special-token rule as on one machine), and the workers add the
counts up, neighbour with neighbour, in text order, so that first
appearances, which decide ties in training, stay those of the whole
corpus. Only counts travel; the text never passes through the client.

Two neighbouring blocks must agree on where one ends and the next begins
without either reading the other's text. Both ask `safe_cut` for the
first place at or after their shared nominal boundary where cutting
changes no piece: it reads the file just around that offset and nothing
else, so both get the same answer.

The scheduler and the workers need nothing but Dask: the client sends
them this package and the packages it imports (`dask_shipping`). A cluster
that loses every worker while counting ends the command with one error
after `NO_WORKERS_SECONDS`, where Dask itself would wait for a worker forever.

Dask is an optional dependency (requirements-dask.txt): this module is
imported only when the command line is given --dask.
"""

from __future__ import annotations

import codecs
import contextlib
import functools
import hashlib
import logging
import queue
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

import distributed
import fsspec
import regex

from ..engine import corpus, patterns, specials, utf8
from ..engine.corpus import LETTER_THEN_OTHER, add_counts, can_cut, count_chunk
from . import corpus_files
from .corpus_files import COUNTS_SUFFIX, CorpusFileError, corpus_paths, parse_counts, stream_chunks
from .dask_shipping import send_this_package, what_other_platforms_need

BLOCK_BYTES = 32_000_000  # a file's stretch one task reads and counts: a few per worker for a 1 GB corpus
FAN_IN = 8  # counts added up by one task, on the way from blocks to one table
CONNECT_SECONDS = 20  # waiting for a scheduler to answer before saying it cannot be reached
CUT_SEARCH_BYTES = 4_096  # read past a nominal boundary to find a place to cut (doubled while none is found)
NO_WORKERS_SECONDS = 60  # a cluster with no worker this long has lost them all (a nanny starts a new one in seconds)
WORKERS_CHECK_SECONDS = 1  # how often the workers are counted while no task finishes

# The code and tables a piece split depends on: a worker whose differ would
# count other pieces, so every task checks its own against the client's.
_COUNTING_MODULES = (corpus, corpus_files, patterns, specials, utf8, sys.modules[__name__])

# Dask's own packages that must agree between client, scheduler and workers.
_DASK_PACKAGES = ("dask", "distributed", "msgpack", "cloudpickle", "tornado", "toolz")

# Run by each worker of a local cluster as it starts. Ctrl+C reaches every
# process of the terminal's foreground group, and the workers would die
# with tracebacks while this process cancels their work and stops them.
_LOCAL_WORKERS_IGNORE_CTRL_C = "import signal; signal.signal(signal.SIGINT, signal.SIG_IGN)"

Progress = Callable[[int, int, int, int], None]  # tasks done, tasks in all, bytes counted, bytes in all


class ClusterError(ValueError):
    """The cluster cannot count the corpus: unreachable, different versions, workers lost."""


class PieceCounts(dict):
    """Piece counts as they travel from worker to worker and to the client.
    Dask takes a plain dict apart entry by entry to send it, 30 times slower
    than pickling it whole, which it does for any other class."""


class CorpusFile(NamedTuple):
    url: str  # what a worker opens with fsspec
    size: int  # bytes

    @property
    def is_counts(self) -> bool:
        return self.url.endswith(COUNTS_SUFFIX)


class Block(NamedTuple):
    """The stretch of a file from the first safe cut at or after `start` to
    the first at or after `end` (`safe_cut`): a task's share of the text."""

    file: CorpusFile
    start: int
    end: int


@contextlib.contextmanager
def connect(address: str) -> Iterator[distributed.Client]:
    """A client of the Dask scheduler at `address`, or of a cluster of N
    worker processes on this machine for "local" or "local:N" (by default
    one per core); closed, and a local cluster stopped, on leaving."""
    logging.getLogger("distributed").setLevel(logging.ERROR)  # a lost worker is Dask's to retry, not news
    cluster = None
    local = address == "local" or address.startswith("local:")
    workers = _local_workers(address) if local else None
    try:
        if local:
            cluster = distributed.LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                dashboard_address="127.0.0.1:0",  # on a free port: another cluster may hold Dask's own
                silence_logs=logging.ERROR, preload=[_LOCAL_WORKERS_IGNORE_CTRL_C],
            )
            client = distributed.Client(cluster)
        else:
            with warnings.catch_warnings():  # of numpy on the client only, say: check_dask_versions says what matters
                warnings.simplefilter("ignore", distributed.versions.VersionMismatchWarning)
                client = distributed.Client(address, timeout=CONNECT_SECONDS)
    except (OSError, TimeoutError) as error:
        raise ClusterError(f"cannot reach the Dask scheduler at {address} ({error})") from None
    except ValueError as error:  # an address Dask cannot parse, such as "nowhere" or "ftp://x"
        raise ClusterError(f"{address} is not a Dask scheduler address such as tcp://10.0.0.5:8786 or local:4 ({error})") from None
    try:
        check_dask_versions(client)
        send_this_package(client)
        check_workers(client)
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _local_workers(address: str) -> int | None:
    _, _, count = address.partition(":")
    if not count:
        return None
    if not count.isdigit() or not 1 <= int(count) <= 256:
        raise ClusterError(f"{address}: give local:N with N worker processes from 1 to 256")
    return int(count)


def check_dask_versions(client: distributed.Client) -> None:
    """ClusterError when the client, scheduler and workers run different
    versions of Dask's own packages or Python (Dask alone only warns)."""
    versions = client.get_versions()
    problem = dask_version_problem(versions["client"], versions["scheduler"], versions["workers"])
    if problem:
        raise ClusterError(problem)


def check_workers(client: distributed.Client) -> None:
    """ClusterError unless there are workers, and each can load this
    package and splits text as this machine does (`check_signature`; every
    task checks again, for workers that join later)."""
    try:
        signatures = client.run(counting_signature)
    except Exception as error:  # raised as it was on the worker: ModuleNotFoundError, most likely
        said = " ".join(str(error).split())
        if type(error) is not Exception:  # Dask hands some errors over as a plain Exception that says which
            said = f"{type(error).__name__}: {said}"
        raise ClusterError(f"a worker cannot load this package ({said}): {what_other_platforms_need()}") from None
    if not signatures:
        raise ClusterError("the scheduler has no workers to count with")
    expected = counting_signature()
    for worker, signature in signatures.items():
        if signature != expected:
            raise ClusterError(_other_counting(worker, signature, expected))


def dask_version_problem(client: dict, scheduler: dict, workers: dict[str, dict]) -> str | None:
    """Why these machines' Dask installations cannot work together, or None."""
    machines = {"this machine": client, "the scheduler": scheduler, **{f"worker {name}": info for name, info in workers.items()}}
    for package in ("python", *_DASK_PACKAGES):
        seen = {}
        for machine, info in machines.items():
            version = (info.get("packages") or {}).get(package) or "none"
            if package == "python":
                version = ".".join(version.split(".")[:2])  # 3.11.7 and 3.11.9 work together
            seen.setdefault(version, machine)
        if len(seen) > 1:
            (mine, _), (other, where) = list(seen.items())[:2]
            return (f"{where} has {package} {other}, this machine {package} {mine}: install the same versions "
                    "everywhere (pip install -r requirements-dask.txt)")
    return None


def count_on_cluster(
    client: distributed.Client,
    specs: Sequence[str],
    pattern: str,
    special_tokens: tuple[str, ...] = (),
    *,
    progress: Progress | None = None,
    block_bytes: int | None = None,
) -> dict[str, int]:
    """The piece counts of the files `specs` name (paths, folders and
    globs, or fsspec URLs), counted by the cluster's workers: exactly the
    counts, and first appearances, of counting them here in that order.
    Ctrl+C (KeyboardInterrupt) cancels the cluster's work before it goes on."""
    files = corpus_files_named(specs)
    parts = list(plan(files, pattern, block_bytes or BLOCK_BYTES))
    signature = counting_signature()
    counted = []
    for part in parts:
        if isinstance(part, Block):
            counted.append(client.submit(count_block, part, pattern, special_tokens, signature, pure=False))
        else:
            counted.append(client.submit(read_counts_file, part, signature, pure=False))
    bytes_of = {future.key: _bytes_in(part) for future, part in zip(counted, parts)}
    every_task, level = list(counted), counted
    while len(level) > 1:  # added up neighbour with neighbour: counts travel, in text order
        level = [client.submit(merged_in_order, *level[i : i + FAN_IN], pure=False) for i in range(0, len(level), FAN_IN)]
        every_task += level
    total_bytes = sum(file.size for file in files)
    finished: queue.Queue[distributed.Future] = queue.Queue()
    for future in every_task:
        future.add_done_callback(finished.put)  # called in a thread of the client's
    try:
        bytes_done = 0
        for tasks_done in range(1, len(every_task) + 1):
            future = _next_finished(finished, client)
            if future.status in ("error", "cancelled"):  # "lost": it finished, on a worker since gone; made again
                _raise_clearly(future)
            bytes_done += bytes_of.get(future.key, 0)
            if progress is not None:
                progress(tasks_done, len(every_task), bytes_done, total_bytes)
        return level[0].result() if level else {}
    except OSError as error:  # the scheduler went away: there is nothing left to cancel
        raise ClusterError(f"lost the Dask scheduler while counting ({error})") from None
    except BaseException:  # an error, or Ctrl+C: the rest of the work is not wanted
        client.cancel(every_task, force=True)
        raise


def _next_finished(finished: queue.Queue, client: distributed.Client) -> distributed.Future:
    """The next task to finish, as its callback hands it over; ClusterError
    once the cluster has had no worker for NO_WORKERS_SECONDS."""
    workerless_since = None
    while True:
        try:
            return finished.get(timeout=WORKERS_CHECK_SECONDS)
        except queue.Empty:
            if client.nthreads():
                workerless_since = None
            elif workerless_since is None:
                workerless_since = time.monotonic()
            elif time.monotonic() - workerless_since >= NO_WORKERS_SECONDS:
                raise ClusterError(f"every worker of the cluster is gone (none for {NO_WORKERS_SECONDS} s while "
                                   f"counting); do they have the memory for {BLOCK_BYTES // 1_000_000} MB blocks?") from None


def _raise_clearly(future: distributed.Future) -> None:
    """Raise what went wrong on a worker as one line."""
    if future.cancelled():  # not by this process: by another client, or a restart of the cluster
        raise ClusterError("the cluster dropped the counting tasks (was the scheduler restarted?)")
    error = future.exception()
    if isinstance(error, ValueError):  # a corpus file's or the pattern's problem, already said plainly
        raise error
    if isinstance(error, distributed.scheduler.KilledWorker):
        raise ClusterError(f"workers kept dying while counting ({error}); do they have the memory for "
                           f"{BLOCK_BYTES // 1_000_000} MB blocks?") from None
    said = " ".join(str(error).split())  # Dask's messages run over several lines
    if isinstance(error, ImportError) or "deserializ" in said:
        raise ClusterError(f"the scheduler or a worker cannot load the tasks ({said}): "
                           f"{what_other_platforms_need()}") from None
    raise ClusterError(f"a worker failed: {type(error).__name__}: {said}") from None


def corpus_files_named(specs: Sequence[str]) -> list[CorpusFile]:
    """The files `specs` name, with their sizes: local paths, folders and
    globs as `corpus_paths` reads them (made absolute, for workers that
    share this file system), and fsspec URLs ("s3://bucket/data/*.txt",
    a folder's URL: every file under it, in name order, hidden ones left out)."""
    files: list[CorpusFile] = []
    for spec in specs:
        if spec == "-":
            raise ClusterError("--dask counts files, not standard input: name the files or their URLs")
        if "://" not in spec:
            files += [CorpusFile(str(path.absolute()), path.stat().st_size) for path in corpus_paths([spec])]
        else:
            files += _files_at_url(spec)
    return files


def _files_at_url(url: str) -> list[CorpusFile]:
    try:
        fs, path = fsspec.core.url_to_fs(url)
        if any(char in path for char in "*?["):
            found = {name: info for name, info in fs.glob(path, detail=True).items() if info["type"] == "file"}
        elif fs.isdir(path):
            found = {name: info for name, info in fs.find(path, detail=True).items()
                     if not any(part.startswith(".") for part in name[len(path):].split("/"))}
        else:
            found = {path: fs.info(path)}
    except ImportError as error:  # s3fs, gcsfs, ... not installed: fsspec's message names the package
        raise CorpusFileError(f"cannot read {url}: {error}") from None
    except FileNotFoundError:
        raise CorpusFileError(f"cannot read {url}: no such file or folder") from None
    except (OSError, ValueError) as error:
        raise CorpusFileError(f"cannot read {url}: {error}") from None
    if not found:
        raise CorpusFileError(f"{url} matches no file" if any(char in path for char in "*?[") else f"{url} holds no file")
    return [CorpusFile(fs.unstrip_protocol(name), info["size"]) for name, info in sorted(found.items())]


def plan(files: Sequence[CorpusFile], pattern: str, block_bytes: int) -> Iterator[Block | CorpusFile]:
    """The tasks' shares of the corpus, in text order: blocks of text files
    (a whole file where the pattern promises no place to cut), and counts files."""
    for file in files:
        if file.is_counts:
            yield file
        elif not can_cut(pattern):
            yield Block(file, 0, file.size)
        else:
            for start in range(0, max(file.size, 1), block_bytes):
                yield Block(file, start, min(start + block_bytes, file.size))


def _bytes_in(part: Block | CorpusFile) -> int:
    return part.end - part.start if isinstance(part, Block) else part.size


# ------------------------------------------------------------- on the workers


def count_block(block: Block, pattern: str, special_tokens: tuple[str, ...], signature: str) -> PieceCounts:
    """The piece counts of a block's stretch of its file (on a worker)."""
    check_signature(signature)
    file = block.file
    try:
        with fsspec.open(file.url, "rb") as stream:
            begin = 0 if block.start == 0 else safe_cut(stream, block.start, file.size, special_tokens)
            end = file.size if block.end >= file.size else safe_cut(stream, block.end, file.size, special_tokens)
            if begin >= end:
                return PieceCounts()  # a long stretch with no place to cut: the block before counts it
            stream.seek(begin)
            chunks = stream_chunks(_Stretch(stream, end - begin), file.url, pattern, special_tokens, first_byte=begin)
            return merged_in_order(*(count_chunk(chunk, pattern, special_tokens) for chunk in chunks))
    except OSError as error:
        raise CorpusFileError(f"cannot read {file.url} on worker {_worker_name()}: {error.strerror or error}") from None


def read_counts_file(file: CorpusFile, signature: str) -> PieceCounts:
    """Ready-made counts (`*.json`), read on a worker."""
    check_signature(signature)
    try:
        with fsspec.open(file.url, "rb") as stream:
            return PieceCounts(parse_counts(stream.read(), file.url))
    except OSError as error:
        raise CorpusFileError(f"cannot read {file.url} on worker {_worker_name()}: {error.strerror or error}") from None


def merged_in_order(*counts: dict[str, int]) -> PieceCounts:
    """Counts of consecutive stretches added up (see `corpus.merged_counts`)."""
    total = PieceCounts()
    for more in counts:
        add_counts(total, more)
    return total


def safe_cut(stream, offset: int, size: int, special_tokens: tuple[str, ...] = ()) -> int:
    """The first byte position at or after `offset` where the file may be
    cut: where the text's split has a boundary anyway (`corpus.LETTER_THEN_OTHER`)
    and no special token could lie across it; `size` if there is none.

    It depends on the bytes around `offset` alone, so the tasks on either
    side of a boundary find the same place. (A single process cuts only
    outside the special tokens it has found, reading from the start; here
    no occurrence of one may lie across the cut, which is stricter and needs
    no start.)"""
    longest = max(map(len, special_tokens), default=1)
    margin = 4 * longest + 4  # bytes: at least `longest` characters before the offset
    low = max(0, offset - margin)
    wanted = CUT_SEARCH_BYTES
    while True:
        stream.seek(low)
        data = stream.read(offset - low + wanted)
        at_end = low + len(data) >= size
        cut = _first_cut(data, offset - low, special_tokens, longest, at_end)
        if cut is not None:
            return low + cut
        if at_end:
            return size
        wanted *= 2


def _first_cut(data: bytes, target: int, special_tokens: tuple[str, ...], longest: int, at_end: bool) -> int | None:
    """Where in `data` (bytes) the first safe cut at or after byte `target`
    is; None when `data` ends before one is certain."""
    begin, target = _character_start(data, 0), _character_start(data, target)
    # Undecodable bytes stay one character each (surrogateescape): positions
    # map back to bytes exactly; the block that holds them reports them.
    before = data[begin:target].decode("utf-8", "surrogateescape")
    after = codecs.getincrementaldecoder("utf-8")("surrogateescape").decode(data[target:], final=at_end)
    text = before + after
    for found in patterns.trusted_regex(LETTER_THEN_OTHER).finditer(text, len(before)):
        cut = found.start()
        if not at_end and cut + longest > len(text):
            return None  # a special token might run on past what was read
        if any(special in text[max(0, cut - len(special) + 1) : cut + len(special) - 1] for special in special_tokens):
            continue
        return begin + len(text[:cut].encode("utf-8", "surrogateescape"))
    return None


def _character_start(data: bytes, position: int) -> int:
    """`position`, or the start of the next character if it falls inside one."""
    for _ in range(3):  # a UTF-8 character has at most three continuation bytes
        if position < len(data) and 0x80 <= data[position] < 0xC0:
            position += 1
    return position


class _Stretch:
    """The next `size` bytes of a stream, as a stream of their own."""

    def __init__(self, stream, size: int):
        self.stream, self.left = stream, size

    def read(self, size: int = -1) -> bytes:
        size = self.left if size < 0 else min(size, self.left)
        data = self.stream.read(size)
        self.left -= len(data)
        return data


@functools.cache
def counting_signature() -> str:
    """What decides how text splits and counts here: this package's
    counting code and the `regex` version (its Unicode tables)."""
    digest = hashlib.sha256(f"regex {regex.__version__}".encode())
    for module in _COUNTING_MODULES:
        digest.update(Path(module.__file__).read_bytes())
    return f"regex {regex.__version__}, counting code {digest.hexdigest()[:12]}"


def check_signature(expected: str) -> None:
    """ClusterError on a worker that would split text differently from the client."""
    mine = counting_signature()
    if mine != expected:
        raise ClusterError(_other_counting(_worker_name(), mine, expected))


def _other_counting(worker: str, signature: str, expected: str) -> str:
    return (f"worker {worker} counts with {signature}, this machine with {expected}: restart the workers, "
            "which keep the code they loaded before this machine sent its own, or give them this machine's regex")


def _worker_name() -> str:
    try:
        return distributed.get_worker().address
    except ValueError:  # not on a worker
        return "(none)"
