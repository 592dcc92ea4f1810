"""Turns at the machine's cores: shared by separate processes, taken in line,
never kept by a process that died."""

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from bpe_core.jobs.machine_turns import MACHINE_TURNS, MachineTurns, NoTurnError, job_turns
from tests.conftest import ROOT

# Another server process on the same machine: takes a turn, says what it
# heard while waiting ("ahead N") and when it got the turn ("turn"), then
# holds it until told to go (a line on its standard input) or killed.
OTHER_PROCESS = f"""
import importlib.util, sys
spec = importlib.util.spec_from_file_location("machine_turns", {str(ROOT / "bpe_core" / "jobs" / "machine_turns.py")!r})
turns = importlib.util.module_from_spec(spec); spec.loader.exec_module(turns)
line = turns.MachineTurns(sys.argv[1], cores=int(sys.argv[2]))
with line.turn(wait_seconds=60, waiting=lambda ahead: print("ahead", ahead, flush=True)):
    print("turn", flush=True)
    sys.stdin.readline()
"""


class Other:
    def __init__(self, folder, cores=1):
        self.process = subprocess.Popen([sys.executable, "-c", OTHER_PROCESS, str(folder), str(cores)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def next_line(self) -> str:
        return self.process.stdout.readline().strip()

    def until(self, expected: str) -> list[str]:
        """The lines it says up to `expected`, or up to its turn."""
        heard = []
        while not heard or heard[-1] not in (expected, "turn"):
            line = self.next_line()
            assert line, f"the other process ended before saying {expected!r}; it said {heard}"
            heard.append(line)
        return heard

    def release(self) -> None:
        self.process.communicate("go\n", timeout=30)

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)


@pytest.mark.slow  # processes of their own
def test_processes_take_turns_in_line_and_a_killed_holder_keeps_none(tmp_path):
    line = MachineTurns(tmp_path, cores=1)
    holder = Other(tmp_path)
    assert holder.until("turn")
    heard, served = [], threading.Event()

    def wait_here():
        with line.turn(wait_seconds=60, waiting=heard.append):
            served.set()
            # While this thread holds the turn, the later process waits, first in line now.
            said.extend(later.until("ahead 0"))

    said = []
    here = threading.Thread(target=wait_here)
    here.start()
    while not heard:  # this process is in line
        time.sleep(0.01)
    later = Other(tmp_path)
    holder.kill()  # the holder dies without a word: its turn is free all the same
    here.join(timeout=60)
    assert served.is_set() and set(heard) == {0}  # first in line all along
    assert said[-1] == "ahead 0" and "turn" not in said
    assert later.until("turn")[-1] == "turn"  # its turn came when this process's ended
    later.release()


@pytest.mark.slow  # processes of their own
def test_each_core_is_a_turn_and_a_job_gives_up_when_none_frees(tmp_path):
    first, second = Other(tmp_path, cores=2), Other(tmp_path, cores=2)
    assert first.until("turn") and second.until("turn")  # two cores: both at once
    heard = []
    with pytest.raises(NoTurnError):
        with MachineTurns(tmp_path, cores=2).turn(wait_seconds=0.3, waiting=heard.append):
            pass
    assert heard and set(heard) == {0}
    first.release()
    with MachineTurns(tmp_path, cores=2).turn(wait_seconds=30):
        pass
    second.release()


def test_a_ticket_left_by_a_process_that_died_is_not_in_line(tmp_path):
    queue = tmp_path / "queue"
    queue.mkdir()
    (queue / f"{0:020d}-{os.getpid()}-0").write_text("")  # taken long ago, held by nobody
    with MachineTurns(tmp_path, cores=1).turn(wait_seconds=0):
        pass
    assert os.listdir(queue) == []


@pytest.mark.slow  # a process of its own
def test_jobs_leave_a_core_for_the_server_on_a_machine_with_more_than_one(tmp_path):
    assert [job_turns(cores) for cores in (1, 2, 4, 8)] == [1, 1, 3, 7]  # one core: nothing to leave
    assert MACHINE_TURNS.cores == job_turns(os.cpu_count())
    # On two cores, a job in another process holds the one turn: the next waits in line.
    holder = Other(tmp_path, cores=job_turns(2))
    assert holder.until("turn")
    heard = []
    with pytest.raises(NoTurnError):
        with MachineTurns(tmp_path, cores=job_turns(2)).turn(wait_seconds=0.3, waiting=heard.append):
            pass
    assert heard and set(heard) == {0}
    holder.release()
    with MachineTurns(tmp_path, cores=job_turns(2)).turn(wait_seconds=30):
        pass
