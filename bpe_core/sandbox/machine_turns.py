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
  shared lock while it waits: the tickets before one's own that are still
  held are the jobs ahead of it in line, which is what a visitor is told
  ("2 ahead of you"). Turns go in that order.
"""

from __future__ import annotations

import contextlib
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
        give up); after `wait_seconds`, NoTurnError."""
        queue = self.folder / "queue"
        queue.mkdir(parents=True, exist_ok=True)
        give_up = time.monotonic() + wait_seconds
        ticket = self._take_ticket(queue)
        try:
            while True:
                ahead = self._live_tickets_before(queue, ticket)
                slot = self._free_slot() if ahead == 0 else None
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

    def _take_ticket(self, queue: Path) -> tuple[int, str]:
        """A ticket in line: a file named by the time it was taken, locked
        (shared) before it appears under its name, so nobody can take it
        for one whose holder is gone."""
        with self._lock:
            name = f"{time.time_ns():020d}-{os.getpid()}-{next(self._numbers)}"
        draft = queue / f".{name}"
        handle = os.open(draft, os.O_CREAT | os.O_RDWR, 0o600)
        fcntl.flock(handle, fcntl.LOCK_SH)
        os.rename(draft, queue / name)
        return handle, name

    def _live_tickets_before(self, queue: Path, ticket: tuple[int, str]) -> int:
        """Tickets taken before this one whose holders still wait; a ticket
        left by a process that died is removed."""
        ahead = 0
        for name in sorted(entry for entry in os.listdir(queue) if not entry.startswith(".")):
            if name >= ticket[1]:
                break
            if _held(queue / name):
                ahead += 1
        return ahead

    def _free_slot(self) -> int | None:
        """A core's slot file, locked for this job, or None when all are held."""
        for core in range(self.cores):
            handle = os.open(self.folder / f"core-{core}", os.O_CREAT | os.O_RDWR, 0o600)
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(handle)
                continue
            return handle
        return None


def _held(path: Path) -> bool:
    """Whether someone holds the ticket at `path`; removes it if nobody does."""
    try:
        handle = os.open(path, os.O_RDWR)
    except FileNotFoundError:  # its holder has just been served
        return False
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(handle)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # its holder ended without removing it
    return False


def _drop(ticket: tuple[int, str], queue: Path) -> None:
    handle, name = ticket
    with contextlib.suppress(FileNotFoundError):
        (queue / name).unlink()
    os.close(handle)


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


# The machine's turns: one folder per user, as every server process of one
# deployment runs as the same user.
MACHINE_TURNS = MachineTurns(Path(tempfile.gettempdir()) / f"bpe-playground-turns-{os.getuid()}",
                             job_turns(os.cpu_count() or 1))
