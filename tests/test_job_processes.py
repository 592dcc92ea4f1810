"""A visitor's job and everything it starts end together: when the job
ends (done, cancelled, out of time) and when its server is killed outright;
and the fork server behind them works from whatever folder the server was
started in (see `bpe_core.sandbox.worker_processes`)."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from bpe_core.jobs import budgeted_jobs
from bpe_core.jobs.budgeted_jobs import Budget, JobWords, run_within_budget
from bpe_core.sandbox.machine_turns import MachineTurns
from bpe_core.sandbox.worker_processes import helper_context
from tests.conftest import ROOT

WORDS = JobWords(doing="A test job", instead="run it elsewhere")
ROOMY = Budget(seconds=600, memory_bytes=1_000_000_000)


def start_children_and_wait(pids_path: str, *, deadline, progress) -> None:
    """A job (in its worker) that starts a helper as the engine does, and a
    program of its own as any library might, writes the three processes'
    ids, then reports progress until it is stopped."""
    helper = helper_context().Process(target=time.sleep, args=(600,))
    helper.start()
    program = subprocess.Popen(["sleep", "600"])
    Path(pids_path).write_text(f"{os.getpid()} {helper.pid} {program.pid}")
    while True:
        progress(0, 1)
        time.sleep(0.05)


def gone(pid: int) -> bool:
    """Whether a process has ended (a zombie waiting for its parent has)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return True
    return fields[0] in ("Z", "X")


def until_gone(pids: list[int], seconds: float = 60) -> list[int]:
    """The processes still running after `seconds`, or none as soon as all have ended."""
    deadline = time.monotonic() + seconds
    while any(not gone(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [pid for pid in pids if not gone(pid)]


class Stop(Exception):
    """A visitor's Cancel."""


@pytest.mark.slow  # worker processes
def test_a_stopped_job_ends_with_everything_it_started(tmp_path, monkeypatch):
    monkeypatch.setattr(budgeted_jobs, "MACHINE_TURNS", MachineTurns(tmp_path / "turns", 1))
    pids_path = tmp_path / "pids"

    def stop_once_started(done, total):
        if pids_path.exists() and len(pids_path.read_text().split()) == 3:
            raise Stop

    with pytest.raises(Stop):
        run_within_budget(start_children_and_wait, (str(pids_path),), ROOMY, WORDS, progress=stop_once_started)
    pids = [int(pid) for pid in pids_path.read_text().split()]
    assert until_gone(pids) == []  # the worker, its helper and the program it ran


SERVER = """
import sys, time
sys.path.insert(0, {root!r})
from bpe_core.jobs import budgeted_jobs
from bpe_core.sandbox.machine_turns import MachineTurns
from tests.test_job_processes import ROOMY, WORDS, start_children_and_wait
budgeted_jobs.MACHINE_TURNS = MachineTurns({turns!r}, 1)
budgeted_jobs.run_within_budget(start_children_and_wait, ({pids!r},), ROOMY, WORDS)
"""


@pytest.mark.slow  # a server process of its own
def test_a_killed_server_takes_its_workers_along_and_frees_their_turn(tmp_path):
    pids_path, turns = tmp_path / "pids", tmp_path / "turns"
    code = SERVER.format(root=str(ROOT), turns=str(turns), pids=str(pids_path))
    server = subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path)
    try:
        deadline = time.monotonic() + 120
        while not (pids_path.exists() and len(pids_path.read_text().split()) == 3):
            assert server.poll() is None and time.monotonic() < deadline, "the job did not start"
            time.sleep(0.05)
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait()
    pids = [int(pid) for pid in pids_path.read_text().split()]
    assert until_gone(pids) == []  # the worker, its helper and the program it ran
    with MachineTurns(turns, 1).turn(wait_seconds=0):  # the server's turn is free
        pass


ANYWHERE = """
import os, sys
sys.path.insert(0, {root!r})  # as `streamlit run` puts the app's folder on the path: not the current folder
with open("runs.txt", "a") as runs:
    print(os.getpid(), file=runs)
if __name__ == "__main__":
    from bpe_core.sandbox.worker_processes import worker_context
    check = ("import sys; open('preloaded.txt', 'w').write("
             "str(all(name in sys.modules for name in ['bpe_core.engine.training', 'bpe_core.sandbox.fork_server_main'])))")
    for _ in range(2):
        worker = worker_context().Process(target=exec, args=(check,))
        worker.start()
        worker.join()
"""


@pytest.mark.slow  # processes of their own
def test_the_fork_server_preloads_the_engine_when_started_from_any_folder(tmp_path):
    script = tmp_path / "server.py"
    script.write_text(textwrap.dedent(ANYWHERE.format(root=str(ROOT))), encoding="utf-8")
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=environment, check=True, timeout=120)
    assert (tmp_path / "preloaded.txt").read_text() == "True"  # the engine was there before the job came
    assert len((tmp_path / "runs.txt").read_text().split()) == 1  # and no worker ran the script again


def cores_and_counting_threads(*, deadline, progress) -> tuple[set[int], int]:
    from bpe_core.engine.corpus import worker_count

    return os.sched_getaffinity(0), worker_count(None)


@pytest.mark.slow  # a worker process
def test_a_job_never_takes_the_serving_core(monkeypatch, tmp_path):
    """However many threads a job starts (counting in C starts one per core
    it may use), the lowest core of those the server may use stays free of
    visitors' work; on one core, the job shares it."""
    monkeypatch.setattr(budgeted_jobs, "MACHINE_TURNS", MachineTurns(tmp_path / "turns", 1))
    cores, threads = run_within_budget(cores_and_counting_threads, (), ROOMY, WORDS)
    servers = sorted(os.sched_getaffinity(0))
    assert cores == (set(servers[1:]) if len(servers) > 1 else set(servers))
    assert threads == len(cores)


def answer(*, deadline, progress) -> int:
    return 42


@pytest.mark.slow  # worker processes
def test_a_job_starts_when_the_fork_server_stopped_answering(monkeypatch, tmp_path):
    """Seen under load: the fork server's socket refused connections while
    its process still ran, and every later job was a traceback."""
    import socket
    from multiprocessing import forkserver

    monkeypatch.setattr(budgeted_jobs, "MACHINE_TURNS", MachineTurns(tmp_path / "turns", 1))
    assert run_within_budget(answer, (), ROOMY, WORDS) == 42  # the fork server runs
    deaf = socket.socket(socket.AF_UNIX)
    deaf.bind(str(tmp_path / "deaf"))  # bound, never listening: a connection is refused
    forkserver._forkserver._forkserver_address = str(tmp_path / "deaf")
    budgeted_jobs.SPARE_WORKERS.close()  # no spare started before it stopped answering
    try:
        assert run_within_budget(answer, (), ROOMY, WORDS) == 42
    finally:
        deaf.close()


def test_a_job_with_no_process_to_run_in_is_one_line(monkeypatch, tmp_path):
    def no_process():
        raise ConnectionRefusedError(111, "Connection refused")

    monkeypatch.setattr(budgeted_jobs, "MACHINE_TURNS", MachineTurns(tmp_path / "turns", 1))
    monkeypatch.setattr(budgeted_jobs.SPARE_WORKERS, "take", no_process)
    with pytest.raises(budgeted_jobs.OverBudgetError, match="could not start: this server has no process") as refused:
        run_within_budget(answer, (), ROOMY, WORDS)
    assert "\n" not in str(refused.value)
