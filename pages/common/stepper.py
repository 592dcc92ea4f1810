"""The step control: ⏮ ◀ a slider ▶ ⏭, Play and its speed, and the keys
→ ← Home End and space, all working in the browser (stepper.js), so a
step costs no round trip to the server. Train steps through merges learned,
Encode replay through merges applied: one control, so both work alike.

The page gives the control everything a span of steps shows; the control
puts the step in the address bar as it moves, and tells the page once the
presenter pauses (the page's other views follow it), or at once when the
step leaves the span held.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import streamlit as st

from bpe_core.drawing.tokens import CHIP_CSS, TOKEN_CSS

HERE = Path(__file__).parent
SPEEDS = [0.5, 1, 2, 4, 8, 16]  # steps per second while playing

CONTROLS_HTML = """
<div class="stp">
  <div class="stp-controls">
    <button type="button" data-move="first" title="First step (Home)" aria-label="First step">⏮</button>
    <button type="button" data-move="previous" title="Previous step (←)" aria-label="Previous step">◀</button>
    <input type="range" class="stp-slider" min="0" value="0" aria-label="Step">
    <button type="button" data-move="next" title="Next step (→)" aria-label="Next step">▶</button>
    <button type="button" data-move="last" title="Last step (End)" aria-label="Last step">⏭</button>
    <button type="button" class="stp-play" title="Play or pause (space)">▶ Play</button>
    <select class="stp-speed" aria-label="Steps per second" title="Steps per second"></select>
    <span class="stp-position" aria-live="polite"></span>
  </div>
  <div class="stp-view"></div>
</div>
"""


def _without_style_tags(css: str) -> str:
    return re.sub(r"</?style>", "", css)


_STEPPER = st.components.v2.component(
    "bpe_playground.stepper",
    html=CONTROLS_HTML,
    # The control draws in a shadow root: token views bring their style along.
    css=_without_style_tags(TOKEN_CSS) + _without_style_tags(CHIP_CSS) + (HERE / "stepper.css").read_text(),
    js=(HERE / "stepper.js").read_text(),
)


def stepper(view: str, *, view_key: str, key: str, step: int, speed: float = 1, param: str,
            speed_param: str | None = None, steps: range, playable: bool = False) -> None:
    """Mount the step control over `view` (the data of a training view, or
    frames, as JSON: see `as_view`), holding `steps`; `view_key` names that
    data (the browser keeps what it shows while it gets the same view again,
    at whatever step); `param` (and `speed_param`) are the link's names for
    the step (and the speed)."""
    data = {"view": view, "viewKey": view_key, "step": step, "speed": speed, "speeds": SPEEDS, "start": steps.start,
            "held": len(steps), "param": param, "speedParam": speed_param, "playable": playable}
    _STEPPER(data=data, key=key, on_position_change=lambda: None)


def as_view(view: dict) -> str:
    """A view's data as the JSON text the step control takes. Kept in a cache
    as text, a view of a thousand steps is one object, not tens of
    thousands of lists: the garbage collector, which Streamlit runs after
    every script run, need not walk it, and no rerun encodes it again."""
    return json.dumps(view, separators=(",", ":"), ensure_ascii=False)


def kept_view(key: str, view_key: str, make: Callable[[], str]) -> str:
    """The view named `view_key` for the control under `key`, made once and
    kept in the session: a view cached for every session may be let go
    while many visitors come, and a step must not wait for it to be made
    again. A session keeps only the view it shows."""
    kept = st.session_state.get(f"{key}_view")
    if kept is None or kept[0] != view_key:
        kept = st.session_state[f"{key}_view"] = (view_key, make())
    return kept[1]


def told_position(key: str) -> tuple[int, float] | None:
    """The (step, speed) the browser last told the control under `key`
    (read before the control is drawn in this run), or None. What a browser
    sends is checked like a link: a whole number of steps, a speed offered."""
    state = st.session_state.get(key)
    position = state.get("position") if hasattr(state, "get") else None
    if not isinstance(position, dict):
        return None
    step, speed = position.get("step"), position.get("speed", 1)
    if type(step) is not int or step < 0:
        return None
    return step, speed if speed in SPEEDS else 1


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
