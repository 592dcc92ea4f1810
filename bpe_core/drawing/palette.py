"""Colours for tokens: colour-blind-safe, readable under black text.

Paul Tol's "light" scheme (https://personal.sron.nl/~pault/#sec:qualitative)
is distinguishable with every common colour-vision deficiency and made for
black text on top. Every view takes its colours from here, so a token looks
the same on every page.
"""

from __future__ import annotations

PALETTE = ["#77AADD", "#EE8866", "#EEDD88", "#FFAABB", "#99DDFF", "#44BB99", "#BBCC33", "#AAAA00", "#DDDDDD"]


def colour_for(index: int, token_id: int, colour_by: str = "position") -> str:
    """The background of a token: by its position (neighbours always differ),
    or stably by its id (the same token has the same colour everywhere)."""
    if colour_by == "id":
        return PALETTE[(token_id * 2654435761) % 2**32 % len(PALETTE)]
    return PALETTE[index % len(PALETTE)]
