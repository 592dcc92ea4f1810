"""Colours for tokens: colour-blind-safe, readable under black text.

Paul Tol's "light" scheme (https://personal.sron.nl/~pault/#sec:qualitative)
is distinguishable with every common colour-vision deficiency and made for
black text on top. Every view takes its colours from here, so a token looks
the same on every page.
"""

from __future__ import annotations

PALETTE = ["#77AADD", "#EE8866", "#EEDD88", "#FFAABB", "#99DDFF", "#44BB99", "#BBCC33", "#AAAA00", "#DDDDDD"]

# A chart tells a dozen tokenizers apart by colour alone, more than the nine
# light colours: after them come six darker ones from Paul Tol's "muted" and
# "bright" schemes, distinct from the light ones and from each other. Nothing
# is written on them, so black text need not be readable there.
SERIES_PALETTE = [*PALETTE, "#332288", "#882255", "#117733", "#AA4499", "#CC6677", "#4477AA"]


def colour_for(index: int, token_id: int, colour_by: str = "position") -> str:
    """The background of a token: by its position (neighbours always differ),
    or stably by its id (the same token has the same colour everywhere)."""
    if colour_by == "id":
        return PALETTE[(token_id * 2654435761) % 2**32 % len(PALETTE)]
    return PALETTE[index % len(PALETTE)]


def colour_class(colour: str) -> str:
    """The class that paints `colour` (one of PALETTE) as a token's or a
    chip's background (the rules are `drawing.tokens.COLOUR_CSS`): a few
    bytes per token, where an inline style took 26."""
    return f"bpe-c{PALETTE.index(colour)}"


def series_colour(index: int) -> str:
    """The colour of a chart's `index`-th series (a tokenizer): the same
    first colours as tokens have, and no repeat for fifteen series."""
    return SERIES_PALETTE[index % len(SERIES_PALETTE)]
