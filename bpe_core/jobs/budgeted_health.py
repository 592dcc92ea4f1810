"""Checking a visitor's vocabulary's health within a budget, in a process of
its own (see `budgeted_jobs`).

The bundled vocabularies' health is shipped (`analysis.shipped_health`). A
tokenizer trained here or loaded from a file is new: checking every token
and encoding every bundled text (6 MB in 563 texts) with it takes seconds
for a byte-level vocabulary and tens of seconds for one of characters,
whose encoding is done in Python. So it is checked as training is run: in
a throwaway process, one job per core at a time, with a memory cap and a
deadline, reporting progress.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from ..analysis.vocab_health import VocabularyHealth, vocabulary_health
from ..engine.tokenizer import Tokenizer
from .budgeted_jobs import Budget, JobWords, OutOfTime, run_within_budget

HEALTH_BUDGET = Budget(seconds=120, memory_bytes=1_500_000_000)  # a vocabulary of characters takes about 20 s
CHECKING = JobWords(
    doing="Checking every token of this vocabulary",
    instead="check it outside the app with python -m bpe_core vocab-health --tokenizer FILE",
)


def health_within_budget(tokenizer: Tokenizer, budget: Budget = HEALTH_BUDGET, *,
                         texts: Sequence[str] | None = None,
                         progress: Callable[[int, int], None] | None = None,
                         waiting: Callable[[int], None] | None = None) -> VocabularyHealth:
    """`analysis.vocab_health.vocabulary_health(tokenizer, texts)` (on every
    bundled text by default) within `budget`, once a core is free. Running
    out of time or memory raises OverBudgetError."""
    return run_within_budget(_check, (tokenizer, texts), budget, CHECKING, progress=progress, waiting=waiting)


def _check(tokenizer: Tokenizer, texts: Sequence[str] | None, *, deadline: float, progress) -> VocabularyHealth:
    def report(done: int, total: int) -> None:
        if time.monotonic() > deadline:
            raise OutOfTime
        progress(done, total)

    return vocabulary_health(tokenizer, texts, progress=report)
