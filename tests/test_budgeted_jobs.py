"""Budgeted jobs are one core's work each, and their worker processes start
cheaply (see `bpe_core.budgeted_jobs`)."""

import os

import pytest

from bpe_core.budgeted_jobs import Budget
from bpe_core.budgeted_training import train_rival_within_budget

ROOMY = Budget(seconds=60, memory_bytes=1_000_000_000)


def threads_after_training(algorithm: str, text: str, vocab_size: int) -> int:
    """In the worker: train with Hugging Face, then count this process's threads."""
    from bpe_core.analysis.algorithms import train_rival

    train_rival(algorithm, text, vocab_size)
    return len(os.listdir("/proc/self/task"))


@pytest.mark.slow  # a worker process
@pytest.mark.skipif(not os.path.isdir("/proc/self/task") or (os.cpu_count() or 1) < 2, reason="needs Linux, 2 cores")
def test_hugging_faces_trainers_use_one_core_in_a_job():
    text = "the lowest and the newest and the widest of them all\n" * 200
    # The job's own thread and Rayon's pool of one (not one thread per core).
    assert train_rival_within_budget(threads_after_training, ("unigram", text, 300), ROOMY) <= 2
