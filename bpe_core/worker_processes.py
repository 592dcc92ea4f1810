"""Fresh processes for the engine's side jobs: counting a large corpus,
trying a regex someone typed, training within a budget.

They are started by one fork server, not forked from the caller: the caller
may be a web server full of threads, and a fork copies whatever locks those
threads held. The fork server loads the engine once, so a job starts in
milliseconds rather than in the time it takes to import it; and it runs the
caller's main script once, for every worker (`fork_server_main`).

A caller that runs one thread only (the command line, a training job) has
no lock to copy: its helpers are forked from it directly (`helper_context`),
which costs neither a fork server nor a second copy of the engine.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
from multiprocessing import spawn

_PRELOADED = ["bpe_core.training", "bpe_core.formats", "bpe_core.untrusted_regex", "bpe_core.fork_server_main"]
MAIN_SCRIPT = "BPE_PLAYGROUND_MAIN_SCRIPT"  # names the caller's main script to the fork server it starts


@functools.cache
def worker_context() -> multiprocessing.context.BaseContext:
    context = multiprocessing.get_context("forkserver")
    main_script = spawn.get_preparation_data("fork server").get("init_main_from_path")
    if main_script is not None:  # run as a script (not `python -m`, not `-c`): its fork server runs it once
        os.environ[MAIN_SCRIPT] = main_script
    else:  # not one named by whoever started this process
        os.environ.pop(MAIN_SCRIPT, None)
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
