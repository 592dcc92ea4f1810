"""A talk deck in the browser (deck.js): the app's Deck page mounts it as a
component, and a deck saved as a page (`standalone.deck_page`) mounts the very same
script, so a talk with saved pages among its slides needs no server.

A slide's page sits in a frame. Page Down and Page Up pressed inside it
belong to the deck: every page of the app and every saved page runs
DECK_KEYS_JS, which, in a frame, hands them to the deck by message.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from ..analysis.deck import Slide

HERE = Path(__file__).parent
DECK_PARAM = "slide"  # the address's name for the slide shown (1 for the first)

DECK_HTML = """
<div class="dk">
  <div class="dk-bar">
    <button type="button" data-move="previous" title="Previous slide (Page Up, ←)" aria-label="Previous slide">◀</button>
    <span class="dk-position" aria-live="polite"></span>
    <button type="button" data-move="next" title="Next slide (Page Down, →)" aria-label="Next slide">▶</button>
    <span class="dk-title"></span>
    <button type="button" class="dk-speaker-button"
      title="The note and the next slide, in a window for your screen">Speaker view</button>
  </div>
  <div class="dk-unplayable" hidden></div>
  <iframe class="dk-frame" title="Slide"></iframe>
</div>
"""

DECK_CSS = """
.dk { font-family: "Source Sans Pro", system-ui, sans-serif; color: #111; }
.dk-bar { display: flex; align-items: center; gap: 0.6rem; margin-bottom: 0.4rem; }
.dk-bar button { font: inherit; font-size: 1rem; padding: 0.2rem 0.7rem; border-radius: 0.4rem; cursor: pointer;
  border: 1px solid rgba(49, 51, 63, 0.3); background: #fff; color: #111; }
.dk-position { font-size: 1.3rem; font-weight: 700; font-variant-numeric: tabular-nums; min-width: 4.5rem;
  text-align: center; }
.dk-title { flex: 1; font-size: 1.1rem; }
.dk-frame { display: block; width: 100%; height: 70vh; border: 1px solid #d0d4da; border-radius: 0.4rem; }
.dk-unplayable { padding: 2rem; border: 1px dashed #888; border-radius: 0.4rem; color: #333; }
"""

DECK_JS = (HERE / "deck.js").read_text(encoding="utf-8")  # an ES module; its default export mounts the deck

# In a deck's frame, the clicker's keys belong to the deck: the page hands
# them on by message instead of acting on them (every page of the app and
# every saved page runs this; outside a frame it does nothing).
DECK_KEYS_JS = """
if (window.parent !== window && !window.bpeDeckKeys) {
  window.bpeDeckKeys = true;
  document.addEventListener("keydown", (event) => {
    if (!["PageDown", "PageUp"].includes(event.key) || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    window.parent.postMessage({ bpeDeck: event.key === "PageDown" ? "next" : "previous" }, "*");
  });
}
"""


def deck_data(slides: list[Slide], *, slide: int, app_address: str | None) -> dict:
    """What deck.js takes: each slide's address to show (an app slide on
    `app_address`, or as a path on the app's own server when None, in
    presenter mode unless its link says otherwise; a saved page beside a
    saved deck, and in the app none: a served page cannot show a file), its
    title and note; and the slide to show first (0-based)."""
    def shown_at(item: Slide) -> str | None:
        if item.saved_page:
            return item.link if app_address is not None else None
        parts = urlsplit(item.link)
        query = parse_qsl(parts.query, keep_blank_values=True)
        if not any(name == "present" for name, _ in query):
            query.append(("present", "true"))  # a deck is for a projector
        path = urlunsplit(("", "", parts.path, urlencode(query, quote_via=quote), parts.fragment))
        return (app_address or "").rstrip("/") + path

    shown = [{"link": item.link, "src": shown_at(item), "title": item.title, "note": item.note} for item in slides]
    return {"slides": shown, "slide": min(max(slide, 0), len(slides) - 1), "param": DECK_PARAM}
