"""A visitor's heavy job within a budget of time and memory, in a process of its own.

A web page that trains on an upload shares its server with everyone else:
one 9 MB upload of Chinese can keep training busy for minutes and grow it
by gigabytes, and work in the server's own process would hold every other
visitor's clicks meanwhile (Python runs one thread at a time). So heavy
work for a visitor (training, by this engine or Hugging Face's; counting a
tokenizer on a large corpus) runs in a throwaway process with a memory cap
and a deadline, one job per core of the machine at a time, but for a
core left for serving pages (see `machine_turns`). The process is started before the job comes (see
`SpareWorkers`), so that a short job does not wait for it. The caller hears progress at least four times a second,
and its place in line while every core is busy; it may stop the job at any
moment (an exception raised in `progress` or `waiting` ends it: the process
is killed).

A job is a function called in the process as `job(*arguments,
deadline=..., progress=...)`: it should stop by its deadline (training
returns what it learned by then; a job with nothing to show raises
`OutOfTime`), report `progress(done, total)` as it goes, and return a
picklable result. What goes wrong comes back as one of the errors below,
each message saying what to do instead.
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import multiprocessing.util  # noqa: F401 - registers its exit function now, before SpareWorkers does
import os
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import NamedTuple

from ..engine.patterns import PatternError
from ..sandbox.worker_processes import (
    cap_this_process,
    end_group_with,
    end_worker,
    forget_fork_server,
    lifeline,
    worker_context,
)
from ..sandbox.machine_turns import MACHINE_TURNS, MachineTurns, NoTurnError, UnsafeFolderError

GRACE_SECONDS = 15.0  # past the deadline, for the job to stop by itself and send what it has
MAX_WAIT_SECONDS = 180.0  # for a turn, when every core is busy with other visitors' jobs


@dataclass(frozen=True)
class Budget:
    seconds: float  # for the job's work
    memory_bytes: int  # the most the job's process may grow by


@dataclass(frozen=True)
class JobWords:
    """How messages name a kind of job: "Training this corpus", what it
    could not do in time, and where to do it without a budget ("train it
    with the command line (...)")."""

    doing: str
    instead: str
    too_slow: str = "could not finish"


class OverBudgetError(ValueError):
    """The job needed more memory or time than its budget, or could not have a core."""


class OutOfTime(Exception):
    """Raised by a job (in its process) whose deadline passed with nothing to show."""


def run_within_budget(
    job: Callable,
    arguments: tuple,
    budget: Budget,
    words: JobWords,
    *,
    progress: Callable[[int, int], None] | None = None,
    waiting: Callable[[int], None] | None = None,
    turns: MachineTurns | None = None,
):
    """`job(*arguments, deadline=, progress=)` in a process of its own,
    within `budget`, once a core is free in `turns` (MACHINE_TURNS, the
    jobs' line, unless another is named): its result. A ValueError the job
    raises (bad settings; a PatternError) is raised here; running out of
    memory or time, OverBudgetError; a bug in the job, RuntimeError with
    its traceback."""
    with _turn(words, waiting, turns or MACHINE_TURNS):
        try:
            worker = SPARE_WORKERS.take()
        except OSError as error:  # no process to be had (see `_start_worker`): the visitor's one line, not a traceback
            raise OverBudgetError(f"{words.doing} could not start: this server has no process to run it in now "
                                  f"({error.strerror or error}); try again in a minute, or {words.instead}.") from None
        connection = worker.connection
        connection.send((job, arguments, budget))
        hard_stop = time.monotonic() + budget.seconds + GRACE_SECONDS
        done = (0, 0)
        try:
            while True:
                if not connection.poll(max(0.0, min(0.25, hard_stop - time.monotonic()))):
                    if time.monotonic() >= hard_stop:
                        raise OverBudgetError(_over_time(words, budget))
                    if progress is not None:  # while the job reports nothing: the caller may stop it
                        progress(*done)
                    continue
                try:
                    kind, value = connection.recv()
                except EOFError:  # the process died without a word: the kernel stopped it
                    raise OverBudgetError(_over_memory(words, budget)) from None
                if kind == "progress":
                    done = value
                    if progress is not None:
                        progress(*done)
                elif kind == "done":
                    return value
                elif kind == "memory":
                    raise OverBudgetError(_over_memory(words, budget))
                elif kind == "time":
                    raise OverBudgetError(_over_time(words, budget))
                elif kind == "pattern":
                    raise PatternError(value)
                elif kind == "refused":  # the job's own verdict on its arguments
                    raise ValueError(value)
                else:  # "failed": a bug, to be seen in full
                    raise RuntimeError(f"{words.doing} failed in its worker process:\n{value}")
        finally:
            worker.end()


@contextlib.contextmanager
def _turn(words: JobWords, waiting: Callable[[int], None] | None, turns: MachineTurns) -> Iterator[None]:
    """Wait until a core of this machine is free for this job, and hold it."""
    try:
        with turns.turn(wait_seconds=MAX_WAIT_SECONDS, waiting=waiting):
            yield
    except NoTurnError:
        raise OverBudgetError(
            f"Every core of this server has been busy with other visitors' jobs for {MAX_WAIT_SECONDS:g} s; try "
            f"again in a minute, or {words.instead}."
        ) from None
    except UnsafeFolderError as error:  # for whoever runs the server to fix; meanwhile no job takes a core
        raise OverBudgetError(f"This server cannot run jobs now: {error}; {words.instead}.") from None


class SpareWorkers:
    """A worker process started before a job needs it, so that a job starts
    at once: starting one costs a fork of the fork server and, when the
    server was started as a script (`streamlit run`), a second run of that
    script, which imports Streamlit again (about a second in all on a busy
    machine). Each worker runs one job and ends; its replacement starts in
    the background meanwhile. A spare waits for its job without a memory
    cap or a clock: both start when the job arrives."""

    def __init__(self):
        self._spare: Worker | None = None  # the worker waiting for a job
        self._lock = threading.Lock()
        # An idle spare would hold up this process's exit: close it first.
        # Exit functions run last registered first, and multiprocessing's own,
        # which waits for every child process, registered as its `util`
        # module was imported (above, whatever else this process imports).
        atexit.register(self.close)

    def take(self) -> Worker:
        """A worker waiting for its job (started now if none is ready). Its
        replacement starts at once."""
        with self._lock:
            ready, self._spare = self._spare, None
            if ready is None or not ready.process.is_alive():
                ready = _start_worker()
        threading.Thread(target=self.prepare, name="spare worker", daemon=True).start()
        return ready

    def prepare(self) -> None:
        """Start a spare worker unless one is ready (at server start, for the first job)."""
        with self._lock:
            if self._spare is None:
                self._spare = _start_worker()

    def close(self) -> None:
        with self._lock:
            if self._spare is not None:
                self._spare.end()
                self._spare = None


class Worker(NamedTuple):
    process: multiprocessing.process.BaseProcess
    connection: Connection  # the server's end of their pipe: the job goes one way, news the other
    lifeline: Connection  # the server's end of the worker's lifeline (see `worker_processes`)

    def end(self) -> None:
        """End the worker and whatever its job started."""
        self.connection.close()
        self.lifeline.close()
        end_worker(self.process)


def _start_worker() -> Worker:
    """A new worker; if the fork server no longer answers, a new fork server first."""
    try:
        return _start_worker_now()
    except OSError:  # ConnectionRefusedError, FileNotFoundError: its socket is there, nobody listens
        forget_fork_server()
        return _start_worker_now()


def _start_worker_now() -> Worker:
    context = worker_context()
    ours, theirs = context.Pipe()
    their_lifeline, our_lifeline = lifeline(context)
    process = context.Process(target=_in_the_process, args=(theirs, their_lifeline), name="budgeted job")  # not a
    process.start()  # daemon: its job may start helpers of its own
    theirs.close()
    their_lifeline.close()
    return Worker(process, ours, our_lifeline)


def _in_the_process(connection, lifeline_end) -> None:
    """In the worker's process: wait for a job, cap memory, run it, send its
    result; all along, end with the server (see `worker_processes`)."""
    end_group_with(lifeline_end)
    try:
        job, arguments, budget = connection.recv()
    except EOFError:  # the server ended, or closed its spare
        return
    deadline = time.monotonic() + budget.seconds
    cap_this_process(budget.memory_bytes)
    # A job is one core's work: Hugging Face's trainers would otherwise
    # start a thread per core of the machine (Rayon's pool, made at first use).
    os.environ["RAYON_NUM_THREADS"] = "1"
    try:
        result = job(*arguments, deadline=deadline, progress=lambda *done: connection.send(("progress", done)))
        connection.send(("done", result))
    except OutOfTime:
        connection.send(("time", None))
    except MemoryError:
        connection.send(("memory", None))
    except ImportError as error:  # a library the job loads late may not fit under the cap either
        connection.send(("memory", None) if "failed to map segment" in str(error) else ("failed", traceback.format_exc()))
    except RuntimeError as error:  # nor may a thread's stack (training counts with threads)
        connection.send(("memory", None) if "can't start new thread" in str(error) else ("failed", traceback.format_exc()))
    except PatternError as error:
        connection.send(("pattern", str(error)))
    except ValueError as error:
        connection.send(("refused", str(error)))
    except Exception:  # noqa: BLE001 - anything else is a bug: the caller shows it whole
        connection.send(("failed", traceback.format_exc()))


SPARE_WORKERS = SpareWorkers()


def _over_memory(words: JobWords, budget: Budget) -> str:
    allowed = f"the {budget.memory_bytes / 1e9:.1f} GB the app allows one job"
    return f"{words.doing} needs more than {allowed}; {words.instead}."


def _over_time(words: JobWords, budget: Budget) -> str:
    return f"{words.doing} {words.too_slow} in the {budget.seconds:g} s the app allows one job; {words.instead}."
