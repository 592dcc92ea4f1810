"""Fresh processes for the engine's side jobs: counting a large corpus,
trying a regex someone typed, training within a budget.

They are started by one fork server, not forked from the caller: the caller
may be a web server full of threads, and a fork copies whatever locks those
threads held. The fork server loads the engine once, so a job starts in
milliseconds rather than in the time it takes to import it.
"""

from __future__ import annotations

import functools
import multiprocessing

_PRELOADED = ["bpe_core.training", "bpe_core.formats", "bpe_core.untrusted_regex"]


@functools.cache
def worker_context() -> multiprocessing.context.BaseContext:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOADED)
    return context
