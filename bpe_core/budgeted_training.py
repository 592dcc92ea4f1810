"""Training within a budget of time and memory, in a process of its own.

A web page that trains on an upload shares its server with everyone else:
one 9 MB upload of Chinese can keep training busy for minutes and grow it
by gigabytes, and training in the server's own process would hold every
other visitor's clicks meanwhile (Python runs one thread at a time). So the
playground trains in a throwaway process with a memory cap and a deadline.
When time runs out the merges learned so far are the result (its
`stop_reason` says so); when memory runs out there is no result, only a
message. Either way the command line, which has no such budget, trains the
whole thing. The caller hears progress at least four times a second, and
may stop the job at any moment (an exception raised in `progress` ends it:
the process is killed).

At most one job per core runs at a time; others wait their turn (and hear
progress 0 of 0 meanwhile). Fifty visitors training at once would otherwise
be fifty processes sharing two cores, each allowed its memory budget.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from .formats import tokenizer_from_json, tokenizer_to_json
from .patterns import PatternError
from .tokenizer import Tokenizer
from .training import train
from .worker_processes import worker_context

GRACE_SECONDS = 15.0  # past the deadline, for the job to stop by itself and send what it learned
MAX_WAIT_SECONDS = 180.0  # for a turn, when every core is training for someone else
_TURNS = threading.BoundedSemaphore(os.cpu_count() or 1)


@dataclass(frozen=True)
class Budget:
    seconds: float  # for counting and learning merges
    memory_bytes: int  # the most the training process may grow by


class OverBudgetError(ValueError):
    """Training needed more memory (or time to get started) than its budget."""


def train_within_budget(
    corpus: str | Mapping[str, int],
    budget: Budget,
    *,
    progress: Callable[[int, int], None] | None = None,
    **settings,
) -> Tokenizer:
    """`train(corpus, **settings)` in a process of its own, within `budget`.

    Bad settings raise the ValueError `train` raises (a PatternError for a
    bad split pattern); running out of memory, or of time before the first
    merge, raises OverBudgetError; running out of time later returns the
    merges learned by then."""
    with take_turn(progress):
        return _train_in_a_process(corpus, budget, progress, settings)


@contextlib.contextmanager
def take_turn(progress: Callable[[int, int], None] | None) -> Iterator[None]:
    """Wait until a core is free for this job, and hold it (every job in a
    worker process takes a turn: training, and counting in `budgeted_counting`)."""
    give_up = time.monotonic() + MAX_WAIT_SECONDS
    while not _TURNS.acquire(timeout=0.25):
        if time.monotonic() > give_up:
            raise OverBudgetError(
                f"Every core of this server has been training for other visitors for {MAX_WAIT_SECONDS:g} s; try "
                "again in a minute, or train with the command line (python -m bpe_core train FILE ...)."
            )
        if progress is not None:
            progress(0, 0)
    try:
        yield
    finally:
        _TURNS.release()


def _train_in_a_process(corpus, budget: Budget, progress, settings: dict) -> Tokenizer:
    context = worker_context()
    receiver, sender = context.Pipe(duplex=False)
    job = context.Process(target=_job, args=(corpus, settings, budget, sender))  # not a daemon: it may start helpers
    job.start()
    sender.close()
    hard_stop = time.monotonic() + budget.seconds + GRACE_SECONDS
    done = (0, 0)  # merges learned, merges asked for
    try:
        while True:
            if not receiver.poll(max(0.0, min(0.25, hard_stop - time.monotonic()))):
                if time.monotonic() >= hard_stop:
                    raise OverBudgetError(_over_time(budget))
                if progress is not None:  # while the corpus is counted too: the caller may stop the job
                    progress(*done)
                continue
            try:
                kind, *message = receiver.recv()
            except EOFError:  # the process died without a word: the kernel stopped it
                raise OverBudgetError(_over_memory(budget)) from None
            if kind == "progress":
                done = tuple(message)
                if progress is not None:
                    progress(*done)
            elif kind == "done":
                return tokenizer_from_json(message[0])
            elif kind == "memory":
                raise OverBudgetError(_over_memory(budget))
            elif kind == "time":
                raise OverBudgetError(_over_time(budget))
            elif kind == "refused":  # the settings themselves
                raise ValueError(message[0])
            elif kind == "pattern":
                raise PatternError(message[0])
            else:  # "failed": a bug, to be seen in full
                raise RuntimeError(f"Training failed in its worker process:\n{message[0]}")
    finally:
        job.kill()
        job.join()


def _job(corpus, settings: dict, budget: Budget, sender) -> None:
    """In the training process: cap memory, train, send the result."""
    deadline = time.monotonic() + budget.seconds
    cap_memory(budget.memory_bytes)
    try:
        tokenizer = train(
            corpus, deadline=deadline, progress=lambda done, total: sender.send(("progress", done, total)), **settings
        )
        if not tokenizer.merges and time.monotonic() > deadline:
            sender.send(("time",))
        else:
            sender.send(("done", tokenizer_to_json(tokenizer)))
    except MemoryError:
        sender.send(("memory",))
    except PatternError as error:
        sender.send(("pattern", str(error)))
    except ValueError as error:
        sender.send(("refused", str(error)))
    except Exception:  # noqa: BLE001 - anything else is a bug: the caller shows it whole
        sender.send(("failed", traceback.format_exc()))


def cap_memory(extra_bytes: int) -> None:
    """Let this process grow by at most `extra_bytes` (a MemoryError past that)."""
    try:
        import resource

        with open("/proc/self/status", encoding="ascii") as status:
            size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
        resource.setrlimit(resource.RLIMIT_AS, (size + extra_bytes, size + extra_bytes))
    except (ImportError, OSError, StopIteration, ValueError):  # not Linux: only the deadline bounds the job
        pass


def _over_memory(budget: Budget) -> str:
    return (
        f"Training this corpus needs more than the {budget.memory_bytes / 1e9:.1f} GB the app allows one job; "
        "train it in full with the command line (python -m bpe_core train FILE ...), then load the saved "
        "tokenizer on Inspect or Vocabulary."
    )


def _over_time(budget: Budget) -> str:
    return (
        f"Training this corpus could not even start learning merges in the {budget.seconds:g} s the app allows "
        "one job; train it with the command line (python -m bpe_core train FILE ...), then load the saved "
        "tokenizer on Inspect or Vocabulary."
    )
