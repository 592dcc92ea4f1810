"""Presenter mode and keyboard shortcuts: the playground on a projector.

Presenter mode (`?present=true`, or the toggle in every page's header):
large type, high contrast, no sidebar or toolbar. Keyboard shortcuts click
the page's own buttons, so a key does exactly what a click does.
"""

from __future__ import annotations

import json

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

# Keys pressed outside a text field click the buttons named in
# window.bpeShortcuts (key -> Streamlit widget key); each page sets its own.
SHORTCUTS_HTML = """
<script>
window.bpeShortcuts = %s;
if (!window.bpeShortcutsListening) {
  window.bpeShortcutsListening = true;
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target.closest("input, textarea, select, [contenteditable='true'], [role='slider']")) return;
    const widget = (window.bpeShortcuts || {})[event.key];
    const control = widget && document.querySelector(`.st-key-${widget} button, .st-key-${widget} input`);
    if (control && !control.disabled) {
      event.preventDefault();
      control.click();
    }
  });
}
</script>
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


def keyboard_shortcuts(shortcuts: dict[str, str]) -> None:
    """Let keys click this page's buttons: {"ArrowRight": "train_next", ...}."""
    st.html(SHORTCUTS_HTML % json.dumps(shortcuts), unsafe_allow_javascript=True)
