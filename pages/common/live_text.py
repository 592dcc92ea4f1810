"""A text box whose text reaches the page as it is typed.

Streamlit's own text area sends its text when the typist presses
Ctrl+Enter or leaves the box; a token view should follow the text as it is
typed, as tiktokenizer's and OpenAI's do. This box (live_text.js) sends it
after a short pause in typing instead. Put it in a fragment with the views
that follow it: a pause then reruns only those.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

HERE = Path(__file__).parent

_LIVE_TEXT = st.components.v2.component(
    "bpe_playground.live_text",
    html='<div class="live"><label></label><textarea spellcheck="false" dir="auto"></textarea></div>',
    css=(HERE / "live_text.css").read_text(),
    js=(HERE / "live_text.js").read_text(),
)


def live_text_area(label: str, *, key: str, value: str, height: int = 160, placeholder: str = "") -> str | None:
    """Show `value` in the box; return what the typist last sent, or None
    while they have sent nothing since the box appeared."""
    data = {"label": label, "value": value, "height": height, "placeholder": placeholder}
    result = _LIVE_TEXT(data=data, key=key, on_text_change=lambda: None)
    text = getattr(result, "text", None)
    return text if isinstance(text, str) else None


def typed_text(key: str) -> str | None:
    """What the box under `key` last sent (read before it is drawn), or None."""
    state = st.session_state.get(key)
    text = state.get("text") if hasattr(state, "get") else None
    return text if isinstance(text, str) else None
