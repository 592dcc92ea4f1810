"""Whether the server's warm-up (`warm_up`) is still making something, and
a placeholder that stands in for it meanwhile.

The frame says when it has drawn a page (the warm-up waits for that before
its heavier part); a page asks `still_warming` before making something the
warm-up makes, so that it draws a placeholder instead of making it twice.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import streamlit as st

PLACEHOLDER_SECONDS = 1.0  # how often a placeholder looks whether what it stands for is ready

started = threading.Event()  # a warm-up runs in this server
page_was_drawn = threading.Event()
warmed = threading.Event()  # ... and has ended


def page_drawn() -> None:
    """The frame calls this after drawing a page: the rest of the warm-up may start."""
    page_was_drawn.set()


def still_warming(ready: Callable[[], bool], what: str) -> bool:
    """True while the warm-up is still making what `ready` checks for: a
    placeholder saying so is drawn in its place, and reruns the page once
    it is ready, so the page draws the rest meanwhile. False once it is
    ready, and when no warm-up is running (it has ended, or the app runs
    without a server, in tests): then the page makes it itself."""
    if not started.is_set() or warmed.is_set() or ready():
        return False
    _placeholder(ready, what)
    return True


@st.fragment(run_every=PLACEHOLDER_SECONDS)
def _placeholder(ready: Callable[[], bool], what: str) -> None:
    if ready() or warmed.is_set():
        st.rerun()  # the whole page, drawn with it
    st.info(f"{what}: being prepared since the server started. It appears here when ready.", icon="⏳")
