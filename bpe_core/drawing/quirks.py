"""A quirk as a card: its title, its text as tokens per tokenizer, and the
live explanation, large enough to read from the back of a hall; and the
Quirks page's cards as one piece of HTML, each with its "Open in …" button
(`QUIRK_CARDS_JS` tells the page which one was clicked)."""

from __future__ import annotations

import html

from ..analysis.quirks import Quirk, Tokenizers, amount
from ..engine.tokenizer import Tokenizer
from .tokens import TOKEN_CSS, token_html

CARD_TOKEN_FONT = "1.6rem"  # the token rows, readable from the back of a hall

CARD_CSS = """
<style>
.quirk-card h3 { font-size: 2rem; margin: 0 0 0.5rem 0; padding: 0; }
.quirk-card .quirk-row { margin: 0.4rem 0 0.8rem 0; }
.quirk-card .quirk-name { font-size: 1.15rem; font-weight: 600; opacity: 0.8; }
.quirk-card .quirk-facts { margin: 0.6rem 0 0 0; padding-left: 1.4rem; }
.quirk-card .quirk-facts li { font-size: 1.3rem; line-height: 1.5; margin: 0.35rem 0; }
.quirk-card .quirk-source { font-size: 1.05rem; opacity: 0.75; margin-top: 0.4rem; }
</style>
"""


def card_html(quirk: Quirk, tokenizers: Tokenizers, *, styled: bool = True) -> str:
    """A quirk as a card: its title, its text as tokens per tokenizer (with
    counts), and the live explanation. Every text is escaped here. Without
    `styled`, the card leaves its style (`CARDS_CSS`) to the page, which
    can give it once for all its cards."""
    rows = "".join(_token_row(name, quirk.text, tokenizer) for name, tokenizer in tokenizers.items())
    facts = "".join(f"<li>{html.escape(line)}</li>" for line in quirk.explain(tokenizers))
    source = f'<div class="quirk-source">{html.escape(quirk.source)}</div>' if quirk.source else ""
    return (
        f'{CARDS_CSS if styled else ""}<div class="quirk-card">'
        f'<h3 id="{anchor(quirk)}">{html.escape(quirk.title)}</h3>{rows}'
        f'<ul class="quirk-facts">{facts}</ul>{source}</div>'
    )


CARDS_CSS = TOKEN_CSS + CARD_CSS  # what a card needs, token views included


def anchor(quirk: Quirk) -> str:
    """The id of a quirk's card on the page, for jumping to it."""
    return f"quirk-{html.escape(quirk.id)}"


def contents_html(quirks) -> str:
    """A row of links, one to each card: the page is long."""
    links = "".join(f'<a class="quirk-jump" href="#{anchor(quirk)}">{html.escape(quirk.title)}</a>' for quirk in quirks)
    return f"{CONTENTS_CSS}<nav class=\"quirk-contents\" aria-label=\"Quirks on this page\">{links}</nav>"


CONTENTS_CSS = """
<style>
.quirk-contents { display: flex; flex-wrap: wrap; gap: 0.4rem 0.6rem; }
.quirk-jump { font-size: 1rem; padding: 0.2rem 0.7rem; border: 1px solid #c5cad3; border-radius: 1rem;
  color: #225588; text-decoration: none; background: #fff; }
.quirk-jump:hover, .quirk-jump:focus { border-color: #225588; background: #eef3f9; }
</style>
"""


def _token_row(name: str, text: str, tokenizer: Tokenizer) -> str:
    spans = tokenizer.encode_with_offsets(text)
    view = token_html(text, spans, special_ids=set(tokenizer.special_tokens.values()), font_size=CARD_TOKEN_FONT)
    view = view.removeprefix(TOKEN_CSS)  # in CARDS_CSS, once: each copy of a style is work for the browser
    return (
        f'<div class="quirk-row"><div class="quirk-name">{html.escape(name)} · '
        f'{amount(len(spans), "token")}</div>{view}</div>'
    )


def cards_html(quirks, tokenizers_of) -> str:
    """The row of links to the cards, then every quirk's card in a box with
    its "Open in Inspect" (or Compare) button, the style once for all:
    one element for the page to draw, where a card, a box and a button
    each were three (`tokenizers_of(quirk)`: its tokenizers by name)."""
    boxes = "".join(
        f'<div class="quirk-box">{card_html(quirk, tokenizers_of(quirk), styled=False)}'
        f'<button type="button" class="quirk-open" data-quirk="{html.escape(quirk.id)}">'
        f"Open in {html.escape(quirk.view.title())}</button></div>"
        for quirk in quirks
    )
    return CARDS_CSS + BOX_CSS + contents_html(quirks) + boxes


BOX_CSS = """
<style>
.quirk-box { border: 1px solid rgba(49, 51, 63, 0.2); border-radius: 0.5rem; padding: 1rem; margin: 1rem 0; }
.quirk-open { font: inherit; font-size: 1rem; padding: 0.25rem 0.75rem; min-height: 2.5rem; border-radius: 0.5rem;
  border: 1px solid #225588; background: #225588; color: #fff; cursor: pointer; }
.quirk-open:hover, .quirk-open:focus-visible { background: #1b4670; border-color: #1b4670; }
</style>
"""

# The component's script: the cards' HTML is drawn when it changes, and a
# click on a card's button tells the page which quirk to open, with when
# (the same card opens again after a visit back: the page compares clicks).
QUIRK_CARDS_JS = """
export default function ({ data, parentElement, setStateValue }) {
  const cards = parentElement.querySelector(".quirk-cards");
  if (cards.bpeShown !== data.html) {
    cards.innerHTML = data.html;
    cards.bpeShown = data.html;
  }
  cards.onclick = (event) => {
    const button = event.target.closest("button[data-quirk]");
    if (button) setStateValue("open", { quirk: button.dataset.quirk, at: Date.now() });
  };
}
"""
