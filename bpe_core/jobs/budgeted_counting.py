"""Counting a visitor's tokenizer on every UDHR declaration, within a
budget, in a process of its own (see `budgeted_jobs`).

The bundled tokenizers' counts are shipped (`analysis.atlas`). A tokenizer
trained here or loaded from a file is new: counting it on 527 declarations
(5.5 million characters) takes seconds (the declarations' words are
shipped, see `analysis.atlas`), more with a custom split pattern, which
the readable engine encodes. So it is counted as training is run: in
a throwaway process, one job per core at a time, with a memory cap and a
deadline, reporting progress. The tokenizer travels to the process
pickled: every kind pickles (one trained here, one loaded from a rank file).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from ..analysis.atlas import TokenizerCounts, count_tokenizer
from ..engine.tokenizer import Tokenizer
from .budgeted_jobs import Budget, JobWords, OutOfTime, run_within_budget

COUNTING_BUDGET = Budget(seconds=120, memory_bytes=1_500_000_000)  # a preset's split: seconds; a custom regex: more
COUNTING = JobWords(
    doing="Counting this tokenizer on every declaration",
    instead="count it outside the app with bpe_core.analysis.atlas.count_tokenizer",
)


def count_within_budget(tokenizer: Tokenizer, budget: Budget = COUNTING_BUDGET, *,
                        texts: Mapping[str, str] | None = None,
                        progress: Callable[[int, int], None] | None = None,
                        waiting: Callable[[int], None] | None = None) -> TokenizerCounts:
    """`analysis.atlas.count_tokenizer(tokenizer, texts)` (every declaration
    by default) within `budget`, once a core is free. Running out of time or
    memory raises OverBudgetError; a split pattern that fails, PatternError."""
    return run_within_budget(_count, (tokenizer, texts), budget, COUNTING, progress=progress, waiting=waiting)


def _count(tokenizer: Tokenizer, texts: Mapping[str, str] | None, *, deadline: float, progress) -> TokenizerCounts:
    def report(done: int, total: int) -> None:
        if time.monotonic() > deadline:
            raise OutOfTime
        progress(done, total)

    return count_tokenizer(tokenizer, texts, progress=report)
