"""The Vocabulary page's drawing: how many tokens each script has."""

from __future__ import annotations

from collections.abc import Mapping

from ..analysis.vocabulary import NON_SCRIPT_CATEGORIES
from .bars import Bar, horizontal_bars_html
from .palette import PALETTE

SCRIPT, NOT_A_SCRIPT = PALETTE[0], PALETTE[-1]  # blue, grey: the writing systems stand out


def script_bars_html(counts: Mapping[str, int]) -> str:
    """Tokens per script as horizontal bars (`bars.horizontal_bars_html`:
    drawn at once, where a plotly chart costs a visit a third of a second),
    the largest on top, each with its count. Scripts are blue; categories
    that are not a script (digits, bytes …) grey."""
    most_first = sorted(counts.items(), key=lambda category_count: -category_count[1])  # stable: ties as given
    return horizontal_bars_html("Tokens per script", {
        str(category): [Bar(str(category), int(count), NOT_A_SCRIPT if category in NON_SCRIPT_CATEGORIES else SCRIPT,
                            f"{int(count):,}", f"{category}: {int(count):,} tokens")]
        for category, count in most_first
    }, legend={"a script": SCRIPT, "not the letters of one script": NOT_A_SCRIPT})
