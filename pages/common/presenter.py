"""Presenter mode: the playground on a projector.

Presenter mode (`?present=true`, or the toggle in every page's header):
large type, high contrast, no sidebar or toolbar.
"""

from __future__ import annotations

import streamlit as st

from pages.common.names import PRESENT
from pages.common.url_state import LINKED

PRESENTER_CSS = """
<style>
html { font-size: 22px; }
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stHeader"],
[data-testid="stToolbar"], [data-testid="stDecoration"], footer { display: none !important; }
[data-testid="stMainBlockContainer"] { padding-top: 1.5rem; max-width: 100%; }
[data-testid="stApp"], [data-testid="stMarkdownContainer"], [data-testid="stCaptionContainer"] { color: #000 !important; }
.bpe-text { --bpe-font-size: 1.5rem; }
.bpe-merge { --bpe-font-size: 2.4rem; }
</style>
"""

def presenting() -> bool:
    return bool(st.session_state.get(PRESENT, False))


def presenter_toggle() -> None:
    """The toggle, bound to ?present=, and the presenter style while it is on."""
    st.toggle(
        "Presenter", key=PRESENT, **LINKED,
        help="Large type, high contrast, no sidebar: for a projector. Also ?present=true in a link.",
    )
    if presenting():
        st.html(PRESENTER_CSS)
