"""A view of the app saved as one HTML file that needs no server: the Train
step-through, an Encode replay, a token view, or a talk deck (`deck_page`:
the deck's frame, see `deck`, around the slides found beside it).

Speakers prepare at home and present on a venue's laptop and network. A
saved page opens from disk in any current browser, with no Python and no
network, and works like the app: the step control is the app's own
(`step_control`: the same markup, style and script, hosted by a few lines
of standalone.js instead of a Streamlit component), given every step at
once; a token view is the app's HTML with its cards and keys.

Everything is inlined. The page's Content-Security-Policy allows no
request of any kind and runs only its own scripts (by hash), so a saved
page stays offline, and text in it can only ever be text: every string a
user gave (a corpus, its name, a tokenizer's name) is escaped here or in
the drawing it comes from.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from ..analysis.deck import Slide
from ..analysis.replay import MAX_REPLAY_CHARS, merge_tree, replay
from ..analysis.token_cards import token_origins
from ..engine.corpus import count_pieces
from ..engine.patterns import PRESET_LABELS
from ..engine.tokenizer import Tokenizer
from ..jobs.budgeted_encoding import MAX_VIEW_CHARS, VIEW_SECONDS, encode_within_budget
from .deck import DECK_CSS, DECK_HTML, DECK_JS, DECK_KEYS_JS, deck_data
from .replay import merge_tree_html, replay_frames
from .step_control import CONTROL_CSS, CONTROL_JS, CONTROLS_HTML, control_data, view_json
from .tokens import TOKEN_KEYS_JS, token_html
from .training_view import training_run_view

HERE = Path(__file__).parent
MAX_SAVED_STEPS = 20_000  # the app's budget (the command line sets none): about 5 MB of Shakespeare
PRESENTER_FONT_SIZE = "clamp(20px, 1.25vw, 30px)"  # the root font on a projector: everything in rem grows

PAGE_CSS = f"""
html {{ font-size: 16px; }}
html.sa-presenting {{ font-size: {PRESENTER_FONT_SIZE}; }}
body {{ margin: 0; padding: 1rem 2rem 2rem; font-family: "Source Sans Pro", system-ui, sans-serif; color: #111;
  background: #fff; }}
.sa-header {{ display: flex; align-items: baseline; gap: 1rem; flex-wrap: wrap; margin-bottom: 0.6rem; }}
.sa-header h1 {{ font-size: 2rem; margin: 0; }}
.sa-about {{ flex: 1 1 20rem; color: #333; font-size: 0.95rem; }}
.sa-present {{ font: inherit; font-size: 1rem; padding: 0.25rem 0.7rem; border-radius: 0.4rem; cursor: pointer;
  border: 1px solid rgba(49, 51, 63, 0.3); background: #fff; color: #111; }}
.sa-present[aria-pressed="true"] {{ background: #225588; color: #fff; }}
.sa-note {{ color: #333; font-size: 0.9rem; margin: 0.4rem 0; }}
.sa-counts {{ display: flex; gap: 2rem; flex-wrap: wrap; margin: 0.4rem 0 0.8rem; font-size: 0.9rem; color: #333; }}
.sa-counts b {{ display: block; font-size: 1.5rem; font-weight: 600; color: #111; }}
.sa-footer {{ margin-top: 1.5rem; color: #555; font-size: 0.8rem; }}
html.sa-presenting .sa-footer, html.sa-presenting .sa-keys {{ display: none; }}
html.sa-presenting body {{ padding-bottom: 0; }}  /* the step view ends at the bottom of the window */
"""


class SavedPageError(ValueError):
    """A view that cannot be saved as asked (the message says why and what to do)."""


# ------------------------------------------------------------------ pages


def training_page(tokenizer: Tokenizer, corpus: str | Mapping[str, int], *, corpus_label: str, opening: int = 0,
                  pieces: Mapping[str, int] | None = None, step: int = 0,
                  max_steps: int | None = MAX_SAVED_STEPS) -> str:
    """The Train page's step-through of `tokenizer`, trained on `corpus`
    (`opening`: where its text proper starts; `pieces`: its piece counts,
    counted here if not given), opening at `step`. Every merge is held, up
    to `max_steps` (None: any number); a longer run is refused."""
    total = len(tokenizer.trace)
    if not tokenizer.trace and tokenizer.merges:
        raise SavedPageError("this tokenizer has no record of its training: train it here to save its steps")
    if max_steps is not None and total > max_steps:
        raise SavedPageError(
            f"the run has {total:,} merges; a saved page holds up to {max_steps:,} "
            f"(vocabulary {tokenizer.first_merge_id + max_steps:,}). Train a smaller vocabulary to save it."
        )
    if pieces is None:
        pieces = count_pieces(corpus, tokenizer.pattern, tuple(tokenizer.special_tokens))
    steps = range(total + 1)
    view = training_run_view(tokenizer, corpus, pieces, steps, opening=opening)
    about = (
        f"Trained on {corpus_label}: {tokenizer.units}, split by "
        f"{PRESET_LABELS.get(tokenizer.pattern_name, 'a custom regex')}, {total:,} merges, vocabulary "
        f"{tokenizer.first_merge_id + total:,} + {len(tokenizer.special_tokens)} special."
    )
    data = control_data(view_json(view), view_key="saved", control="saved", step=min(step, total), speed=1,
                        steps=steps, param="train_step", speed_param="train_speed", playable=True)
    return _stepping_page("Train", about, data, keys="→ next merge, ← previous, Home, End, space to play or pause")


def replay_page(tokenizer, text: str, max_chars: int | None = MAX_REPLAY_CHARS) -> str:
    """Encode replay of `text` (a word or a short phrase, up to `max_chars`;
    None: any length) under `tokenizer`: every merge as a step, then the
    merge tree of its longest token."""
    if not text:
        raise SavedPageError("give a word or a short phrase to replay")
    if max_chars is not None and len(text) > max_chars:
        raise SavedPageError(f"the text has {len(text):,} characters; a replay is for a word or a short phrase, "
                             f"up to {max_chars}")
    story = replay(tokenizer, text)
    if not story.pieces:
        raise SavedPageError("the split pattern keeps no piece of this text, so there is nothing to encode")
    about = f"“{text}” encoded by {tokenizer.name}: {story.steps} merge{'s' * (story.steps != 1)}, " \
            f"{len(story.tokens)} token{'s' * (len(story.tokens) != 1)}."
    longest = max(dict.fromkeys(story.tokens), key=lambda token_id: len(tokenizer.token_bytes(token_id)))
    tree = f'<h2 class="sa-note">Merge tree of the longest token</h2>{merge_tree_html(merge_tree(tokenizer, longest))}'
    data = control_data(view_json(replay_frames(story)), view_key="saved", control="saved", step=0, speed=1,
                        steps=range(story.steps + 1), param="replay_step", speed_param=None, playable=True)
    return _stepping_page("Encode replay", about, data, keys="→ next merge, ← previous, Home, End, space to play",
                          after=tree)


def token_view_page(tokenizer, text: str, *, allow_special: bool = False, show_ids: bool = False,
                    colour_by: str = "position", max_chars: int | None = MAX_VIEW_CHARS,
                    seconds: float | None = VIEW_SECONDS) -> str:
    """Inspect's view of `text` under `tokenizer`: the coloured tokens with
    their cards (hover, click, or Tab in and ← →), and the counts. A view
    holds what the app's does (see `budgeted_encoding`: `max_chars`, and
    `seconds` of encoding; None: no limit) and says what it left out."""
    if not text:
        raise SavedPageError("give a text to show as tokens")
    encoded = encode_within_budget(tokenizer, text, allowed_special="all" if allow_special else frozenset(),
                                   max_chars=len(text) if max_chars is None else max_chars,
                                   seconds=math.inf if seconds is None else seconds)
    shown, spans = encoded.text, encoded.spans
    view = token_html(shown, spans, cards=token_origins(tokenizer, [span.id for span in spans]),
                      special_ids=set(tokenizer.special_tokens.values()), show_ids=show_ids, colour_by=colour_by)
    size = len(shown.encode("utf-8"))
    counts = [("Tokens", f"{len(spans):,}"), ("Characters", f"{len(shown):,}"), ("Bytes (UTF-8)", f"{size:,}"),
              ("Bytes per token", f"{size / len(spans):.2f}" if spans else "–")]
    body = '<div class="sa-counts">' + "".join(f"<div>{name}<b>{value}</b></div>" for name, value in counts) + "</div>"
    if encoded.left_out:
        body += f'<p class="sa-note">{html.escape(encoded.left_out)}</p>'
    about = f"{tokenizer.name}. Hover, click or Tab to a token for its card (then ← → walk the tokens)."
    return saved_page("Inspect", about, body + view)


# -------------------------------------------------------------- the frame


def deck_page(slides: list[Slide], *, app_address: str = "http://localhost:8501") -> str:
    """The deck as one HTML file: saved pages among its slides are found
    beside it, the app's permalinks on the app at `app_address` (which must
    be running for those slides)."""
    address = urlsplit(app_address)
    if address.scheme not in ("http", "https") or not address.netloc or address.path.strip("/") or address.query:
        raise ValueError(f"the app's address must be like http://localhost:8501, not {app_address!r}")
    origin = f"{address.scheme}://{address.netloc}"
    data = deck_data(slides, slide=0, app_address=origin)
    about = (f"{len(slides)} slides. Keys: Page Down or → next, Page Up or ← previous, Home, End (a clicker sends "
             f"these); click into a slide to use its own keys. The app's slides come from {origin}.")
    body = (f'<div class="sa-deck">{DECK_HTML}</div>'
            f'<script type="application/json" id="sa-settings">{json_in_html(json.dumps(data))}</script>')
    return saved_page("Talk deck", about, body, module=DECK_JS, module_name="mountDeck", css=DECK_CSS,
                      frames=f"'self' file: {html.escape(origin)}")


def _stepping_page(title: str, about: str, data: dict, *, keys: str, after: str = "") -> str:
    """A page around the step control, which gets `data` as the app's does."""
    view = data.pop("view")
    body = (
        f'<p class="sa-note sa-keys">Keys: {html.escape(keys)}. '
        "The address keeps the step: copy it to open this step.</p>"
        f'<div class="sa-control">{CONTROLS_HTML}</div>{after}'
        f'<script type="application/json" id="sa-settings">{json_in_html(json.dumps(data))}</script>'
        f'<script type="application/json" id="sa-view">{json_in_html(view)}</script>'
    )
    return saved_page(title, about, body, module=CONTROL_JS, module_name="mountStepControl", css=CONTROL_CSS)


def saved_page(title: str, about: str, body: str, *, module: str | None = None, module_name: str = "",
               css: str = "", frames: str | None = None) -> str:
    """The whole document. `about` is plain text; `body` is markup already
    escaped. The page's one script (a module, the only script it allows)
    is `module` with its default export named `module_name`, then the
    token views' and a deck frame's keys, then standalone.js, which mounts
    it. `frames`: the sources the page may show in frames (a deck's)."""
    script = "\n".join([_module_as_function(module, module_name) if module else "", TOKEN_KEYS_JS, DECK_KEYS_JS,
                        _read("standalone.js")])
    policy = (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src 'sha256-{base64.b64encode(hashlib.sha256(script.encode('utf-8')).digest()).decode()}'"
        + (f"; frame-src {frames}" if frames else "")
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)} · BPE playground</title>
<style>{PAGE_CSS}{css}</style>
</head>
<body>
<header class="sa-header"><h1>{html.escape(title)}</h1><span class="sa-about">{html.escape(about)}</span>
<button type="button" class="sa-present" aria-pressed="false" title="Larger type, for a projector">Presenter</button>
</header>
<main>{body}</main>
<footer class="sa-footer">Saved from the BPE playground. This file needs no server and no network.</footer>
<script type="module">{script}</script>
</body>
</html>
"""


def _module_as_function(module: str, name: str) -> str:
    """A component's module (the step control's, the deck's), its default
    export named `name` so that the page's script, inlined after it, can
    call it as Streamlit calls the default export."""
    export = "export default function ("
    if module.count(export) != 1:
        raise RuntimeError("a component's module must have exactly one `export default function (`")
    return module.replace(export, f"function {name}(")


def json_in_html(text: str) -> str:
    """JSON text safe inside a <script> element: "<" (which could close the
    element) and "&" as JSON escapes, which parse back to the same text."""
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _read(name: str) -> str:
    return (HERE / name).read_text(encoding="utf-8")
