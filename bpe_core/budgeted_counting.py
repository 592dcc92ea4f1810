"""Counting a visitor's tokenizer on every UDHR declaration, within a
budget, in a process of its own.

The bundled tokenizers' counts are shipped (`analysis.atlas`). A tokenizer
trained here or loaded from a file is new: counting it on 527 declarations
(5.5 million characters) takes seconds with tiktoken's engine, and far
longer with a custom split pattern or character-level units, which run in
Python. So it is counted as training is run (`budgeted_training`): in a
throwaway process, one per core at a time, with a memory cap and a
deadline, reporting progress, and stopped when the caller stops listening.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import asdict

from .analysis.atlas import TokenizerCounts, count_tokenizer
from .budgeted_training import GRACE_SECONDS, Budget, OverBudgetError, cap_memory, take_turn
from .patterns import PatternError
from .tokenizer import Tokenizer
from .worker_processes import worker_context

# Counting runs in Python per token (words split, see `analysis.words`): a
# small vocabulary makes many tokens, about a minute on a busy core.
COUNTING_BUDGET = Budget(seconds=120, memory_bytes=1_500_000_000)


class OutOfTime(Exception):
    """The count's deadline passed (raised in the worker only)."""


def count_within_budget(tokenizer: Tokenizer, budget: Budget = COUNTING_BUDGET, *,
                        texts: Mapping[str, str] | None = None,
                        progress: Callable[[int, int], None] | None = None) -> TokenizerCounts:
    """`analysis.atlas.count_tokenizer(tokenizer, texts)` (every declaration
    by default) in a process of its own, within `budget`. Running out of time or memory raises OverBudgetError;
    a split pattern that fails, PatternError. An exception raised in
    `progress` stops the job (the process is killed)."""
    with take_turn(progress):
        context = worker_context()
        receiver, sender = context.Pipe(duplex=False)
        # The tokenizer travels pickled: any kind pickles (one trained here, one loaded from a rank file).
        job = context.Process(target=_job, args=(tokenizer, texts, budget, sender))
        job.start()
        sender.close()
        hard_stop = time.monotonic() + budget.seconds + GRACE_SECONDS
        try:
            while True:
                if not receiver.poll(max(0.0, min(0.25, hard_stop - time.monotonic()))):
                    if time.monotonic() >= hard_stop:
                        raise OverBudgetError(_over_time(budget))
                    continue
                try:
                    kind, *message = receiver.recv()
                except EOFError:  # the process died without a word: the kernel stopped it
                    raise OverBudgetError(_over_memory(budget)) from None
                if kind == "progress":
                    if progress is not None:
                        progress(*message)
                elif kind == "done":
                    return TokenizerCounts(**message[0])
                elif kind == "memory":
                    raise OverBudgetError(_over_memory(budget))
                elif kind == "time":
                    raise OverBudgetError(_over_time(budget))
                elif kind == "pattern":
                    raise PatternError(message[0])
                else:  # "failed": a bug, to be seen in full
                    raise RuntimeError(f"Counting failed in its worker process:\n{message[0]}")
        finally:
            job.kill()
            job.join()


def _job(tokenizer: Tokenizer, texts: Mapping[str, str] | None, budget: Budget, sender) -> None:
    """In the counting process: cap memory, count, send the counts."""
    deadline = time.monotonic() + budget.seconds
    cap_memory(budget.memory_bytes)

    def report(done: int, total: int) -> None:
        if time.monotonic() > deadline:
            raise OutOfTime
        sender.send(("progress", done, total))

    try:
        counts = count_tokenizer(tokenizer, texts, progress=report)
        sender.send(("done", asdict(counts)))
    except OutOfTime:
        sender.send(("time",))
    except MemoryError:
        sender.send(("memory",))
    except PatternError as error:
        sender.send(("pattern", str(error)))
    except Exception:  # noqa: BLE001 - anything else is a bug: the caller shows it whole
        sender.send(("failed", traceback.format_exc()))


def _over_memory(budget: Budget) -> str:
    return (f"Counting this tokenizer on every declaration needs more than the {budget.memory_bytes / 1e9:.1f} GB the "
            "app allows one job; count it outside the app with bpe_core.analysis.atlas.count_tokenizer.")


def _over_time(budget: Budget) -> str:
    return (f"Counting this tokenizer on every declaration takes longer than the {budget.seconds:g} s the app allows "
            "one job (a custom split pattern or character-level units run in Python); count it outside the app "
            "with bpe_core.analysis.atlas.count_tokenizer.")
