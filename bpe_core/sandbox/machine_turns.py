"""Turns at the machine's cores, shared by every process that asks for one.

Heavy jobs for visitors (training, counting a corpus) run one per core,
but one core is left for serving pages (`job_turns`): a job is CPU-bound
from start to end, and with every core busy with jobs the server's own
work (every visitor's clicks) waits for a share of a core. A count kept
inside one server process would let two processes behind a proxy run two
jobs per core each; so turns live in a folder that every process on the
machine sees, and are held with the kernel's file locks, which end with
their holder however it ends: a server that is killed never keeps a turn.

- A *slot* file per core: whoever holds its exclusive lock runs a job.
- A *ticket* per waiting job, named by when it began to wait and held with a
  shared lock while it waits: the tickets before one's own are the jobs
  ahead of it in line, which is what a visitor is told ("2 ahead of you").
  Turns go in that order.

A waiter looks at the folder four times a second, and each look costs a
few file operations however long the line: it reads the names (one
listing) and checks only the ticket just before its own, removing it if
its holder died. That holder, if alive, checks the one before it in turn,
so a dead ticket anywhere in line is gone within a look per place. (When
every waiter checked every ticket ahead of it, 100 waiters cost 40,000 file
operations a second.)

The folder is this user's alone: made with mode 0700, refused if another
user owns it or may write in it (they could hold tickets that stop every
job, or plant links to files of ours), and opened, with everything in it,
without following a symbolic link.
"""

from __future__ import annotations

import bisect
import contextlib
import errno
import fcntl
import itertools
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

POLL_SECONDS = 0.25  # how often a waiting job looks again (and hears whether it was cancelled)


class NoTurnError(TimeoutError):
    """Every core stayed busy for longer than the job would wait."""


class UnsafeFolderError(PermissionError):
    """The turns folder is not this user's alone, so no turn is taken in it."""


class MachineTurns:
    """`cores` turns (one per core a job may use), for the processes that share `folder`."""

    def __init__(self, folder: Path, cores: int):
        self.folder, self.cores = Path(folder), cores
        self._numbers = itertools.count()  # tells apart the tickets of one process's threads
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def turn(self, *, wait_seconds: float, waiting: Callable[[int], None] | None = None) -> Iterator[None]:
        """Hold a core for the job in the `with` block. While none is free,
        `waiting(jobs ahead)` is called every POLL_SECONDS (it may raise to
        give up); after `wait_seconds`, NoTurnError. UnsafeFolderError if the
        folder is not this user's alone."""
        with _private_folder(self.folder.name, self.folder.parent) as folder, _private_folder("queue", folder) as queue:
            give_up = time.monotonic() + wait_seconds
            ticket = self._take_ticket(queue)
            try:
                while True:
                    ahead = _tickets_ahead(queue, ticket[1])
                    slot = self._free_slot(folder) if ahead == 0 else None
                    if slot is not None:
                        break
                    if time.monotonic() > give_up:
                        raise NoTurnError(f"every core stayed busy for {wait_seconds:g} s")
                    if waiting is not None:
                        waiting(ahead)
                    time.sleep(POLL_SECONDS)
            finally:
                _drop(ticket, queue)
            try:
                yield
            finally:
                os.close(slot)  # closing the file releases its lock

    def _take_ticket(self, queue: int) -> tuple[int, str]:
        """A ticket in line: a file named by the time it was taken, locked
        (shared) before it appears under its name, so nobody can take it
        for one whose holder is gone."""
        with self._lock:
            name = f"{time.time_ns():020d}-{os.getpid()}-{next(self._numbers)}"
        handle = os.open(f".{name}", os.O_CREAT | os.O_EXCL | os.O_RDWR | os.O_NOFOLLOW, 0o600, dir_fd=queue)
        fcntl.flock(handle, fcntl.LOCK_SH)
        os.rename(f".{name}", name, src_dir_fd=queue, dst_dir_fd=queue)
        return handle, name

    def _free_slot(self, folder: int) -> int | None:
        """A core's slot file, locked for this job, or None when all are held."""
        for core in range(self.cores):
            handle = os.open(f"core-{core}", os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW, 0o600, dir_fd=folder)
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(handle)
                continue
            return handle
        return None


def _tickets_ahead(queue: int, name: str) -> int:
    """How many tickets were taken before the one called `name`; the one
    just before it is removed if its holder is gone (see the module's note)."""
    names = sorted(entry for entry in os.listdir(queue) if not entry.startswith("."))
    ahead = names[: bisect.bisect_left(names, name)]
    if ahead and not _held(queue, ahead[-1]):
        ahead.pop()
    return len(ahead)


def _held(queue: int, name: str) -> bool:
    """Whether someone holds the ticket `name`; removes it if nobody does."""
    try:
        handle = os.open(name, os.O_RDWR | os.O_NOFOLLOW, dir_fd=queue)
    except FileNotFoundError:  # its holder has just been served
        return False
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(handle)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name, dir_fd=queue)  # its holder ended without removing it
    return False


def _drop(ticket: tuple[int, str], queue: int) -> None:
    handle, name = ticket
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name, dir_fd=queue)
    os.close(handle)


@contextlib.contextmanager
def _private_folder(name: str, parent: Path | int) -> Iterator[int]:
    """The folder `name` in `parent` (a path, or an open folder), made if
    missing, open while the `with` block runs: UnsafeFolderError unless it
    is a folder (not a link to one) that this user owns and nobody else may
    write in."""
    parent_handle = os.open(parent, os.O_RDONLY | os.O_DIRECTORY) if not isinstance(parent, int) else None
    where = parent if parent_handle is None else parent_handle
    try:
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o700, dir_fd=where)
        try:
            handle = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=where)
        except OSError as error:
            if error.errno not in (errno.ELOOP, errno.ENOTDIR):  # a symbolic link, or a file
                raise
            raise UnsafeFolderError(f"the turns folder {name} is not a folder of its own ({error.strerror})") from None
    finally:
        if parent_handle is not None:
            os.close(parent_handle)
    try:
        _check_private(handle, name)
        yield handle
    finally:
        os.close(handle)


def _check_private(handle: int, name: str) -> None:
    status = os.fstat(handle)
    if status.st_uid != os.geteuid():
        raise UnsafeFolderError(f"the turns folder {name} belongs to another user (uid {status.st_uid})")
    if status.st_mode & 0o022:  # even with the sticky bit, others could hold tickets there and stop every job
        raise UnsafeFolderError(f"the turns folder {name} lets other users write in it (mode {status.st_mode & 0o7777:o})")


def job_turns(cores: int) -> int:
    """How many jobs a machine with `cores` cores runs at once: all but one,
    which is left for the servers (their pages, their clicks), on a machine
    with more than one.

    Why not every core, with jobs at a lower priority instead? A job at
    `nice` 10 gets a tenth of a core beside any busy process, the server or
    anything else on the machine, so it ran past its budget (an upload's
    count took 120 s instead of 19). A budget counted in the job's CPU time
    would not end it, but the visitor's wait is counted in seconds all the
    same, and a job held back that way keeps its turn from the next one in
    line. A core of its own keeps a job's time what it is on a quiet
    machine, and the servers' pages quick while jobs run: a server runs
    Python, one thread at a time, so one core is about all it can use."""
    return max(1, cores - 1)


def _folder(kind: str) -> Path:
    """One folder per user, as every server process of one deployment runs as the same user."""
    return Path(tempfile.gettempdir()) / f"bpe-playground-{kind}-{os.geteuid()}"


# The machine's turns for jobs.
MACHINE_TURNS = MachineTurns(_folder("turns"), job_turns(os.cpu_count() or 1))

# Turns for checks of a visitor's input that take seconds, not minutes
# (trying a regex, reading an uploaded file): a line of their own, one at a
# time on the whole machine, so that a check does not wait for minutes of
# training and many at once do not fill the machine. They run at a lower
# priority than the servers (see `worker_processes`), and their time is
# counted in their own processor time, which a lower priority does not shrink.
CHECK_TURNS = MachineTurns(_folder("checks"), 1)

# Turns for calls to an object made from a visitor's input and held in a
# host process (`hosts`: a view encoded by a visitor's tokenizer.json): a
# line of their own, one at a time on the whole machine, each call at most
# a few seconds of its own processor time, so that typing is not held
# behind a check's minute, and many visitors' calls do not fill the cores.
CALL_TURNS = MachineTurns(_folder("calls"), 1)
