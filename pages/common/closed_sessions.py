"""A closed tab's session is let go once its time to live has passed.

When a tab closes, Streamlit keeps its session (its state: a trained
tokenizer, the step views, every widget) for `server.disconnectedSessionTTL`
seconds, in case the tab reconnects. Past that time the session is no
longer found, but Streamlit removes it from its store only when another
session is stored or deleted, and does not shut it down: the last visitors
of a busy hour stay in memory for as long as nobody else comes, and no
session past its time is ever shut down (its uploaded files and the media
its downloads made stay in Streamlit's stores). Here, every
`CHECK_SECONDS`, the sessions past their time are taken out of the store and
shut down as Streamlit shuts down a session that closes for good
(`AppSession.shutdown`); what they held is then handed back to the system
(`release_free_memory`), so the server's memory falls back once a room
has gone.

This reaches into Streamlit's session manager (its store is not public);
should a later Streamlit move it, the server logs so once and behaves as
Streamlit does on its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import gc

from streamlit.logger import get_logger

CHECK_SECONDS = 5.0

_log = get_logger(__name__)


@contextlib.asynccontextmanager
async def let_closed_sessions_go(app):
    """A lifespan for app.py's `st.App`: the check, every `CHECK_SECONDS`, on
    the server's event loop (where Streamlit stores and resumes sessions)."""
    task = asyncio.create_task(_check_now_and_then())
    try:
        yield
    finally:
        task.cancel()


async def _check_now_and_then() -> None:
    from streamlit.runtime import Runtime

    while True:
        await asyncio.sleep(CHECK_SECONDS)
        try:
            let_go = shut_down_expired_sessions(Runtime.instance()._session_mgr)
        except AttributeError:  # a Streamlit whose session manager is built otherwise
            _log.warning("Closed sessions are left to Streamlit: its session store has moved.", exc_info=True)
            return
        if let_go:
            release_free_memory()


def shut_down_expired_sessions(manager) -> int:
    """Take the sessions past their time to live out of the store of
    Streamlit's session manager `manager` and shut each down; how many there were."""
    with manager._storage_lock:  # as Streamlit holds it to store or resume a session
        expired = manager._session_storage._cache.expire()
    for _, info in expired:
        info.session.shutdown()
    return len(expired)


def release_free_memory() -> None:
    """Collect what the sessions let go held (much of it in cycles), then
    ask the C library to hand free memory back to the system: glibc keeps
    freed memory for the process otherwise, so the server's resident size
    would stay at its highest. Elsewhere than glibc, the collection alone."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
