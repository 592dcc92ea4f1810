"""Training for a visitor, within a budget, in a process of its own (see
`budgeted_jobs`): BPE by this engine (or SuperBPE, BoundlessBPE, Picky BPE,
on it), Hugging Face's WordPiece and Unigram for the Algorithms page,
and the Tax page's parity experiment (plain against parity-aware BPE, by
Hugging Face).

When BPE's time runs out, the merges learned so far are the result (its
`stop_reason` says so); Hugging Face's trainers cannot stop early, so they
end with a message. When memory runs out there is no result, only a
message. Either way the command line, which has no such budget, trains the
whole thing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from ..algorithms.boundless import train_boundless
from ..algorithms.hf_trainers import HFTokenizer
from ..algorithms.picky import train_picky
from ..algorithms.superbpe import train_superbpe
from ..analysis.tax import ParityExperiment, parity_experiment
from ..engine.patterns import compile_pattern
from ..engine.tokenizer import Tokenizer
from ..engine.training import train
from .budgeted_jobs import Budget, JobWords, OutOfTime, OverBudgetError, run_within_budget

__all__ = ["Budget", "OverBudgetError", "parity_within_budget", "train_rival_within_budget", "train_within_budget"]

TRAINING = JobWords(
    doing="Training this corpus",
    too_slow="could not even start learning merges",
    instead="train it with the command line (python -m bpe_core train FILE ...), then load the saved tokenizer on "
    "Inspect or Vocabulary",
)
PARITY_TRAINING = JobWords(
    doing="Training plain and parity-aware BPE",
    instead="choose fewer merges, or run it with the command line (python -m bpe_core tax --parity MERGES)",
)


# Trainers by algorithm: each takes a corpus, settings, a deadline and progress.
TRAINERS: dict[str, Callable[..., Tokenizer]] = {
    "bpe": train, "superbpe": train_superbpe, "boundless": train_boundless, "picky": train_picky,
}


def train_within_budget(
    corpus: str | Mapping[str, int],
    budget: Budget,
    *,
    algorithm: str = "bpe",
    progress: Callable[[int, int], None] | None = None,
    waiting: Callable[[int], None] | None = None,
    **settings,
) -> Tokenizer:
    """`train(corpus, **settings)` (or the `algorithm`'s trainer, see
    TRAINERS) within `budget`, once a core is free.

    Bad settings raise the ValueError `train` raises (a PatternError for a
    bad split pattern); running out of memory, or of time before the first
    merge, raises OverBudgetError; running out of time later returns the
    merges learned by then. While every core is busy with other jobs,
    `waiting(jobs ahead in line)` is called four times a second."""
    if algorithm not in TRAINERS:
        raise ValueError(f"No algorithm {algorithm!r}; there are {', '.join(TRAINERS)}.")
    if "pattern" in settings:  # a visitor's regex is tried by a probe before a job takes a turn for it
        compile_pattern(settings["pattern"])
    return run_within_budget(_train, (corpus, algorithm, settings), budget, TRAINING, progress=progress, waiting=waiting)


def _train(corpus, algorithm: str, settings: dict, *, deadline: float, progress) -> Tokenizer:
    tokenizer = TRAINERS[algorithm](corpus, deadline=deadline, progress=progress, **settings)
    if not tokenizer.merges and time.monotonic() > deadline:
        raise OutOfTime
    return tokenizer


def train_rival_within_budget(
    trainer: Callable[..., HFTokenizer],
    arguments: tuple,
    budget: Budget,
    *,
    waiting: Callable[[int], None] | None = None,
) -> HFTokenizer:
    """`trainer(*arguments)`, one of Hugging Face's trainers (they report no
    progress and cannot stop early), within `budget`, once a core is free."""
    return run_within_budget(_untimed, (trainer, arguments), budget, TRAINING, waiting=waiting)


def _untimed(trainer, arguments: tuple, *, deadline: float, progress) -> HFTokenizer:
    return trainer(*arguments)


def parity_within_budget(
    num_merges: int,
    base: str,
    budget: Budget,
    *,
    progress: Callable[[int, int], None] | None = None,
    waiting: Callable[[int], None] | None = None,
) -> ParityExperiment:
    """`analysis.tax.parity_experiment(num_merges, base)` within `budget`,
    once a core is free, reporting its stages as progress. Hugging Face's
    trainers cannot stop early: past the deadline the experiment stops at
    its next stage, with OverBudgetError."""
    return run_within_budget(_parity, (num_merges, base), budget, PARITY_TRAINING, progress=progress, waiting=waiting)


def _parity(num_merges: int, base: str, *, deadline: float, progress) -> ParityExperiment:
    def report(done: int, total: int) -> None:
        if time.monotonic() > deadline:
            raise OutOfTime
        progress(done, total)

    return parity_experiment(num_merges, base, progress=report)
