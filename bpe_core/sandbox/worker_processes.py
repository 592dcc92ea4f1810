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
"""

from __future__ import annotations

import functools
import multiprocessing

_PRELOADED = ["bpe_core.engine.training", "bpe_core.formats", "bpe_core.sandbox.untrusted_regex", "bpe_core.sandbox.fork_server_main"]


@functools.cache
def worker_context() -> multiprocessing.context.BaseContext:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOADED)
    return context


def helper_context() -> multiprocessing.context.BaseContext:
    """Where helper processes come from: forked from this process when it
    runs a single thread, else from the fork server."""
    return multiprocessing.get_context("fork") if _single_threaded() else worker_context()


def _single_threaded() -> bool:
    """Whether this process runs one thread, counting those that Python did
    not start (the kernel's count); False where it cannot tell."""
    try:
        with open("/proc/self/status") as status:
            return any(line.split() == ["Threads:", "1"] for line in status)
    except OSError:
        return False
