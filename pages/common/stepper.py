"""The step control: ⏮ ◀ a slider ▶ ⏭, Play and its speed, and the keys
→ ← Home End and space, all working in the browser (bpe_core/drawing/step_control.js), so a
step costs no round trip to the server. Train steps through merges learned,
Encode replay through merges applied: one control, so both work alike.

The page gives the control everything a span of steps shows; the control
puts the step in the address bar as it moves, and tells the page once the
presenter pauses (the page's other views follow it), or at once when the
step leaves the span held.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import streamlit as st

from bpe_core.drawing.step_control import CONTROL_CSS, CONTROL_JS, CONTROLS_HTML, SPEEDS, control_data, packed

# The control's markup, style and script are the core's (bpe_core.drawing.step_control):
# a page saved to stand alone mounts the very same control.
_STEPPER = st.components.v2.component(
    "bpe_playground.stepper", html=CONTROLS_HTML, css=CONTROL_CSS, js=CONTROL_JS,  # drawn in a shadow root
)


def stepper(view: str | bytes, *, view_key: str, key: str, step: int, speed: float = 1, param: str,
            speed_param: str | None = None, steps: range, playable: bool = False) -> None:
    """Mount the step control over `view` (the data of a training view, or
    frames, as JSON text or compressed: see `view_json`, `compressed_view`),
    holding `steps`; `view_key` names that data (the browser keeps what it
    shows while it gets the same view again, at whatever step); `param`
    (and `speed_param`) are the link's names for the step (and the speed)."""
    data = control_data(view, view_key=view_key, control=key, step=step, speed=speed, steps=steps, param=param,
                        speed_param=speed_param, playable=playable)
    _STEPPER(data=packed(data), key=key, on_position_change=lambda: None)
    st.session_state[f"{key}_view_key"] = view_key  # a report made for another view is not this one's (told_position)


def kept_view(key: str, view_key: str, make: Callable[[], str | bytes]) -> str | bytes:
    """The view named `view_key` for the control under `key`, made once and
    kept in the session: a view cached for every session may be let go
    while many visitors come, and a step must not wait for it to be made
    again. A session keeps only the view it shows."""
    kept = st.session_state.get(f"{key}_view")
    if kept is None or kept[0] != view_key:
        kept = st.session_state[f"{key}_view"] = (view_key, make())
    return kept[1]


_DRAWING = threading.Lock()


def drawn_alone(draw: Callable[[], str | bytes]) -> str | bytes:
    """`draw()` (a view's drawing), with no other view drawn meanwhile.
    Python runs one thread at a time, so views drawn side by side take no
    less time in all; but each holds its working memory meanwhile (the
    server's high-water mark, which it keeps), and a step waits its turn
    behind every one of them. One at a time, a step waits behind one."""
    with _DRAWING:
        return draw()


def told_position(key: str) -> tuple[int, float] | None:
    """The (step, speed) the browser last told the control under `key`
    (read before the control is drawn in this run), or None. A report
    counts only for the view it was made in, the one this control last
    drew: a report sent late, as the presenter's keys pause, may arrive
    after the page has drawn another training in the control's place, and
    that training must not jump to the step of the one before. What a
    browser sends is checked like a link: a whole number of steps, a speed
    offered."""
    state = st.session_state.get(key)
    position = state.get("position") if hasattr(state, "get") else None
    if not isinstance(position, dict) or position.get("viewKey") != st.session_state.get(f"{key}_view_key"):
        return None
    step, speed = position.get("step"), position.get("speed", 1)
    if type(step) is not int or step < 0:
        return None
    return step, speed if speed in SPEEDS else 1


def control_position(key: str, total: int, param: str, speed_param: str | None = None) -> tuple[int, float]:
    """The step (at most `total`) and Play's speed to draw the control under
    `key` at: where the browser last told it to be; else where this session
    last drew it; else, at its first drawing, where the link points. The
    link is read that once: a later run may bring an address bar the
    control has moved on from (the report of a control the presenter just
    left brings the step that control last wrote there), and it must not
    move this control."""
    told = told_position(key)
    drawn = f"{key}_drawn"
    if told:
        step, speed = told
    elif drawn in st.session_state:
        step, speed = st.session_state[drawn]
    else:
        step, speed = linked_step(param, total), linked_speed(speed_param) if speed_param else 1
    st.session_state[drawn] = min(step, total), speed
    return st.session_state[drawn]


def linked_step(param: str, total: int) -> int:
    """The step a link asks for, read strictly (a whole number, else 0) and kept in range."""
    text = st.query_params.get(param, "")
    return min(int(text), total) if text.isascii() and text.isdigit() and len(text) <= 9 else 0


def linked_speed(param: str) -> float:
    """Play's speed a link asks for, if it is one the control offers (else 1)."""
    try:
        speed = float(st.query_params.get(param, "1"))
    except ValueError:
        return 1
    return speed if speed in SPEEDS else 1
