"""Turns at the machine's cores: shared by separate processes, taken in line,
never kept by a process that died."""

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from bpe_core.sandbox import machine_turns
from bpe_core.sandbox.machine_turns import MACHINE_TURNS, MachineTurns, NoTurnError, UnsafeFolderError, job_turns
from tests.conftest import ROOT

# Another server process on the same machine: takes a turn, says what it
# heard while waiting ("ahead N") and when it got the turn ("turn"), then
# holds it until told to go (a line on its standard input) or killed.
OTHER_PROCESS = f"""
import importlib.util, sys
spec = importlib.util.spec_from_file_location("machine_turns", {str(ROOT / "bpe_core" / "sandbox" / "machine_turns.py")!r})
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


def test_a_waiter_looks_at_a_few_files_per_look_however_long_the_line(tmp_path, monkeypatch):
    """30 jobs wait for the one core; the 31st looks at the folder every
    POLL_SECONDS, and each look opens a file or two (the ticket just
    before its own), not every ticket ahead of it."""
    # Looks every 20 ms, not 250: the line of 30 drains one waiter's look after another.
    monkeypatch.setattr(machine_turns, "POLL_SECONDS", 0.02)
    line, holding, release = MachineTurns(tmp_path, cores=1), threading.Event(), threading.Event()

    def hold():
        with line.turn(wait_seconds=60):
            holding.set()
            release.wait(60)

    def wait_in_line(heard):
        with contextlib.suppress(GiveUp):
            with line.turn(wait_seconds=60, waiting=lambda ahead: heard.set()):
                pass

    threads = [threading.Thread(target=hold)]
    threads[0].start()
    assert holding.wait(60)
    in_line = [threading.Event() for _ in range(30)]
    for heard in in_line:
        threads.append(threading.Thread(target=wait_in_line, args=(heard,)))
        threads[-1].start()
        assert heard.wait(60)  # in line, in this order
    opened, looks, here = [], [], threading.current_thread()
    real_open = os.open

    def counting_open(*args, **kwargs):
        if threading.current_thread() is here:
            opened.append(args[0])
        return real_open(*args, **kwargs)

    def look(ahead):
        looks.append(ahead)
        if len(looks) == 4:
            raise GiveUp

    monkeypatch.setattr(os, "open", counting_open)
    with pytest.raises(GiveUp):
        with line.turn(wait_seconds=60, waiting=look):
            pass
    monkeypatch.setattr(os, "open", real_open)
    release.set()
    for thread in threads:
        thread.join(60)
    assert looks == [30] * 4
    assert len(opened) <= 4 + 2 * len(looks)  # the folders and the ticket, then a ticket a look


class GiveUp(Exception):
    """A waiter's Cancel."""


def test_the_turns_folder_is_made_for_this_user_alone(tmp_path):
    with MachineTurns(tmp_path / "turns", cores=1).turn(wait_seconds=0):
        pass
    assert (tmp_path / "turns").stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize("make_unsafe", [
    lambda folder: folder.chmod(0o777),  # anyone may write in it
    lambda folder: folder.chmod(0o1777),  # even with the sticky bit: anyone may hold tickets in it
    lambda folder: (folder.rename(folder.with_name("elsewhere")), folder.symlink_to(folder.with_name("elsewhere"))),
    lambda folder: (folder / "queue").chmod(0o777),
])
def test_a_turns_folder_others_may_write_in_or_a_link_is_refused(tmp_path, make_unsafe):
    folder = tmp_path / "turns"
    with MachineTurns(folder, cores=1).turn(wait_seconds=0):
        pass
    make_unsafe(folder)
    with pytest.raises(UnsafeFolderError, match="turns folder"):
        with MachineTurns(folder, cores=1).turn(wait_seconds=0):
            pass


def test_a_turns_folder_of_another_user_is_refused(tmp_path, monkeypatch):
    folder = tmp_path / "turns"
    folder.mkdir(mode=0o700)
    monkeypatch.setattr(os, "geteuid", lambda: os.stat(folder).st_uid + 1)  # as another user sees it
    with pytest.raises(UnsafeFolderError, match="belongs to another user"):
        with MachineTurns(folder, cores=1).turn(wait_seconds=0):
            pass
