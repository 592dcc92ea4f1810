"""The step control's browser part, in one place: its markup, its style and
its script (step_control.js, .css), and the data it takes.

Two hosts mount the very same control: the app's Streamlit component
(pages/common/stepper.py), and a page saved to stand alone with no server
(`drawing.standalone`). So a step looks and works alike in both, and
neither can drift from the other.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

from .tokens import CHIP_CSS, TOKEN_CSS

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


# The control draws token views and chips: their style comes along.
CONTROL_CSS = _without_style_tags(TOKEN_CSS) + _without_style_tags(CHIP_CSS) + (HERE / "step_control.css").read_text()
CONTROL_JS = (HERE / "step_control.js").read_text()  # an ES module; its default export mounts the control


def control_data(view: str | bytes, *, view_key: str, control: str, step: int, speed: float, steps: range,
                 param: str, speed_param: str | None, playable: bool) -> dict:
    """What the control takes: `view` (a view's data as JSON text, see
    `view_json`, or compressed, see `compressed_view`) holding `steps`,
    named `view_key`; `control`, the name of the control (a page may draw
    another control in the same place); the step and Play's speed to show
    first; `param` and `speed_param`, the address bar's names for the step
    and the speed."""
    return {"view": view, "viewKey": view_key, "control": control, "step": step, "speed": speed, "speeds": SPEEDS,
            "start": steps.start, "held": len(steps), "param": param, "speedParam": speed_param, "playable": playable}


def packed(data: dict) -> bytes:
    """`control_data` as the app's component sends it: its settings as JSON,
    a line break, then the view's JSON text as it is (or compressed). The
    control gets the same view again at every step the presenter pauses
    on; as bytes it costs the server a copy, where as JSON inside JSON it
    would be escaped character by character, twice (Streamlit also hashes
    the data as JSON), at every step of every visitor. The browser reads
    the settings, and the view only when it is a new one (step_control.js)."""
    view = data["view"]
    settings = {name: value for name, value in data.items() if name != "view"}
    settings["compressed"] = isinstance(view, bytes)
    return json.dumps(settings).encode() + b"\n" + (view if isinstance(view, bytes) else view.encode("utf-8"))


def unpacked(packed_data: bytes) -> dict:
    """The `control_data` that `packed` packed (the view as JSON text)."""
    settings_text, _, view = packed_data.partition(b"\n")
    settings = json.loads(settings_text)
    if settings.pop("compressed"):
        view = gzip.decompress(view)
    return {**settings, "view": view.decode("utf-8")}


def view_json(view: dict) -> str:
    """A view's data as the JSON text the step control takes. Kept in a cache
    as text, a view of a thousand steps is one object, not tens of
    thousands of lists: the garbage collector, which Streamlit runs after
    every script run, need not walk it, and no rerun encodes it again."""
    return json.dumps(view, separators=(",", ":"), ensure_ascii=False)


def compressed_view(view: dict) -> bytes:
    """`view_json`, gzip-compressed: a training view of a thousand steps is
    a quarter of a megabyte of JSON that repeats itself (the same tokens'
    labels, chips and counts), about a seventh of that compressed, for a
    few milliseconds once per view. Every visit sends it; the browser
    unpacks it with its own DecompressionStream in about a millisecond."""
    return gzip.compress(view_json(view).encode("utf-8"), mtime=0)
