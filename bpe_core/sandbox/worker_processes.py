"""Fresh processes for the engine's side jobs: counting a large corpus,
trying a regex someone typed, training within a budget.

They are started by one fork server, not forked from the caller: the caller
may be a web server full of threads, and a fork copies whatever locks those
threads held. The fork server loads the engine once, so a job starts in
milliseconds rather than in the time it takes to import it; and its workers
do not run the caller's main script again (`fork_server_main`).

A caller that runs one thread only (the command line, a training job) has
no lock to copy: its helpers are forked from it directly (`helper_context`),
which costs neither a fork server nor a second copy of the engine.

Every process started here ends with whoever started it, and takes what it
started along:

- a worker of the fork server leads a process group of its own, and is
  ended with its whole group (`end_worker`): whatever its job started, by
  any means, ends with it;
- a worker that runs a visitor's job holds a *lifeline*, a pipe whose other
  end only its caller holds (`lifeline`, `end_group_with`): when that end
  closes, the caller having ended however it ended, the kernel signals the
  worker's whole group with SIGIO, whose default action ends a process.
  (The fork server is no help there: each worker holds a copy of the pipe
  the fork server watches for its caller's end, so it outlives a killed
  caller as long as any worker does);
- every process started here asks for SIGKILL when its parent ends
  (PR_SET_PDEATHSIG, on Linux): a helper ends with the worker that forked
  it, a worker with its fork server.

A worker that runs a visitor's work is capped (`cap_this_process`): memory,
processor time, a priority below the server's, and the cores it may run on:
every core but one, the *serving core*, which visitors' work never takes
from the servers that draw every visitor's pages. Whatever it starts
inherits those limits, and knows it is capped (`in_capped_process`): a
regex that someone typed may be compiled there, where the caps bound it.

Why leave a core rather than lower the jobs' priority? A job's budget is
counted by the clock (the visitor waits in seconds), and a job at a low
priority beside any busy program on the machine gets a sliver of a core and
runs past it. Kept off one core, a job runs at full speed on the others,
however many threads it starts (counting a corpus in C starts one per core
it may use), and the server's turn at its core never waits for a job.
Measured with six visitors' browsers opening heavy links: see
benchmarks/serving_first.py.
"""

from __future__ import annotations

import ctypes
import fcntl
import functools
import multiprocessing
import multiprocessing.context
import os
import signal
from pathlib import Path

_PRELOADED = ["bpe_core.engine.training", "bpe_core.formats", "bpe_core.sandbox.untrusted_regex", "bpe_core.sandbox.fork_server_main"]
_CAPPED = "BPE_PLAYGROUND_CAPPED"  # set in a capped process's environment, so its children know too
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


class _Worker(multiprocessing.context.ForkServerProcess):
    """A process started by the fork server: it ends with the fork server,
    and leads a process group of its own (see the module's note)."""

    def run(self) -> None:
        _die_with_parent(parent=None)  # its parent, the fork server, ends when the caller does
        os.setpgid(0, 0)
        super().run()


class _Helper(multiprocessing.context.ForkProcess):
    """A process forked from its caller: it ends with the caller, and stays
    in the caller's process group (a job's helper ends with the job)."""

    def start(self) -> None:
        self._forked_by = os.getpid()  # the child reads it: its parent, as long as that lives
        super().start()

    def run(self) -> None:
        _die_with_parent(parent=self._forked_by)
        super().run()


class _WorkerContext(multiprocessing.context.ForkServerContext):
    Process = _Worker


class _HelperContext(multiprocessing.context.ForkContext):
    Process = _Helper


@functools.cache
def worker_context() -> multiprocessing.context.BaseContext:
    _let_fresh_interpreters_import_this_package()
    context = _WorkerContext()
    context.set_forkserver_preload(_PRELOADED)
    return context


def forget_fork_server() -> None:
    """After a worker could not be started (the fork server stopped
    answering: ended, or killed, while this process still counts it as
    running): end it if it still runs, so that the next worker starts a
    fresh one."""
    from multiprocessing import forkserver

    server = forkserver._forkserver
    with server._lock:
        if server._forkserver_pid is not None:
            try:
                os.kill(server._forkserver_pid, signal.SIGKILL)
                os.waitpid(server._forkserver_pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            os.close(server._forkserver_alive_fd)
        server._forkserver_pid = server._forkserver_address = server._forkserver_alive_fd = None


def helper_context() -> multiprocessing.context.BaseContext:
    """Where helper processes come from: forked from this process when it
    runs a single thread, else from the fork server."""
    return _HelperContext() if _single_threaded() else worker_context()


def end_worker(process: multiprocessing.process.BaseProcess) -> None:
    """Kill a worker of the fork server with everything it started (its
    process group), and wait for it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, TypeError):  # no group yet (it is starting), or not started
        pass
    process.kill()
    process.join()


def lifeline(context: multiprocessing.context.BaseContext) -> tuple:
    """(the worker's end, the caller's end) of a new lifeline: the caller
    keeps its end open for as long as the worker may live."""
    return context.Pipe(duplex=False)


def end_group_with(their_end) -> None:
    """In a worker that leads its process group: have the kernel end the
    whole group as soon as the caller's end of the lifeline `their_end`
    closes (Linux; elsewhere only `end_worker` ends it)."""
    try:
        fcntl.fcntl(their_end.fileno(), fcntl.F_SETOWN, -os.getpgrp())  # signal the group, not this process alone
        flags = fcntl.fcntl(their_end.fileno(), fcntl.F_GETFL)
        fcntl.fcntl(their_end.fileno(), fcntl.F_SETFL, flags | os.O_ASYNC)  # SIGIO when the pipe becomes readable
    except (AttributeError, OSError):  # no O_ASYNC here
        return
    signal.signal(signal.SIGIO, signal.SIG_DFL)
    if their_end.poll(0):  # the caller was gone before the signal was asked for
        os.killpg(0, signal.SIGKILL)


def cap_this_process(memory_bytes: int, cpu_seconds: int | None = None, nice: int = 0) -> None:
    """In a worker about to run a visitor's work: let it grow by at most
    `memory_bytes` (a MemoryError past that), spend at most `cpu_seconds`
    of processor time (the kernel stops it with SIGXCPU), and run `nice`
    steps below the server's priority. Its children inherit all three."""
    os.environ[_CAPPED] = "1"
    if nice:
        os.nice(nice)
    _leave_the_serving_core()
    try:
        import resource

        size = address_space()
        resource.setrlimit(resource.RLIMIT_AS, (size + memory_bytes, size + memory_bytes))
        if cpu_seconds is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    except (ImportError, OSError, ValueError):  # not Linux: only the caller's clock bounds the work
        pass


def _leave_the_serving_core() -> None:
    """Run on every core this process may use but the lowest numbered (the
    serving core), where it may use more than one (Linux; elsewhere all)."""
    try:
        cores = sorted(os.sched_getaffinity(0))
        if len(cores) > 1:
            os.sched_setaffinity(0, cores[1:])
    except (AttributeError, OSError):  # no affinity to set here
        pass


def in_capped_process() -> bool:
    """Whether this process runs under `cap_this_process`'s limits (or is a
    child of one that does)."""
    return os.environ.get(_CAPPED) == "1"


def address_space() -> int:
    """This process's virtual memory size, in bytes (what RLIMIT_AS limits)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise OSError("no VmSize in /proc/self/status")


def _die_with_parent(parent: int | None) -> None:
    """Ask the kernel to kill this process when its parent ends (Linux; a
    no-op elsewhere). If `parent` (its pid) ended already, end now. A
    worker of the fork server does not know its parent's pid; one whose
    fork server is gone already hears it on its pipe to the caller, which
    has ended first, and stops."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            return
    except (OSError, AttributeError):  # no C library to ask, or no prctl in it (not Linux)
        return
    if parent is not None and os.getppid() != parent:
        os._exit(1)


def _let_fresh_interpreters_import_this_package() -> None:
    """Put the folder holding bpe_core on PYTHONPATH. The fork server is a
    fresh interpreter, started from the caller's current folder, and Python
    3.11 ignores the caller's sys.path there: a server started from any
    other folder than the repository's preloaded nothing, and each worker
    ran the server's main script again."""
    root = str(Path(__file__).resolve().parents[2])
    paths = [path for path in os.environ.get("PYTHONPATH", "").split(os.pathsep) if path]
    if root not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([root, *paths])


def _single_threaded() -> bool:
    """Whether this process runs one thread, counting those that Python did
    not start (the kernel's count); False where it cannot tell."""
    try:
        with open("/proc/self/status") as status:
            return any(line.split() == ["Threads:", "1"] for line in status)
    except OSError:
        return False
