"""Budgeted jobs are one core's work each, and their worker processes start
cheaply (see `bpe_core.jobs.budgeted_jobs`)."""

import os

import pytest

from bpe_core.jobs.budgeted_jobs import Budget
from bpe_core.jobs.budgeted_training import train_rival_within_budget
from tests.required import require

ROOMY = Budget(seconds=60, memory_bytes=1_000_000_000)


def threads_after_training(algorithm: str, text: str, vocab_size: int) -> int:
    """In the worker: train with Hugging Face, then count this process's threads."""
    from bpe_core.analysis.algorithms import train_rival

    train_rival(algorithm, text, vocab_size)
    return len(os.listdir("/proc/self/task"))


@pytest.mark.slow  # a worker process
def test_hugging_faces_trainers_use_one_core_in_a_job():
    # On one core a pool of one thread per core is one thread too: the test could not fail.
    # CI runs on two (any REQUIRE_* set: a failure there, not a skip).
    require(os.path.isdir("/proc/self/task") and (os.cpu_count() or 1) >= 2,
            f"needs Linux (/proc/self/task) and 2 cores; this machine has {os.cpu_count()}")
    text = "the lowest and the newest and the widest of them all\n" * 200
    # The job's own thread and Rayon's pool of one (not one thread per core).
    assert train_rival_within_budget(threads_after_training, ("unigram", text, 300), ROOMY) <= 2


# A server started as a script (as `streamlit run` is, and as Streamlit runs
# each page), with two jobs to run: each run of the script writes a line to
# the file named by RUNS.
SCRIPT = """
import os, sys, tempfile
with open(os.environ["RUNS"], "a") as runs:
    print(os.getpid(), file=runs)
if __name__ == "__main__":
    from bpe_core.jobs import budgeted_jobs
    from bpe_core.jobs.budgeted_training import train_within_budget
    from bpe_core.sandbox.machine_turns import MachineTurns
    budgeted_jobs.MACHINE_TURNS = MachineTurns(tempfile.mkdtemp(), 1)  # not in line with other programs' jobs
    budget = budgeted_jobs.Budget(seconds=60, memory_bytes=1_000_000_000)
    for _ in range(2):
        assert train_within_budget("low lower lowest " * 50, budget, num_merges=5).merges
"""


@pytest.mark.slow  # processes of their own
def test_worker_processes_do_not_run_the_servers_script_again(tmp_path):
    import subprocess
    import sys

    from tests.conftest import ROOT

    script, runs = tmp_path / "server.py", tmp_path / "runs.txt"
    script.write_text(SCRIPT, encoding="utf-8")
    environment = {**os.environ, "RUNS": str(runs), "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, str(script)], cwd=ROOT, env=environment, check=True, timeout=120)
    # The script itself only: not every worker (two jobs, and a spare after each), nor their fork server.
    assert len(runs.read_text().split()) == 1
