"""Links and presenter mode: what makes a view shareable and projectable.

Permalinks. Widgets that define a view are bound to the URL
(`bind="query-params"`), so the address bar always holds the view's state
and copying it is sharing it. Three things need help:

- code that sets a widget's value before the widget exists (a default, a
  clamp) must start from the link's value, not overwrite it: `initial_value`;
- text travels in the link only while it is short: `link_text` says so when
  it does not fit, instead of silently dropping it;
- the copy itself: a button that copies the address, `copy_link_button`.

Presenter mode (`?present=true`, or the toggle): large type, high contrast, no
sidebar or toolbar, for a projector. Keyboard shortcuts click the page's own
buttons, so they do exactly what a click does.
"""

from __future__ import annotations

import json

import streamlit as st

LINK_TEXT_LIMIT = 2_000  # characters of text a link may carry

# Keyword arguments for a widget that defines a view: its value is in the
# link, and it is kept when the user visits another page and comes back.
LINKED = dict(bind="query-params", persist_state="session")

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

# Copies the address bar: it holds the whole view (see the module docstring).
# The clipboard needs a secure page (https or localhost); elsewhere the link
# is offered in a prompt to copy by hand.
COPY_LINK_HTML = """
<button class="bpe-copy-link" type="button" title="Copy a link to exactly this view">🔗 Copy link</button>
<style>
.bpe-copy-link { font: inherit; font-size: 0.9rem; padding: 0.3rem 0.8rem; border-radius: 0.5rem;
  border: 1px solid rgba(49, 51, 63, 0.25); background: #fff; color: #111; cursor: pointer; }
.bpe-copy-link:hover { border-color: #225588; color: #225588; }
</style>
<script>
if (!window.bpeCopyLink) {
  window.bpeCopyLink = true;
  document.addEventListener("click", (event) => {
    const button = event.target.closest(".bpe-copy-link");
    if (!button) return;
    const link = window.location.href;
    const done = () => { button.textContent = "✓ Link copied"; setTimeout(() => { button.textContent = "🔗 Copy link"; }, 2000); };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(link).then(done, () => window.prompt("Copy this link:", link));
    } else {
      window.prompt("Copy this link:", link);
    }
  });
}
</script>
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


def initial_value(key: str, default, *, many: bool = False):
    """The value a bound widget starts from: the session's, else the link's,
    else `default`. Use it wherever code sets a widget's value before the
    widget is drawn, so that a link is not overwritten."""
    if key in st.session_state:
        return st.session_state[key]
    if many:
        return st.query_params.get_all(key) or default
    return st.query_params.get(key, default)


def linked_text(param: str, default: str) -> str:
    """The text a view opens with: the link's, else `default`."""
    return st.query_params.get(param, default)


def link_text(param: str, text: str, default: str) -> None:
    """Carry `text` in the link while it fits; say so when it does not."""
    if text == default:
        st.query_params.pop(param, None)
    elif len(text) <= LINK_TEXT_LIMIT:
        if st.query_params.get(param) != text:
            st.query_params[param] = text
    else:
        st.query_params.pop(param, None)
        st.caption(
            f"This text ({len(text):,} characters) is too long to travel in a link "
            f"(up to {LINK_TEXT_LIMIT:,}): a copied link opens this view with the default text."
        )


def link_value(param: str, value) -> None:
    """Put a JSON value in the link (None removes it)."""
    if value is None:
        st.query_params.pop(param, None)
    else:
        encoded = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        if st.query_params.get(param) != encoded:
            st.query_params[param] = encoded


def linked_value(param: str):
    """The JSON value a link carries, or None (also for a damaged or an
    absurdly long or deeply nested one: a link must never break a page)."""
    value = st.query_params.get(param)
    if value is None or len(value) > 2 * LINK_TEXT_LIMIT:
        return None
    try:
        return json.loads(value)
    except (json.JSONDecodeError, RecursionError):
        return None


def clamp_step(key: str, limit: int) -> None:
    """Keep a bound step inside 0..limit: a link (or an earlier, longer
    trace) may ask for a step that is not there."""
    try:
        step = int(initial_value(key, 0))
    except (TypeError, ValueError):
        step = 0
    st.session_state[key] = min(max(step, 0), limit)


def move_step(key: str, limit: int, delta: int = 0, to: int | None = None) -> None:
    """A button's callback: move a bound step by `delta`, or `to` a step."""
    step = st.session_state.get(key, 0) + delta if to is None else to
    st.session_state[key] = min(max(step, 0), limit)


def presenting() -> bool:
    return bool(st.session_state.get("present", False))


def sharing_controls() -> None:
    """The presenter toggle and the copy-link button, side by side."""
    toggle, copy = st.columns(2, vertical_alignment="center")
    toggle.toggle(
        "Presenter", key="present", **LINKED,
        help="Large type, high contrast, no sidebar: for a projector. Also ?present=true in a link.",
    )
    with copy:
        st.html(COPY_LINK_HTML, unsafe_allow_javascript=True)
    if presenting():
        st.html(PRESENTER_CSS)


def keyboard_shortcuts(shortcuts: dict[str, str]) -> None:
    """Let keys click this page's buttons: {"ArrowRight": "train_next", ...}."""
    st.html(SHORTCUTS_HTML % json.dumps(shortcuts), unsafe_allow_javascript=True)
