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
import multiprocessing.util  # noqa: F401 - registers its exit function now, before SpareWorkers does
import os
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..engine.patterns import PatternError
from ..sandbox.worker_processes import worker_context
from .machine_turns import MACHINE_TURNS, NoTurnError

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
    """The job needed more memory or time than its budget, or waited too long for a core."""


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
):
    """`job(*arguments, deadline=, progress=)` in a process of its own,
    within `budget`, once a core is free: its result. A ValueError the job
    raises (bad settings; a PatternError) is raised here; running out of
    memory or time, OverBudgetError; a bug in the job, RuntimeError with
    its traceback."""
    with _turn(words, waiting):
        process, connection = SPARE_WORKERS.take()
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
            connection.close()
            process.kill()
            process.join()


@contextlib.contextmanager
def _turn(words: JobWords, waiting: Callable[[int], None] | None) -> Iterator[None]:
    """Wait until a core of this machine is free for this job, and hold it."""
    try:
        with MACHINE_TURNS.turn(wait_seconds=MAX_WAIT_SECONDS, waiting=waiting):
            yield
    except NoTurnError:
        raise OverBudgetError(
            f"Every core of this server has been busy with other visitors' jobs for {MAX_WAIT_SECONDS:g} s; try "
            f"again in a minute, or {words.instead}."
        ) from None


class SpareWorkers:
    """A worker process started before a job needs it, so that a job starts
    at once: starting one costs a fork of the fork server and, when the
    server was started as a script (`streamlit run`), a second run of that
    script, which imports Streamlit again (about a second in all on a busy
    machine). Each worker runs one job and ends; its replacement starts in
    the background meanwhile. A spare waits for its job without a memory
    cap or a clock: both start when the job arrives."""

    def __init__(self):
        self._spare: tuple | None = None  # (process, connection) of the worker waiting for a job
        self._lock = threading.Lock()
        # An idle spare would hold up this process's exit: close it first.
        # Exit functions run last registered first, and multiprocessing's own,
        # which waits for every child process, registered as its `util`
        # module was imported (above, whatever else this process imports).
        atexit.register(self.close)

    def take(self) -> tuple:
        """A worker waiting for its job (started now if none is ready): its
        process and its end of their pipe. Its replacement starts at once."""
        with self._lock:
            ready, self._spare = self._spare, None
            if ready is None or not ready[0].is_alive():
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
                process, connection = self._spare
                connection.close()
                process.kill()
                process.join()
                self._spare = None


def _start_worker() -> tuple:
    context = worker_context()
    ours, theirs = context.Pipe()
    process = context.Process(target=_in_the_process, args=(theirs,), name="budgeted job")  # not a daemon:
    process.start()  # its job may start helpers of its own
    theirs.close()
    return process, ours


def _in_the_process(connection) -> None:
    """In the worker's process: wait for a job, cap memory, run it, send its result."""
    try:
        job, arguments, budget = connection.recv()
    except EOFError:  # the server ended, or closed its spare
        return
    deadline = time.monotonic() + budget.seconds
    cap_memory(budget.memory_bytes)
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
    except PatternError as error:
        connection.send(("pattern", str(error)))
    except ValueError as error:
        connection.send(("refused", str(error)))
    except Exception:  # noqa: BLE001 - anything else is a bug: the caller shows it whole
        connection.send(("failed", traceback.format_exc()))


SPARE_WORKERS = SpareWorkers()


def cap_memory(extra_bytes: int) -> None:
    """Let this process grow by at most `extra_bytes` (a MemoryError past that)."""
    try:
        import resource

        with open("/proc/self/status", encoding="ascii") as status:
            size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
        resource.setrlimit(resource.RLIMIT_AS, (size + extra_bytes, size + extra_bytes))
    except (ImportError, OSError, StopIteration, ValueError):  # not Linux: only the deadline bounds the job
        pass


def _over_memory(words: JobWords, budget: Budget) -> str:
    allowed = f"the {budget.memory_bytes / 1e9:.1f} GB the app allows one job"
    return f"{words.doing} needs more than {allowed}; {words.instead}."


def _over_time(words: JobWords, budget: Budget) -> str:
    return f"{words.doing} {words.too_slow} in the {budget.seconds:g} s the app allows one job; {words.instead}."
